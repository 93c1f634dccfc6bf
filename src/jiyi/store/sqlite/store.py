"""The embedded default: one SQLite file, WAL, FTS5 over segmented text, vectors as BLOBs.

The SQL shared with PostgreSQL (:mod:`..sql.reads`, :mod:`..sql.writes`) runs here in the
:data:`~..sql.dialect.SQLITE` dialect; this module holds the engine's own steps: the one guarded
connection and its write transactions, the turn's order number, the FTS5 row with its owner
token and rowid map, the erasure that leaves no copy in the file, and bulk copies."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ...clock import to_micros
from ...errors import StoreError
from ...units import MemoryUnit
from ..base import TurnRecord, missing_store_message
from ..cache.vectors import TableCache
from ..sql.keywords import fts_body
from ..sql.turn_sums import SumsCache, rebuild_all
from ..sql.writes import SqlWrites
from .caches import cache_bytes_from_env, megabytes_from_env
from .caps import SqliteCapabilities
from .migrations import (
    NEW_CACHE_EPOCH_SQL,
    OWNER_FUNCTION,
    apply_migrations,
    owner_token,
    register_functions,
)
from .queries import SqliteReports

__all__ = ["SQLiteStore"]

BUSY_TIMEOUT_MS = 30_000
#: Default bound of the file SQLite reads through memory mapping (``JIYI_SQLITE_MMAP_MB``
#: overrides; 0: off). A cold user's vectors sit on scattered pages (``unit_vectors`` is keyed
#: by unit id); read through the map each page costs a memory access instead of a system
#: call and a copy into SQLite's page cache: at 100k units a cold user's vector table loads
#: in about half the time. Address space only: the pages are the OS's file cache, shared,
#: counted in RSS as file pages once touched (``jiyi bench recall`` at 100k units: peak RSS
#: 272 -> 804 MB while it builds its 550 MB store, 270 MB after). SQLite still writes through
#: ``write()``.
DEFAULT_MMAP_MB = 1024


def mmap_bytes_from_env(default_mb: int = DEFAULT_MMAP_MB) -> int:
    """``JIYI_SQLITE_MMAP_MB`` in bytes (0 turns memory-mapped reads off)."""
    return megabytes_from_env("JIYI_SQLITE_MMAP_MB", default_mb)


class SQLiteStore(SqliteCapabilities, SqliteReports, SqlWrites):
    """SQLite backend. One connection guarded by a lock; writes are ``BEGIN IMMEDIATE``
    transactions; other processes coordinate through WAL and ``busy_timeout``."""

    backend = "sqlite"
    _keywords_need_history = True  # an updated unit's FTS row is replaced, from all its turns

    def __init__(self, path: str, *, synchronous: str = "NORMAL", create: bool = True,
                 vector_cache_bytes: int | None = None) -> None:
        """``create=False``: a missing file is a :class:`StoreError` naming it (read commands
        must never leave an empty store behind a typo'd path). ``vector_cache_bytes``: the bound
        of the resident per-user vector tables (:mod:`.caches`; default
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
            if path != ":memory:":
                self._conn.execute(f"PRAGMA mmap_size = {mmap_bytes_from_env()}")
            register_functions(self._conn)  # before migrations: m004 computes owner tokens
            self.applied_migrations = apply_migrations(self._conn)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open SQLite store {path!r}: {exc}") from exc
        self._closed = False
        self.turn_sums = SumsCache()
        if "m010_turn_sums" in self.applied_migrations:
            self.rebuild_turn_sums()  # the sums of the users stored before m010

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
            except sqlite3.Error as exc:
                raise StoreError(f"could not start a write ({self.location}): {exc}") from exc
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
            except sqlite3.Error as exc:
                raise StoreError(f"could not start a write ({self.location}): {exc}") from exc
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

    # ------------------------------------------------------------------ writes
    def _insert_turn(self, conn: sqlite3.Connection, turn: TurnRecord) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO turns"
            " (key, turn_id, session_id, user_id, role, speaker, text, at, seq)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM turns))",
            (turn.key, turn.turn_id, turn.session_id, turn.user_id, turn.role, turn.speaker,
             turn.text, to_micros(turn.at)),
        )

    def _index_keywords(self, conn: sqlite3.Connection, unit: MemoryUnit, turn: TurnRecord,
                        existed: bool) -> None:
        """The FTS5 row (with the owner token that keeps searches in the user's postings) and
        its entry in the rowid map; a new unit's only source is this turn."""
        if existed:
            sources = [
                row[0]
                for row in conn.execute(
                    "SELECT t.text FROM unit_turns ut JOIN turns t ON t.key = ut.turn_key"
                    " WHERE ut.unit_id = ? ORDER BY t.at LIMIT 8",
                    (unit.id,),
                )
            ]
            self._delete_keywords(conn, [unit.id])
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

    def _delete_keywords(self, conn: sqlite3.Connection, ids: Sequence[str]) -> None:
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

    def erase_user(self, user_id: str) -> int:
        """Hard-delete everything held about ``user_id`` and leave no copy in the file (the right to erasure).

        Every row of the user in every table with a ``user_id`` column and every row of their
        units in every table with a ``unit_id`` column (so tables added by later migrations are
        covered too), their turns' provenance rows, then: the FTS5 index merged (``optimize``) so
        no old segment keeps a token, freed pages zeroed (``secure_delete``) and the WAL
        checkpointed and truncated. Returns the number of units deleted."""
        with self._reading("erasure"):
            previous = int(self._conn.execute("PRAGMA secure_delete").fetchone()[0])
            self._conn.execute("PRAGMA secure_delete = ON")
            try:
                with self._write() as conn:
                    ids = self._erase_rows(conn, user_id)
                    conn.execute("INSERT INTO units_fts (units_fts) VALUES ('optimize')")
                    conn.execute(NEW_CACHE_EPOCH_SQL)  # every process drops its cached tables
                self._drop_cached_user(user_id)
                if self.location != ":memory:":
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            finally:
                self._conn.execute(f"PRAGMA secure_delete = {previous}")
        return len(ids)

    def _owned_tables(self, conn: sqlite3.Connection) -> tuple[list[str], list[str]]:
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
            if "turn_vectors" in tables:  # the copied users' running sums (turn_sums)
                rebuild_all(self._run(conn), self.turn_sums_min)
        self.turn_sums.forget_absent()
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
