"""A refused command: which rule, which field, and why. Nothing is appended."""

from __future__ import annotations

from collections.abc import Sequence

from events_schema.inputs import Problem


class Rejected(Exception):
    """`errors`: every problem found when a rule checks a whole input at once (a prize table
    in a ruling); the first is the refusal's own rule, field and message."""

    def __init__(self, rule: str, field: str, message: str, errors: Sequence[Problem] = ()) -> None:
        super().__init__(f"{rule}: {field}: {message}")
        self.rule = rule
        self.field = field
        self.message = message
        self.errors: tuple[Problem, ...] = tuple(errors) or (Problem(rule, field, message),)

    @classmethod
    def of(cls, found: Sequence[Problem]) -> Rejected:
        """A refusal naming every problem in `found` (at least one), the first in front."""
        first = found[0]
        return cls(first.rule, first.field, first.message, found)

    def as_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "field": self.field, "message": self.message}
