"""Golden pairings, one per rule (bbpPairings' habit): `<article>.input.json` in
`tests/golden/pairing/`, `<article>.expected.json` out, byte for byte.

An input is a tournament as its events (`{"article", "stage", "events": [{"type", "payload"}]}`,
every lot already drawn, so nothing random is left): a scenario of the system's unit tests
(`test_pairing_<system>.py`) written out, named after the article it exercises. The events
are folded (`projections.standings`), and the tournament's registered `PairingSystem`
(`projections/pairing/systems.py`) answers for the next round of `stage`: its proposal (lots
asked for, the round, handicaps, notes), its pairing numbers (the TRF start ranks) and its
preview (`arbiter schedule`: a round robin's rounds to come, a cup's bracket). The expected file
is that answer as indented JSON.

The expected files were produced by this code and then checked by hand against the article
(`CHECKED` says what was checked in each; a new golden must say it too). When a change alters
one, check it again, then regenerate:

    ARBITER_UPDATE_GOLDEN=1 pytest tests/unit/projections/pairing/test_pairing_golden.py

(it writes every expected file, then fails the run, so that an update is never silent).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest
from builders import recorded

from events_schema import encode_payload
from events_schema.registry import event_class
from projections.mentions import said
from projections.pairing.base import context
from projections.pairing.systems import system_of
from projections.standings import fold

GOLDEN = Path(__file__).resolve().parents[3] / "golden" / "pairing"
NAMES = sorted(p.name.removesuffix(".input.json") for p in GOLDEN.glob("*.input.json"))
UPDATE = os.environ.get("ARBITER_UPDATE_GOLDEN") == "1"

#: What was checked by hand in each expected file, against its article.
CHECKED = {
    "fide-c04-3-art-5-2-5-round-1-initial-colour": (
        "10 players: S1 = 1-5 meets S2 = 6-10 (1-6, 2-7, ...); the lot drew White, so pairing "
        "number 1 is White on board 1 and the higher ranked player alternates Black, White, "
        "... down the boards (p01-p06, p07-p02, p03-p08, p09-p04, p05-p10)"
    ),
    "fide-c04-3-art-5-2-4-round-2-colour-preferences": (
        "round 1 p01-p03 1-0, p04-p02 1-0; round 2: {p01, p04} both had White, the higher "
        "ranked p01 gets his preference (Black): p04-p01; {p02, p03} both had Black, p02 "
        "gets White: p02-p03; boards by score"
    ),
    "fide-c05-annex-1-berger-6-players": (
        "lot d b f a c e = pairing numbers 1-6; the five rounds are the published table for 6 "
        "(1-6 2-5 3-4 / 6-4 5-3 1-2 / 2-6 3-1 4-5 / 6-5 1-4 2-3 / 3-6 4-2 5-1), one cycle "
        "so no switch of the last two rounds; the pairing numbers are the lot's order"
    ),
    "tcec-swiss-2a-round-1-seeded-groups": (
        "groups 1-6 and 7-12 meet engine by engine (1-7, 2-8, ... 6-12), the lower seed White "
        "in the first game; pair ids per board of double round 1; pairing numbers by seed"
    ),
    "galway-2023-round-2-losers-above-meet-winners-below": (
        "16 entries: 4 sections of 4 by rating (A g000-g003 ... D g012-g015), bonus 3/2/1/0; "
        "round 1 White won everywhere; round 2 on score + bonus: A's winners together "
        "(g003-g000), A's losers against B's winners (g001-g004, g002-g007), B's losers "
        "against C's winners, C's losers against D's winners, D's losers together; colours "
        "by the Dutch (the one who had Black takes White; both alike: the higher ranked's "
        "preference)"
    ),
    "lgc-mcmahon-round-1-groups-fold-and-float": (
        "bar 1d: MMS 30 (p1 3d, p2 2d, p3 1d, p4 1d), 29 (p5, p6 1k), 27 (p7 3k), 26 (p8 "
        "4k); each group folded (p1-p4, p2-p3; p5-p6), p7 alone floats down to p8; the higher "
        "placed White; no fixed pairing numbers (registration order in a TRF)"
    ),
    "opengotha-mcmahon-handicap-rank-difference": (
        "MMS 30, 29, 25, 21: p1-p2 even (both in the top groups), p3-p4 25 - 21 = 4 less the "
        "correction 1 = 3 stones, the weaker p4 Black"
    ),
    "opengotha-swiss-round-2-nbw-groups-slip-and-float": (
        "7 players p1-p7, ratings in rank order; round 1 (one NBW group, by rating): bye p7 "
        "(lowest rank + 2 x MMS), slip p1-p4, p2-p5, p3-p6; p1, p2, p6 win. Round 2: NBW 1 "
        "p1 p2 p6 p7, NBW 0 p3 p4 p5; bye p6 (p7 had one; 4k + 2 x 27 = 50 the lowest); "
        "group 1 p1 p2 p7 odd: p1-p2 slip, p7 floats to the first of group 0, p3 (p7 White: "
        "no colour yet, p3 had White); p4-p5 both had Black: the higher placed p4 White"
    ),
    "tcec-cup-2c1-8-engines-equal-distance": (
        "8 engines, all pre-seeded: seed s on line bitreverse(s - 1) (lines e01 e05 e03 e07 "
        "e02 e06 e04 e08): quarter-finals e01-e05, e03-e07, e02-e06, e04-e08, the lower seed "
        "White in game 1, 4 pairs each (Cup 3.c); no lot asked for"
    ),
}


def answer(name: str) -> dict[str, Any]:
    """What the tournament's pairing system answers for the input `name`."""
    spec = json.loads((GOLDEN / f"{name}.input.json").read_text())
    events = [event_class(e["type"]).model_validate(e["payload"]) for e in spec["events"]]
    ctx = context(fold(recorded(name, events)), spec["stage"])
    system = system_of(ctx.created)
    assert system is not None, f"{name}: the tournament has no pairing system"
    proposal = system.propose(ctx)
    numbers = system.pairing_numbers(ctx) if system.pairing_numbers is not None else None
    preview = system.preview(ctx) if system.preview is not None else None
    return {
        "article": spec["article"],
        "system": system.name,
        "stage": ctx.stage,
        "round": ctx.round,
        "proposal": {
            "lots": [dataclasses.asdict(req) for req in proposal.lots],
            "round": None if proposal.round is None else encode_payload(proposal.round),
            "handicaps": dict(proposal.handicaps),
            "notes": [said(n) for n in proposal.notes],  # players by id (mentions.py)
        },
        "pairing_numbers": None if numbers is None else list(numbers),
        "preview": None
        if preview is None
        else {
            "rounds": [encode_payload(r) for r in preview.rounds],
            **preview.extra,
            "notes": [said(n) for n in preview.notes],
        },
    }


def text(name: str) -> str:
    return json.dumps(answer(name), indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("name", NAMES)
def test_golden_pairing_byte_for_byte(name: str) -> None:
    expected = GOLDEN / f"{name}.expected.json"
    if UPDATE:
        expected.write_text(text(name))
        pytest.fail(f"{expected.name} written (ARBITER_UPDATE_GOLDEN=1): check it, then rerun")
    assert text(name) == expected.read_text()


def test_every_golden_was_checked_by_hand() -> None:
    assert set(CHECKED) == set(NAMES)


def test_every_system_has_a_golden() -> None:
    from projections.pairing.systems import SYSTEMS

    covered = {json.loads((GOLDEN / f"{n}.expected.json").read_text())["system"] for n in NAMES}
    assert covered == set(SYSTEMS)
