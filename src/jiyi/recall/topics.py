"""Topic switches: notice when the user leaves a topic, freeze it, boost the new one,
thaw the old one on return. Nothing is deleted: freezing only down-weights in recall, and only
a topic's context (session-level units), never the user's facts.

The state follows the **user's turns**: the write path observes each user turn
(:func:`observe`, with the turn's vector) inside the turn's ingest transaction and stores the
session's state (``topic_states``, :mod:`.topic_codec`), so every worker and every restart sees
the same topics. Recall only reads it: :func:`for_query` is what the query being answered does
to the stored state (pure, nothing stored), so a recall is a function of the store, the query,
the session and ``as_of``.

A session's topics form a timeline of boundaries ``(at, topic_id)``: a unit created at or after
``at`` (and before the next boundary) belongs to that topic; ``at`` is the time of the user turn
that switched (the first boundary, the session's first user turn, also owns what came before). A unit whose ``topic`` field (set by the
write path) equals a topic label belongs to that topic whatever its time.

Detection (:func:`decide`, pure) in this order:

1. the text's *intent* (a small zh/en lexicon: order, recommendation, complaint, account,
   payment, returns) equals the active topic's -> same; equals a frozen topic's -> return;
   differs from the active topic's intent -> switch;
2. an explicit cue ("换个话题", "另外问一下", "by the way", "something else") -> switch, or
   return when the text also matches a frozen topic's keywords;
3. no intent, no cue: the text shares no keyword with the active topic AND its cosine to the
   topic's centroid is below ``switch_cosine`` AND it has at least two content words -> switch
   (or return to a frozen topic it shares keywords with); otherwise same.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

import numpy as np

from ..store.base import Vector
from ..text import fold
from ..units import USER_LEVEL_TYPES, MemoryType, MemoryUnit

#: Units a frozen topic never down-weights: the user's own facts and a batch task's progress.
UNFROZEN_TYPES = USER_LEVEL_TYPES | {MemoryType.BATCH_OPERATION}
_INTENTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("complaint", re.compile(r"投诉|差评|不满意?|太差|态度|举报|complain|complaint|terrible|"
                             r"disappointed|unacceptable|awful")),
    ("returns", re.compile(r"退款|退货|换货|refund|return (?:it|this|the)|send (?:it )?back")),
    ("order", re.compile(r"订单|物流|快递|发货|签收|到哪了|\border\b|orders|shipping|shipped|"
                         r"delivery|deliver|tracking|package|parcel")),
    ("recommendation", re.compile(r"推荐|新品|新款|有什么好|买什么|值得买|recommend|suggest|"
                                  r"new arrivals?|new products?|what should i buy")),
    ("account", re.compile(r"密码|登录|登陆|账号|账户|注册|password|log ?in|sign ?in|account")),
    ("payment", re.compile(r"付款|支付|发票|扣款|扣费|payment|\bpay\b|invoice|charged|billing")),
)
#: Cosine to the active topic's centroid below which a query without a cue word starts a new topic.
SWITCH_COSINE = 0.8
#: How far a topic's centroid moves toward each new query of the topic (an exponential moving
#: average: the last few queries dominate, so a topic can drift as a conversation does).
CENTROID_STEP = 0.3

_CUE_RE = re.compile(
    r"换个话题|换个问题|另外问|另外，|另外,|顺便问|还有一件事|说点别的|别的事|"
    r"by the way|\bbtw\b|another question|something else|different topic|change the subject|"
    r"on another note"
)


def detect_intent(query: str) -> str | None:
    """The intent a query expresses, the earliest-mentioned one when several match."""
    text = fold(query)
    best: tuple[int, str] | None = None
    for name, rx in _INTENTS:
        m = rx.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    return best[1] if best else None


#: Topics a session's state keeps: past this, starting a topic drops the frozen topic seen
#: longest ago (its units then count as no topic's: factor 1). Keeps the stored row small.
MAX_TOPICS = 32
#: Boundaries a state keeps: past this, the oldest become one marker of no topic (topic id 0),
#: so units from before it count as no topic's (factor 1). A long session's row stays small.
MAX_BOUNDARIES = 64
#: Keywords a topic keeps (the newest first).
MAX_KEYWORDS = 40
#: Keywords a new topic starts with (the text's first content words).
START_KEYWORDS = 12


def text_key(text: str) -> str:
    """A short digest of a folded text: the state remembers which turn it last observed, so a
    query that *is* that turn (ingested before its recall) reads the state as that turn left
    it instead of observing it twice."""
    return hashlib.sha256(fold(text).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Topic:
    id: int
    label: str  # the intent, or the first keywords when no intent was named
    keywords: tuple[str, ...]  # newest first (an ordered tuple: the same in every process)
    centroid: Vector | None  # the active topic's only: frozen topics are matched by words
    frozen: bool = False
    started_at: datetime | None = None
    last_seen: datetime | None = None


@dataclass(frozen=True)
class TopicState:
    """A session's topics: as the user's latest turn left them (stored), or as the query being
    answered leaves them (:func:`for_query`); what recall's topic factor and the prompt builder
    (context reset) read."""

    session_id: str
    topics: tuple[Topic, ...] = ()
    active_id: int | None = None
    boundaries: tuple[tuple[datetime | None, int], ...] = ()
    switched: bool = False  # the latest text left the previous topic
    returned: bool = False  # the latest text went back to a frozen topic (thawed it)
    previous_id: int | None = None  # the topic active before the latest switch
    switch_count: int = 0
    last_at: datetime | None = None  # the latest user turn observed (stored states)
    last_key: str | None = None  # its :func:`text_key`

    @property
    def active(self) -> Topic | None:
        return next((t for t in self.topics if t.id == self.active_id), None)

    @property
    def previous(self) -> Topic | None:
        return next((t for t in self.topics if t.id == self.previous_id), None)

    @property
    def frozen(self) -> list[Topic]:
        return [t for t in self.topics if t.frozen]

    def topic_of(self, unit: MemoryUnit) -> Topic | None:
        """The topic a unit belongs to (by label, else by when it was created in this session).
        A unit created at the very instant of two switches (turns imported with one timestamp)
        cannot be placed: None."""
        if unit.topic:
            for t in self.topics:
                if t.label == unit.topic:
                    return t
        if unit.session_id != self.session_id or not self.boundaries:
            return None
        owner: int | None = None
        at_instant: set[int] = set()
        for i, (after, topic_id) in enumerate(self.boundaries):
            if i == 0 or after is None or unit.created_at >= after:
                owner = topic_id
            if after is not None and after == unit.created_at:
                at_instant.add(topic_id)
        if len(at_instant) > 1:
            return None
        return next((t for t in self.topics if t.id == owner), None)

    def factor(self, unit: MemoryUnit, frozen_factor: float, active_factor: float) -> float:
        """The recall multiplier of a unit: the active topic's up; a frozen topic's context
        (session-level units: session state, tool results) down; the user's own facts
        (user-level units, shared by every session) are never frozen, or the session where a
        fact was said would be the worst place to ask for it, and neither is a batch task's
        progress (work still running whatever the talk is about: "进度如何？"); others 1."""
        if len(self.topics) < 2:
            return 1.0  # one topic: nothing to place the unit in (no topic_of walk)
        topic = self.topic_of(unit)
        if topic is None:
            return 1.0
        if topic.frozen:
            return 1.0 if unit.type in UNFROZEN_TYPES else frozen_factor
        return active_factor if topic.id == self.active_id else 1.0

    def as_of(self, when: datetime) -> TopicState:
        """The state as the user's turns up to ``when`` left it. Exact for which topics existed,
        which was active and where the boundaries were; the topics' keywords (and the active
        centroid) are the latest ones (the stored row keeps one version). The switch flags and
        the last turn are not known before the latest turn: off."""
        if self.last_at is None or when >= self.last_at:
            return self
        kept = tuple((a, t) for a, t in self.boundaries if a is None or a <= when)
        if not kept:
            return TopicState(session_id=self.session_id)
        active = kept[-1][1]
        ids = {t for _, t in kept}
        topics = tuple(replace(t, frozen=t.id != active) for t in self.topics if t.id in ids)
        return TopicState(session_id=self.session_id, topics=topics, active_id=active,
                          boundaries=kept, switch_count=len(kept) - 1)


Decision = tuple[Literal["same", "switch", "return", "start"], int | None]


def _cos(a: Vector | None, b: Vector | None) -> float:
    if a is None or b is None or a.shape != b.shape:
        return 0.0
    den = float(np.linalg.norm(a) * np.linalg.norm(b)) or 1.0
    return float(a @ b) / den


def decide(state: TopicState, text: str, terms: Sequence[str], vec: Vector | None,
           switch_cosine: float) -> Decision:
    """What a user's text does to the session's topics (pure)."""
    active = state.active
    if active is None:
        return ("start", None)
    intent = detect_intent(text)
    words = set(terms)
    frozen_match = [t for t in state.frozen if (intent and t.label == intent) or
                    (not intent and words.intersection(t.keywords))]
    if intent is not None:
        if active.label == intent:
            return ("same", active.id)
        if frozen_match:
            return ("return", frozen_match[-1].id)
        if active.label in {n for n, _ in _INTENTS} or not words.intersection(active.keywords):
            return ("switch", None)
        return ("same", active.id)
    cue = bool(_CUE_RE.search(fold(text)))
    if words.intersection(active.keywords) and not cue:
        return ("same", active.id)
    drift = len(words) >= 2 and _cos(vec, active.centroid) < switch_cosine
    if cue or drift:
        return ("return", frozen_match[-1].id) if frozen_match else ("switch", None)
    return ("same", active.id)


def _label(text: str, terms: Sequence[str]) -> str:
    return detect_intent(text) or " ".join(list(terms)[:3]) or "topic"


def _vector(vec: Vector | None) -> Vector | None:
    return None if vec is None else np.asarray(vec, dtype=np.float32)


def _start(state: TopicState, kind: str, text: str, terms: Sequence[str], vec: Vector | None,
           at: datetime) -> TopicState:
    """A new topic (the session's first, or a switch): the active one frozen, the frozen topic
    seen longest ago dropped past :data:`MAX_TOPICS`."""
    new_id = max([0, *(t for _, t in state.boundaries), *(t.id for t in state.topics)]) + 1
    new = Topic(id=new_id, label=_label(text, terms),
                keywords=tuple(dict.fromkeys(terms))[:START_KEYWORDS], centroid=_vector(vec),
                started_at=at, last_seen=at)
    topics = [replace(t, frozen=True, centroid=None) if t.id == state.active_id else t
              for t in state.topics]
    while len(topics) >= MAX_TOPICS:
        oldest = min((t for t in topics if t.frozen),
                     key=lambda t: (t.last_seen or at, t.id), default=None)
        if oldest is None:
            break
        topics.remove(oldest)
    return TopicState(
        session_id=state.session_id, topics=(*topics, new), active_id=new.id,
        boundaries=_bounded((*state.boundaries, (at, new.id))),
        switched=kind == "switch", returned=False,
        previous_id=state.active_id if kind == "switch" else None,
        switch_count=state.switch_count + (kind == "switch"),
    )


def observe(state: TopicState, text: str, terms: Sequence[str], vec: Vector | None,
            at: datetime, switch_cosine: float = SWITCH_COSINE) -> TopicState:
    """The state after the user said ``text`` at ``at`` (pure: returns a new state)."""
    kind, target = decide(state, text, terms, vec, switch_cosine)
    if kind in ("start", "switch"):
        return _start(state, kind, text, terms, vec, at)
    assert target is not None
    topics = []
    for t in state.topics:
        if t.id == target:
            centroid = t.centroid
            if vec is not None:
                v = np.asarray(vec, dtype=np.float32)
                centroid = v if centroid is None else (
                    (1 - CENTROID_STEP) * centroid + CENTROID_STEP * v).astype(np.float32)
            kw = tuple(dict.fromkeys([*terms, *t.keywords]))[:MAX_KEYWORDS]
            t = replace(t, frozen=False, keywords=kw, centroid=centroid, last_seen=at)
        elif t.id == state.active_id and kind == "return":
            t = replace(t, frozen=True, centroid=None)
        topics.append(t)
    if kind == "same":
        return replace(state, topics=tuple(topics), switched=False, returned=False,
                       previous_id=None, last_at=None, last_key=None)
    return _returned(state, tuple(topics), target, at)


def _returned(state: TopicState, topics: tuple[Topic, ...], target: int,
              at: datetime) -> TopicState:
    return TopicState(
        session_id=state.session_id, topics=topics, active_id=target,
        boundaries=_bounded((*state.boundaries, (at, target))), switched=True, returned=True,
        previous_id=state.active_id, switch_count=state.switch_count + 1,
    )


def _bounded(boundaries: tuple[tuple[datetime | None, int], ...]
             ) -> tuple[tuple[datetime | None, int], ...]:
    """At most :data:`MAX_BOUNDARIES`: the oldest merged into one marker of no topic (id 0)."""
    if len(boundaries) <= MAX_BOUNDARIES:
        return boundaries
    cut = len(boundaries) - MAX_BOUNDARIES + 1
    return ((boundaries[0][0], 0), *boundaries[cut:])


def follow_evidence(state: TopicState, best: MemoryUnit, at: datetime) -> TopicState:
    """A query the detector kept in the active topic whose best match (ranked without any topic
    factor) belongs to a frozen topic is about that topic: it returns there (thawed, the
    active one frozen). The words and intents the detector reads are few; the recall's own
    evidence is what the query found ("那个运动耳机叫什么？" after the order came back: the
    recommendation it asks about was made in a topic left since). A query that switched or
    returned by itself keeps its state (pure)."""
    if state.switched:
        return state
    topic = state.topic_of(best)
    if topic is None or not topic.frozen:
        return state
    topics = tuple(replace(t, frozen=False, last_seen=at) if t.id == topic.id
                   else replace(t, frozen=True, centroid=None) if t.id == state.active_id
                   else t for t in state.topics)
    return _returned(state, topics, topic.id, at)


def observe_turn(state: TopicState | None, session_id: str, text: str, terms: Sequence[str],
                 vec: Vector | None, at: datetime,
                 switch_cosine: float = SWITCH_COSINE) -> TopicState:
    """The stored state after a user turn (what the write path keeps): :func:`observe`, and
    the turn remembered (:attr:`TopicState.last_at`, :attr:`TopicState.last_key`)."""
    new = observe(state or TopicState(session_id=session_id), text, terms, vec, at,
                  switch_cosine)
    return replace(new, last_at=at, last_key=text_key(text))


def for_query(stored: TopicState | None, session_id: str, query: str, terms: Sequence[str],
              vec: Vector | None, as_of: datetime,
              switch_cosine: float = SWITCH_COSINE) -> TopicState:
    """What recall ranks with (pure, nothing stored): the stored state as of ``as_of``, then
    the query observed as the user's next turn would be. A query that switches topic freezes
    the active topic (its units down-weighted) and activates a new one, which holds no unit yet:
    nothing is boosted. A query that *is* the latest stored turn reads the state as that turn
    left it (it is not observed twice)."""
    state = stored.as_of(as_of) if stored is not None else TopicState(session_id=session_id)
    if state.last_key is not None and state.last_key == text_key(query):
        return state
    return observe(state, query, terms, vec, as_of, switch_cosine)
