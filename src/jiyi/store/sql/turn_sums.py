"""Running sums of a user's turn vectors: the dense z-scale of the episodic search without a scan.

Recall puts the raw turns' cosines on one scale with their mean and spread over every turn of
the user (:class:`~..base.Scored`). Over ``n`` vectors ``x`` the scores ``q·x`` have mean
``q·μ`` and variance ``qᵀ(M/n)q − (q·μ)²``, with ``μ = Σx/n`` and ``M = Σxxᵀ``. So the store
keeps, per (user, embedder), ``n``, ``Σx`` and the upper triangle of ``M`` in float64
(``turn_vector_sums``, migration ``m010``), changed in the transaction of every write that adds,
overwrites or removes a turn vector (an erase deletes the row with the user's other rows), and
a search reads the scale from them instead of computing every cosine.

A write does not rewrite the ~590 kB row: it appends each vector it adds or removes, with its
sign, to ``turn_sum_pending`` (1.5 kB each), and every :data:`FOLD_EVERY` pending vectors the
write folds them into the row (measured: a one-turn write of a user with sums went from 0.4 to
10.8 ms p50 when every write rewrote the row). A search reads the row and the pending vectors
in one statement (one snapshot) and adds the pending ones' few dot products.

Only users with at least :data:`SUMS_MIN_TURNS` turn vectors get a row (at 384 dimensions a
row holds ~590 kB, a 1000-turn user's vectors 1.5 MB; below that the scan is cheap): the write
that reaches it builds the row from the user's vectors, and the migration builds the rows of
existing stores. A row covers the vectors of its ``dim``; ``max_at`` bounds their instants from
above (never lowered when a vector leaves), so the sums stand for "every turn at or before
``as_of``" only when ``max_at <= as_of``; otherwise, for a windowed search or without a row,
the search scans as before.
"""

from __future__ import annotations

import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: Users with at least this many turn vectors (of one embedder) keep running sums.
SUMS_MIN_TURNS = 1000

#: Pending vectors a write folds into the row once there are this many.
FOLD_EVERY = 64

#: A neutral statement run in the open transaction; returns its rows.
Exec = Callable[[str, Any], list[Any]]
F64 = NDArray[np.float64]

SUMS_COLUMNS = "dim, n, max_at, version, sx, sxx"


@lru_cache(maxsize=8)
def _triu(dim: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    iu, ju = np.triu_indices(dim)
    return iu, ju


def as_f32(value: Any) -> NDArray[np.float32]:
    """A stored vector (SQLite's float32 BLOB or pgvector's array) as a flat float32 array."""
    if isinstance(value, bytes | bytearray | memoryview):
        return np.frombuffer(bytes(value), dtype=np.float32)
    raw = value.to_numpy() if hasattr(value, "to_numpy") else value
    return np.asarray(raw, dtype=np.float32).reshape(-1)


@dataclass
class TurnSums:
    """``n``, ``Σx`` and the packed upper triangle of ``Σxxᵀ`` of one user's vectors of ``dim``
    dimensions, and an upper bound of their instants."""

    dim: int
    n: int = 0
    max_at: int = np.iinfo(np.int64).min
    sx: F64 = field(default_factory=lambda: np.zeros(0))
    sxx: F64 = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self) -> None:
        if self.sx.size == 0:
            self.sx = np.zeros(self.dim)
        if self.sxx.size == 0:
            self.sxx = np.zeros(self.dim * (self.dim + 1) // 2)

    def add(self, vecs: Sequence[NDArray[np.float32]], ats: Sequence[int], sign: int = 1) -> None:
        """Add (``sign`` 1) or take away (-1) vectors of this dimension (others are ignored)."""
        kept = [v for v in vecs if v.shape[0] == self.dim]
        if not kept:
            return
        x = np.stack(kept).astype(np.float64)
        self.sx += sign * x.sum(axis=0)
        iu, ju = _triu(self.dim)
        self.sxx += sign * (x.T @ x)[iu, ju]
        self.n += sign * len(kept)
        if sign > 0 and ats:
            self.max_at = max(self.max_at, max(int(a) for a in ats))

    def matrix(self) -> F64:
        """``Σxxᵀ`` as a full symmetric matrix."""
        iu, ju = _triu(self.dim)
        full = np.zeros((self.dim, self.dim))
        full[iu, ju] = self.sxx
        full[ju, iu] = self.sxx
        return full


@dataclass(frozen=True)
class Scale:
    """Mean, standard deviation and count of the scores of a query over a user's turns."""

    mean: float
    std: float
    n: int


@dataclass
class _Loaded:
    version: int
    sums: TurnSums
    matrix: F64

    def scale(self, query: NDArray[np.float64], pending: Sequence[Sequence[Any]],
              as_of: int) -> Scale | None:
        """The scale over the folded sums and the ``(dim, sign, at, vec)`` pending rows; None
        when nothing is left or a turn may lie after ``as_of``."""
        q = query
        n, first, second = self.sums.n, float(q @ self.sums.sx), float(q @ self.matrix @ q)
        max_at = self.sums.max_at
        for dim, sign, at, blob in pending:
            if int(dim) != self.sums.dim:
                continue
            c = float(q @ np.frombuffer(bytes(blob), dtype=np.float32).astype(np.float64))
            n += int(sign)
            first += int(sign) * c
            second += int(sign) * c * c
            if int(sign) > 0:
                max_at = max(max_at, int(at))
        if n <= 0 or max_at > as_of:
            return None
        mean = first / n
        return Scale(mean, max(0.0, second / n - mean * mean) ** 0.5, n)


# ---------------------------------------------------------------- writes
@dataclass
class TurnChanges:
    """The turn vectors a write transaction adds and removes, by (user, embedder)."""

    added: dict[tuple[str, str], list[tuple[NDArray[np.float32], int]]] = field(
        default_factory=dict)
    removed: dict[tuple[str, str], list[tuple[NDArray[np.float32], int]]] = field(
        default_factory=dict)

    def add(self, user_id: str, embedder: str, vec: NDArray[np.float32], at: int) -> None:
        self.added.setdefault((user_id, embedder), []).append((vec, at))

    def remove(self, user_id: str, embedder: str, vec: NDArray[np.float32], at: int) -> None:
        self.removed.setdefault((user_id, embedder), []).append((vec, at))

    def touched(self) -> list[tuple[str, str]]:
        return sorted(set(self.added) | set(self.removed))


def _load(run: Exec, user_id: str, embedder: str) -> tuple[TurnSums | None, bool]:
    rows = run(f"SELECT {SUMS_COLUMNS} FROM turn_vector_sums WHERE user_id = ? AND embedder = ?",
               (user_id, embedder))
    if not rows:
        return None, False
    return decode(rows[0]), True


def decode(row: Sequence[Any]) -> TurnSums:
    """A ``turn_vector_sums`` row (:data:`SUMS_COLUMNS`) as sums."""
    return TurnSums(int(row[0]), int(row[1]), int(row[2]),
                    np.frombuffer(bytes(row[4]), dtype=np.float64).copy(),
                    np.frombuffer(bytes(row[5]), dtype=np.float64).copy())


def _save(run: Exec, user_id: str, embedder: str, sums: TurnSums, existed: bool) -> None:
    if sums.n <= 0:
        if existed:
            run("DELETE FROM turn_vector_sums WHERE user_id = ? AND embedder = ?",
                (user_id, embedder))
        return
    params = {"user": user_id, "emb": embedder, "dim": sums.dim, "n": sums.n,
              "max_at": sums.max_at, "version": random.getrandbits(62),
              "sx": sums.sx.astype(np.float64).tobytes(),
              "sxx": sums.sxx.astype(np.float64).tobytes()}
    run("INSERT INTO turn_vector_sums (user_id, embedder, dim, n, max_at, version, sx, sxx)"
        " VALUES (:user, :emb, :dim, :n, :max_at, :version, :sx, :sxx)"
        " ON CONFLICT (user_id, embedder) DO UPDATE SET dim = excluded.dim, n = excluded.n,"
        " max_at = excluded.max_at, version = excluded.version, sx = excluded.sx,"
        " sxx = excluded.sxx", params)


def rebuild(run: Exec, user_id: str, embedder: str) -> None:
    """The row of (``user_id``, ``embedder``) computed from their stored turn vectors (of the
    dimension most of them have)."""
    rows = run("SELECT dim, at, vec FROM turn_vectors WHERE user_id = ? AND embedder = ?",
               (user_id, embedder))
    _, existed = _load(run, user_id, embedder)
    if not rows:
        _save(run, user_id, embedder, TurnSums(1), existed)
        run("DELETE FROM turn_sum_pending WHERE user_id = ? AND embedder = ?",
            (user_id, embedder))
        return
    dims: dict[int, int] = {}
    for r in rows:
        dims[int(r[0])] = dims.get(int(r[0]), 0) + 1
    dim = max(dims, key=lambda d: (dims[d], d))
    sums = TurnSums(dim)
    step = 4096
    for start in range(0, len(rows), step):
        part = rows[start:start + step]
        sums.add([as_f32(r[2]) for r in part], [int(r[1]) for r in part])
    _save(run, user_id, embedder, sums, existed)
    run("DELETE FROM turn_sum_pending WHERE user_id = ? AND embedder = ?", (user_id, embedder))


def apply_changes(run: Exec, changes: TurnChanges, min_turns: int,
                  fold_every: int = FOLD_EVERY) -> None:
    """Bring the sums of every (user, embedder) ``changes`` touched up to date, inside the
    write transaction that made the changes (``run`` executes in it): the changed vectors
    join the pending ones, folded into the row once there are ``fold_every``."""
    for user_id, embedder in changes.touched():
        key = (user_id, embedder)
        if not run("SELECT 1 FROM turn_vector_sums WHERE user_id = ? AND embedder = ?", key):
            count = run("SELECT COUNT(*) FROM turn_vectors WHERE user_id = ? AND embedder = ?",
                        key)[0][0]
            if int(count) >= min_turns:
                rebuild(run, user_id, embedder)
            continue
        rows = [(user_id, embedder, sign, at, int(v.shape[0]), v.astype(np.float32).tobytes())
                for sign, part in ((-1, changes.removed.get(key, [])),
                                   (1, changes.added.get(key, [])))
                for v, at in part]
        for row in rows:
            run("INSERT INTO turn_sum_pending (user_id, embedder, sign, at, dim, vec)"
                " VALUES (?, ?, ?, ?, ?, ?)", row)
        pending = run("SELECT COUNT(*) FROM turn_sum_pending WHERE user_id = ? AND embedder = ?",
                      key)[0][0]
        if int(pending) >= fold_every:
            fold(run, user_id, embedder)


def fold(run: Exec, user_id: str, embedder: str) -> None:
    """Add the pending vectors of (``user_id``, ``embedder``) into its row and drop them."""
    key = (user_id, embedder)
    sums, existed = _load(run, user_id, embedder)
    rows = run("SELECT sign, at, vec FROM turn_sum_pending WHERE user_id = ? AND embedder = ?",
               key)
    if sums is not None:
        for sign in (-1, 1):
            part = [r for r in rows if int(r[0]) == sign]
            sums.add([as_f32(r[2]) for r in part], [int(r[1]) for r in part], sign=sign)
        _save(run, user_id, embedder, sums, existed)
    run("DELETE FROM turn_sum_pending WHERE user_id = ? AND embedder = ?", key)


def big_pairs(run: Exec, min_turns: int) -> list[tuple[str, str]]:
    """Every (user, embedder) with at least ``min_turns`` turn vectors, sorted."""
    pairs = run("SELECT user_id, embedder FROM turn_vectors GROUP BY user_id, embedder"
                " HAVING COUNT(*) >= ?", (max(1, min_turns),))
    return sorted((str(a), str(b)) for a, b in pairs)


def rebuild_all(run: Exec, min_turns: int) -> int:
    """Rows for every (user, embedder) with at least ``min_turns`` turn vectors, in the one
    transaction of ``run`` (after a bulk copy). Returns how many were built."""
    pairs = big_pairs(run, min_turns)
    for user_id, embedder in pairs:
        rebuild(run, user_id, embedder)
    return len(pairs)


# ---------------------------------------------------------------- reads
class SumsCache:
    """The rows a process has read, by (user, embedder), checked against the stored
    ``version`` at every read (one small query; the blobs are read again only when it moved).

    A user found without a row is not asked again for :attr:`absent_s` seconds (most users
    are below the threshold; on PostgreSQL the question is a round trip): their searches scan,
    which is exact, so a row another process builds meanwhile changes no result, only the cost.
    This process's own writes forget the answer at once (:meth:`forget`)."""

    def __init__(self, max_entries: int = 32, absent_s: float = 10.0) -> None:
        """At most ``max_entries`` rows kept (each ~1.2 MB at 384 dimensions: ~38 MB)."""
        self.max_entries = max_entries
        self.absent_s = absent_s
        self._entries: OrderedDict[tuple[str, str], _Loaded] = OrderedDict()
        self._absent: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()
        self.reads = 0  # rows whose blobs were read (tests)

    def forget_absent(self) -> None:
        """Rows were built for any user (a backfill, a bulk copy): ask again for everyone."""
        with self._lock:
            self._absent.clear()

    def forget(self, user_id: str, embedder: str) -> None:
        """This process changed the user's turn vectors: ask the store again next time."""
        with self._lock:
            self._absent.pop((user_id, embedder), None)

    def scale(self, read: Callable[[str, Any], Sequence[Sequence[Any]]], user_id: str,
              embedder: str, query: NDArray[np.float32], as_of: int) -> Scale | None:
        """The scale of ``query`` over every turn vector of the user at or before ``as_of``,
        from the sums; None when there is no row, it has another dimension, or a turn of it
        may lie after ``as_of`` (the caller scans)."""
        key = (user_id, embedder)
        with self._lock:
            known = self._entries.get(key)
            since = self._absent.get(key)
            if since is not None and time.monotonic() - since < self.absent_s:
                return None
        # the row (its blobs only when its version moved) and the pending vectors, in ONE
        # statement: a fold committing in between cannot make a vector count twice or never
        rows = read(
            "SELECT 0, dim, n, max_at, version,"
            " CASE WHEN version = :known THEN NULL ELSE sx END,"
            " CASE WHEN version = :known THEN NULL ELSE sxx END"
            " FROM turn_vector_sums WHERE user_id = :user AND embedder = :emb"
            " UNION ALL SELECT 1, dim, sign, at, 0, vec, NULL FROM turn_sum_pending"
            " WHERE user_id = :user AND embedder = :emb",
            {"known": known.version if known else -1, "user": user_id, "emb": embedder})
        head = [r for r in rows if int(r[0]) == 0]
        if not head:
            with self._lock:
                self._entries.pop(key, None)
                if len(self._absent) > 100_000:
                    self._absent.clear()
                self._absent[key] = time.monotonic()
            return None
        row = head[0][1:]
        if known is None or int(row[3]) != known.version:
            sums = decode(row)
            known = _Loaded(int(row[3]), sums, sums.matrix())
            sums.sxx = np.zeros(0)  # the full matrix is kept instead (~1.2 MB an entry)
            with self._lock:
                self.reads += 1
                self._entries[key] = known
                self._entries.move_to_end(key)
                while len(self._entries) > self.max_entries:
                    self._entries.popitem(last=False)
        q = np.asarray(query, dtype=np.float64).reshape(-1)
        if known.sums.dim != q.shape[0]:
            return None
        return known.scale(q, [(*r[1:4], r[5]) for r in rows if int(r[0]) == 1], as_of)
