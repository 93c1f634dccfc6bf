"""Retrieval metrics for the LoCoMo report, as pure functions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..text import content_words, fold


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
