"""Resident vector matrices for the SQLite backend: one user's vectors in RAM.

Without it, every recall of a user read all their vector BLOBs from SQLite and stacked them
(545 ms p95 for a 50,000-unit user at 1M units). A :class:`VectorTable` keeps one user's float32
vectors of one embedder as a matrix, with the columns the searches filter on (instants, session,
type, superseded) as numpy arrays, so a search is a few boolean masks and one matrix-vector
product. The filters are the SQL ones (:data:`~..sql.filters.VALID_AT_SQL`,
:data:`~..sql.filters.KNOWN_AT_SQL`, ``scope_sql``, ``types_sql``, the window) written over arrays;
a contract test runs every search both ways and compares.

This module holds no SQL: :mod:`..sqlite.caches` loads tables, keeps them fresh through
the store's change log (``vector_changes``, migration ``m008``) and bounds them
(:class:`TableCache`, least recently used first, by bytes).

Exact, not approximate: an ANN index (usearch, hnswlib) answers "the k nearest", but recall
also needs the cosines' mean and spread over *every* filtered row (the z-scale of
:class:`~..base.Scored`) and filters by ``as_of`` that change per query; a brute-force product
over 50k x 384 floats costs ~2-4 ms, below the query embedding, so the graph would buy little
and lose exactness (measured in docs/benchmarks/scale.md).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...errors import StoreError
from ...units import MemoryType
from ..base import Scope, Vector

#: Stand-ins for NULL instants: "no lower bound" and "no upper bound".
NEVER_BEFORE = np.iinfo(np.int64).min
NEVER_AFTER = np.iinfo(np.int64).max

_TYPES = list(MemoryType)
_TYPE_CODE = {t.value: i for i, t in enumerate(_TYPES)}

Int64s = NDArray[np.int64]
Bools = NDArray[np.bool_]

#: The per-row columns of a unit table (``at`` alone for a turn table), as int64.
UNIT_COLUMNS = ("created_at", "expires_at", "valid_at", "valid_until", "invalidated_at",
                "superseded", "session", "type")
TURN_COLUMNS = ("at",)


@dataclass(frozen=True)
class UnitRow:
    """What a unit search needs of one unit (instants in microseconds, None for NULL)."""

    id: str
    session_id: str
    type: str
    created_at: int
    expires_at: int
    valid_at: int | None
    valid_until: int | None
    invalidated_at: int | None
    superseded: bool
    vec: bytes


def _lower(value: int | None) -> int:
    return NEVER_BEFORE if value is None else int(value)


def _upper(value: int | None) -> int:
    return NEVER_AFTER if value is None else int(value)


class VectorTable:
    """One user's vectors of one embedder: rows appended, overwritten or dropped in place.

    ``kind`` is ``"unit"`` (the unit searches) or ``"turn"`` (the episodic layer). Dropped
    rows stay as dead slots until :meth:`compact` (run when more than half are dead)."""

    def __init__(self, kind: str, dim: int, capacity: int = 64,
                 extra_columns: tuple[str, ...] = ()) -> None:
        self.kind = kind
        self.columns = (UNIT_COLUMNS if kind == "unit" else TURN_COLUMNS) + extra_columns
        self._reset(dim, capacity)

    def _reset(self, dim: int, capacity: int) -> None:
        """Empty arrays for ``dim``-dimensional vectors."""
        self.dim = dim
        cap = max(16, capacity)
        self.vecs: NDArray[np.float32] = np.zeros((cap, dim), dtype=np.float32)
        self.cols: dict[str, Int64s] = {c: np.zeros(cap, dtype=np.int64) for c in self.columns}
        self.live: Bools = np.zeros(cap, dtype=np.bool_)
        self.ids: list[str] = []
        self.row: dict[str, int] = {}
        self.n = 0  # slots used (live or dead)
        self.sessions: dict[str, int] = {}  # session id -> code (unit tables)

    # ---------------------------------------------------------------- size
    @property
    def nbytes(self) -> int:
        """Bytes held (the arrays' capacity plus ~100 bytes per id for the Python objects)."""
        arrays = self.vecs.nbytes + self.live.nbytes + sum(a.nbytes for a in self.cols.values())
        return int(arrays + 100 * len(self.ids))

    @property
    def size(self) -> int:
        return len(self.row)

    def _grow(self, need: int) -> None:
        cap = self.vecs.shape[0]
        if need <= cap:
            return
        new = max(need, cap * 2)
        vecs = np.zeros((new, self.dim), dtype=np.float32)
        vecs[:self.n] = self.vecs[:self.n]
        self.vecs = vecs
        for c, arr in self.cols.items():
            grown = np.zeros(new, dtype=np.int64)
            grown[:self.n] = arr[:self.n]
            self.cols[c] = grown
        live = np.zeros(new, dtype=np.bool_)
        live[:self.n] = self.live[:self.n]
        self.live = live

    # ---------------------------------------------------------------- writes
    def _slot(self, key: str) -> int:
        i = self.row.get(key)
        if i is None:
            self._grow(self.n + 1)
            i = self.n
            self.n += 1
            self.ids.append(key)
            self.row[key] = i
        return i

    def _vector(self, blob: bytes) -> NDArray[np.float32]:
        vec = np.frombuffer(blob, dtype=np.float32)
        if vec.shape[0] != self.dim and not self.row:  # empty: take the first vector's size
            self._reset(int(vec.shape[0]), self.vecs.shape[0])
        if vec.shape[0] != self.dim:
            raise StoreError(f"a stored vector has dimension {vec.shape[0]}, not {self.dim}")
        return vec

    def put_unit(self, r: UnitRow) -> None:
        vec = self._vector(r.vec)
        i = self._slot(r.id)
        self.vecs[i] = vec
        self._put_unit_columns(i, r)

    def _put_unit_columns(self, i: int, r: UnitRow) -> None:
        c = self.cols
        c["created_at"][i] = r.created_at
        c["expires_at"][i] = r.expires_at
        c["valid_at"][i] = _lower(r.valid_at)
        c["valid_until"][i] = _upper(r.valid_until)
        c["invalidated_at"][i] = _upper(r.invalidated_at)
        c["superseded"][i] = 1 if r.superseded else 0
        c["session"][i] = self.sessions.setdefault(r.session_id, len(self.sessions))
        c["type"][i] = _TYPE_CODE.get(r.type, -1)
        self.live[i] = True

    def _put_unit_row(self, r: UnitRow) -> int:
        """A unit's columns without a vector (the keyword table); returns its slot."""
        i = self._slot(r.id)
        self._put_unit_columns(i, r)
        return i

    def put_turn(self, key: str, at: int, blob: bytes) -> None:
        vec = self._vector(blob)
        i = self._slot(key)
        self.vecs[i] = vec
        self.cols["at"][i] = at
        self.live[i] = True

    def put_unit_rows(self, rows: Sequence[Sequence[Any]]) -> None:
        """:meth:`put_unit` of every row (:class:`UnitRow`'s fields in order, as tuples):
        into an empty table, as one array fill (a cold recall loads a user's whole table; row
        by row, the Python calls cost more than the read)."""
        blobs = self._bulk_blobs(rows, 9)
        if blobs is None:
            for r in rows:
                self.put_unit(UnitRow(*r))
            return
        m = self._fill(rows, blobs)
        c = self.cols
        c["created_at"][:m] = [r[3] for r in rows]
        c["expires_at"][:m] = [r[4] for r in rows]
        c["valid_at"][:m] = [NEVER_BEFORE if r[5] is None else r[5] for r in rows]
        c["valid_until"][:m] = [NEVER_AFTER if r[6] is None else r[6] for r in rows]
        c["invalidated_at"][:m] = [NEVER_AFTER if r[7] is None else r[7] for r in rows]
        c["superseded"][:m] = [1 if r[8] else 0 for r in rows]
        sessions = self.sessions
        c["session"][:m] = [sessions.setdefault(r[1], len(sessions)) for r in rows]
        c["type"][:m] = [_TYPE_CODE.get(r[2], -1) for r in rows]

    def put_turn_rows(self, rows: Sequence[Sequence[Any]]) -> None:
        """:meth:`put_turn` of every ``(key, at, blob)`` row, into an empty table at once."""
        blobs = self._bulk_blobs(rows, 2)
        if blobs is None:
            for r in rows:
                self.put_turn(r[0], int(r[1]), r[2])
            return
        m = self._fill(rows, blobs)
        self.cols["at"][:m] = [r[1] for r in rows]

    def _bulk_blobs(self, rows: Sequence[Sequence[Any]], at: int) -> list[bytes] | None:
        """The rows' vectors when one array fill can take them: an empty table, distinct
        keys, vectors all of one non-zero size (else None: row by row, which raises what a
        mismatch raises)."""
        if self.n or not rows:
            return None
        blobs = [r[at] for r in rows]
        size = len(blobs[0])
        if size == 0 or size % 4 or any(len(b) != size for b in blobs):
            return None
        if len({r[0] for r in rows}) != len(rows):
            return None
        return blobs

    def _fill(self, rows: Sequence[Sequence[Any]], blobs: list[bytes]) -> int:
        """Keys and vectors of the rows into slots 0.. (the capacity grown as row-by-row puts
        grow it); the caller fills the columns. Returns the row count."""
        m, dim = len(rows), len(blobs[0]) // 4
        if dim != self.dim:  # empty: take the vectors' size, as :meth:`_vector` does
            self._reset(dim, self.vecs.shape[0])
        cap = self.vecs.shape[0]
        while cap < m:
            cap *= 2
        self._grow(cap)
        self.vecs[:m] = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(m, dim)
        self.ids = [r[0] for r in rows]
        self.row = {k: i for i, k in enumerate(self.ids)}
        self.n = m
        self.live[:m] = True
        return m

    def drop(self, key: str) -> None:
        i = self.row.pop(key, None)
        if i is not None:
            self.live[i] = False
            if self.n > 64 and len(self.row) < self.n // 2:
                self.compact()

    def compact(self) -> None:
        """Squeeze dead slots out (keeps the capacity)."""
        keep = np.flatnonzero(self.live[:self.n])
        m = int(keep.size)
        self.vecs[:m] = self.vecs[keep]
        for arr in self.cols.values():
            arr[:m] = arr[keep]
        self.live[:m] = True
        self.live[m:] = False
        self.ids = [self.ids[int(i)] for i in keep]
        self.row = {k: j for j, k in enumerate(self.ids)}
        self.n = m

    # ---------------------------------------------------------------- reads
    def _check_dim(self, query: Vector, embedder: str) -> NDArray[np.float32]:
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if self.size and q.shape[0] != self.dim:
            raise StoreError(
                f"vectors of embedder {embedder!r} do not all have dimension {q.shape[0]}")
        return q

    def unit_mask(self, scope: Scope, as_of: int, history: bool, since: int | None,
                  until: int | None, types: Sequence[MemoryType] | None) -> Bools:
        """The rows :func:`~..sql.filters.visible_sql`, ``scope_sql``, the window and
        ``types_sql`` keep (the user is the table's)."""
        n, c = self.n, self.cols
        created, valid_at = c["created_at"][:n], c["valid_at"][:n]
        invalidated = c["invalidated_at"][:n]
        mask = self.live[:n] & (created <= as_of) & (valid_at <= as_of)
        if history:
            mask &= (invalidated > as_of) | (c["superseded"][:n] == 1)
        else:
            mask &= ((c["expires_at"][:n] > as_of) & (c["valid_until"][:n] > as_of)
                     & (invalidated > as_of))
        if since is not None or until is not None:
            world = np.where(valid_at == NEVER_BEFORE, created, valid_at)
            if since is not None:
                mask &= world >= since
            if until is not None:
                mask &= world < until
        if scope.session_id is not None:
            code = self.sessions.get(scope.session_id, -1)
            in_scope = c["session"][:n] == code
            if scope.user_level_types:
                in_scope |= np.isin(c["type"][:n], _codes(scope.user_level_types))
            mask &= in_scope
        if types is not None:
            mask &= np.isin(c["type"][:n], _codes(types))
        return mask

    def turn_mask(self, as_of: int, since: int | None, until: int | None) -> Bools:
        at = self.cols["at"][:self.n]
        mask = self.live[:self.n] & (at <= as_of)
        if since is not None:
            mask &= at >= since
        if until is not None:
            mask &= at < until
        return mask

    def cosines(self, mask: Bools, query: Vector, embedder: str) -> tuple[NDArray[np.intp],
                                                                          NDArray[np.float32]]:
        """Row numbers kept by ``mask`` and their cosines with ``query`` (vectors normalised)."""
        q = self._check_dim(query, embedder)
        rows = np.flatnonzero(mask)
        if rows.size == 0:
            return rows, np.zeros(0, dtype=np.float32)
        # Most rows kept: one product over the contiguous matrix, then pick (gathering the
        # kept rows first would copy most of the matrix: 77 MB for 50k x 384).
        most = rows.size * 4 >= self.n
        sims = row_cosines(self.vecs[:self.n], q)[rows] if most else row_cosines(self.vecs[rows], q)
        return rows, sims

    def top(self, rows: NDArray[np.intp], sims: NDArray[np.float32],
            limit: int) -> list[tuple[str, float]]:
        """The ``limit`` best ``(key, cosine)`` of ``rows``, best first, ties by key."""
        return top_hits(lambda j: self.ids[int(rows[j])], sims, limit)


def row_cosines(matrix: NDArray[np.float32], query: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each row's dot product with ``query``, summed in one fixed order whatever the row's place
    in ``matrix``: the cached table and the SQL scan give the same bits for the same row. (A
    BLAS product does not: its blocking depends on the row's position, and a user's recall gave
    other last bits once their table was loaded, evicted or reloaded in another order.)"""
    sims: NDArray[np.float32] = np.einsum("ij,j->i", matrix, query).astype(np.float32,
                                                                          copy=False)
    return sims


def spread(sims: NDArray[np.float32]) -> tuple[float, float]:
    """Mean and standard deviation of ``sims`` whatever their order (summed sorted, in float64):
    the z-scale of a search must not depend on the order rows were read in."""
    ordered = np.sort(sims.astype(np.float64))
    return float(ordered.mean()), float(ordered.std())


def top_hits(key_of: Callable[[int], str], sims: NDArray[np.floating[Any]],
             limit: int) -> list[tuple[str, float]]:
    """The ``limit`` best ``(key_of(j), sims[j])``, best first, ties by key: the one order of
    the cached and the SQL searches."""
    if limit <= 0 or sims.size == 0:
        return []
    if sims.size > limit:
        # every row tied with the limit-th best joins, so the key breaks ties the same way
        cut = np.partition(-sims, limit - 1)[limit - 1]
        part = np.flatnonzero(-sims <= cut)
    else:
        part = np.arange(sims.size)
    scored = [(-float(sims[j]), key_of(int(j))) for j in part]
    scored.sort()
    return [(key, -neg) for neg, key in scored[:limit]]


def _codes(types: Iterable[MemoryType]) -> NDArray[np.int64]:
    return np.asarray(sorted({_TYPE_CODE[MemoryType(t).value] for t in types}), dtype=np.int64)


@dataclass
class CachedTable:
    """A table and how fresh it is: the change-log head it has applied, under which epoch."""

    table: VectorTable
    synced: int
    epoch: int


class TableCache:
    """Tables by key, least recently used dropped first once their bytes exceed ``max_bytes``.

    The total is kept as a running sum of each table's bytes as last measured (at
    :meth:`put`, and at :meth:`resized` after a refresh changed a table in place), so a put
    costs one table's measure, not one per resident table (1,000 users' tables: a
    quarter of a cold recall's CPU went to re-adding them). It equals the sum over the tables
    at every put, so the same tables are dropped as when it was summed afresh."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._tables: OrderedDict[Hashable, CachedTable] = OrderedDict()
        self._bytes: dict[Hashable, int] = {}
        self._total = 0
        self.loads = 0  # full loads (tests and benchmarks read it)
        self.deltas = 0  # incremental refreshes

    def get(self, key: Hashable) -> CachedTable | None:
        found = self._tables.get(key)
        if found is not None:
            self._tables.move_to_end(key)
        return found

    def put(self, key: Hashable, entry: CachedTable) -> None:
        self._tables[key] = entry
        self._tables.move_to_end(key)
        self._measure(key, entry)
        self.shrink()

    def resized(self, key: Hashable) -> None:
        """Measure ``key``'s table again (it was changed in place)."""
        entry = self._tables.get(key)
        if entry is not None:
            self._measure(key, entry)

    def _measure(self, key: Hashable, entry: CachedTable) -> None:
        size = entry.table.nbytes
        self._total += size - self._bytes.get(key, 0)
        self._bytes[key] = size

    def fits(self, nbytes: int) -> bool:
        return nbytes <= self.max_bytes

    def shrink(self) -> None:
        """Drop least recently used tables until the total fits (the newest always stays
        unless it alone is too big)."""
        while self._tables and self._total > self.max_bytes:
            key, _ = self._tables.popitem(last=False)
            self._total -= self._bytes.pop(key, 0)

    def discard(self, key: Hashable) -> None:
        if self._tables.pop(key, None) is not None:
            self._total -= self._bytes.pop(key, 0)

    def clear(self) -> None:
        self._tables.clear()
        self._bytes.clear()
        self._total = 0

    def cached_keys(self) -> list[Hashable]:
        return list(self._tables)

    @property
    def nbytes(self) -> int:
        return sum(e.table.nbytes for e in self._tables.values())

    def stats(self) -> dict[str, Any]:
        return {"tables": len(self._tables), "bytes": self.nbytes, "loads": self.loads,
                "deltas": self.deltas, "max_bytes": self.max_bytes}
