"""What the `arbiter` commands print: the consoles, points (one formatting everywhere: `points`)
and the standings table."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from projections.standings import Table as StandingsTable


class _Console:
    """A rich Console made on first use: a command that prints JSON (or only fails) does not
    load rich (CLI start-up, issue 12 item 5)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def _made(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self._made(), name)

    @property
    def width(self) -> int:  # a data descriptor, so that pytest's monkeypatch can restore it
        return self._made().width

    @width.setter
    def width(self, value: int) -> None:
        self._made().width = value

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("_options", "_console"):
            object.__setattr__(self, name, value)
        else:  # e.g. a test setting the width
            setattr(self._made(), name, value)


def escape(text: str) -> str:
    """Rich markup escaped (`rich.markup.escape`), loading rich only when printing."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


# Wide enough for the standings' tiebreak columns when printing to a file or a pipe.
# No emoji codes (":smile:") in what the CLI prints: without them rich does not load its table.
out: Console = _Console(width=None if sys.stdout.isatty() else 160, emoji=False)  # type: ignore[assignment]
err: Console = _Console(stderr=True, emoji=False)  # type: ignore[assignment]


def points(value: Fraction | Decimal | int | str) -> str:
    """Points as every command prints them: the standings' half-point formatter (11½, ½, 3).
    Takes a number or the exact string a JSON document carries ("11.5", "31/3"); a string
    that is not a number (already shown, "1½") is printed as it is."""
    from projections.tiebreaks.registry import half_points

    try:
        exact = Fraction(value)
    except ValueError:  # already shown ("1½", "2½ (max 3½)"): as it is
        return str(value)
    return half_points(exact * 2 if exact.denominator > 2 else int(exact * 2))


def print_standings(
    tournament: str,
    table: StandingsTable,
    console: Console | None = None,
    sections: Mapping[str, Any] | None = None,
) -> None:
    """The standings with a column per tiebreak and why each row is below the one above; then,
    for a Galway tournament, its sections' winners (`sections`: the standings document's)."""
    from rich.table import Table

    from projections.standings.table import column_keys

    pairs = [
        (key, c.label)
        for key, (c, _) in zip(column_keys(table.chain), table.chain.criteria(), strict=True)
        if not c.terminal
    ]
    crit_cols = [key for key, _ in pairs]
    labels = [label for _, label in pairs]
    # Short headers: the criteria's labels, or the full key where a label repeats.
    heads_tb = [lab if labels.count(lab) == 1 else key for key, lab in pairs]
    t = Table(title=f"Standings: {tournament} (as of seq {table.seq})")
    if table.edition:
        t.caption = f"FIDE C.07 {table.edition.edition} ({table.edition.source})"
    heads = ["#", "player", "score", "played", "W", "D", "L", "byes", "ff +/-"]
    for col in [*heads, *heads_tb, "decided by"]:
        t.add_column(col, justify="left" if col in ("player", "decided by") else "right")
    for r in table.rows:
        place = f"{r.place}{'=' if r.shared else ''}{'?' if r.unresolved else ''}"
        tb = dict(r.tiebreaks)
        t.add_row(
            place,
            r.name + (" (withdrawn)" if r.withdrawn else ""),
            r.score,
            str(r.played),
            str(r.wins),
            str(r.draws),
            str(r.losses),
            str(r.byes),
            f"{r.forfeit_wins}/{r.forfeit_losses}",
            *[tb.get(c, "–") for c in crit_cols],
            r.decided_by,
        )
    (console or out).print(t)
    if sections is not None:
        print_sections(sections, console)


#: Winners listed by name in a section's row; more are counted ("and 12 more").
SHOWN_WINNERS = 6


def print_sections(sections: Mapping[str, Any], console: Console | None = None) -> None:
    """Galway's sections under the standings: each section's winner(s) on the real score (a tie
    stated as one), or its leaders while rounds remain."""
    from rich.table import Table

    con = console or out
    if not sections["sections"]:
        con.print(f"Sections: {sections.get('note', 'not formed yet')}")
        return
    final = sections["status"] == "final"
    done = sections["rounds_finished"]
    of = f" of {sections['rounds']}" if sections.get("rounds") else ""
    title = "Section winners" if final else f"Section leaders after {done}{of} round(s)"
    t = Table(title=title, caption="the pairing bonus is for pairing only, never in a score")
    for col in ("section", "players", "score", "winner" if final else "leader", "places"):
        t.add_column(col, justify="right" if col in ("players", "score") else "left")
    for sec in sections["sections"]:
        winners = sec["winners"]
        names = [w["name"] for w in winners[:SHOWN_WINNERS]]
        if len(winners) > SHOWN_WINNERS:
            names.append(f"and {len(winners) - SHOWN_WINNERS} more")
        who = ", ".join(names)
        if sec["tied"]:
            who = f"tie ({len(winners)}): {who}"
        places = ", ".join(
            f"{w['place']}{'=' if w['shared'] else ''}" for w in winners[:SHOWN_WINNERS]
        )
        t.add_row(sec["name"], str(len(sec["players"])), sec["top_score"]["display"], who, places)
    con.print(t)


def print_bracket(bracket: Mapping[str, Any], names: Mapping[str, str]) -> None:
    """A Cup bracket so far (`projections.pairing.knockout.Bracket.as_dict`): each bracket
    round reached, its matches with seeds, score and winner (how and after which game), then the
    final order once decided."""
    from rich.table import Table

    def who(pid: str) -> str:
        return f"{names.get(pid, pid)} (#{bracket['seeds'][pid]})"

    lot = bracket.get("lot")
    if lot is not None:
        out.print(f"bracket: {len(lot['candidates'])} engines await the lot ({lot['rule']})")
    for rnd in bracket["rounds"]:
        state = "complete" if rnd["complete"] else "in progress"
        t = Table(title=f"{rnd['title']} ({state})", title_justify="left", show_edge=False)
        for col in ("match", "higher seed", "lower seed", "pairs", "games", "score", "result"):
            t.add_column(col, justify="right" if col in ("pairs", "games", "score") else "left")
        for m in rnd["matches"]:
            hp = m["half_points"]
            score = f"{points(Fraction(hp[m['high']], 2))}–{points(Fraction(hp[m['low']], 2))}"
            if m["winner"] is None:
                result = "undecided"
            else:
                result = (
                    f"{names.get(m['winner'], m['winner'])} wins ({m['decided']}, after game "
                    f"{m['decided_after']})"
                )
            played = sum(g["result"] is not None for g in m["games"])
            t.add_row(
                m["match_id"],
                who(m["high"]),
                who(m["low"]),
                str(m["pairs"]),
                str(played),
                score,
                result,
            )
        out.print(t)
    if bracket["final_order"]:
        order = [names.get(p, p) for p in bracket["final_order"]]
        out.print("final order: " + ", ".join(f"{i}. {n}" for i, n in enumerate(order, 1)))
    for note in bracket["notes"]:
        out.print(f"[dim]{note}[/dim]")


def print_json(body: dict[str, Any]) -> None:
    """`body` as indented JSON on stdout (non-ASCII kept), for a command's --json."""
    print(json.dumps(body, ensure_ascii=False, indent=2))
