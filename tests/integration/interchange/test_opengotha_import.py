"""An OpenGotha McMahon tournament file read into Arbiter's events (issue 26 item 3;
services/interchange/opengotha/): the standings OpenGotha gives for it, the rounds as they
were played (never re-paired), a re-import appending nothing, import -> export -> import
giving the same events, and the conventions Arbiter cannot express reported by name.

The sample, tests/data/opengotha/herbst-mcmahon-2026.xml, is a 9-player, 3-round McMahon
tournament as OpenGotha 3.51 saves it: bar 3D, floor 20K, zero 30K, bye 1 point
(genMMS2ValueBye 2), absence ½ (genMMS2ValueAbsent 1) rounded down, criteria MMS, SOSM,
SOSOSM; Müller 5D has smmsCorrection +1 (a supergroup of one), Rossi is absent in round 2,
Ivanova (bye round 1) and García (bye round 3) have the byes, García wins round 2 by forfeit,
handicaps from 1 to 9 stones, and one game names Müller by his key without accents
(MULLERJORG, as an older OpenGotha wrote it).

The expected values, by hand from OpenGotha's rules (`Player.smms`,
`Tournament.fillBaseScoringInfoIfNecessary`):

start (smms = rank + 30 within [floor 10, bar 32], + correction): Müller 5D 32+1 = 33,
Dupont 3D 32, Kovács 4D 32, Smith 1K 29, Novak 2K 28, Rossi 5K 25, Lindqvist 8K 22,
García 12K 18, Ivanova 25K 10 (the floor).

MMS = start + wins + bye/absence points (their sum rounded down):
Müller 33+2 = 35, Dupont 32+1 = 33, Kovács 32+1 = 33, Smith 29+2 = 31, Novak 28+1 = 29,
Rossi 25+1+floor(½) = 26, Lindqvist 22+1 = 23, García 18+2+1 (bye) = 21,
Ivanova 10+1+1 (bye) = 12.

SOS = the opponents' MMS, + stones when the player had White, - when Black; a round without
a game counts the player's own start:
Müller  Kovács 33 (W h0) + Dupont 33 (B h0) + Smith 31+4 (W h4)            = 101
Dupont  Smith 31+2 (W h2) + Müller 35 (W h0) + Kovács 33 (W h0)            = 101
Kovács  Müller 35 (B h0) + Smith 31+1 (W h1) + Dupont 33 (B h0)            = 100
Smith   Dupont 33-2 (B h2) + Kovács 33-1 (B h1) + Müller 35-4 (B h4)       = 94
Novak   Rossi 26+2 + Lindqvist 23+6 + Ivanova 12+9 (all W)                 = 78
Rossi   Novak 29-2 (B h2) + absent: own start 25 + Lindqvist 23+1 (W h1)   = 76
Lindqvist  García 21+3 (W h3) + Novak 29-6 (B h6) + Rossi 26-1 (B h1)      = 72
García  Lindqvist 23-3 (B h3) + Ivanova 12+7 (W h7) + bye: own start 18    = 57
Ivanova bye: own start 10 + García 21-7 (B h7) + Novak 29-9 (B h9)         = 44

SOSOS = the opponents' SOS; a round without a game counts own start × 3 rounds:
Müller 100+101+94 = 295, Dupont 94+101+100 = 295, Kovács 101+94+101 = 296,
Smith 101+100+101 = 302, Novak 76+72+44 = 192, Rossi 78+75+72 = 225,
Lindqvist 57+78+76 = 211, García 72+44+54 = 170, Ivanova 30+57+78 = 165.

Places by MMS, then SOS: Müller; Dupont (33, SOS 101) before Kovács (33, SOS 100); Smith,
Novak, Rossi, Lindqvist, García, Ivanova.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from events_schema import Actor, Recorded
from events_schema import events as ev
from projections.standings import fold, standings
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.opengotha import import_opengotha, plan_file, read_opengotha
from services.interchange.opengotha.export import export_opengotha
from services.interchange.pipeline import ImportRefused

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "opengotha" / "herbst-mcmahon-2026.xml"
ACTOR = Actor(id="td", role="admin")
#: (player, MMS, SOS, SOSOS) in the places OpenGotha gives (module docstring).
OPENGOTHA_STANDINGS = [
    ("Müller Jörg", "35", "101", "295"),
    ("Dupont Élise", "33", "101", "295"),
    ("Kovács Péter", "33", "100", "296"),
    ("Smith John", "31", "94", "302"),
    ("Novak Ana", "29", "78", "192"),
    ("Rossi Marco", "26", "76", "225"),
    ("Lindqvist Eva", "23", "72", "211"),
    ("García Pablo", "21", "57", "170"),
    ("Ivanova Olga", "12", "44", "165"),
]


@pytest.fixture
def log(tmp_path: Path):  # type: ignore[no-untyped-def]
    store = SQLiteEventLog(tmp_path / "events.sqlite3")
    yield store
    store.close()


def _import(log: SQLiteEventLog, raw: bytes, tid: str = "herbst"):  # type: ignore[no-untyped-def]
    return import_opengotha(log, raw, tournament_id=tid, actor=ACTOR, file_name="herbst.xml")


def _records(log: SQLiteEventLog, tid: str) -> list[Recorded]:
    return [Recorded.of(e) for e in log.read(tid, 1)]


def _events(log: SQLiteEventLog, tid: str) -> list[tuple[str, dict[str, object]]]:
    return [(e.type, dict(e.payload)) for e in log.read(tid, 1)]


def test_the_places_and_criteria_are_those_opengotha_gives(log: SQLiteEventLog) -> None:
    report = _import(log, SAMPLE.read_bytes())
    assert (report.players, report.rounds, report.games, report.results) == (9, 3, 12, 12)
    assert report.conventions == []  # everything in this file is expressed
    table = standings(fold(_records(log, "herbst")))
    names = {pid: p.name for pid, p in fold(_records(log, "herbst")).players.items()}
    got = [
        (names[r.player_id], *(dict(r.tiebreaks)[k] for k in ("mms", "sos", "sosos")))
        for r in table.rows
    ]
    assert got == OPENGOTHA_STANDINGS
    assert [r.place for r in table.rows] == list(range(1, 10))


def test_the_settings_are_read_from_the_parameter_sets(log: SQLiteEventLog) -> None:
    _import(log, SAMPLE.read_bytes())
    created = fold(_records(log, "herbst")).created
    assert created is not None and created.go is not None
    go = created.go
    assert (created.name, created.game, created.format, created.rounds) == (
        "Herbst-Turnier 2026",
        "go",
        "mcmahon",
        3,
    )
    assert (go.mcmahon_bar, go.mcmahon_floor, go.supergroup_size) == ("3d", "20k", 1)
    assert (go.bye_points, go.absence_points, go.round_down) == (1, 0.5, True)
    assert go.criteria == ["MMS", "SOS", "SOSOS"]
    assert (go.handicap, go.handicap_correction, go.handicap_ceiling) == ("rank_difference", 1, 9)
    assert str(created.starts_on) == "2026-11-14" and str(created.ends_on) == "2026-11-15"


def test_the_rounds_are_recorded_as_played_never_re_paired(log: SQLiteEventLog) -> None:
    og = read_opengotha(SAMPLE.read_bytes())
    _import(log, SAMPLE.read_bytes())
    rounds = [r.event for r in _records(log, "herbst") if isinstance(r.event, ev.RoundScheduled)]
    assert [r.round for r in rounds] == [1, 2, 3]
    pid = {p.key: f"p{p.index:03d}" for p in og.players}
    pid["MULLERJORG"] = "p001"  # the key without accents names Müller (OpenGotha's fallback)
    for r in rounds:
        played = sorted((g for g in og.games if g.round == r.round), key=lambda g: g.table)
        assert [(p.board, p.white, p.black, p.handicap) for p in r.pairings] == [
            (g.table, pid[g.white], pid[g.black], g.handicap) for g in played
        ]
    assert [[b.player_id for b in r.byes] for r in rounds] == [["p009"], [], ["p008"]]
    skipped = [r.event for r in _records(log, "herbst") if isinstance(r.event, ev.RoundSkipped)]
    assert [(s.player_id, s.round) for s in skipped] == [("p006", 2)]  # Rossi: "101"
    forfeit = [
        r.event
        for r in _records(log, "herbst")
        if isinstance(r.event, ev.GameEnded) and r.event.game_id == "r2-t4"
    ]
    assert [(e.result, e.termination) for e in forfeit] == [("1-0", "forfeit")]


def test_importing_the_same_file_again_appends_nothing(log: SQLiteEventLog) -> None:
    first = _import(log, SAMPLE.read_bytes())
    again = _import(log, SAMPLE.read_bytes())
    assert first.appended == 28 and not first.duplicate
    assert again.appended == 0 and again.duplicate
    assert len(list(log.read("herbst", 1))) == 28


def test_import_export_import_gives_the_same_events(log: SQLiteEventLog) -> None:
    _import(log, SAMPLE.read_bytes())
    written = export_opengotha(_records(log, "herbst"))
    _import(log, written, tid="again")
    assert _events(log, "again") == _events(log, "herbst")
    # and the second export is the first, byte for byte
    assert export_opengotha(_records(log, "again")) == written


def test_the_values_arbiter_does_not_use_are_written_back(log: SQLiteEventLog) -> None:
    _import(log, SAMPLE.read_bytes())
    back = read_opengotha(export_opengotha(_records(log, "herbst")))
    original = read_opengotha(SAMPLE.read_bytes())
    assert [p.attrs for p in back.players] == [p.attrs for p in original.players]
    assert back.general == original.general
    assert back.handicap == original.handicap
    assert back.criteria == original.criteria == ["MMS", "SOSM", "SOSOSM"]
    assert back.parameter_sets == original.parameter_sets
    assert back.others == original.others  # the team parameters
    assert [(b.round, b.player) for b in back.byes] == [(1, "IVANOVAOLGA"), (3, "GARCÍAPABLO")]
    assert [(g.round, g.table, g.result) for g in back.games] == [
        (g.round, g.table, g.result) for g in original.games
    ]


def _variant(*edits: tuple[str, str]) -> bytes:
    text = SAMPLE.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text.encode()


CONVENTIONS = (
    # Dupont corrected +1 although Kovács 4D ranks above her: not a supergroup of whole ranks
    ('firstName="Élise" grade="3D" name="Dupont" participating="11111111111111111111" '
     'rank="3D" rating="2290" ratingOrigin="EGF" registeringStatus="FIN" smmsCorrection="0"',
     'firstName="Élise" grade="3D" name="Dupont" participating="11111111111111111111" '
     'rank="3D" rating="2290" ratingOrigin="EGF" registeringStatus="FIN" smmsCorrection="1"'),
    ('genCountNotPlayedGamesAsHalfPoint="false"', 'genCountNotPlayedGamesAsHalfPoint="true"'),
    ('<PlacementCriterion name="NULL" number="4"/>', '<PlacementCriterion name="DC" number="4"/>'),
    ('result="RESULT_WHITEWINS" roundNumber="3" tableNumber="3"',
     'result="RESULT_BOTHWIN" roundNumber="3" tableNumber="3"'),
    ('result="RESULT_BLACKWINS" roundNumber="3" tableNumber="4"',
     'result="RESULT_UNKNOWN" roundNumber="3" tableNumber="4"'),
)  # fmt: skip


def test_opengothas_conventions_are_read_into_the_settings(log: SQLiteEventLog) -> None:
    """Per-player start score corrections, the virtual scoring of unplayed rounds, DC, a
    win for both and a game without a result: each is expressed (events_schema/go.py), so
    nothing is reported, and the MMS are OpenGotha's (module docstring, changed as follows):
    Dupont starts on 32+1 = 33 and wins once: 34; Lindqvist's round 3 is a win for both:
    22+2 = 24 (Rossi keeps his win: 26); Novak - Ivanova of round 3 has no result: played,
    no point for either (Novak 29, Ivanova 10+1 bye = 11)."""
    report = _import(log, _variant(*CONVENTIONS))
    assert report.conventions == []
    state = fold(_records(log, "herbst"))
    assert state.created is not None and state.created.go is not None
    go = state.created.go
    assert (go.supergroup_size, go.start_score_corrections) == (0, {"p001": 1, "p002": 1})
    assert go.count_not_played_as_half_point and go.unentered_results == "opengotha"
    assert go.criteria == ["MMS", "SOS", "SOSOS", "DC"]
    ended = {
        r.event.game_id: r.event.result
        for r in _records(log, "herbst")
        if isinstance(r.event, ev.GameEnded)
    }
    assert ended["r3-t3"] == "1-1" and "r3-t4" not in ended
    table = standings(state)
    mms = [(state.players[r.player_id].name, dict(r.tiebreaks)["mms"]) for r in table.rows]
    assert mms == [
        ("Müller Jörg", "35"),
        ("Dupont Élise", "34"),
        ("Kovács Péter", "33"),
        ("Smith John", "31"),
        ("Novak Ana", "29"),
        ("Rossi Marco", "26"),
        ("Lindqvist Eva", "24"),
        ("García Pablo", "21"),
        ("Ivanova Olga", "11"),
    ]
    # written back as they were
    back = read_opengotha(export_opengotha(_records(log, "herbst")))
    results = {(g.round, g.table): g.result for g in back.games}
    assert results[(3, 3)] == "RESULT_BOTHWIN" and results[(3, 4)] == "RESULT_UNKNOWN"
    assert [p.smms_correction for p in back.players][:3] == [1, 1, 0]
    assert back.general["genCountNotPlayedGamesAsHalfPoint"] == "true"
    assert back.criteria == ["MMS", "SOSM", "SOSOSM", "DC"]


def test_the_conventions_arbiter_cannot_express_are_reported_by_name(
    log: SQLiteEventLog,
) -> None:
    raw = _variant(
        ('genMMZero="30K"', 'genMMZero="20K"'),
        ('hdBasedOnMMS="true"', 'hdBasedOnMMS="false"'),
        ('<PlacementCriterion name="NULL" number="4"/>',
         '<PlacementCriterion name="XYZ" number="4"/>'),
        ('registeringStatus="FIN" smmsCorrection="1"',
         'registeringStatus="FIN" smmsCorrection="3"'),
    )  # fmt: skip
    report = _import(log, raw)
    said = {c.name: c.what for c in report.conventions}
    assert list(said) == ["genMMZero", "hdBasedOnMMS", "placement criteria", "smmsCorrection"]
    assert "10 points above OpenGotha's" in said["genMMZero"]
    assert said["placement criteria"].startswith("XYZ not applied")
    assert said["smmsCorrection"].startswith("Müller Jörg +3")
    # the ruling that keeps the file's values says them too
    kept = next(
        r.event
        for r in _records(log, "herbst")
        if isinstance(r.event, ev.RulingIssued) and r.event.ruling_id == "opengotha-file"
    )
    assert "genMMZero" in kept.text and "XYZ" in kept.text
    # nothing is dropped: the export writes them back
    back = read_opengotha(export_opengotha(_records(log, "herbst")))
    assert back.general["genMMZero"] == "20K" and back.handicap["hdBasedOnMMS"] == "false"
    assert back.criteria == ["MMS", "SOSM", "SOSOSM", "XYZ"]
    assert back.players[0].smms_correction == 3


def test_a_swiss_file_is_ranked_by_opengothas_swiss_criteria(log: SQLiteEventLog) -> None:
    crit = '<PlacementCriterion name="{}" number="{}"/>'
    raw = _variant(
        (crit.format("MMS", 1), crit.format("NBW", 1)),
        (crit.format("SOSM", 2), crit.format("SOSW", 2)),
    )
    _, plan = plan_file(raw, name="swiss", file_name="swiss.xml")
    # The sample's McMahon handicaps (hdBasedOnMMS true, hdCeiling 9) in a Swiss: Arbiter's
    # Swiss for Go gives them from the ranks (OpenGotha initForSwiss), so it is reported.
    assert [c.name for c in plan.conventions] == ["hdBasedOnMMS"]
    assert "Arbiter's Swiss pairing from the ranks" in plan.conventions[0].what
    created = plan.planned[0].event
    assert isinstance(created, ev.TournamentCreated) and created.pairing == "go-swiss"
    assert plan.settings.criteria == ["NBW", "SOSW", "SOSOS"]
    assert (plan.settings.nbw_bye_points, plan.settings.nbw_absence_points) == (1, 0)


def test_a_jigo_with_half_point_komi_is_kept_and_reported(log: SQLiteEventLog) -> None:
    raw = _variant(
        ('result="RESULT_WHITEWINS" roundNumber="3" tableNumber="2"',
         'result="RESULT_EQUAL" roundNumber="3" tableNumber="2"'),
    )  # fmt: skip
    report = _import(log, raw)
    assert [c.name for c in report.conventions] == ["RESULT_EQUAL"]
    back = read_opengotha(export_opengotha(_records(log, "herbst")))
    assert {(g.round, g.table): g.result for g in back.games}[(3, 2)] == "RESULT_EQUAL"


def test_a_jigo_with_whole_komi_is_a_draw(log: SQLiteEventLog) -> None:
    raw = _variant(
        ('komi="7.5"', 'komi="7"'),
        ('result="RESULT_WHITEWINS" roundNumber="3" tableNumber="2"',
         'result="RESULT_EQUAL" roundNumber="3" tableNumber="2"'),
    )  # fmt: skip
    report = _import(log, raw)
    assert report.conventions == []
    ended = [
        r.event
        for r in _records(log, "herbst")
        if isinstance(r.event, ev.GameEnded) and r.event.game_id == "r3-t2"
    ]
    assert [e.result for e in ended] == ["1/2-1/2"]


def test_an_import_into_a_tournament_that_exists_is_refused_and_appends_nothing(
    log: SQLiteEventLog,
) -> None:
    _import(log, SAMPLE.read_bytes())
    other = _variant(('name="Herbst-Turnier 2026"', 'name="Winter-Turnier"'))
    with pytest.raises(ImportRefused) as caught:
        _import(log, other)
    assert "GeneralParameterSet" in caught.value.where
    assert caught.value.rule == "stream.already_created"
    assert "recorded as a new tournament (give another --tournament" in caught.value.message
    assert len(list(log.read("herbst", 1))) == 28


def test_what_the_players_show_that_arbiter_reads_otherwise_is_reported(
    log: SQLiteEventLog,
) -> None:
    raw = _variant(
        # Ivanova pre-registered; Novak marked absent in round 3 although she played it
        ('name="Ivanova" participating="11111111111111111111" rank="25K" rating="100" '
         'ratingOrigin="EGF" registeringStatus="FIN"',
         'name="Ivanova" participating="11111111111111111111" rank="25K" rating="100" '
         'ratingOrigin="EGF" registeringStatus="PRE"'),
        ('name="Novak" participating="11111111111111111111"',
         'name="Novak" participating="11011111111111111111"'),
        # a tenth player who never played
        ("</Players>",
         '<Player firstName="Hans" name="Meier" rank="10K" participating="00000000000000000000"/>'
         "</Players>"),
    )  # fmt: skip
    report = _import(log, raw)
    said = {c.name: c.what for c in report.conventions}
    assert list(said) == ["registeringStatus PRE", "participating"]
    assert "Player 5 (Novak Ana) round 3" in said["participating"]
    skipped = {
        (r.event.player_id, r.event.round)
        for r in _records(log, "herbst")
        if isinstance(r.event, ev.RoundSkipped)
    }
    # Novak's game of round 3 is recorded (no skip); Meier skips all three rounds
    assert skipped == {("p006", 2), ("p010", 1), ("p010", 2), ("p010", 3)}
    # Meier, never paired, is left out of the standings (OpenGotha displayNPPlayers false)
    rows = standings(fold(_records(log, "herbst"))).rows
    assert [r.player_id for r in rows] == [f"p00{i}" for i in range(1, 10)]


def test_a_go_tournament_made_in_arbiter_is_written_for_opengotha(log: SQLiteEventLog) -> None:
    """Not imported: OpenGotha's defaults where Arbiter has no value, the supergroup as
    `smmsCorrection`, names split at the last blank, a game without a result unknown."""
    from builders import batch

    from events_schema.go import GoSettings
    from services.commands.service import CommandService

    settings = GoSettings(mcmahon_bar="2d", mcmahon_floor="15k", supergroup_size=1)
    CommandService(log).handle(
        "lgc",
        batch(
            ev.TournamentCreated(
                name="LGC Open", game="go", format="mcmahon", rounds=2, go=settings
            ),
            ev.PlayerRegistered(player_id="a", name="Ann Lee", go_rank="4d", seed=1),
            ev.PlayerRegistered(player_id="b", name="Bo Kim", go_rank="2d", seed=2),
            ev.PlayerRegistered(player_id="c", name="Cy", go_rank="20k", seed=3),
            ev.RoundScheduled(
                round=1,
                pairings=[ev.Pairing(game_id="g1", white="a", black="b", board=1)],
                byes=[ev.Bye(player_id="c")],
            ),
            ev.RoundSkipped(player_id="c", round=2, notice="exceptional", reason="ill"),
        ),
        ACTOR,
    )
    og = read_opengotha(export_opengotha(_records(log, "lgc")))
    assert [(p.name, p.first_name, p.smms_correction) for p in og.players] == [
        ("Ann", "Lee", 1),
        ("Bo", "Kim", 0),
        ("Cy", "x", 0),
    ]
    assert [p.participating[:2] for p in og.players] == ["11", "11", "10"]
    assert [(g.white, g.black, g.result) for g in og.games] == [
        ("ANNLEE", "BOKIM", "RESULT_UNKNOWN")
    ]
    assert [(b.round, b.player) for b in og.byes] == [(1, "CYX")]
    assert (og.general["genMMBar"], og.general["genMMFloor"], og.general["numberOfRounds"]) == (
        "2D",
        "15K",
        "2",
    )
    assert og.criteria == ["MMS", "SOSM", "SOSOSM"]


def test_the_egd_pins_and_aga_ids_of_an_imported_file_reach_the_results_files(
    log: SQLiteEventLog,
) -> None:
    from services.interchange.egf.aga import aga_file
    from services.interchange.egf.h9 import h9_file

    raw = SAMPLE.read_bytes().replace(b'agaId="" club="Ber"', b'agaId="4242" club="Ber"', 1)
    _import(log, raw)
    records = _records(log, "herbst")
    pins = {p.name: p.pin for p in h9_file(records).players}
    assert pins["Müller Jörg"] == "12345678" and pins["Dupont Élise"] == "14213397"
    aga = aga_file(records)
    assert aga.players[4242][0] == "Müller Jörg"  # his AGA id, not a temporary one
    assert 99999 in aga.players  # the others without one: OpenGotha's temporary ids


def test_opengothas_other_criteria_are_read_and_written_back(log: SQLiteEventLog) -> None:
    """OpenGotha's long names (`PlacementParameterSet.allPlacementCriteria`) map to Arbiter's,
    the McMahon ones without their M; nothing is reported, and the export writes them back."""
    crit = '<PlacementCriterion name="{}" number="{}"/>'
    raw = _variant(
        (crit.format("SOSM", 2), crit.format("SOSM-1", 2)),
        (crit.format("SOSOSM", 3), crit.format("CUSSM", 3)),
        (crit.format("NULL", 4), crit.format("SDC", 4)),
        (crit.format("NULL", 5), crit.format("Rank", 5)),
    )
    _, plan = plan_file(raw, name="herbst", file_name="herbst.xml")
    assert plan.conventions == []
    assert plan.settings.criteria == ["MMS", "SOS-1", "CUSS", "SDC", "RANK"]
    report = _import(log, raw)
    assert report.conventions == []
    table = standings(fold(_records(log, "herbst")))
    # SOSM-1 by hand from the module docstring's SOS rounds (SOS less its lowest round):
    # Dupont 33 + 35 + 33 - 33 = 68 and Kovács 35 + 32 + 33 - 32 = 68.
    sos1 = {r.player_id: dict(r.tiebreaks)["sos-1"] for r in table.rows}
    assert sos1["p002"] == sos1["p003"] == "68"
    back = read_opengotha(export_opengotha(_records(log, "herbst")))
    assert back.criteria == ["MMS", "SOSM-1", "CUSSM", "SDC", "Rank"]


def test_a_tournament_made_in_arbiter_writes_opengothas_names_for_its_criteria(
    log: SQLiteEventLog,
) -> None:
    from builders import batch

    from events_schema.go import GoSettings
    from services.commands.service import CommandService

    settings = GoSettings(criteria=["NBW", "SOSW-1", "SOSW-2", "CUSSW", "EXT", "EXR"])
    CommandService(log).handle(
        "sw",
        batch(
            ev.TournamentCreated(name="Swiss", game="go", format="swiss", rounds=1, go=settings),
            ev.PlayerRegistered(player_id="a", name="Ann Lee", go_rank="4d", seed=1),
        ),
        ACTOR,
    )
    og = read_opengotha(export_opengotha(_records(log, "sw")))
    assert og.criteria == ["NBW", "SOSW-1", "SOSW-2", "CUSSW", "EXT", "EXR"]
    _, plan = plan_file(export_opengotha(_records(log, "sw")), name="sw", file_name="sw.xml")
    assert plan.settings.criteria == settings.criteria


def test_categories_are_read_for_the_cat_criterion_and_written_back(log: SQLiteEventLog) -> None:
    """OpenGotha's Swiss with categories (`initForSwissCat`: CAT, NBW, EXT, EXR): the
    `Categories` of the GeneralParameterSet become `category_lower_limits` (3 categories:
    3D and up, 5K and up, the rest); the file's own element is written back."""
    crit = '<PlacementCriterion name="{}" number="{}"/>'
    raw = _variant(
        ('numberOfCategories="1" numberOfRounds="3" shortName="herbst2026" size="19" '
         'stdByoYomiTime="30"/>',
         'numberOfCategories="3" numberOfRounds="3" shortName="herbst2026" size="19" '
         'stdByoYomiTime="30"><Categories><Category lowerLimit="3D" number="1"/>'
         '<Category lowerLimit="5K" number="2"/></Categories></GeneralParameterSet>'),
        (crit.format("MMS", 1), crit.format("CAT", 1)),
        (crit.format("SOSM", 2), crit.format("NBW", 2)),
        (crit.format("SOSOSM", 3), crit.format("EXT", 3)),
        (crit.format("NULL", 4), crit.format("EXR", 4)),
    )  # fmt: skip
    _, plan = plan_file(raw, name="herbst", file_name="herbst.xml")
    assert plan.settings.category_lower_limits == ["3d", "5k"]
    assert plan.settings.criteria == ["CAT", "NBW", "EXT", "EXR"]
    assert [c.name for c in plan.conventions] == ["numberOfCategories"]
    _import(log, raw)
    st = fold(_records(log, "herbst"))
    cats = {
        st.players[r.player_id].name: dict(r.tiebreaks)["go-category"] for r in standings(st).rows
    }
    # Müller 5D, Dupont 3D, Kovács 4D: category 1; Smith 1K, Novak 2K, Rossi 5K: 2; the rest 3
    assert cats["Müller Jörg"] == cats["Dupont Élise"] == cats["Kovács Péter"] == "1"
    assert cats["Smith John"] == cats["Rossi Marco"] == "2"
    assert cats["Lindqvist Eva"] == cats["Ivanova Olga"] == "3"
    back = read_opengotha(export_opengotha(_records(log, "herbst")))
    assert back.general["numberOfCategories"] == "3"
    assert 'lowerLimit="5K"' in back.categories


def test_categories_made_in_arbiter_are_written_for_opengotha(log: SQLiteEventLog) -> None:
    from builders import batch

    from events_schema.go import GoSettings
    from services.commands.service import CommandService

    settings = GoSettings(criteria=["CAT", "NBW"], category_lower_limits=["1d", "10k"])
    CommandService(log).handle(
        "cat",
        batch(
            ev.TournamentCreated(name="Cats", game="go", format="swiss", rounds=1, go=settings),
            ev.PlayerRegistered(player_id="a", name="Ann Lee", go_rank="4d", seed=1),
        ),
        ACTOR,
    )
    written = export_opengotha(_records(log, "cat"))
    og = read_opengotha(written)
    assert og.general["numberOfCategories"] == "3"
    assert og.categories == (
        '<Categories><Category lowerLimit="1D" number="1" />'
        '<Category lowerLimit="10K" number="2" /></Categories>'
    )
    _, plan = plan_file(written, name="cat", file_name="cat.xml")
    assert plan.settings.category_lower_limits == ["1d", "10k"]
    assert plan.settings.criteria == ["CAT", "NBW"]
