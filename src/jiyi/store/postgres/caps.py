"""The optional capabilities (:mod:`..capabilities`) the PostgreSQL backend adds to the contract,
as a mixin of :class:`~.store.PostgresStore`: raw table reads and ``COPY`` loads for
``jiyi migrate``, and the health state shared by every worker. ``ensure_vector_index`` lives
with the store's writes (ingest builds indexes too).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from psycopg import sql

from ..capabilities import TableRows
from ..sql.dialect import POSTGRES
from ..sql.health import Execute, SqlHealthState
from .queries import Conn, _PgBase

#: Rows fetched per round trip while streaming a table (a server-side cursor).
BATCH = 5000


class PgCapabilities(_PgBase):
    """Mixin: table listing, streaming and bulk loading for copies, and the health state."""

    def table_columns(self) -> dict[str, list[str]]:
        """Tables of the current schema and their columns, in column order."""
        out: dict[str, list[str]] = {}
        with self.connection() as conn:
            for table, column in conn.execute(
                "SELECT table_name, column_name FROM information_schema.columns"
                " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
            ).fetchall():
                out.setdefault(table, []).append(column)
        return out

    def read_table(self, table: str, columns: Sequence[str],
                   order_by: Sequence[str] = ()) -> Iterator[tuple[Any, ...]]:
        """Rows of ``table`` as stored (vectors as pgvector values), through a server-side
        cursor in one snapshot."""
        query = sql.SQL("SELECT {} FROM {}").format(
            sql.SQL(", ").join(sql.Identifier(c) for c in columns), sql.Identifier(table))
        if order_by:
            query = sql.SQL("{} ORDER BY {}").format(
                query, sql.SQL(", ").join(sql.Identifier(c) for c in order_by))
        with (self.connection() as conn, conn.transaction(),
              conn.cursor(name=f"jiyi_copy_{table}") as cur):
            cur.itersize = BATCH
            cur.execute(query)
            for row in cur:
                yield tuple(row)

    def bulk_insert(self, tables: TableRows) -> int:
        """``COPY`` rows into several tables in ONE transaction (all or nothing), then move
        every serial column's sequence past the rows copied in. Vector indexes are not built
        here: see :meth:`~.store.PostgresStore.ensure_vector_index` with ``bulk=True``."""
        total = 0
        with self.connection() as conn, conn.transaction():
            for table, (columns, rows) in tables.items():
                copy = sql.SQL("COPY {} ({}) FROM STDIN").format(
                    sql.Identifier(table), sql.SQL(", ").join(sql.Identifier(c) for c in columns))
                with conn.cursor() as cur, cur.copy(copy) as cp:
                    for row in rows:
                        cp.write_row(row)
                        total += 1
            for table, column, seq in conn.execute(
                "SELECT table_name, column_name, pg_get_serial_sequence(table_name, column_name)"
                " FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND column_default LIKE 'nextval%%'").fetchall():
                conn.execute(sql.SQL("SELECT setval({}, COALESCE((SELECT MAX({}) FROM {}), 0) + 1,"
                                     " false)").format(sql.Literal(seq), sql.Identifier(column),
                                                       sql.Identifier(table)))
        return total

    def health_state(self) -> SqlHealthState:
        """Amnesia streaks and health counters in the database, shared by every worker."""
        return SqlHealthState(_PgHealthSql(self))


def _execute(conn: Conn, query: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    cur = conn.execute(POSTGRES.sql(query).encode(), params)
    return cur.fetchall() if cur.description is not None else []


class _PgHealthSql:
    """PostgreSQL for :class:`~..sql.health.SqlHealthState`: pooled autocommit reads, one
    transaction per write, and ``FOR UPDATE`` so concurrent workers agree on a streak."""

    row_lock = POSTGRES.for_update

    def __init__(self, store: _PgBase) -> None:
        self._store = store

    def read(self, query: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        with self._store.connection() as conn:
            return _execute(conn, query, params)

    @contextmanager
    def write(self) -> Iterator[Execute]:
        with self._store.connection() as conn, conn.transaction():
            yield lambda query, params: _execute(conn, query, params)
