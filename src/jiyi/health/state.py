"""Where health state lives, so several worker processes agree (amnesia streaks, counters).

A store with the :class:`~jiyi.store.capabilities.HealthStateStore` capability keeps it in its
own tables (migration ``m002_health``; both SQL backends share one implementation,
:class:`jiyi.store.sql.health.SqlHealthState`); anything else falls back to process-local state
(logged once). The contract, the counters and the streak rule are the store's
(:mod:`jiyi.store.health_state`), so the store imports nothing of this path.
"""

from __future__ import annotations

import logging
import threading
import weakref
from datetime import datetime
from typing import Any

from ..store.base import Store
from ..store.capabilities import HealthStateStore
from ..store.health_state import COUNTERS, HealthState, StreakUpdate, next_streak

log = logging.getLogger("jiyi.health")

UNIT_STATES = ("valid", "pending", "expired", "invalidated")


class LocalHealthState:
    """Process-local fallback for a backend without its own health state (not shared between
    worker processes). Unit counts come from ``store.stats`` (by type, state ``all``)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._sessions: dict[tuple[str, str], dict[str, Any]] = {}
        self._counters: dict[str, int] = {}
        self._last_cleanup: datetime | None = None

    def _row(self, user_id: str, session_id: str) -> dict[str, Any]:
        return self._sessions.setdefault((user_id, session_id),
                                         {"empty": False, "streak": 0, "alerting": False})

    def note_recall(self, user_id: str, session_id: str, empty: bool, at: datetime) -> None:
        with self._lock:
            self._row(user_id, session_id)["empty"] = empty

    def last_recall_empty(self, user_id: str, session_id: str) -> bool:
        with self._lock:
            return bool(self._row(user_id, session_id)["empty"])

    def record_reply(self, user_id: str, session_id: str, forgetful: bool, threshold: int,
                     at: datetime) -> StreakUpdate:
        with self._lock:
            row = self._row(user_id, session_id)
            update = next_streak(int(row["streak"]), bool(row["alerting"]), forgetful, threshold)
            row["streak"], row["alerting"] = update.streak, update.alerting
            if update.raised:
                self._counters["amnesia_alerts"] = self._counters.get("amnesia_alerts", 0) + 1
            return update

    def alerting_sessions(self, session_id: str | None, limit: int) -> tuple[list[str], int]:
        with self._lock:
            found = sorted({s for (_, s), row in self._sessions.items()
                            if row["alerting"] and (session_id is None or s == session_id)})
        return found[:limit], len(found)

    def counters(self) -> dict[str, int]:
        with self._lock:
            return {name: self._counters.get(name, 0) for name in COUNTERS}

    def bump(self, name: str, by: int = 1) -> None:
        with self._lock:
            self._counters[name] = self._counters.get(name, 0) + by

    def claim_cleanup(self, at: datetime, interval_seconds: float) -> bool:
        with self._lock:
            last = self._last_cleanup
            if last is not None and (at - last).total_seconds() < interval_seconds:
                return False
            self._last_cleanup = at
            return True

    def unit_counts(self, at: datetime) -> dict[str, dict[str, int]]:
        stats = self._store.stats(as_of=at)
        return {t: {"all": n} for t, n in stats.by_type.items()}


_states: weakref.WeakKeyDictionary[Any, HealthState] = weakref.WeakKeyDictionary()
_states_lock = threading.Lock()


def health_state_for(store: Store) -> HealthState:
    """The health state of ``store``: its own (shared by every process), else process-local."""
    with _states_lock:
        found = _states.get(store)
        if found is not None:
            return found
        state: HealthState
        if isinstance(store, HealthStateStore):
            state = store.health_state()
        else:
            log.warning("store backend %r keeps no shared health state; amnesia streaks and "
                        "health counters are per process", store.backend)
            state = LocalHealthState(store)
        _states[store] = state
        return state
