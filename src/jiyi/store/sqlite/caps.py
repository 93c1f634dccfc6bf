"""The optional capabilities (:mod:`..capabilities`) the SQLite backend adds to the contract, as a
mixin of :class:`~.store.SQLiteStore`: raw table reads for ``jiyi migrate`` (its
``bulk_insert`` lives with the other writes) and the shared health state. ``warm`` is in
:mod:`.queries`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from ...errors import StoreError
from ..sql.health import Execute, SqlHealthState

#: Rows fetched per round trip while streaming a table.
BATCH = 5000


class SqliteCapabilities:
    """Mixin: table listing and streaming for copies, and the health state."""

    def locked(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError  # the store's own

    def table_columns(self) -> dict[str, list[str]]:
        """Ordinary tables and their columns (FTS5 shadow tables excluded)."""
        out: dict[str, list[str]] = {}
        with self.locked() as conn:
            rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"
                                " AND name NOT LIKE 'sqlite_%'").fetchall()
            virtual = [n for n, s in rows if (s or "").upper().startswith("CREATE VIRTUAL")]
            for name, _ in rows:
                if not any(name.startswith(v + "_") for v in virtual):
                    out[name] = [r[1] for r in conn.execute(f'PRAGMA table_info("{name}")')]
        return out

    def read_table(self, table: str, columns: Sequence[str],
                   order_by: Sequence[str] = ()) -> Iterator[tuple[Any, ...]]:
        """Rows of ``table`` as stored (vectors as float32 BLOBs), under the store's lock."""
        query = f'SELECT {", ".join(columns)} FROM "{table}"'
        if order_by:
            query += f" ORDER BY {', '.join(order_by)}"
        with self.locked() as conn:
            cur = conn.execute(query)
            while batch := cur.fetchmany(BATCH):
                yield from (tuple(r) for r in batch)

    def health_state(self) -> SqlHealthState:
        """Amnesia streaks and health counters in this file, shared by every process."""
        return SqlHealthState(_SqliteHealthSql(self))


class _SqliteHealthSql:
    """SQLite for :class:`~..sql.health.SqlHealthState`: a write is ``BEGIN IMMEDIATE``, which
    excludes every other writer, so a read inside it needs no row lock."""

    row_lock = ""

    def __init__(self, store: SqliteCapabilities) -> None:
        self._store = store

    def read(self, query: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        with self._store.locked() as conn:
            return [tuple(r) for r in conn.execute(query, params)]

    @contextmanager
    def write(self) -> Iterator[Execute]:
        with self._store.locked() as conn:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(f"could not start a write: {exc}") from exc
            try:
                yield lambda query, params: [tuple(r) for r in conn.execute(query, params)]
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
