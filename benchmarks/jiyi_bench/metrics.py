"""Retrieval metrics for the evaluation reports (LoCoMo, MADial, scenarios), as pure functions."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from jiyi.text import content_words, fold


def covered(source_ids: Iterable[Sequence[str]], k: int) -> set[str]:
    """The turn ids covered by the first ``k`` results (each result covers its source ids)."""
    out: set[str] = set()
    for i, ids in enumerate(source_ids):
        if i >= k:
            break
        out.update(ids)
    return out


def recall_any(evidence: Sequence[str], got: set[str]) -> float:
    return 1.0 if any(e in got for e in evidence) else 0.0


def recall_all(evidence: Sequence[str], got: set[str]) -> float:
    return 1.0 if evidence and all(e in got for e in evidence) else 0.0


def answer_words(answer: str) -> list[str]:
    return content_words(answer)


def answer_covered(answer: str, texts: Sequence[str]) -> float | None:
    """1.0 when every content word of the gold answer occurs in the texts, None when the answer
    has no content word."""
    words = answer_words(answer)
    if not words:
        return None
    blob = fold(" ".join(texts))
    return 1.0 if all(w in blob for w in words) else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    idx = min(len(s) - 1, max(0, round(q / 100.0 * (len(s) - 1))))
    return float(s[idx])


def gold_recall(gold: Sequence[str], ranked: Sequence[Sequence[str]], k: int) -> float:
    """Share of the gold ids covered by the first ``k`` results (each result covers its source
    ids): ``|gold ∩ covered(top k)| / |gold|``; 0.0 when there is no gold."""
    want = set(gold)
    if not want:
        return 0.0
    return len(want & covered(ranked, k)) / len(want)


def ndcg(gold: Sequence[str], ranked: Sequence[Sequence[str]], k: int) -> float:
    """Binary nDCG@k over results that cover source ids.

    A result at rank ``i`` (1-based) is relevant when it covers at least one gold id that no
    earlier result covered, so two results built from the same gold turn count once and one
    result covering two gold turns counts once. DCG = Σ rel_i / log2(i + 1) over the first
    ``k`` results; the ideal DCG has ``min(k, |gold|)`` relevant results at the top. In [0, 1].
    """
    want = set(gold)
    if not want:
        return 0.0
    seen: set[str] = set()
    dcg = 0.0
    for i, ids in enumerate(ranked[:k]):
        new = (want & set(ids)) - seen
        if new:
            dcg += 1.0 / math.log2(i + 2)
            seen |= new
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(want))))
    return dcg / ideal
