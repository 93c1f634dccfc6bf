"""The reads only PostgreSQL does its own way, as mixins of :class:`~.store.PostgresStore`:
keyword search (tsvector, then trigrams), vector search (exact or bucketed HNSW), the turn
vector scan, and the plumbing the shared reads of :mod:`..sql.reads` need (a snapshot, the
database size). The shared filters are neutral SQL, put in psycopg's style by the dialect.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any

import numpy as np
import psycopg
from psycopg import sql

from ...clock import to_micros
from ..base import Scope, Scored, Vector
from ..sql.dialect import POSTGRES
from ..sql.filters import turn_window_sql, unit_search_sql
from ..sql.reads import Rows, SqlReads, VectorSearch
from ..sql.turn_sums import SumsCache
from .fts import like_patterns, tsquery_text
from .migrations import user_bucket

Conn = psycopg.Connection[tuple[Any, ...]]


class _PgBase(SqlReads):
    """What the mixins need from the store."""

    dialect = POSTGRES
    turn_sums: SumsCache

    def connection(self) -> AbstractContextManager[Conn]:
        raise NotImplementedError


class PgSearch(_PgBase):
    """Entity, keyword and vector search."""

    #: Users with at most this many units get an exact vector scan; more use HNSW.
    exact_scan_max = 20_000

    def keyword_scored(
        self, scope: Scope, as_of: datetime, terms: Sequence[str], limit: int,
        since: datetime | None = None, until: datetime | None = None, history: bool = False,
    ) -> Scored:
        hits = self.keyword_search(scope, as_of, terms, limit, since, until, history)
        if not hits:
            return Scored([])
        # the user's documents = their units (one keyword row each): counted on the units
        # index, not by a bitmap scan of units_fts (65 ms for a 40k-unit user)
        n = self._search_read("SELECT count(*) FROM units WHERE user_id = %(u)s",
                              {"u": scope.user_id})[0][0]
        return Scored.of(hits, int(n))

    def keyword_search(
        self, scope: Scope, as_of: datetime, terms: Sequence[str], limit: int,
        since: datetime | None = None, until: datetime | None = None, history: bool = False,
    ) -> list[tuple[str, float]]:
        """Full-text search (``simple`` tsvector over the jieba-segmented text, ranked by
        ``ts_rank_cd``); only when it finds nothing, ``pg_trgm``-indexed substring matches of
        terms of 3+ characters (a code typed in part, a word the segmenter split differently)."""
        tsq = tsquery_text(terms)
        if tsq is None:
            return []
        params: dict[str, Any] = {"tsq": tsq, "as_of": to_micros(as_of), "limit": limit}
        filters = unit_search_sql(self.dialect, scope, params, history=history, since=since,
                                  until=until)
        # f.user_id first: the (user_id, tsv) GIN index walks only this user's postings (m005)
        out = [(r[0], float(r[1])) for r in self._search_read(
            "SELECT f.unit_id, ts_rank_cd(f.tsv, q.q) AS rank"
            " FROM to_tsquery('simple', %(tsq)s) AS q(q), units_fts f"
            " JOIN units u ON u.id = f.unit_id"
            f" WHERE f.user_id = %(scope_user)s AND f.tsv @@ q.q AND {filters}"
            " ORDER BY rank DESC, f.unit_id LIMIT %(limit)s",
            params)]
        patterns = like_patterns(terms)
        if not out and patterns:
            params["pats"] = patterns
            out = [(r[0], 0.0) for r in self._search_read(
                "SELECT f.unit_id FROM units_fts f JOIN units u ON u.id = f.unit_id"
                f" WHERE f.user_id = %(scope_user)s AND f.body ILIKE ANY(%(pats)s) AND {filters}"
                " ORDER BY u.created_at DESC, f.unit_id LIMIT %(limit)s", params)]
        return out

    @contextmanager
    def _search_connection(self) -> Iterator[Conn]:
        """A transaction for recall queries, without parallel workers: on a busy server (many
        agent workers, few cores) starting two workers per search costs more than it saves
        (measured: 70 ms with, 41 ms without, for a 40k-unit user's keyword search)."""
        with self.connection() as conn, conn.transaction():
            conn.execute("SET LOCAL max_parallel_workers_per_gather = 0")
            yield conn

    def _search_read(self, query: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        with self._search_connection() as conn:
            return conn.execute(self.dialect.sql(query), params).fetchall()

    def _vector_hits(self, search: VectorSearch) -> list[tuple[str, float]]:
        """An exact scan for a user with few units, else the bucketed HNSW index."""
        embedder, q = search.embedder, search.query
        dim = int(q.shape[0])
        params: dict[str, Any] = {"emb": embedder, "as_of": to_micros(search.as_of), "q": q,
                                  "limit": search.limit, "dim": dim,
                                  "cap": self.exact_scan_max + 1}
        # types: per-type embedders, only the types routed to `embedder`
        filters = self.dialect.sql(unit_search_sql(
            self.dialect, search.scope, params, history=search.history, since=search.since,
            until=search.until, types=search.types))
        with self._search_connection() as conn:
            n = conn.execute("SELECT count(*) FROM (SELECT 1 FROM units u"
                             " WHERE u.user_id = %(scope_user)s LIMIT %(cap)s) c",
                             params).fetchone()
            if n is not None and int(n[0]) <= self.exact_scan_max:
                rows = conn.execute(
                    "SELECT v.unit_id, 1 - (v.vec <=> %(q)s) FROM units u JOIN unit_vectors v"
                    " ON v.unit_id = u.id AND v.embedder = %(emb)s AND v.dim = %(dim)s"
                    f" WHERE {filters} ORDER BY v.vec <=> %(q)s, v.unit_id LIMIT %(limit)s",
                    params).fetchall()
            else:
                rows = self._hnsw_search(conn, embedder, dim, filters, params)
        return [(r[0], float(r[1])) for r in rows]

    @staticmethod
    def _hnsw_search(conn: Conn, embedder: str, dim: int, filters: str,
                     params: dict[str, Any]) -> list[tuple[Any, ...]]:
        """Approximate search through the HNSW index of (embedder, dim) and the user's bucket
        (m008: a graph where most rows are this user's), the owner checked on the vector row
        and the other filters on the unit while walking (``iterative_scan``), then re-sorted
        exactly. The bucket is a literal so the planner can prove the partial index."""
        conn.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(
            sql.Literal(max(64, 2 * int(params["limit"])))))
        conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        typed = sql.SQL("vector({})").format(sql.Literal(dim))
        query = sql.SQL(
            "WITH nn AS MATERIALIZED (SELECT v.unit_id, v.vec::{t} <=> %(q)s::{t} AS dist"
            " FROM unit_vectors v JOIN units u ON u.id = v.unit_id"
            " WHERE v.embedder = {emb} AND v.dim = {dim} AND v.bucket = {bucket}"
            " AND v.user_id = %(scope_user)s AND {filters}"
            " ORDER BY v.vec::{t} <=> %(q)s::{t} LIMIT %(limit)s)"
            " SELECT unit_id, 1 - dist FROM nn ORDER BY dist, unit_id"
        ).format(t=typed, emb=sql.Literal(embedder), dim=sql.Literal(dim),
                 bucket=sql.Literal(user_bucket(str(params["scope_user"]))),
                 filters=sql.SQL(filters))
        return conn.execute(query, params).fetchall()

    # -- the episodic layer
    def turn_vector_search(
        self, user_id: str, as_of: datetime, embedder: str, query: Vector, limit: int,
        since: datetime | None = None, until: datetime | None = None,
    ) -> Scored:
        """An exact scan of the user's turn vectors (through ``turn_vectors_by_user``): ONE
        pass computes every cosine once (materialised), then the mean and spread over all of
        them and the best ``limit`` (a top-N sort). Cost: reading the user's vectors (~1.6 kB
        each at 384 dimensions, ~100 ms warm for 40k turns on 2 cores) and one distance per
        turn; measured in docs/benchmarks/pg.md."""
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        params: dict[str, Any] = {"user": user_id, "emb": embedder, "as_of": to_micros(as_of),
                                  "q": q, "dim": int(q.shape[0]), "limit": limit}
        window = self.dialect.sql(turn_window_sql(params, since, until))
        scale = (self.turn_sums.scale(self._search_read, user_id, embedder, q,
                                      params["as_of"])
                 if since is None and until is None else None)
        if scale is not None:
            # the z-scale from the user's running sums (turn_sums): only the best `limit`
            with self._search_connection() as conn:
                best = conn.execute(
                    "SELECT turn_key, 1 - (vec <=> %(q)s) AS c FROM turn_vectors"
                    " WHERE user_id = %(user)s AND embedder = %(emb)s AND dim = %(dim)s"
                    " AND at <= %(as_of)s ORDER BY c DESC, turn_key LIMIT %(limit)s",
                    params).fetchall()
            if not best:
                return Scored([])
            return Scored([(r[0], float(r[1])) for r in best], scale.mean, scale.std, scale.n)
        # the cosines materialised first (key and score only): a window aggregate over the
        # scan would carry every 1.5 kB vector into its buffer and spill to disk (250 vs
        # ~100 ms for 40k turns)
        with self._search_connection() as conn:
            rows = conn.execute(
                "WITH s AS MATERIALIZED (SELECT turn_key, 1 - (vec <=> %(q)s) AS c"
                " FROM turn_vectors WHERE user_id = %(user)s AND embedder = %(emb)s"
                f" AND dim = %(dim)s AND at <= %(as_of)s{window}),"
                " a AS (SELECT avg(c) AS m, stddev_pop(c) AS sd, count(*) AS n FROM s)"
                " SELECT s.turn_key, s.c, a.m, a.sd, a.n FROM s, a"
                " ORDER BY s.c DESC, s.turn_key LIMIT %(limit)s", params).fetchall()
        if not rows:
            return Scored([])
        first = rows[0]
        return Scored([(r[0], float(r[1])) for r in rows], float(first[2] or 0),
                      float(first[3] or 0), int(first[4]))


class PgReports(_PgBase):
    """What the shared reports need: the database size and a snapshot for the export."""

    def _size_bytes(self) -> int:
        return int(self._read("SELECT pg_database_size(current_database())")[0][0])

    @contextmanager
    def _snapshot(self) -> Iterator[Rows]:
        """One REPEATABLE READ transaction: every query of the export sees the same data."""
        with self.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            yield lambda query, params: conn.execute(self.dialect.sql(query), params).fetchall()

