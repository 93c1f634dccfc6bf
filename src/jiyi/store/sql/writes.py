"""The writes both SQL backends share, written once in the neutral SQL of :mod:`.dialect`.

A backend mixes :class:`SqlWrites` in and provides :attr:`dialect`, ``_write`` (a transaction:
a connection whose ``execute`` and ``cursor`` are the driver's, committed on success and rolled
back on error, driver errors as :class:`~jiyi.errors.StoreError`) and the engine's own steps:
inserting a turn (its order number), indexing a unit's keywords and deleting them, the tables
owned by a user, and preparing a vector space (PostgreSQL's HNSW index).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, ClassVar

import numpy as np

from ...clock import to_micros, utc_now
from ...errors import NotFoundError
from ...units import MemoryUnit
from ..base import IngestBatch, RecallLogEntry, TurnRecord, UnitEvent, Vector
from .dialect import Dialect
from .rows import EVENT_COLUMNS, UPSERT_UNIT_SQL, as_vector, event_params, unit_params
from .turn_sums import (
    FOLD_EVERY,
    SUMS_MIN_TURNS,
    SumsCache,
    TurnChanges,
    apply_changes,
    as_f32,
    big_pairs,
    rebuild,
)

#: Tables holding a unit's rows besides its keyword rows, deleted together (``units`` last).
UNIT_TABLES = (
    ("unit_vectors", "unit_id"), ("unit_entities", "unit_id"), ("unit_turns", "unit_id"),
    ("unit_events", "unit_id"), ("recall_log", "unit_id"), ("units", "id"),
)

#: The vectors of a batch as float32 arrays, by embedder, then by unit id.
Spaces = dict[str, dict[str, np.ndarray]]


def quoted(name: str) -> str:
    """An SQL identifier, quoted (table names read from the schema)."""
    return '"' + name.replace('"', '""') + '"'


class SqlWrites:
    """Ingest commits, vectors, relevance, invalidation, the recall log, purge and erasure."""

    dialect: ClassVar[Dialect]

    #: Whether :meth:`_index_keywords` needs to know if the unit was stored before (one more
    #: query per upserted unit, so only backends that use it pay it).
    _keywords_need_history: ClassVar[bool] = False

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _insert_turn(self, conn: Any, turn: TurnRecord) -> None:
        """Insert ``turn`` unless its key is stored, with the next order number (``seq``)."""
        raise NotImplementedError

    def _index_keywords(self, conn: Any, unit: MemoryUnit, turn: TurnRecord,
                        existed: bool) -> None:
        """(Re)write the keyword row of ``unit`` (just upserted; ``existed``: it was stored
        before this batch's upsert) from its content and its source turns."""
        raise NotImplementedError

    def _delete_keywords(self, conn: Any, ids: Sequence[str]) -> None:
        """Delete the keyword rows of the units ``ids`` (a chunk :meth:`Dialect.any_of` takes)."""
        raise NotImplementedError

    def _owned_tables(self, conn: Any) -> tuple[list[str], list[str]]:
        """Ordinary tables with a ``user_id`` column, and with a ``unit_id`` column."""
        raise NotImplementedError

    def _prepare_vector_spaces(self, spaces: Spaces) -> None:
        """Make ready to store ``spaces`` (before the write transaction). Default: nothing."""

    #: Users with at least this many turn vectors keep running sums (:mod:`.turn_sums`).
    turn_sums_min: int = SUMS_MIN_TURNS
    #: Pending turn vectors folded into their user's sums once there are this many.
    turn_sums_fold: int = FOLD_EVERY
    #: What this process has read of the sums (each backend makes one).
    turn_sums: SumsCache

    def _lock_turn_sums(self, conn: Any, user_id: str, embedder: str) -> None:
        """Hold the sums of (``user_id``, ``embedder``) until the transaction ends, before
        reading them or the vectors they sum (a backend whose writers run side by side).
        Default: nothing (SQLite's write transactions already exclude each other)."""

    # ------------------------------------------------------------------ one statement
    def _exec(self, conn: Any, query: str, params: Any = ()) -> Any:
        """Run one neutral statement on ``conn``; returns the driver's cursor."""
        return conn.execute(self.dialect.sql(query), params)

    def _run(self, conn: Any) -> Any:
        """``run(query, params) -> rows`` on ``conn`` (no rows for a statement without any)."""
        def run(query: str, params: Any = ()) -> list[Any]:
            cur = self._exec(conn, query, params)
            return list(cur.fetchall()) if cur.description is not None else []
        return run

    def _sum_turns(self, conn: Any, changes: TurnChanges) -> None:
        """The running sums of the turn vectors ``changes`` added and removed, in ``conn``."""
        if not changes.added and not changes.removed:
            return
        for user_id, embedder in changes.touched():
            self._lock_turn_sums(conn, user_id, embedder)
            self.turn_sums.forget(user_id, embedder)
        apply_changes(self._run(conn), changes, self.turn_sums_min, self.turn_sums_fold)

    def rebuild_turn_sums(self) -> int:
        """Build the running sums of every user with enough turn vectors (the migration's
        backfill; a bulk copy). Returns how many (user, embedder) rows were built."""
        with self._write() as conn:
            pairs = big_pairs(self._run(conn), self.turn_sums_min)
        for user_id, embedder in pairs:  # one transaction (and one lock) per user
            with self._write() as conn:
                self._lock_turn_sums(conn, user_id, embedder)
                rebuild(self._run(conn), user_id, embedder)
        self.turn_sums.forget_absent()
        return len(pairs)

    def _exec_many(self, conn: Any, query: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            cur = conn.cursor()
            try:
                cur.executemany(self.dialect.sql(query), rows)
            finally:
                cur.close()

    # ------------------------------------------------------------------ ingest
    def commit_ingest(self, batch: IngestBatch) -> None:
        now = to_micros(utc_now())
        turn = batch.turn
        spaces: Spaces = {name: {k: as_vector(v) for k, v in vecs.items()}
                          for name, vecs in batch.vectors_by_embedder().items()}
        self._prepare_vector_spaces(spaces)
        with self._write() as conn:
            self._insert_turn(conn, turn)
            changes = TurnChanges()
            if batch.turn_vector is not None:
                self._put_turn_vector(conn, turn, batch.embedder, batch.turn_vector, changes)
            self._sum_turns(conn, changes)
            for unit in batch.upserts:
                self._upsert_unit(conn, unit, now, turn)
            for name, vectors in spaces.items():
                for unit_id, vec in vectors.items():
                    self._put_vector(conn, unit_id, name, vec)
            for unit_id, at, reason, by in batch.invalidations:
                self._invalidate(conn, unit_id, at, reason, by)
            self._events(conn, batch.events)
            if batch.topic_state is not None:
                self._exec(conn, "INSERT INTO topic_states (user_id, session_id, state, updated_at)"
                           " VALUES (?, ?, ?, ?) ON CONFLICT (user_id, session_id)"
                           " DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
                           (turn.user_id, turn.session_id, batch.topic_state, to_micros(turn.at)))

    def _upsert_unit(self, conn: Any, unit: MemoryUnit, now: int, turn: TurnRecord) -> None:
        existed = self._keywords_need_history and self._exec(
            conn, "SELECT 1 FROM units WHERE id = ?", (unit.id,)).fetchone() is not None
        self._exec(conn, UPSERT_UNIT_SQL, unit_params(unit, now))
        self._exec(conn, "INSERT INTO unit_turns (unit_id, turn_key) VALUES (?, ?)"
                   " ON CONFLICT DO NOTHING", (unit.id, turn.key))
        self._exec(conn, "DELETE FROM unit_entities WHERE unit_id = ?", (unit.id,))
        self._exec_many(conn, "INSERT INTO unit_entities (unit_id, user_id, kind, value)"
                        " VALUES (?, ?, ?, ?)",
                        [(unit.id, unit.user_id, e.kind, e.value) for e in unit.entities])
        self._index_keywords(conn, unit, turn, existed)

    # ------------------------------------------------------------------ vectors
    def _put_vector(self, conn: Any, unit_id: str, embedder: str, vec: Vector) -> None:
        arr = as_vector(vec)
        self._exec(conn, "INSERT INTO unit_vectors (unit_id, embedder, dim, vec) VALUES (?, ?, ?, ?)"
                   " ON CONFLICT (unit_id, embedder) DO UPDATE SET dim = excluded.dim,"
                   " vec = excluded.vec",
                   (unit_id, embedder, int(arr.shape[0]), self.dialect.encode_vector(arr)))

    def _put_turn_vector(self, conn: Any, turn: TurnRecord, embedder: str, vec: Vector,
                         changes: TurnChanges) -> None:
        """Store a turn's vector (over its old one) and note the change for the sums."""
        arr = as_vector(vec)
        old = self._exec(conn, "SELECT vec, at, user_id FROM turn_vectors"
                         " WHERE turn_key = ? AND embedder = ?", (turn.key, embedder)).fetchone()
        if old is not None:
            changes.remove(str(old[2]), embedder, as_f32(old[0]), int(old[1]))
            changes.add(str(old[2]), embedder, arr, int(old[1]))
        else:
            changes.add(turn.user_id, embedder, arr, to_micros(turn.at))
        self._exec(conn, "INSERT INTO turn_vectors (turn_key, embedder, user_id, at, dim, vec)"
                   " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (turn_key, embedder)"
                   " DO UPDATE SET dim = excluded.dim, vec = excluded.vec",
                   (turn.key, embedder, turn.user_id, to_micros(turn.at), int(arr.shape[0]),
                    self.dialect.encode_vector(arr)))

    def put_vectors(self, embedder: str, vectors: dict[str, Vector]) -> None:
        arrays = {k: as_vector(v) for k, v in vectors.items()}
        self._prepare_vector_spaces({embedder: arrays})
        with self._write() as conn:
            for unit_id, vec in arrays.items():
                self._put_vector(conn, unit_id, embedder, vec)

    def put_turn_vectors(self, embedder: str, turns: Sequence[TurnRecord],
                         vectors: Sequence[Vector]) -> None:
        with self._write() as conn:
            changes = TurnChanges()
            for turn, vec in zip(turns, vectors, strict=True):
                self._put_turn_vector(conn, turn, embedder, vec, changes)
            self._sum_turns(conn, changes)

    # ------------------------------------------------------------------ lifecycle
    def _invalidate(self, conn: Any, unit_id: str, at: datetime, reason: str,
                    by: str | None) -> None:
        self._exec(
            conn,
            "UPDATE units SET invalidated_at = COALESCE(invalidated_at, :at),"
            " invalidation_reason = COALESCE(invalidation_reason, :reason),"
            " superseded_by = COALESCE(:by, superseded_by),"
            " valid_until = CASE WHEN valid_until IS NULL OR valid_until > :at THEN :at"
            " ELSE valid_until END, updated_at = :now WHERE id = :id",
            {"at": to_micros(at), "reason": reason, "by": by, "id": unit_id,
             "now": to_micros(utc_now())},
        )

    def _events(self, conn: Any, events: Sequence[UnitEvent]) -> None:
        self._exec_many(conn, f"INSERT INTO unit_events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
                        [event_params(e) for e in events])

    def set_relevance(self, unit_id: str, score: float, event: UnitEvent) -> None:
        with self._write() as conn:
            cur = self._exec(conn, "UPDATE units SET relevance_score = ?, updated_at = ?"
                             " WHERE id = ?", (score, to_micros(utc_now()), unit_id))
            if cur.rowcount == 0:
                raise NotFoundError(f"no unit {unit_id!r}")
            self._events(conn, [event])

    def invalidate(
        self, unit_id: str, at: datetime, reason: str, superseded_by: str | None = None
    ) -> None:
        with self._write() as conn:
            self._invalidate(conn, unit_id, at, reason, superseded_by)
            self._events(conn, [UnitEvent(unit_id, at, "invalidated", reason)])

    # ------------------------------------------------------------------ recall log
    def log_recall(self, entries: Sequence[RecallLogEntry]) -> None:
        if not entries:
            return
        with self._write() as conn:
            self._exec_many(
                conn,
                "INSERT INTO recall_log (recall_id, at, session_id, user_id, unit_id, stage, rank)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(e.recall_id, to_micros(e.at), e.session_id, e.user_id, e.unit_id, e.stage,
                  e.rank) for e in entries])

    def mark_recall_used(self, unit_id: str, used: bool) -> None:
        """Mark the latest unjudged recall of ``unit_id`` as used (or not)."""
        with self._write() as conn:
            self._exec(conn, "UPDATE recall_log SET used = ? WHERE id = (SELECT id FROM recall_log"
                       " WHERE unit_id = ? AND used IS NULL ORDER BY at DESC, id DESC LIMIT 1"
                       f"{self.dialect.skip_locked})", (1 if used else 0, unit_id))

    # ------------------------------------------------------------------ deletion
    def purge_expired(self, older_than: datetime) -> int:
        """Hard-delete units that expired or were invalidated before ``older_than``."""
        with self._write() as conn:
            ids = [r[0] for r in self._exec(
                conn, "SELECT id FROM units WHERE expires_at < :c OR invalidated_at < :c"
                f" OR valid_until < :c{self.dialect.for_update}", {"c": to_micros(older_than)})]
            self._delete_units(conn, ids)
        return len(ids)

    def _delete_units(self, conn: Any, ids: Sequence[str]) -> None:
        for chunk in self.dialect.chunks(ids):
            self._delete_keywords(conn, chunk)
            for table, column in UNIT_TABLES:
                self._delete_where(conn, table, column, chunk)

    def _delete_where(self, conn: Any, table: str, column: str, values: Sequence[str]) -> None:
        params: dict[str, Any] = {}
        self._exec(conn, f"DELETE FROM {quoted(table)}"
                   f" WHERE {self.dialect.any_of(column, 'x', values, params)}", params)

    def _erase_rows(self, conn: Any, user_id: str) -> list[str]:
        """Delete every row held about ``user_id`` inside the transaction ``conn``: their units
        and every row of them in every table with a ``unit_id`` column, their turns'
        provenance, then every row in every table with a ``user_id`` column (tables added by
        later migrations included). Returns the ids of the units deleted."""
        ids = [r[0] for r in self._exec(
            conn, f"SELECT id FROM units WHERE user_id = ?{self.dialect.for_update}", (user_id,))]
        self._delete_units(conn, ids)
        user_tables, unit_tables = self._owned_tables(conn)
        for chunk in self.dialect.chunks(ids):
            for table in unit_tables:
                self._delete_where(conn, table, "unit_id", chunk)
        self._exec(conn, "DELETE FROM unit_turns WHERE turn_key IN"
                   " (SELECT key FROM turns WHERE user_id = ?)", (user_id,))
        for table in user_tables:
            self._exec(conn, f"DELETE FROM {quoted(table)} WHERE user_id = ?", (user_id,))
        return ids


def spaces_dims(spaces: Spaces) -> Iterator[tuple[str, int]]:
    """Every ``(embedder, dimension)`` among ``spaces``."""
    for name, vectors in spaces.items():
        for dim in sorted({int(v.shape[0]) for v in vectors.values()}):
            yield name, dim
