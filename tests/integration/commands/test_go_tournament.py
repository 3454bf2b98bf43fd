"""A London Go Centre McMahon tournament from registration to final standings, through the
command path on the embedded log: players with ranks, an appeals committee before round 1,
rounds paired by `pair_next` (McMahon), a skipped round with notice, games played move by
move (a GNU Go game from the fixtures) to the passes, the status agreed and counted, a late
arrival forfeited, the standings by MMS / SOS / SOSOS, and a replay byte-equal to the live
fold (LGC Tournament Rules; OpenGotha conventions where the seed is silent)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sgfmill import sgf

from events_schema import Actor, Command, CommandBatch, Recorded
from events_schema import events as ev
from events_schema.go import GoSettings
from projections.games import game_rows
from projections.standings import fold, standings
from projections.tiebreaks.mcmahon import start_score
from services.commands.pairing import pair_next
from services.commands.service import CommandService
from services.eventlog.sqlite import SQLiteEventLog
from services.projection.projector import replay

TID = "lgc-mcmahon"
REFEREE = Actor(id="referee:lgc", role="arbiter")
GAME = Path(__file__).resolve().parents[2] / "fixtures" / "go" / "gnugo-9x9-h0-s1-l3.sgf"
PLAYERS = [("kim", "2d"), ("lee", "1d"), ("mo", "1k"), ("ng", "2k"), ("oh", "4k"), ("pak", "6k")]
SETTINGS = GoSettings(mcmahon_bar="1d", mcmahon_floor="10k")
START = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)


def _moves() -> list[str]:
    game = sgf.Sgf_game.from_bytes(GAME.read_bytes())
    out = []
    for node in game.get_main_sequence()[1:]:
        _, move = node.get_move()
        out.append("pass" if move is None else "ABCDEFGHJ"[move[1]] + str(move[0] + 1))
    return out


def _send(service: CommandService, *events: ev.Event) -> list[Any]:
    batch = CommandBatch(
        commands=[Command(type=e.event_type, payload=e.model_dump(mode="json")) for e in events]
    )
    return list(service.handle(TID, batch, REFEREE).envelopes)


def _play(service: CommandService, game_id: str, moves: list[str]) -> None:
    colours = ("black", "white")
    _send(
        service,
        *(
            ev.MovePlayed(game_id=game_id, ply=i, colour=colours[(i - 1) % 2], point=p)
            for i, p in enumerate(moves, start=1)
        ),
    )
    _send(service, ev.GoStatusAgreed(game_id=game_id))


def test_a_mcmahon_tournament_from_registration_to_final_standings(tmp_path: Path):
    log = SQLiteEventLog(tmp_path / "go.db")
    service = CommandService(log)
    moves = _moves()
    assert moves[-2:] == ["pass", "pass"] and len(moves) % 2 == 0  # White passes last
    _send(
        service,
        ev.TournamentCreated(
            name="LGC McMahon",
            game="go",
            format="mcmahon",
            rounds=3,
            board_size=9,
            go=SETTINGS,
        ),
        *(ev.PlayerRegistered(player_id=p, name=p.title(), go_rank=r) for p, r in PLAYERS),
        ev.AppealsCommitteeFormed(members=["TD", "Referee", "kim"], reserves=["Reserve"]),
        # LGC "Other players": pak (below the top groups) gives notice for round 2.
        ev.RoundSkipped(player_id="pak", round=2, reason="notice by e-mail"),
    )
    late: str | None = None
    for rnd in (1, 2, 3):
        at = START + timedelta(days=rnd - 1)
        paired = pair_next(service, TID, REFEREE, expected_round=rnd, scheduled_at=at)
        scheduled = paired.round
        assert scheduled is not None and scheduled.round == rnd
        if rnd == 2:
            assert all("pak" not in (p.white, p.black) for p in scheduled.pairings)
            assert not any(b.player_id == "pak" for b in scheduled.byes)
        for pairing in scheduled.pairings:
            if rnd == 3 and late is None:
                # LGC Timing "Start": Black arrives 46 minutes after the clock started
                # (round start 10:00, clocks 10:15): the game is forfeited.
                late = pairing.game_id
                out = _send(
                    service,
                    ev.PlayerArrived(
                        game_id=pairing.game_id,
                        player_id=pairing.black,
                        at=at + timedelta(minutes=61),
                    ),
                )
                assert out[-1].type == "GameEnded" and out[-1].payload["result"] == "1-0"
                continue
            _play(service, pairing.game_id, moves)

    records = [Recorded.of(e) for e in log.read(TID, 1)]
    state = fold(records)
    table = standings(state)
    assert table.by_chain
    rows = {r.player_id: r for r in table.rows}
    # MMS = start score (bar 1d: kim and lee both start on the bar) + wins + the points of
    # byes (1) and absences (pak's skipped round: ½), their sum rounded down (OpenGotha
    # genRoundDownNBWMMS).
    for pid, rank in PLAYERS:
        values = dict(rows[pid].tiebreaks)
        wins = rows[pid].wins + rows[pid].forfeit_wins
        absent = 1 if pid == "pak" else 0
        extra = (2 * rows[pid].byes + absent) // 2
        assert values["mms"] == str(start_score(SETTINGS, rank) + wins + extra), (pid, values)
    assert start_score(SETTINGS, "2d") == start_score(SETTINGS, "1d")  # the bar
    mms = [int(dict(r.tiebreaks)["mms"]) for r in table.rows]
    assert mms == sorted(mms, reverse=True)
    # Every counted game names LGC Scoring, with the count GNU Go's game gives under LGC.
    counted = [g for g in game_rows(records) if g.termination == "counting"]
    assert counted and all(g.citation == "LGC Scoring" for g in counted)
    assert {g.result for g in counted} == {"0-1"}  # the fixture game is a Black win
    forfeits = [g for g in game_rows(records) if g.termination == "forfeit"]
    assert [g.game_id for g in forfeits] == [late]
    assert forfeits[0].citation == 'LGC Timing "Start": late by 30 minutes or more'
    # The published documents are a pure function of the log.
    assert replay(list(log.read(TID, 1)), TID) == replay(list(log.read(TID, 1)), TID)
