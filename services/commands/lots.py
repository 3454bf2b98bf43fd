"""Drawing lots at the edge: the only place randomness lives.

A lot is drawn here with a seeded generator (the seed is random unless given) and recorded as
a `LotDrawn` event carrying the candidates, the outcome, the seed and the method, so replay
never draws again and an auditor can re-run the draw from the seed.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence

from events_schema import events as ev

METHOD = "python random.Random(seed).sample(candidates, k) (Mersenne Twister, CPython 3.11+)"


def draw(
    purpose: str,
    subject: str,
    candidates: Sequence[str],
    pick: int | None = None,
    seed: str | None = None,
) -> ev.LotDrawn:
    """An ordering of all candidates (pairing numbers, engine order, a coin toss's winner
    first), or `pick` of them (who gets a bye)."""
    if not candidates:
        raise ValueError("a lot needs candidates")
    if len(set(candidates)) != len(candidates):
        raise ValueError("candidates must be distinct")
    k = len(candidates) if pick is None else pick
    if not 1 <= k <= len(candidates):
        raise ValueError(f"pick must be between 1 and {len(candidates)}")
    seed = seed if seed is not None else secrets.token_hex(16)
    ordered = sorted(candidates)  # the draw depends on the seed, not on the input order
    outcome = random.Random(seed).sample(ordered, k)
    return ev.LotDrawn(
        purpose=purpose,
        subject=subject,
        candidates=ordered,
        outcome=outcome,
        seed=seed,
        method=METHOD,
    )


def redraw(lot: ev.LotDrawn) -> list[str]:
    """Re-run a recorded seeded draw (what an auditor does to check it)."""
    if lot.seed is None:
        raise ValueError("this lot was not drawn from a seed (e.g. a physical coin toss)")
    k = len(lot.outcome)
    return random.Random(lot.seed).sample(sorted(lot.candidates), k)
