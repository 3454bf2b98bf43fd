"""Limits, the same on both logs (issue 9.2): every bound refuses with the rule and the field
it crossed, and nothing is stored; what is stored always reads back."""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime

import pytest
from builders import ADMIN, ARBITER, batch, command, created, new_event, player
from conftest import LogFactory

from events_schema import CommandBatch
from events_schema import events as ev
from events_schema.limits import LimitExceeded, Limits
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import UnreadableOnWrite


def deep(levels: int) -> dict:
    d: dict = {"x": 1}
    for _ in range(levels):
        d = {"x": d}
    return d


def ruling(**decision: object) -> dict:
    return {"ruling_id": "r1", "by": "ref", "subject": "s", "text": "t", "decision": decision}


def big_ruling(strings: int) -> dict:
    """A ruling of `strings` strings of 16,000 characters the decider accepts: a decision needs
    a subject a projection reads (projections/rulings.py); seeded groups are checked for their
    shape only when stored (the Monrad pairing reads them)."""
    groups = [["x" * 16_000] for _ in range(strings)]
    return {**ruling(groups=groups), "subject": "monrad-groups"}


def raw_batch(type_: str, payload: dict, **kw: object) -> CommandBatch:
    return CommandBatch.model_validate({"commands": [{"type": type_, "payload": payload, **kw}]})


def started(log_factory: LogFactory) -> CommandService:
    service = CommandService(log_factory())
    service.handle("tA", batch(created(), player("alice")), ADMIN)
    return service


# -- the walker (pure) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "rule", "field"),
    [
        (deep(20), "limits.depth", "payload" + ".x" * 16),
        ({"s": "x" * 20_000}, "limits.string", "payload.s"),
        ({"k" * 20_000: 1}, "limits.string", "payload (key)"),
        ({"l": list(range(10_001))}, "limits.items", "payload.l"),
        ({"n": 2**53}, "limits.int_range", "payload.n"),
        ({"n": -(2**63)}, "limits.int_range", "payload.n"),
        ({"f": float("inf")}, "limits.float", "payload.f"),
    ],
)
def test_the_walker_names_the_first_value_over_a_limit(value, rule, field) -> None:
    with pytest.raises(LimitExceeded) as exc:
        Limits().check_value(value, "payload")
    assert (exc.value.rule, exc.value.field) == (rule, field)


def test_the_walker_is_iterative_and_accepts_what_is_within_bounds() -> None:
    Limits().check_value({"a": [1, 2.5, None, True, "s", {"b": 2**53 - 1}]})
    with pytest.raises(LimitExceeded, match="deeper than 16"):
        Limits().check_value(deep(100_000))  # no RecursionError


@pytest.mark.parametrize(
    "text", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "1700-01-01T00:00:00Z"]
)
def test_datetimes_out_of_range_are_refused_without_overflow(text: str) -> None:
    with pytest.raises(LimitExceeded) as exc:
        Limits().check_datetime(datetime.fromisoformat(text), "occurred_at")
    assert exc.value.rule == "limits.datetime_range"


def test_limits_come_from_the_environment() -> None:
    limits = Limits.from_env({"ARBITER_MAX_EVENT_BYTES": "1000", "ARBITER_MAX_DEPTH": "4"})
    assert (limits.max_event_bytes, limits.max_depth) == (1000, 4)
    with pytest.raises(ValueError, match="ARBITER_MAX_DEPTH"):
        Limits.from_env({"ARBITER_MAX_DEPTH": "-1"})


# -- the command path, on both logs ----------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "rule", "field"),
    [
        (lambda: raw_batch("RulingIssued", ruling(d=deep(200))), "limits.depth", None),
        (lambda: raw_batch("RulingIssued", ruling(d="x" * 20_000)), "limits.string", None),
        (lambda: raw_batch("RulingIssued", ruling(n=2**63)), "limits.int_range", None),
        (
            lambda: raw_batch(
                "PlayerRegistered",
                {"player_id": "b", "name": "B"},
                occurred_at="0001-01-01T00:00:00+01:00",
            ),
            "limits.datetime_range",
            "commands[0].occurred_at",
        ),
        (
            lambda: raw_batch(
                "PlayerRegistered",
                {"player_id": "b", "name": "B"},
                occurred_at="9999-12-31T23:59:59-01:00",
            ),
            "limits.datetime_range",
            "commands[0].occurred_at",
        ),
    ],
)
def test_commands_over_a_limit_are_refused_before_the_decider(
    log_factory: LogFactory, make, rule: str, field: str | None
) -> None:
    service = started(log_factory)
    with pytest.raises(LimitExceeded) as exc:
        service.handle("tA", make(), ARBITER)
    assert exc.value.rule == rule
    assert exc.value.field.startswith("commands[0]")
    if field:
        assert exc.value.field == field
    assert service.log.last_seq("tA") == 2


def test_an_event_too_large_is_refused_alike_on_both_logs(log_factory: LogFactory) -> None:
    """A 20 MB event was accepted by SQLite and refused by Kafka as an outage (503): now the
    same limit refuses it with 413 on both, before anything is written."""
    service = started(log_factory)
    big = big_ruling(40)  # ~640 KB > 512 KiB
    with pytest.raises(LimitExceeded) as exc:
        service.handle("tA", raw_batch("RulingIssued", big), ARBITER)
    assert (exc.value.rule, exc.value.status) == ("limits.event_bytes", 413)
    # A batch over the byte limit, each event within it.
    part = big_ruling(25)  # ~400 KB each
    many = CommandBatch.model_validate(
        {
            "commands": [
                {"type": "RulingIssued", "payload": {**part, "ruling_id": f"r{i}"}}
                for i in range(12)
            ]
        }
    )
    with pytest.raises(LimitExceeded) as exc:
        service.handle("tA", many, ARBITER)
    assert exc.value.rule == "limits.batch_bytes"
    assert service.log.last_seq("tA") == 2
    # Within the limit, it is stored and reads back.
    ok = big_ruling(25)
    service.handle("tA", raw_batch("RulingIssued", ok), ARBITER)
    assert list(service.log.read("tA"))[-1].payload["decision"] == ok["decision"]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"player_id": "b", "name": "B", "rating": "2500"}, "commands[0].payload.rating"),
        ({"player_id": "b", "name": "B", "rating": True}, "commands[0].payload.rating"),
        ({"player_id": 7, "name": "B"}, "commands[0].payload.player_id"),
    ],
)
def test_payloads_are_strict_no_coercion(log_factory: LogFactory, payload, field) -> None:
    service = started(log_factory)
    with pytest.raises(CommandRejected) as exc:
        service.handle("tA", raw_batch("PlayerRegistered", payload), ARBITER)
    assert (exc.value.rule, exc.value.field) == ("payload.invalid", field)


def test_nothing_is_stored_that_cannot_be_read_back(log_factory: LogFactory) -> None:
    """The log's own last check, below the command path: a sealed envelope that its readers
    could not decode (here nested deeper than the envelope parser reads) is refused."""
    log = log_factory()
    log.append("tA", [new_event(created(), 1)])
    bad = new_event(
        ev.RulingIssued(ruling_id="r", by="x", subject="s", text="t", decision=deep(210)), 2
    )
    with pytest.raises(UnreadableOnWrite, match="would not decode back"):
        log.append("tA", [bad])
    assert log.last_seq("tA") == 1


# -- idempotency under concurrency (issue 9.4) -------------------------------------------------


def test_identical_resends_racing_give_one_201_and_duplicates(log_factory: LogFactory) -> None:
    """8 senders × 50 rounds send the same command (same event_id) at once: exactly one is
    appended, every other gets the stored result — never a refusal (the redelivery check
    used to run before the tournament's lock: 72 of 400 got `player.duplicate`)."""
    service = started(log_factory)
    services = [service] + [CommandService(log_factory()) for _ in range(3)]
    rounds, senders = 50, 8
    for r in range(rounds):
        cmd = CommandBatch(commands=[command(player(f"p{r}"), event_id=uuid.uuid4())])
        outcomes: list[str] = []
        barrier = threading.Barrier(senders)

        def send(
            i: int,
            cmd: CommandBatch = cmd,
            outcomes: list[str] = outcomes,
            barrier: threading.Barrier = barrier,
        ) -> None:
            barrier.wait()
            try:
                res = services[i % len(services)].handle("tA", cmd, ARBITER)
                outcomes.append("duplicate" if res.duplicate else "appended")
            except Exception as exc:
                outcomes.append(f"{type(exc).__name__}: {exc}")

        threads = [threading.Thread(target=send, args=(i,)) for i in range(senders)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["appended"] + ["duplicate"] * (senders - 1), (r, outcomes)
    assert service.log.last_seq("tA") == 2 + rounds


def test_a_reused_event_id_names_nothing_outside_the_callers_tournament(
    log_factory: LogFactory,
) -> None:
    from services.eventlog.base import EventIdConflict
    from services.eventlog.kafka import partition_for

    service = started(log_factory)
    # On Kafka event ids are unique per partition: take another tournament in tA's.
    other = next(
        f"tB{i}" for i in range(100) if partition_for(f"tB{i}", 3) == partition_for("tA", 3)
    )
    service.handle(other, batch(created()), ADMIN)
    shared = uuid.uuid4()
    service.handle(other, CommandBatch(commands=[command(player("x"), event_id=shared)]), ADMIN)
    with pytest.raises(EventIdConflict) as exc:
        service.handle("tA", CommandBatch(commands=[command(player("y"), event_id=shared)]), ADMIN)
    assert other not in str(exc.value) and "another event" in str(exc.value)


def test_occurred_at_is_checked_in_payload_datetimes_too(log_factory: LogFactory) -> None:
    service = started(log_factory)
    when = datetime(1700, 1, 1, tzinfo=UTC).isoformat()
    with pytest.raises(LimitExceeded) as exc:
        service.handle(
            "tA", raw_batch("RoundScheduled", {"round": 1, "scheduled_at": when}), ARBITER
        )
    assert exc.value.field == "commands[0].payload.scheduled_at"
