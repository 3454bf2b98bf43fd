"""Ruling subjects: the closed set of `RulingIssued` the projections read (issue 12).

A `RulingIssued` is an arbiter's or organiser's decision. Its `decision` is read by a
projection in one of two ways, and only these:

* **by subject** (`SUBJECTS`): the projection looks the ruling up by its `subject` (exact, or
  a pattern such as ``"<stage>:r<round>:byes"``) and reads the decision keys listed here;
* **by decision key, whatever the subject** (`FREE_KEYS`): ``tiebreak_order`` (the
  "organisers decide" step of a tie-break chain) and ``invalidates_round`` (TCEC Swiss 7.d);
  there the subject names what is decided, in the arbiter's words ("places 10-11").

The decider (`check`) holds every ruling to this set, so a decision is never silently
ignored:

* a ruling with an empty `decision` is an arbiter's note: its subject is free text;
* a ruling with a decision either has a known subject, on the kind of stream its reader reads
  (a tournament or a series), and only the decision keys that reader reads (plus the free
  keys), or has a free subject and only free keys. Anything else is refused:
  `ruling.unknown_subject` names the known subjects, `ruling.unknown_key` the keys a subject
  reads, `ruling.wrong_stream` where it is read.

The shape of what a reader reads is then checked by the decider (`projections/tournament/
rules/arbitration.py`: tables, editions, restarts, orders) or here (`shape`, for the pairing
rulings); the season rulings (`season:plan`, `field:<tournament>`, `placement:next-season`)
are read as a whole by the season view, which names what it cannot read.

A new reader of rulings adds its subject here
(`tests/unit/projections/tournament/test_decider_playoff_guards.py`
checks that every subject constant of the projections is listed).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from projections.rejection import Rejected

Stream = Literal["tournament", "series"]
Shape = Callable[[Mapping[str, Any]], tuple[str, str] | None]  # (field, message) or None


def _groups_shape(decision: Mapping[str, Any]) -> tuple[str, str] | None:
    groups = decision.get("groups")
    if not isinstance(groups, list) or not all(
        isinstance(g, list) and g and all(isinstance(p, str) for p in g) for g in groups
    ):
        return "payload.decision.groups", "a list of groups, each a non-empty list of player ids"
    return None


def _byes_shape(decision: Mapping[str, Any]) -> tuple[str, str] | None:
    byes = decision.get("byes")
    if not isinstance(byes, dict) or not all(v in ("half", "zero") for v in byes.values()):
        return "payload.decision.byes", "a map of player ids to 'half' or 'zero'"
    return None


def _order_present(decision: Mapping[str, Any]) -> tuple[str, str] | None:
    if "tiebreak_order" not in decision:
        return "payload.decision", "give {'tiebreak_order': [player ids, best first]}"
    return None


@dataclass(frozen=True)
class Subject:
    """A ruling subject a projection reads, with the decision keys it reads (None: the reader
    takes the decision as a whole and names what it cannot read)."""

    name: str  # as written in the docs: "prize_table", "<stage>:r<round>:byes"
    pattern: str  # the subjects it covers (a full match)
    keys: tuple[str, ...] | None
    reader: str
    article: str
    stream: Stream = "tournament"
    shape: Shape | None = None

    def matches(self, subject: str) -> bool:
        return re.fullmatch(self.pattern, subject) is not None


SUBJECTS: tuple[Subject, ...] = (
    Subject(
        "tiebreak_edition",
        r"tiebreak_edition",
        ("edition",),
        "projections/tiebreaks/editions.py (in_force)",
        "FIDE C.07: the edition (2024 or 2026 text) the tie-breaks follow",
    ),
    Subject(
        "prize_table",
        r"prize_table",
        ("prize_table",),
        "projections/prizes/corrections.py (prize_table_in_force)",
        "GCT 2.6/3.6, 2.8/3.8: the prize money shared (a correction of the creation's table)",
    ),
    Subject(
        "points_table",
        r"points_table",
        ("points_table",),
        "projections/prizes/corrections.py (points_table_in_force), projections/series",
        "GCT 2.7/3.7, 2.8/3.8: the GCT points shared (a correction of the creation's table)",
    ),
    Subject(
        "restart",
        r"restart",
        ("game_id", "restart_at"),
        "projections/tournament/evolve.py (GameState.restart_at)",
        "TCEC Swiss 7.c: whether a game is restarted now or at the end of the round",
    ),
    Subject(
        "arena:limit",
        r"arena:limit",
        ("nodes", "base_ms", "increment_ms", "tournament_time_control", "engine_nodes"),
        "services/arena/limits.py (the run-level limit of `arbiter arena`)",
        "issue 25: a run-level limit (--nodes, --time-control) overriding the tournament's",
    ),
    Subject(
        "monrad-groups",
        r"monrad-groups",
        ("groups",),
        "projections/pairing/monrad.py (groups)",
        "TCEC Swiss 2.a: the organisers' seeded groups of round 1",
        shape=_groups_shape,
    ),
    Subject(
        "<stage>:r<round>:byes",
        r".+:r[1-9][0-9]*:byes",
        ("byes",),
        "projections/pairing/dutch.py (requested_byes)",
        "FIDE C.04.2 (requested byes): the byes asked for in a round",
        shape=_byes_shape,
    ),
    Subject(
        "gct-tour-playoff",
        r"gct-tour-playoff",
        ("tiebreak_order",),
        "projections/playoffs/gct_tour.py (4.12 ruling)",
        "GCT 4.12: the Chief Arbiter resolves a tie left after four round robins",
        shape=_order_present,
    ),
    Subject(
        "opengotha:<part>",
        r"opengotha:(?:file|players)",
        None,
        "services/interchange/opengotha/export.py (written back to the file)",
        "OpenGotha ExternalDocument.java: the values of an imported file Arbiter keeps and "
        "does not use",
    ),
    Subject(
        "season:plan",
        r"season:plan",
        None,
        "projections/seasons/view.py (SeasonPlan)",
        "TCEC Leagues 1.8/1.9, Swiss 1.a/1.c, FRD 1.a/1.d, 4k 0.2: the organisers' plan",
        stream="series",
    ),
    Subject(
        "field:<tournament id>",
        r"field:.+",
        None,
        "projections/seasons/derive.py (field_of_ruling)",
        "TCEC Leagues 0: a stage's field, derived by `season advance` or decided",
        stream="series",
    ),
    Subject(
        "placement:next-season",
        r"placement:next-season",
        None,
        "projections/seasons/view.py (placement_of_ruling)",
        "TCEC Leagues 1.8: where every League engine plays next Season",
        stream="series",
    ),
)


@dataclass(frozen=True)
class FreeKey:
    """A decision key read from any ruling of a tournament, whatever its subject."""

    key: str
    reader: str
    article: str


FREE_KEYS: dict[str, FreeKey] = {
    k.key: k
    for k in (
        FreeKey(
            "tiebreak_order",
            "projections/tiebreaks/chain.py (organisers-decide)",
            'rules/README "Shared places": where the rules say the organisers decide '
            "(TCEC 0, Leagues 11.1.7)",
        ),
        FreeKey(
            "invalidates_round",
            "projections/tournament/invalidation.py",
            "tcec-rules Swiss 7.d: pairings made while the tournament was not paused",
        ),
    )
}


def subject_of(subject: str) -> Subject | None:
    """The known subject `subject` is, or None."""
    return next((s for s in SUBJECTS if s.matches(subject)), None)


def known() -> str:
    """The known subjects and the free keys, for messages."""
    subjects = ", ".join(s.name for s in SUBJECTS)
    keys = ", ".join(FREE_KEYS)
    return f"known subjects: {subjects}; with any subject, a decision of only: {keys}"


def check(subject: str, decision: Mapping[str, Any], stream: str) -> None:
    """Refuse a ruling no projection would read as it is (see the module docstring)."""
    if not decision:
        return  # an arbiter's note: its subject is free text
    found = subject_of(subject)
    unread = sorted(k for k in decision if k not in FREE_KEYS)
    if found is None:
        if unread:
            raise Rejected(
                "ruling.unknown_subject",
                "payload.subject",
                f"no projection reads a ruling on {subject!r} with {unread}: the decision "
                f"would be ignored ({known()}; a ruling without a decision is a note with a "
                "free subject)",
            )
        if stream != "tournament":
            raise Rejected(
                "ruling.wrong_stream",
                "payload.decision",
                f"{', '.join(sorted(decision))} is read on a tournament's stream, not a series'",
            )
        return
    if found.stream != stream:
        raise Rejected(
            "ruling.wrong_stream",
            "payload.subject",
            f"a {found.name!r} ruling is read on a {found.stream}'s stream ({found.reader}), "
            f"not a {stream}'s",
        )
    if found.keys is not None:
        extra = [k for k in unread if k not in found.keys]
        if extra:
            raise Rejected(
                "ruling.unknown_key",
                f"payload.decision.{extra[0]}",
                f"a {found.name!r} ruling ({found.article}) reads {list(found.keys)}; "
                f"{extra} would be ignored",
            )
    if found.shape is not None:
        problem = found.shape(decision)
        if problem is not None:
            where, what = problem
            raise Rejected("ruling.invalid_decision", where, f"{found.article}: {what}")
