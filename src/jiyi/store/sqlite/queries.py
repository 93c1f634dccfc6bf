"""The reads only SQLite does its own way, as mixins of :class:`~.store.SQLiteStore`: keyword
search (FTS5 with the user's BM25, or the resident keyword index), vector searches (through the
resident per-user tables, else exact over the BLOBs), the warm-up, and the plumbing the shared
reads of :mod:`..sql.reads` need (a read with driver errors wrapped, a snapshot, the file size).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from ...clock import to_micros, utc_now
from ...errors import StoreError
from ..base import Scope, Scored, Vector
from ..cache.bm25 import bm25_rank
from ..cache.keywords import KeywordTable
from ..cache.vectors import row_cosines, spread, top_hits
from ..sql.dialect import SQLITE
from ..sql.filters import VALID_AT_SQL, turn_window_sql, unit_search_sql
from ..sql.reads import Rows, SqlReads, VectorSearch
from ..sql.rows import UNIT_COLUMNS
from ..sql.turn_sums import SumsCache
from .caches import SqliteVectorCache
from .fts import fts_query
from .migrations import owner_token


class _SqliteBase(SqlReads):
    """What the mixins need from the store: its connection and lock; reads for the shared
    queries, with driver errors as :class:`StoreError`."""

    dialect = SQLITE
    location: str
    _lock: threading.RLock
    _conn: sqlite3.Connection
    _closed: bool
    turn_sums: SumsCache

    @contextmanager
    def _reading(self, doing: str = "read") -> Iterator[sqlite3.Connection]:
        """The connection, under the lock, for reads: a closed store or a driver error (a
        corrupt file, a missing table, a disk error) is a :class:`StoreError` naming the file,
        never a raw ``sqlite3`` exception."""
        with self._lock:
            if self._closed:
                raise StoreError("the store is closed")
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite {doing} failed ({self.location}): {exc}") from exc

    def _read(self, query: str, params: Any = None) -> list[sqlite3.Row]:
        with self._reading() as conn:
            return list(conn.execute(query, () if params is None else params))

    @contextmanager
    def _snapshot(self) -> Iterator[Rows]:
        """A read transaction (unless one is open: then its view) around the runner."""
        with self._reading() as conn:
            own = not conn.in_transaction
            if own:
                conn.execute("BEGIN")
            try:
                yield self._read
            finally:
                if own:
                    conn.execute("COMMIT")

    def _size_bytes(self) -> int:
        """The database file and its WAL."""
        if self.location == ":memory:":
            return 0
        return sum(os.path.getsize(p) for p in (self.location, self.location + "-wal")
                   if os.path.exists(p))


class SqliteSearch(SqliteVectorCache, _SqliteBase):
    """Keyword and vector searches (through the resident per-user tables of
    :mod:`.caches` and :mod:`..cache.keywords` when they are on)."""

    def keyword_search(
        self, scope: Scope, as_of: datetime, terms: Sequence[str], limit: int,
        since: datetime | None = None, until: datetime | None = None, history: bool = False,
    ) -> list[tuple[str, float]]:
        return self.keyword_scored(scope, as_of, terms, limit, since, until, history).hits

    def keyword_scored(
        self, scope: Scope, as_of: datetime, terms: Sequence[str], limit: int,
        since: datetime | None = None, until: datetime | None = None, history: bool = False,
    ) -> Scored:
        body = fts_query(terms)
        if body is None:
            return Scored([])
        with self._reading():  # a big user: their resident keyword index (keyword_cache)
            table = self._cached_table("kw", scope.user_id, "", 0)
            if isinstance(table, KeywordTable):
                return table.search(scope, to_micros(as_of), terms, limit, _opt(since),
                                    _opt(until), history)
        # The owner filter makes FTS5 walk only this user's postings (not the whole index);
        # scope_sql below still decides who may see a row. Ranked by BM25 on the body with the
        # user's statistics (fts_rank): FTS5's bm25() would scan every matching doclist in full.
        owner = f'owner:"{owner_token(scope.user_id)}"'
        params: dict[str, Any] = {"match": f"{owner} AND body:({body})",
                                  "as_of": to_micros(as_of)}
        filters = unit_search_sql(self.dialect, scope, params, history=history, since=since,
                                  until=until)
        sql = ("SELECT f.unit_id, f.body FROM units_fts f JOIN units u ON u.id = f.unit_id"
               f" WHERE units_fts MATCH :match AND {filters}")
        rows = self._read(sql, params)  # a malformed MATCH (a bug) is a StoreError too
        if not rows:
            return Scored([])
        n_docs = int(self._read("SELECT COUNT(*) FROM units_fts WHERE units_fts MATCH ?",
                                (owner,))[0][0])
        ranked = bm25_rank([(r[0], r[1]) for r in rows], terms, n_docs)
        full = Scored.of(ranked, n_docs)
        return Scored(ranked[:limit], full.mean, full.std, full.n)

    def load_user_tables(self, user_id: str, embedder: str, dim: int) -> None:
        """The user's unit and turn vector tables in (or brought up to date) now: recall
        calls it while the query is embedded, so a cold user's searches after the wait find
        them resident (:class:`~..capabilities.ResidentTablesStore`). A table already resident
        is left to the search (which checks its freshness, as always: a write in between is
        applied then), so a warm user's recall pays no extra read."""
        cache = self.vector_cache
        if cache is None:
            return
        with self._reading():
            for kind in ("unit", "turn"):
                if cache.get((kind, user_id, embedder)) is None:
                    self._cached_table(kind, user_id, embedder, dim)

    def _vector_hits(self, search: VectorSearch) -> list[tuple[str, float]]:
        """Through the user's resident table when it is on, else exact over the BLOBs."""
        scope, as_of, embedder, q = search.scope, search.as_of, search.embedder, search.query
        since, until, types, history = search.since, search.until, search.types, search.history
        limit = search.limit
        with self._reading():
            table = self._cached_table("unit", scope.user_id, embedder, int(q.shape[0]))
            if table is not None:
                mask = table.unit_mask(scope, to_micros(as_of), history, _opt(since),
                                       _opt(until), types)
                rows_, sims_ = table.cosines(mask, q, embedder)
                return table.top(rows_, sims_, limit)
        params: dict[str, Any] = {"emb": embedder, "as_of": to_micros(as_of)}
        filters = unit_search_sql(self.dialect, scope, params, history=history, since=since,
                                  until=until, types=types)
        rows = self._read(
            "SELECT v.unit_id, v.vec FROM unit_vectors v JOIN units u ON u.id = v.unit_id"
            f" WHERE v.embedder = :emb AND {filters}", params)
        return _top_cosines(rows, q, embedder, limit)

    # -- the episodic layer: raw turns, searchable across the user's sessions
    def turn_vector_search(
        self, user_id: str, as_of: datetime, embedder: str, query: Vector, limit: int,
        since: datetime | None = None, until: datetime | None = None,
    ) -> Scored:
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        # the z-scale from the user's running sums (turn_sums) when they cover the search
        scale = (self.turn_sums.scale(self._read, user_id, embedder, q, to_micros(as_of))
                 if since is None and until is None else None)
        with self._reading():
            table = self._cached_table("turn", user_id, embedder, int(q.shape[0]))
            if table is not None:
                mask = table.turn_mask(to_micros(as_of), _opt(since), _opt(until))
                rows_, sims_ = table.cosines(mask, q, embedder)
                if sims_.size == 0:
                    return Scored([])
                top = table.top(rows_, sims_, limit)
                if scale is not None and scale.n == sims_.size:
                    return Scored(top, scale.mean, scale.std, scale.n)
                return Scored(top, *spread(sims_), int(sims_.size))
        params: dict[str, Any] = {"user": user_id, "emb": embedder, "as_of": to_micros(as_of)}
        rows = self._read(
            "SELECT turn_key, vec FROM turn_vectors WHERE user_id = :user AND embedder = :emb"
            f" AND at <= :as_of{turn_window_sql(params, since, until)}", params)
        sims = _cosines(rows, query, embedder)
        if sims.size == 0:
            return Scored([])
        top = top_hits(lambda j: str(rows[j][0]), sims, limit)
        if scale is not None and scale.n == sims.size:
            return Scored(top, scale.mean, scale.std, scale.n)
        return Scored(top, *spread(sims), int(sims.size))


def _opt(value: datetime | None) -> int | None:
    return None if value is None else to_micros(value)


def _cosines(rows: Sequence[Sequence[Any]], query: Vector, embedder: str) -> np.ndarray:
    """Cosines of ``(id, float32 blob)`` rows against ``query`` (vectors are normalised)."""
    if not rows:
        return np.zeros(0, dtype=np.float32)
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
    if mat.size != len(rows) * q.shape[0]:
        raise StoreError(f"vectors of embedder {embedder!r} do not all have dimension {q.shape[0]}")
    return row_cosines(mat.reshape(len(rows), q.shape[0]), q)


def _top_cosines(rows: Sequence[Sequence[Any]], query: Vector, embedder: str,
                 limit: int) -> list[tuple[str, float]]:
    """The ``limit`` best ``(id, cosine)`` of ``(id, float32 blob)`` rows against ``query``."""
    sims = _cosines(rows, query, embedder)
    return top_hits(lambda j: str(rows[j][0]), sims, limit)


class SqliteReports(SqliteSearch):
    """The warm-up (the shared reports are in :class:`~..sql.reads.SqlReads`)."""

    def warm(self, hours: float) -> int:
        """Read the last ``hours`` of valid units (and their vectors) into SQLite's page cache."""
        now = utc_now()
        params = {"since": to_micros(now - timedelta(hours=hours)), "as_of": to_micros(now)}
        rows = self._read(
            f"SELECT {UNIT_COLUMNS} FROM units u WHERE u.created_at >= :since AND {VALID_AT_SQL}",
            params)
        self._read(
            "SELECT length(v.vec) FROM unit_vectors v JOIN units u ON u.id = v.unit_id"
            f" WHERE u.created_at >= :since AND {VALID_AT_SQL}", params)
        return len(rows)
