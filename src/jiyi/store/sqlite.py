"""The embedded default: one SQLite file, WAL, FTS5 over segmented text, vectors as BLOBs (S12)."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..clock import to_micros, utc_now
from ..errors import StoreError
from ..units import MemoryUnit
from .base import (
    IngestBatch,
    RecallLogEntry,
    TurnRecord,
    UnitEvent,
    Vector,
    missing_store_message,
)
from .sqlite_caps import SqliteCapabilities
from .sqlite_migrations import (
    NEW_CACHE_EPOCH_SQL,
    OWNER_FUNCTION,
    apply_migrations,
    owner_token,
    register_functions,
)
from .sqlite_queries import SqliteReports
from .sqlite_sql import (  # re-exported: the keyword body and the validity rule are shared
    VALID_AT_SQL,
    fts_body,
    fts_query,
    opt_micros,
    scope_sql,
    segmented,
)
from .sqlite_vector_cache import cache_bytes_from_env
from .vector_cache import TableCache

__all__ = ["VALID_AT_SQL", "SQLiteStore", "fts_body", "fts_query", "scope_sql", "segmented"]

BUSY_TIMEOUT_MS = 30_000


class SQLiteStore(SqliteCapabilities, SqliteReports):
    """SQLite backend. One connection guarded by a lock; writes are ``BEGIN IMMEDIATE``
    transactions; other processes coordinate through WAL and ``busy_timeout``."""

    backend = "sqlite"

    def __init__(self, path: str, *, synchronous: str = "NORMAL", create: bool = True,
                 vector_cache_bytes: int | None = None) -> None:
        """``create=False``: a missing file is a :class:`StoreError` naming it (read commands
        must never leave an empty store behind a typo'd path). ``vector_cache_bytes``: the bound
        of the resident per-user vector tables (:mod:`.sqlite_vector_cache`; default
        ``JIYI_VECTOR_CACHE_MB`` or 512 MB; 0: off, every search reads SQLite)."""
        self.location = path
        limit = cache_bytes_from_env() if vector_cache_bytes is None else vector_cache_bytes
        self.vector_cache = TableCache(limit) if limit > 0 else None
        self._building: dict[tuple[str, str, str], threading.Thread] = {}
        self._lock = threading.RLock()
        if path != ":memory:":
            if not create and not Path(path).is_file():
                raise StoreError(missing_store_message(path))
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

    @staticmethod
    def _unit_params(unit: MemoryUnit, now: int) -> dict[str, Any]:
        return {
            "id": unit.id, "user_id": unit.user_id, "session_id": unit.session_id,
            "type": unit.type.value, "content": unit.content, "content_hash": unit.content_hash,
            "slot": unit.slot, "topic": unit.topic,
            "created_at": to_micros(unit.created_at), "expires_in": unit.lifespan.expires_in,
            "expires_at": to_micros(unit.expires_at),
            "relevance_score": unit.relevance_score,
            "valid_at": opt_micros(unit.valid_at), "valid_until": opt_micros(unit.valid_until),
            "invalidated_at": opt_micros(unit.invalidated_at),
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
                "INSERT OR IGNORE INTO turns"
                " (key, turn_id, session_id, user_id, role, speaker, text, at, seq)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM turns))",
                (turn.key, turn.turn_id, turn.session_id, turn.user_id, turn.role, turn.speaker,
                 turn.text, to_micros(turn.at)),
            )
            if batch.turn_vector is not None:
                self._put_turn_vector(conn, turn, batch.embedder, batch.turn_vector)
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
    def _put_turn_vector(conn: sqlite3.Connection, turn: TurnRecord, embedder: str,
                         vec: Vector) -> None:
        arr = np.asarray(vec, dtype=np.float32).reshape(-1)
        conn.execute(
            "INSERT INTO turn_vectors (turn_key, embedder, user_id, at, dim, vec)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (turn_key, embedder)"
            " DO UPDATE SET dim = excluded.dim, vec = excluded.vec",
            (turn.key, embedder, turn.user_id, to_micros(turn.at), int(arr.shape[0]),
             arr.tobytes()),
        )

    def put_turn_vectors(self, embedder: str, turns: Sequence[TurnRecord],
                         vectors: Sequence[Vector]) -> None:
        with self._write() as conn:
            for turn, vec in zip(turns, vectors, strict=True):
                self._put_turn_vector(conn, turn, embedder, vec)

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
                    conn.execute(NEW_CACHE_EPOCH_SQL)  # every process drops its cached tables
                self._drop_cached_user(user_id)
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
                vec = (list(columns).index("vec")
                       if table in ("unit_vectors", "turn_vectors") else -1)
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
            # turns copied without their order number get it after every stored turn, in the
            # order they were inserted (the copy inserts in the source's order of ingestion)
            base = int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM turns").fetchone()[0])
            conn.execute(
                "UPDATE turns SET seq = r.n + ? FROM (SELECT key, ROW_NUMBER() OVER"
                " (ORDER BY rowid) AS n FROM turns WHERE seq = 0) AS r WHERE turns.key = r.key",
                (base,))
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
