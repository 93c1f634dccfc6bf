"""Health state (amnesia streaks, counters) in PostgreSQL, shared by every worker process.

The same tables (migration ``m002_health``) and the same semantics as
:class:`jiyi.health.state.SQLiteHealthState`; :meth:`PostgresStore.health_state` returns one.
Row locks (``SELECT ... FOR UPDATE`` / upserts) make concurrent workers agree on streaks.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any, Protocol

import psycopg

from ..clock import to_micros
from ..health.state import COUNTERS, StreakUpdate, next_streak

Conn = psycopg.Connection[tuple[Any, ...]]
_LAST_CLEANUP = "last_cleanup_at_us"

_STATE_SQL = (
    "CASE WHEN u.invalidated_at IS NOT NULL AND u.invalidated_at <= %(now)s THEN 'invalidated'"
    " WHEN u.expires_at <= %(now)s OR (u.valid_until IS NOT NULL AND u.valid_until <= %(now)s)"
    " THEN 'expired'"
    " WHEN u.created_at > %(now)s OR (u.valid_at IS NOT NULL AND u.valid_at > %(now)s)"
    " THEN 'pending' ELSE 'valid' END"
)


class _PooledStore(Protocol):
    def connection(self) -> AbstractContextManager[Conn]: ...


class PgHealthState:
    """Health state in the PostgreSQL database itself."""

    def __init__(self, store: _PooledStore) -> None:
        self._store = store

    @contextmanager
    def _tx(self) -> Iterator[Conn]:
        with self._store.connection() as conn, conn.transaction():
            yield conn

    def _read(self, query: str, params: Any = None) -> list[tuple[Any, ...]]:
        with self._store.connection() as conn:
            return conn.execute(query, params).fetchall()

    def note_recall(self, user_id: str, session_id: str, empty: bool, at: datetime) -> None:
        rows = self._read("SELECT last_recall_empty FROM health_sessions"
                          " WHERE user_id = %s AND session_id = %s", (user_id, session_id))
        if not empty and (not rows or rows[0][0] == 0):
            return  # nothing to change: the common case costs one read
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO health_sessions (user_id, session_id, last_recall_empty, updated_at)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (user_id, session_id) DO UPDATE SET"
                " last_recall_empty = excluded.last_recall_empty,"
                " updated_at = excluded.updated_at",
                (user_id, session_id, 1 if empty else 0, to_micros(at)))

    def last_recall_empty(self, user_id: str, session_id: str) -> bool:
        rows = self._read("SELECT last_recall_empty FROM health_sessions"
                          " WHERE user_id = %s AND session_id = %s", (user_id, session_id))
        return bool(rows and rows[0][0])

    def record_reply(self, user_id: str, session_id: str, forgetful: bool, threshold: int,
                     at: datetime) -> StreakUpdate:
        with self._tx() as conn:
            # Create the row first so that FOR UPDATE has something to lock between workers.
            if forgetful:
                conn.execute("INSERT INTO health_sessions (user_id, session_id, updated_at)"
                             " VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                             (user_id, session_id, to_micros(at)))
            row = conn.execute(
                "SELECT streak, alerting FROM health_sessions WHERE user_id = %s"
                " AND session_id = %s FOR UPDATE", (user_id, session_id)).fetchone()
            prev_streak, prev_alerting = (int(row[0]), bool(row[1])) if row else (0, False)
            update = next_streak(prev_streak, prev_alerting, forgetful, threshold)
            if row is None:
                return update
            conn.execute(
                "UPDATE health_sessions SET streak = %(streak)s, alerting = %(alerting)s,"
                " updated_at = %(at)s, alert_since = CASE WHEN %(alerting)s = 0 THEN NULL"
                " ELSE COALESCE(alert_since, %(since)s) END"
                " WHERE user_id = %(u)s AND session_id = %(s)s",
                {"u": user_id, "s": session_id, "streak": update.streak,
                 "alerting": 1 if update.alerting else 0,
                 "since": to_micros(at) if update.alerting else None, "at": to_micros(at)})
            if update.raised:
                self._bump(conn, "amnesia_alerts", 1)
        return update

    def alerting_sessions(self, session_id: str | None, limit: int) -> tuple[list[str], int]:
        where, params = "alerting = 1", []
        if session_id is not None:
            where += " AND session_id = %s"
            params.append(session_id)
        count = int(self._read(f"SELECT COUNT(*) FROM health_sessions WHERE {where}",
                               params)[0][0])
        rows = self._read(f"SELECT DISTINCT session_id FROM health_sessions WHERE {where}"
                          " ORDER BY session_id LIMIT %s", [*params, limit])
        return [r[0] for r in rows], count

    def counters(self) -> dict[str, int]:
        found = {r[0]: r[1] for r in self._read("SELECT name, value FROM health_counters")}
        return {name: int(found.get(name, 0)) for name in COUNTERS}

    @staticmethod
    def _bump(conn: Conn, name: str, by: int) -> None:
        conn.execute(
            "INSERT INTO health_counters (name, value) VALUES (%s, %s) ON CONFLICT (name)"
            " DO UPDATE SET value = health_counters.value + excluded.value", (name, by))

    def bump(self, name: str, by: int = 1) -> None:
        with self._tx() as conn:
            self._bump(conn, name, by)

    def claim_cleanup(self, at: datetime, interval_seconds: float) -> bool:
        now = to_micros(at)
        with self._tx() as conn:
            conn.execute("INSERT INTO health_counters (name, value) VALUES (%s, 0)"
                         " ON CONFLICT DO NOTHING", (_LAST_CLEANUP,))
            row = conn.execute("SELECT value FROM health_counters WHERE name = %s FOR UPDATE",
                               (_LAST_CLEANUP,)).fetchone()
            if row is not None and int(row[0]) and \
                    now - int(row[0]) < interval_seconds * 1_000_000:
                return False
            conn.execute("UPDATE health_counters SET value = %s WHERE name = %s",
                         (now, _LAST_CLEANUP))
            return True

    def unit_counts(self, at: datetime) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for unit_type, state, n in self._read(
            f"SELECT u.type, {_STATE_SQL} AS state, COUNT(*) FROM units u GROUP BY 1, 2",
            {"now": to_micros(at)},
        ):
            out.setdefault(unit_type, {})[state] = int(n)
        return out
