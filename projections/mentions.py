"""Players named in a text meant for people: `{player id}` in a template (`who`), said with
their names at the edge (`said(text, names)`) and with their ids where no names are at hand
(`said(text)`: a document's stable text, a golden).

The pure code that writes a note (a playoff machine's requirement, a pairing system's notes)
cannot know how the reader wants a player named (a name, a name and start number, an id);
it writes the template, and the edge (the CLI, the HTTP answer) says it with the names it
reads from the tournament. A player id never holds a brace (events_schema/ids.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping

#: A player named in a template: `{player id}`.
MENTION = re.compile(r"\{([A-Za-z0-9][A-Za-z0-9._-]{0,63})\}")


def who(*players: str) -> str:
    """The players, as a template names them: `who("a", "b")` -> "{a}, {b}"."""
    return ", ".join("{" + p + "}" for p in players)


def said(template: str, names: Mapping[str, str] | None = None) -> str:
    """A template's text: each `{id}` as the player's name in `names`, else the id."""
    return MENTION.sub(lambda m: (names or {}).get(m[1], m[1]), template)


def templated(template: str) -> bool:
    """Whether `template` names a player (then a document carries it beside the text)."""
    return MENTION.search(template) is not None
