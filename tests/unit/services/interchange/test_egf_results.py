"""The EGF h9 and AGA results files (services/interchange/egf/, issue 26 item 4): a McMahon
tournament of the log written as each file and read back by its reader to the same players,
places, ranks and results; a chess tournament refused.

Given three rounds: ana (3d) beats bo (1k) with White on a handicap of 3 (rank difference
after the correction), cy has a bye in round 1 and a forfeit win over bo in round 3, a game
lost by counting; when written, then each round reads back as OpenGotha and the AGA write
it."""

from __future__ import annotations

from decimal import Decimal

import pytest
from builders import recorded, result

from events_schema import events as ev
from events_schema.go import GoSettings
from services.interchange.egf.aga import export_aga, read_aga
from services.interchange.egf.common import ResultsFileError, ResultsFileRefused
from services.interchange.egf.h9 import (
    H9Result,
    egf_adjusted_time,
    egf_class_of,
    export_h9,
    read_h9,
)


def paris_go_open() -> list[ev.Event]:
    return [
        ev.TournamentCreated(
            name="Paris Go Open 2026",
            game="go",
            format="mcmahon",
            rounds=3,
            komi=Decimal("6.5"),
            go=GoSettings(handicap="rank_difference", handicap_correction=1),
            time_controls=[
                ev.TimeControl(
                    name="60m+cb",
                    base_seconds=3600,
                    overtime="canadian",
                    overtime_seconds=300,
                    overtime_stones=25,
                )
            ],
        ),
        ev.PlayerRegistered(
            player_id="ana", name="Ana  Kim", go_rank="3d", federation="FR", club="Paris Go Club"
        ),
        ev.PlayerRegistered(player_id="bo", name="Bo Lin", go_rank="1k", federation="DE"),
        ev.PlayerRegistered(player_id="cy", name="Cy Roux", go_rank="5k"),
        ev.RoundScheduled(
            round=1,
            pairings=[ev.Pairing(game_id="r1", white="ana", black="bo", handicap=3)],
            byes=[ev.Bye(player_id="cy")],
        ),
        ev.GameStarted(game_id="r1"),
        result("r1", "1-0", "resignation"),
        ev.RoundScheduled(
            round=2,
            pairings=[ev.Pairing(game_id="r2", white="cy", black="ana")],
            byes=[ev.Bye(player_id="bo")],
        ),
        ev.GameStarted(game_id="r2"),
        result("r2", "0-1", "counting"),
        ev.RoundScheduled(
            round=3,
            pairings=[ev.Pairing(game_id="r3", white="bo", black="cy")],
            byes=[ev.Bye(player_id="ana")],
        ),
        result("r3", "0-1", "forfeit"),
    ]


def test_the_h9_file_reads_back_to_the_places_ranks_and_results():
    text = export_h9(recorded("paris", paris_go_open()), egf_class="A", place="FR,Paris")
    h9 = read_h9(text)
    assert h9.header == {
        "CL": "A",
        "EV": "Paris Go Open 2026",
        "PC": "FR,Paris",
        "DT": h9.header["DT"],
        "HA": "h1",
        "KM": "6.5",
        "TM": "72",  # OpenGotha egfAdjustedTime: 3600 s + 60 × 300 s / 25 stones = 72 min
        "CM": "Canadian byo-yomi",
    }
    assert text.startswith("; CL[A]\n; EV[Paris Go Open 2026]\n; PC[FR,Paris]\n; DT[")
    by_name = {p.name: p for p in h9.players}
    assert [p.place for p in h9.players] == [1, 2, 3]
    ana, bo, cy = by_name["Ana Kim"], by_name["Bo Lin"], by_name["Cy Roux"]
    assert (ana.rank, ana.country, ana.club) == ("3d", "FR", "Pari")
    assert (bo.rank, bo.country, bo.club) == ("1k", "DE", "xxxx")
    assert (cy.rank, cy.country) == ("5k", "XX")
    assert len(ana.criteria) == 4
    # Round 1: ana won with White, handicap 3; bo lost with Black; cy had the bye.
    assert ana.results[0] == H9Result(bo.place, "+", "w", 3)
    assert bo.results[0] == H9Result(ana.place, "-", "b", 3)
    assert cy.results[0] == H9Result(0, "+")
    # Round 2: ana won by counting with Black, even game ("/b" without a handicap).
    assert ana.results[1] == H9Result(cy.place, "+", "b", 0)
    assert f"{cy.place}+/b " in text
    # Round 3: a forfeit is not rated: "!" and no colour.
    assert cy.results[2] == H9Result(bo.place, "+", forfeit=True)
    assert bo.results[2] == H9Result(cy.place, "-", forfeit=True)
    assert f"{bo.place}+!" in text


def test_the_aga_file_reads_back_to_the_players_and_rated_games():
    text = export_aga(recorded("paris", paris_go_open()), place="Paris, FR")
    assert text.startswith("TOURNEY Paris Go Open 2026, Paris, FR\n\tstart=")
    aga = read_aga(text)
    assert aga.tourney == "Paris Go Open 2026, Paris, FR"
    assert aga.settings["rules"] == "AGA"
    # no AGA ids registered: temporary ids from 99999 down, in registration order
    assert aga.players == {
        99999: ("Ana Kim", "3d"),
        99998: ("Bo Lin", "1k"),
        99997: ("Cy Roux", "5k"),
    }
    # Handicap 3: komi 0. The even game: komi 6 (the integer part of 6.5, as OpenGotha's 7
    # of 7.5). The forfeit is not rated.
    assert [(g.white, g.black, g.winner, g.handicap, g.komi) for g in aga.games] == [
        (99999, 99998, "w", 3, 0),
        (99997, 99999, "b", 0, 6),
    ]


def test_the_class_follows_the_time_as_opengotha_computes_it():
    # OpenGotha Tournament.java egfClass: A from 60 min basic and 75 min adjusted time (45
    # and 75 with Fischer), B from 40/50 (30/50), C from 25/30 (20/30), else X
    def tc(base: int, **kw: object) -> ev.TimeControl:
        return ev.TimeControl(name="t", base_seconds=base, **kw)  # type: ignore[arg-type]

    assert egf_class_of(tc(3600, overtime="byo_yomi", overtime_seconds=30)) == "A"  # 60+22.5
    assert egf_adjusted_time(tc(3600, overtime="byo_yomi", overtime_seconds=30)) == 4950
    assert egf_class_of(tc(3600)) == "B"  # sudden death: 60 min adjusted, under A's 75
    assert egf_class_of(tc(2700, increment_seconds=15)) == "A"  # Fischer 45 + 30
    assert egf_class_of(tc(1500)) == "X"  # 25 min sudden death: under C's 30 adjusted
    assert (
        egf_class_of(tc(1500, overtime="canadian", overtime_seconds=300, overtime_stones=20)) == "C"
    )
    assert egf_class_of(None) == "X"
    text = export_h9(recorded("paris", paris_go_open()))
    assert text.startswith("; CL[B]\n")  # 60 min + Canadian 5 min / 25 stones: 72 adjusted


def test_a_chess_tournament_and_a_bad_file_are_refused():
    chess = [ev.TournamentCreated(name="Open", format="swiss")]
    with pytest.raises(ResultsFileRefused) as h9:
        export_h9(recorded("open", chess))
    assert h9.value.rule == "h9.not_go"
    with pytest.raises(ResultsFileRefused) as aga:
        export_aga(recorded("open", chess))
    assert aga.value.rule == "aga.not_go"
    with pytest.raises(ResultsFileError) as bad:
        read_aga("TOURNEY x\nPLAYERS\n1 Ana Kim 3d\nGAMES\n1 2 w 0 7\n")
    assert bad.value.line == 5 and "AGA id 2" in bad.value.reason
    with pytest.raises(ResultsFileError) as line:
        read_h9("; CL[B]\n   1 nobody\n")
    assert line.value.line == 2
    with pytest.raises(ResultsFileError) as ghost:
        read_h9("; CL[B]\n\n   1 Ana Kim 3d FR xxxx 1 0 0 0 7+/w\n")
    assert ghost.value.line == 3 and "meets 7" in ghost.value.reason
