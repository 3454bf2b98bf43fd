"""TRF26 record 222, the encoded time control (issue 26): services/interchange/trf/
timecontrol26.py. Each encoding the spec defines (d[:d] or Wd[:d]-Bd[:d], d = M/S, M/S+I, S or
S+I) is read into the tournament's time control where Arbiter can express it, reported by name
where it cannot (kept verbatim), refused by name when malformed; an imported 222 is written
back byte for byte, and a tournament made in Arbiter gets its 222 from its time control."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from builders import recorded
from test_trf26 import GOLDEN, imported
from tests_support import cli_db, cli_run, log_events

from events_schema import events as ev
from services.interchange.trf import (
    TrfError,
    export_trf26,
    parse_trf,
    time_control_notes,
    to_events,
)
from services.interchange.trf.parse import decode_trf
from services.interchange.trf.timecontrol26 import Unexpressible, encode_222, read_222

TEXT = decode_trf(GOLDEN.read_bytes())


def with_222(value: str) -> str:
    """The golden TRF26 file with its 222 record (``5400+30``) replaced."""
    assert "\r\n222 5400+30\r\n" in TEXT
    return TEXT.replace("\r\n222 5400+30\r\n", f"\r\n222 {value}\r\n")


@pytest.mark.parametrize(
    ("value", "base", "increment", "white", "black"),
    [
        ("5400+30", 5400, 30, None, None),  # inc: 90' + 30" a move
        ("5400", 5400, 0, None, None),  # all: sudden death
        ("W300-B240", 300, 0, 300, 240),  # Armageddon, the spec's example
        ("W300+2-B240+2", 300, 2, 300, 240),
    ],
)
def test_an_expressible_222_is_the_tournaments_time_control_and_comes_back_byte_for_byte(
    value: str, base: int, increment: int, white: int | None, black: int | None
):
    tc = read_222(value, 1)
    assert isinstance(tc, ev.TimeControl)
    assert (tc.base_seconds, tc.increment_seconds) == (base, increment)
    assert (tc.white_base_seconds, tc.black_base_seconds) == (white, black)
    assert encode_222(tc) == value
    text = with_222(value)
    events = [r.event for r in imported(text)]
    created = events[0]
    assert isinstance(created, ev.TournamentCreated)
    assert created.time_controls == [tc]
    assert not time_control_notes(parse_trf(text))
    assert export_trf26(imported(text)) == text


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("40/5400+30:1800+30", "2 periods"),  # the spec's "full" then "inc" periods
        ("40/6000+30:900+30", "2 periods"),  # the spec's example
        ("40/7200:3600", "2 periods"),  # std then all, no increment
        ("40/5400", "40 moves in 5400 s"),  # a moves period alone
        ("W300+2-B240+3", "White 2 s and Black 3 s"),
        ("W40/300:60-B240", "White: 2 periods"),
    ],
)
def test_a_222_arbiter_cannot_express_is_reported_by_name_and_kept_verbatim(
    value: str, reason: str
):
    got = read_222(value, 1)
    assert isinstance(got, Unexpressible) and reason in got.reason
    text = with_222(value)
    (note,) = time_control_notes(parse_trf(text))
    assert f"222 {value!r} kept as written" in note and reason in note
    created = imported(text)[0].event
    assert isinstance(created, ev.TournamentCreated)
    assert all(tc.name != value for tc in created.time_controls)
    assert export_trf26(imported(text)) == text  # written back unchanged


@pytest.mark.parametrize(
    "value", ["90 min + 30 sec", "5400d5", "5400+", "40/", "W300", "300-B240", "5400:+30", "-"]
)
def test_a_malformed_222_is_refused_by_name_with_its_line(value: str):
    text = with_222(value)
    lineno = text.split("\r\n").index(f"222 {value}") + 1
    with pytest.raises(TrfError) as info:
        to_events(parse_trf(text))
    assert info.value.line == lineno
    assert "222" in info.value.message and "not an encoded time control" in info.value.message


def test_import_trf_reports_an_unexpressible_222_and_refuses_a_malformed_one(
    tmp_path: Path, monkeypatch
):
    db = cli_db(tmp_path, monkeypatch)
    monkeypatch.setenv("ARBITER_ACTOR", "ref")
    periods = tmp_path / "periods.trf"
    periods.write_bytes(with_222("40/5400+30:1800+30").encode("utf-8"))
    out = cli_run("import", "trf", str(periods))
    line = TEXT.split("\r\n").index("222 5400+30") + 1
    assert f"warning line {line}: 222 '40/5400+30:1800+30' kept as written" in out
    assert any(e.type == "TournamentCreated" for e in log_events(db, "periods"))
    bad = tmp_path / "bad.trf"
    bad.write_bytes(with_222("90 min").encode("utf-8"))
    out = cli_run("import", "trf", str(bad), code=1)
    assert "trf.malformed" in out and f"bad.trf:{line}" in out
    assert log_events(db, "bad") == []  # nothing appended


def _made(tc: ev.TimeControl) -> str:
    created = ev.TournamentCreated(
        name="Made here",
        format="swiss",
        rounds=3,
        starts_on=date(2026, 5, 1),
        pairing="dutch",
        time_controls=[tc],
    )
    players = [
        ev.PlayerRegistered(player_id=f"p{i}", name=f"P{i}", rating=2000 + i) for i in range(4)
    ]
    return export_trf26(recorded("made", [created, *players]))


def test_a_tournament_made_in_arbiter_gets_its_222_from_its_time_control():
    text = _made(ev.TimeControl(name="classical", base_seconds=5400, increment_seconds=30))
    assert "222 5400+30" in text.split("\r\n")
    armageddon = _made(
        ev.TimeControl(name="arm", base_seconds=300, white_base_seconds=300, black_base_seconds=240)
    )
    assert "222 W300-B240" in armageddon.split("\r\n")
    # GCT's Armageddon adds its increment from move 61, which TRF26 cannot say: no 222
    gct = _made(
        ev.TimeControl(
            name="gct",
            base_seconds=300,
            increment_seconds=2,
            increment_from_move=61,
            white_base_seconds=300,
            black_base_seconds=240,
        )
    )
    assert not [line for line in gct.split("\r\n") if line.startswith("222")]
