"""Rank fusion and score helpers as small pure functions."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float] | None = None,
    k: int = 60,
) -> dict[str, float]:
    """Fuse ranked id lists: ``score(id) = sum_w w / (k + rank)`` (rank from 1).

    ``rankings`` maps a source name ("keyword", "vector") to ids best-first.
    """
    fused: dict[str, float] = {}
    for source, ids in rankings.items():
        w = 1.0 if weights is None else weights.get(source, 1.0)
        for rank, unit_id in enumerate(ids, start=1):
            fused[unit_id] = fused.get(unit_id, 0.0) + w / (k + rank)
    return fused


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
