"""The per-user export (``jiyi export-user``, privacy requests), shaped once for every backend.

Each backend fetches the user's rows with ONE query per table (units, turns, provenance, events,
recall log, topic states; no query per unit) and hands them to :func:`shape_export`, a pure function, so the
JSON is the same whichever store holds the data. Vectors, entities and keyword-index bodies are
derived from the units and turns and are not exported.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...clock import from_micros
from ...units import MemoryUnit
from ..base import TurnRecord, UnitEvent

#: Columns of ``turns`` in the order both backends' row converters read.
TURN_COLUMNS = "key, turn_id, session_id, user_id, role, text, at, speaker, seq"

#: Row shape of the recall log as fetched for an export:
#: ``(recall_id, at_micros, session_id, unit_id, stage, rank, used)``.
RecallRow = Sequence[Any]
#: Row shape of a session's topic state: ``(session_id, state_json, updated_at_micros)``.
TopicRow = Sequence[Any]


def shape_export(
    user_id: str,
    units: Sequence[MemoryUnit],
    turns: Sequence[TurnRecord],
    provenance: Iterable[tuple[str, str]],
    events: Sequence[UnitEvent],
    recalls: Sequence[RecallRow],
    topics: Sequence[TopicRow] = (),
) -> dict[str, Any]:
    """The export document.

    ``units`` newest first (the order they are listed in); ``turns`` oldest first;
    ``provenance`` ``(unit_id, turn_key)`` pairs in any order (listed per unit, keys sorted);
    ``events`` in time order (listed grouped by unit, in the order of ``units``); ``recalls``
    rows as :data:`RecallRow`, in time order; ``topics`` rows as :data:`TopicRow` (each
    session's topic state, its document parsed). Rows of units not in ``units`` are ignored."""
    keys: dict[str, list[str]] = {u.id: [] for u in units}
    for unit_id, turn_key in provenance:
        if unit_id in keys:
            keys[unit_id].append(turn_key)
    by_unit: dict[str, list[UnitEvent]] = {u.id: [] for u in units}
    for event in events:
        if event.unit_id in by_unit:
            by_unit[event.unit_id].append(event)
    return {
        "user_id": user_id,
        "units": [u.to_public_dict() for u in units],
        "turns": [
            {"key": t.key, "turn_id": t.turn_id, "session_id": t.session_id, "role": t.role,
             "speaker": t.speaker, "text": t.text, "at": t.at.isoformat()}
            for t in turns
        ],
        "provenance": {unit_id: sorted(found) for unit_id, found in keys.items()},
        "events": [
            {"unit_id": e.unit_id, "at": e.at.isoformat(), "event": e.event,
             "detail": e.detail, "score_after": e.score_after}
            for found_events in by_unit.values() for e in found_events
        ],
        "recalls": [
            {"recall_id": r[0], "at": from_micros(r[1]).isoformat(), "session_id": r[2],
             "unit_id": r[3], "stage": r[4], "rank": r[5],
             "used": None if r[6] is None else bool(r[6])}
            for r in recalls
        ],
        "topics": [
            {"session_id": r[0], "state": json.loads(r[1]),
             "updated_at": from_micros(r[2]).isoformat()}
            for r in topics
        ],
    }


def export_user_rows(
    user_id: str,
    rows: Callable[[str], Sequence[Sequence[Any]]],
    *,
    user_param: str,
    unit_columns: str,
    turn_order: str,
    unit_from_row: Callable[[Sequence[Any]], MemoryUnit],
    turn_from_row: Callable[[Sequence[Any]], TurnRecord],
) -> dict[str, Any]:
    """The export, read with one query per table through ``rows`` (a backend's query runner,
    already bound to the user's parameter and inside one read snapshot). ``user_param`` is
    the backend's placeholder for it (``:user`` / ``%(user)s``); ``turn_order`` its
    insertion order of turns (``at, rowid`` / ``at, seq``)."""
    units = [unit_from_row(r) for r in rows(
        f"SELECT {unit_columns} FROM units u WHERE u.user_id = {user_param}"
        " ORDER BY u.created_at DESC, u.id")]
    turns = [turn_from_row(r) for r in rows(
        f"SELECT {TURN_COLUMNS} FROM turns WHERE user_id = {user_param} ORDER BY {turn_order}")]
    provenance = [(r[0], r[1]) for r in rows(
        "SELECT t.unit_id, t.turn_key FROM unit_turns t JOIN units u ON u.id = t.unit_id"
        f" WHERE u.user_id = {user_param}")]
    events = [UnitEvent(r[0], from_micros(r[1]), r[2], r[3], r[4]) for r in rows(
        "SELECT e.unit_id, e.at, e.event, e.detail, e.score_after FROM unit_events e"
        f" JOIN units u ON u.id = e.unit_id WHERE u.user_id = {user_param} ORDER BY e.at, e.id")]
    recalls = rows(
        "SELECT recall_id, at, session_id, unit_id, stage, rank, used FROM recall_log"
        f" WHERE user_id = {user_param} ORDER BY at, id")
    topics = rows(f"SELECT session_id, state, updated_at FROM topic_states"
                  f" WHERE user_id = {user_param} ORDER BY session_id")
    return shape_export(user_id, units, turns, provenance, events, recalls, topics)
