"""The three-stage recall funnel (S7), as data in and hits out.

1. **rules** (:mod:`.rules`): fixed-format entities and slot questions, exact, no model;
2. **hybrid** (:mod:`.query`, :mod:`.hybrid`): the query made explicit (vague references
   expanded, time window read), keyword + vector search, fused;
3. **freshness and relevance** (:mod:`.rerank`): only units valid at ``as_of`` (inside the
   store's SQL, checked again here), a calibrated confidence, the final comparable score,
   topic freezing (:mod:`.topics`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..config import JiyiConfig
from ..embed.base import Embedder
from ..embed.routing import EmbedderRouting
from ..health.hooks import recall_stage
from ..store.base import Scope, Store, TurnRecord, Vector
from ..text import fold
from ..units import Hit, MemoryUnit
from .fusion import reciprocal_ranks
from .hybrid import Stage2, search
from .multihop import diversify, merge_max, neighbours, second_hop
from .query import EnhancedQuery, enhance, is_vague
from .rerank import Candidate, coverage, final_score
from .rules import lookup_values, query_entities, slot_intent
from .topics import TopicState

#: Called with the query's terms and vector; returns the session's topic state (or None).
TopicObserver = Callable[[list[str], Vector | None], TopicState | None]

RECENT_ENTITY_WINDOW = timedelta(days=1)


@dataclass(frozen=True)
class RecallRequest:
    query: str
    scope: Scope
    as_of: datetime
    k: int


@dataclass
class RecallTrace:
    """What the funnel did, for tests, ``jiyi recall --explain`` and calibration."""

    query: EnhancedQuery | None = None
    rule_ids: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    topic: TopicState | None = None


def recent_entities(store: Store, scope: Scope, as_of: datetime) -> list[str]:
    """Entity values of the session's recent units, newest first (for vague references)."""
    if scope.session_id is None:
        return []
    session_only = Scope(scope.user_id, scope.session_id, frozenset())
    units = store.find_units(session_only, as_of=as_of, since=as_of - RECENT_ENTITY_WINDOW,
                             limit=20)
    values: list[str] = []
    for unit in units:  # newest first
        for e in unit.entities:
            if e.kind not in ("date", "time", "money", "amount") and e.text not in values:
                values.append(e.text)
    return values


def stage1(store: Store, request: RecallRequest, pool: int) -> list[str]:
    """Unit ids found by the rules, best first."""
    scope, as_of = request.scope, request.as_of
    ids: list[str] = []
    entities = query_entities(request.query)
    if entities:
        ids.extend(uid for uid, _ in store.entity_search(scope, as_of, lookup_values(entities), pool))
    intent = slot_intent(request.query)
    if intent is not None:
        for slot in intent.slots:
            ids.extend(u.id for u in store.find_units(scope, as_of=as_of, slot=slot, limit=5))
        if not ids:
            ids.extend(uid for uid, _ in store.entity_kind_search(scope, as_of, intent.kinds, 5))
    return list(dict.fromkeys(ids))


def _speaker_named(query_folded: str, speakers: set[str]) -> bool:
    return any(s and fold(s) in query_folded for s in speakers)


def run_recall(
    store: Store,
    embedder: Embedder | EmbedderRouting,
    request: RecallRequest,
    config: JiyiConfig,
    *,
    topics: TopicObserver | None = None,
    trace: RecallTrace | None = None,
) -> list[Hit]:
    """The best ``request.k`` hits, best first."""
    weights = config.recall
    pool = max(config.candidate_pool, request.k * 3)
    scope, as_of = request.scope, request.as_of

    with recall_stage("rule"):
        rule_ids = stage1(store, request, pool)
    with recall_stage("semantic"):
        recent = (recent_entities(store, scope, as_of)
                  if weights.expand_vague and is_vague(request.query) else [])
        q = enhance(request.query, as_of, recent)
        found = search(store, embedder, q, scope, as_of, pool)
    with recall_stage("rerank"):
        topic_state = topics(q.terms, found.query_vector) if topics is not None else None
        loaded = _Loaded()
        hits = _rerank(store, request, config, rule_ids, q, found, topic_state, trace, loaded)
        extra: dict[str, float] = {}  # second-hop units and replies (:mod:`.multihop`)
        if weights.second_hop and hits:
            extra = second_hop(store, scope, as_of, q, hits, [u for u, _ in found.keyword],
                               weights, pool)
        if weights.neighbour_turns and hits:
            extra = merge_max(extra, neighbours(store, scope, as_of, hits, weights))
        if extra:
            hits = _rerank(store, request, config, rule_ids, q, found, topic_state, trace,
                           loaded, extra)
        return diversify(hits, weights.turn_repeat_factor)[: request.k]


@dataclass
class _Loaded:
    """Candidates' units and source turns read so far in one recall: a second stage-3 pass
    (after replies / second-hop units joined) reads only the new ids."""

    units: dict[str, MemoryUnit] = field(default_factory=dict)
    sources: dict[str, list[TurnRecord]] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)

    def fetch(self, store: Store, ids: list[str]) -> None:
        new = [i for i in ids if i not in self.seen]
        if new:
            self.units.update((u.id, u) for u in store.get_units(new))
            self.sources.update(store.source_turns(new))
            self.seen.update(new)


def _rerank(
    store: Store,
    request: RecallRequest,
    config: JiyiConfig,
    rule_ids: list[str],
    q: EnhancedQuery,
    found: Stage2,
    topic_state: TopicState | None,
    trace: RecallTrace | None,
    loaded: _Loaded,
    hop: dict[str, float] | None = None,
) -> list[Hit]:
    """Stage 3: validity at ``as_of``, features, topic factors, final score and confidence.
    Every candidate, best first; ``hop`` adds second-hop units with their discounted keyword
    rank (:mod:`.multihop`)."""
    weights = config.recall
    as_of = request.as_of

    kw_rr = merge_max(reciprocal_ranks([u for u, _ in found.keyword], weights.rrf_k), hop or {})
    vec_rr = reciprocal_ranks([u for u, _ in found.vector], weights.rrf_k)
    cosine = dict(found.vector)
    ids = list(dict.fromkeys([*rule_ids, *kw_rr, *vec_rr]))
    loaded.fetch(store, ids)
    units, sources = loaded.units, loaded.sources
    query_folded = fold(request.query)
    rule_set = set(rule_ids)

    candidates: list[Candidate] = []
    for uid in ids:
        unit = units.get(uid)
        if unit is None or not unit.is_valid_at(as_of):
            continue
        turns = sources.get(uid, [])
        text = fold(unit.content + " " + " ".join(t.text for t in turns))
        speakers = {t.speaker for t in turns if t.speaker}
        cand = Candidate(unit=unit, features={
            "keyword_rr": kw_rr.get(uid, 0.0),
            "vector_rr": vec_rr.get(uid, 0.0),
            "cosine": cosine.get(uid, 0.0),
            "coverage": coverage(q.terms, text),
            "speaker": 1.0 if _speaker_named(query_folded, speakers) else 0.0,
            "in_window": 1.0 if uid in found.in_window else 0.0,
            "rule": 1.0 if uid in rule_set else 0.0,
        })
        cand.sources = [name for name, present in (
            ("rule", uid in rule_set), ("keyword", uid in kw_rr), ("vector", uid in vec_rr))
            if present]
        if topic_state is not None:
            cand.topic_factor = topic_state.factor(unit, weights.frozen_topic_factor,
                                                   weights.active_topic_factor)
        candidates.append(cand)

    hits = [_hit(c, as_of, config) for c in candidates]
    hits.sort(key=lambda h: (-h.score, h.unit.id))
    if trace is not None:
        trace.query, trace.rule_ids, trace.candidates, trace.topic = (
            q, rule_ids, candidates, topic_state)
    return hits


def _hit(cand: Candidate, as_of: datetime, config: JiyiConfig) -> Hit:
    score, conf = final_score(cand, as_of, config.recall)
    if "rule" in cand.sources:
        stage = "rule"
    elif "vector" in cand.sources:
        stage = "semantic"
    else:
        stage = "keyword"
    return Hit(unit=cand.unit, score=score, stage=stage, confidence=conf,
               stages=list(cand.sources))


def low_confidence(hits: list[Hit], threshold: float) -> bool:
    """S7: True when the caller should ask the user to confirm instead of guessing."""
    return not hits or hits[0].confidence < threshold


def units_of(hits: list[Hit]) -> list[MemoryUnit]:
    return [h.unit for h in hits]
