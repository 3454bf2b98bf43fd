"""The result notations organisers type, read into a stored result and its termination
(pure: no I/O). Used by result entry (services/commands/results.py), the CLI and HTTP.

A token is one board's result, as Swiss-Manager, Vega, TRF and score sheets write it:

| typed                                         | result  | termination (no `--how`)      |
| --------------------------------------------- | ------- | ----------------------------- |
| `1-0`, `1:0`                                  | 1-0     | other ("entered")         |
| `0-1`, `0:1`                                  | 0-1     | other ("entered")         |
| `½`, `½-½`, `1/2`, `1/2-1/2`, `=`, `0.5`, ... | 1/2-1/2 | agreement                 |
| `+-`, `+:-`, `1F-0F`                          | 1-0     | forfeit (White wins)      |
| `-+`, `-:+`, `0F-1F`                          | 0-1     | forfeit (Black wins)      |
| `--`, `-:-`, `0F-0F`                          | 0-0     | forfeit (both forfeited)  |
| `0-0`, `0:0`                                  | 0-0     | other (a double loss)     |
| `1-1`, `1:1` (Go: both win, OpenGotha)        | 1-1     | other                         |
| `++`, `+:+`, `1F-1F` (Go)                     | 1-1     | forfeit (both win by default) |

Case and spaces are ignored. A decisive result entered without saying how it ended is
stored with termination "other" and the detail "result entered by the arbiter": the
organiser cannot know more than the score sheet says (the TRF import does the same: "other",
"imported from TRF-16"); a draw without `how` is a draw by agreement (FIDE Laws 5.2.3, the
common case; a repetition or a stalemate is named with `how`). `how` names the ending in
words (`resignation`, `time`, `mate`, `repetition`, …: `HOW`), and a forfeit token is a
forfeit whatever `how` says (a `how` naming another ending is refused).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from events_schema import events as ev

#: The detail a result entered without its ending carries.
ENTERED = "result entered by the arbiter"


class NotationError(ValueError):
    """A token or a `how` no notation reads: `rule`, and what is accepted; `field` "how" when
    the `how` is at fault (the token's own field otherwise)."""

    def __init__(self, rule: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.field = field


@dataclass(frozen=True)
class Entered:
    """A board's result as read: the stored result, its termination, whether the token was a
    forfeit, and the detail a `GameEnded` records."""

    result: ev.Result
    termination: ev.Termination
    forfeit: bool = False
    detail: str = ""

    @property
    def text(self) -> str:
        """The result as organisers read it: `1-0`, `½-½`, `+-` (a forfeit), `0-0`."""
        if self.forfeit:
            return {"1-0": "+-", "0-1": "-+", "0-0": "--", "1-1": "++"}[self.result]
        return "½-½" if self.result == "1/2-1/2" else self.result


_DRAWS = ("½", "½-½", "1/2", "1/2-1/2", "=", "=-=", "0.5", "0.5-0.5", ".5", "draw")
#: Token -> (result, forfeit). Keys are lower case without spaces; elsewhere ":" is read as
#: "-" ("1:0").
_TOKENS: dict[str, tuple[ev.Result, bool]] = {
    "1-0": ("1-0", False),
    "0-1": ("0-1", False),
    "0-0": ("0-0", False),
    "1-1": ("1-1", False),  # Go: both win (OpenGotha RESULT_BOTHWIN)
    **{d.replace(":", "-"): ("1/2-1/2", False) for d in _DRAWS},
    "+-": ("1-0", True),
    "+:-": ("1-0", True),
    "1f-0f": ("1-0", True),
    "-+": ("0-1", True),
    "-:+": ("0-1", True),
    "0f-1f": ("0-1", True),
    "--": ("0-0", True),
    "-:-": ("0-0", True),
    "0f-0f": ("0-0", True),
    "++": ("1-1", True),  # Go: both win by default (OpenGotha RESULT_BOTHWIN_BYDEF)
    "+:+": ("1-1", True),
    "1f-1f": ("1-1", True),
}
#: What the refusal lists as accepted.
ACCEPTED = (
    "1-0, 0-1, ½, ½-½, 1/2, 1/2-1/2, =, 0.5, +- / -+ (forfeit), -- (double forfeit), 0-0; "
    "Go: 1-1 (both win), ++ (both win by default)"
)

#: `how` in words -> termination; every termination's own name (with "-" or " " for "_")
#: is accepted too.
HOW: dict[str, ev.Termination] = {
    "resign": "resignation",
    "resigned": "resignation",
    "res": "resignation",
    "agreed": "agreement",
    "agree": "agreement",
    "draw": "agreement",
    "time": "time_forfeit",
    "flag": "time_forfeit",
    "timeout": "time_forfeit",
    "on_time": "time_forfeit",
    "mate": "checkmate",
    "#": "checkmate",
    "repetition": "threefold_repetition",
    "threefold": "threefold_repetition",
    "3fold": "threefold_repetition",
    "fivefold": "fivefold_repetition",
    "fifty": "fifty_move_rule",
    "50": "fifty_move_rule",
    "50_moves": "fifty_move_rule",
    "fifty_moves": "fifty_move_rule",
    "seventy_five": "seventy_five_move_rule",
    "75": "seventy_five_move_rule",
    "75_moves": "seventy_five_move_rule",
    "insufficient": "insufficient_material",
    "dead_position": "insufficient_material",
    "illegal": "illegal_move",
    "crash": "engine_crash",
    "no_show": "forfeit",
    "default": "forfeit",
    "arbiter": "arbiter_decision",
    "count": "counting",
}
TERMINATIONS: tuple[str, ...] = get_args(ev.Termination)


def _key(text: str) -> str:
    return "".join(text.split()).lower()


def termination_of(how: str) -> ev.Termination:
    """The termination `how` names (a termination's name or a word of `HOW`); refused
    (`result.unknown_how`) listing the accepted words."""
    key = "_".join(how.strip().lower().replace("-", " ").replace("_", " ").split())
    if key in TERMINATIONS:
        return key  # type: ignore[return-value]
    found = HOW.get(key) or HOW.get(key.replace("_", ""))
    if found is None:
        raise NotationError(
            "result.unknown_how",
            f"{how!r} names no ending; use one of {', '.join(TERMINATIONS)} "
            "(or resign, time, flag, mate, repetition, fifty, draw, no-show, …)",
            field="how",
        )
    return found


def read_result(token: str, how: str | None = None) -> Entered:
    """One board's result from what the organiser typed (the module docstring's table);
    refused (`result.bad_notation`) naming the token and listing the accepted notations."""
    key = _key(token)
    found = _TOKENS.get(key) or _TOKENS.get(key.replace(":", "-"))
    if found is None:
        raise NotationError(
            "result.bad_notation", f"{token!r} is not a result; accepted: {ACCEPTED}"
        )
    result, forfeit = found
    if forfeit:
        if how is not None and termination_of(how) != "forfeit":
            raise NotationError(
                "result.how_conflict",
                f"{token!r} is a forfeit; --how {how!r} names another ending (enter "
                f"{'½' if result == '1/2-1/2' else result} for a game played)",
            )
        return Entered(result, "forfeit", forfeit=True, detail="forfeit entered by the arbiter")
    if how is not None:
        termination = termination_of(how)
        return Entered(result, termination, forfeit=termination == "forfeit")
    return default_entry(result)


def default_entry(result: ev.Result) -> Entered:
    """A result entered without its ending: a draw by agreement, anything else "other" with
    the detail "result entered by the arbiter" (the module docstring)."""
    if result == "1/2-1/2":
        return Entered(result, "agreement", detail=ENTERED)
    return Entered(result, "other", detail=ENTERED)


def read_round(text: str) -> list[str]:
    """The tokens of a whole round typed on one line (`"1-0 ½ 0-1 +- -+ 0-0"`), split on
    spaces and commas or semicolons; each is read by `read_result`."""
    return text.replace(",", " ").replace(";", " ").split()
