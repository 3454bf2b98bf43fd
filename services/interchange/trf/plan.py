"""A parsed TRF-16 file as the events that record the same tournament (`to_events`: the
import's plan, each event with its place in the file; `importer.import_trf` records it
through the shared pipeline).

The order is: `TournamentCreated` (with the start and end dates of records 042 and 052, and
the FIDE C.07 tie-break edition in force on the start date, the newest without one); the
`RulingIssued` that set another edition, when the file says so (below); one `PlayerRegistered`
per 001 line in start-rank order; then per round ``r``: a `PlayerWithdrew` for each player
withdrawing from ``r``, the round's `RoundScheduled` (pairings and byes), and one `GameEnded`
per game with a result. `edition_choice` says which edition the import records and why.

The tie-break edition of a file we exported (issue 16). When the edition in force is not the
one the start date implies, the export writes a ``###`` line (`parse.edition_note`, e.g.
"### FIDE C.07 tie-break edition fide-2024 (ruling R1), not fide-2026 as the start date
implies"). The import reads it (`stated_edition`) and records the edition as the original
tournament recorded it, as it does every other fact (a withdrawal as a `PlayerWithdrew`, a bye
as a `Bye`), so the imported standings name the same source: a source ``ruling <id>`` becomes
that ruling, `RulingIssued(ruling_id=<id>, subject="tiebreak_edition",
decision={"edition": ...})` right after the creation (the creation keeps the start date's
edition, as the original's did); any other source (an edition stated at creation) becomes the
creation's `tiebreak_edition`. A ``###`` line naming an edition we do not know is refused
(`TrfError`), as is a second one that disagrees; other ``###`` comments are ignored.

Reading choices (the TRF code is on each player's line, so a game is read from both sides and
the two sides must agree):

* ids: player ``p{start rank:03d}`` (``p001``); game ``r{round}-{white}-{black}``
  (``r1-p001-p007``); ``seed`` is the start rank.
* colours: from the ``w``/``b`` columns; a forfeit written with ``-`` on both sides gets the
  lower start rank as White.
* played games ``1``/``0``/``=`` (and the "not rated" ``W``/``L``/``D``): `GameEnded` with
  the result and termination ``other`` (TRF does not say how a game ended); ``0``/``0`` is a
  double loss ``0-0``.
* forfeits: ``+`` vs ``-`` is one game, `GameEnded` with termination ``forfeit``; ``-`` vs
  ``-`` is a double forfeit ``0-0``.
* byes (opponent ``0000``): ``U``, ``F`` and ``+`` are the full-point `pairing_allocated`
  bye; ``H`` a ``half`` bye; ``Z`` a ``zero`` bye; ``-`` or blank a ``zero`` bye too, unless it
  is part of a withdrawal.
* withdrawals: a player whose every round from ``k`` to the last round played holds no game
  and only the not-paired codes ``-`` or blank (with ``0000``) withdrew from round ``k``:
  `PlayerWithdrew(from_round=k)` before round ``k`` is scheduled, and nothing for those rounds
  (they score nothing; the standings flag the player as withdrawn). An explicit ``Z`` is an
  announced absence, a zero bye, never a withdrawal.
* a game with blank results on both sides is scheduled without a result (a TRF written
  during a round).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Literal

from events_schema import Command, encode_payload
from events_schema import events as ev
from projections.tiebreaks.editions import EDITIONS, RULING_SUBJECT, Edition, edition_on, why_on
from services.interchange.pipeline import Planned, event_id
from services.interchange.trf.parse import (
    EDITION_NOTE,
    RoundEntry,
    TrfError,
    TrfFile,
    TrfPlayer,
    header_date,
    round_columns,
)
from services.interchange.trf.records26 import creation26, events26, is_trf26

NAMESPACE = uuid.UUID("2f0c7c52-1b1e-4d0e-9a55-6a7d1f4c9b21")  # TRF import event ids
# code -> (outcome, category)
_GAME_CODES = {
    "1": ("win", "rated"),
    "0": ("loss", "rated"),
    "=": ("draw", "rated"),
    "W": ("win", "unrated"),
    "L": ("loss", "unrated"),
    "D": ("draw", "unrated"),
    "+": ("win", "forfeit"),
    "-": ("loss", "forfeit"),
}
ByeKind = Literal["pairing_allocated", "half", "zero"]
_BYES: dict[str, ByeKind] = {
    "U": "pairing_allocated",
    "F": "pairing_allocated",
    "+": "pairing_allocated",
    "H": "half",
    "Z": "zero",
    "-": "zero",
    " ": "zero",
}
_RESULTS: dict[tuple[str, str], ev.Result] = {
    ("win", "loss"): "1-0",
    ("loss", "win"): "0-1",
    ("draw", "draw"): "1/2-1/2",
    ("loss", "loss"): "0-0",
}
DETAIL = "imported from TRF-16"


def _fide_id(text: str) -> int | None:
    """The 001 line's FIDE id (58-68; digits, checked by the parser); 0 or blank: none."""
    return int(text) or None if text else None


def player_id(start_rank: int) -> str:
    return f"p{start_rank:03d}"


def game_id(rnd: int, white: int, black: int) -> str:
    return f"r{rnd}-{player_id(white)}-{player_id(black)}"


@dataclass
class PlannedGame:
    white: int
    black: int
    result: ev.Result | None  # None: scheduled, no result yet
    termination: ev.Termination = "other"
    detail: str = DETAIL


@dataclass
class PlannedRound:
    round: int
    withdrawals: list[int] = field(default_factory=list)
    games: list[PlannedGame] = field(default_factory=list)
    byes: list[tuple[int, ByeKind]] = field(default_factory=list)  # (start rank, kind)


def _err(p: TrfPlayer, rnd: int, message: str, part: str = "block") -> TrfError:
    first, last = round_columns(rnd)
    cols = {"block": f"{first}-{last}", "opponent": f"{first}-{first + 3}"}.get(part, part)
    return TrfError(p.line, cols, f"round {rnd}: {message}")


def withdrawal_round(p: TrfPlayer, last_round: int) -> int | None:
    """The first round of a trailing run of not-paired entries (``0000`` with ``-`` or blank)
    reaching `last_round`, or None."""
    k = None
    for rnd in range(last_round, 0, -1):
        e = p.entry(rnd)
        if e.opponent is None and e.result in ("-", " "):
            k = rnd
        else:
            break
    return k


def plan(trf: TrfFile) -> list[PlannedRound]:
    """Read the rounds, checking that both sides of every game agree."""
    last = trf.played_rounds
    if trf.rounds is not None and trf.rounds < last:
        raise TrfError(
            trf.tag_lines.get("XXR", 0),
            "",
            f"XXR says {trf.rounds} rounds but players have entries for {last}",
        )
    by_rank = {p.start_rank: p for p in trf.players}
    withdrawn = {p.start_rank: withdrawal_round(p, last) for p in trf.players}
    rounds: list[PlannedRound] = []
    for rnd in range(1, last + 1):
        pr = PlannedRound(rnd)
        done: set[int] = set()
        for p in sorted(trf.players, key=lambda q: q.start_rank):
            k = withdrawn[p.start_rank]
            if k == rnd:
                pr.withdrawals.append(p.start_rank)
            if k is not None and rnd >= k:
                continue
            e = p.entry(rnd)
            if e.opponent is None:
                kind = _BYES.get(e.result)
                if kind is None:
                    raise _err(p, rnd, f"result {e.result!r} needs an opponent (not 0000)")
                pr.byes.append((p.start_rank, kind))
                continue
            if p.start_rank in done:
                continue
            opp = by_rank[e.opponent]
            pr.games.append(_game(p, e, opp, opp.entry(rnd), rnd))
            done |= {p.start_rank, opp.start_rank}
        rounds.append(pr)
    return rounds


def _game(p: TrfPlayer, e: RoundEntry, o: TrfPlayer, oe: RoundEntry, rnd: int) -> PlannedGame:
    if oe.opponent != p.start_rank:
        theirs = "0000" if oe.opponent is None else str(oe.opponent)
        raise _err(
            p,
            rnd,
            f"paired with {o.start_rank}, but line {o.line} has opponent {theirs} in round {rnd}",
            "opponent",
        )
    if e.result in _BYES and e.result not in _GAME_CODES and e.result != " ":
        raise _err(p, rnd, f"bye code {e.result!r} with an opponent ({o.start_rank})")
    # colours
    if e.colour == oe.colour and e.colour != "-":
        raise _err(p, rnd, f"both {p.start_rank} and {o.start_rank} have colour {e.colour!r}")
    if e.colour == "w" or oe.colour == "b":
        white, black, we, be = p, o, e, oe
    elif e.colour == "b" or oe.colour == "w":
        white, black, we, be = o, p, oe, e
    else:  # a forfeit with no colour on either side: the lower start rank is White
        white, black, we, be = p, o, e, oe
    # results
    if we.result == " " and be.result == " ":
        return PlannedGame(white.start_rank, black.start_rank, None)
    wcode, bcode = _GAME_CODES.get(we.result), _GAME_CODES.get(be.result)
    if wcode is None or bcode is None:
        raise _err(p, rnd, f"results {e.result!r} and {oe.result!r} (line {o.line}) disagree")
    forfeit = (wcode[1] == "forfeit", bcode[1] == "forfeit")
    result = _RESULTS.get((wcode[0], bcode[0]))
    if result is None or forfeit[0] != forfeit[1] or (forfeit[0] and result == "1/2-1/2"):
        raise _err(
            p,
            rnd,
            f"results {e.result!r} and {oe.result!r} (line {o.line}, vs {o.start_rank}) "
            "do not make one game",
        )
    if forfeit[0]:
        return PlannedGame(white.start_rank, black.start_rank, result, "forfeit")
    if "unrated" in (wcode[1], bcode[1]):
        detail = f"{DETAIL}: {we.result}/{be.result}, not rated (less than one move)"
        return PlannedGame(white.start_rank, black.start_rank, result, "other", detail)
    return PlannedGame(white.start_rank, black.start_rank, result)


def tournament_dates(trf: TrfFile) -> tuple[date | None, date | None]:
    """(start, end) from records 042 and 052; an end before the start is refused."""
    starts, ends = header_date(trf, "042"), header_date(trf, "052")
    if starts is not None and ends is not None and ends < starts:
        raise TrfError(
            trf.tag_lines.get("052", 0), "", f"052 ends on {ends} before 042 starts on {starts}"
        )
    return starts, ends


@dataclass(frozen=True)
class StatedEdition:
    """The tie-break edition a file's ``###`` line states (our export's `edition_note`)."""

    edition: Edition
    source: str  # as written: "ruling R1", "stated at creation, start date 2026-05-01", ...
    line: int

    @property
    def ruling_id(self) -> str | None:
        """The ruling that set the edition, when the source names one."""
        rid = self.source.removeprefix("ruling ").strip()
        return rid if self.source.startswith("ruling ") and rid else None


def stated_edition(trf: TrfFile) -> StatedEdition | None:
    """The edition the file's ``###`` tie-break edition line states, None without one."""
    found: StatedEdition | None = None
    for lineno, text in trf.other_lines:
        m = EDITION_NOTE.fullmatch(text.strip())
        if m is None:
            continue
        edition = next((e for e in EDITIONS if e == m["edition"]), None)
        if edition is None:
            raise TrfError(
                lineno,
                "",
                f"the tie-break edition {m['edition']!r} is not a FIDE C.07 edition "
                f"({' or '.join(EDITIONS)})",
            )
        stated = StatedEdition(edition, m["source"], lineno)
        rid = stated.ruling_id
        if stated.source.startswith("ruling ") and (rid is None or len(rid) > 64):
            raise TrfError(lineno, "", f"{stated.source!r} does not name a ruling id (1-64)")
        if found is not None and (found.edition, found.source) != (edition, m["source"]):
            raise TrfError(
                lineno,
                "",
                f"the tie-break edition line disagrees with line {found.line} "
                f"({found.edition}, {found.source})",
            )
        found = found or stated
    return found


def import_edition(trf: TrfFile) -> Edition:
    """The FIDE C.07 edition an import records: the one its ``###`` line states (a file we
    exported, ruled off the start date's edition), else the one in force on the start date
    (042), the newest when the file has none (as FIDE's tie-break server reads a file)."""
    stated = stated_edition(trf)
    return stated.edition if stated is not None else edition_on(tournament_dates(trf)[0])


def edition_choice(trf: TrfFile) -> str:
    """What the import says about the edition it chose, e.g. "tie-break edition fide-2026: the
    edition in force on the start date 2026-05-02 (042)", or for a ruled edition "tie-break
    edition fide-2024: ruling R1 (### line 5), recorded as RulingIssued R1; without it,
    fide-2026: the edition in force on the start date 2026-05-01 (042)"."""
    starts = tournament_dates(trf)[0]
    dated = why_on(starts) + (" (042)" if starts else " (no 042 record)")
    stated = stated_edition(trf)
    if stated is None:
        return f"tie-break edition {dated}"
    how = (
        f"recorded as RulingIssued {stated.ruling_id}"
        if stated.ruling_id is not None
        else "recorded as the creation's tiebreak_edition"
    )
    return (
        f"tie-break edition {stated.edition}: {stated.source} (### line {stated.line}), "
        f"{how}; without it, {dated}"
    )


def to_events(
    trf: TrfFile,
    *,
    name: str | None = None,
    fmt: str = "swiss",
    rules_preset: str | None = None,
    file_name: str = "TRF",
) -> list[Planned]:
    """The ordered events for one tournament (the import's plan), each with the place in the
    file of what it records (`file_name`:LINE, and the round's columns for a round's games).

    `name` is used when the file has no 012 line. Each event's key is its index, from which
    the import derives its event id (`DryRun.command`).
    """
    rounds = plan(trf)
    starts, ends = tournament_dates(trf)
    stated = stated_edition(trf)
    ruled = stated is not None and stated.ruling_id is not None
    events: list[tuple[ev.Event, str]] = [
        (
            ev.TournamentCreated(
                name=(trf.header.name or name or "TRF import")[:200],
                format=fmt,
                rounds=trf.rounds or (len(rounds) or None),
                rules_preset=rules_preset,
                starts_on=starts,
                ends_on=ends,
                # Stated here, not left to the decider, so that the stored event equals the
                # command and a re-import is recognised as a redelivery.
                tiebreak_edition=(
                    stated.edition if stated is not None and not ruled else edition_on(starts)
                ),
            ),
            f"{file_name}:{trf.tag_lines.get('012', 1)}",
        )
    ]
    if stated is not None and stated.ruling_id is not None:
        events.append(
            (
                ev.RulingIssued(
                    ruling_id=stated.ruling_id,
                    by=DETAIL,
                    subject=RULING_SUBJECT,
                    rule="FIDE C.07 (tie-break edition)",
                    text=f"{DETAIL}, line {stated.line}: the FIDE C.07 tie-break edition in "
                    f"force is {stated.edition} ({stated.source})",
                    decision={"edition": stated.edition},
                ),
                f"{file_name}:{stated.line}",
            )
        )
    line_of = {p.start_rank: p.line for p in trf.players}
    for p in sorted(trf.players, key=lambda q: q.start_rank):
        if p.rating is not None and p.rating > 4000:
            raise TrfError(p.line, "49-52", f"rating {p.rating} is above 4000")
        registered = ev.PlayerRegistered(
            player_id=player_id(p.start_rank),
            name=p.name,
            rating=p.rating,
            federation=p.federation or None,
            title=p.title[:8] or None,
            seed=p.start_rank,
            fide_id=_fide_id(p.fide_id),
        )
        events.append((registered, f"{file_name}:{p.line}"))
    for pr in rounds:
        first, last = round_columns(pr.round)
        block = f"columns {first}-{last} (round {pr.round})"
        for rank in pr.withdrawals:
            withdrew = ev.PlayerWithdrew(
                player_id=player_id(rank),
                from_round=pr.round,
                reason=f"{DETAIL}: not paired from round {pr.round} on",
            )
            events.append((withdrew, f"{file_name}:{line_of[rank]} {block}"))
        if not pr.games and not pr.byes:
            continue
        scheduled = ev.RoundScheduled(
            round=pr.round,
            pairings=[
                ev.Pairing(
                    game_id=game_id(pr.round, g.white, g.black),
                    white=player_id(g.white),
                    black=player_id(g.black),
                )
                for g in pr.games
            ],
            byes=[ev.Bye(player_id=player_id(r), kind=k) for r, k in pr.byes],
        )
        events.append((scheduled, f"{file_name} {block}"))
        for g in pr.games:
            if g.result is not None:
                ended = ev.GameEnded(
                    game_id=game_id(pr.round, g.white, g.black),
                    result=g.result,
                    termination=g.termination,
                    detail=g.detail,
                )
                events.append((ended, f"{file_name}:{line_of[g.white]} {block}"))
    if is_trf26(trf):  # TRF26: records 240/250/260 as events, the others kept (records26.py)
        created, where = events[0]
        assert isinstance(created, ev.TournamentCreated)
        events[0] = (creation26(trf, created), where)  # 162, 192, 202/212, 222
        events.extend(events26(trf, file_name))
    return [Planned(str(i), e, w) for i, (e, w) in enumerate(events)]


def to_commands(
    trf: TrfFile,
    *,
    name: str | None = None,
    fmt: str = "swiss",
    rules_preset: str | None = None,
    id_namespace: str | None = None,
) -> list[Command]:
    """The plan's commands (`to_events`), as `import_trf` records them: with `id_namespace`
    every command gets a deterministic event id (uuid5 of the namespace and its index), so
    importing the same file into the same tournament again is recognised as a redelivery and
    appends nothing; without, a random one."""
    return [
        Command(
            type=p.event.event_type,
            payload=encode_payload(p.event),
            event_id=event_id(NAMESPACE, id_namespace, p.key),
        )
        for p in to_events(trf, name=name, fmt=fmt, rules_preset=rules_preset)
    ]


def expected_points(trf: TrfFile) -> dict[int, Decimal]:
    """Each player's score under 1/½/0 with full-point U/F byes, as `to_commands` records it
    (withdrawn rounds score nothing)."""
    value = {
        "1": Decimal(1),
        "W": Decimal(1),
        "+": Decimal(1),
        "=": Decimal("0.5"),
        "D": Decimal("0.5"),
        "H": Decimal("0.5"),
        "U": Decimal(1),
        "F": Decimal(1),
    }
    return {
        p.start_rank: sum((value.get(e.result, Decimal(0)) for e in p.rounds), Decimal(0))
        for p in trf.players
    }


def points_mismatches(trf: TrfFile) -> list[str]:
    """Players whose points column differs from their round codes under 1/½/0 (a file with
    another point system, or a hand-edited one): warnings, not errors."""
    out = []
    for rank, pts in expected_points(trf).items():
        p = trf.player(rank)
        if p is not None and p.points is not None and p.points != pts:
            out.append(f"line {p.line}: {p.name} has {p.points} points but the rounds give {pts}")
    return out
