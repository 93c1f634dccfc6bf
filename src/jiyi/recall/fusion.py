"""Rank fusion and score helpers as small pure functions."""

from __future__ import annotations

import math
from collections.abc import Sequence


def reciprocal_ranks(ids: Sequence[str], k: int = 60) -> dict[str, float]:
    """One list's RRF contribution scaled so rank 1 gives 1.0: ``(k + 1) / (k + rank)``."""
    return {uid: (k + 1) / (k + rank) for rank, uid in enumerate(ids, start=1)}


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def recency(age_days: float, half_life_days: float) -> float:
    """``2 ** (-age / half_life)`` in (0, 1]; a unit from the future counts as age 0."""
    return math.exp(-math.log(2) * max(0.0, age_days) / max(half_life_days, 1e-6))
