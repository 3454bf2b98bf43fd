"""Creating a tournament (`arbiter create`, `POST /tournaments/{id}/create`): a
`TournamentCreated` from the options an organiser types.

**Time control grammar** (`parse_time_control`), minutes and seconds as organisers write them:

* `90+30`: 90 minutes, 30 seconds' increment from move 1 (FIDE's standard classical
  control); `90'+30"` the same; `25` 25 minutes, no increment;
* `G/60` or `G60`: 60 minutes for the game, no increment (US notation); `G/60+5` or
  `G/60;inc5` with an increment;
* `40/90+30`: not recorded as such (a move-count period is not in `TimeControl`): refused
  (`create.time_control`), name the base and increment only.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from events_schema import Actor, Command, CommandBatch
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import AppendResult

_TC = re.compile(
    r"^(?:g/?)?(?P<minutes>\d{1,4})'?(?:(?:\+|;inc)(?P<seconds>\d{1,4})\"?)?$", re.IGNORECASE
)
GRAMMAR = "minutes[+seconds], e.g. 90+30, 25+10, G/60, 15"


def parse_time_control(text: str, field_name: str = "time_control") -> dict[str, Any]:
    """A `TimeControl` payload from `text` (the module docstring's grammar); refused
    (`create.time_control`) otherwise."""
    raw = "".join(text.split())
    m = _TC.fullmatch(raw)
    if m is None:
        why = (
            "a moves-per-period control (40/90) is not recorded; give the base and increment"
            if re.match(r"^\d+/", raw)
            else f"give {GRAMMAR}"
        )
        raise CommandRejected("create.time_control", field_name, f"{text!r}: {why}")
    minutes, seconds = int(m.group("minutes")), int(m.group("seconds") or 0)
    if minutes == 0 and seconds == 0:
        raise CommandRejected("create.time_control", field_name, f"{text!r}: no time at all")
    name = f"{minutes}+{seconds}"
    return {"name": name, "base_seconds": minutes * 60, "increment_seconds": seconds}


def _day(value: date | str | None, field_name: str) -> date | None:
    if value is None or isinstance(value, date):
        return value
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandRejected(
            "create.date", field_name, f"{value!r} is not a date: give YYYY-MM-DD"
        ) from None


def create_tournament(
    service: CommandService,
    tournament: str,
    actor: Actor,
    *,
    name: str,
    format: str,
    rounds: int | None = None,
    preset: str | None = None,
    start: date | str | None = None,
    end: date | str | None = None,
    time_control: str | None = None,
    game: str | None = None,
    pairing: str | None = None,
) -> AppendResult:
    """Append the `TournamentCreated`; everything else (the format's and the pairing system's
    names, the preset, the dates' order, a second creation) is the decider's to refuse,
    naming the payload field."""
    payload: dict[str, Any] = {"name": name, "format": format}
    if rounds is not None:
        payload["rounds"] = rounds
    if preset:
        payload["rules_preset"] = preset
    for key, value, where in (("starts_on", start, "start"), ("ends_on", end, "end")):
        day = _day(value, where)
        if day is not None:
            payload[key] = day.isoformat()
    if time_control:
        payload["time_controls"] = [parse_time_control(time_control)]
    if game:
        payload["game"] = game
    if pairing:
        payload["pairing"] = pairing
    batch = CommandBatch(commands=[Command(type="TournamentCreated", payload=payload)])
    return service.handle(tournament, batch, actor)
