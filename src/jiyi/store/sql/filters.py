"""WHERE fragments of the shared store, in the neutral SQL of :mod:`.dialect` (no I/O).

They fill the caller's parameter dict and never format a user value into SQL. The resident
tables of :mod:`..cache.vectors` apply the same rules over arrays; contract tests keep the two
(and :func:`jiyi.units.is_valid_at`) equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...clock import to_micros
from ...units import MemoryType
from ..base import Scope
from .dialect import Dialect

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


def scope_sql(dialect: Dialect, scope: Scope, params: dict[str, Any]) -> str:
    """WHERE fragment for a scope over ``units u``; fills ``params`` (``scope_user`` too, which
    callers reuse for their own user filters)."""
    params["scope_user"] = scope.user_id
    if scope.session_id is None:
        return "u.user_id = :scope_user"
    params["scope_session"] = scope.session_id
    user_level = sorted(t.value for t in scope.user_level_types)
    if not user_level:
        return "u.user_id = :scope_user AND u.session_id = :scope_session"
    return ("u.user_id = :scope_user AND (u.session_id = :scope_session"
            f" OR {dialect.any_of('u.type', 'ult', user_level, params)})")


def types_sql(dialect: Dialect, types: Sequence[MemoryType] | None,
              params: dict[str, Any]) -> str:
    """`` AND u.type IN (...)`` for a type filter (empty string for None); fills ``params``."""
    if types is None:
        return ""
    values = sorted({MemoryType(t).value for t in types})
    return f" AND {dialect.any_of('u.type', 'vt', values, params)}"


#: A unit's world time: when it holds (``valid_at``), else when it was learned.
WORLD_TIME = "COALESCE(u.valid_at, u.created_at)"


def window_sql(params: dict[str, Any], since: datetime | None, until: datetime | None, *,
               column: str = WORLD_TIME, key: str = "w") -> str:
    """`` AND`` bounds putting ``column`` (by default the unit's world time) in
    ``[since, until)``; fills ``params`` under ``{key}_since`` / ``{key}_until``."""
    parts = []
    if since is not None:
        params[f"{key}_since"] = to_micros(since)
        parts.append(f"{column} >= :{key}_since")
    if until is not None:
        params[f"{key}_until"] = to_micros(until)
        parts.append(f"{column} < :{key}_until")
    return "".join(" AND " + p for p in parts)


def unit_search_sql(dialect: Dialect, scope: Scope, params: dict[str, Any], *, history: bool,
                    since: datetime | None, until: datetime | None,
                    types: Sequence[MemoryType] | None = None) -> str:
    """The filters every unit search applies over ``units u``: the scope, visibility at
    ``:as_of`` (current, or known with ``history``), the world-time window and the types."""
    return (f"{scope_sql(dialect, scope, params)} AND {visible_sql(history)}"
            f"{window_sql(params, since, until)}{types_sql(dialect, types, params)}")


def turn_window_sql(params: dict[str, Any], since: datetime | None,
                    until: datetime | None) -> str:
    """`` AND at ...`` bounds of a turn search (the turn's own instant); fills ``params``."""
    window = ""
    if since is not None:
        params["since"] = to_micros(since)
        window += " AND at >= :since"
    if until is not None:
        params["until"] = to_micros(until)
        window += " AND at < :until"
    return window
