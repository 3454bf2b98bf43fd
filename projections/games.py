"""One row per game (`arbiter games`): players, result, how and by which rule it ended, plies,
and for an imported game what its source says and whether the two disagree. Pure: a function
of the recorded events (`game_rows`), read through the standings fold for the games, players
and results in force, and straight from the records for what that fold does not keep (the
`GameEnded` rule and detail, the `GameStarted` source).

Reading a source's ending (`read_source`): the words of a PGN's `TerminationDetails`, else the
notes of its last move comment (cutechess: "White mates"), else its `Termination` header, are
matched to a `Termination` (first match in `_WORDS`; "TCEC win rule" and other arena
adjudications are "adjudication"; "White disconnects" an engine crash of White).

A disagreement (`disagreement`), never hidden:

- the result in force is not the source's (or one of them has none);
- the game ended at another ply than the source's (when the source's ply count is known: the
  importer knows it; a stored `GameSource` does not carry it);
- the rules ended it (a `GameEnded` whose rule is a citation) with another termination than
  the source's words name;
- the rules of the tournament (adjudication "rules") decide from the moves an ending the source
  names — mate, stalemate, repetition, fifty moves, the TCEC draw rule, a dead position, as the
  preset lists them automatic (a FIDE three-fold or fifty-move claim is not) — yet the ending
  in force is the source's own ("arena: …"): the rules did not end the game where the source
  did. Tablebase adjudication (needs tables, which
  the decider never opens) and loss on time (the overrunning move is not in a PGN) are not
  decided from the recorded moves, so a source ending by them is no disagreement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal
from uuid import UUID

from events_schema import events as ev
from events_schema.registry import Recorded
from projections.endings.clock import UnknownSpan, unknown_spans
from projections.endings.rules import RuleName, Ruleset, ruleset_for
from projections.live import latest_clocks
from projections.standings.state import GameRecord, StandingsState, fold

Colour = Literal["white", "black"]

#: The rule-name prefix of an ending recorded from the source (the arena's, the site's), not
#: decided by the rules of the preset.
ARENA = "arena"
RESULTS = ("1-0", "0-1", "1/2-1/2", "0-0")

# Words (lower case) → the termination they name; the first match wins, so the more
# specific come first ("stalemate" before "mate", "draw rule" before "adjudication").
_WORDS: tuple[tuple[str, ev.Termination], ...] = (
    ("disconnect", "engine_crash"),
    ("stalled connection", "engine_crash"),
    ("crash", "engine_crash"),
    ("stalemate", "stalemate"),
    ("checkmate", "checkmate"),
    ("mates", "checkmate"),
    ("mated", "checkmate"),
    ("tcec draw rule", "tcec_draw_rule"),
    ("fold repetition", "threefold_repetition"),
    ("threefold", "threefold_repetition"),
    ("repetition", "threefold_repetition"),
    ("fifty move", "fifty_move_rule"),
    ("fifty-move", "fifty_move_rule"),
    ("50 move", "fifty_move_rule"),
    ("50-move", "fifty_move_rule"),
    ("syzygy", "tablebase"),
    ("tablebase", "tablebase"),
    ("egtb", "tablebase"),
    ("insufficient material", "insufficient_material"),
    ("illegal move", "illegal_move"),
    ("on time", "time_forfeit"),
    ("time forfeit", "time_forfeit"),
    ("timeforfeit", "time_forfeit"),
    ("flag", "time_forfeit"),
    ("resign", "resignation"),
    ("agree", "agreement"),
    ("win rule", "adjudication"),
    ("adjudicat", "adjudication"),
    ("abandon", "forfeit"),
    ("forfeit", "forfeit"),
    ("rules infraction", "other"),
)
#: Endings the rules decide from the recorded moves alone, and the preset rule deciding each.
BY_MOVES: dict[ev.Termination, tuple[RuleName, ...]] = {
    "checkmate": ("checkmate",),
    "stalemate": ("stalemate",),
    "threefold_repetition": ("threefold_repetition",),
    "fifty_move_rule": ("fifty_move_rule",),
    "tcec_draw_rule": ("tcec_draw_rule",),
    "insufficient_material": ("dead_position",),
}
_LABELS: dict[str, str] = {
    "tcec_draw_rule": "TCEC draw rule",
    "fifty_move_rule": "fifty-move rule",
    "seventy_five_move_rule": "seventy-five-move rule",
    "tablebase": "tablebase adjudication",
    "time_forfeit": "loss on time",
    "engine_crash": "engine crash",
    "arbiter_decision": "arbiter's decision",
}


def label(termination: str) -> str:
    """A termination in words: "tcec_draw_rule" → "TCEC draw rule"."""
    return _LABELS.get(termination, termination.replace("_", " "))


#: How a result entered without its ending reads (services/commands/notation.py stores it as
#: termination "other" with this detail).
ENTERED = "result entered by the arbiter"


def ending_label(termination: str | None, detail: str = "", plies: int = 0) -> str:
    """The ending as an organiser or spectator reads it: "loss on time", "forfeit", and for
    termination "other" its recorded detail, else "result entered by the arbiter" when no move
    was recorded (a result typed off a score sheet), else "other ending"."""
    if termination is None:
        return ""
    if termination == "other":
        return detail or (ENTERED if plies == 0 else "other ending")
    return label(termination)


def rule_text(termination: str | None, rule: str | None, detail: str = "", plies: int = 0) -> str:
    """The rule column: "TCEC draw rule (tcec-rules Leagues 10.2)"; a source's own ending as
    its rule ("arena: TCEC win rule"); the ending alone for an ending entered by hand
    ("resignation", "result entered by the arbiter": `ending_label`)."""
    if rule and rule.startswith(ARENA):
        return rule
    if termination is None:
        return rule or ""
    return f"{label(termination)} ({rule})" if rule else ending_label(termination, detail, plies)


# --- a source's ending -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SourceEnding:
    """How a source says a game ended: its result, its words and what they name."""

    result: str  # "1-0", "0-1", "1/2-1/2", "*" or ""
    words: str  # TerminationDetails, else the last comment's notes, else Termination
    termination: ev.Termination | None  # None: the words name no ending ("normal", none)
    crashed: Colour | None = None  # the side whose engine crashed / disconnected

    @property
    def decisive(self) -> bool:
        return self.result in RESULTS


def termination_of(words: str) -> ev.Termination | None:
    text = words.lower()
    for key, termination in _WORDS:
        if key in text:
            return termination
    return None


def read_source(
    result: str, termination: str = "", details: str = "", notes: Sequence[str] = ()
) -> SourceEnding:
    """A source's ending from its `Result`, `Termination`, `TerminationDetails` and the notes
    of its last move comment."""
    candidates = [details.strip(), *(n.strip() for n in notes), termination.strip()]
    words = next((w for w in candidates if w), "")
    found: ev.Termination | None = None
    for text in candidates:
        if text and (found := termination_of(text)) is not None:
            words = text
            break
    crashed: Colour | None = None
    if found == "engine_crash":
        lower = words.lower()
        if lower.startswith("white") or (not lower.startswith("black") and result == "0-1"):
            crashed = "white"
        elif lower.startswith("black") or result == "1-0":
            crashed = "black"
    return SourceEnding(result.strip(), words, found, crashed)


def decided_by_moves(ruleset: Ruleset, termination: ev.Termination | None) -> bool:
    """Whether the preset's rules end a game by `termination` from the moves alone."""
    if termination is None:
        return False
    # (a source's "3-fold repetition" under the FIDE Laws is a claim: 9.6.1's fivefold is
    # another ending, so it does not count here)
    for name in BY_MOVES.get(termination, ()):
        rule = ruleset.rule(name)
        if rule is not None and rule.automatic:
            return True
    return False


def disagreement(
    *,
    result: str | None,
    termination: str | None,
    rule: str | None,
    plies: int,
    source: SourceEnding,
    source_plies: int | None = None,
    ruleset: Ruleset | None = None,
) -> str | None:
    """Why the ending in force disagrees with the source's, or None when they agree.
    `ruleset`: the preset's endings when the tournament ends games by rule, else None."""
    reasons: list[str] = []
    if source.decisive:
        if result is None:
            reasons.append(f"no result recorded; the source says {source.result}")
        elif result != source.result:
            reasons.append(f"result {result}; the source says {source.result}")
    elif result is not None and source.result != "*":
        # (a source read while its game was in progress, `*`, says nothing of its result:
        # the relay or an arbiter recorded the ending later)
        reasons.append(f"result {result}; the source has none ({source.result or 'no Result'})")
    ended = result is not None
    if ended and source_plies is not None and plies != source_plies:
        reasons.append(f"ended at ply {plies}; the source at ply {source_plies}")
    by_rule = bool(rule) and not (rule or "").startswith(ARENA)
    if (
        by_rule
        and termination is not None
        and source.termination is not None
        and termination != source.termination
    ):
        reasons.append(f"{rule_text(termination, rule)}; the source says {source.words!r}")
    if (
        ruleset is not None
        and (rule or "").startswith(ARENA)
        and source.decisive
        and decided_by_moves(ruleset, source.termination)
    ):
        reasons.append(
            f"the source says {source.words!r}; the rules of {ruleset.name} do not end the "
            f"game by ply {plies}"
        )
    return "; ".join(reasons) if reasons else None


# --- rows ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameRow:
    game_id: str
    stage: str
    round: int
    white: str  # names
    black: str
    white_id: str
    black_id: str
    result: str | None
    termination: str | None
    rule: str  # rule_text
    citation: str | None  # GameEnded.rule as recorded
    detail: str
    plies: int
    source: ev.GameSource | None
    disagrees: bool
    why: str
    board: int | None = None  # the pairing's board number
    white_ms: int | None = None  # each side's latest clock reading (projections/live.py)
    black_ms: int | None = None
    # Where a side's clock was unknown (a move without timing, until the next reported clock:
    # projections/endings/clock.py); only for games with time data at all.
    clock_unknown: tuple[UnknownSpan, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "game_id": self.game_id,
            "stage": self.stage,
            "round": self.round,
            "white": self.white,
            "black": self.black,
            "white_id": self.white_id,
            "black_id": self.black_id,
            "result": self.result,
            "termination": self.termination,
            "rule": self.rule,
            "citation": self.citation,
            "detail": self.detail,
            "plies": self.plies,
            "source": None if self.source is None else self.source.model_dump(),
            "disagrees": self.disagrees,
            "why": self.why,
            "board": self.board,
            "clocks": {"white_ms": self.white_ms, "black_ms": self.black_ms},
            "clock_unknown": [
                {"colour": u.colour, "from_ply": u.from_ply, "to_ply": u.to_ply}
                for u in self.clock_unknown
            ],
        }

    def clock_note(self) -> str:
        """The spans of unknown clocks in words, "" when none."""
        parts = []
        for u in self.clock_unknown:
            until = f"to ply {u.to_ply}" if u.to_ply is not None else "to the end"
            parts.append(f"{u.colour.capitalize()}'s clock unknown from ply {u.from_ply} {until}")
        return "; ".join(parts)


_GO_MARGIN = re.compile(r"^\s*([BW])\+(\d+(?:\.\d+)?)\s*$", re.IGNORECASE)


def go_margin_disagreement(
    source: ev.GameSource, ending: ev.GameEnded | ev.ResultCorrected | None
) -> str | None:
    """A Go game counted by Arbiter (LGC Scoring) to another margin than its source's result
    (an SGF `RE[B+3.5]`, kept in `source.details`): the winner may agree while the count
    does not (e.g. pass stones, which LGC counts as prisoners and Japanese counting does
    not)."""
    if not isinstance(ending, ev.GameEnded) or ending.go_score is None:
        return None
    score = ending.go_score.margin
    m = _GO_MARGIN.match(source.details or "")
    if score is None or m is None:
        return None
    theirs = Decimal(m.group(2)) * (1 if m.group(1).upper() == "B" else -1)
    if theirs == score:
        return None
    ours = f"B+{score}" if score > 0 else f"W+{-score}" if score < 0 else "jigo"
    return f"counted {ours}; the source says {m.group(1).upper()}+{m.group(2)}"


def _source_plies(source: ev.GameSource) -> int | None:
    return source.plies


def _ruleset(state: StandingsState) -> Ruleset | None:
    created = state.created
    if created is None or created.adjudication != "rules" or created.game != "chess":
        return None
    try:
        return ruleset_for(created.rules_preset)
    except KeyError:
        return None


def _row(
    game: GameRecord,
    state: StandingsState,
    endings: dict[UUID, ev.GameEnded | ev.ResultCorrected],
    sources: dict[str, ev.GameSource],
    ruleset: Ruleset | None,
) -> GameRow:
    def name(pid: str) -> str:
        info = state.players.get(pid)
        return info.name if info is not None else pid

    result: str | None = None
    termination: str | None = None
    citation: str | None = None
    detail = ""
    if game.results:
        eid, _seq, result, termination = game.results[-1]
        ending = endings.get(eid)
        if isinstance(ending, ev.GameEnded):
            citation, detail = ending.rule, ending.detail
        elif isinstance(ending, ev.ResultCorrected):
            detail = f"corrected: {ending.reason}"
    source = sources.get(game.game_id)
    clocks = latest_clocks(game)
    why: str | None = None
    if source is not None:
        why = disagreement(
            result=result,
            termination=termination,
            rule=citation,
            plies=len(game.moves),
            source=read_source(source.result, source.termination, source.details),
            source_plies=_source_plies(source),
            ruleset=ruleset,
        )
        ending = endings.get(game.results[-1][0]) if game.results else None
        margin = go_margin_disagreement(source, ending)
        if margin is not None:
            why = f"{why}; {margin}" if why else margin
    return GameRow(
        game_id=game.game_id,
        stage=game.stage,
        round=game.round,
        white=name(game.white),
        black=name(game.black),
        white_id=game.white,
        black_id=game.black,
        result=result,
        termination=termination,
        rule=rule_text(termination, citation, detail, len(game.moves)),
        citation=citation,
        detail=detail,
        plies=len(game.moves),
        source=source,
        disagrees=why is not None,
        why=why or "",
        board=game.board,
        white_ms=clocks["white_ms"],
        black_ms=clocks["black_ms"],
        clock_unknown=_clock_unknown(game),
    )


def _clock_unknown(game: GameRecord) -> tuple[UnknownSpan, ...]:
    """The spans of unknown clocks of a game with time data (a game recorded without any says
    nothing: it has no clocks to be unknown)."""
    moves = game.move_events
    if not any(m.clock_ms is not None or m.move_time_ms is not None for m in moves):
        return ()
    return tuple(
        unknown_spans(
            [(m.colour, m.move_time_ms, m.clock_ms) for m in moves],
            [at for _, at, _, _ in game.clock_readings],
        )
    )


def game_rows(records: Iterable[Recorded]) -> list[GameRow]:
    """Every game in force, in the order it was scheduled (then by game id)."""
    recs = list(records)
    state = fold(recs)
    endings: dict[UUID, ev.GameEnded | ev.ResultCorrected] = {}
    started: dict[UUID, ev.GameStarted] = {}
    for rec in recs:
        event = rec.event
        if isinstance(event, ev.GameEnded | ev.ResultCorrected):
            endings[rec.envelope.event_id] = event
        elif isinstance(event, ev.GameStarted) and event.source is not None:
            started[rec.envelope.event_id] = event
    sources: dict[str, ev.GameSource] = {}
    for eid, gid in state.start_game.items():
        start = started.get(eid)
        if start is not None and start.source is not None:
            sources[gid] = start.source
    ruleset = _ruleset(state)
    games = sorted(state.games.values(), key=lambda g: (g.scheduled_seq, g.round, g.game_id))
    return [_row(g, state, endings, sources, ruleset) for g in games]
