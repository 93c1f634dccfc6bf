"""Light hooks around ``Memory.ingest`` / ``Memory.recall``: timings for metrics, recall-emptiness
for the amnesia detector. At the facade's level: it reads the recall's outcome rule
(:mod:`jiyi.recall.outcome`) and writes the health state (:mod:`jiyi.health.state`)."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from functools import wraps
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar

from .errors import JiyiError
from .health.state import health_state_for
from .recall.outcome import recall_came_back_empty
from .timing import MemoryObserver, observing
from .validation import check_user_id, require_session_id

log = logging.getLogger("jiyi.health")

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")


def _after_recall(mem: Any, kwargs: dict[str, Any], hits: Any, seconds: float) -> None:
    observer: MemoryObserver | None = getattr(mem, "metrics", None)
    if observer is not None:
        observer.observe_recall(seconds, [str(getattr(h, "stage", "")) for h in hits])
    if not kwargs.get("log", True):
        return
    try:
        sid = require_session_id(kwargs.get("session_id"))
        uid = check_user_id(kwargs.get("user_id"), sid)
        empty = recall_came_back_empty(hits, mem.config.recall.confidence_threshold)
        health_state_for(mem.store).note_recall(uid, sid, empty, mem.clock())
    except (JiyiError, sqlite3.Error) as exc:  # health bookkeeping never fails a recall
        log.warning("could not record recall state for the amnesia detector: %s", exc)


def instrumented(
    kind: Literal["recall", "ingest"],
) -> Callable[[Callable[Concatenate[S, P], R]], Callable[Concatenate[S, P], R]]:
    """Decorate ``Memory.recall`` / ``Memory.ingest``: time the call, feed the observer in
    ``self.metrics`` (if any), and (recall) note whether the session's recall came back empty
    (:func:`jiyi.recall.outcome.recall_came_back_empty`, as the agent loop decides it)."""

    def decorate(fn: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
        @wraps(fn)
        def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
            observer: MemoryObserver | None = getattr(self, "metrics", None)
            start = time.perf_counter()
            with observing(observer):
                result = fn(self, *args, **kwargs)
            seconds = time.perf_counter() - start
            if kind == "recall":
                _after_recall(self, kwargs, result, seconds)
            elif observer is not None:
                observer.observe_ingest(seconds, len(result) if isinstance(result, list) else 0)
            return result

        return wrapper

    return decorate
