"""Read-only queries of the SQLite backend, as mixins of :class:`~.sqlite.SQLiteStore` (the
same shape as :mod:`.pg_queries`): unit and turn reads, the recall searches (scope, type and
``as_of`` inside the SQL), and the reports (stats, users, warm-up, export).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from ..clock import from_micros, to_micros, utc_now
from ..errors import StoreError
from ..units import Entity, Lifespan, MemoryType, MemoryUnit
from .base import Scope, Scored, StoreStats, TurnRecord, UnitEvent, Vector
from .export import TURN_COLUMNS, export_user_rows
from .fts_rank import bm25_rank
from .keyword_cache import KeywordTable
from .sqlite_migrations import owner_token
from .sqlite_sql import (
    UNIT_COLUMNS,
    VALID_AT_SQL,
    fts_query,
    opt_time,
    scope_sql,
    types_sql,
    visible_sql,
)
from .sqlite_vector_cache import SqliteVectorCache
from .stats_sql import status_counts_sql
from .vector_cache import top_hits


class _SqliteBase:
    """What the mixins need from the store: its connection, lock and row mapping."""

    location: str
    _lock: threading.RLock
    _conn: sqlite3.Connection
    _closed: bool

    def _read(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        with self._lock:
            if self._closed:
                raise StoreError("the store is closed")
            cur = self._conn.execute(sql, params)
            return list(cur.fetchall())

    # ------------------------------------------------------------------ rows
    @staticmethod
    def _unit_from_row(row: Sequence[Any]) -> MemoryUnit:
        return MemoryUnit(
            id=row[0], user_id=row[1], session_id=row[2], type=MemoryType(row[3]),
            content=row[4], content_hash=row[5], slot=row[6], topic=row[7],
            lifespan=Lifespan(
                created_at=from_micros(row[8]), expires_in=row[9], relevance_score=row[10]
            ),
            valid_at=opt_time(row[11]), valid_until=opt_time(row[12]),
            invalidated_at=opt_time(row[13]), invalidation_reason=row[14],
            supersedes=row[15], superseded_by=row[16],
            source_turn_ids=json.loads(row[17]),
            entities=[Entity(**e) for e in json.loads(row[18])],
        )

    @staticmethod
    def _turn(r: Sequence[Any]) -> TurnRecord:
        return TurnRecord(key=r[0], turn_id=r[1], session_id=r[2], user_id=r[3], role=r[4],
                          text=r[5], at=from_micros(r[6]), speaker=r[7], seq=int(r[8] or 0))


class SqliteSearch(SqliteVectorCache, _SqliteBase):
    """Unit and turn reads; entity, keyword and vector search (vector searches through the
    resident per-user tables of :mod:`.sqlite_vector_cache` when they are on)."""

    def get_units(self, ids: Sequence[str]) -> list[MemoryUnit]:
        if not ids:
            return []
        found: dict[str, MemoryUnit] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            rows = self._read(
                f"SELECT {UNIT_COLUMNS} FROM units u WHERE u.id IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            for row in rows:
                found[row[0]] = self._unit_from_row(row)
        return [found[i] for i in ids if i in found]

    def get_turns(self, keys: Sequence[str]) -> list[TurnRecord]:
        if not keys:
            return []
        rows = self._read(
            f"SELECT {TURN_COLUMNS} FROM turns"
            f" WHERE key IN ({', '.join('?' * len(keys))}) ORDER BY seq, at",
            list(keys),
        )
        return [self._turn(r) for r in rows]

    def unit_turn_keys(self, unit_id: str) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT turn_key FROM unit_turns WHERE unit_id = ?", (unit_id,))]

    def unit_events(self, unit_id: str) -> list[UnitEvent]:
        rows = self._read(
            "SELECT unit_id, at, event, detail, score_after FROM unit_events WHERE unit_id = ?"
            " ORDER BY at, id", (unit_id,))
        return [UnitEvent(r[0], from_micros(r[1]), r[2], r[3], r[4]) for r in rows]

    def recent_turns(self, scope: Scope, limit: int) -> list[TurnRecord]:
        params: dict[str, Any] = {"user": scope.user_id, "limit": limit}
        where = "user_id = :user"
        if scope.session_id is not None:
            where += " AND session_id = :session"
            params["session"] = scope.session_id
        rows = self._read(
            f"SELECT {TURN_COLUMNS} FROM turns"
            f" WHERE {where} ORDER BY seq DESC LIMIT :limit", params)
        return [self._turn(r) for r in reversed(rows)]

    def find_turns(self, user_id: str, session_id: str,
                   turn_ids: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        ids = list(dict.fromkeys(turn_ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            for r in self._read(
                    "SELECT turn_id, key FROM turns WHERE user_id = ? AND session_id = ?"
                    f" AND turn_id IN ({', '.join('?' * len(chunk))}) ORDER BY seq DESC",
                    [user_id, session_id, *chunk]):
                out[r[0]] = r[1]  # newest first, so the oldest key wins
        return out

    def find_units(
        self,
        scope: Scope,
        *,
        as_of: datetime | None,
        types: Sequence[MemoryType] | None = None,
        slot: str | None = None,
        content_hash: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 1000,
    ) -> list[MemoryUnit]:
        params: dict[str, Any] = {"limit": limit}
        where = [scope_sql(scope, params)]
        if as_of is not None:
            params["as_of"] = to_micros(as_of)
            where.append(VALID_AT_SQL)
        if types:
            names = []
            for i, t in enumerate(types):
                params[f"t{i}"] = MemoryType(t).value
                names.append(f":t{i}")
            where.append(f"u.type IN ({', '.join(names)})")
        if slot is not None:
            params["slot"] = slot
            where.append("u.slot = :slot")
        if content_hash is not None:
            params["hash"] = content_hash
            where.append("u.content_hash = :hash")
        if since is not None:
            params["since"] = to_micros(since)
            where.append("u.created_at >= :since")
        if until is not None:
            params["until"] = to_micros(until)
            where.append("u.created_at < :until")
        rows = self._read(
            f"SELECT {UNIT_COLUMNS} FROM units u WHERE {' AND '.join(where)}"
            " ORDER BY u.created_at DESC, u.id LIMIT :limit", params)
        return [self._unit_from_row(r) for r in rows]

    def entity_search(
        self, scope: Scope, as_of: datetime, entities: Sequence[Entity], limit: int,
        history: bool = False,
    ) -> list[tuple[str, float]]:
        values = sorted({e.value for e in entities if e.value})
        if not values:
            return []
        params: dict[str, Any] = {"as_of": to_micros(as_of), "limit": limit}
        marks = []
        for i, v in enumerate(values):
            params[f"v{i}"] = v
            marks.append(f":v{i}")
        sql = (
            "SELECT e.unit_id, COUNT(DISTINCT e.value) AS n FROM unit_entities e"
            " JOIN units u ON u.id = e.unit_id"
            f" WHERE e.user_id = :scope_user AND e.value IN ({', '.join(marks)})"
            f" AND {scope_sql(scope, params)} AND {visible_sql(history)}"
            " GROUP BY e.unit_id ORDER BY n DESC, MAX(u.created_at) DESC LIMIT :limit"
        )
        return [(r[0], float(r[1])) for r in self._read(sql, params)]

    def _window_sql(
        self, params: dict[str, Any], since: datetime | None, until: datetime | None
    ) -> str:
        parts = []
        if since is not None:
            params["w_since"] = to_micros(since)
            parts.append("COALESCE(u.valid_at, u.created_at) >= :w_since")
        if until is not None:
            params["w_until"] = to_micros(until)
            parts.append("COALESCE(u.valid_at, u.created_at) < :w_until")
        return "".join(" AND " + p for p in parts)

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
        with self._lock:  # a big user: their resident keyword index (keyword_cache)
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
        sql = (
            "SELECT f.unit_id, f.body FROM units_fts f JOIN units u ON u.id = f.unit_id"
            f" WHERE units_fts MATCH :match AND {scope_sql(scope, params)}"
            f" AND {visible_sql(history)}"
            f"{self._window_sql(params, since, until)}"
        )
        try:
            rows = self._read(sql, params)
            if not rows:
                return Scored([])
            n_docs = int(self._read("SELECT COUNT(*) FROM units_fts WHERE units_fts MATCH ?",
                                    (owner,))[0][0])
        except sqlite3.OperationalError as exc:  # a malformed MATCH can only come from a bug
            raise StoreError(f"keyword search failed: {exc}") from exc
        ranked = bm25_rank([(r[0], r[1]) for r in rows], terms, n_docs)
        full = Scored.of(ranked, n_docs)
        return Scored(ranked[:limit], full.mean, full.std, full.n)

    def vector_search(
        self, scope: Scope, as_of: datetime, embedder: str, query: Vector, limit: int,
        since: datetime | None = None, until: datetime | None = None,
        types: Sequence[MemoryType] | None = None, history: bool = False,
    ) -> list[tuple[str, float]]:
        if types is not None and not types:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        with self._lock:
            table = self._cached_table("unit", scope.user_id, embedder, int(q.shape[0]))
            if table is not None:
                mask = table.unit_mask(scope, to_micros(as_of), history, _opt(since),
                                       _opt(until), types)
                rows_, sims_ = table.cosines(mask, q, embedder)
                return table.top(rows_, sims_, limit)
        params: dict[str, Any] = {"emb": embedder, "as_of": to_micros(as_of)}
        rows = self._read(
            "SELECT v.unit_id, v.vec FROM unit_vectors v JOIN units u ON u.id = v.unit_id"
            f" WHERE v.embedder = :emb AND {scope_sql(scope, params)} AND {visible_sql(history)}"
            f"{self._window_sql(params, since, until)}{types_sql(types, params)}",
            params,
        )
        return _top_cosines(rows, query, embedder, limit)

    # -- added for the read path (issue 4)
    def entity_kind_search(
        self, scope: Scope, as_of: datetime, kinds: Sequence[str], limit: int,
        history: bool = False,
    ) -> list[tuple[str, float]]:
        wanted = sorted({k for k in kinds if k})
        if not wanted:
            return []
        params: dict[str, Any] = {"as_of": to_micros(as_of), "limit": limit}
        marks = []
        for i, kind in enumerate(wanted):
            params[f"k{i}"] = kind
            marks.append(f":k{i}")
        sql = (
            "SELECT e.unit_id FROM unit_entities e JOIN units u ON u.id = e.unit_id"
            f" WHERE e.user_id = :scope_user AND e.kind IN ({', '.join(marks)})"
            f" AND {scope_sql(scope, params)} AND {visible_sql(history)}"
            " GROUP BY e.unit_id ORDER BY MAX(u.created_at) DESC LIMIT :limit"
        )
        return [(r[0], 1.0) for r in self._read(sql, params)]

    def source_turns(self, unit_ids: Sequence[str]) -> dict[str, list[TurnRecord]]:
        out: dict[str, list[TurnRecord]] = {}
        ids = list(dict.fromkeys(unit_ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows = self._read(
                "SELECT ut.unit_id, t.key, t.turn_id, t.session_id, t.user_id, t.role, t.text,"
                " t.at, t.speaker, t.seq FROM unit_turns ut JOIN turns t ON t.key = ut.turn_key"
                f" WHERE ut.unit_id IN ({', '.join('?' * len(chunk))}) ORDER BY t.seq, t.at",
                chunk,
            )
            for r in rows:
                out.setdefault(r[0], []).append(self._turn(r[1:]))
        return out

    # -- the episodic layer (issue 13): raw turns, searchable across the user's sessions
    def turn_vector_search(
        self, user_id: str, as_of: datetime, embedder: str, query: Vector, limit: int,
        since: datetime | None = None, until: datetime | None = None,
    ) -> Scored:
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        with self._lock:
            table = self._cached_table("turn", user_id, embedder, int(q.shape[0]))
            if table is not None:
                mask = table.turn_mask(to_micros(as_of), _opt(since), _opt(until))
                rows_, sims_ = table.cosines(mask, q, embedder)
                if sims_.size == 0:
                    return Scored([])
                return Scored(table.top(rows_, sims_, limit), float(sims_.mean()),
                              float(sims_.std()), int(sims_.size))
        params: dict[str, Any] = {"user": user_id, "emb": embedder, "as_of": to_micros(as_of)}
        window = ""
        if since is not None:
            params["since"] = to_micros(since)
            window += " AND at >= :since"
        if until is not None:
            params["until"] = to_micros(until)
            window += " AND at < :until"
        rows = self._read(
            "SELECT turn_key, vec FROM turn_vectors WHERE user_id = :user AND embedder = :emb"
            f" AND at <= :as_of{window}", params)
        sims = _cosines(rows, query, embedder)
        if sims.size == 0:
            return Scored([])
        return Scored(top_hits(lambda j: str(rows[j][0]), sims, limit), float(sims.mean()),
                      float(sims.std()), int(sims.size))

    def turn_units(self, turn_keys: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        keys = list(dict.fromkeys(turn_keys))
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            for r in self._read(
                    "SELECT turn_key, unit_id FROM unit_turns"
                    f" WHERE turn_key IN ({', '.join('?' * len(chunk))})", chunk):
                out.setdefault(r[0], []).append(r[1])
        return out

    def next_turns(self, turn_keys: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for key in dict.fromkeys(turn_keys):
            rows = self._read(
                "SELECT n.key FROM turns t JOIN turns n ON n.user_id = t.user_id"
                " AND n.session_id = t.session_id AND n.seq > t.seq"
                " WHERE t.key = ? ORDER BY n.seq LIMIT 1", (key,))
            if rows:
                out[key] = rows[0][0]
        return out

    def turns_missing_vectors(self, embedder: str, limit: int) -> list[TurnRecord]:
        rows = self._read(
            f"SELECT {TURN_COLUMNS} FROM turns t WHERE NOT EXISTS (SELECT 1 FROM turn_vectors v"
            " WHERE v.turn_key = t.key AND v.embedder = :emb) ORDER BY seq LIMIT :limit",
            {"emb": embedder, "limit": limit})
        return [self._turn(r) for r in rows]

    def count_turns_missing_vectors(self, embedder: str) -> int:
        row = self._read(
            "SELECT COUNT(*) FROM turns t WHERE NOT EXISTS (SELECT 1 FROM turn_vectors v"
            " WHERE v.turn_key = t.key AND v.embedder = ?)", (embedder,))
        return int(row[0][0])

    def count_units_missing_vectors(
        self, embedder: str, types: Sequence[MemoryType] | None = None
    ) -> int:
        if types is not None and not types:
            return 0
        params: dict[str, Any] = {"emb": embedder}
        row = self._read(
            "SELECT COUNT(*) FROM units u WHERE NOT EXISTS (SELECT 1 FROM unit_vectors v"
            f" WHERE v.unit_id = u.id AND v.embedder = :emb){types_sql(types, params)}", params)
        return int(row[0][0])

    def units_missing_vectors(
        self, embedder: str, limit: int, types: Sequence[MemoryType] | None = None
    ) -> list[MemoryUnit]:
        if types is not None and not types:
            return []
        params: dict[str, Any] = {"emb": embedder, "limit": limit}
        rows = self._read(
            f"SELECT {UNIT_COLUMNS} FROM units u WHERE NOT EXISTS (SELECT 1 FROM unit_vectors v"
            f" WHERE v.unit_id = u.id AND v.embedder = :emb){types_sql(types, params)}"
            " LIMIT :limit", params)
        return [self._unit_from_row(r) for r in rows]


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
    sims: np.ndarray = mat.reshape(len(rows), q.shape[0]) @ q
    return sims


def _top_cosines(rows: Sequence[Sequence[Any]], query: Vector, embedder: str,
                 limit: int) -> list[tuple[str, float]]:
    """The ``limit`` best ``(id, cosine)`` of ``(id, float32 blob)`` rows against ``query``."""
    sims = _cosines(rows, query, embedder)
    return top_hits(lambda j: str(rows[j][0]), sims, limit)


class SqliteReports(SqliteSearch):
    """Counts, users, sessions, warm-up and the per-user export."""

    def stats(self, user_id: str | None = None, as_of: datetime | None = None) -> StoreStats:
        t = to_micros(as_of or utc_now())
        params: dict[str, Any] = {"as_of": t}
        where = "1 = 1"
        if user_id is not None:
            params["user"] = user_id
            where = "u.user_id = :user"
        row = self._read(
            f"SELECT COUNT(*), {status_counts_sql(':as_of')},"
            " COUNT(DISTINCT u.user_id), COUNT(DISTINCT u.session_id)"
            f" FROM units u WHERE {where}", params)[0]
        by_type = {
            r[0]: int(r[1])
            for r in self._read(f"SELECT u.type, COUNT(*) FROM units u WHERE {where} GROUP BY u.type",
                                params)
        }
        turn_where = "user_id = :user" if user_id is not None else "1 = 1"
        turns = self._read(f"SELECT COUNT(*) FROM turns WHERE {turn_where}", params)[0][0]
        size = 0
        if self.location != ":memory:":
            for suffix in ("", "-wal"):
                p = self.location + suffix
                if os.path.exists(p):
                    size += os.path.getsize(p)
        return StoreStats.from_counts(
            total=int(row[0]), expired=int(row[1]), superseded=int(row[2]),
            forgotten=int(row[3]), by_type=by_type, turns=int(turns), users=int(row[4]),
            sessions=int(row[5]), size_bytes=size)

    def recall_hit_rate(self, since: datetime | None) -> tuple[int, int]:
        params: dict[str, Any] = {"since": to_micros(since) if since else 0}
        row = self._read(
            "SELECT COALESCE(SUM(CASE WHEN used = 1 THEN 1 ELSE 0 END), 0),"
            " COALESCE(SUM(CASE WHEN used IS NOT NULL THEN 1 ELSE 0 END), 0)"
            " FROM recall_log WHERE at >= :since", params)[0]
        return int(row[0]), int(row[1])

    def users(self) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT user_id FROM units UNION SELECT user_id FROM turns ORDER BY 1")]

    def sessions(self, user_id: str) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT DISTINCT session_id FROM turns WHERE user_id = ? ORDER BY 1", (user_id,))]

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

    def export_user(self, user_id: str) -> dict[str, Any]:
        """One query per table, one consistent snapshot (a read transaction), read and shaped
        by :func:`jiyi.store.export.export_user_rows`."""
        with self._lock:
            if self._closed:
                raise StoreError("the store is closed")
            own = not self._conn.in_transaction
            if own:
                self._conn.execute("BEGIN")
            try:
                return export_user_rows(
                    user_id, lambda query: self._read(query, {"user": user_id}),
                    user_param=":user", unit_columns=UNIT_COLUMNS, turn_order="seq, at",
                    unit_from_row=self._unit_from_row, turn_from_row=self._turn)
            finally:
                if own:
                    self._conn.execute("COMMIT")

