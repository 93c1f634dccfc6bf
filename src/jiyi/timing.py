"""Timers for the recall's stages and the observer that receives them: a primitive, beside
``clock.py``, that the read path times itself with (:func:`recall_stage`) and the facade's
instrumentation (:mod:`jiyi.instrument`) sets for the length of one call. Imports nothing heavy:
``import jiyi`` stays fast without a service."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol


class MemoryObserver(Protocol):
    """What the metrics layer implements (see :class:`jiyi.metrics.JiyiMetrics`)."""

    def observe_recall(self, seconds: float, hit_stages: Sequence[str]) -> None: ...
    def observe_stage(self, stage: str, seconds: float) -> None: ...
    def observe_ingest(self, seconds: float, units: int) -> None: ...


_current: ContextVar[MemoryObserver | None] = ContextVar("jiyi_observer", default=None)
_record: ContextVar[dict[str, float] | None] = ContextVar("jiyi_stage_seconds", default=None)


@contextmanager
def observing(observer: MemoryObserver | None) -> Iterator[None]:
    """Within the block, :func:`recall_stage` reports to ``observer`` (nothing when None)."""
    if observer is None:
        yield
        return
    token = _current.set(observer)
    try:
        yield
    finally:
        _current.reset(token)


@contextmanager
def recording(seconds: dict[str, float] | None) -> Iterator[None]:
    """Within the block, :func:`recall_stage` also adds each stage's seconds into ``seconds``
    (a stage timed twice adds both; first timed, first listed): one recall's own timings, for
    its trace. A no-op when ``seconds`` is None."""
    if seconds is None:
        yield
        return
    token = _record.set(seconds)
    try:
        yield
    finally:
        _record.reset(token)


@contextmanager
def recall_stage(stage: str) -> Iterator[None]:
    """Time one stage of a recall (``rule``, ``keyword``, ``vector``, ``rerank``...) into
    ``jiyi_recall_seconds{stage=...}`` and the recall's trace (:func:`recording`). A no-op
    outside an observed or traced recall."""
    observer, record = _current.get(), _record.get()
    if observer is None and record is None:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        seconds = time.perf_counter() - start
        if observer is not None:
            observer.observe_stage(stage, seconds)
        if record is not None:
            record[stage] = record.get(stage, 0.0) + seconds
