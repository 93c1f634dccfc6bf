"""Rank fusion as small pure functions."""

from __future__ import annotations

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
