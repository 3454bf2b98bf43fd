"""A refused command: which rule, which field, and why. Nothing is appended."""

from __future__ import annotations


class Rejected(Exception):
    def __init__(self, rule: str, field: str, message: str) -> None:
        super().__init__(f"{rule}: {field}: {message}")
        self.rule = rule
        self.field = field
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "field": self.field, "message": self.message}
