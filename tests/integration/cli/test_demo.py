"""`arbiter demo` (the README's main job) runs a weekend Swiss with the organiser's commands:
each step prints the `arbiter` command an organiser would type and goes through the use case
that command calls, so the log holds what those use cases append (the entry list from the CSV
beside the log, a requested bye, the Dutch rounds with their lot, results in the organisers'
notation, a correction by board after the next round was paired, a withdrawal, a forfeit), and
the game played move by move is ended by its last move in the same batch."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from events_schema import Envelope, Recorded
from events_schema import events as ev
from projections.documents import corrections_after_pairing
from projections.pairing.dutch import byes_subject
from projections.standings import fold, standings
from services.cli.demo_script import ARBITER, CHIEF, PLAYERS, ROUNDS, TID, entries_csv
from services.cli.main import app
from services.commands.notation import ENTERED
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.entries import parse_entries_csv


@dataclass
class Demo:
    db: Path
    output: str
    envelopes: list[Envelope]

    def events(self, kind: type[ev.Event]) -> list[tuple[Envelope, ev.Event]]:
        found = [(e, Recorded.of(e).event) for e in self.envelopes]
        return [(e, x) for e, x in found if isinstance(x, kind)]

    def rounds(self) -> dict[int, ev.RoundScheduled]:
        return {r.round: r for _, r in self.events(ev.RoundScheduled)}  # type: ignore[attr-defined]


def _run(db: Path) -> Demo:
    res = CliRunner().invoke(app, ["demo", "--db", str(db)])
    assert res.exit_code == 0, res.output
    log = SQLiteEventLog(db)
    envelopes = list(log.read(TID))
    log.close()
    return Demo(db, res.output, envelopes)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    return _run(tmp_path_factory.mktemp("demo") / "demo.sqlite3")


def _pid(name: str) -> str:
    return name.lower().replace(" ", "-")


def test_each_step_prints_the_command_an_organiser_types(demo: Demo):
    for command in (
        f"$ arbiter create {TID} --name",
        f"$ arbiter register {TID} --file ",
        f"$ arbiter bye {TID} Eli --round 3 --points ½",
        f"$ arbiter pair {TID} --seed demo",
        f'$ arbiter results {TID} --round 1 "* ',
        f"$ arbiter result {TID} --round 1 3 ",
        f'$ arbiter results {TID} --round 4 "',
        f"$ arbiter correct {TID} --round 1 2 ",
        f"$ arbiter withdraw {TID} 7 --reason",
        f"$ arbiter standings {TID}",
    ):
        assert command in demo.output, command
    assert f"export ARBITER_DB={demo.db}" in demo.output
    assert len(demo.output.splitlines()) <= 90  # compact: the README's first screen


def test_the_tournament_and_its_entries_come_from_the_organiser_commands(demo: Demo):
    (_, created), *_ = demo.events(ev.TournamentCreated)
    assert created.rules_preset == "fide-swiss" and created.rounds == ROUNDS
    assert [(tc.base_seconds, tc.increment_seconds) for tc in created.time_controls] == [(900, 10)]
    csv = demo.db.with_name(f"{demo.db.stem}-entries.csv")
    assert csv.read_text(encoding="utf-8") == entries_csv()  # the file `register --file` read
    registered = [p for _, p in demo.events(ev.PlayerRegistered)]
    from_csv = parse_entries_csv(csv.read_bytes())
    assert [(p.name, p.rating, p.title, p.federation) for p in registered] == [
        (e.name, e.rating, e.title, e.federation) for e in from_csv
    ]
    assert [p.player_id for p in registered] == [_pid(n) for n, *_ in PLAYERS]


def test_every_round_is_paired_by_the_dutch_system_with_its_lot_first(demo: Demo):
    rounds = demo.rounds()
    assert sorted(rounds) == list(range(1, ROUNDS + 1))
    (lot_env, lot), *_ = demo.events(ev.LotDrawn)
    first_round_seq = next(e.seq for e, r in demo.events(ev.RoundScheduled) if r.round == 1)
    assert lot.seed is not None and lot_env.seq < first_round_seq
    met: set[frozenset[str]] = set()
    for r in rounds.values():
        for p in r.pairings:  # never a rematch
            assert frozenset((p.white, p.black)) not in met
            met.add(frozenset((p.white, p.black)))
    assert "refused pairing.round_unfinished (round)" in demo.output


def test_the_requested_half_point_bye_and_the_withdrawal_change_who_is_paired(demo: Demo):
    (_, ruling), *_ = demo.events(ev.RulingIssued)
    assert ruling.subject == byes_subject("main", 3)
    assert ruling.decision == {"byes": {"eli-navarro": "half"}}
    rounds = demo.rounds()
    assert ev.Bye(player_id="eli-navarro", kind="half") in rounds[3].byes
    (_, gone), *_ = demo.events(ev.PlayerWithdrew)
    assert (gone.player_id, gone.from_round) == ("gus-moreau", 3)
    everyone = {_pid(n) for n, *_ in PLAYERS}
    for n, r in rounds.items():
        seated = [x for p in r.pairings for x in (p.white, p.black)] + [b.player_id for b in r.byes]
        expected = everyone - ({"gus-moreau"} if n >= 3 else set())
        assert sorted(seated) == sorted(expected), n
    assert "Gus Moreau (withdrawn)" in demo.output


def test_one_game_is_played_move_by_move_and_ended_by_its_last_move(demo: Demo):
    game = demo.rounds()[1].pairings[0].game_id
    moves = [(e, m) for e, m in demo.events(ev.MovePlayed) if m.game_id == game]
    assert [m.san for _, m in moves] == ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]
    (end_env, end), *_ = [(e, g) for e, g in demo.events(ev.GameEnded) if g.game_id == game]
    assert (end.result, end.termination, end.rule) == ("1-0", "checkmate", "FIDE Laws 5.1.1")
    assert end_env.causation_id == moves[-1][0].event_id  # derived from the mating move


def test_results_are_entered_in_the_organisers_notation_and_a_second_one_is_refused(demo: Demo):
    ended = [g for _, g in demo.events(ev.GameEnded)]
    # typed "1-0" / "0-1" without --how: the results use case's default ending
    assert any(g.termination == "other" and g.detail == ENTERED for g in ended)
    assert any(g.result == "1/2-1/2" and g.termination == "agreement" for g in ended)
    forfeits = [g for g in ended if g.termination == "forfeit"]
    last_board = demo.rounds()[ROUNDS].pairings[-1].game_id
    assert [(g.game_id, g.result) for g in forfeits] == [(last_board, "1-0")]  # "+-"
    assert "refused result.already_entered (result)" in demo.output
    assert {e.actor for e in demo.envelopes if e.type != "ResultCorrected"} == {ARBITER}


def test_the_correction_after_round_2_was_paired_is_an_admins_and_is_flagged(demo: Demo):
    (env, fix), *_ = demo.events(ev.ResultCorrected)
    assert env.actor == CHIEF and fix.game_id == demo.rounds()[1].pairings[1].game_id
    assert env.seq > max(e.seq for e, r in demo.events(ev.RoundScheduled) if r.round == 2)
    state = fold([Recorded.of(e) for e in demo.envelopes])
    flags = corrections_after_pairing(state)
    assert len(flags) == 1 and flags[0]["rounds_paired_before"] == [2]
    assert "flag correction after pairing: round 1" in demo.output


def test_the_standings_the_hash_chain_and_where_to_look_next(demo: Demo):
    state = fold([Recorded.of(e) for e in demo.envelopes])
    table = standings(state)
    for row in table.rows:
        assert row.name in demo.output
    # at 160 columns the game counts give way, so no tie-break heading is cut
    assert "Sonneborn-" in demo.output and "Direct encounter" in demo.output
    assert not [ln for ln in demo.output.splitlines() if ln.startswith(("┃", "│")) and "…" in ln]
    assert f"{len(demo.envelopes)} events, hash chain verified" in demo.output
    assert "published as of seq" in demo.output and "standings, tiebreaks" in demo.output
    for hint in (
        f"arbiter crosstable {TID} --db {demo.db}",
        f"arbiter serve --db {demo.db}",
        f"/tournaments/{TID}/live?token=TOKEN",
        f"arbiter token create --role arbiter --subject {_q(ARBITER.id)} -t {TID}",
        f"/tournaments/{TID}/console?token=TOKEN",
    ):
        assert hint in demo.output, hint


def test_the_inspect_hints_work_on_the_demo_log(demo: Demo):
    for args in (["crosstable", TID], ["players", TID], ["round", TID, "4"]):
        res = CliRunner().invoke(app, [*args, "--db", str(demo.db)])
        assert res.exit_code == 0, res.output
        assert "Ana Ortega" in res.output


def test_the_demo_is_deterministic(demo: Demo, tmp_path: Path):
    again = _run(tmp_path / "again.sqlite3")
    assert [e.payload for e in again.envelopes if e.type != "ResultCorrected"] == [
        e.payload for e in demo.envelopes if e.type != "ResultCorrected"
    ]


def _q(text: str) -> str:
    return f'"{text}"' if " " in text else text
