"""Rows of the shared store's tables and the objects they hold (pure functions, no I/O).

Both schemas store instants as integer microseconds and lists as JSON text, so one column list
and one converter serve every backend: a row read from either converts to the same
:class:`~jiyi.units.MemoryUnit` / :class:`~..base.TurnRecord`.

A row read back is what a validated unit wrote (:func:`unit_params`), so :func:`unit_from_row`
builds the unit without validating it again: on the read path every candidate of every recall
is one row, and pydantic's validation, ``json.loads`` and the enum lookup cost more than the
query. The JSON lists are parsed once per distinct text (the units of one turn share their
source ids; most units hold no entity), and each unit gets lists of its own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from ...clock import to_micros
from ...units import Entity, Lifespan, MemoryType, MemoryUnit, content_hash
from ..base import TurnRecord, UnitEvent, Vector
from .export import TURN_COLUMNS as TURN_COLUMNS  # one column order for turns (re-exported)

#: Columns of ``units u`` in the order :func:`unit_from_row` reads.
UNIT_COLUMNS = (
    "u.id, u.user_id, u.session_id, u.type, u.content, u.content_hash, u.slot, u.topic,"
    " u.created_at, u.expires_in, u.relevance_score, u.valid_at, u.valid_until,"
    " u.invalidated_at, u.invalidation_reason, u.supersedes, u.superseded_by,"
    " u.source_turn_ids, u.entities"
)

#: How many columns :data:`UNIT_COLUMNS` has (a joined row's turn columns start there).
UNIT_WIDTH = UNIT_COLUMNS.count(",") + 1

#: Columns of ``turns t`` in the order :func:`turn_from_row` reads (:data:`TURN_COLUMNS`).
SOURCE_COLUMNS = ", ".join("t." + c for c in TURN_COLUMNS.split(", "))

#: Column order of ``units`` for inserts (everything :func:`unit_params` returns).
UNIT_INSERT_COLUMNS: tuple[str, ...] = (
    "id", "user_id", "session_id", "type", "content", "content_hash", "slot", "topic",
    "created_at", "expires_in", "expires_at", "relevance_score", "valid_at", "valid_until",
    "invalidated_at", "invalidation_reason", "supersedes", "superseded_by", "source_turn_ids",
    "entities", "updated_at",
)

#: Insert a unit, or update every column but its id and creation instant (neutral SQL).
UPSERT_UNIT_SQL = (
    f"INSERT INTO units ({', '.join(UNIT_INSERT_COLUMNS)})"
    f" VALUES ({', '.join(':' + c for c in UNIT_INSERT_COLUMNS)})"
    " ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in UNIT_INSERT_COLUMNS if c not in ("id", "created_at"))
)

#: Columns of ``unit_events`` in the order :func:`event_from_row` reads.
EVENT_COLUMNS = "unit_id, at, event, detail, score_after"


def as_vector(vec: Vector) -> np.ndarray:
    """A vector as the flat float32 array every backend stores."""
    return np.asarray(vec, dtype=np.float32).reshape(-1)


def opt_micros(value: datetime | None) -> int | None:
    return None if value is None else to_micros(value)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TYPES = {t.value: t for t in MemoryType}
M = TypeVar("M", bound=BaseModel)


def instant(value: int) -> datetime:
    """A stored instant (microseconds since the epoch) as a UTC datetime
    (:func:`jiyi.clock.from_micros`, without its import and call)."""
    return _EPOCH + timedelta(microseconds=int(value))


def opt_time(value: int | None) -> datetime | None:
    return None if value is None else instant(value)


def _built(cls: type[M], values: dict[str, Any]) -> M:
    """A model holding ``values`` (every field, in declaration order) without validation: what
    ``model_construct`` does, minus its per-field default handling."""
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "__pydantic_fields_set__", set(values))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


@lru_cache(maxsize=4096)
def _ids(text: str) -> tuple[str, ...]:
    return tuple(json.loads(text))


@lru_cache(maxsize=4096)
def _entities(text: str) -> tuple[Entity, ...]:
    return tuple(_built(Entity, {"kind": e["kind"], "text": e["text"], "value": e["value"],
                                 "start": e.get("start", 0), "end": e.get("end", 0)})
                 for e in json.loads(text))


def unit_from_row(row: Sequence[Any]) -> MemoryUnit:
    """The unit a ``units`` row (:data:`UNIT_COLUMNS`) holds, as the validated one it was."""
    relevance = row[10]
    return _built(MemoryUnit, {
        "id": row[0], "content": row[4], "type": _TYPES[row[3]],
        "lifespan": _built(Lifespan, {
            "created_at": instant(row[8]), "expires_in": int(row[9]),
            "relevance_score": relevance if type(relevance) is float else float(relevance)}),
        "session_id": row[2], "user_id": row[1],
        "valid_at": opt_time(row[11]), "valid_until": opt_time(row[12]),
        "invalidated_at": opt_time(row[13]), "invalidation_reason": row[14],
        "source_turn_ids": list(_ids(row[17])), "entities": list(_entities(row[18])),
        "supersedes": row[15], "superseded_by": row[16], "slot": row[6], "topic": row[7],
        "content_hash": row[5] or content_hash(row[1], row[4]),
    })


def unit_params(unit: MemoryUnit, now: int) -> dict[str, Any]:
    """The named parameters of :data:`UPSERT_UNIT_SQL`; ``now`` (microseconds) is ``updated_at``."""
    return {
        "id": unit.id, "user_id": unit.user_id, "session_id": unit.session_id,
        "type": unit.type.value, "content": unit.content, "content_hash": unit.content_hash,
        "slot": unit.slot, "topic": unit.topic,
        "created_at": to_micros(unit.created_at), "expires_in": unit.lifespan.expires_in,
        "expires_at": to_micros(unit.expires_at),
        "relevance_score": unit.relevance_score,
        "valid_at": opt_micros(unit.valid_at), "valid_until": opt_micros(unit.valid_until),
        "invalidated_at": opt_micros(unit.invalidated_at),
        "invalidation_reason": unit.invalidation_reason,
        "supersedes": unit.supersedes, "superseded_by": unit.superseded_by,
        "source_turn_ids": json.dumps(unit.source_turn_ids, ensure_ascii=False),
        "entities": json.dumps([e.model_dump() for e in unit.entities], ensure_ascii=False),
        "updated_at": now,
    }


def turn_from_row(r: Sequence[Any]) -> TurnRecord:
    return TurnRecord(key=r[0], turn_id=r[1], session_id=r[2], user_id=r[3], role=r[4],
                      text=r[5], at=instant(r[6]), speaker=r[7], seq=int(r[8] or 0))


def event_from_row(r: Sequence[Any]) -> UnitEvent:
    return UnitEvent(r[0], instant(r[1]), r[2], r[3], r[4])


def event_params(e: UnitEvent) -> tuple[Any, ...]:
    """The row of ``unit_events`` (:data:`EVENT_COLUMNS`) holding ``e``."""
    return (e.unit_id, to_micros(e.at), e.event, e.detail, e.score_after)
