"""The three-stage recall funnel (S7). FIRST VERSION: the read-path issue deepens each stage.

1. rules: fixed-format entities in the query matched exactly against units' entities;
2. hybrid: FTS5/BM25 keyword search and vector search, fused with RRF;
3. freshness/relevance: only units valid at ``as_of`` (inside the store's SQL), re-ranked by
   relevance score and recency; a confidence in [0, 1] for the best answer.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime

from ..config import JiyiConfig
from ..embed.base import Embedder
from ..store.base import Scope, Store
from ..text import keyword_terms
from ..units import Entity, Hit, MemoryUnit
from .fusion import reciprocal_rank_fusion

_CODE_RE = re.compile(r"(?<![A-Za-z0-9])(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9-]{5,}")
_PHONE_RE = re.compile(r"(?<!\d)\+?\d[\d -]{6,}\d(?!\d)")
_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")


def query_entities(query: str) -> list[Entity]:
    """Fixed-format things in a query that can be matched exactly."""
    found: list[Entity] = []
    for kind, rx in (("email", _EMAIL_RE), ("code", _CODE_RE), ("phone", _PHONE_RE)):
        for m in rx.finditer(query):
            value = m.group(0)
            norm = re.sub(r"[ -]", "", value) if kind == "phone" else value.upper()
            if kind == "email":
                norm = value.lower()
            found.append(Entity(kind=kind, text=value, value=norm, start=m.start(), end=m.end()))
    return found


@dataclass(frozen=True)
class RecallRequest:
    query: str
    scope: Scope
    as_of: datetime
    k: int


def _recency(unit: MemoryUnit, as_of: datetime, half_life_days: float) -> float:
    age_days = max(0.0, (as_of - unit.created_at).total_seconds() / 86400.0)
    return math.exp(-math.log(2) * age_days / max(half_life_days, 1e-6))


def run_recall(
    store: Store, embedder: Embedder, request: RecallRequest, config: JiyiConfig
) -> list[Hit]:
    weights = config.recall
    pool = max(config.candidate_pool, request.k * 3)
    scope, as_of = request.scope, request.as_of

    rule_ids = [uid for uid, _ in store.entity_search(scope, as_of, query_entities(request.query), pool)]
    keyword = store.keyword_search(scope, as_of, keyword_terms(request.query), pool)
    qvec = embedder.embed_query(request.query)
    vector = store.vector_search(scope, as_of, embedder.name, qvec, pool)
    cosine = dict(vector)

    fused = reciprocal_rank_fusion(
        {"keyword": [u for u, _ in keyword], "vector": [u for u, _ in vector]},
        {"keyword": weights.keyword_weight, "vector": weights.vector_weight},
        k=weights.rrf_k,
    )
    max_fused = (weights.keyword_weight + weights.vector_weight) / (weights.rrf_k + 1)
    scores: dict[str, float] = {uid: s / max_fused for uid, s in fused.items()}
    stage: dict[str, str] = {uid: "semantic" for uid in scores}
    for uid in rule_ids:
        scores[uid] = scores.get(uid, 0.0) + weights.rule_bonus
        stage[uid] = "rule"

    units = {u.id: u for u in store.get_units(list(scores))}
    hits: list[Hit] = []
    for uid, base in scores.items():
        unit = units.get(uid)
        if unit is None or not unit.is_valid_at(as_of):
            continue
        rel = 1.0 + weights.relevance_weight * (unit.relevance_score - 1.0)
        rec = 1.0 + weights.recency_weight * _recency(unit, as_of, weights.recency_half_life_days)
        score = base * rel * rec
        cos = cosine.get(uid)
        if stage[uid] == "rule":
            conf = 1.0
        elif cos is not None:
            conf = min(1.0, max(0.0, (cos - 0.78) / 0.1))
        else:
            conf = 0.5
        hits.append(Hit(unit=unit, score=score, stage=stage[uid], confidence=conf))
    hits.sort(key=lambda h: (-h.score, h.unit.id))
    return hits[: request.k]
