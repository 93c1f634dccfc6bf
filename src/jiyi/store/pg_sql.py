"""SQL fragments and row conversions for the PostgreSQL backend (pure functions, no I/O).

Rows use the SQLite representation (microsecond instants, JSON text lists), so a row read from
either backend converts to the same :class:`~jiyi.units.MemoryUnit`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..clock import from_micros, to_micros
from ..units import Entity, Lifespan, MemoryType, MemoryUnit
from .base import Scope, TurnRecord
from .export import TURN_COLUMNS as TURN_COLUMNS  # one column order for turns (re-exported)

#: The same rule as :data:`jiyi.store.sqlite.VALID_AT_SQL` and :func:`jiyi.units.is_valid_at`.
VALID_AT_SQL = (
    "u.created_at <= %(as_of)s AND u.expires_at > %(as_of)s"
    " AND (u.valid_at IS NULL OR u.valid_at <= %(as_of)s)"
    " AND (u.valid_until IS NULL OR u.valid_until > %(as_of)s)"
    " AND (u.invalidated_at IS NULL OR u.invalidated_at > %(as_of)s)"
)

#: The same rule as :data:`jiyi.store.sqlite_sql.KNOWN_AT_SQL` and :func:`jiyi.units.unit_status`
#: (not None): learned by then, validity begun, not forgotten on request.
KNOWN_AT_SQL = (
    "u.created_at <= %(as_of)s"
    " AND (u.valid_at IS NULL OR u.valid_at <= %(as_of)s)"
    " AND (u.invalidated_at IS NULL OR u.invalidated_at > %(as_of)s"
    " OR u.superseded_by IS NOT NULL)"
)


def visible_sql(history: bool) -> str:
    """The unit filter of a search: current units only, or every known unit (history too)."""
    return KNOWN_AT_SQL if history else VALID_AT_SQL


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

UPSERT_UNIT_SQL = (
    f"INSERT INTO units ({', '.join(UNIT_INSERT_COLUMNS)})"
    f" VALUES ({', '.join('%(' + c + ')s' for c in UNIT_INSERT_COLUMNS)})"
    " ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in UNIT_INSERT_COLUMNS if c not in ("id", "created_at"))
)


def opt_micros(value: datetime | None) -> int | None:
    return None if value is None else to_micros(value)


def opt_time(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def scope_sql(scope: Scope, params: dict[str, Any]) -> str:
    """WHERE fragment for a scope; fills ``params``. Never formats user values into SQL."""
    params["scope_user"] = scope.user_id
    if scope.session_id is None:
        return "u.user_id = %(scope_user)s"
    params["scope_session"] = scope.session_id
    params["scope_types"] = sorted(t.value for t in scope.user_level_types)
    if not scope.user_level_types:
        return "u.user_id = %(scope_user)s AND u.session_id = %(scope_session)s"
    return (
        "u.user_id = %(scope_user)s AND (u.session_id = %(scope_session)s"
        " OR u.type = ANY(%(scope_types)s))"
    )


def window_sql(params: dict[str, Any], since: datetime | None, until: datetime | None) -> str:
    """Restrict to units whose world time (``valid_at``, else ``created_at``) is in a window."""
    parts = []
    if since is not None:
        params["w_since"] = to_micros(since)
        parts.append("COALESCE(u.valid_at, u.created_at) >= %(w_since)s")
    if until is not None:
        params["w_until"] = to_micros(until)
        parts.append("COALESCE(u.valid_at, u.created_at) < %(w_until)s")
    return "".join(" AND " + p for p in parts)


def tsquery_text(terms: Sequence[str]) -> str | None:
    """A ``to_tsquery('simple', ...)`` input that ORs quoted terms.

    Each term is a quoted lexeme (quotes and backslashes escaped), so user text can never become
    tsquery syntax (``&``, ``|``, ``!``, ``<->``, ``:*``)."""
    quoted = []
    for term in terms:
        clean = term.strip()
        if clean:
            quoted.append("'" + clean.replace("\\", "\\\\").replace("'", "''") + "'")
    return " | ".join(quoted) if quoted else None


def like_patterns(terms: Sequence[str], min_chars: int = 3) -> list[str]:
    """``ILIKE`` patterns (``%term%``, wildcards escaped) for the trigram fallback."""
    out = []
    for term in terms:
        clean = term.strip()
        if len(clean) >= min_chars:
            esc = clean.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            out.append(f"%{esc}%")
    return out


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


def types_sql(types: Sequence[MemoryType] | None, params: dict[str, Any]) -> str:
    """`` AND u.type = ANY(...)`` for a type filter (empty string for None); fills ``params``."""
    if types is None:
        return ""
    params["types"] = sorted({MemoryType(t).value for t in types})
    return " AND u.type = ANY(%(types)s)"
