"""Topic switches: notice when the user leaves a topic, freeze it, boost the new one,
thaw the old one on return. Nothing is deleted: freezing only down-weights in recall.

A session's topics form a timeline of boundaries ``(after, topic_id)``: a unit created after
``after`` (and before the next boundary) belongs to that topic. When query ``n`` switches
topic, the boundary is the time of query ``n-1``, so the turn that carried the new request
(ingested just before its recall) already belongs to the new topic. A unit whose ``topic`` field
(set by the write path) equals a topic label belongs to that topic whatever its time.

Detection (:func:`decide`, pure) in this order:

1. the query's *intent* (a small zh/en lexicon: order, recommendation, complaint, account,
   payment, returns) equals the active topic's -> same; equals a frozen topic's -> return;
   differs from the active topic's intent -> switch;
2. an explicit cue ("换个话题", "另外问一下", "by the way", "something else") -> switch, or
   return when the query also matches a frozen topic's keywords;
3. no intent, no cue: the query shares no keyword with the active topic AND its cosine to the
   topic's centroid is below ``switch_cosine`` AND it has at least two content words -> switch
   (or return to a frozen topic it shares keywords with); otherwise same.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal

import numpy as np

from ..store.base import Vector
from ..text import fold
from ..units import MemoryUnit

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


@dataclass(frozen=True)
class Topic:
    id: int
    label: str  # the intent, or the first keywords when no intent was named
    keywords: frozenset[str]
    centroid: Vector | None
    frozen: bool = False
    started_at: datetime | None = None
    last_seen: datetime | None = None


@dataclass(frozen=True)
class TopicState:
    """A session's topics after the latest recall; what the prompt builder reads (context reset, topic boost)."""

    session_id: str
    topics: tuple[Topic, ...] = ()
    active_id: int | None = None
    boundaries: tuple[tuple[datetime | None, int], ...] = ()
    switched: bool = False  # the latest query left the previous topic
    returned: bool = False  # the latest query went back to a frozen topic (thawed it)
    previous_id: int | None = None  # the topic active before the latest switch
    switch_count: int = 0

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
        """The topic a unit belongs to (by label, else by when it was created in this session)."""
        if unit.topic:
            for t in self.topics:
                if t.label == unit.topic:
                    return t
        if unit.session_id != self.session_id or not self.boundaries:
            return None
        owner: int | None = None
        for after, topic_id in self.boundaries:
            if after is None or unit.created_at > after:
                owner = topic_id
        return next((t for t in self.topics if t.id == owner), None)

    def factor(self, unit: MemoryUnit, frozen_factor: float, active_factor: float) -> float:
        """The recall multiplier of a unit: frozen topic down, active topic up, others 1."""
        topic = self.topic_of(unit)
        if topic is None or len(self.topics) < 2:
            return 1.0
        if topic.frozen:
            return frozen_factor
        return active_factor if topic.id == self.active_id else 1.0


Decision = tuple[Literal["same", "switch", "return", "start"], int | None]


def _cos(a: Vector | None, b: Vector | None) -> float:
    if a is None or b is None or a.shape != b.shape:
        return 0.0
    den = float(np.linalg.norm(a) * np.linalg.norm(b)) or 1.0
    return float(a @ b) / den


def decide(state: TopicState, query: str, terms: Sequence[str], vec: Vector | None,
           switch_cosine: float) -> Decision:
    """What the query does to the session's topics (pure)."""
    active = state.active
    if active is None:
        return ("start", None)
    intent = detect_intent(query)
    words = set(terms)
    frozen_match = [t for t in state.frozen if (intent and t.label == intent) or
                    (not intent and words & t.keywords)]
    if intent is not None:
        if active.label == intent:
            return ("same", active.id)
        if frozen_match:
            return ("return", frozen_match[-1].id)
        if active.label in {n for n, _ in _INTENTS} or not (words & active.keywords):
            return ("switch", None)
        return ("same", active.id)
    cue = bool(_CUE_RE.search(fold(query)))
    if words & active.keywords and not cue:
        return ("same", active.id)
    drift = len(words) >= 2 and _cos(vec, active.centroid) < switch_cosine
    if cue or drift:
        return ("return", frozen_match[-1].id) if frozen_match else ("switch", None)
    return ("same", active.id)


def _label(query: str, terms: Sequence[str]) -> str:
    return detect_intent(query) or " ".join(list(terms)[:3]) or "topic"


def observe(state: TopicState, query: str, terms: Sequence[str], vec: Vector | None,
            at: datetime, switch_cosine: float = SWITCH_COSINE) -> TopicState:
    """The state after the user asked ``query`` at ``at`` (pure: returns a new state)."""
    kind, target = decide(state, query, terms, vec, switch_cosine)
    words = frozenset(list(terms)[:12])
    last_seen = state.active.last_seen if state.active else None
    if kind in ("start", "switch"):
        new = Topic(id=len(state.topics) + 1, label=_label(query, terms), keywords=words,
                    centroid=None if vec is None else np.asarray(vec, dtype=np.float32),
                    started_at=at, last_seen=at)
        topics = [replace(t, frozen=True) if t.id == state.active_id else t for t in state.topics]
        return TopicState(
            session_id=state.session_id, topics=(*topics, new), active_id=new.id,
            boundaries=(*state.boundaries, (last_seen, new.id)),
            switched=kind == "switch", returned=False,
            previous_id=state.active_id if kind == "switch" else None,
            switch_count=state.switch_count + (kind == "switch"),
        )
    assert target is not None
    topics = []
    for t in state.topics:
        if t.id == target:
            centroid = t.centroid
            if vec is not None:
                v = np.asarray(vec, dtype=np.float32)
                centroid = v if centroid is None else ((1 - CENTROID_STEP) * centroid + CENTROID_STEP * v).astype(np.float32)
            kw = frozenset(list(t.keywords | words)[:40])
            t = replace(t, frozen=False, keywords=kw, centroid=centroid, last_seen=at)
        elif t.id == state.active_id and kind == "return":
            t = replace(t, frozen=True)
        topics.append(t)
    if kind == "same":
        return replace(state, topics=tuple(topics), switched=False, returned=False)
    return TopicState(
        session_id=state.session_id, topics=tuple(topics), active_id=target,
        boundaries=(*state.boundaries, (last_seen, target)), switched=True, returned=True,
        previous_id=state.active_id, switch_count=state.switch_count + 1,
    )


@dataclass
class TopicTracker:
    """Per-session topic states of one :class:`jiyi.Memory` (in process, bounded LRU)."""

    max_sessions: int = 10_000
    _states: OrderedDict[tuple[str, str], TopicState] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, user_id: str, session_id: str) -> TopicState | None:
        with self._lock:
            return self._states.get((user_id, session_id))

    def observe(self, user_id: str, session_id: str, query: str, terms: Sequence[str],
                vec: Vector | None, at: datetime, switch_cosine: float) -> TopicState:
        key = (user_id, session_id)
        with self._lock:
            state = self._states.get(key) or TopicState(session_id=session_id)
            new = observe(state, query, terms, vec, at, switch_cosine)
            self._states[key] = new
            self._states.move_to_end(key)
            while len(self._states) > self.max_sessions:
                self._states.popitem(last=False)
            return new
