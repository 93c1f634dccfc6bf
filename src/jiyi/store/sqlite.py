"""The embedded default: one SQLite file, WAL, FTS5 over segmented text, vectors as BLOBs (S12)."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..clock import from_micros, to_micros, utc_now
from ..errors import StoreError
from ..text import tokens
from ..units import Entity, Lifespan, MemoryType, MemoryUnit
from .base import (
    IngestBatch,
    RecallLogEntry,
    Scope,
    StoreStats,
    TurnRecord,
    UnitEvent,
    Vector,
)
from .export import shape_export
from .fts_rank import bm25_rank
from .sqlite_migrations import (
    OWNER_FUNCTION,
    apply_migrations,
    owner_token,
    register_functions,
)

BUSY_TIMEOUT_MS = 30_000

#: A unit is current at :as_of when known, unexpired, inside its world validity and not retired.
#: The same rule as :func:`jiyi.units.is_valid_at`; a contract test keeps them equal.
VALID_AT_SQL = (
    "u.created_at <= :as_of AND u.expires_at > :as_of"
    " AND (u.valid_at IS NULL OR u.valid_at <= :as_of)"
    " AND (u.valid_until IS NULL OR u.valid_until > :as_of)"
    " AND (u.invalidated_at IS NULL OR u.invalidated_at > :as_of)"
)

_UNIT_COLUMNS = (
    "u.id, u.user_id, u.session_id, u.type, u.content, u.content_hash, u.slot, u.topic,"
    " u.created_at, u.expires_in, u.relevance_score, u.valid_at, u.valid_until,"
    " u.invalidated_at, u.invalidation_reason, u.supersedes, u.superseded_by,"
    " u.source_turn_ids, u.entities"
)


def _opt_micros(value: datetime | None) -> int | None:
    return None if value is None else to_micros(value)


def _opt_time(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def scope_sql(scope: Scope, params: dict[str, Any]) -> str:
    """WHERE fragment for a scope; fills ``params``. Never formats user values into SQL."""
    params["scope_user"] = scope.user_id
    if scope.session_id is None:
        return "u.user_id = :scope_user"
    params["scope_session"] = scope.session_id
    names = []
    for i, t in enumerate(sorted(scope.user_level_types, key=lambda x: x.value)):
        params[f"ult{i}"] = t.value
        names.append(f":ult{i}")
    if not names:
        return "u.user_id = :scope_user AND u.session_id = :scope_session"
    return (
        "u.user_id = :scope_user AND (u.session_id = :scope_session"
        f" OR u.type IN ({', '.join(names)}))"
    )


def _types_sql(types: Sequence[MemoryType] | None, params: dict[str, Any]) -> str:
    """`` AND u.type IN (...)`` for a type filter (empty string for None); fills ``params``."""
    if types is None:
        return ""
    names = []
    for i, value in enumerate(sorted({MemoryType(t).value for t in types})):
        params[f"vt{i}"] = value
        names.append(f":vt{i}")
    return f" AND u.type IN ({', '.join(names)})"


def fts_query(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression that ORs quoted terms: user text can never become FTS syntax."""
    quoted = []
    for term in terms:
        clean = term.replace('"', " ").strip()
        if clean:
            quoted.append('"' + clean + '"')
    return " OR ".join(quoted) if quoted else None


def fts_body(content: str, source_text: str) -> str:
    """What the keyword index holds for a unit: segmented content and segmented source turn."""
    return segmented(content) + " \n " + segmented(source_text)


@lru_cache(maxsize=64)
def segmented(text: str) -> str:
    """Space-joined search tokens. Cached: every unit of a turn indexes the same source text."""
    return " ".join(tokens(text))


class SQLiteStore:
    """SQLite backend. One connection guarded by a lock; writes are ``BEGIN IMMEDIATE``
    transactions; other processes coordinate through WAL and ``busy_timeout``."""

    backend = "sqlite"

    def __init__(self, path: str, *, synchronous: str = "NORMAL") -> None:
        self.location = path
        self._lock = threading.RLock()
        if path != ":memory:":
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(
                path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                check_same_thread=False,
            )
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if path != ":memory:":
                self._conn.execute("PRAGMA journal_mode = WAL")
            if synchronous.upper() not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
                raise StoreError(f"unknown synchronous setting {synchronous!r}")
            self._conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA temp_store = MEMORY")
            register_functions(self._conn)  # before migrations: m004 computes owner tokens
            self.applied_migrations = apply_migrations(self._conn)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open SQLite store {path!r}: {exc}") from exc
        self._closed = False

    # ------------------------------------------------------------------ plumbing
    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection (for backups and tests). Hold :meth:`locked` while using it."""
        return self._conn

    @contextmanager
    def locked(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._conn

    @contextmanager
    def placement_lock(self, user_id: str) -> Iterator[None]:
        """Hold the database's write lock while an ingest decides (repeat? supersede? new?) and
        commits, so no other thread or process writes in between: the content-hash and slot
        checks and the write they lead to are one step. Writes inside join this transaction."""
        with self._lock:
            if self._closed:
                raise StoreError("the store is closed")
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(f"could not start a write: {exc}") from exc
            try:
                yield
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            if self._conn.in_transaction:
                self._conn.execute("COMMIT")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._closed:
                raise StoreError("the store is closed")
            if self._conn.in_transaction:  # inside placement_lock: join its transaction
                try:
                    yield self._conn
                except sqlite3.Error as exc:
                    raise StoreError(f"write failed and was rolled back: {exc}") from exc
                return
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(f"could not start a write: {exc}") from exc
            try:
                yield self._conn
            except sqlite3.Error as exc:
                self._conn.execute("ROLLBACK")
                raise StoreError(f"write failed and was rolled back: {exc}") from exc
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")

    def _read(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        with self._lock:
            if self._closed:
                raise StoreError("the store is closed")
            cur = self._conn.execute(sql, params)
            return list(cur.fetchall())

    # ------------------------------------------------------------------ rows
    @staticmethod
    def _unit_from_row(row: Sequence[Any]) -> MemoryUnit:
        return MemoryUnit(
            id=row[0], user_id=row[1], session_id=row[2], type=MemoryType(row[3]),
            content=row[4], content_hash=row[5], slot=row[6], topic=row[7],
            lifespan=Lifespan(
                created_at=from_micros(row[8]), expires_in=row[9], relevance_score=row[10]
            ),
            valid_at=_opt_time(row[11]), valid_until=_opt_time(row[12]),
            invalidated_at=_opt_time(row[13]), invalidation_reason=row[14],
            supersedes=row[15], superseded_by=row[16],
            source_turn_ids=json.loads(row[17]),
            entities=[Entity(**e) for e in json.loads(row[18])],
        )

    @staticmethod
    def _unit_params(unit: MemoryUnit, now: int) -> dict[str, Any]:
        return {
            "id": unit.id, "user_id": unit.user_id, "session_id": unit.session_id,
            "type": unit.type.value, "content": unit.content, "content_hash": unit.content_hash,
            "slot": unit.slot, "topic": unit.topic,
            "created_at": to_micros(unit.created_at), "expires_in": unit.lifespan.expires_in,
            "expires_at": to_micros(unit.expires_at),
            "relevance_score": unit.relevance_score,
            "valid_at": _opt_micros(unit.valid_at), "valid_until": _opt_micros(unit.valid_until),
            "invalidated_at": _opt_micros(unit.invalidated_at),
            "invalidation_reason": unit.invalidation_reason,
            "supersedes": unit.supersedes, "superseded_by": unit.superseded_by,
            "source_turn_ids": json.dumps(unit.source_turn_ids, ensure_ascii=False),
            "entities": json.dumps([e.model_dump() for e in unit.entities], ensure_ascii=False),
            "updated_at": now,
        }

    # ------------------------------------------------------------------ writes
    def commit_ingest(self, batch: IngestBatch) -> None:
        now = to_micros(utc_now())
        turn = batch.turn
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO turns (key, turn_id, session_id, user_id, role, speaker, text, at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (turn.key, turn.turn_id, turn.session_id, turn.user_id, turn.role, turn.speaker,
                 turn.text, to_micros(turn.at)),
            )
            for unit in batch.upserts:
                self._upsert_unit(conn, unit, now, turn)
            for embedder, vectors in batch.vectors_by_embedder().items():
                for unit_id, vec in vectors.items():
                    self._put_vector(conn, unit_id, embedder, vec)
            for unit_id, at, reason, by in batch.invalidations:
                self._invalidate(conn, unit_id, at, reason, by)
            self._events(conn, batch.events)

    def _upsert_unit(
        self, conn: sqlite3.Connection, unit: MemoryUnit, now: int, turn: TurnRecord
    ) -> None:
        existed = conn.execute("SELECT 1 FROM units WHERE id = ?", (unit.id,)).fetchone() is not None
        params = self._unit_params(unit, now)
        cols = list(params)
        updates = ", ".join(f"{c} = excluded.{c}" for c in cols if c not in ("id", "created_at"))
        conn.execute(
            f"INSERT INTO units ({', '.join(cols)}) VALUES ({', '.join(':' + c for c in cols)})"
            f" ON CONFLICT (id) DO UPDATE SET {updates}",
            params,
        )
        conn.execute(
            "INSERT OR IGNORE INTO unit_turns (unit_id, turn_key) VALUES (?, ?)", (unit.id, turn.key)
        )
        conn.execute("DELETE FROM unit_entities WHERE unit_id = ?", (unit.id,))
        conn.executemany(
            "INSERT INTO unit_entities (unit_id, user_id, kind, value) VALUES (?, ?, ?, ?)",
            [(unit.id, unit.user_id, e.kind, e.value) for e in unit.entities],
        )
        if existed:
            sources = [
                row[0]
                for row in conn.execute(
                    "SELECT t.text FROM unit_turns ut JOIN turns t ON t.key = ut.turn_key"
                    " WHERE ut.unit_id = ? ORDER BY t.at LIMIT 8",
                    (unit.id,),
                )
            ]
            self._delete_fts(conn, [unit.id])
        else:
            sources = [turn.text]
        cur = conn.execute(
            "INSERT INTO units_fts (unit_id, owner, body) VALUES (?, ?, ?)",
            (unit.id, owner_token(unit.user_id), fts_body(unit.content, " ".join(sources))),
        )
        conn.execute(
            "INSERT OR REPLACE INTO unit_fts_rows (unit_id, fts_rowid) VALUES (?, ?)",
            (unit.id, cur.lastrowid),
        )

    @staticmethod
    def _delete_fts(conn: sqlite3.Connection, ids: Sequence[str]) -> None:
        """Delete the keyword rows of ``ids`` by FTS rowid (an FTS5 ``unit_id`` match would scan
        the whole index); units copied in without a map entry fall back to the scan."""
        marks = ", ".join("?" * len(ids))
        mapped = conn.execute(
            f"SELECT unit_id, fts_rowid FROM unit_fts_rows WHERE unit_id IN ({marks})", list(ids)
        ).fetchall()
        conn.executemany("DELETE FROM units_fts WHERE rowid = ?", [(r[1],) for r in mapped])
        unmapped = sorted(set(ids) - {r[0] for r in mapped})
        if unmapped:
            conn.execute(
                f"DELETE FROM units_fts WHERE unit_id IN ({', '.join('?' * len(unmapped))})",
                unmapped,
            )
        conn.execute(f"DELETE FROM unit_fts_rows WHERE unit_id IN ({marks})", list(ids))

    @staticmethod
    def _put_vector(conn: sqlite3.Connection, unit_id: str, embedder: str, vec: Vector) -> None:
        arr = np.asarray(vec, dtype=np.float32).reshape(-1)
        conn.execute(
            "INSERT INTO unit_vectors (unit_id, embedder, dim, vec) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (unit_id, embedder) DO UPDATE SET dim = excluded.dim, vec = excluded.vec",
            (unit_id, embedder, int(arr.shape[0]), arr.tobytes()),
        )

    @staticmethod
    def _invalidate(
        conn: sqlite3.Connection, unit_id: str, at: datetime, reason: str, by: str | None
    ) -> None:
        conn.execute(
            "UPDATE units SET invalidated_at = COALESCE(invalidated_at, :at),"
            " invalidation_reason = COALESCE(invalidation_reason, :reason),"
            " superseded_by = COALESCE(:by, superseded_by),"
            " valid_until = CASE WHEN valid_until IS NULL OR valid_until > :at THEN :at"
            " ELSE valid_until END, updated_at = :now WHERE id = :id",
            {"at": to_micros(at), "reason": reason, "by": by, "id": unit_id,
             "now": to_micros(utc_now())},
        )

    @staticmethod
    def _events(conn: sqlite3.Connection, events: Sequence[UnitEvent]) -> None:
        conn.executemany(
            "INSERT INTO unit_events (unit_id, at, event, detail, score_after) VALUES (?, ?, ?, ?, ?)",
            [(e.unit_id, to_micros(e.at), e.event, e.detail, e.score_after) for e in events],
        )

    def set_relevance(self, unit_id: str, score: float, event: UnitEvent) -> None:
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE units SET relevance_score = ?, updated_at = ? WHERE id = ?",
                (score, to_micros(utc_now()), unit_id),
            )
            if cur.rowcount == 0:
                from ..errors import NotFoundError

                raise NotFoundError(f"no unit {unit_id!r}")
            self._events(conn, [event])

    def invalidate(
        self, unit_id: str, at: datetime, reason: str, superseded_by: str | None = None
    ) -> None:
        with self._write() as conn:
            self._invalidate(conn, unit_id, at, reason, superseded_by)
            self._events(conn, [UnitEvent(unit_id, at, "invalidated", reason)])

    def put_vectors(self, embedder: str, vectors: dict[str, Vector]) -> None:
        with self._write() as conn:
            for unit_id, vec in vectors.items():
                self._put_vector(conn, unit_id, embedder, vec)

    def log_recall(self, entries: Sequence[RecallLogEntry]) -> None:
        if not entries:
            return
        with self._write() as conn:
            conn.executemany(
                "INSERT INTO recall_log (recall_id, at, session_id, user_id, unit_id, stage, rank)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(e.recall_id, to_micros(e.at), e.session_id, e.user_id, e.unit_id, e.stage, e.rank)
                 for e in entries],
            )

    def mark_recall_used(self, unit_id: str, used: bool) -> None:
        """Mark the latest unjudged recall of ``unit_id`` as used (or not)."""
        with self._write() as conn:
            conn.execute(
                "UPDATE recall_log SET used = ? WHERE id = (SELECT id FROM recall_log"
                " WHERE unit_id = ? AND used IS NULL ORDER BY at DESC, id DESC LIMIT 1)",
                (1 if used else 0, unit_id),
            )

    def purge_expired(self, older_than: datetime) -> int:
        """Hard-delete units that expired or were invalidated before ``older_than``."""
        cutoff = to_micros(older_than)
        with self._write() as conn:
            ids = [
                r[0]
                for r in conn.execute(
                    "SELECT id FROM units WHERE expires_at < :c OR invalidated_at < :c"
                    " OR valid_until < :c",
                    {"c": cutoff},
                )
            ]
            self._delete_units(conn, ids)
        return len(ids)

    @staticmethod
    def _delete_units(conn: sqlite3.Connection, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            marks = ", ".join("?" * len(chunk))
            SQLiteStore._delete_fts(conn, chunk)
            for table, col in (
                ("unit_vectors", "unit_id"),
                ("unit_entities", "unit_id"), ("unit_turns", "unit_id"),
                ("unit_events", "unit_id"), ("recall_log", "unit_id"), ("units", "id"),
            ):
                conn.execute(f"DELETE FROM {table} WHERE {col} IN ({marks})", chunk)

    def erase_user(self, user_id: str) -> int:
        """Hard-delete everything held about ``user_id`` and leave no copy in the file (issue 9).

        Every row of the user in every table with a ``user_id`` column and every row of their
        units in every table with a ``unit_id`` column (so tables added by later migrations are
        covered too), their turns' provenance rows, then: the FTS5 index merged (``optimize``) so
        no old segment keeps a token, freed pages zeroed (``secure_delete``) and the WAL
        checkpointed and truncated. Returns the number of units deleted."""
        with self._lock:
            previous = int(self._conn.execute("PRAGMA secure_delete").fetchone()[0])
            self._conn.execute("PRAGMA secure_delete = ON")
            try:
                with self._write() as conn:
                    ids = [r[0] for r in conn.execute(
                        "SELECT id FROM units WHERE user_id = ?", (user_id,))]
                    self._delete_units(conn, ids)
                    user_tables, unit_tables = self._tables_by_owner_column(conn)
                    for start in range(0, len(ids), 500):
                        chunk = ids[start:start + 500]
                        marks = ", ".join("?" * len(chunk))
                        for table in unit_tables:
                            conn.execute(f'DELETE FROM "{table}" WHERE unit_id IN ({marks})', chunk)
                    conn.execute("DELETE FROM unit_turns WHERE turn_key IN"
                                 " (SELECT key FROM turns WHERE user_id = ?)", (user_id,))
                    for table in user_tables:
                        conn.execute(f'DELETE FROM "{table}" WHERE user_id = ?', (user_id,))
                    conn.execute("INSERT INTO units_fts (units_fts) VALUES ('optimize')")
                if self.location != ":memory:":
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            finally:
                self._conn.execute(f"PRAGMA secure_delete = {previous}")
        return len(ids)

    @staticmethod
    def _tables_by_owner_column(conn: sqlite3.Connection) -> tuple[list[str], list[str]]:
        """Ordinary tables (not FTS shadow tables) with a ``user_id`` / ``unit_id`` column."""
        rows = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite_%'").fetchall()
        virtual = [name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL")]
        user_tables: list[str] = []
        unit_tables: list[str] = []
        for name, _sql in rows:
            if name in virtual or any(name.startswith(v + "_") for v in virtual):
                continue
            columns = {r[1] for r in conn.execute(f'PRAGMA table_info("{name}")')}
            if "user_id" in columns:
                user_tables.append(name)
            if "unit_id" in columns:
                unit_tables.append(name)
        return user_tables, unit_tables

    def bulk_insert(
        self, tables: Mapping[str, tuple[Sequence[str], Iterable[Sequence[Any]]]]
    ) -> int:
        """Insert raw rows into several tables in ONE transaction, all or nothing (for copies
        between backends, ``jiyi migrate``). Rows use the schema's own representation
        (microsecond instants, JSON text); a ``unit_vectors.vec`` may be a float32 array.
        ``units_fts`` goes in last: its rows without an ``owner`` get their unit's, and the FTS
        rowid map is rebuilt. Unknown tables or columns raise :class:`StoreError`, nothing
        written. Returns the number of rows inserted."""
        total = 0
        with self._write() as conn:
            for table, (columns, rows) in sorted(tables.items(), key=lambda t: t[0] == "units_fts"):
                query = self._bulk_insert_sql(conn, table, columns)
                vec = list(columns).index("vec") if table == "unit_vectors" else -1
                batch: list[Sequence[Any]] = []
                for row in rows:
                    if vec >= 0 and not isinstance(row[vec], bytes):
                        blob = np.asarray(row[vec], np.float32).tobytes()
                        row = (*row[:vec], blob, *row[vec + 1:])
                    batch.append(row)
                    if len(batch) >= 5000:
                        conn.executemany(query, batch)
                        total, batch = total + len(batch), []
                if batch:
                    conn.executemany(query, batch)
                    total += len(batch)
            conn.execute("INSERT OR REPLACE INTO unit_fts_rows (unit_id, fts_rowid)"
                         " SELECT unit_id, rowid FROM units_fts")
        return total

    @staticmethod
    def _bulk_insert_sql(conn: sqlite3.Connection, table: str, columns: Sequence[str]) -> str:
        have = [r[0] for r in conn.execute("SELECT name FROM pragma_table_info(?)", (table,))]
        if not have:
            raise StoreError(f"no table {table!r} in this store")
        unknown = [c for c in columns if c not in have]
        if unknown or not columns:
            raise StoreError(f"table {table!r} has no column(s) {unknown}; it has {have}")
        names, marks = list(columns), [f"?{i + 1}" for i in range(len(columns))]
        if table == "units_fts" and "owner" not in names and "unit_id" in names:
            names.append("owner")
            marks.append(f"(SELECT {OWNER_FUNCTION}(user_id) FROM units"
                         f" WHERE id = ?{names.index('unit_id') + 1})")
        return f'INSERT INTO "{table}" ({", ".join(names)}) VALUES ({", ".join(marks)})'

    # ------------------------------------------------------------------ reads
    def get_units(self, ids: Sequence[str]) -> list[MemoryUnit]:
        if not ids:
            return []
        found: dict[str, MemoryUnit] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            rows = self._read(
                f"SELECT {_UNIT_COLUMNS} FROM units u WHERE u.id IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            for row in rows:
                found[row[0]] = self._unit_from_row(row)
        return [found[i] for i in ids if i in found]

    def get_turns(self, keys: Sequence[str]) -> list[TurnRecord]:
        if not keys:
            return []
        rows = self._read(
            "SELECT key, turn_id, session_id, user_id, role, text, at, speaker FROM turns"
            f" WHERE key IN ({', '.join('?' * len(keys))}) ORDER BY at",
            list(keys),
        )
        return [self._turn(r) for r in rows]

    @staticmethod
    def _turn(r: Sequence[Any]) -> TurnRecord:
        return TurnRecord(key=r[0], turn_id=r[1], session_id=r[2], user_id=r[3], role=r[4],
                          text=r[5], at=from_micros(r[6]), speaker=r[7])

    def unit_turn_keys(self, unit_id: str) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT turn_key FROM unit_turns WHERE unit_id = ?", (unit_id,))]

    def unit_events(self, unit_id: str) -> list[UnitEvent]:
        rows = self._read(
            "SELECT unit_id, at, event, detail, score_after FROM unit_events WHERE unit_id = ?"
            " ORDER BY at, id", (unit_id,))
        return [UnitEvent(r[0], from_micros(r[1]), r[2], r[3], r[4]) for r in rows]

    def recent_turns(self, scope: Scope, limit: int) -> list[TurnRecord]:
        params: dict[str, Any] = {"user": scope.user_id, "limit": limit}
        where = "user_id = :user"
        if scope.session_id is not None:
            where += " AND session_id = :session"
            params["session"] = scope.session_id
        rows = self._read(
            "SELECT key, turn_id, session_id, user_id, role, text, at, speaker FROM turns"
            f" WHERE {where} ORDER BY at DESC, rowid DESC LIMIT :limit", params)
        return [self._turn(r) for r in reversed(rows)]

    def find_units(
        self,
        scope: Scope,
        *,
        as_of: datetime | None,
        types: Sequence[MemoryType] | None = None,
        slot: str | None = None,
        content_hash: str | None = None,
        since: datetime | None = None,
        limit: int = 1000,
    ) -> list[MemoryUnit]:
        params: dict[str, Any] = {"limit": limit}
        where = [scope_sql(scope, params)]
        if as_of is not None:
            params["as_of"] = to_micros(as_of)
            where.append(VALID_AT_SQL)
        if types:
            names = []
            for i, t in enumerate(types):
                params[f"t{i}"] = MemoryType(t).value
                names.append(f":t{i}")
            where.append(f"u.type IN ({', '.join(names)})")
        if slot is not None:
            params["slot"] = slot
            where.append("u.slot = :slot")
        if content_hash is not None:
            params["hash"] = content_hash
            where.append("u.content_hash = :hash")
        if since is not None:
            params["since"] = to_micros(since)
            where.append("u.created_at >= :since")
        rows = self._read(
            f"SELECT {_UNIT_COLUMNS} FROM units u WHERE {' AND '.join(where)}"
            " ORDER BY u.created_at DESC, u.id LIMIT :limit", params)
        return [self._unit_from_row(r) for r in rows]

    def entity_search(
        self, scope: Scope, as_of: datetime, entities: Sequence[Entity], limit: int
    ) -> list[tuple[str, float]]:
        values = sorted({e.value for e in entities if e.value})
        if not values:
            return []
        params: dict[str, Any] = {"as_of": to_micros(as_of), "limit": limit}
        marks = []
        for i, v in enumerate(values):
            params[f"v{i}"] = v
            marks.append(f":v{i}")
        sql = (
            "SELECT e.unit_id, COUNT(DISTINCT e.value) AS n FROM unit_entities e"
            " JOIN units u ON u.id = e.unit_id"
            f" WHERE e.user_id = :scope_user AND e.value IN ({', '.join(marks)})"
            f" AND {scope_sql(scope, params)} AND {VALID_AT_SQL}"
            " GROUP BY e.unit_id ORDER BY n DESC, MAX(u.created_at) DESC LIMIT :limit"
        )
        return [(r[0], float(r[1])) for r in self._read(sql, params)]

    def _window_sql(
        self, params: dict[str, Any], since: datetime | None, until: datetime | None
    ) -> str:
        parts = []
        if since is not None:
            params["w_since"] = to_micros(since)
            parts.append("COALESCE(u.valid_at, u.created_at) >= :w_since")
        if until is not None:
            params["w_until"] = to_micros(until)
            parts.append("COALESCE(u.valid_at, u.created_at) < :w_until")
        return "".join(" AND " + p for p in parts)

    def keyword_search(
        self, scope: Scope, as_of: datetime, terms: Sequence[str], limit: int,
        since: datetime | None = None, until: datetime | None = None,
    ) -> list[tuple[str, float]]:
        body = fts_query(terms)
        if body is None:
            return []
        # The owner filter makes FTS5 walk only this user's postings (not the whole index);
        # scope_sql below still decides who may see a row. Ranked by BM25 on the body with the
        # user's statistics (fts_rank): FTS5's bm25() would scan every matching doclist in full.
        owner = f'owner:"{owner_token(scope.user_id)}"'
        params: dict[str, Any] = {"match": f"{owner} AND body:({body})",
                                  "as_of": to_micros(as_of)}
        sql = (
            "SELECT f.unit_id, f.body FROM units_fts f JOIN units u ON u.id = f.unit_id"
            f" WHERE units_fts MATCH :match AND {scope_sql(scope, params)} AND {VALID_AT_SQL}"
            f"{self._window_sql(params, since, until)}"
        )
        try:
            rows = self._read(sql, params)
            if not rows:
                return []
            n_docs = self._read("SELECT COUNT(*) FROM units_fts WHERE units_fts MATCH ?",
                                (owner,))[0][0]
        except sqlite3.OperationalError as exc:  # a malformed MATCH can only come from a bug
            raise StoreError(f"keyword search failed: {exc}") from exc
        return bm25_rank([(r[0], r[1]) for r in rows], terms, int(n_docs))[:limit]

    def vector_search(
        self, scope: Scope, as_of: datetime, embedder: str, query: Vector, limit: int,
        since: datetime | None = None, until: datetime | None = None,
        types: Sequence[MemoryType] | None = None,
    ) -> list[tuple[str, float]]:
        if types is not None and not types:
            return []
        params: dict[str, Any] = {"emb": embedder, "as_of": to_micros(as_of)}
        rows = self._read(
            "SELECT v.unit_id, v.vec FROM unit_vectors v JOIN units u ON u.id = v.unit_id"
            f" WHERE v.embedder = :emb AND {scope_sql(scope, params)} AND {VALID_AT_SQL}"
            f"{self._window_sql(params, since, until)}{_types_sql(types, params)}",
            params,
        )
        if not rows:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        if mat.size != len(rows) * q.shape[0]:
            raise StoreError(
                f"vectors of embedder {embedder!r} do not all have dimension {q.shape[0]}"
            )
        sims = mat.reshape(len(rows), q.shape[0]) @ q
        top = np.argsort(-sims)[:limit]
        return [(rows[i][0], float(sims[i])) for i in top]

    # -- added for the read path (issue 4)
    def entity_kind_search(
        self, scope: Scope, as_of: datetime, kinds: Sequence[str], limit: int
    ) -> list[tuple[str, float]]:
        wanted = sorted({k for k in kinds if k})
        if not wanted:
            return []
        params: dict[str, Any] = {"as_of": to_micros(as_of), "limit": limit}
        marks = []
        for i, kind in enumerate(wanted):
            params[f"k{i}"] = kind
            marks.append(f":k{i}")
        sql = (
            "SELECT e.unit_id FROM unit_entities e JOIN units u ON u.id = e.unit_id"
            f" WHERE e.user_id = :scope_user AND e.kind IN ({', '.join(marks)})"
            f" AND {scope_sql(scope, params)} AND {VALID_AT_SQL}"
            " GROUP BY e.unit_id ORDER BY MAX(u.created_at) DESC LIMIT :limit"
        )
        return [(r[0], 1.0) for r in self._read(sql, params)]

    def source_turns(self, unit_ids: Sequence[str]) -> dict[str, list[TurnRecord]]:
        out: dict[str, list[TurnRecord]] = {}
        ids = list(dict.fromkeys(unit_ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows = self._read(
                "SELECT ut.unit_id, t.key, t.turn_id, t.session_id, t.user_id, t.role, t.text,"
                " t.at, t.speaker FROM unit_turns ut JOIN turns t ON t.key = ut.turn_key"
                f" WHERE ut.unit_id IN ({', '.join('?' * len(chunk))}) ORDER BY t.at, t.rowid",
                chunk,
            )
            for r in rows:
                out.setdefault(r[0], []).append(self._turn(r[1:]))
        return out

    def count_units_missing_vectors(
        self, embedder: str, types: Sequence[MemoryType] | None = None
    ) -> int:
        if types is not None and not types:
            return 0
        params: dict[str, Any] = {"emb": embedder}
        row = self._read(
            "SELECT COUNT(*) FROM units u WHERE NOT EXISTS (SELECT 1 FROM unit_vectors v"
            f" WHERE v.unit_id = u.id AND v.embedder = :emb){_types_sql(types, params)}", params)
        return int(row[0][0])

    def units_missing_vectors(
        self, embedder: str, limit: int, types: Sequence[MemoryType] | None = None
    ) -> list[MemoryUnit]:
        if types is not None and not types:
            return []
        params: dict[str, Any] = {"emb": embedder, "limit": limit}
        rows = self._read(
            f"SELECT {_UNIT_COLUMNS} FROM units u WHERE NOT EXISTS (SELECT 1 FROM unit_vectors v"
            f" WHERE v.unit_id = u.id AND v.embedder = :emb){_types_sql(types, params)}"
            " LIMIT :limit", params)
        return [self._unit_from_row(r) for r in rows]

    def stats(self, user_id: str | None = None, as_of: datetime | None = None) -> StoreStats:
        t = to_micros(as_of or utc_now())
        params: dict[str, Any] = {"as_of": t}
        where = "1 = 1"
        if user_id is not None:
            params["user"] = user_id
            where = "u.user_id = :user"
        row = self._read(
            f"SELECT COUNT(*), COALESCE(SUM(CASE WHEN {VALID_AT_SQL} THEN 1 ELSE 0 END), 0),"
            " COALESCE(SUM(CASE WHEN u.expires_at <= :as_of THEN 1 ELSE 0 END), 0),"
            " COALESCE(SUM(CASE WHEN u.invalidated_at IS NOT NULL THEN 1 ELSE 0 END), 0),"
            " COUNT(DISTINCT u.user_id), COUNT(DISTINCT u.session_id)"
            f" FROM units u WHERE {where}", params)[0]
        by_type = {
            r[0]: int(r[1])
            for r in self._read(f"SELECT u.type, COUNT(*) FROM units u WHERE {where} GROUP BY u.type",
                                params)
        }
        turn_where = "user_id = :user" if user_id is not None else "1 = 1"
        turns = self._read(f"SELECT COUNT(*) FROM turns WHERE {turn_where}", params)[0][0]
        size = 0
        if self.location != ":memory:":
            for suffix in ("", "-wal"):
                p = self.location + suffix
                if os.path.exists(p):
                    size += os.path.getsize(p)
        return StoreStats(
            units_total=int(row[0]), units_valid=int(row[1]), units_expired=int(row[2]),
            units_invalidated=int(row[3]), by_type=by_type, turns=int(turns),
            users=int(row[4]), sessions=int(row[5]), size_bytes=size,
        )

    def recall_hit_rate(self, since: datetime | None) -> tuple[int, int]:
        params: dict[str, Any] = {"since": to_micros(since) if since else 0}
        row = self._read(
            "SELECT COALESCE(SUM(CASE WHEN used = 1 THEN 1 ELSE 0 END), 0),"
            " COALESCE(SUM(CASE WHEN used IS NOT NULL THEN 1 ELSE 0 END), 0)"
            " FROM recall_log WHERE at >= :since", params)[0]
        return int(row[0]), int(row[1])

    def users(self) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT user_id FROM units UNION SELECT user_id FROM turns ORDER BY 1")]

    def sessions(self, user_id: str) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT DISTINCT session_id FROM turns WHERE user_id = ? ORDER BY 1", (user_id,))]

    def warm(self, hours: float) -> int:
        """Read the last ``hours`` of valid units (and their vectors) into SQLite's page cache."""
        now = utc_now()
        params = {"since": to_micros(now - timedelta(hours=hours)), "as_of": to_micros(now)}
        rows = self._read(
            f"SELECT {_UNIT_COLUMNS} FROM units u WHERE u.created_at >= :since AND {VALID_AT_SQL}",
            params)
        self._read(
            "SELECT length(v.vec) FROM unit_vectors v JOIN units u ON u.id = v.unit_id"
            f" WHERE u.created_at >= :since AND {VALID_AT_SQL}", params)
        return len(rows)

    def export_user(self, user_id: str) -> dict[str, Any]:
        """One query per table, one consistent snapshot (a read transaction), shaped by
        :func:`jiyi.store.export.shape_export`."""
        with self._lock:
            if self._closed:
                raise StoreError("the store is closed")
            own = not self._conn.in_transaction
            if own:
                self._conn.execute("BEGIN")
            try:
                units = self.find_units(Scope(user_id=user_id, session_id=None), as_of=None,
                                        limit=10**9)
                turns = [self._turn(t) for t in self._read(
                    "SELECT key, turn_id, session_id, user_id, role, text, at, speaker FROM turns"
                    " WHERE user_id = ? ORDER BY at, rowid", (user_id,))]
                provenance = [(r[0], r[1]) for r in self._read(
                    "SELECT t.unit_id, t.turn_key FROM unit_turns t JOIN units u ON u.id = t.unit_id"
                    " WHERE u.user_id = ?", (user_id,))]
                events = [UnitEvent(r[0], from_micros(r[1]), r[2], r[3], r[4]) for r in self._read(
                    "SELECT e.unit_id, e.at, e.event, e.detail, e.score_after FROM unit_events e"
                    " JOIN units u ON u.id = e.unit_id WHERE u.user_id = ? ORDER BY e.at, e.id",
                    (user_id,))]
                recalls = self._read(
                    "SELECT recall_id, at, session_id, unit_id, stage, rank, used FROM recall_log"
                    " WHERE user_id = ? ORDER BY at, id", (user_id,))
            finally:
                if own:
                    self._conn.execute("COMMIT")
        return shape_export(user_id, units, turns, provenance, events, recalls)
