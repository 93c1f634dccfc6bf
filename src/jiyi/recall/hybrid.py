"""Stage 2 of the funnel: keyword (FTS5 BM25 over segmented unit + source text) and vector
search, run in the same scope and ``as_of``; a time window adds an in-window search pass.

Per-type embedders: with an :class:`~jiyi.embed.routing.EmbedderRouting` that sends some
memory types to other embedders, the query is embedded once per distinct embedder and each
vector space is searched restricted to the types routed to it (inside the store's SQL), so a
vector left behind by an older routing is never searched. Cosines of different models are not
comparable, so the per-space lists are merged **by rank**: round-robin, the default space
first (:func:`interleave_ranked`; over disjoint lists it is what reciprocal rank fusion gives).
Each hit keeps its own cosine as its feature. With one embedder nothing of this runs: the
single search is exactly the one-space search.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from ..embed.base import Embedder
from ..embed.routing import EmbedderRouting
from ..store.base import Scope, Scored, Store, Vector
from ..timing import recall_stage
from .query import EnhancedQuery

Ranked = list[tuple[str, float]]


@dataclass
class Stage2:
    keyword: Ranked = field(default_factory=list)  # best first
    vector: Ranked = field(default_factory=list)  # best first (cosine; by rank across spaces)
    in_window: set[str] = field(default_factory=set)
    query_vector: Vector | None = None  # the default embedder's (the topic detector uses it)
    space: dict[str, str] = field(default_factory=dict)  # vector hit id -> embedder name
    keyword_stats: Scored = field(default_factory=lambda: Scored([]))  # BM25 scale
    turns: Scored = field(default_factory=lambda: Scored([]))  # raw turns (the episodic layer)
    turns_in_window: set[str] = field(default_factory=set)  # turn keys inside the window


def _merge(first: Ranked, extra: Ranked) -> Ranked:
    """Windowed results first when they are strong, keeping each id once, by score."""
    best: dict[str, float] = {}
    for uid, s in [*first, *extra]:
        if uid not in best or s > best[uid]:
            best[uid] = s
    return sorted(best.items(), key=lambda kv: -kv[1])


def interleave_ranked(lists: Sequence[Ranked]) -> Ranked:
    """Merge ranked lists from incomparable score spaces by rank: the first of each list, then
    the second of each, ...; an id seen before keeps its earlier place. Scores are kept as
    they are (each from its own space). Pure."""
    out: Ranked = []
    seen: set[str] = set()
    depth = max((len(x) for x in lists), default=0)
    for rank in range(depth):
        for ranked in lists:
            if rank < len(ranked) and ranked[rank][0] not in seen:
                seen.add(ranked[rank][0])
                out.append(ranked[rank])
    return out


def as_routing(embedder: Embedder | EmbedderRouting) -> EmbedderRouting:
    return embedder if isinstance(embedder, EmbedderRouting) else EmbedderRouting(embedder)


def search(store: Store, embedder: Embedder | EmbedderRouting, q: EnhancedQuery, scope: Scope,
           as_of: datetime, pool: int, query_vector: Vector | None = None,
           history: bool = False, episodes: int = 0) -> Stage2:
    """Both searches over units (``history``: expired and superseded units too, see
    :meth:`~jiyi.store.base.Store.vector_search`) and, with ``episodes`` > 0, a vector search
    over the user's raw turns of every session; with a time window, a second windowed pass
    marks in-window units and turns and adds them to the pool (the window never removes
    anything: a wrong window costs nothing). ``query_vector``, when given, is the default
    embedder's vector of the query."""
    routing = as_routing(embedder)
    out = keyword_stage(store, q, scope, as_of, pool, history=history)
    if query_vector is None:
        with recall_stage("embed"):
            query_vector = routing.default.embed_query(q.search_text)
    dense_stage(store, routing, q, scope, as_of, pool, out, query_vector, history=history,
                episodes=episodes)
    return out


def keyword_stage(store: Store, q: EnhancedQuery, scope: Scope, as_of: datetime, pool: int,
                  history: bool = False) -> Stage2:
    """The keyword half of :func:`search` (it needs no query vector, so it can run while the
    query is being embedded): BM25 with its scale, and the windowed pass."""
    out = Stage2()
    window = q.window
    with recall_stage("keyword"):
        out.keyword_stats = store.keyword_scored(scope, as_of, q.terms, pool, history=history)
        out.keyword = out.keyword_stats.hits
        if window is not None:
            kw_w = store.keyword_search(scope, as_of, q.terms, pool, since=window.since,
                                        until=window.until, history=history)
            out.in_window |= {u for u, _ in kw_w}
            out.keyword = _merge(out.keyword, kw_w)
    return out


def dense_stage(store: Store, routing: EmbedderRouting, q: EnhancedQuery, scope: Scope,
                as_of: datetime, pool: int, out: Stage2, query_vector: Vector,
                history: bool = False, episodes: int = 0) -> None:
    """The vector half of :func:`search`, into ``out``: units in each embedder's space and
    (``episodes`` > 0) the raw turns, with their windowed passes. ``query_vector`` is the
    default embedder's vector of ``q.search_text``."""
    default = routing.default
    window = q.window
    out.query_vector = query_vector
    per_space: list[Ranked] = []
    for emb, types in routing.spaces():  # one embedder: one space, no type filter
        if emb is default:
            qv = query_vector
        else:
            with recall_stage("embed"):
                qv = emb.embed_query(q.search_text)
        with recall_stage("vector"):
            found = store.vector_search(scope, as_of, emb.name, qv, pool, types=types,
                                        history=history)
            if window is not None:
                vec_w = store.vector_search(scope, as_of, emb.name, qv, pool,
                                            since=window.since, until=window.until,
                                            types=types, history=history)
                out.in_window |= {u for u, _ in vec_w}
                found = _merge(found, vec_w)
        for uid, _ in found:
            out.space.setdefault(uid, emb.name)
        per_space.append(found)
    out.vector = per_space[0] if len(per_space) == 1 else interleave_ranked(per_space)
    if episodes > 0:
        with recall_stage("turn_vector"):
            out.turns = store.turn_vector_search(scope.user_id, as_of, default.name,
                                                 query_vector, episodes)
            if window is not None:
                turns_w = store.turn_vector_search(scope.user_id, as_of, default.name,
                                                   query_vector, episodes,
                                                   since=window.since, until=window.until)
                out.turns_in_window = {k for k, _ in turns_w.hits}
                out.turns = Scored(_merge(out.turns.hits, turns_w.hits), out.turns.mean,
                                   out.turns.std, out.turns.n)


class QueryVector:
    """The default embedder's vector of a query, computed on a worker thread from the moment
    recall starts, so the store work that needs no vector (rules, keyword search, reading the
    keyword candidates) runs while the model embeds (the model runs in C without the GIL; the
    store's reads release it too). :meth:`result` waits for it (and raises what it raised).

    The constructor returns once the worker has started (or after :data:`START_WAIT_S`): a
    thread that runs Python keeps the GIL until it blocks or its switch interval (5 ms) ends,
    so without the hand-over the worker could not even begin the model call until the
    caller's first store read, and the embedding started ~2.5 ms late (measured at 100k
    units). Waiting on an event releases the GIL at once; the worker needs it only for the few
    Python lines before the model call, which runs without it."""

    def __init__(self, embedder: Embedder, text: str) -> None:
        self.text = text
        started = threading.Event()

        def embed() -> Vector:
            started.set()
            return embedder.embed_query(text)

        self._future = _pool().submit(embed)
        started.wait(START_WAIT_S)

    def result(self) -> Vector:
        vec: Vector = self._future.result()
        return vec


#: Longest wait for a query's worker to start (all of a busy server's workers may be taken:
#: then the recall goes on, and the embedding starts when a worker is free).
START_WAIT_S = 0.005
_POOL: tuple[int, ThreadPoolExecutor] | None = None
_POOL_LOCK = threading.Lock()
#: Query embeddings in flight at once (a server's concurrent recalls; the model itself still
#: runs one call at a time, or one micro-batch: :mod:`jiyi.embed.batching`).
EMBED_THREADS = 32


def _pool() -> ThreadPoolExecutor:
    """This process's embedding threads (made again in a forked child, which has none)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL[0] != os.getpid():
            _POOL = (os.getpid(), ThreadPoolExecutor(EMBED_THREADS,
                                                     thread_name_prefix="jiyi-query-embed"))
        return _POOL[1]
