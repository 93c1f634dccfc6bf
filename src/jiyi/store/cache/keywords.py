"""A resident keyword index of one big user: BM25 without FTS5 or a Python loop.

For a user with tens of thousands of units, a common word matched ~10,000 of their rows: FTS5
walked that word's doclist over EVERY user (30-115 ms at 1M units) and :func:`.bm25.bm25_rank`
then folded and counted each body in Python (20-100 ms). A :class:`KeywordTable` keeps the user's
folded body tokens with postings (token -> rows, term frequency), so a search is a few array
lookups and the BM25 arithmetic in numpy, over the same filter masks as the vector table.

It gives what the SQL path gives: the same tokens (:func:`.bm25.body_tokens`), the same
statistics (``n_docs`` the user's rows; document frequency and average length over the matched
rows that pass the filters), the same formula in the same order of operations, ties by unit id.
Only used for users with at least :data:`KEYWORD_MIN_ROWS` units; smaller users keep FTS5
(exactly, and it is fast for them). Kept fresh by the same change log as the vector tables.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections import Counter
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ...units import MemoryType
from ..base import Scope, Scored
from .bm25 import _FLOOR, K1, B, _count, body_tokens, fold_tokens
from .vectors import UnitRow, VectorTable, top_hits

#: Users with fewer units search through FTS5 (and are not loaded).
KEYWORD_MIN_ROWS = 2000


class KeywordTable(VectorTable):
    """One user's units (filter columns) with their keyword tokens and postings."""

    def __init__(self, capacity: int = 64) -> None:
        super().__init__("unit", 0, capacity, extra_columns=("doclen", "version"))
        self.tokens: list[tuple[str, ...]] = []
        # token -> (rows, versions, term frequencies); an entry counts while its version is the
        # row's current one (a changed body appends new entries, old ones go stale)
        self.postings: dict[str, tuple[array[int], array[int], array[int]]] = {}
        self._posting_entries = 0

    @property
    def nbytes(self) -> int:
        tokens = sum(8 * len(t) + 56 for t in self.tokens)
        return super().nbytes + tokens + 12 * self._posting_entries + 200 * len(self.postings)

    def put(self, r: UnitRow, body: str) -> None:
        i = self._put_unit_row(r)
        toks = body_tokens(body)
        while len(self.tokens) <= i:
            self.tokens.append(())
        self.tokens[i] = toks
        self.cols["doclen"][i] = len(toks)
        version = int(self.cols["version"][i]) + 1
        self.cols["version"][i] = version
        self._post(i, version, toks)

    def _post(self, i: int, version: int, toks: tuple[str, ...]) -> None:
        for tok, tf in Counter(toks).items():
            entry = self.postings.get(tok)
            if entry is None:
                entry = self.postings[tok] = (array("i"), array("i"), array("i"))
            entry[0].append(i)
            entry[1].append(version)
            entry[2].append(tf)
            self._posting_entries += 1

    def compact(self) -> None:
        keep = [int(i) for i in np.flatnonzero(self.live[:self.n])]
        self.tokens = [self.tokens[i] for i in keep]
        super().compact()
        self.postings = {}
        self._posting_entries = 0
        for i, toks in enumerate(self.tokens):
            self._post(i, int(self.cols["version"][i]), toks)

    def _frequencies(self, token: str) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """Rows holding ``token`` now and how often (stale and dropped entries left out)."""
        entry = self.postings.get(token)
        if entry is None:
            return np.zeros(0, dtype=np.intp), np.zeros(0)
        rows = np.frombuffer(entry[0], dtype=np.int32).astype(np.intp)
        versions = np.frombuffer(entry[1], dtype=np.int32)
        current = (versions == self.cols["version"][rows]) & self.live[rows]
        return rows[current], np.frombuffer(entry[2], dtype=np.int32)[current].astype(np.float64)

    def search(self, scope: Scope, as_of: int, terms: Sequence[str], limit: int,
               since: int | None, until: int | None, history: bool,
               types: Sequence[MemoryType] | None = None) -> Scored:
        """BM25 over the user's rows that hold a term and pass the filters (see module)."""
        phrases = [p for p in dict.fromkeys(tuple(sys.intern(w) for w in fold_tokens(t))
                                            for t in terms) if p]
        if not phrases:
            return Scored([])
        n = self.n
        tf = np.zeros((len(phrases), n))
        for j, phrase in enumerate(phrases):
            rows, freq = self._frequencies(phrase[0])
            if len(phrase) == 1:
                tf[j, rows] = freq
                continue
            for tok in phrase[1:]:  # every token present, then the phrase itself in order
                rows = np.intersect1d(rows, self._frequencies(tok)[0])
            for i in rows:
                tf[j, i] = _count(self.tokens[int(i)], phrase)
        mask = self.unit_mask(scope, as_of, history, since, until, types)
        matched = np.flatnonzero((tf > 0).any(axis=0) & mask)
        n_docs = self.size
        if matched.size == 0:
            return Scored([])
        lengths = self.cols["doclen"][matched]
        avgdl = max(1.0, int(lengths.sum()) / matched.size)
        total = max(n_docs, int(matched.size))
        norm = K1 * (1 - B + B * lengths / avgdl)
        score = np.zeros(matched.size)
        for j in range(len(phrases)):
            f = tf[j, matched]
            df = int(np.count_nonzero(f))
            w = max(1e-6, math.log((total - df + 0.5) / (df + 0.5)))
            score += np.where(f > 0, w * f * (K1 + 1) / (f + norm), 0.0)
        score += _FLOOR
        hits = top_hits(lambda j: self.ids[int(matched[j])], score, limit)
        # Scored.of's spread over every matched score (the rest of the n_docs score 0)
        total = max(n_docs, int(matched.size), 1)
        mean = float(score.sum()) / total
        var = float(np.dot(score, score)) / total - mean * mean
        return Scored(hits, mean, max(0.0, var) ** 0.5, total)
