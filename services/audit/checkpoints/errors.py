"""Checkpoint refusals, in the API's rule/field vocabulary."""

from __future__ import annotations


class CheckpointError(Exception):
    """A refusal with the API's rule/field vocabulary."""

    rule = "checkpoint"
    field = "checkpoint"
    status = 422

    def __init__(self, message: str, rule: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        if rule is not None:
            self.rule = rule
        if status is not None:
            self.status = status


class CheckpointRefused(CheckpointError):
    """The head was not signed: no events, a broken chain, or a head that does not extend the
    stream's previous checkpoint."""

    rule = "checkpoint.refused"
    field = "tournament_id"


class CheckpointFormatError(CheckpointError):
    rule = "checkpoint.malformed"


class CheckpointKeyError(CheckpointError):
    rule = "checkpoint.key"
    field = "key"
