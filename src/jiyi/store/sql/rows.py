"""Rows of the shared store's tables and the objects they hold (pure functions, no I/O).

Both schemas store instants as integer microseconds and lists as JSON text, so one column list
and one converter serve every backend: a row read from either converts to the same
:class:`~jiyi.units.MemoryUnit` / :class:`~..base.TurnRecord`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from ...clock import from_micros, to_micros
from ...units import Entity, Lifespan, MemoryType, MemoryUnit
from ..base import TurnRecord, UnitEvent, Vector
from .export import TURN_COLUMNS as TURN_COLUMNS  # one column order for turns (re-exported)

#: Columns of ``units u`` in the order :func:`unit_from_row` reads.
UNIT_COLUMNS = (
    "u.id, u.user_id, u.session_id, u.type, u.content, u.content_hash, u.slot, u.topic,"
    " u.created_at, u.expires_in, u.relevance_score, u.valid_at, u.valid_until,"
    " u.invalidated_at, u.invalidation_reason, u.supersedes, u.superseded_by,"
    " u.source_turn_ids, u.entities"
)

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


def opt_time(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def unit_from_row(row: Sequence[Any]) -> MemoryUnit:
    return MemoryUnit(
        id=row[0], user_id=row[1], session_id=row[2], type=MemoryType(row[3]),
        content=row[4], content_hash=row[5], slot=row[6], topic=row[7],
        lifespan=Lifespan(
            created_at=from_micros(row[8]), expires_in=int(row[9]), relevance_score=row[10]
        ),
        valid_at=opt_time(row[11]), valid_until=opt_time(row[12]),
        invalidated_at=opt_time(row[13]), invalidation_reason=row[14],
        supersedes=row[15], superseded_by=row[16],
        source_turn_ids=json.loads(row[17]),
        entities=[Entity(**e) for e in json.loads(row[18])],
    )


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
                      text=r[5], at=from_micros(r[6]), speaker=r[7], seq=int(r[8] or 0))


def event_from_row(r: Sequence[Any]) -> UnitEvent:
    return UnitEvent(r[0], from_micros(r[1]), r[2], r[3], r[4])


def event_params(e: UnitEvent) -> tuple[Any, ...]:
    """The row of ``unit_events`` (:data:`EVENT_COLUMNS`) holding ``e``."""
    return (e.unit_id, to_micros(e.at), e.event, e.detail, e.score_after)
