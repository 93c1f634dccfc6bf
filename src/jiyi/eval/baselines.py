"""Baselines over raw turns, for the LoCoMo report: BM25, dense, and the last-N window."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..embed.base import Embedder
from ..text import content_words


class BM25:
    """Okapi BM25 (k1=1.2, b=0.75) over segmented, folded content words."""

    def __init__(self, docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs = [Counter(content_words(d)) for d in docs]
        self.lengths = [sum(c.values()) for c in self.docs]
        self.avg = (sum(self.lengths) / len(self.lengths)) if self.lengths else 1.0
        df: Counter[str] = Counter()
        for c in self.docs:
            df.update(c.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: str) -> list[float]:
        terms = content_words(query)
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

    def top(self, query: str, k: int) -> list[int]:
        sims = self.matrix @ self.embedder.embed_query(query)
        return [int(i) for i in np.argsort(-sims)[:k]]


def last_window(n_turns: int, window: int) -> list[int]:
    """The indexes of the last ``window`` turns (the seed's plan A: raw recent history)."""
    return list(range(max(0, n_turns - window), n_turns))
