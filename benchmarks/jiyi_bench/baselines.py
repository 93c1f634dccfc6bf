"""Baselines over raw turns for the evaluation reports: BM25, dense, their RRF fusion, and the
last-N window. Every baseline sees exactly the raw turns jiyi ingested, and the same query."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from jiyi.embed.base import Embedder
from jiyi.text import content_words, tokens


class BM25:
    """Okapi BM25 over folded, segmented text.

    The default (k1=1.2, b=0.75, content words, each counted once, ``idf = ln(1 + (N - df +
    0.5) / (df + 0.5))``) is the LoCoMo report's baseline. :func:`reference_bm25` is the
    textbook variant the MADial reference numbers were measured with."""

    def __init__(self, docs: Sequence[str], k1: float = 1.2, b: float = 0.75, *,
                 tokenize: Callable[[str], list[str]] = content_words,
                 idf: Literal["plus1", "okapi"] = "plus1", epsilon: float = 0.25) -> None:
        self.k1, self.b = k1, b
        self.tokenize = tokenize
        self.docs = [Counter(tokenize(d)) for d in docs]
        self.lengths = [sum(c.values()) for c in self.docs]
        self.avg = (sum(self.lengths) / len(self.lengths)) if self.lengths else 1.0
        self.avg = self.avg or 1.0
        df: Counter[str] = Counter()
        for c in self.docs:
            df.update(c.keys())
        n = len(self.docs)
        if idf == "plus1":
            self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        else:
            # rank_bm25's BM25Okapi: raw log odds; a term in more than half the documents
            # (negative idf) gets epsilon x the mean idf instead
            raw = {t: math.log((n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
            floor = epsilon * (sum(raw.values()) / len(raw)) if raw else 0.0
            self.idf = {t: (v if v >= 0 else floor) for t, v in raw.items()}

    def scores(self, query: str) -> list[float]:
        terms = self.tokenize(query)
        out = []
        for c, length in zip(self.docs, self.lengths, strict=True):
            s = 0.0
            for t in terms:
                tf = c.get(t, 0)
                if tf:
                    s += self.idf.get(t, 0.0) * tf * (self.k1 + 1) / (
                        tf + self.k1 * (1 - self.b + self.b * length / self.avg))
            out.append(s)
        return out

    def top(self, query: str, k: int) -> list[int]:
        s = self.scores(query)
        return sorted(range(len(s)), key=lambda i: (-s[i], i))[:k]


class Dense:
    """Cosine over the embedder's passage vectors of the raw turns."""

    def __init__(self, embedder: Embedder, docs: Sequence[str]) -> None:
        self.embedder = embedder
        self.matrix = embedder.embed_passages(list(docs))

    @classmethod
    def from_matrix(cls, embedder: Embedder, matrix: np.ndarray) -> Dense:
        """Over passage vectors computed already (one row per document)."""
        dense = cls.__new__(cls)
        dense.embedder, dense.matrix = embedder, matrix
        return dense

    def top(self, query: str, k: int) -> list[int]:
        sims = self.matrix @ self.embedder.embed_query(query)
        return [int(i) for i in np.argsort(-sims)[:k]]


def reference_bm25(docs: Sequence[str]) -> BM25:
    """BM25 as rank_bm25's ``BM25Okapi`` defines it (k1=1.5, b=0.75, epsilon=0.25) over every
    search token (jieba search mode for Chinese, words for English; stopwords kept, repeats
    counted). It reproduces the MADial reference numbers (zh recall@5 0.40, en 0.36-0.37)."""
    return BM25(docs, k1=1.5, b=0.75, tokenize=tokens, idf="okapi")


def rrf(rankings: Sequence[Sequence[int]], k: int = 60) -> list[int]:
    """Reciprocal-rank fusion: each document scores Σ 1 / (k + rank) over the rankings it
    appears in (rank 1-based); ties go to the lower index."""
    score: dict[int, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking):
            score[doc] = score.get(doc, 0.0) + 1.0 / (k + rank + 1)
    return sorted(score, key=lambda d: (-score[d], d))


def last_window(n_turns: int, window: int) -> list[int]:
    """The indexes of the last ``window`` turns (the seed's plan A: raw recent history)."""
    return list(range(max(0, n_turns - window), n_turns))
