"""Stage 3 of the funnel: one comparable score per candidate, and a calibrated confidence.

**Ranking.** Each search's scores are put on one scale, the number of standard deviations above
the mean of everything that search looked at (:func:`zscore`): a cosine of 0.86 is nothing in a
store where every cosine is 0.85, and a strong keyword match is rare. The dense side is the
floor: a candidate's ``match`` is the z of the best of its raw turns' cosines and its own
cosine, plus ``keyword_weight`` times the z of its keyword (BM25) score. Evidence then moves it,
in the same units (standard deviations)::

    z = match
        + rule_boost * rule + coverage_boost * coverage + speaker_boost * speaker
        + window_boost * in_window
        + relevance_boost * (relevance_score - 1)          # relevance feedback
        + recency_boost * 2 ** (-age_days / half_life)     # newer first on ties
        - history_penalty        (expired: history, ranked below current of the same match)
        - superseded_penalty     (replaced value; only recalled for questions about the past)
        - other_session_penalty  (a session-level unit of another session)
        - question_penalty       (the same question asked before: its reply is the answer)
    score = sigmoid(z) * topic factor (frozen topic: 0.5, active topic: 1.2)

Keyword evidence earns its weight through the z scale: on Chinese chit-chat, where every turn
shares words, the keyword z of a match is small; an exact rare term stands out.

**Confidence** is the logistic model of :data:`FEATURES` (fitted by
:mod:`jiyi.recall.calibrate`, hand-set defaults), Platt-scaled so that the best hit's confidence
estimates P(the recall found what the query asks for); the confidence threshold (0.7) applies to it.

All pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..config import FeatureWeights, RecallWeights
from ..units import HitStatus, MemoryUnit
from .fusion import recency, sigmoid

#: The features of a candidate, named and ordered as ``RecallWeights.model_weights``' fields:
#: keyword_rr and vector_rr ((k+1)/(k+rank) in the keyword / vector list, 0 when absent),
#: cosine (similarity to the query, embedder-specific scale), coverage (share of query terms in
#: the unit's content + source turn text), speaker (1 when the query names who said the unit's
#: source turn), in_window (1 when the unit falls in the query's time window), rule (1 when
#: stage 1, an exact entity or slot, found it).
FEATURES: tuple[str, ...] = tuple(FeatureWeights.model_fields)


@dataclass
class Candidate:
    """A unit on its way through stage 3, with why it was found."""

    unit: MemoryUnit
    features: dict[str, float] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)  # "rule", "keyword", "vector", "episode"
    topic_factor: float = 1.0
    status: HitStatus = "current"
    match: float = 0.0  # dense z (+ keyword z): see the module docstring
    other_session: bool = False  # a session-level unit of another session

    def vector(self) -> list[float]:
        return [float(self.features.get(name, 0.0)) for name in FEATURES]


def zscore(value: float, mean: float, std: float, n: int = 0, prior_n: int = 0) -> float:
    """``(value - mean) / std``; 0 when the spread is nil (nothing to tell apart). Estimated
    from ``n`` documents, it is shrunk by ``n / (n + prior_n)``: over a handful of turns a
    cosine's z is mostly noise (it can reach sqrt(n - 1) at most), and an exact keyword or rule
    match should be able to outweigh it."""
    if std <= 1e-9:
        return 0.0
    z = (value - mean) / std
    return z * n / (n + prior_n) if prior_n > 0 and n > 0 else z


def coverage(terms: Sequence[str], folded_text: str) -> float:
    """Share of ``terms`` that occur in ``folded_text`` (both already folded)."""
    if not terms:
        return 0.0
    return sum(1 for t in terms if t and t in folded_text) / len(terms)


def linear_score(features: Mapping[str, float], weights: RecallWeights) -> float:
    """The confidence model's ``z = bias + sum w_i * x_i``."""
    z = weights.model_bias
    named = weights.model_weights
    for name in FEATURES:
        z += float(getattr(named, name)) * float(features.get(name, 0.0))
    return z


#: :func:`confidence`'s weights read once: ``(bias, ((feature, weight), ...), scale, shift)``.
ConfidenceModel = tuple[float, tuple[tuple[str, float], ...], float, float]


def confidence_model(weights: RecallWeights) -> ConfidenceModel:
    """The weights :func:`confidence` reads, read once (a recall scores every candidate with
    them: :func:`model_confidence` gives the same number without a ``getattr`` per feature)."""
    named = weights.model_weights
    return (weights.model_bias, tuple((name, float(getattr(named, name))) for name in FEATURES),
            weights.confidence_scale, weights.confidence_shift)


def model_confidence(features: Mapping[str, float], model: ConfidenceModel) -> float:
    """:func:`confidence` from :func:`confidence_model`'s weights (the same arithmetic, in the
    same order)."""
    bias, pairs, scale, shift = model
    z = bias
    for name, w in pairs:
        z += w * float(features.get(name, 0.0))
    return sigmoid(scale * z + shift)


def confidence(features: Mapping[str, float], weights: RecallWeights) -> float:
    """Calibrated confidence in [0, 1]: ``sigmoid(scale * z + shift)`` (Platt scaling), fitted so
    that the best hit's confidence estimates P(the recall found what the query asks for)."""
    return sigmoid(weights.confidence_scale * linear_score(features, weights)
                   + weights.confidence_shift)


def rank_z(cand: Candidate, as_of: datetime, weights: RecallWeights,
           repeated_question: bool = True) -> float:
    """The candidate's place on the common scale (standard deviations; module docstring).
    ``repeated_question=False`` leaves out the penalty of a repeated question (what its reply
    inherits, :func:`jiyi.recall.multihop.neighbours`)."""
    f = cand.features
    z = (cand.match
         + weights.rule_boost * f.get("rule", 0.0)
         + weights.coverage_boost * f.get("coverage", 0.0)
         + weights.speaker_boost * f.get("speaker", 0.0)
         + weights.window_boost * f.get("in_window", 0.0)
         + weights.relevance_boost * (cand.unit.relevance_score - 1.0))
    age_days = (as_of - cand.unit.created_at).total_seconds() / SECONDS_PER_DAY
    z += weights.recency_boost * recency(age_days, weights.recency_half_life_days)
    if cand.status == "expired":
        z -= weights.history_penalty
    elif cand.status == "superseded":
        z -= weights.superseded_penalty
    if cand.other_session:
        z -= weights.other_session_penalty
    if repeated_question and repeats_the_query(cand):
        z -= weights.question_penalty
    return z


def repeats_the_query(cand: Candidate) -> bool:
    """A question asked before that holds every term of the query ("现在我的电话是多少？" for
    "我现在的电话是多少？"): the user asked the same thing; the answer followed it."""
    return cand.features.get("coverage", 0.0) >= 1.0 and is_question(cand.unit.content)


SECONDS_PER_DAY = 86400.0
_QUESTION_END = re.compile(r"(?:[?？]|[吗嗎呢][。.！!]?)\s*$")


def is_question(text: str) -> bool:
    """True when a unit asks something: a question mark anywhere, or a Chinese question
    particle at its end. Its answer is usually the next turn (:func:`.multihop.neighbours`)."""
    return "?" in text or "？" in text or bool(_QUESTION_END.search(text))


def final_score(cand: Candidate, as_of: datetime, weights: RecallWeights) -> tuple[float, float]:
    """``(score, confidence)`` of a candidate: score = sigmoid(rank z) x topic factor."""
    return score_of(cand, rank_z(cand, as_of, weights), weights)


def score_of(cand: Candidate, z: float, weights: RecallWeights) -> tuple[float, float]:
    """:func:`final_score` from the candidate's rank ``z`` already computed."""
    return sigmoid(z) * cand.topic_factor, confidence(cand.features, weights)


def rank_zs(cand: Candidate, as_of: datetime, weights: RecallWeights) -> tuple[float, float]:
    """``(rank_z(repeated_question=False), rank_z())`` computed once: the repeated question's
    penalty is the formula's last term, so the second is the first minus it."""
    z = rank_z(cand, as_of, weights, repeated_question=False)
    return z, (z - weights.question_penalty if repeats_the_query(cand) else z)
