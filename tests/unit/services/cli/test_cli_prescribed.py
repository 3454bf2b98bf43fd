"""services/cli/prescribed.py and services/commands/playoff.py: the events the organiser's
commands append for what a playoff requires, and the refusals that name the fix."""

from __future__ import annotations

from collections.abc import Callable

from builders import created, player, recorded, result, round_

from events_schema import Event
from events_schema import events as ev
from events_schema.events import TimeControl
from projections.playoffs import gct_event
from projections.playoffs.base import PairedGame, PlayoffView, Requirement
from projections.standings import StandingsState, fold
from services.cli import prescribed
from services.cli.common import Refusal
from services.commands import playoff

TC = TimeControl(name="rapid", base_seconds=600, increment_seconds=5)


def _tie() -> list[Event]:
    """a, b and c level on 2 points: the GCT rapid & blitz playoff asks for the RR lot."""
    return [
        created(rounds=3, rules_preset="gct-rapid-blitz"),
        *[player(p) for p in "abcd"],
        round_(1, ("g1", "a", "b"), ("g2", "c", "d")),
        result("g1", "1/2-1/2"),
        result("g2", "1-0"),
        round_(2, ("g3", "a", "c"), ("g4", "b", "d")),
        result("g3", "1/2-1/2"),
        result("g4", "1-0"),
        round_(3, ("g5", "a", "d"), ("g6", "b", "c")),
        result("g5", "1-0"),
        result("g6", "1/2-1/2"),
    ]


def _view(events: list[Event]) -> tuple[PlayoffView, StandingsState]:
    state = fold(recorded("rb", events))
    return gct_event.view(state), state


def _refusal(fn: Callable[..., object], *args: object, **kw: object) -> Refusal:
    try:
        fn(*args, **kw)
    except Refusal as exc:
        return exc
    raise AssertionError("not refused")


def test_next_lot_reads_the_requirement() -> None:
    view, state = _view(_tie())
    spec = prescribed.next_lot("rb", view, state)
    assert spec == prescribed.LotSpec("pairing_numbers", "gct-playoff-rr", ("a", "b", "c"), 3)


def test_a_recorded_lot_that_does_not_fit_is_retracted_first() -> None:
    """A log from before the decide-time guards may hold a lot that does not fit: --next says
    to retract it (with its event id) instead of drawing a second one."""
    misfit = ev.LotDrawn(
        purpose="pairing_numbers", subject="gct-playoff-rr", candidates=["a", "b"], outcome=["a"]
    )
    events = [*_tie(), misfit]
    view, state = _view(events)
    refused = _refusal(prescribed.next_lot, "rb", view, state)
    assert refused.rule == "lot.recorded_does_not_fit"
    [event_id] = [str(k) for k in state.lots]
    assert "EventRetracted" in refused.message and event_id in refused.message
    assert "arbiter lot rb --next" in refused.message


def test_a_lot_by_hand_must_be_the_one_the_playoff_asks_for() -> None:
    view, _ = _view(_tie())
    spec = prescribed.LotSpec("pairing_numbers", "gct-playoff-rr", ("a", "b"), None)
    refused = _refusal(prescribed.check_lot, "rb", view, spec)
    assert "-c a -c b -c c" in refused.message and "--next" in refused.message
    # Another subject (e.g. the main stage's pairing numbers) is not the playoff's business.
    prescribed.check_lot("rb", view, prescribed.LotSpec("pairing_numbers", "main", ("a",), 1))


def test_rounds_carry_pairs_openings_and_byes() -> None:
    paired = Requirement(
        "schedule",
        "tb",
        "schedule",
        games=(
            PairedGame("tb", 1, "tb-1", "x", "y", TC, pair_id="tb-p1", opening="B90"),
            PairedGame("tb", 2, "tb-2", "y", "x", TC, pair_id="tb-p1", opening="B90"),
        ),
    )
    r1, r2 = playoff.rounds(paired)
    assert (r1.round, r2.round) == (1, 2)
    assert r1.pairings[0].pair_id == "tb-p1" and r1.pairings[0].opening == "B90"
    assert r1.pairings[0].time_control == "rapid" and r1.byes == []
    arm = gct_event.ScheduleWithByes(
        "schedule",
        "gct-armageddon-1",
        "schedule",
        games=(PairedGame("gct-armageddon-1", 1, "gct-armageddon-1-b1", "a", "b", TC),),
        byes=("c",),
    )
    [rs] = playoff.rounds(arm)
    assert rs.byes == [ev.Bye(player_id="c", kind="advance")]
