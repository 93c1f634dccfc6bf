"""Read-only queries of the PostgreSQL backend, as mixins of :class:`~.postgres.PostgresStore`:
the recall searches (scope, type and ``as_of`` inside the SQL) and the reports (stats, export).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any

import numpy as np
import psycopg
from psycopg import sql

from ..clock import to_micros, utc_now
from ..units import Entity, MemoryType
from .base import Scope, Scored, StoreStats, TurnRecord, Vector
from .export import export_user_rows
from .pg_sql import (
    TURN_COLUMNS,
    UNIT_COLUMNS,
    like_patterns,
    scope_sql,
    tsquery_text,
    turn_from_row,
    types_sql,
    unit_from_row,
    visible_sql,
    window_sql,
)
from .postgres_migrations import user_bucket
from .stats_sql import status_counts_sql

Conn = psycopg.Connection[tuple[Any, ...]]


class _PgBase:
    """What the mixins need from the store."""

    def _read(self, query: Any, params: Any = None) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def connection(self) -> AbstractContextManager[Conn]:
        raise NotImplementedError


class PgSearch(_PgBase):
    """Entity, keyword and vector search."""

    #: Users with at most this many units get an exact vector scan; more use HNSW.
    exact_scan_max = 20_000

    def entity_search(
        self, scope: Scope, as_of: datetime, entities: Sequence[Entity], limit: int,
        history: bool = False,
    ) -> list[tuple[str, float]]:
        values = sorted({e.value for e in entities if e.value})
        if not values:
            return []
        params: dict[str, Any] = {"as_of": to_micros(as_of), "limit": limit, "values": values}
        query = (
            "SELECT e.unit_id, COUNT(DISTINCT e.value) AS n FROM unit_entities e"
            " JOIN units u ON u.id = e.unit_id"
            f" WHERE e.user_id = %(scope_user)s AND e.value = ANY(%(values)s)"
            f" AND {scope_sql(scope, params)} AND {visible_sql(history)}"
            " GROUP BY e.unit_id ORDER BY n DESC, MAX(u.created_at) DESC, e.unit_id"
            " LIMIT %(limit)s"
        )
        return [(r[0], float(r[1])) for r in self._read(query, params)]

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
        filters = (f"{scope_sql(scope, params)} AND {visible_sql(history)}"
                   f"{window_sql(params, since, until)}")
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
            return conn.execute(query, params).fetchall()

    def vector_search(
        self, scope: Scope, as_of: datetime, embedder: str, query: Vector, limit: int,
        since: datetime | None = None, until: datetime | None = None,
        types: Sequence[MemoryType] | None = None, history: bool = False,
    ) -> list[tuple[str, float]]:
        if types is not None and not types:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        dim = int(q.shape[0])
        params: dict[str, Any] = {"emb": embedder, "as_of": to_micros(as_of), "q": q,
                                  "limit": limit, "dim": dim, "cap": self.exact_scan_max + 1}
        # types: per-type embedders (S8), only the types routed to `embedder`
        filters = (f"{scope_sql(scope, params)} AND {visible_sql(history)}"
                   f"{window_sql(params, since, until)}{types_sql(types, params)}")
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

    def entity_kind_search(
        self, scope: Scope, as_of: datetime, kinds: Sequence[str], limit: int,
        history: bool = False,
    ) -> list[tuple[str, float]]:
        wanted = sorted({k for k in kinds if k})
        if not wanted:
            return []
        params: dict[str, Any] = {"as_of": to_micros(as_of), "limit": limit, "kinds": wanted}
        query = (
            "SELECT e.unit_id FROM unit_entities e JOIN units u ON u.id = e.unit_id"
            " WHERE e.user_id = %(scope_user)s AND e.kind = ANY(%(kinds)s)"
            f" AND {scope_sql(scope, params)} AND {visible_sql(history)}"
            " GROUP BY e.unit_id ORDER BY MAX(u.created_at) DESC, e.unit_id LIMIT %(limit)s"
        )
        return [(r[0], 1.0) for r in self._read(query, params)]

    # -- the episodic layer (issue 13)
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
        window = ""
        if since is not None:
            params["since"] = to_micros(since)
            window += " AND at >= %(since)s"
        if until is not None:
            params["until"] = to_micros(until)
            window += " AND at < %(until)s"
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

    def turn_units(self, turn_keys: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        if turn_keys:
            for r in self._read("SELECT turn_key, unit_id FROM unit_turns WHERE turn_key = ANY(%s)",
                                (list(dict.fromkeys(turn_keys)),)):
                out.setdefault(r[0], []).append(r[1])
        return out

    def next_turns(self, turn_keys: Sequence[str]) -> dict[str, str]:
        if not turn_keys:
            return {}
        rows = self._read(
            "SELECT t.key, (SELECT n.key FROM turns n WHERE n.user_id = t.user_id"
            " AND n.session_id = t.session_id AND n.seq > t.seq ORDER BY n.seq LIMIT 1)"
            " FROM turns t WHERE t.key = ANY(%s)", (list(dict.fromkeys(turn_keys)),))
        return {r[0]: r[1] for r in rows if r[1] is not None}

    def turns_missing_vectors(self, embedder: str, limit: int) -> list[TurnRecord]:
        rows = self._read(
            f"SELECT {TURN_COLUMNS} FROM turns t WHERE NOT EXISTS (SELECT 1 FROM turn_vectors v"
            " WHERE v.turn_key = t.key AND v.embedder = %s) ORDER BY seq LIMIT %s",
            (embedder, limit))
        return [turn_from_row(r) for r in rows]

    def count_turns_missing_vectors(self, embedder: str) -> int:
        row = self._read(
            "SELECT COUNT(*) FROM turns t WHERE NOT EXISTS (SELECT 1 FROM turn_vectors v"
            " WHERE v.turn_key = t.key AND v.embedder = %s)", (embedder,))
        return int(row[0][0])


class PgReports(_PgBase):
    """Counts, users, sessions and the per-user export."""

    def stats(self, user_id: str | None = None, as_of: datetime | None = None) -> StoreStats:
        params: dict[str, Any] = {"as_of": to_micros(as_of or utc_now())}
        where = "TRUE"
        if user_id is not None:
            params["user"] = user_id
            where = "u.user_id = %(user)s"
        row = self._read(
            f"SELECT COUNT(*), {status_counts_sql('%(as_of)s')},"
            " COUNT(DISTINCT u.user_id), COUNT(DISTINCT u.session_id)"
            f" FROM units u WHERE {where}", params)[0]
        by_type = {r[0]: int(r[1]) for r in self._read(
            f"SELECT u.type, COUNT(*) FROM units u WHERE {where} GROUP BY u.type", params)}
        turn_where = "user_id = %(user)s" if user_id is not None else "TRUE"
        turns = self._read(f"SELECT COUNT(*) FROM turns WHERE {turn_where}", params)[0][0]
        size = self._read("SELECT pg_database_size(current_database())")[0][0]
        return StoreStats.from_counts(
            total=int(row[0]), expired=int(row[1]), superseded=int(row[2]),
            forgotten=int(row[3]), by_type=by_type, turns=int(turns), users=int(row[4]),
            sessions=int(row[5]), size_bytes=int(size))

    def recall_hit_rate(self, since: datetime | None) -> tuple[int, int]:
        row = self._read(
            "SELECT COUNT(*) FILTER (WHERE used = 1), COUNT(*) FILTER (WHERE used IS NOT NULL)"
            " FROM recall_log WHERE at >= %s", (to_micros(since) if since else 0,))[0]
        return int(row[0]), int(row[1])

    def users(self) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT user_id FROM units UNION SELECT user_id FROM turns ORDER BY 1")]

    def sessions(self, user_id: str) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT DISTINCT session_id FROM turns WHERE user_id = %s ORDER BY 1", (user_id,))]

    def export_user(self, user_id: str) -> dict[str, Any]:
        """One query per table in one REPEATABLE READ snapshot, shaped by
        :func:`jiyi.store.export.export_user_rows` (the same JSON as every backend)."""
        with self.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            return export_user_rows(
                user_id, lambda query: conn.execute(query, {"user": user_id}).fetchall(),
                user_param="%(user)s", unit_columns=UNIT_COLUMNS, turn_order="seq",
                unit_from_row=unit_from_row, turn_from_row=turn_from_row)

