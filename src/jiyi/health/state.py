"""Where health state lives, so several worker processes agree (amnesia streaks, counters).

SQLite keeps it in the tables of migration ``m002_health``; a backend may bring its own by
exposing ``health_state()``; anything else falls back to process-local state (logged once).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from ..clock import to_micros
from ..errors import StoreError
from ..store.base import Store

log = logging.getLogger("jiyi.health")

#: The persisted counters (names are also the Prometheus counters without ``jiyi_``/``_total``).
COUNTERS = ("amnesia_alerts", "cleanup_runs", "cleanup_purged_units")
_LAST_CLEANUP = "last_cleanup_at_us"

UNIT_STATES = ("valid", "pending", "expired", "invalidated")


@dataclass(frozen=True)
class StreakUpdate:
    streak: int
    alerting: bool
    raised: bool


def next_streak(streak: int, alerting: bool, forgetful: bool, threshold: int) -> StreakUpdate:
    """Pure amnesia transition: a forgetful turn extends the streak, any other turn ends it (and
    clears the alert); the alert is raised once, when the streak reaches ``threshold``."""
    if not forgetful:
        return StreakUpdate(0, False, False)
    new = streak + 1
    now_alerting = new >= threshold
    return StreakUpdate(new, now_alerting, now_alerting and not alerting)


class HealthState(Protocol):
    def note_recall(self, user_id: str, session_id: str, empty: bool, at: datetime) -> None: ...
    def last_recall_empty(self, user_id: str, session_id: str) -> bool: ...
    def record_reply(self, user_id: str, session_id: str, forgetful: bool, threshold: int,
                     at: datetime) -> StreakUpdate: ...
    def alerting_sessions(self, session_id: str | None, limit: int) -> tuple[list[str], int]: ...
    def counters(self) -> dict[str, int]: ...
    def bump(self, name: str, by: int = 1) -> None: ...
    def claim_cleanup(self, at: datetime, interval_seconds: float) -> bool: ...
    def unit_counts(self, at: datetime) -> dict[str, dict[str, int]]: ...


_STATE_SQL = (
    "CASE WHEN u.invalidated_at IS NOT NULL AND u.invalidated_at <= :now THEN 'invalidated'"
    " WHEN u.expires_at <= :now OR (u.valid_until IS NOT NULL AND u.valid_until <= :now)"
    " THEN 'expired'"
    " WHEN u.created_at > :now OR (u.valid_at IS NOT NULL AND u.valid_at > :now) THEN 'pending'"
    " ELSE 'valid' END"
)


class SQLiteHealthState:
    """Health state in the SQLite file itself: every worker process sees the same streaks."""

    def __init__(self, store: Any) -> None:
        self._store = store

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._store.locked() as conn:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(f"could not start a write: {exc}") from exc
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _read(self, sql: str, params: Any = ()) -> list[Any]:
        with self._store.locked() as conn:
            return list(conn.execute(sql, params).fetchall())

    def note_recall(self, user_id: str, session_id: str, empty: bool, at: datetime) -> None:
        rows = self._read(
            "SELECT last_recall_empty FROM health_sessions WHERE user_id = ? AND session_id = ?",
            (user_id, session_id))
        if not empty and (not rows or rows[0][0] == 0):
            return  # nothing to change: the common case costs one read
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO health_sessions (user_id, session_id, last_recall_empty, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (user_id, session_id) DO UPDATE SET"
                " last_recall_empty = excluded.last_recall_empty, updated_at = excluded.updated_at",
                (user_id, session_id, 1 if empty else 0, to_micros(at)))

    def last_recall_empty(self, user_id: str, session_id: str) -> bool:
        rows = self._read(
            "SELECT last_recall_empty FROM health_sessions WHERE user_id = ? AND session_id = ?",
            (user_id, session_id))
        return bool(rows and rows[0][0])

    def record_reply(self, user_id: str, session_id: str, forgetful: bool, threshold: int,
                     at: datetime) -> StreakUpdate:
        with self._tx() as conn:
            row = conn.execute(
                "SELECT streak, alerting FROM health_sessions WHERE user_id = ? AND session_id = ?",
                (user_id, session_id)).fetchone()
            prev_streak, prev_alerting = (int(row[0]), bool(row[1])) if row else (0, False)
            update = next_streak(prev_streak, prev_alerting, forgetful, threshold)
            if row is None and not forgetful:
                return update
            conn.execute(
                "INSERT INTO health_sessions (user_id, session_id, streak, alerting, alert_since,"
                " updated_at) VALUES (:u, :s, :streak, :alerting, :since, :at)"
                " ON CONFLICT (user_id, session_id) DO UPDATE SET streak = excluded.streak,"
                " alerting = excluded.alerting, updated_at = excluded.updated_at,"
                " alert_since = CASE WHEN excluded.alerting = 0 THEN NULL"
                " ELSE COALESCE(health_sessions.alert_since, excluded.alert_since) END",
                {"u": user_id, "s": session_id, "streak": update.streak,
                 "alerting": 1 if update.alerting else 0,
                 "since": to_micros(at) if update.alerting else None, "at": to_micros(at)})
            if update.raised:
                self._bump(conn, "amnesia_alerts", 1)
        return update

    def alerting_sessions(self, session_id: str | None, limit: int) -> tuple[list[str], int]:
        where, params = "alerting = 1", []
        if session_id is not None:
            where += " AND session_id = ?"
            params.append(session_id)
        count = int(self._read(f"SELECT COUNT(*) FROM health_sessions WHERE {where}", params)[0][0])
        rows = self._read(
            f"SELECT DISTINCT session_id FROM health_sessions WHERE {where}"
            " ORDER BY session_id LIMIT ?", [*params, limit])
        return [r[0] for r in rows], count

    def counters(self) -> dict[str, int]:
        found = dict(self._read("SELECT name, value FROM health_counters"))
        return {name: int(found.get(name, 0)) for name in COUNTERS}

    @staticmethod
    def _bump(conn: sqlite3.Connection, name: str, by: int) -> None:
        conn.execute(
            "INSERT INTO health_counters (name, value) VALUES (?, ?)"
            " ON CONFLICT (name) DO UPDATE SET value = health_counters.value + excluded.value",
            (name, by))

    def bump(self, name: str, by: int = 1) -> None:
        with self._tx() as conn:
            self._bump(conn, name, by)

    def claim_cleanup(self, at: datetime, interval_seconds: float) -> bool:
        now = to_micros(at)
        with self._tx() as conn:
            row = conn.execute("SELECT value FROM health_counters WHERE name = ?",
                               (_LAST_CLEANUP,)).fetchone()
            if row is not None and now - int(row[0]) < interval_seconds * 1_000_000:
                return False
            conn.execute(
                "INSERT INTO health_counters (name, value) VALUES (?, ?)"
                " ON CONFLICT (name) DO UPDATE SET value = excluded.value", (_LAST_CLEANUP, now))
            return True

    def unit_counts(self, at: datetime) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for unit_type, state, n in self._read(
            f"SELECT u.type, {_STATE_SQL} AS state, COUNT(*) FROM units u GROUP BY 1, 2",
            {"now": to_micros(at)},
        ):
            out.setdefault(unit_type, {})[state] = int(n)
        return out


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
    """The health state of ``store``: its own ``health_state()``, SQLite tables, or local."""
    with _states_lock:
        found = _states.get(store)
        if found is not None:
            return found
        own = getattr(store, "health_state", None)
        state: HealthState
        if callable(own):
            state = own()
        elif getattr(store, "backend", "") == "sqlite" and hasattr(store, "locked"):
            state = SQLiteHealthState(store)
        else:
            log.warning("store backend %r keeps no shared health state; amnesia streaks and "
                        "health counters are per process", getattr(store, "backend", "?"))
            state = LocalHealthState(store)
        _states[store] = state
        return state
