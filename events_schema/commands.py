"""What clients send. A command proposes one event (its `type` and `payload`); the decider
validates it against the tournament's state and returns the events to append."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field


class Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    type: str = Field(min_length=1, max_length=64, description="event type to record")
    payload: dict[str, Any] = Field(default_factory=dict)
    event_id: UUID | None = Field(
        default=None, description="client-chosen id: resending the same command is a no-op"
    )
    occurred_at: AwareDatetime | None = Field(
        default=None, description="when it happened at the board; defaults to receipt time"
    )
    causation_id: UUID | None = None
    correlation_id: UUID | None = None


class CommandBatch(BaseModel):
    """Commands appended atomically, in order: all of them or none."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    commands: list[Command] = Field(min_length=1, max_length=1000)
    expected_seq: int | None = Field(
        default=None, ge=0, description="optimistic concurrency: the stream's current last seq"
    )
