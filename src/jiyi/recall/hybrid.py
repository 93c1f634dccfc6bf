"""Stage 2 of the funnel: keyword (FTS5 BM25 over segmented unit + source text) and vector
search, run in the same scope and ``as_of``; a time window adds an in-window search pass."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..embed.base import Embedder
from ..store.base import Scope, Store, Vector
from .query import EnhancedQuery


@dataclass
class Stage2:
    keyword: list[tuple[str, float]] = field(default_factory=list)  # best first
    vector: list[tuple[str, float]] = field(default_factory=list)  # best first (cosine)
    in_window: set[str] = field(default_factory=set)
    query_vector: Vector | None = None


def _merge(first: list[tuple[str, float]], extra: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Windowed results first when they are strong, keeping each id once, by score."""
    best: dict[str, float] = {}
    for uid, s in [*first, *extra]:
        if uid not in best or s > best[uid]:
            best[uid] = s
    return sorted(best.items(), key=lambda kv: -kv[1])


def search(store: Store, embedder: Embedder, q: EnhancedQuery, scope: Scope, as_of: datetime,
           pool: int, query_vector: Vector | None = None) -> Stage2:
    """Both searches; with a time window, a second windowed pass marks in-window units and
    adds them to the pool (the window never removes anything: a wrong window costs nothing)."""
    out = Stage2()
    out.keyword = store.keyword_search(scope, as_of, q.terms, pool)
    out.query_vector = query_vector if query_vector is not None else embedder.embed_query(
        q.search_text)
    out.vector = store.vector_search(scope, as_of, embedder.name, out.query_vector, pool)
    if q.window is not None:
        since, until = q.window.since, q.window.until
        kw_w = store.keyword_search(scope, as_of, q.terms, pool, since=since, until=until)
        vec_w = store.vector_search(scope, as_of, embedder.name, out.query_vector, pool,
                                    since=since, until=until)
        out.in_window = {u for u, _ in kw_w} | {u for u, _ in vec_w}
        out.keyword = _merge(out.keyword, kw_w)
        out.vector = _merge(out.vector, vec_w)
    return out
