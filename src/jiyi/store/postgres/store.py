"""PostgreSQL + pgvector backend: one memory shared by many worker processes and machines.

Same contract as :class:`..sqlite.SQLiteStore` (the contract suite in
``tests/test_store_contract.py`` runs against both), and the same SQL: the shared reads and
writes (:mod:`..sql.reads`, :mod:`..sql.writes`) in the :data:`~..sql.dialect.POSTGRES`
dialect. This module holds only the engine's own steps: the connection pool (every write method is one
transaction from it, so a worker's threads share a few connections), the per-user placement
lock, the turn's BIGSERIAL order number, the ``units_fts`` row and the HNSW indexes.

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
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool, PoolTimeout

from ...clock import to_micros
from ...errors import StoreError
from ...units import MemoryUnit
from ..base import TurnRecord, missing_store_message
from ..capabilities import TableRows
from ..sql.keywords import fts_body
from ..sql.turn_sums import SumsCache
from ..sql.writes import Spaces, SqlWrites, spaces_dims
from .caps import PgCapabilities
from .migrations import apply_migrations, ensure_vector_index
from .queries import PgReports, PgSearch

Conn = psycopg.Connection[tuple[Any, ...]]


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***`` (what logs and ``stats`` may show)."""
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)


class PostgresStore(PgCapabilities, PgSearch, PgReports, SqlWrites):
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
        self.turn_sums = SumsCache()
        if "m010_turn_sums" in self.applied_migrations:
            self.rebuild_turn_sums()  # the sums of the users stored before m010

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
            return conn.execute(self.dialect.sql(query), params).fetchall()

    def _prepare_vector_spaces(self, spaces: Spaces) -> None:
        """The HNSW index of every (embedder, dimension) about to be written."""
        for embedder, dim in spaces_dims(spaces):
            if (embedder, dim) not in self._indexed:
                self.ensure_vector_index(embedder, dim)

    def ensure_vector_index(self, embedder: str, dim: int, *, bulk: bool = False) -> None:
        """Create the HNSW cosine index of (embedder, dim) unless it exists. ``bulk`` gives the
        build more memory and parallel workers (after loading many vectors at once)."""
        with self.connection() as conn:
            ensure_vector_index(conn, embedder, dim, bulk=bulk)
        self._indexed.add((embedder, dim))

    # ------------------------------------------------------------------ engine steps
    def _insert_turn(self, conn: Conn, turn: TurnRecord) -> None:
        conn.execute(
            "INSERT INTO turns (key, turn_id, session_id, user_id, role, text, at, speaker)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (key) DO NOTHING",  # seq: the BIGSERIAL's next value
            (turn.key, turn.turn_id, turn.session_id, turn.user_id, turn.role, turn.text,
             to_micros(turn.at), turn.speaker),
        )

    def _index_keywords(self, conn: Conn, unit: MemoryUnit, turn: TurnRecord,
                        existed: bool) -> None:
        """One ``units_fts`` row per unit (its tsvector is generated), upserted."""
        sources = [r[0] for r in conn.execute(
            "SELECT t.text FROM unit_turns ut JOIN turns t ON t.key = ut.turn_key"
            " WHERE ut.unit_id = %s ORDER BY t.seq LIMIT 8", (unit.id,))]
        conn.execute(
            "INSERT INTO units_fts (unit_id, body) VALUES (%s, %s)"
            " ON CONFLICT (unit_id) DO UPDATE SET body = excluded.body",
            (unit.id, fts_body(unit.content, " ".join(sources))),
        )

    def _delete_keywords(self, conn: Conn, ids: Sequence[str]) -> None:
        conn.execute("DELETE FROM units_fts WHERE unit_id = ANY(%s)", (list(ids),))

    def _owned_tables(self, conn: Conn) -> tuple[list[str], list[str]]:
        rows = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND column_name IN ('user_id', 'unit_id')"
            " ORDER BY table_name, column_name").fetchall()
        return ([t for t, c in rows if c == "user_id"], [t for t, c in rows if c == "unit_id"])

    def bulk_insert(self, tables: TableRows) -> int:
        """:meth:`PgCapabilities.bulk_insert`, then the running sums of the users whose turn
        vectors were copied in (:mod:`..sql.turn_sums`; until then their searches scan)."""
        total = super().bulk_insert(tables)
        if "turn_vectors" in tables:
            self.rebuild_turn_sums()
        return total

    def _lock_turn_sums(self, conn: Conn, user_id: str, embedder: str) -> None:
        """A transaction-scoped advisory lock on the sums of (user, embedder): a writer reads
        them (or scans the vectors to build them) only after every earlier writer committed, so
        no addition is lost between two concurrent transactions."""
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 7310))",
                     (f"turn_sums\x1f{user_id}\x1f{embedder}",))

    def erase_user(self, user_id: str) -> int:
        """Hard-delete everything held about ``user_id`` (:meth:`_erase_rows`), in one
        transaction. Returns the number of units deleted. Dead tuples remain on disk until
        VACUUM."""
        with self._write() as conn:
            return len(self._erase_rows(conn, user_id))
