"""SQL fragments of the SQLite backend (no connection here): the validity rule,
scope and type filters, the FTS5 MATCH expression and the keyword-index body.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from ..clock import from_micros, to_micros
from ..text import tokens
from ..units import MemoryType
from .base import Scope

#: A unit is current at :as_of when known, unexpired, inside its world validity and not retired.
#: The same rule as :func:`jiyi.units.is_valid_at`; a contract test keeps them equal.
VALID_AT_SQL = (
    "u.created_at <= :as_of AND u.expires_at > :as_of"
    " AND (u.valid_at IS NULL OR u.valid_at <= :as_of)"
    " AND (u.valid_until IS NULL OR u.valid_until > :as_of)"
    " AND (u.invalidated_at IS NULL OR u.invalidated_at > :as_of)"
)

#: A unit is *known* at :as_of (recall may show it, current or as history) when it was learned
#: by then, its world validity has begun, and it was not forgotten on request by then. Expired
#: and superseded units are known; :func:`jiyi.units.unit_status` says which they are.
KNOWN_AT_SQL = (
    "u.created_at <= :as_of"
    " AND (u.valid_at IS NULL OR u.valid_at <= :as_of)"
    " AND (u.invalidated_at IS NULL OR u.invalidated_at > :as_of OR u.superseded_by IS NOT NULL)"
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


def opt_micros(value: datetime | None) -> int | None:
    return None if value is None else to_micros(value)


def opt_time(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def scope_sql(scope: Scope, params: dict[str, Any]) -> str:
    """WHERE fragment for a scope; fills ``params``. Never formats user values into SQL."""
    params["scope_user"] = scope.user_id
    if scope.session_id is None:
        return "u.user_id = :scope_user"
    params["scope_session"] = scope.session_id
    names = []
    for i, t in enumerate(sorted(scope.user_level_types, key=lambda x: x.value)):
        params[f"ult{i}"] = t.value
        names.append(f":ult{i}")
    if not names:
        return "u.user_id = :scope_user AND u.session_id = :scope_session"
    return (
        "u.user_id = :scope_user AND (u.session_id = :scope_session"
        f" OR u.type IN ({', '.join(names)}))"
    )


def types_sql(types: Sequence[MemoryType] | None, params: dict[str, Any]) -> str:
    """`` AND u.type IN (...)`` for a type filter (empty string for None); fills ``params``."""
    if types is None:
        return ""
    names = []
    for i, value in enumerate(sorted({MemoryType(t).value for t in types})):
        params[f"vt{i}"] = value
        names.append(f":vt{i}")
    return f" AND u.type IN ({', '.join(names)})"


def fts_query(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression that ORs quoted terms: user text can never become FTS syntax."""
    quoted = []
    for term in terms:
        clean = term.replace('"', " ").strip()
        if clean:
            quoted.append('"' + clean + '"')
    return " OR ".join(quoted) if quoted else None


def fts_body(content: str, source_text: str) -> str:
    """What the keyword index holds for a unit: segmented content and segmented source turn."""
    return segmented(content) + " \n " + segmented(source_text)


@lru_cache(maxsize=64)
def segmented(text: str) -> str:
    """Space-joined search tokens. Cached: every unit of a turn indexes the same source text."""
    return " ".join(tokens(text))
