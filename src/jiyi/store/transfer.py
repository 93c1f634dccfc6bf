"""Copy a whole memory between backends (SQLite <-> PostgreSQL) and prove the copy is exact.

Both schemas keep the same tables and the same row representation (microsecond instants, JSON
text lists), so a copy is table by table, column by column: every table the two stores share
(units, turns, provenance ``unit_turns``, entities, vectors, the keyword-index bodies, events,
recall log, and tables added by later migrations such as health), except ``jiyi_migrations``.
Only vectors change form (float32 BLOB <-> pgvector). The target must be empty; the copy is one
transaction on the target; vector indexes built apart from the rows (PostgreSQL's HNSW) are built
after it, in bulk. :func:`table_digest` is an order-independent checksum (the sum of per-row
SHA-256 values mod 2**256) computed on both sides after the copy, over the shared columns. A
column only one side has is not copied: SQLite's FTS ``owner`` token is computed on the way in.

Each store does its side through the optional capabilities of :mod:`.capabilities`
(:class:`~.capabilities.BulkTransferStore`, :class:`~.capabilities.VectorIndexStore`); this
module never asks which backend it holds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import StoreError
from .base import Store
from .capabilities import BulkTransferStore, VectorIndexStore

#: Never copied: each store records its own migrations; SQLite's FTS rowid map is derived data
#: that the target rebuilds from its own keyword index; the vector-cache change log and its
#: epoch are each SQLite file's own (the target's triggers log the copied rows themselves); the
#: turn vectors' running sums are rebuilt by the target's bulk insert.
SKIP_TABLES = frozenset({"jiyi_migrations", "unit_fts_rows", "vector_changes",
                         "vector_cache_meta", "turn_vector_sums",
                         "turn_sum_pending"})
#: Columns one backend has and the other does not (PostgreSQL's insertion counter for turns).
SKIP_COLUMNS = frozenset({"seq"})
#: Tables whose rows must be inserted in their original order, and that order (``seq`` is the
#: order of ingestion on both backends).
ORDER_BY = {"turns": ("seq", "at")}
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
def transferable(store: Store) -> BulkTransferStore:
    """``store`` as a store whose tables can be copied raw, or a clear error."""
    if not isinstance(store, BulkTransferStore):
        raise StoreError(f"the {store.backend} store {store.location} cannot be copied table by"
                         " table (it has no bulk transfer)")
    return store


def table_columns(store: Store) -> dict[str, list[str]]:
    """Ordinary tables of a store and their columns (index internals excluded)."""
    return transferable(store).table_columns()


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
    vec_idx = [i for i, c in enumerate(columns) if table in VECTOR_TABLES and c == "vec"]
    for row in transferable(store).read_table(table, columns, ORDER_BY.get(table, ())):
        yield _convert(row, columns, table, vec_idx)


def _convert(row: Sequence[Any], columns: Sequence[str], table: str,
             vec_idx: list[int]) -> tuple[Any, ...]:
    if not vec_idx:
        return tuple(row)
    return tuple(_to_canonical(table, c, v) if i in vec_idx else v
                 for i, (c, v) in enumerate(zip(columns, row, strict=True)))


def vector_kinds(store: Store) -> set[tuple[str, int]]:
    """The (embedder, dimension) pairs a store holds vectors for."""
    return {(r[0], int(r[1])) for r in read_rows(store, "unit_vectors", ("embedder", "dim"))}


# ---------------------------------------------------------------- writing
def write_rows(store: Store, tables: dict[str, tuple[list[str], Iterable[tuple[Any, ...]]]]) -> None:
    """Insert rows into several tables in ONE transaction (all or nothing)."""
    transferable(store).bulk_insert(tables)


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
    if isinstance(target, VectorIndexStore):
        # Such indexes are built once, after the bulk load (much faster than row by row).
        for embedder, dim in sorted(vector_kinds(target)):
            target.ensure_vector_index(embedder, dim, bulk=True)
    reports = []
    for table, columns in tables.items():
        sn, sd = table_digest(source, table, columns)
        tn, td = table_digest(target, table, columns)
        reports.append(TableReport(table, sn, tn, sd, td))
    return reports
