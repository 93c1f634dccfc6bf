"""The query's embedding starts on its worker before recall's own work goes on (issue #21):
:class:`jiyi.recall.hybrid.QueryVector` hands the GIL over until the worker has begun."""

from __future__ import annotations

import threading
import time

import numpy as np

from jiyi.recall import hybrid
from jiyi.recall.hybrid import QueryVector


class _Recording:
    name = "recording"
    dim = 4

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.began = threading.Event()
        self.gate = gate

    def embed_query(self, text: str) -> np.ndarray:
        self.began.set()
        if self.gate is not None:
            self.gate.wait(5)
        return np.ones(self.dim, dtype=np.float32) / 2

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), self.dim), dtype=np.float32) / 2


def test_the_worker_has_begun_when_the_constructor_returns() -> None:
    for _ in range(20):  # the caller keeps running Python right after: no store read between
        emb = _Recording()
        pending = QueryVector(emb, "where does my order ship")  # type: ignore[arg-type]
        began = emb.began.is_set()
        assert began
        assert pending.result().shape == (4,)


def test_a_busy_pool_does_not_hold_the_recall_up() -> None:
    gate = threading.Event()
    blockers = [_Recording(gate) for _ in range(hybrid.EMBED_THREADS)]
    try:
        taken = [QueryVector(b, "taken") for b in blockers]  # type: ignore[arg-type]
        late = _Recording()
        t0 = time.perf_counter()
        pending = QueryVector(late, "queued")  # type: ignore[arg-type]
        waited = time.perf_counter() - t0
        assert not late.began.is_set()
        assert waited < hybrid.START_WAIT_S + 0.5
    finally:
        gate.set()
    assert pending.result().shape == (4,)
    assert all(t.result().shape == (4,) for t in taken)
