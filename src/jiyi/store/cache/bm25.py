"""BM25 over one user's keyword matches, computed in Python (pure functions).

FTS5's built-in ``bm25()`` counts, for every query phrase, the documents of the WHOLE index that
contain it (a full doclist scan per phrase and query), so even a search narrowed to one owner
costs time proportional to the store. Ranking the owner's matched rows here instead uses that
user's statistics: ``n_docs`` is the user's row count, document frequency and average length
come from the matched rows. Same formula and constants as FTS5 (k1 = 1.2, b = 0.75, idf floored
at 1e-6); only the order matters to the caller (fusion is rank based).
"""

from __future__ import annotations

import math
import re
import sys
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

K1 = 1.2
B = 0.75
_WORD = re.compile(r"[^\W_]+")
#: Combining diacritical marks (the blocks unicode61 folds away).
_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
#: A row FTS5 matched but whose terms this tokenizer could not find still ranks, last.
_FLOOR = 1e-9


def fold_tokens(text: str) -> list[str]:
    """Approximately what FTS5's ``unicode61 remove_diacritics 2`` yields: case-folded runs of
    letters and digits, combining marks dropped."""
    folded = text.casefold()
    if not folded.isascii():
        folded = _MARKS.sub("", unicodedata.normalize("NFKD", folded))
    return _WORD.findall(folded)


#: Keyword bodies whose tokens are kept (a big user's common word matches thousands
#: of rows per recall, and folding their text was most of the keyword stage). Keyed by the body
#: text itself, so a changed body is a new entry and nothing can go stale; tokens are interned
#: (shared between bodies), ~1 kB per entry.
BODY_CACHE = 65_536


@lru_cache(maxsize=BODY_CACHE)
def body_tokens(body: str) -> tuple[str, ...]:
    """:func:`fold_tokens` of a stored keyword body, remembered (see :data:`BODY_CACHE`)."""
    return tuple(sys.intern(t) for t in fold_tokens(body))


def _count(doc: Sequence[str], phrase: Sequence[str]) -> int:
    n = len(phrase)
    if n == 0:
        return 0
    if n == 1:
        return doc.count(phrase[0])
    want = tuple(phrase)
    return sum(1 for i in range(len(doc) - n + 1) if tuple(doc[i:i + n]) == want)


def bm25_rank(
    docs: Sequence[tuple[str, str]], terms: Sequence[str], n_docs: int
) -> list[tuple[str, float]]:
    """``docs`` as ``(id, body)``; returns ``(id, score)`` best first, ties by id (the order
    of :class:`~.keywords.KeywordTable` too)."""
    # interned like the body tokens: tuple.count then compares by identity first
    phrases = [p for p in dict.fromkeys(tuple(sys.intern(w) for w in fold_tokens(t))
                                        for t in terms) if p]
    if not docs:
        return []
    bodies = [body_tokens(body) for _, body in docs]
    tfs = [[_count(tokens, p) for p in phrases] for tokens in bodies]
    avgdl = max(1.0, sum(len(t) for t in bodies) / len(bodies))
    total = max(n_docs, len(docs))
    idf = []
    for j in range(len(phrases)):
        df = sum(1 for row in tfs if row[j] > 0)
        idf.append(max(1e-6, math.log((total - df + 0.5) / (df + 0.5))))
    scored = []
    for (doc_id, _), tokens, row in zip(docs, bodies, tfs, strict=True):
        norm = K1 * (1 - B + B * len(tokens) / avgdl)
        score = sum(w * tf * (K1 + 1) / (tf + norm) for w, tf in zip(idf, row, strict=True) if tf)
        scored.append((doc_id, score + _FLOOR))
    order = sorted(range(len(scored)), key=lambda i: (-scored[i][1], scored[i][0]))
    return [scored[i] for i in order]
