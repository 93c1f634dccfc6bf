"""The web memory inspector of ``jiyi serve``: the page at ``/`` and its JSON under
``/inspector/api/``. Read-only: pick a user and session, list units (invalidated ones with what
superseded them), open a unit's provenance turns and history, run a recall and see each stage's
candidates and scores, and read the health figures. Everything is served locally (no CDN).

Include it with ``app.include_router(inspector_router)``; it reads ``app.state.memory``.
"""

from __future__ import annotations

from datetime import datetime
from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from .. import RecallTrace
from ..auth import authorize, grant_of
from ..clock import iso
from ..errors import NotFoundError, ValidationError
from ..memory import Memory
from ..units import MemoryUnit, recall_came_back_empty
from ..validation import (
    MAX_QUERY_TRANSPORT_SIZE,
    check_identifier,
    check_text,
    check_user_id,
    require_session_id,
)

inspector_router = APIRouter(tags=["inspector"])

_STATIC: dict[str, str] = {
    "inspector.js": "text/javascript; charset=utf-8",
    "inspector.css": "text/css; charset=utf-8",
}
STAGE_POOL = 20


def _memory(request: Request) -> Memory:
    mem = getattr(request.app.state, "memory", None)
    if not isinstance(mem, Memory):
        raise NotFoundError("the inspector needs the service's memory (app.state.memory)")
    return mem


def _static(name: str) -> bytes:
    return resources.files("jiyi.service").joinpath("static", name).read_bytes()


def unit_row(unit: MemoryUnit, now: datetime, by_id: dict[str, MemoryUnit]) -> dict[str, Any]:
    """A unit as the inspector lists it: its public fields, whether it is valid now, and the
    content of the unit that superseded it."""
    row = unit.to_public_dict()
    row["valid_now"] = unit.is_valid_at(now)
    row["invalidation_reason"] = unit.invalidation_reason
    row["expired"] = unit.expires_at <= now
    newer = by_id.get(unit.superseded_by or "")
    row["superseded_by_content"] = newer.content if newer else None
    return row


@inspector_router.get("/", include_in_schema=False)
def page() -> Response:
    return Response(_static("inspector.html"), media_type="text/html; charset=utf-8",
                    headers={"Cache-Control": "no-cache"})


@inspector_router.get("/inspector/static/{name}", include_in_schema=False)
def static(name: str) -> Response:
    if name not in _STATIC:
        raise NotFoundError(f"no inspector file {name!r}")
    return Response(_static(name), media_type=_STATIC[name], headers={"Cache-Control": "no-cache"})


@inspector_router.get("/inspector/api/users")
def users(request: Request) -> dict[str, Any]:
    """The users the token covers."""
    grant = grant_of(request.scope)
    authorize(grant, "read")
    return {"users": [u for u in _memory(request).store.users() if grant.covers(u)]}


@inspector_router.get("/inspector/api/sessions")
def sessions(request: Request, user_id: Annotated[str, Query()]) -> dict[str, Any]:
    uid = check_identifier(user_id, "user_id")
    authorize(grant_of(request.scope), "read", uid)
    return {"user_id": uid, "sessions": _memory(request).store.sessions(uid)}


@inspector_router.get("/inspector/api/units")
def units(
    request: Request,
    user_id: Annotated[str, Query()],
    session_id: Annotated[str | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=2000)] = 500,
) -> dict[str, Any]:
    """Every unit of the user (of the session plus the user's user-level units when a session is
    given), newest first, valid or not."""
    mem = _memory(request)
    uid = check_identifier(user_id, "user_id")
    authorize(grant_of(request.scope), "read", uid)
    sid = check_identifier(session_id, "session_id") if session_id else None
    found = mem.units(uid, sid, limit=limit)
    by_id = {u.id: u for u in found}
    missing = [u.superseded_by for u in found if u.superseded_by and u.superseded_by not in by_id]
    by_id.update({u.id: u for u in mem.store.get_units(missing)} if missing else {})
    now = mem.clock()
    return {"user_id": uid, "session_id": sid, "as_of": iso(now),
            "units": [unit_row(u, now, by_id) for u in found]}


@inspector_router.get("/inspector/api/units/{unit_id}")
def unit_detail(request: Request, unit_id: str) -> dict[str, Any]:
    """A unit with its provenance turns, events and the chain of versions around it."""
    mem = _memory(request)
    authorize(grant_of(request.scope), "read", mem.get(unit_id).user_id)
    h = mem.history(unit_id)
    now = mem.clock()
    chain = {u.id: u for u in [*h.superseded, *h.superseded_by]}
    data = unit_row(h.unit, now, chain)
    data["turns"] = [{"turn_id": t.turn_id, "role": t.role, "at": iso(t.at), "text": t.text,
                      "session_id": t.session_id} for t in h.turns]
    data["events"] = [{"at": iso(e.at), "event": e.event, "detail": e.detail,
                       "score_after": e.score_after} for e in h.events]
    data["superseded"] = [u.to_public_dict() for u in h.superseded]
    data["superseded_by_chain"] = [u.to_public_dict() for u in h.superseded_by]
    return data


def _stage(trace: RecallTrace, sources: tuple[str, ...], feature: str,
           order: list[str] | None = None) -> list[dict[str, Any]]:
    """The candidates one stage of the funnel found, best first by that stage's own measure."""
    return [{"id": unit.id, "score": round(score, 6), "content": unit.content,
             "type": unit.type.value}
            for unit, score in trace.stage(sources, feature, STAGE_POOL, order)]


@inspector_router.get("/inspector/api/recall")
def recall_stages(
    request: Request,
    q: Annotated[str, Query()],
    session_id: Annotated[str, Query()],
    user_id: Annotated[str | None, Query()] = None,
    k: Annotated[int, Query(ge=1, le=50)] = 5,
) -> dict[str, Any]:
    """A recall taken apart: the funnel's own trace of the very recall users get
    (``Memory.recall`` with the same query, session, user and ``k``): stage 1 the rules' exact
    matches, stage 2 the keyword and vector candidates, stage 3 the final re-ranked hits (with
    confidence), and each stage's time in milliseconds (``timings``, in the order the stages
    first ran). Not logged as a real recall."""
    mem = _memory(request)
    query = check_text(q, what="query", max_bytes=MAX_QUERY_TRANSPORT_SIZE)
    sid = require_session_id(session_id)
    uid = check_user_id(user_id, sid)
    authorize(grant_of(request.scope), "read", uid)
    now = mem.clock()
    trace = RecallTrace()
    hits = mem.recall(query, session_id=sid, user_id=uid, k=k, as_of=now, log=False,
                      trace=trace)
    threshold = mem.config.recall.confidence_threshold
    return {
        "query": query, "as_of": iso(now),
        "entities": [{"kind": e.kind, "value": e.value} for e in trace.entities],
        "terms": list(trace.query.terms) if trace.query is not None else [],
        "stages": {"rule": _stage(trace, ("rule",), "rule", order=trace.rule_ids),
                   "keyword": _stage(trace, ("keyword",), "keyword_rr"),
                   "vector": _stage(trace, ("vector", "episode"), "cosine")},
        "timings": [{"stage": stage, "ms": round(seconds * 1000.0, 3)}
                    for stage, seconds in trace.seconds.items()],
        "hits": [h.to_public_dict() | {"stages": list(h.stages)} for h in hits],
        "confidence_threshold": threshold,
        "ask_to_confirm": recall_came_back_empty(hits, threshold),
    }


@inspector_router.get("/inspector/api/health")
def health(request: Request, user_id: Annotated[str | None, Query()] = None) -> dict[str, Any]:
    """The memory-health figures and unit counts by type for the chart (store-wide figures: the
    ``metrics`` operation)."""
    authorize(grant_of(request.scope), "metrics")
    mem = _memory(request)
    uid = check_identifier(user_id, "user_id") if user_id else None
    report: dict[str, Any] = mem.health(cleanup=False).model_dump(mode="json")
    stats = mem.store.stats(user_id=uid)
    report["by_type"] = dict(stats.by_type)
    report["chart"] = {"units_valid": stats.units_valid, "units_expired": stats.units_expired,
                       "units_invalidated": stats.units_invalidated}
    if uid is not None and not mem.store.sessions(uid) and not stats.units_total:
        raise ValidationError(f"unknown user {uid!r}")
    return report
