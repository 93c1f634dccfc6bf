"""Copy a whole memory between backends (SQLite <-> PostgreSQL) and prove the copy is exact.

Both schemas keep the same tables and the same row representation (microsecond instants, JSON
text lists), so a copy is table by table, column by column: every table the two stores share
(units, turns, provenance ``unit_turns``, entities, vectors, the keyword-index bodies, events,
recall log, and tables added by later migrations such as health), except ``jiyi_migrations``.
Only vectors change form (float32 BLOB <-> pgvector). The target must be empty; the copy is one
transaction on the target; PostgreSQL's HNSW indexes are built after it, in bulk. :func:`table_digest` is an order-independent checksum (the sum of
per-row SHA-256 values mod 2**256) computed on both sides after the copy, over the shared columns.
A column only one side has is not copied: SQLite's FTS ``owner`` token is computed on the way in.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from psycopg import sql

from ..errors import StoreError
from .base import Store
from .sqlite import SQLiteStore

BATCH = 5000
#: Never copied: each store records its own migrations; SQLite's FTS rowid map is derived data
#: that the target rebuilds from its own keyword index; the vector-cache change log and its
#: epoch are each SQLite file's own (the target's triggers log the copied rows themselves).
SKIP_TABLES = frozenset({"jiyi_migrations", "unit_fts_rows", "vector_changes",
                         "vector_cache_meta"})
#: Columns one backend has and the other does not (PostgreSQL's insertion counter for turns).
SKIP_COLUMNS = frozenset({"seq"})
#: Tables whose rows must be inserted in their original order, and that order per backend.
ORDER_BY = {"turns": {"sqlite": "seq, at", "postgresql": "seq"}}
#: Tables holding vectors in a ``vec`` column (BLOB in SQLite, pgvector in PostgreSQL).
VECTOR_TABLES = frozenset({"unit_vectors", "turn_vectors"})


@dataclass(frozen=True)
class TableReport:
    table: str
    source_rows: int
    target_rows: int
    source_digest: str
    target_digest: str

    @property
    def ok(self) -> bool:
        return (self.source_rows, self.source_digest) == (self.target_rows, self.target_digest)


# ---------------------------------------------------------------- schema
def table_columns(store: Store) -> dict[str, list[str]]:
    """Ordinary tables of a store and their columns (FTS5 shadow tables excluded)."""
    out: dict[str, list[str]] = {}
    if store.backend == "sqlite":
        with store.locked() as conn:  # type: ignore[attr-defined]
            rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"
                                " AND name NOT LIKE 'sqlite_%'").fetchall()
            virtual = [n for n, s in rows if (s or "").upper().startswith("CREATE VIRTUAL")]
            for name, _ in rows:
                if any(name.startswith(v + "_") for v in virtual):
                    continue
                out[name] = [r[1] for r in conn.execute(f'PRAGMA table_info("{name}")')]
        return out
    with store.connection() as conn:  # type: ignore[attr-defined]
        for table, column in conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        ).fetchall():
            out.setdefault(table, []).append(column)
    return out


def shared_tables(source: Store, target: Store) -> dict[str, list[str]]:
    """Tables present in both stores, with the columns both have (in the source's order)."""
    a, b = table_columns(source), table_columns(target)
    return {
        t: [c for c in cols if c in b[t] and c not in SKIP_COLUMNS]
        for t, cols in a.items() if t in b and t not in SKIP_TABLES
    }


# ---------------------------------------------------------------- reading
def _to_canonical(table: str, column: str, value: Any) -> Any:
    if table in VECTOR_TABLES and column == "vec" and value is not None:
        if isinstance(value, bytes | bytearray | memoryview):
            return np.frombuffer(bytes(value), dtype=np.float32)
        return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value,
                          dtype=np.float32)
    return value


def read_rows(store: Store, table: str, columns: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """Every row of ``table`` (vectors as float32 numpy arrays), streamed in batches."""
    order = ORDER_BY.get(table, {}).get(store.backend)
    vec_idx = [i for i, c in enumerate(columns) if table in VECTOR_TABLES and c == "vec"]
    if store.backend == "sqlite":
        query = f'SELECT {", ".join(columns)} FROM "{table}"' + (f" ORDER BY {order}" if order else "")
        with store.locked() as conn:  # type: ignore[attr-defined]
            cur = conn.execute(query)
            while batch := cur.fetchmany(BATCH):
                yield from (_convert(r, columns, table, vec_idx) for r in batch)
        return
    pg_query = sql.SQL("SELECT {} FROM {}").format(
        sql.SQL(", ").join(sql.Identifier(c) for c in columns), sql.Identifier(table))
    if order:
        pg_query = sql.SQL("{} ORDER BY {}").format(pg_query, sql.SQL(order))
    with (store.connection() as conn,  # type: ignore[attr-defined]
          conn.transaction(), conn.cursor(name=f"jiyi_copy_{table}") as cur):
        cur.itersize = BATCH
        cur.execute(pg_query)
        for r in cur:
            yield _convert(r, columns, table, vec_idx)


def _convert(row: Sequence[Any], columns: Sequence[str], table: str,
             vec_idx: list[int]) -> tuple[Any, ...]:
    if not vec_idx:
        return tuple(row)
    return tuple(_to_canonical(table, c, v) if i in vec_idx else v
                 for i, (c, v) in enumerate(zip(columns, row, strict=True)))


def vector_kinds(store: Store) -> set[tuple[str, int]]:
    """The (embedder, dimension) pairs a store holds vectors for."""
    query = "SELECT DISTINCT embedder, dim FROM unit_vectors"
    if store.backend == "sqlite":
        with store.locked() as conn:  # type: ignore[attr-defined]
            return {(r[0], int(r[1])) for r in conn.execute(query)}
    with store.connection() as conn:  # type: ignore[attr-defined]
        return {(r[0], int(r[1])) for r in conn.execute(query)}


# ---------------------------------------------------------------- writing
def write_rows(store: Store, tables: dict[str, tuple[list[str], Iterable[tuple[Any, ...]]]]) -> None:
    """Insert rows into several tables in ONE transaction (all or nothing)."""
    if isinstance(store, SQLiteStore):
        store.bulk_insert(tables)
        return
    with store.connection() as conn, conn.transaction():  # type: ignore[attr-defined]
        for table, (columns, rows) in tables.items():
            copy = sql.SQL("COPY {} ({}) FROM STDIN").format(
                sql.Identifier(table), sql.SQL(", ").join(sql.Identifier(c) for c in columns))
            with conn.cursor() as cur, cur.copy(copy) as cp:
                for row in rows:
                    cp.write_row(row)
        for table, column, seq in conn.execute(
            "SELECT table_name, column_name, pg_get_serial_sequence(table_name, column_name)"
            " FROM information_schema.columns WHERE table_schema = current_schema()"
            " AND column_default LIKE 'nextval%%'").fetchall():
            conn.execute(sql.SQL("SELECT setval({}, COALESCE((SELECT MAX({}) FROM {}), 0) + 1,"
                                 " false)").format(sql.Literal(seq), sql.Identifier(column),
                                                   sql.Identifier(table)))


# ---------------------------------------------------------------- checksum and copy
def _canonical(row: Sequence[Any]) -> bytes:
    parts: list[Any] = []
    for v in row:
        if isinstance(v, np.ndarray):
            parts.append("f32:" + hashlib.sha256(v.astype(np.float32).tobytes()).hexdigest())
        elif isinstance(v, float):
            parts.append("f:" + repr(v))
        else:
            parts.append(v)
    return json.dumps(parts, ensure_ascii=False, separators=(",", ":")).encode()


def table_digest(store: Store, table: str, columns: Sequence[str]) -> tuple[int, str]:
    """``(rows, checksum)``: independent of row order and of the backend."""
    total, n = 0, 0
    for row in read_rows(store, table, columns):
        total = (total + int.from_bytes(hashlib.sha256(_canonical(row)).digest(), "big")) \
            % (1 << 256)
        n += 1
    return n, f"{total:064x}"


def copy_store(source: Store, target: Store) -> list[TableReport]:
    """Copy everything from ``source`` into the empty ``target`` and verify every table."""
    tables = shared_tables(source, target)
    for required in ("units", "turns", "unit_turns", "unit_vectors"):
        if required not in tables:
            raise StoreError(f"table {required!r} missing on one side; migrate both stores first")
    st = target.stats()
    if st.units_total or st.turns:
        raise StoreError(f"the target {target.location} is not empty "
                         f"({st.units_total} units, {st.turns} turns); copy only into an empty store")
    payload: dict[str, tuple[list[str], Iterable[tuple[Any, ...]]]] = {}
    for table, columns in tables.items():
        payload[table] = (columns, read_rows(source, table, columns))
    write_rows(target, payload)
    if target.backend == "postgresql":
        # HNSW indexes are built once, after the bulk load (much faster than row by row).
        for embedder, dim in sorted(vector_kinds(target)):
            target.ensure_vector_index(embedder, dim, bulk=True)  # type: ignore[attr-defined]
    reports = []
    for table, columns in tables.items():
        sn, sd = table_digest(source, table, columns)
        tn, td = table_digest(target, table, columns)
        reports.append(TableReport(table, sn, tn, sd, td))
    return reports
