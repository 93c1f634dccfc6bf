"""The three-stage recall funnel, as data in and hits out.

1. **rules** (:mod:`.rules`): fixed-format entities and slot questions, exact, no model;
2. **hybrid** (:mod:`.query`, :mod:`.hybrid`): the query made explicit (vague references
   expanded, time window read), keyword + vector search, fused;
3. **freshness and relevance** (:mod:`.rerank`): only units valid at ``as_of`` (inside the
   store's SQL, checked again here), a calibrated confidence, the final comparable score,
   topic freezing (:mod:`.topics`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..config import JiyiConfig
from ..embed.base import Embedder
from ..embed.routing import EmbedderRouting
from ..store.base import Scope, Scored, Store, TurnRecord, Vector
from ..store.capabilities import ResidentTablesStore
from ..text import fold, keyword_terms
from ..text.entities import ID_KINDS
from ..timing import recall_stage, recording
from ..units import (
    USER_LEVEL_TYPES,
    Entity,
    Hit,
    HitStatus,
    MemoryUnit,
    built_hit,
    unit_date,
    unit_status,
)
from .echo import echoes_last
from .episodes import EPISODE_UNITS_PER_TURN
from .fusion import reciprocal_ranks, sigmoid
from .hybrid import QueryVector, Stage2, as_routing, dense_stage, keyword_stage
from .keyslots import SlotView, asks_earlier, prototype_intent, slot_view
from .multihop import diversify, merge_max, neighbours, second_hop, values_lead
from .query import EnhancedQuery, asks_about_past, enhance, is_vague
from .rerank import (
    Candidate,
    ConfidenceModel,
    confidence_model,
    coverage,
    model_confidence,
    rank_zs,
    zscore,
)
from .rules import SlotIntent, lookup_values, query_entities, slot_intent
from .topics import TopicState, follow_evidence

#: Called with the query's own terms and vector (the raw query's, before any expansion);
#: returns the topic state the recall ranks with (or None). Must not write anything.
TopicObserver = Callable[[list[str], Vector | None], TopicState | None]

RECENT_ENTITY_WINDOW = timedelta(days=1)
#: Recent units of the session read for the entities a vague query ("那个", "it") may mean.
RECENT_ENTITY_UNITS = 20
#: Current values read per slot a question asks about (one is the answer; a few cover a race).
SLOT_VALUES_PER_QUESTION = 5
#: Candidates searched per hit asked for, at least: room for the re-rank to reorder.
POOL_PER_HIT = 3


@dataclass(frozen=True)
class RecallRequest:
    query: str
    scope: Scope
    as_of: datetime
    k: int


@dataclass
class RecallTrace:
    """What the funnel did, for tests, ``jiyi recall --explain``, the inspector and calibration:
    the query as searched, the entities the rule stage looked up, the rule stage's ids, every
    candidate with why it was found, the topic state ranked with, and each stage's seconds
    (first timed, first listed; a stage timed twice, such as ``rule``, adds both)."""

    query: EnhancedQuery | None = None
    entities: list[Entity] = field(default_factory=list)
    rule_ids: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    topic: TopicState | None = None
    seconds: dict[str, float] = field(default_factory=dict)

    def stage(self, sources: tuple[str, ...], feature: str, limit: int,
              order: list[str] | None = None) -> list[tuple[MemoryUnit, float]]:
        """The candidates found by any of ``sources`` ("rule", "keyword", "vector",
        "episode"), best first by that stage's own measure ``feature`` (or by ``order``: the
        rule stage's ids as it found them), with that measure; at most ``limit``."""
        found = [c for c in self.candidates if set(c.sources) & set(sources)]
        if order is not None:
            rank = {uid: i for i, uid in enumerate(order)}
            found.sort(key=lambda c: rank.get(c.unit.id, len(rank)))
        else:
            found.sort(key=lambda c: -float(c.features.get(feature, 0.0)))
        return [(c.unit, float(c.features.get(feature, 0.0))) for c in found[:limit]]


def recent_entities(store: Store, scope: Scope, as_of: datetime) -> list[str]:
    """Entity values of the session's recent units, newest first (for vague references)."""
    if scope.session_id is None:
        return []
    session_only = Scope(scope.user_id, scope.session_id, frozenset())
    units = store.find_units(session_only, as_of=as_of, since=as_of - RECENT_ENTITY_WINDOW,
                             limit=RECENT_ENTITY_UNITS)
    values: list[str] = []
    for unit in units:  # newest first
        for e in unit.entities:
            if e.kind not in ("date", "time", "money", "amount") and e.text not in values:
                values.append(e.text)
    return values


def stage1(store: Store, request: RecallRequest, pool: int, entities: list[Entity],
           intent: SlotIntent | None, trace: RecallTrace | None = None) -> list[str]:
    """Unit ids found by the rules, best first: exact entities among all the user's units
    (history too), the current value of a slot asked about, else the newest units holding an
    entity of the kind asked about. ``entities``: the query's
    (:func:`.rules.query_entities`); ``intent``: its :func:`.rules.slot_intent`."""
    scope, as_of = request.scope, request.as_of
    wide = Scope(scope.user_id, None)
    ids: list[str] = []
    if trace is not None:
        trace.entities = entities
    if entities:
        ids.extend(uid for uid, _ in store.entity_search(
            wide, as_of, lookup_values(entities), pool, history=True))
    if intent is not None:
        for slot in intent.slots:
            ids.extend(u.id for u in store.find_units(scope, as_of=as_of, slot=slot,
                                                          limit=SLOT_VALUES_PER_QUESTION))
        if not ids and intent.own and intent.kinds:
            ids.extend(uid for uid, _ in store.entity_kind_search(
                wide, as_of, intent.kinds, SLOT_VALUES_PER_QUESTION, history=True))
    return list(dict.fromkeys(ids))


def run_recall(
    store: Store,
    embedder: Embedder | EmbedderRouting,
    request: RecallRequest,
    config: JiyiConfig,
    *,
    topics: TopicObserver | None = None,
    trace: RecallTrace | None = None,
) -> list[Hit]:
    """The best ``request.k`` hits, best first.

    Everything the user said is searched: units of every session of the user, expired ones
    too (as history), and the raw turns themselves (the episodic layer,
    :mod:`jiyi.recall.episodes`). Scope, status and session move a unit's rank, never whether it
    can be found; a replaced value is recalled only for a question about the past. Never a unit
    of another user."""
    with recording(trace.seconds if trace is not None else None):
        return _run_recall(store, embedder, request, config, topics, trace)


def _run_recall(store: Store, embedder: Embedder | EmbedderRouting, request: RecallRequest,
                config: JiyiConfig, topics: TopicObserver | None,
                trace: RecallTrace | None) -> list[Hit]:
    weights = config.recall
    pool = max(config.candidate_pool, request.k * POOL_PER_HIT)
    scope, as_of = request.scope, request.as_of
    wide = Scope(scope.user_id, None)

    # Each stage is timed on its own (never nested): ``jiyi_recall_seconds{stage}`` and
    # ``jiyi bench recall --profile`` read these timers. The query is embedded on a worker
    # thread meanwhile (:class:`.hybrid.QueryVector`): rules, keyword search and reading the
    # candidates found so far need no vector; ``embed`` times what is left to wait for.
    routing = as_routing(embedder)
    pending = QueryVector(routing.default, request.query)
    with recall_stage("rule"):
        entities = query_entities(request.query, as_of)
        cued = slot_intent(request.query)  # a key-fact question by its cue words
        rule_ids = stage1(store, request, pool, entities, cued, trace)
    with recall_stage("query"):
        terms = keyword_terms(request.query)  # segmented once for both uses
        recent = (recent_entities(store, scope, as_of)
                  if weights.expand_vague and is_vague(request.query, terms) else [])
        q = enhance(request.query, as_of, recent, terms)
    found = keyword_stage(store, q, wide, as_of, pool, history=True)
    ctx = _Context(store, request, config, rule_ids, q, found, None,
                   asks_about_past(request.query))
    names_id = any(e.kind in ID_KINDS for e in entities)
    if cued is not None:  # its slot's values need no vector: read them before the wait
        with recall_stage("rule"):
            rule_ids = ctx.key_fact(cued, names_id)
    with recall_stage("prefetch"):
        ctx.fetch(list(dict.fromkeys([*rule_ids, *(u for u, _ in found.keyword)])))
        ctx.cover(ctx.units)  # the query terms each read candidate holds (no vector needed)
        if isinstance(store, ResidentTablesStore):  # a cold user's tables, before the wait
            store.load_user_tables(scope.user_id, routing.default.name, routing.default.dim)
    with recall_stage("embed"):
        query_vector = (pending.result() if q.search_text == pending.text
                        else routing.default.embed_query(q.search_text))
    dense_stage(store, routing, q, wide, as_of, pool, found, query_vector, history=True,
                episodes=weights.episode_pool and max(weights.episode_pool, request.k))
    if cued is None:
        with recall_stage("rule"):
            intent = prototype_intent(routing.default, request.query, found.query_vector)
            if intent is not None:
                rule_ids = ctx.key_fact(intent, names_id)
    with recall_stage("topic"):
        topic_state = topics(terms, pending.result()) if topics is not None else None
    if topic_state is not None and not topic_state.switched and len(topic_state.topics) > 1:
        plain = ctx.rank()  # without topic factors: which topic does the best match belong to?
        if plain:
            topic_state = follow_evidence(topic_state, plain[0][0].unit, as_of)
        ctx.forget_scores()
    ctx.topic_state = topic_state
    ranked = ctx.rank()
    extra: dict[str, float] = {}  # second-hop units and replies (:mod:`.multihop`)
    with recall_stage("multihop"):
        if weights.second_hop and ranked:
            top_z = ranked[0][1]
            extra = {uid: top_z - (1.0 - rr) for uid, rr in second_hop(
                store, wide, as_of, q, [h for h, _ in ranked], [u for u, _ in found.keyword],
                weights, pool, history=True, source_turns=ctx.sources).items()}
        if weights.neighbour_turns and ranked:
            extra = merge_max(extra, neighbours(store, ranked, weights, ctx.sources))
    if extra:
        ranked = ctx.rank(extra)
    if trace is not None:
        trace.query, trace.rule_ids, trace.candidates, trace.topic = (
            q, rule_ids, ctx.candidates, topic_state)
    with recall_stage("post"):
        hits = diversify(values_lead([h for h, _ in ranked]), weights.turn_repeat_factor)
        return echoes_last(hits, request.query, ctx.sources)[:request.k]


@dataclass
class _Context:
    """One recall's stage 3: candidates read once, ranked once or twice (after replies or
    second-hop units joined, a second pass reads only the new ids)."""

    store: Store
    request: RecallRequest
    config: JiyiConfig
    rule_ids: list[str]
    q: EnhancedQuery
    found: Stage2
    topic_state: TopicState | None
    past: bool
    units: dict[str, MemoryUnit] = field(default_factory=dict)
    sources: dict[str, list[TurnRecord]] = field(default_factory=dict)
    candidates: list[Candidate] = field(default_factory=list)
    _episode_units: list[str] | None = None
    _basis_cache: _Basis | None = None
    _scored: dict[str, tuple[Candidate, Hit, float] | None] = field(default_factory=dict)
    _folded_speakers: dict[str, str] = field(default_factory=dict)
    _slots: dict[str, bool] = field(default_factory=dict)  # slot -> holds a current value
    _coverage: dict[str, float] = field(default_factory=dict)  # unit id -> :meth:`cover`
    _status: dict[str, HitStatus | None] = field(default_factory=dict)  # :meth:`status`
    view: SlotView | None = None  # a key-fact question: its slot's current and replaced values

    def fetch(self, ids: list[str]) -> None:
        new = [i for i in ids if i not in self.units and i not in self.sources]
        if new:
            units, sources = self.store.units_with_sources(new)
            self.units.update((u.id, u) for u in units)
            self.sources.update(sources)
            for i in new:
                self.sources.setdefault(i, [])

    def key_fact(self, intent: SlotIntent, names_id: bool) -> list[str]:
        """A key-fact question: its slot's view (:func:`.keyslots.slot_view`), whose rule hits
        join the rule stage's; returns the rule ids."""
        request = self.request
        self.past = self.past or asks_earlier(request.query)
        self.view = slot_view(self.store, request.scope, request.as_of, intent, self.past,
                              names_id=names_id)
        self.rule_ids = list(dict.fromkeys([*self.rule_ids, *self.view.rule_ids]))
        return self.rule_ids

    def cover(self, ids: Iterable[str]) -> None:
        """The share of the query's terms in each read candidate's text (content and source
        turns, folded): the ``coverage`` feature, computed once per candidate (the prefetched
        ones while the query is embedded)."""
        terms = self.q.terms
        for uid in ids:
            unit = self.units.get(uid)
            if unit is not None and uid not in self._coverage:
                turns = self.sources.get(uid, [])
                self._coverage[uid] = coverage(
                    terms, fold(unit.content + " " + " ".join(t.text for t in turns)))

    def status(self, unit: MemoryUnit) -> HitStatus | None:
        """:func:`~jiyi.units.unit_status` at the recall's ``as_of``, once per unit (a
        candidate's is asked for up to four times a recall)."""
        if unit.id not in self._status:
            self._status[unit.id] = unit_status(unit, self.request.as_of)
        return self._status[unit.id]

    def forget_scores(self) -> None:
        """Score every candidate again at the next :meth:`rank` (the topic state changed)."""
        self._scored.clear()

    def episode_units(self) -> list[str]:
        """Units cut from the best raw turns, in the turns' order."""
        if self._episode_units is None:
            keys = [k for k, _ in self.found.turns.hits]
            by_turn = self.store.turn_units(keys)
            self._episode_units = list(dict.fromkeys(
                uid for k in keys for uid in by_turn.get(k, [])[:EPISODE_UNITS_PER_TURN]))
        return self._episode_units

    def replaced_slots(self, ids: list[str]) -> set[str]:
        """Slots (single-valued facts) of the expired candidates that hold a current value: an
        expired value of such a slot was replaced, not merely old."""
        as_of = self.request.as_of
        slots = {u.slot for i in ids if (u := self.units.get(i)) is not None and u.slot
                 and self.status(u) == "expired"}
        wide = Scope(self.request.scope.user_id, None)
        for slot in slots - self._slots.keys():  # each slot asked once per recall
            self._slots[slot] = bool(self.store.find_units(wide, as_of=as_of, slot=slot,
                                                           limit=1))
        return {slot for slot in slots if self._slots[slot]}

    def dense_scale(self) -> tuple[Scored, float]:
        """The dense scale (mean and spread of the raw turns' cosines over the user's whole
        history; the unit list's when no turn has a vector yet) and the ``floor`` a candidate
        found by no vector search is assumed to score (the lowest listed)."""
        turns, vec = self.found.turns, self.found.vector
        listed = [c for _, c in turns.hits] + [c for _, c in vec]
        floor = min(listed) if listed else 0.0
        if turns.std > 1e-9:
            return turns, floor
        cos = [c for _, c in vec]
        if len(cos) > 1:
            mean = sum(cos) / len(cos)
            std = (sum((c - mean) ** 2 for c in cos) / len(cos)) ** 0.5
            return Scored(vec, mean, std, len(cos)), floor
        return Scored([]), floor

    def rank(self, extra: dict[str, float] | None = None) -> list[tuple[Hit, float]]:
        """Every candidate as a hit with its rank z, best first; ``extra`` gives units (replies,
        second-hop finds) a floor on their match z."""
        found = self.found
        kw = dict(found.keyword)
        unit_cos = dict(found.vector)
        with recall_stage("read"):
            episode = self.episode_units()
            ids = list(dict.fromkeys([*self.rule_ids, *kw, *unit_cos, *episode,
                                      *(extra or {})]))
            self.fetch(ids)
            replaced = self.replaced_slots(ids)
            view = self.view
            if view is not None and (view.current_values or view.current_person is not None) \
                    and not self.past and view.contest(
                    [u for i in ids if (u := self.units.get(i)) is not None
                     and self.status(u) == "current"],
                    {i: [t.text for t in self.sources.get(i, []) if t.role == "user"]
                     for i in ids}):
                # a slot's current unit is contested now, by units ranked with the rule hits
                self.rule_ids = list(dict.fromkeys([*self.rule_ids, *view.newer]))
                self._basis_cache = None
                self.forget_scores()
            if view is not None and view.unvalued and not self.past and view.settle(
                    [u for i in ids if (u := self.units.get(i)) is not None
                     and self.status(u) == "current"],
                    {i: [t.key for t in self.sources.get(i, [])] for i in ids}):
                self.forget_scores()  # a newer mention was found: earlier ones are history
        with recall_stage("rerank"):
            return self._score(ids, episode, replaced, extra)

    def _score(self, ids: list[str], episode: list[str], replaced: set[str],
               extra: dict[str, float] | None) -> list[tuple[Hit, float]]:
        """The candidates read by :meth:`rank`, scored and sorted (no store access). A
        candidate without an ``extra`` floor scores the same in every pass of one recall (the
        searches, the scales and its slot's fate do not change), so a second pass reuses it
        and scores only the units the replies / second hop brought or raised."""
        basis = self._basis(episode)
        self.candidates = []
        ranked: list[tuple[Hit, float]] = []
        for uid in ids:
            floor = extra.get(uid) if extra else None
            if floor is None and uid in self._scored:
                done = self._scored[uid]
            else:
                done = self._score_one(uid, basis, replaced, floor)
                if floor is None:
                    self._scored[uid] = done
            if done is not None:
                self.candidates.append(done[0])
                ranked.append((done[1], done[2]))
        # ties by content, then id: unit ids are random, so an equal score (two units of one
        # turn ranked by its vector) must not be ordered by chance from one store to the next
        ranked.sort(key=lambda hz: (-hz[0].score, hz[0].unit.content, hz[0].unit.id))
        return ranked

    def _basis(self, episode: list[str]) -> _Basis:
        if self._basis_cache is None:
            weights, found = self.config.recall, self.found
            scale, floor = self.dense_scale()
            self._basis_cache = _Basis(
                kw=dict(found.keyword),
                kw_rr=reciprocal_ranks([u for u, _ in found.keyword], weights.rrf_k),
                unit_cos=dict(found.vector),
                turn_cos=dict(found.turns.hits),
                vec_rr=reciprocal_ranks(
                    list(dict.fromkeys([*(u for u, _ in found.vector), *episode])),
                    weights.rrf_k),
                scale=scale, floor=floor, query_folded=fold(self.request.query),
                rule_set=set(self.rule_ids), episode_set=set(episode),
                confidence=confidence_model(weights))
        return self._basis_cache

    def _speaker_named(self, query_folded: str, speakers: set[str]) -> bool:
        """True when the query names one of the speakers (each name folded once per
        recall)."""
        for s in speakers:
            if s not in self._folded_speakers:
                self._folded_speakers[s] = fold(s)
            if self._folded_speakers[s] in query_folded:
                return True
        return False

    def _score_one(self, uid: str, b: _Basis, replaced: set[str], extra: float | None
                   ) -> tuple[Candidate, Hit, float] | None:
        """One candidate as ``(candidate, hit, rank z without the repeated-question
        penalty)``; None when it must not be recalled at ``as_of``."""
        weights = self.config.recall
        found, as_of, scope = self.found, self.request.as_of, self.request.scope
        unit = self.units.get(uid)
        status = self.status(unit) if unit is not None else None
        if unit is None or status is None:
            return None
        if status == "expired" and unit.slot is not None and unit.slot in replaced:
            status = "superseded"  # its slot holds a newer value now
        if status == "superseded" and not self.past:
            return None
        turns = self.sources.get(uid, [])
        relabel = False  # ranked as found, shown as replaced (a past question wants it)
        view, rule = self.view, uid in b.rule_set
        if view is not None and view.is_stale(unit, [t.key for t in turns], rule):
            if not self.past and not rule:
                return None  # it holds a value the slot asked about has replaced
            if self.past and not rule:
                relabel = True
            else:
                status = "superseded"  # history: shown as replaced, never as current
        elif view is not None and status == "current" and rule \
                and view.contested_current(unit):
            status = "superseded"  # a newer statement names another value: not claimed current
        elif view is not None and status == "current" and not self.past \
                and view.names_contested(unit):
            status = "superseded"  # an earlier mention of the contested value: not current
        elif view is not None and status == "current" and rule \
                and view.newer_value(unit) is not None:
            if not view.newer_value(unit):
                status = "superseded"  # names a newer value without stating it: not claimed
        elif view is not None and status == "current" \
                and view.names_other_person(unit, [t.key for t in turns], rule):
            if self.past:
                relabel = True
            else:
                status = "superseded"  # another person's name, or one since replaced
        elif view is not None and status == "current" and (
                since := view.names_other(unit, rule)) is not None:
            if self.past:
                relabel = True
            elif unit_date(unit) < since:
                return None  # said before the current value: a value it replaced
            else:
                status = "superseded"  # ranked after the current value, never shown as it
        elif view is not None and status == "current" and uid in view.earlier_mentions:
            relabel = True  # another value than the newest one said: shown as history
        elif view is not None and status == "current" and not self.past \
                and view.spoke_of_before(unit):
            relabel = True  # spoke of the slot before its current value was said: history
        elif view is not None and status == "current" and not self.past and not rule \
                and view.states_no_value(unit):
            relabel = True  # asked, weighed, one order's or someone else's: not the value
        elif view is not None and status == "current" and not self.past and not rule \
                and unit.slot is None and ((view.on_file() and not view.holds_current(unit))
                                           or view.claims_nothing(unit)
                                           or view.not_the_users(unit)):
            relabel = True  # a key-fact question: only the value on file is presented current
        turn_cos, unit_cos, kw_stats, prior = b.turn_cos, b.unit_cos, found.keyword_stats, \
            weights.scale_prior_n
        cosines = [turn_cos[t.key] for t in turns if t.key in turn_cos]
        if uid in unit_cos:
            cosines.append(unit_cos[uid])
        best = max(cosines) if cosines else b.floor
        match = (zscore(best, b.scale.mean, b.scale.std, b.scale.n, prior)
                 + weights.keyword_weight * zscore(b.kw.get(uid, 0.0), kw_stats.mean,
                                                   kw_stats.std, kw_stats.n, prior))
        if extra is not None:
            match = max(match, extra)
        if uid not in self._coverage:
            self.cover((uid,))
        speakers = {t.speaker for t in turns if t.speaker}
        in_window = uid in found.in_window or any(
            t.key in found.turns_in_window for t in turns)
        cand = Candidate(unit=unit, status=status, match=match, features={
            "keyword_rr": b.kw_rr.get(uid, 0.0),
            "vector_rr": b.vec_rr.get(uid, 0.0),
            "cosine": best if cosines else 0.0,
            "coverage": self._coverage[uid],
            "speaker": 1.0 if self._speaker_named(b.query_folded, speakers) else 0.0,
            "in_window": 1.0 if in_window else 0.0,
            "rule": 1.0 if uid in b.rule_set else 0.0,
        })
        cand.other_session = (scope.session_id is not None
                              and unit.session_id != scope.session_id
                              and unit.type not in USER_LEVEL_TYPES)
        cand.sources = [name for name, present in (
            ("rule", uid in b.rule_set), ("keyword", uid in b.kw), ("vector", uid in unit_cos),
            ("episode", uid in b.episode_set)) if present]
        if self.topic_state is not None:
            cand.topic_factor = self.topic_state.factor(
                unit, weights.frozen_topic_factor, weights.active_topic_factor)
            if uid in b.rule_set:  # the query names it exactly (an id, a slot): not left
                cand.topic_factor = max(cand.topic_factor, 1.0)
        z_reply, z = rank_zs(cand, as_of, weights)
        if relabel:
            cand.status = "superseded"
        return cand, _hit(cand, z, b.confidence), z_reply


@dataclass(frozen=True)
class _Basis:
    """What every candidate of one recall is scored against (computed once per recall)."""

    kw: dict[str, float]
    kw_rr: dict[str, float]
    unit_cos: dict[str, float]
    turn_cos: dict[str, float]
    vec_rr: dict[str, float]
    scale: Scored
    floor: float
    query_folded: str
    rule_set: set[str]
    episode_set: set[str]
    confidence: ConfidenceModel


def _hit(cand: Candidate, z: float, model: ConfidenceModel) -> Hit:
    """The candidate as a hit, from its rank ``z`` (:func:`.rerank.final_score`'s formula,
    the confidence from the recall's :func:`.rerank.confidence_model`)."""
    score, conf = sigmoid(z) * cand.topic_factor, model_confidence(cand.features, model)
    if "rule" in cand.sources:
        stage = "rule"
    elif "vector" in cand.sources or "episode" in cand.sources:
        stage = "semantic"
    else:
        stage = "keyword"
    # every field is already of its type (a read unit, floats, a status): no validation pass
    return built_hit(cand.unit, score, stage, conf, list(cand.sources), cand.status)

