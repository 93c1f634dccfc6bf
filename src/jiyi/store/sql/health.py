"""Health state (amnesia streaks, counters) in the store's own tables (migration ``m002_health``),
written once for every SQL backend: each store's ``health_state()`` returns a
:class:`SqlHealthState` over a :class:`HealthSql`, its way of running the queries.

Queries use ``:name`` placeholders (the backend translates them). A streak or the cleanup claim
is read and written in one write transaction; PostgreSQL adds ``FOR UPDATE`` to that read
(:attr:`HealthSql.row_lock`) so concurrent workers agree, where SQLite's write transaction
already excludes every other writer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from ...clock import to_micros
from ..health_state import COUNTERS, StreakUpdate, next_streak

#: Runs one statement inside the open transaction; its rows (none for a write).
Execute = Callable[[str, Mapping[str, Any]], list[tuple[Any, ...]]]

#: Where the last cleanup's instant is kept (a counter row, not a public counter).
LAST_CLEANUP = "last_cleanup_at_us"

_STATE_SQL = (
    "CASE WHEN u.invalidated_at IS NOT NULL AND u.invalidated_at <= :now THEN 'invalidated'"
    " WHEN u.expires_at <= :now OR (u.valid_until IS NOT NULL AND u.valid_until <= :now)"
    " THEN 'expired'"
    " WHEN u.created_at > :now OR (u.valid_at IS NOT NULL AND u.valid_at > :now) THEN 'pending'"
    " ELSE 'valid' END"
)
_EMPTY_SQL = ("SELECT last_recall_empty FROM health_sessions"
              " WHERE user_id = :u AND session_id = :s")


class HealthSql(Protocol):
    """How the health state reaches one SQL backend."""

    #: Appended to a read whose row the same transaction then writes (``" FOR UPDATE"``).
    row_lock: str

    def read(self, query: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]: ...

    def write(self) -> AbstractContextManager[Execute]:
        """One write transaction: committed on exit, rolled back on an exception."""
        ...


class SqlHealthState:
    """Health state shared by every worker process of a SQL store."""

    def __init__(self, db: HealthSql) -> None:
        self._db = db

    def note_recall(self, user_id: str, session_id: str, empty: bool, at: datetime) -> None:
        rows = self._db.read(_EMPTY_SQL, {"u": user_id, "s": session_id})
        if not empty and (not rows or rows[0][0] == 0):
            return  # nothing to change: the common case costs one read
        with self._db.write() as execute:
            execute(
                "INSERT INTO health_sessions (user_id, session_id, last_recall_empty, updated_at)"
                " VALUES (:u, :s, :empty, :at) ON CONFLICT (user_id, session_id) DO UPDATE SET"
                " last_recall_empty = excluded.last_recall_empty, updated_at = excluded.updated_at",
                {"u": user_id, "s": session_id, "empty": 1 if empty else 0, "at": to_micros(at)})

    def last_recall_empty(self, user_id: str, session_id: str) -> bool:
        rows = self._db.read(_EMPTY_SQL, {"u": user_id, "s": session_id})
        return bool(rows and rows[0][0])

    def record_reply(self, user_id: str, session_id: str, forgetful: bool, threshold: int,
                     at: datetime) -> StreakUpdate:
        key = {"u": user_id, "s": session_id}
        with self._db.write() as execute:
            # Create the row first so that the locking read has something to lock.
            if forgetful:
                execute("INSERT INTO health_sessions (user_id, session_id, updated_at)"
                        " VALUES (:u, :s, :at) ON CONFLICT (user_id, session_id) DO NOTHING",
                        {**key, "at": to_micros(at)})
            rows = execute("SELECT streak, alerting FROM health_sessions"
                           " WHERE user_id = :u AND session_id = :s" + self._db.row_lock, key)
            prev_streak, prev_alerting = (int(rows[0][0]), bool(rows[0][1])) if rows else (0, False)
            update = next_streak(prev_streak, prev_alerting, forgetful, threshold)
            if not rows:
                return update
            execute(
                "UPDATE health_sessions SET streak = :streak, alerting = :alerting,"
                " updated_at = :at, alert_since = CASE WHEN :alerting = 0 THEN NULL"
                " ELSE COALESCE(alert_since, :since) END WHERE user_id = :u AND session_id = :s",
                {**key, "streak": update.streak, "alerting": 1 if update.alerting else 0,
                 "since": to_micros(at) if update.alerting else None, "at": to_micros(at)})
            if update.raised:
                self._bump(execute, "amnesia_alerts", 1)
        return update

    def alerting_sessions(self, session_id: str | None, limit: int) -> tuple[list[str], int]:
        where, params = "alerting = 1", {"s": session_id, "limit": limit}
        if session_id is not None:
            where += " AND session_id = :s"
        count = int(self._db.read(f"SELECT COUNT(*) FROM health_sessions WHERE {where}",
                                  params)[0][0])
        rows = self._db.read(f"SELECT DISTINCT session_id FROM health_sessions WHERE {where}"
                             " ORDER BY session_id LIMIT :limit", params)
        return [r[0] for r in rows], count

    def counters(self) -> dict[str, int]:
        found = {r[0]: r[1] for r in self._db.read("SELECT name, value FROM health_counters", {})}
        return {name: int(found.get(name, 0)) for name in COUNTERS}

    @staticmethod
    def _bump(execute: Execute, name: str, by: int) -> None:
        execute("INSERT INTO health_counters (name, value) VALUES (:name, :by) ON CONFLICT (name)"
                " DO UPDATE SET value = health_counters.value + excluded.value",
                {"name": name, "by": by})

    def bump(self, name: str, by: int = 1) -> None:
        with self._db.write() as execute:
            self._bump(execute, name, by)

    def claim_cleanup(self, at: datetime, interval_seconds: float) -> bool:
        now, key = to_micros(at), {"name": LAST_CLEANUP}
        with self._db.write() as execute:
            execute("INSERT INTO health_counters (name, value) VALUES (:name, 0)"
                    " ON CONFLICT (name) DO NOTHING", key)
            rows = execute("SELECT value FROM health_counters WHERE name = :name"
                           + self._db.row_lock, key)
            last = int(rows[0][0]) if rows else 0
            if last and now - last < interval_seconds * 1_000_000:
                return False
            execute("UPDATE health_counters SET value = :now WHERE name = :name",
                    {**key, "now": now})
            return True

    def unit_counts(self, at: datetime) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for unit_type, state, n in self._db.read(
            f"SELECT u.type, {_STATE_SQL} AS state, COUNT(*) FROM units u GROUP BY 1, 2",
            {"now": to_micros(at)},
        ):
            out.setdefault(unit_type, {})[state] = int(n)
        return out
