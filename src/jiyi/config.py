"""Configuration: frozen models, changed with ``model_copy(update=...)``, never mutated."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .units import MemoryType

HOUR = 3600
DAY = 24 * HOUR

#: Default lifespans per type, in seconds. Documented in the README; override with
#: ``JiyiConfig(lifespans={...})``.
DEFAULT_LIFESPANS: dict[MemoryType, int] = {
    MemoryType.SESSION_STATE: 6 * HOUR,
    MemoryType.TOOL_RESULT: DAY,
    MemoryType.BATCH_OPERATION: 30 * DAY,
    MemoryType.FACT_REFERENCE: 365 * DAY,
    MemoryType.USER_PROFILE: 365 * DAY,
}


class RecallWeights(BaseModel):
    """How stage 3 re-ranks: fused match score, learned relevance, recency. Documented."""

    model_config = ConfigDict(frozen=True)

    rrf_k: int = 60
    keyword_weight: float = 1.0
    vector_weight: float = 1.0
    rule_bonus: float = 1.0
    relevance_weight: float = 0.25
    recency_half_life_days: float = 30.0
    recency_weight: float = 0.1
    frozen_topic_factor: float = 0.5
    active_topic_factor: float = 1.2
    confidence_threshold: float = 0.7


class JiyiConfig(BaseModel):
    """Everything tunable. Frozen: build a new one with ``model_copy(update=...)``."""

    model_config = ConfigDict(frozen=True)

    lifespans: dict[MemoryType, int] = Field(default_factory=lambda: dict(DEFAULT_LIFESPANS))
    max_turn_bytes: int = 1_000_000
    max_query_chars: int = 2_000
    max_k: int = 100
    retention_days: float = 30.0
    warm_hours: float = 24.0
    recall: RecallWeights = Field(default_factory=RecallWeights)
    candidate_pool: int = 50

    def lifespan_of(self, unit_type: MemoryType) -> int:
        return int(self.lifespans.get(unit_type, DEFAULT_LIFESPANS[unit_type]))
