"""The memory unit, its lifespan, and the relevance-feedback rules as pure functions."""

from __future__ import annotations

import hashlib
import unicodedata
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .clock import ensure_utc, iso

MAX_CONTENT_CHARS = 150
MIN_RELEVANCE = 0.1
MAX_RELEVANCE = 2.0
INITIAL_RELEVANCE = 1.0


class MemoryType(StrEnum):
    """What kind of memory a unit is. Decides its lifespan, scope and feedback rules."""

    USER_PROFILE = "user_profile"
    SESSION_STATE = "session_state"
    TOOL_RESULT = "tool_result"
    FACT_REFERENCE = "fact_reference"
    BATCH_OPERATION = "batch_operation"

    def __str__(self) -> str:
        return self.value


#: Types that belong to the user, not to one session: recalled from every session of that user.
USER_LEVEL_TYPES: frozenset[MemoryType] = frozenset(
    {MemoryType.USER_PROFILE, MemoryType.FACT_REFERENCE}
)

FeedbackEvent = Literal["used", "ignored", "wrong", "confirmed"]
FEEDBACK_EVENTS: tuple[str, ...] = ("used", "ignored", "wrong", "confirmed")

Role = Literal["user", "assistant", "tool", "system"]
ROLES: tuple[str, ...] = ("user", "assistant", "tool", "system")


class Entity(BaseModel):
    """A fixed-format thing found in a turn: its kind, exact source span and normalised value."""

    model_config = ConfigDict(frozen=True)

    kind: str
    text: str
    value: str
    start: int = 0
    end: int = 0


class Lifespan(BaseModel):
    """When a unit was learned, how long it lives, and how relevant it has proved."""

    created_at: datetime
    expires_in: int = Field(gt=0, description="seconds from created_at until the unit expires")
    relevance_score: float = Field(default=INITIAL_RELEVANCE, ge=MIN_RELEVANCE, le=MAX_RELEVANCE)

    @field_validator("created_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return ensure_utc(value)

    @property
    def expires_at(self) -> datetime:
        return self.created_at + timedelta(seconds=self.expires_in)


def new_unit_id() -> str:
    """A random, URL-safe unit id."""
    return "m_" + uuid.uuid4().hex


def content_hash(user_id: str, content: str) -> str:
    """The identity of a fact for de-duplication: same user, same normalised content."""
    norm = unicodedata.normalize("NFKC", content).casefold()
    norm = "".join(ch for ch in norm if ch.isalnum())
    return hashlib.sha256(f"{user_id}\x1f{norm}".encode()).hexdigest()[:32]


class MemoryUnit(BaseModel):
    """One small typed memory with provenance, a lifespan and a relevance score."""

    id: str = Field(default_factory=new_unit_id)
    content: str
    type: MemoryType
    lifespan: Lifespan
    session_id: str
    user_id: str
    valid_at: datetime | None = None
    valid_until: datetime | None = None
    invalidated_at: datetime | None = None
    invalidation_reason: str | None = None
    source_turn_ids: list[str] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    supersedes: str | None = None
    superseded_by: str | None = None
    slot: str | None = None
    topic: str | None = None
    content_hash: str = ""

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        if not value or not value.strip():
            raise ValueError("content must not be empty")
        if len(value) > MAX_CONTENT_CHARS:
            raise ValueError(
                f"content has {len(value)} characters; at most {MAX_CONTENT_CHARS} "
                "(the write path compresses, it never truncates)"
            )
        return value

    @field_validator("valid_at", "valid_until", "invalidated_at")
    @classmethod
    def _utc_opt(cls, value: datetime | None) -> datetime | None:
        return None if value is None else ensure_utc(value)

    def model_post_init(self, __context: Any) -> None:
        if not self.content_hash:
            self.content_hash = content_hash(self.user_id, self.content)

    @property
    def created_at(self) -> datetime:
        return self.lifespan.created_at

    @property
    def expires_at(self) -> datetime:
        return self.lifespan.expires_at

    @property
    def relevance_score(self) -> float:
        return self.lifespan.relevance_score

    def is_valid_at(self, as_of: datetime) -> bool:
        """True when the unit is current at ``as_of`` (freshness). Pure: the same rule as the stores'
        SQL."""
        return is_valid_at(self, as_of)

    def to_public_dict(self) -> dict[str, Any]:
        """The JSON shape of a unit in the CLI and HTTP contract."""
        return {
            "id": self.id,
            "content": self.content,
            "type": self.type.value,
            "session_id": self.session_id,
            "user_id": self.user_id,
            "source_turn_ids": list(self.source_turn_ids),
            "created_at": iso(self.created_at),
            "expires_at": iso(self.expires_at),
            "valid_at": iso(self.valid_at) if self.valid_at else None,
            "valid_until": iso(self.valid_until) if self.valid_until else None,
            "invalidated_at": iso(self.invalidated_at) if self.invalidated_at else None,
            "relevance_score": round(self.relevance_score, 4),
            "entities": [e.model_dump() for e in self.entities],
            "supersedes": self.supersedes,
            "superseded_by": self.superseded_by,
        }


def is_valid_at(unit: MemoryUnit, as_of: datetime) -> bool:
    """A unit is current at ``as_of`` when it was known, not expired, in its world validity
    window and not invalidated. Mirrors ``VALID_AT_SQL`` in the stores."""
    t = ensure_utc(as_of)
    if unit.created_at > t or unit.expires_at <= t:
        return False
    if unit.valid_at is not None and unit.valid_at > t:
        return False
    if unit.valid_until is not None and unit.valid_until <= t:
        return False
    return not (unit.invalidated_at is not None and unit.invalidated_at <= t)


#: What a recalled unit is at the recall's ``as_of``: ``current`` (valid now), ``expired``
#: (past its lifespan or its world validity: history, shown with its date) or ``superseded``
#: (replaced by a newer value; recalled only when the query asks about the past).
HitStatus = Literal["current", "expired", "superseded"]
HIT_STATUSES: tuple[str, ...] = ("current", "expired", "superseded")


def unit_status(unit: MemoryUnit, as_of: datetime) -> HitStatus | None:
    """The status of ``unit`` at ``as_of`` for recall; None when it must never be recalled at
    that instant (not yet known, or forgotten on request). Pure."""
    t = ensure_utc(as_of)
    if unit.created_at > t:
        return None
    if unit.invalidated_at is not None and unit.invalidated_at <= t:
        return "superseded" if unit.superseded_by else None
    if is_valid_at(unit, t):
        return "current"
    if unit.valid_at is not None and unit.valid_at > t:
        return None  # valid only later (a future plan seen from before it starts)
    return "expired"


def unit_date(unit: MemoryUnit) -> datetime:
    """The instant a unit speaks of: when it became valid, else when it was learned."""
    return unit.valid_at or unit.created_at


class Hit(BaseModel):
    """One recalled unit: how well it matches, which stage found it, how sure recall is, and
    whether it is ``current`` at the recall's ``as_of`` or history (``status``)."""

    unit: MemoryUnit
    score: float
    stage: str
    confidence: float = 0.0
    stages: list[str] = Field(default_factory=list)
    status: HitStatus = "current"

    @property
    def current(self) -> bool:
        """True when the unit is valid at the recall's ``as_of``; False for history (expired or
        superseded), which the prompt shows with its date."""
        return self.status == "current"

    @property
    def date(self) -> datetime:
        return unit_date(self.unit)

    def to_public_dict(self) -> dict[str, Any]:
        data = self.unit.to_public_dict()
        data.update(
            score=round(self.score, 6),
            stage=self.stage,
            confidence=round(self.confidence, 4),
            current=self.current,
            status=self.status,
            date=iso(self.date),
        )
        return data


_HIT_FIELDS = frozenset(("unit", "score", "stage", "confidence", "stages", "status"))


def built_hit(unit: MemoryUnit, score: float, stage: str, confidence: float,
              stages: list[str], status: HitStatus) -> Hit:
    """``Hit.model_construct`` of values already of their types (every field given), without
    its per-field default pass: recall builds one per candidate."""
    hit = Hit.__new__(Hit)
    object.__setattr__(hit, "__dict__", {"unit": unit, "score": score, "stage": stage,
                                         "confidence": confidence, "stages": stages,
                                         "status": status})
    object.__setattr__(hit, "__pydantic_fields_set__", set(_HIT_FIELDS))
    object.__setattr__(hit, "__pydantic_extra__", None)
    object.__setattr__(hit, "__pydantic_private__", None)
    return hit


# ---------------------------------------------------------------- an empty recall
# What a recall's hits mean to the layers above it: the one definition of an *empty* recall.
# The amnesia alert counts turns where "nothing came back from rule and vector recall". The
# vector stage always returns its nearest units, relevant or not, so "no hits at all" almost
# never happens; a recall is empty when no hit came from the rule stage and none reached the
# confidence threshold (0.7 by default, ``config.recall.confidence_threshold``). The agent loop,
# the amnesia hook (``instrument.py``) and the inspector all decide with this one function.


def recall_came_back_empty(hits: Sequence[Hit], threshold: float) -> bool:
    """True when ``hits`` hold nothing usable: no rule-stage hit and no hit whose confidence
    reaches ``threshold``. The one "ask the user to confirm instead of guessing" rule: the agent
    loop, the amnesia hook and the inspector's ``ask_to_confirm`` all use it (an empty recall:
    True everywhere)."""
    return not any(h.stage == "rule" or h.confidence >= threshold for h in hits)


# ---------------------------------------------------------------- relevance feedback rules

#: Per-type change of relevance for each event. A confirmation never lowers a score; a profile
#: fact that simply was not used in one turn is not penalised (only "wrong" lowers it).
FEEDBACK_DELTAS: dict[MemoryType, dict[str, float]] = {
    MemoryType.USER_PROFILE: {"used": 0.1, "confirmed": 0.1, "ignored": 0.0, "wrong": -0.3},
    MemoryType.SESSION_STATE: {"used": 0.1, "confirmed": 0.1, "ignored": -0.3, "wrong": -0.3},
    MemoryType.TOOL_RESULT: {"used": 0.1, "confirmed": 0.1, "ignored": -0.3, "wrong": -0.3},
    MemoryType.FACT_REFERENCE: {"used": 0.1, "confirmed": 0.1, "ignored": -0.3, "wrong": -0.3},
    MemoryType.BATCH_OPERATION: {"used": 0.1, "confirmed": 0.1, "ignored": 0.0, "wrong": -0.3},
}


def feedback_delta(unit_type: MemoryType, event: str) -> float:
    """How much ``event`` changes the relevance of a unit of ``unit_type``."""
    if event not in FEEDBACK_EVENTS:
        from .errors import ValidationError

        raise ValidationError(f"unknown feedback event {event!r}; use one of {FEEDBACK_EVENTS}")
    return FEEDBACK_DELTAS[unit_type][event]


def apply_feedback(score: float, unit_type: MemoryType, event: str) -> float:
    """The new relevance score after ``event``: +0.1 used (max 2.0), -0.3 ignored/wrong (min 0.1)."""
    delta = feedback_delta(unit_type, event)
    if event == "confirmed":
        delta = max(delta, 0.0)
    new = round(score + delta, 6)
    return min(MAX_RELEVANCE, max(MIN_RELEVANCE, new))
