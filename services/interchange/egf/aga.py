"""The AGA results file (`arbiter export aga T`, `GET /tournaments/{id}/aga`), the format the
American Go Association rates from ("Qualifications for Rated Games", usgo.org: the
tournament, its dates and rules, the players, the games), as OpenGotha writes it (OpenGotha
`ExternalDocument.java`, `generateAGAResultsFile`), and its reader (`read_aga`):

    TOURNEY Princeton Go Club Rated Games, Princeton, NJ
            start=2004-06-15
            finish=2004-06-30
            rules=AGA
    PLAYERS
      489 Matthews, Paul 4k
     3199 Mott, Rick 4k
    GAMES
    489 3199 b 0 7

A player line: the AGA id, the name, the rank. A player without an AGA id (registered with
one: `aga_id`) gets a temporary id counted down from 99999, distinct from the members'
range, as OpenGotha assigns them. A game line: White's id, Black's id, the winner (`w`, `b`),
the handicap and the komi as whole points. As OpenGotha writes them: komi 7 in an even game
(the integer part of the tournament's komi), 0 with a handicap, and a one-stone handicap is
written as handicap 0, komi 0. Only games played to a result are rated: forfeits, byes and
games without a result are left out; a draw (jigo) has no AGA result and is left out too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR

from events_schema import Recorded
from services.interchange.egf.common import ResultsFileError, dates, go_state, rating_ids

_TEMPORARY_FROM = 99999  # OpenGotha: "a dummy AGA Id ... starting from 99999 and decreasing"
_RANK = re.compile(r"^(?:[1-9]|[12][0-9]|30)k$|^[1-9][dp]$")


@dataclass(frozen=True, slots=True)
class AgaGame:
    round: int
    white: int
    black: int
    winner: str  # "w" or "b"
    handicap: int
    komi: int


@dataclass
class AgaFile:
    tourney: str = ""
    settings: dict[str, str] = field(default_factory=dict)  # start, finish, rules
    players: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (name, rank)
    games: list[AgaGame] = field(default_factory=list)


def aga_file(records: Sequence[Recorded], *, place: str = "", rules: str = "AGA") -> AgaFile:
    """The AGA results of the Go tournament whose records these are, as data."""
    state = go_state(records, "aga")
    created = state.created
    assert created is not None
    start, end = dates(records, state)
    out = AgaFile(
        tourney=created.name + (f", {place}" if place else ""),
        settings={"start": start.isoformat(), "finish": end.isoformat(), "rules": rules},
    )
    ids: dict[str, int] = {}
    known_ids = {pid: kept.get("aga_id", "") for pid, kept in rating_ids(state).items()}
    taken = {int(known) for known in known_ids.values() if known.isdigit()}
    temporary = _TEMPORARY_FROM
    for pid in state.players:
        known = known_ids.get(pid, "")
        if known.isdigit() and int(known) > 0:
            ids[pid] = int(known)
            continue
        while temporary in taken:
            temporary -= 1
        ids[pid] = temporary
        taken.add(temporary)
    for pid, info in state.players.items():
        out.players[ids[pid]] = (" ".join(info.name.split()), info.go_rank or "30k")
    even_komi = int(created.komi.to_integral_value(rounding=ROUND_FLOOR))
    games = sorted(state.games.values(), key=lambda g: (g.round, g.board or 0, g.game_id))
    for g in games:
        if g.stage != "main" or not g.results or not g.started:
            continue
        result, termination = g.results[-1][2], g.results[-1][3]
        if result not in ("1-0", "0-1") or termination == "forfeit":
            continue
        handicap, komi = g.handicap, even_komi
        if handicap == 1:
            handicap, komi = 0, 0
        elif handicap >= 2:
            komi = 0
        winner = "w" if result == "1-0" else "b"
        out.games.append(AgaGame(g.round, ids[g.white], ids[g.black], winner, handicap, komi))
    return out


def write_aga(aga: AgaFile) -> str:
    lines = [f"TOURNEY {aga.tourney}"]
    lines += [f"\t{key}={value}" for key, value in aga.settings.items()]
    lines.append("PLAYERS")
    lines += [f"{pid:>5} {name} {rank}" for pid, (name, rank) in aga.players.items()]
    lines.append("GAMES")
    lines += [f"{g.white} {g.black} {g.winner} {g.handicap} {g.komi}" for g in aga.games]
    return "\n".join(lines) + "\n"


def export_aga(records: Sequence[Recorded], *, place: str = "", rules: str = "AGA") -> str:
    """The AGA results file of the Go tournament whose records these are."""
    return write_aga(aga_file(records, place=place, rules=rules))


def read_aga(text: str) -> AgaFile:
    """An AGA results file read back (`ResultsFileError` naming the line of the first
    problem). Games keep no round (the format has none): `round` is 0."""
    out = AgaFile()
    section = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        word = line.split(maxsplit=1)[0].upper()
        if word == "TOURNEY":
            out.tourney = line[len(word) :].strip()
            section = "tourney"
        elif word in ("PLAYERS", "GAMES"):
            section = word.lower()
        elif section == "tourney" and "=" in line:
            key, _, value = line.partition("=")
            out.settings[key.strip().lower()] = value.strip()
        elif section == "players":
            tokens = line.split()
            if len(tokens) < 3 or not tokens[0].isdigit() or not _RANK.match(tokens[-1]):
                raise ResultsFileError(number, "a player line is: AGA id, name, rank")
            out.players[int(tokens[0])] = (" ".join(tokens[1:-1]), tokens[-1])
        elif section == "games":
            tokens = line.split()
            ok = len(tokens) == 5 and tokens[2].lower() in ("w", "b")
            if not ok or not all(t.lstrip("-").isdigit() for t in tokens[:2] + tokens[3:]):
                raise ResultsFileError(
                    number, "a game line is: White's id, Black's id, w or b, handicap, komi"
                )
            white, black, handicap, komi = (int(t) for t in (*tokens[:2], *tokens[3:]))
            for pid in (white, black):
                if pid not in out.players:
                    raise ResultsFileError(number, f"AGA id {pid} is not among the PLAYERS")
            out.games.append(AgaGame(0, white, black, tokens[2].lower(), handicap, komi))
        else:
            raise ResultsFileError(number, f"{line[:40]!r} is outside TOURNEY, PLAYERS, GAMES")
    return out
