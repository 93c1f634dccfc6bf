"""The reads both SQL backends share, written once in the neutral SQL of :mod:`.dialect`.

A backend mixes :class:`SqlReads` in behind its own classes and provides :attr:`dialect`,
``_read`` (run a query, return its rows, driver errors as :class:`~jiyi.errors.StoreError`),
``_snapshot`` (the rows of several queries from one consistent read) and ``_size_bytes``. What
only one engine can do (keyword search, vector search plans, resident caches) it overrides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

import numpy as np

from ...clock import to_micros, utc_now
from ...units import Entity, MemoryType, MemoryUnit
from ..base import Scope, StoreStats, TurnRecord, UnitEvent, Vector
from .dialect import Dialect
from .export import export_user_rows
from .filters import VALID_AT_SQL, scope_sql, types_sql, visible_sql, window_sql
from .rows import (
    EVENT_COLUMNS,
    SOURCE_COLUMNS,
    TURN_COLUMNS,
    UNIT_COLUMNS,
    UNIT_WIDTH,
    as_vector,
    event_from_row,
    turn_from_row,
    unit_from_row,
)
from .stats import status_counts_sql

#: Runs one neutral query with its parameters and returns the rows.
Rows = Callable[[str, Any], Sequence[Sequence[Any]]]


@dataclass(frozen=True)
class VectorSearch:
    """One unit vector search (:meth:`~..base.Store.vector_search`), its query a float32 array."""

    scope: Scope
    as_of: datetime
    embedder: str
    query: np.ndarray
    limit: int
    since: datetime | None
    until: datetime | None
    types: Sequence[MemoryType] | None
    history: bool


class SqlReads:
    """Unit, turn and event reads, the entity searches, the missing-vector queries and the
    reports, over ``units u`` and the tables around it."""

    dialect: ClassVar[Dialect]

    def _read(self, query: str, params: Any = None) -> Sequence[Sequence[Any]]:
        raise NotImplementedError

    def _snapshot(self) -> AbstractContextManager[Rows]:
        """A runner whose queries all see one snapshot (for the export)."""
        raise NotImplementedError

    def _size_bytes(self) -> int:
        """The store's size on disk (for ``stats``)."""
        raise NotImplementedError

    def _vector_hits(self, search: VectorSearch) -> list[tuple[str, float]]:
        """The engine's plan for a vector search (the types not empty)."""
        raise NotImplementedError

    def vector_search(
        self, scope: Scope, as_of: datetime, embedder: str, query: Vector, limit: int,
        since: datetime | None = None, until: datetime | None = None,
        types: Sequence[MemoryType] | None = None, history: bool = False,
    ) -> list[tuple[str, float]]:
        if types is not None and not types:
            return []
        return self._vector_hits(VectorSearch(scope, as_of, embedder, as_vector(query), limit,
                                              since, until, types, history))

    def _rows_in(self, query: str, column: str, values: Sequence[str],
                 params: dict[str, Any] | None = None) -> Iterator[Sequence[Any]]:
        """The rows of ``query`` where ``column`` is one of ``values`` (its ``{in}`` marks
        where), run over as many pieces of the distinct values as the dialect needs; every
        value's rows come from one piece."""
        for chunk in self.dialect.chunks(list(dict.fromkeys(values))):
            bound = dict(params or {})
            where = self.dialect.any_of(column, "in_", chunk, bound)
            yield from self._read(query.replace("{in}", where), bound)

    # ------------------------------------------------------------------ units and turns
    def get_units(self, ids: Sequence[str]) -> list[MemoryUnit]:
        found = {row[0]: unit_from_row(row) for row in self._rows_in(
            f"SELECT {UNIT_COLUMNS} FROM units u WHERE {{in}}", "u.id", ids)}
        return [found[i] for i in ids if i in found]

    def units_with_sources(
        self, ids: Sequence[str]
    ) -> tuple[list[MemoryUnit], dict[str, list[TurnRecord]]]:
        """:meth:`get_units` and :meth:`source_turns` of ``ids`` in one query (one join). A
        turn that is the source of several units is read into one (frozen) record."""
        units: dict[str, MemoryUnit] = {}
        sources: dict[str, list[TurnRecord]] = {}
        turns: dict[str, TurnRecord] = {}
        for row in self._rows_in(
                f"SELECT {UNIT_COLUMNS}, {SOURCE_COLUMNS} FROM units u"
                " LEFT JOIN unit_turns ut ON ut.unit_id = u.id"
                " LEFT JOIN turns t ON t.key = ut.turn_key WHERE {in} ORDER BY t.seq, t.at",
                "u.id", ids):
            uid = row[0]
            if uid not in units:
                units[uid] = unit_from_row(row)
            key = row[UNIT_WIDTH]
            if key is not None:
                turn = turns.get(key)
                if turn is None:
                    turn = turns[key] = turn_from_row(row[UNIT_WIDTH:])
                sources.setdefault(uid, []).append(turn)
        return [units[i] for i in ids if i in units], sources

    def get_turns(self, keys: Sequence[str]) -> list[TurnRecord]:
        turns = [turn_from_row(r) for r in self._rows_in(
            f"SELECT {TURN_COLUMNS} FROM turns WHERE {{in}} ORDER BY seq, at", "key", keys)]
        return sorted(turns, key=lambda t: (t.seq, t.at))

    def unit_turn_keys(self, unit_id: str) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT turn_key FROM unit_turns WHERE unit_id = :id ORDER BY turn_key",
            {"id": unit_id})]

    def unit_events(self, unit_id: str) -> list[UnitEvent]:
        rows = self._read(f"SELECT {EVENT_COLUMNS} FROM unit_events WHERE unit_id = :id"
                          " ORDER BY at, id", {"id": unit_id})
        return [event_from_row(r) for r in rows]

    def recent_turns(self, scope: Scope, limit: int) -> list[TurnRecord]:
        params: dict[str, Any] = {"user": scope.user_id, "limit": limit}
        where = "user_id = :user"
        if scope.session_id is not None:
            where += " AND session_id = :session"
            params["session"] = scope.session_id
        rows = self._read(f"SELECT {TURN_COLUMNS} FROM turns WHERE {where}"
                          " ORDER BY seq DESC LIMIT :limit", params)
        return [turn_from_row(r) for r in reversed(rows)]

    def find_turns(self, user_id: str, session_id: str,
                   turn_ids: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for r in self._rows_in("SELECT turn_id, key FROM turns WHERE user_id = :user"
                               " AND session_id = :session AND {in} ORDER BY seq DESC",
                               "turn_id", turn_ids, {"user": user_id, "session": session_id}):
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
        where = [scope_sql(self.dialect, scope, params)]
        if as_of is not None:
            params["as_of"] = to_micros(as_of)
            where.append(VALID_AT_SQL)
        if types:
            where.append(self.dialect.any_of(
                "u.type", "t", [MemoryType(t).value for t in types], params))
        if slot is not None:
            params["slot"] = slot
            where.append("u.slot = :slot")
        if content_hash is not None:
            params["hash"] = content_hash
            where.append("u.content_hash = :hash")
        learned = window_sql(params, since, until, column="u.created_at", key="learned")
        rows = self._read(
            f"SELECT {UNIT_COLUMNS} FROM units u WHERE {' AND '.join(where)}{learned}"
            " ORDER BY u.created_at DESC, u.id LIMIT :limit", params)
        return [unit_from_row(r) for r in rows]

    def session_topics(self, user_id: str, session_id: str) -> str | None:
        rows = self._read("SELECT state FROM topic_states WHERE user_id = :user"
                          " AND session_id = :session", {"user": user_id, "session": session_id})
        return str(rows[0][0]) if rows else None

    def source_turns(self, unit_ids: Sequence[str]) -> dict[str, list[TurnRecord]]:
        out: dict[str, list[TurnRecord]] = {}
        for r in self._rows_in(
                f"SELECT ut.unit_id, {SOURCE_COLUMNS} FROM unit_turns ut"
                " JOIN turns t ON t.key = ut.turn_key WHERE {in} ORDER BY t.seq, t.at",
                "ut.unit_id", unit_ids):
            out.setdefault(r[0], []).append(turn_from_row(r[1:]))
        return out

    def turn_units(self, turn_keys: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for r in self._rows_in("SELECT turn_key, unit_id FROM unit_turns WHERE {in}",
                               "turn_key", turn_keys):
            out.setdefault(r[0], []).append(r[1])
        return out

    def next_turns(self, turn_keys: Sequence[str]) -> dict[str, str]:
        rows = self._rows_in(
            "SELECT t.key, (SELECT n.key FROM turns n WHERE n.user_id = t.user_id"
            " AND n.session_id = t.session_id AND n.seq > t.seq ORDER BY n.seq LIMIT 1)"
            " FROM turns t WHERE {in}", "t.key", turn_keys)
        return {r[0]: r[1] for r in rows if r[1] is not None}

    # ------------------------------------------------------------------ entity searches
    def entity_search(
        self, scope: Scope, as_of: datetime, entities: Sequence[Entity], limit: int,
        history: bool = False,
    ) -> list[tuple[str, float]]:
        values = sorted({e.value for e in entities if e.value})
        if not values:
            return []
        params: dict[str, Any] = {"as_of": to_micros(as_of), "limit": limit}
        query = (
            "SELECT e.unit_id, COUNT(DISTINCT e.value) AS n FROM unit_entities e"
            " JOIN units u ON u.id = e.unit_id"
            f" WHERE e.user_id = :scope_user AND {self.dialect.any_of('e.value', 'v', values, params)}"
            f" AND {scope_sql(self.dialect, scope, params)} AND {visible_sql(history)}"
            " GROUP BY e.unit_id ORDER BY n DESC, MAX(u.created_at) DESC, e.unit_id LIMIT :limit"
        )
        return [(r[0], float(r[1])) for r in self._read(query, params)]

    def entity_kind_search(
        self, scope: Scope, as_of: datetime, kinds: Sequence[str], limit: int,
        history: bool = False,
    ) -> list[tuple[str, float]]:
        wanted = sorted({k for k in kinds if k})
        if not wanted:
            return []
        params: dict[str, Any] = {"as_of": to_micros(as_of), "limit": limit}
        query = (
            "SELECT e.unit_id FROM unit_entities e JOIN units u ON u.id = e.unit_id"
            f" WHERE e.user_id = :scope_user AND {self.dialect.any_of('e.kind', 'k', wanted, params)}"
            f" AND {scope_sql(self.dialect, scope, params)} AND {visible_sql(history)}"
            " GROUP BY e.unit_id ORDER BY MAX(u.created_at) DESC, e.unit_id LIMIT :limit"
        )
        return [(r[0], 1.0) for r in self._read(query, params)]

    # ------------------------------------------------------------------ missing vectors
    def turns_missing_vectors(self, embedder: str, limit: int) -> list[TurnRecord]:
        rows = self._read(
            f"SELECT {TURN_COLUMNS} FROM turns t WHERE NOT EXISTS (SELECT 1 FROM turn_vectors v"
            " WHERE v.turn_key = t.key AND v.embedder = :emb) ORDER BY seq LIMIT :limit",
            {"emb": embedder, "limit": limit})
        return [turn_from_row(r) for r in rows]

    def count_turns_missing_vectors(self, embedder: str) -> int:
        return int(self._read(
            "SELECT COUNT(*) FROM turns t WHERE NOT EXISTS (SELECT 1 FROM turn_vectors v"
            " WHERE v.turn_key = t.key AND v.embedder = :emb)", {"emb": embedder})[0][0])

    def count_units_missing_vectors(
        self, embedder: str, types: Sequence[MemoryType] | None = None
    ) -> int:
        if types is not None and not types:
            return 0
        params: dict[str, Any] = {"emb": embedder}
        return int(self._read(
            "SELECT COUNT(*) FROM units u WHERE NOT EXISTS (SELECT 1 FROM unit_vectors v WHERE"
            f" v.unit_id = u.id AND v.embedder = :emb){types_sql(self.dialect, types, params)}",
            params)[0][0])

    def units_missing_vectors(
        self, embedder: str, limit: int, types: Sequence[MemoryType] | None = None
    ) -> list[MemoryUnit]:
        if types is not None and not types:
            return []
        params: dict[str, Any] = {"emb": embedder, "limit": limit}
        rows = self._read(
            f"SELECT {UNIT_COLUMNS} FROM units u WHERE NOT EXISTS (SELECT 1 FROM unit_vectors v"
            f" WHERE v.unit_id = u.id AND v.embedder = :emb){types_sql(self.dialect, types, params)}"
            " ORDER BY u.id LIMIT :limit", params)
        return [unit_from_row(r) for r in rows]

    # ------------------------------------------------------------------ reports
    def stats(self, user_id: str | None = None, as_of: datetime | None = None) -> StoreStats:
        params: dict[str, Any] = {"as_of": to_micros(as_of or utc_now())}
        where = "1 = 1"
        if user_id is not None:
            params["user"] = user_id
            where = "u.user_id = :user"
        row = self._read(
            f"SELECT COUNT(*), {status_counts_sql(':as_of')},"
            " COUNT(DISTINCT u.user_id), COUNT(DISTINCT u.session_id)"
            f" FROM units u WHERE {where}", params)[0]
        by_type = {r[0]: int(r[1]) for r in self._read(
            f"SELECT u.type, COUNT(*) FROM units u WHERE {where} GROUP BY u.type", params)}
        turn_where = "user_id = :user" if user_id is not None else "1 = 1"
        turns = self._read(f"SELECT COUNT(*) FROM turns WHERE {turn_where}", params)[0][0]
        return StoreStats.from_counts(
            total=int(row[0]), expired=int(row[1]), superseded=int(row[2]),
            forgotten=int(row[3]), by_type=by_type, turns=int(turns), users=int(row[4]),
            sessions=int(row[5]), size_bytes=self._size_bytes())

    def recall_hit_rate(self, since: datetime | None) -> tuple[int, int]:
        row = self._read(
            "SELECT COALESCE(SUM(CASE WHEN used = 1 THEN 1 ELSE 0 END), 0),"
            " COALESCE(SUM(CASE WHEN used IS NOT NULL THEN 1 ELSE 0 END), 0)"
            " FROM recall_log WHERE at >= :since",
            {"since": to_micros(since) if since else 0})[0]
        return int(row[0]), int(row[1])

    def users(self) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT user_id FROM units UNION SELECT user_id FROM turns ORDER BY 1")]

    def sessions(self, user_id: str) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT DISTINCT session_id FROM turns WHERE user_id = :user ORDER BY 1",
            {"user": user_id})]

    def export_user(self, user_id: str) -> dict[str, Any]:
        """One query per table, in one snapshot (:meth:`_snapshot`), read and shaped by
        :func:`.export.export_user_rows` (the same JSON from every backend)."""
        with self._snapshot() as rows:
            return export_user_rows(
                user_id, lambda query: rows(query, {"user": user_id}),
                user_param=":user", unit_columns=UNIT_COLUMNS, turn_order="seq, at",
                unit_from_row=unit_from_row, turn_from_row=turn_from_row)
