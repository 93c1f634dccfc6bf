"""Configuration: frozen models, changed with ``model_copy(update=...)``, never mutated."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .llm.base import ChatClient
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


class FeatureWeights(BaseModel):
    """The weight of each feature of stage 3's confidence model, by name (the features are
    described in :data:`jiyi.recall.rerank.FEATURES`, which takes its order from these fields).
    A list of seven numbers in that order (a calibration's output) is accepted too."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    keyword_rr: float = 1.5  # keyword list: (k+1)/(k+rank)
    vector_rr: float = 1.5  # vector list (units and raw turns): (k+1)/(k+rank)
    cosine: float = 0.0  # cosine similarity to the query
    coverage: float = 2.0  # share of query terms in the unit and its source turn
    speaker: float = 0.5  # the query names the unit's speaker
    in_window: float = 1.0  # the unit falls in the query's time window
    rule: float = 4.0  # stage 1 (exact entity / slot) found it

    @model_validator(mode="before")
    @classmethod
    def _from_a_sequence(cls, value: object) -> object:
        if isinstance(value, (list, tuple)):
            names = list(cls.model_fields)
            if len(value) != len(names):
                raise ValueError(f"model_weights: {len(names)} numbers ({', '.join(names)}), "
                                 f"got {len(value)}")
            return dict(zip(names, value, strict=True))
        return value

    def as_tuple(self) -> tuple[float, ...]:
        """The weights in feature order."""
        return tuple(float(getattr(self, name)) for name in type(self).model_fields)


class RecallWeights(BaseModel):
    """How stage 3 re-ranks: fused match score, learned relevance, recency. Documented."""

    model_config = ConfigDict(frozen=True)

    rrf_k: int = 60
    # -- stage 3 ranking (jiyi.recall.rerank): every term in standard deviations of the searches
    keyword_weight: float = 0.3  # keyword (BM25) z, added to the dense z (the floor)
    rule_boost: float = 4.0  # stage 1 found it (an exact entity or the slot asked about)
    coverage_boost: float = 0.5  # x share of the query's terms in the unit and its turns
    speaker_boost: float = 0.3  # the query names who said it
    window_boost: float = 0.5  # inside the query's time window
    relevance_boost: float = 0.5  # x (relevance_score - 1): relevance feedback, -0.45 .. +0.5
    recency_half_life_days: float = 30.0
    recency_boost: float = 0.1  # x 2 ** (-age / half life): newer first on ties
    history_penalty: float = 0.3  # an expired unit (history) ranks below a current one
    superseded_penalty: float = 0.5  # a replaced value, when the query asks about the past
    other_session_penalty: float = 0.2  # a session-level unit of another session
    question_penalty: float = 1.0  # the same question asked before is not its answer (its reply is)
    episode_pool: int = 30  # best raw turns whose units join the candidates
    scale_prior_n: int = 8  # a z over n documents is shrunk by n / (n + this)
    frozen_topic_factor: float = 0.5
    active_topic_factor: float = 1.2
    confidence_threshold: float = 0.7
    # -- the third recall stage's model: confidence = sigmoid(model_bias + model_weights . features),
    # features in the order of jiyi.recall.rerank.FEATURES; hand-set (jiyi.recall.calibrate fits
    # them on labelled recalls; why LoCoMo's fit is not the default: docs/benchmarks/
    # recall-calibration.md). score = confidence x freshness x topic.
    model_bias: float = -3.0
    model_weights: FeatureWeights = FeatureWeights()
    # confidence = sigmoid(confidence_scale * z + confidence_shift), z the model's linear score:
    # Platt scaling fitted so that confidence ~ P(the recall found the evidence)
    confidence_scale: float = 1.0
    confidence_shift: float = 0.0
    expand_vague: bool = True  # expand vague references with the session's recent entities
    topics: bool = True  # topic switch detection (freeze / boost / thaw)
    topic_switch_cosine: float = 0.8  # below this cosine to the topic (and no shared word): left
    # -- second hop and diversity (jiyi.recall.multihop)
    second_hop: bool = False  # search again with the salient words of the best first hits
    hop_seeds: int = 3  # how many of the best first hits lend their words
    hop_seed_ratio: float = 0.5  # ... if their score is at least this share of the best one's
    hop_terms: int = 6  # at most this many new words
    hop_discount: float = 0.5  # a second-hop unit's z: the best hit's minus (1 - this x rank)
    hop_pool: int = 0  # candidates of the second search; 0 = the funnel's pool
    turn_repeat_factor: float = 0.5  # score factor of a hit whose source turns are all covered
    neighbour_turns: bool = True  # add the reply after a question among the best hits
    neighbour_seeds: int = 5  # how many of the best hits are looked at
    neighbour_seed_ratio: float = 0.5  # ... if their score is at least this share of the best
    neighbour_discount: float = 0.5  # a reply's z: its question's z minus this


class JiyiConfig(BaseModel):
    """Everything tunable. Frozen: build a new one with ``model_copy(update=...)``."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    lifespans: dict[MemoryType, int] = Field(default_factory=lambda: dict(DEFAULT_LIFESPANS))
    max_turn_bytes: int = 1_000_000
    max_query_chars: int = 2_000
    max_k: int = 100
    retention_days: float = 30.0
    # Opt-in retention policy: after an ingest commit, purge units expired or invalidated more
    # than ``retention_days`` ago, at most once per ``HealthConfig.cleanup_interval_seconds``
    # across processes (jiyi.health.retention). Off: only ``jiyi gc`` / ``Memory.gc()`` delete.
    auto_gc: bool = False
    warm_hours: float = 24.0
    recall: RecallWeights = Field(default_factory=RecallWeights)
    candidate_pool: int = 50
    # Optional model extraction on the write path (jiyi.write.llm_extract): a ChatClient, or a
    # spec in the one spelling of jiyi.llm.registry ("ollama:qwen2.5:7b@http://127.0.0.1:11434",
    # "openai:MODEL@http://127.0.0.1:8080/v1"). None: $JIYI_LLM_EXTRACT, else rules only.
    extract_llm: str | ChatClient | None = None
    extract_llm_timeout: float = Field(default=20.0, gt=0)  # seconds per attempt, for a spec

    def lifespan_of(self, unit_type: MemoryType) -> int:
        return int(self.lifespans.get(unit_type, DEFAULT_LIFESPANS[unit_type]))
