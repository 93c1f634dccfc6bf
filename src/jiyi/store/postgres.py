"""PostgreSQL + pgvector backend: one memory shared by many worker processes and machines.

Same contract as :class:`jiyi.store.sqlite.SQLiteStore` (the contract suite in
``tests/test_store_contract.py`` runs against both). Scope, type and ``as_of`` filters are WHERE
clauses; upserts are ``INSERT ... ON CONFLICT``; every write method is one transaction taken
from a ``psycopg_pool`` connection pool, so a worker's threads share a few connections.

Vector search picks its plan by how many units the user has (:attr:`PostgresStore.exact_scan_max`):
up to that many, an exact scan of the user's vectors (a few milliseconds, and exact); beyond it,
the per-(embedder, dimension) HNSW cosine index with pgvector's iterative scan, so scope and
validity filters still return ``limit`` rows.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg_pool import ConnectionPool, PoolTimeout

from ..clock import from_micros, to_micros, utc_now
from ..errors import NotFoundError, StoreError
from ..units import MemoryType, MemoryUnit
from .base import (
    IngestBatch,
    RecallLogEntry,
    Scope,
    TurnRecord,
    UnitEvent,
    Vector,
    missing_store_message,
)
from .pg_caps import PgCapabilities
from .pg_queries import PgReports, PgSearch
from .pg_sql import (
    TURN_COLUMNS,
    UNIT_COLUMNS,
    UPSERT_UNIT_SQL,
    VALID_AT_SQL,
    scope_sql,
    turn_from_row,
    types_sql,
    unit_from_row,
    unit_params,
)
from .postgres_migrations import apply_migrations, ensure_vector_index
from .sqlite import fts_body

Conn = psycopg.Connection[tuple[Any, ...]]

#: Tables holding a unit's rows, deleted together (``units`` last).
_UNIT_TABLES = (
    ("units_fts", "unit_id"), ("unit_vectors", "unit_id"), ("unit_entities", "unit_id"),
    ("unit_turns", "unit_id"), ("unit_events", "unit_id"), ("recall_log", "unit_id"),
    ("units", "id"),
)


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***`` (what logs and ``stats`` may show)."""
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)


class PostgresStore(PgCapabilities, PgSearch, PgReports):
    """PostgreSQL backend. ``url`` is a libpq URL (``postgresql://user:pw@host/db``)."""

    backend = "postgresql"
    def __init__(self, url: str, *, pool_size: int | None = None, create: bool = True) -> None:
        """``create=False``: a database without jiyi's tables is a :class:`StoreError` (read
        commands never create a store)."""
        self.url = url
        self.location = redact_url(url)
        size = pool_size or int(os.environ.get("JIYI_PG_POOL_SIZE", "8"))
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=15) as conn:
                if not create and conn.execute(
                        "SELECT to_regclass('jiyi_migrations')").fetchone() in (None, (None,)):
                    raise StoreError(missing_store_message(self.location))
                self.applied_migrations = apply_migrations(conn)
        except psycopg.Error as exc:
            raise StoreError(f"cannot open PostgreSQL store {self.location}: {exc}") from exc
        self._pool: ConnectionPool[Conn] = ConnectionPool(
            url, min_size=1, max_size=max(1, size), open=False, configure=register_vector,
            kwargs={"autocommit": True}, name="jiyi",
        )
        try:
            self._pool.open(wait=True, timeout=30)
        except PoolTimeout as exc:
            raise StoreError(f"cannot connect to PostgreSQL store {self.location}") from exc
        self._indexed: set[tuple[str, int]] = set()
        self._placing = threading.local()  # .conn: this thread's placement_lock connection
        self._closed = False

    # ------------------------------------------------------------------ plumbing
    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pool.close()

    @contextmanager
    def connection(self) -> Iterator[Conn]:
        """A pooled autocommit connection (for transfers and tests). Inside
        :meth:`placement_lock` on this thread: the lock's connection, in its transaction."""
        if self._closed:
            raise StoreError("the store is closed")
        joined: Conn | None = getattr(self._placing, "conn", None)
        try:
            if joined is not None:
                yield joined
                return
            with self._pool.connection() as conn:
                yield conn
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL error: {exc}") from exc

    @contextmanager
    def placement_lock(self, user_id: str) -> Iterator[None]:
        """A per-user advisory lock held while an ingest decides and commits, so two workers
        ingesting the same fact for the same user cannot both create it. Other users' ingests
        run in parallel."""
        key = int.from_bytes(hashlib.sha256(f"jiyi-ingest\x1f{user_id}".encode()).digest()[:8],
                             "big", signed=True)
        if getattr(self._placing, "conn", None) is not None:
            raise StoreError("placement_lock is not re-entrant")
        # One transaction for the decisions and the writes (like SQLite's BEGIN IMMEDIATE):
        # every read and write of this thread inside joins it (see :meth:`connection`), so a
        # batch's later turns see its earlier turns, and the whole batch commits or none of it.
        with self.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
            self._placing.conn = conn
            try:
                yield
            finally:
                self._placing.conn = None

    @contextmanager
    def _write(self) -> Iterator[Conn]:
        with self.connection() as conn, conn.transaction():
            yield conn

    def _read(self, query: str, params: Any = None) -> list[tuple[Any, ...]]:
        with self.connection() as conn:
            return conn.execute(query, params).fetchall()

    def _ensure_index(self, embedder: str, dim: int) -> None:
        if (embedder, dim) not in self._indexed:
            self.ensure_vector_index(embedder, dim)

    def ensure_vector_index(self, embedder: str, dim: int, *, bulk: bool = False) -> None:
        """Create the HNSW cosine index of (embedder, dim) unless it exists. ``bulk`` gives the
        build more memory and parallel workers (after loading many vectors at once)."""
        with self.connection() as conn:
            ensure_vector_index(conn, embedder, dim, bulk=bulk)
        self._indexed.add((embedder, dim))

    # ------------------------------------------------------------------ writes
    def commit_ingest(self, batch: IngestBatch) -> None:
        now = to_micros(utc_now())
        turn = batch.turn
        spaces = {name: {k: np.asarray(v, dtype=np.float32).reshape(-1) for k, v in vecs.items()}
                  for name, vecs in batch.vectors_by_embedder().items()}
        for name, vectors in spaces.items():
            for dim in {int(v.shape[0]) for v in vectors.values()}:
                self._ensure_index(name, dim)
        with self._write() as conn:
            conn.execute(
                "INSERT INTO turns (key, turn_id, session_id, user_id, role, text, at, speaker)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (key) DO NOTHING",
                (turn.key, turn.turn_id, turn.session_id, turn.user_id, turn.role, turn.text,
                 to_micros(turn.at), turn.speaker),
            )
            if batch.turn_vector is not None:
                self._put_turn_vector(conn, turn, batch.embedder, batch.turn_vector)
            for unit in batch.upserts:
                self._upsert_unit(conn, unit, now, turn)
            for name, vectors in spaces.items():
                for unit_id, vec in vectors.items():
                    self._put_vector(conn, unit_id, name, vec)
            for unit_id, at, reason, by in batch.invalidations:
                self._invalidate(conn, unit_id, at, reason, by)
            self._events(conn, batch.events)

    @staticmethod
    def _upsert_unit(conn: Conn, unit: MemoryUnit, now: int, turn: TurnRecord) -> None:
        conn.execute(UPSERT_UNIT_SQL, unit_params(unit, now))
        conn.execute(
            "INSERT INTO unit_turns (unit_id, turn_key) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            (unit.id, turn.key),
        )
        conn.execute("DELETE FROM unit_entities WHERE unit_id = %s", (unit.id,))
        if unit.entities:
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO unit_entities (unit_id, user_id, kind, value)"
                    " VALUES (%s, %s, %s, %s)",
                    [(unit.id, unit.user_id, e.kind, e.value) for e in unit.entities],
                )
        sources = [r[0] for r in conn.execute(
            "SELECT t.text FROM unit_turns ut JOIN turns t ON t.key = ut.turn_key"
            " WHERE ut.unit_id = %s ORDER BY t.seq LIMIT 8", (unit.id,))]
        conn.execute(
            "INSERT INTO units_fts (unit_id, body) VALUES (%s, %s)"
            " ON CONFLICT (unit_id) DO UPDATE SET body = excluded.body",
            (unit.id, fts_body(unit.content, " ".join(sources))),
        )

    @staticmethod
    def _put_vector(conn: Conn, unit_id: str, embedder: str, vec: Vector) -> None:
        conn.execute(
            "INSERT INTO unit_vectors (unit_id, embedder, dim, vec) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (unit_id, embedder) DO UPDATE SET dim = excluded.dim, vec = excluded.vec",
            (unit_id, embedder, int(vec.shape[0]), vec),
        )

    @staticmethod
    def _put_turn_vector(conn: Conn, turn: TurnRecord, embedder: str, vec: Vector) -> None:
        arr = np.asarray(vec, dtype=np.float32).reshape(-1)
        conn.execute(
            "INSERT INTO turn_vectors (turn_key, embedder, user_id, at, dim, vec)"
            " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (turn_key, embedder)"
            " DO UPDATE SET dim = excluded.dim, vec = excluded.vec",
            (turn.key, embedder, turn.user_id, to_micros(turn.at), int(arr.shape[0]), arr))

    def put_turn_vectors(self, embedder: str, turns: Sequence[TurnRecord],
                         vectors: Sequence[Vector]) -> None:
        with self._write() as conn:
            for turn, vec in zip(turns, vectors, strict=True):
                self._put_turn_vector(conn, turn, embedder, vec)

    @staticmethod
    def _invalidate(conn: Conn, unit_id: str, at: datetime, reason: str, by: str | None) -> None:
        conn.execute(
            "UPDATE units SET invalidated_at = COALESCE(invalidated_at, %(at)s),"
            " invalidation_reason = COALESCE(invalidation_reason, %(reason)s),"
            " superseded_by = COALESCE(%(by)s, superseded_by),"
            " valid_until = CASE WHEN valid_until IS NULL OR valid_until > %(at)s THEN %(at)s"
            " ELSE valid_until END, updated_at = %(now)s WHERE id = %(id)s",
            {"at": to_micros(at), "reason": reason, "by": by, "id": unit_id,
             "now": to_micros(utc_now())},
        )

    @staticmethod
    def _events(conn: Conn, events: Sequence[UnitEvent]) -> None:
        if events:
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO unit_events (unit_id, at, event, detail, score_after)"
                    " VALUES (%s, %s, %s, %s, %s)",
                    [(e.unit_id, to_micros(e.at), e.event, e.detail, e.score_after)
                     for e in events],
                )

    def set_relevance(self, unit_id: str, score: float, event: UnitEvent) -> None:
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE units SET relevance_score = %s, updated_at = %s WHERE id = %s",
                (score, to_micros(utc_now()), unit_id),
            )
            if cur.rowcount == 0:
                raise NotFoundError(f"no unit {unit_id!r}")
            self._events(conn, [event])

    def invalidate(
        self, unit_id: str, at: datetime, reason: str, superseded_by: str | None = None
    ) -> None:
        with self._write() as conn:
            self._invalidate(conn, unit_id, at, reason, superseded_by)
            self._events(conn, [UnitEvent(unit_id, at, "invalidated", reason)])

    def put_vectors(self, embedder: str, vectors: dict[str, Vector]) -> None:
        arrays = {k: np.asarray(v, dtype=np.float32).reshape(-1) for k, v in vectors.items()}
        for dim in {int(v.shape[0]) for v in arrays.values()}:
            self._ensure_index(embedder, dim)
        with self._write() as conn:
            for unit_id, vec in arrays.items():
                self._put_vector(conn, unit_id, embedder, vec)

    def log_recall(self, entries: Sequence[RecallLogEntry]) -> None:
        if not entries:
            return
        with self._write() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO recall_log (recall_id, at, session_id, user_id, unit_id, stage, rank)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [(e.recall_id, to_micros(e.at), e.session_id, e.user_id, e.unit_id, e.stage,
                  e.rank) for e in entries],
            )

    def mark_recall_used(self, unit_id: str, used: bool) -> None:
        """Mark the latest unjudged recall of ``unit_id`` as used (or not)."""
        with self._write() as conn:
            conn.execute(
                "UPDATE recall_log SET used = %s WHERE id = (SELECT id FROM recall_log"
                " WHERE unit_id = %s AND used IS NULL ORDER BY at DESC, id DESC LIMIT 1"
                " FOR UPDATE SKIP LOCKED)",
                (1 if used else 0, unit_id),
            )

    def purge_expired(self, older_than: datetime) -> int:
        """Hard-delete units that expired or were invalidated before ``older_than``."""
        cutoff = to_micros(older_than)
        with self._write() as conn:
            ids = [r[0] for r in conn.execute(
                "SELECT id FROM units WHERE expires_at < %(c)s OR invalidated_at < %(c)s"
                " OR valid_until < %(c)s FOR UPDATE", {"c": cutoff})]
            self._delete_units(conn, ids)
        return len(ids)

    @staticmethod
    def _delete_units(conn: Conn, ids: Sequence[str]) -> None:
        if not ids:
            return
        for table, col in _UNIT_TABLES:
            conn.execute(
                sql.SQL("DELETE FROM {} WHERE {} = ANY(%s)").format(
                    sql.Identifier(table), sql.Identifier(col)),
                (list(ids),),
            )

    def erase_user(self, user_id: str) -> int:
        """Hard-delete everything held about ``user_id``: every row of the user in every table
        with a ``user_id`` column, every row of their units in every table with a ``unit_id``
        column (tables added by later migrations included) and their turns' provenance.
        Returns the number of units deleted. Dead tuples remain on disk until VACUUM."""
        with self._write() as conn:
            ids = [r[0] for r in conn.execute(
                "SELECT id FROM units WHERE user_id = %s FOR UPDATE", (user_id,))]
            self._delete_units(conn, ids)
            owned = conn.execute(
                "SELECT table_name, column_name FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND column_name IN ('user_id', 'unit_id')"
                " ORDER BY table_name, column_name").fetchall()
            conn.execute("DELETE FROM unit_turns WHERE turn_key IN"
                         " (SELECT key FROM turns WHERE user_id = %s)", (user_id,))
            for table, column in owned:
                if column == "unit_id" and ids:
                    conn.execute(sql.SQL("DELETE FROM {} WHERE unit_id = ANY(%s)").format(
                        sql.Identifier(table)), (ids,))
                elif column == "user_id":
                    conn.execute(sql.SQL("DELETE FROM {} WHERE user_id = %s").format(
                        sql.Identifier(table)), (user_id,))
        return len(ids)

    # ------------------------------------------------------------------ reads
    def get_units(self, ids: Sequence[str]) -> list[MemoryUnit]:
        if not ids:
            return []
        rows = self._read(f"SELECT {UNIT_COLUMNS} FROM units u WHERE u.id = ANY(%s)", (list(ids),))
        found = {r[0]: unit_from_row(r) for r in rows}
        return [found[i] for i in ids if i in found]

    def get_turns(self, keys: Sequence[str]) -> list[TurnRecord]:
        if not keys:
            return []
        rows = self._read(f"SELECT {TURN_COLUMNS} FROM turns WHERE key = ANY(%s) ORDER BY seq",
                          (list(keys),))
        return [turn_from_row(r) for r in rows]

    def unit_turn_keys(self, unit_id: str) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT turn_key FROM unit_turns WHERE unit_id = %s ORDER BY turn_key", (unit_id,))]

    def unit_events(self, unit_id: str) -> list[UnitEvent]:
        rows = self._read(
            "SELECT unit_id, at, event, detail, score_after FROM unit_events WHERE unit_id = %s"
            " ORDER BY at, id", (unit_id,))
        return [UnitEvent(r[0], from_micros(r[1]), r[2], r[3], r[4]) for r in rows]

    def recent_turns(self, scope: Scope, limit: int) -> list[TurnRecord]:
        params: dict[str, Any] = {"user": scope.user_id, "limit": limit}
        where = "user_id = %(user)s"
        if scope.session_id is not None:
            where += " AND session_id = %(session)s"
            params["session"] = scope.session_id
        rows = self._read(f"SELECT {TURN_COLUMNS} FROM turns WHERE {where}"
                          " ORDER BY seq DESC LIMIT %(limit)s", params)
        return [turn_from_row(r) for r in reversed(rows)]

    def find_turns(self, user_id: str, session_id: str,
                   turn_ids: Sequence[str]) -> dict[str, str]:
        if not turn_ids:
            return {}
        rows = self._read(
            "SELECT turn_id, key FROM turns WHERE user_id = %s AND session_id = %s"
            " AND turn_id = ANY(%s) ORDER BY seq DESC",
            (user_id, session_id, list(dict.fromkeys(turn_ids))))
        return {r[0]: r[1] for r in rows}  # newest first, so the oldest key wins

    def find_units(
        self,
        scope: Scope,
        *,
        as_of: datetime | None,
        types: Sequence[MemoryType] | None = None,
        slot: str | None = None,
        content_hash: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 1000,
    ) -> list[MemoryUnit]:
        params: dict[str, Any] = {"limit": limit}
        where = [scope_sql(scope, params)]
        if as_of is not None:
            params["as_of"] = to_micros(as_of)
            where.append(VALID_AT_SQL)
        if types:
            params["types"] = [MemoryType(t).value for t in types]
            where.append("u.type = ANY(%(types)s)")
        if slot is not None:
            params["slot"] = slot
            where.append("u.slot = %(slot)s")
        if content_hash is not None:
            params["hash"] = content_hash
            where.append("u.content_hash = %(hash)s")
        if since is not None:
            params["since"] = to_micros(since)
            where.append("u.created_at >= %(since)s")
        if until is not None:
            params["until"] = to_micros(until)
            where.append("u.created_at < %(until)s")
        rows = self._read(
            f"SELECT {UNIT_COLUMNS} FROM units u WHERE {' AND '.join(where)}"
            " ORDER BY u.created_at DESC, u.id LIMIT %(limit)s", params)
        return [unit_from_row(r) for r in rows]

    def source_turns(self, unit_ids: Sequence[str]) -> dict[str, list[TurnRecord]]:
        out: dict[str, list[TurnRecord]] = {}
        if not unit_ids:
            return out
        rows = self._read(
            "SELECT ut.unit_id, t.key, t.turn_id, t.session_id, t.user_id, t.role, t.text,"
            " t.at, t.speaker, t.seq FROM unit_turns ut JOIN turns t ON t.key = ut.turn_key"
            " WHERE ut.unit_id = ANY(%s) ORDER BY t.seq", (list(dict.fromkeys(unit_ids)),))
        for r in rows:
            out.setdefault(r[0], []).append(turn_from_row(r[1:]))
        return out

    def count_units_missing_vectors(
        self, embedder: str, types: Sequence[MemoryType] | None = None
    ) -> int:
        if types is not None and not types:
            return 0
        params: dict[str, Any] = {"emb": embedder}
        return int(self._read(
            "SELECT COUNT(*) FROM units u WHERE NOT EXISTS (SELECT 1 FROM unit_vectors v"
            f" WHERE v.unit_id = u.id AND v.embedder = %(emb)s){types_sql(types, params)}",
            params)[0][0])

    def units_missing_vectors(
        self, embedder: str, limit: int, types: Sequence[MemoryType] | None = None
    ) -> list[MemoryUnit]:
        if types is not None and not types:
            return []
        params: dict[str, Any] = {"emb": embedder, "limit": limit}
        rows = self._read(
            f"SELECT {UNIT_COLUMNS} FROM units u WHERE NOT EXISTS (SELECT 1 FROM unit_vectors v"
            f" WHERE v.unit_id = u.id AND v.embedder = %(emb)s){types_sql(types, params)}"
            " ORDER BY u.id LIMIT %(limit)s", params)
        return [unit_from_row(r) for r in rows]

