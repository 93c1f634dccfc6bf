"""Stage 3 of the funnel: features of a candidate -> calibrated confidence -> final score.

Every candidate gets a small feature vector (:data:`FEATURES`). A logistic model (fitted on
labelled candidates: is this unit evidence for the question?) gives a linear score ``z`` that
orders candidates; Platt scaling of the best hit's ``z`` against "did the recall find the
evidence" turns it into ``confidence``, calibrated on data (see
:mod:`jiyi.recall.calibrate` and ``docs/benchmarks/recall-calibration.md``). Because it is a
probability and not a rank, it means the same thing for every query. The final ``Hit.score``
multiplies it by the documented freshness and relevance factors::

    score = confidence
            * (1 + relevance_weight * (relevance_score - 1))        # S2 feedback, 0.775..1.25
            * (1 + recency_weight * 2 ** (-age_days / half_life))   # newer first on ties
            * topic factor (frozen topic: 0.5, active topic: 1.2)   # S18

All pure functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..config import RecallWeights
from ..units import MemoryUnit
from .fusion import recency, sigmoid

#: The features of a candidate, in the order of ``RecallWeights.model_weights``.
FEATURES: tuple[str, ...] = (
    "keyword_rr",  # keyword list: (k+1)/(k+rank), 0 when absent
    "vector_rr",  # vector list: (k+1)/(k+rank), 0 when absent
    "cosine",  # cosine similarity to the query (embedder-specific scale), 0 when absent
    "coverage",  # share of query terms found in the unit's content + source turn text
    "speaker",  # 1 when the query names the person who said the unit's source turn
    "in_window",  # 1 when the query has a time window and the unit falls inside it
    "rule",  # 1 when stage 1 (exact entity / slot) found it
)


@dataclass
class Candidate:
    """A unit on its way through stage 3, with why it was found."""

    unit: MemoryUnit
    features: dict[str, float] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)  # "rule", "keyword", "vector"
    topic_factor: float = 1.0

    def vector(self) -> list[float]:
        return [float(self.features.get(name, 0.0)) for name in FEATURES]


def coverage(terms: Sequence[str], folded_text: str) -> float:
    """Share of ``terms`` that occur in ``folded_text`` (both already folded)."""
    if not terms:
        return 0.0
    return sum(1 for t in terms if t and t in folded_text) / len(terms)


def linear_score(features: Mapping[str, float], weights: RecallWeights) -> float:
    """The model's ``z = bias + sum w_i * x_i`` (orders candidates within a query)."""
    z = weights.model_bias
    for name, w in zip(FEATURES, weights.model_weights, strict=False):
        z += w * float(features.get(name, 0.0))
    return z


def confidence(features: Mapping[str, float], weights: RecallWeights) -> float:
    """Calibrated confidence in [0, 1]: ``sigmoid(scale * z + shift)`` (Platt scaling), fitted so
    that the best hit's confidence estimates P(the recall found what the query asks for)."""
    return sigmoid(weights.confidence_scale * linear_score(features, weights)
                   + weights.confidence_shift)


def freshness_factor(unit: MemoryUnit, as_of: datetime, weights: RecallWeights) -> float:
    """The documented relevance x recency multiplier of a unit at ``as_of``."""
    rel = 1.0 + weights.relevance_weight * (unit.relevance_score - 1.0)
    age_days = (as_of - unit.created_at).total_seconds() / 86400.0
    rec = 1.0 + weights.recency_weight * recency(age_days, weights.recency_half_life_days)
    return rel * rec


def final_score(cand: Candidate, as_of: datetime, weights: RecallWeights) -> tuple[float, float]:
    """``(score, confidence)`` of a candidate."""
    conf = confidence(cand.features, weights)
    return conf * freshness_factor(cand.unit, as_of, weights) * cand.topic_factor, conf
