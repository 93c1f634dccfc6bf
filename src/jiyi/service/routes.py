"""The routes of ``jiyi serve`` (see shared api-contract). Sync handlers: FastAPI runs them in
its thread pool; the store serialises access to its connection."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import ValidationError as PydanticValidationError

from .. import Health
from ..auth import Operation, authorize, grant_of
from ..clock import iso
from ..errors import BatchValidationError, ValidationError
from ..memory import Memory
from ..units import Hit
from ..validation import (
    MAX_ID_CHARS,
    MAX_QUERY_TRANSPORT_SIZE,
    check_time,
    check_user_id,
    require_session_id,
)
from .schemas import (
    AmnesiaOut,
    ErrorOut,
    FeedbackIn,
    FeedbackOut,
    HitOut,
    PromptIn,
    PromptOut,
    RecallOut,
    StatusOut,
    TurnBatchIn,
    TurnBatchOut,
    TurnIn,
    TurnOut,
    TurnResultOut,
    UnitOut,
)

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 403, 404, 413, 422, 503)
}

router = APIRouter(responses=ERRORS)

MIN_YEAR, MAX_YEAR = 1900, 9000


def memory_of(request: Request) -> Memory:
    mem = request.app.state.memory
    assert isinstance(mem, Memory)
    return mem


def allow(request: Request, operation: Operation, session_id: str | None = None,
          user_id: str | None = None) -> None:
    """Check the request's token for ``operation`` on the user the memory will use (``user_id``,
    else the session id); with no session, on the whole store."""
    user = (check_user_id(user_id, require_session_id(session_id))
            if session_id is not None else None)
    authorize(grant_of(request.scope), operation, user)


def allow_unit(request: Request, mem: Memory, operation: Operation, unit_id: str) -> None:
    """Check the request's token for ``operation`` on the owner of a unit."""
    authorize(grant_of(request.scope), operation, mem.get(unit_id).user_id)


def service_time(value: str | None, name: str) -> datetime | None:
    """An ISO-8601 instant in a sane range (no overflow when lifespans are added to it)."""
    when = check_time(value, name)
    if when is not None and not MIN_YEAR <= when.year <= MAX_YEAR:
        raise ValidationError(f"{name} must be between the years {MIN_YEAR} and {MAX_YEAR}")
    return when


def _hit(h: Hit) -> HitOut:
    return HitOut(unit=UnitOut(**h.unit.to_public_dict()), score=round(h.score, 6),
                  stage=h.stage, confidence=round(h.confidence, 4), current=h.current,
                  status=h.status, date=iso(h.date))


@router.post("/v1/turns", response_model=TurnOut, tags=["memory"])
def post_turn(body: TurnIn, request: Request) -> TurnOut:
    """Store one conversation turn; an assistant turn also feeds the amnesia detector."""
    allow(request, "write", body.session_id, body.user_id)
    mem = memory_of(request)
    if body.recall_empty is not None and body.role != "assistant":
        raise ValidationError("recall_empty applies to assistant turns only")
    units = mem.ingest(body.text, session_id=body.session_id, user_id=body.user_id,
                       role=body.role, at=service_time(body.at, "at"), turn_id=body.turn_id)
    amnesia = None
    if body.role == "assistant":
        status = mem.observe_reply(body.text, session_id=body.session_id, user_id=body.user_id,
                                   recall_empty=body.recall_empty)
        amnesia = AmnesiaOut(**status.model_dump(exclude={"session_id"}))
    return TurnOut(units=[UnitOut(**u.to_public_dict()) for u in units], amnesia=amnesia)


@router.post("/v1/turns:batch", response_model=TurnBatchOut, tags=["memory"])
def post_turn_batch(body: TurnBatchIn, request: Request) -> TurnBatchOut:
    """Store many turns with the same result as posting them one by one, in order, embedded in
    batches and committed one transaction per batch. The token must allow writing every user
    the batch touches, and every turn must be valid, before anything is stored; a bad turn is
    named by its index. A known ``turn_id`` (same user and session) is a no-op. Assistant turns
    here do not feed the amnesia detector (this is an import, not a live conversation)."""
    for item in body.turns:
        allow(request, "write", item.session_id, item.user_id)
    problems: list[tuple[int, str]] = []
    turns: list[dict[str, Any]] = []
    for i, item in enumerate(body.turns):
        try:
            at = service_time(item.at, "at")
        except ValidationError as exc:
            problems.append((i, str(exc)))
            continue
        turns.append({**item.model_dump(exclude={"at"}), "at": at})
    if problems:
        raise BatchValidationError(problems, len(body.turns))
    stored = 0

    def count(_turns: int, new: int) -> None:
        nonlocal stored
        stored += new

    results = memory_of(request).ingest_many(turns, progress=count)
    return TurnBatchOut(
        results=[TurnResultOut(units=[UnitOut(**u.to_public_dict()) for u in units])
                 for units in results],
        turns=len(results), stored=stored)


@router.get("/v1/recall", response_model=RecallOut, tags=["memory"])
def get_recall(
    request: Request,
    q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_TRANSPORT_SIZE,
                            description="what to recall")],
    session_id: Annotated[str, Query(min_length=1, max_length=MAX_ID_CHARS)],
    user_id: Annotated[str | None, Query(min_length=1, max_length=MAX_ID_CHARS)] = None,
    k: Annotated[int, Query(ge=1, le=100)] = 5,
    as_of: Annotated[str | None, Query(description="ISO-8601 instant")] = None,
) -> RecallOut:
    """The best ``k`` memories valid at ``as_of`` for the session (and its user)."""
    allow(request, "read", session_id, user_id)
    hits = memory_of(request).recall(q, session_id=session_id, user_id=user_id, k=k,
                                     as_of=service_time(as_of, "as_of"))
    return RecallOut(hits=[_hit(h) for h in hits])


@router.post("/v1/feedback", response_model=FeedbackOut, tags=["memory"])
def post_feedback(body: FeedbackIn, request: Request) -> FeedbackOut:
    """A recalled unit was used, ignored, wrong, or confirmed by the user (relevance feedback)."""
    mem = memory_of(request)
    allow_unit(request, mem, "write", body.unit_id)
    unit = mem.feedback(body.unit_id, body.event)
    return FeedbackOut(unit=UnitOut(**unit.to_public_dict()))


@router.post("/v1/prompt", response_model=PromptOut, tags=["memory"])
def post_prompt(body: PromptIn, request: Request) -> PromptOut:
    """Assemble the prompt for a new user input (anchor, memories, execution context, summary)."""
    allow(request, "read", body.session_id, body.user_id)
    mem = memory_of(request)
    from ..context import ExecutionContext

    try:
        execution = (ExecutionContext.model_validate(body.execution)
                     if body.execution is not None else None)
    except PydanticValidationError as exc:
        raise ValidationError(f"execution: {exc.error_count()} invalid field(s): "
                              + "; ".join(".".join(map(str, e["loc"])) + " " + e["msg"]
                                          for e in exc.errors()[:3])) from None
    kwargs: dict[str, Any] = {"session_id": body.session_id, "user_id": body.user_id,
                              "execution": execution, "as_of": service_time(body.as_of, "as_of")}
    if body.num_ctx is not None:
        kwargs["num_ctx"] = body.num_ctx
    prompt = mem.build_prompt(body.text, **kwargs)
    return PromptOut(messages=list(prompt.messages), tokens=int(prompt.tokens),
                     trimmed=list(prompt.trimmed), hits=[_hit(h) for h in prompt.hits])


@router.get("/memory/health", response_model=Health, tags=["health"])
def get_health(
    request: Request,
    session_id: Annotated[str | None, Query(min_length=1, max_length=MAX_ID_CHARS)] = None,
    user_id: Annotated[str | None, Query(min_length=1, max_length=MAX_ID_CHARS)] = None,
) -> Health:
    """Freshness, hit rate, amnesia alert, unit counts: store-wide figures, so the token
    needs the ``metrics`` operation."""
    allow(request, "metrics")
    return memory_of(request).health(session_id, user_id=user_id)


@router.get("/metrics", tags=["health"], response_class=Response,
            responses={200: {"content": {"text/plain": {}}}})
def get_metrics(request: Request) -> Response:
    """Prometheus text exposition; names prefixed ``jiyi_`` (the ``metrics`` operation)."""
    allow(request, "metrics")
    body, content_type = request.app.state.metrics.render()
    return Response(content=body, media_type=content_type)


@router.get("/healthz", response_model=StatusOut, tags=["health"])
def get_healthz() -> StatusOut:
    """Liveness: the process answers. No token needed."""
    return StatusOut(status="ok")
