"""Request and response bodies of the HTTP API (they make the OpenAPI document)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from ..context.prompt import MIN_NUM_CTX
from ..validation import MAX_ID_CHARS

Id = StrictStr


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TurnIn(_In):
    session_id: Id = Field(min_length=1, max_length=MAX_ID_CHARS)
    user_id: Id | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    role: Literal["user", "assistant", "tool", "system"] = "user"
    text: StrictStr = Field(min_length=1)
    at: StrictStr | None = Field(default=None, description="ISO-8601; default now (UTC)")
    turn_id: Id | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    recall_empty: StrictBool | None = Field(
        default=None, description="assistant turns: did this turn's recall find nothing? "
                                  "Default: the session's last recall")


class BatchTurnIn(_In):
    session_id: Id = Field(min_length=1, max_length=MAX_ID_CHARS)
    user_id: Id | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    role: Literal["user", "assistant", "tool", "system"] = "user"
    text: StrictStr = Field(min_length=1)
    at: StrictStr | None = Field(default=None, description="ISO-8601; default now (UTC)")
    turn_id: Id | None = Field(
        default=None, min_length=1, max_length=MAX_ID_CHARS,
        description="a turn id this user's session already holds is a no-op")


#: Most turns one ``POST /v1/turns:batch`` may carry (a bulk import sends several requests).
MAX_BATCH_TURNS = 1000


class TurnBatchIn(_In):
    turns: list[BatchTurnIn] = Field(min_length=1, max_length=MAX_BATCH_TURNS)


class FeedbackIn(_In):
    unit_id: Id = Field(min_length=1, max_length=MAX_ID_CHARS)
    event: Literal["used", "ignored", "wrong", "confirmed"]


class PromptIn(_In):
    text: StrictStr = Field(min_length=1)
    session_id: Id = Field(min_length=1, max_length=MAX_ID_CHARS)
    user_id: Id | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)
    execution: dict[str, Any] | None = None
    num_ctx: StrictInt | None = Field(default=None, ge=MIN_NUM_CTX, le=10_000_000)
    as_of: StrictStr | None = None


class UnitOut(BaseModel):
    id: str
    content: str
    type: str
    session_id: str
    user_id: str
    source_turn_ids: list[str]
    created_at: str
    expires_at: str
    valid_at: str | None
    valid_until: str | None
    invalidated_at: str | None
    relevance_score: float
    entities: list[dict[str, Any]]
    supersedes: str | None
    superseded_by: str | None


class AmnesiaOut(BaseModel):
    recall_empty: bool
    phrase: str | None
    forgetful: bool
    streak: int
    alerting: bool
    raised: bool


class TurnOut(BaseModel):
    units: list[UnitOut]
    amnesia: AmnesiaOut | None = Field(default=None, description="for assistant turns")


class TurnResultOut(BaseModel):
    units: list[UnitOut]


class TurnBatchOut(BaseModel):
    results: list[TurnResultOut] = Field(description="one per turn, in request order")
    turns: int = Field(description="turns in the request")
    stored: int = Field(description="turns not stored before (the rest were known turn ids)")


class HitOut(BaseModel):
    unit: UnitOut
    score: float
    stage: str
    confidence: float
    current: bool = Field(description="valid at the recall's as_of; false: history")
    status: str = Field(description="current, expired (history) or superseded (the past)")
    date: str = Field(description="when the unit's fact held or was learned (ISO 8601)")


class RecallOut(BaseModel):
    hits: list[HitOut]


class FeedbackOut(BaseModel):
    unit: UnitOut


class PromptOut(BaseModel):
    messages: list[dict[str, Any]]
    tokens: int
    trimmed: list[str]
    hits: list[HitOut] = Field(default_factory=list)


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorOut(BaseModel):
    error: ErrorDetail


class StatusOut(BaseModel):
    status: str
