"""Topic switches follow the user's turns: leaving a topic freezes it (down-weighted, kept),
the new one is boosted, returning thaws it. The state is kept in the store per session (both
backends), shared by every worker and every restart, and recall only reads it: the same
question on the same store gives the same hits, in any process. zh-Hans, zh-Hant, English."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from jiyi import Hit, Memory, MemoryType
from jiyi.recall.topic_codec import decode, encode
from jiyi.recall.topics import TopicState, detect_intent, for_query, observe, observe_turn
from jiyi.text import keyword_terms
from test_recall_helpers import T0, put

CHILD = Path(__file__).with_name("recall_child.py")

#: A user checks an order, asks for something new, then comes back to the order.
CONVERSATIONS = {
    "zh-Hans": ["帮我查一下订单ABC123到哪了", "物流怎么还没更新", "有什么新品推荐吗",
                "我的订单ABC123到底什么时候到"],
    "zh-Hant": ["幫我查一下訂單ABC123到哪了", "物流怎麼還沒更新", "有什麼新品推薦嗎",
                "我的訂單ABC123到底什麼時候到"],
    "en": ["where is my order ABC123?", "the tracking has not moved since monday",
           "can you recommend something new?", "back to my order ABC123, is it shipped?"],
}
REPLIES = {"zh-Hans": "好的，我来帮您看看。", "zh-Hant": "好的，我來幫您看看。",
           "en": "Sure, let me check that for you."}


def _walk(queries: list[str]) -> list[TopicState]:
    state = TopicState(session_id="s1")
    out = []
    for i, q in enumerate(queries):
        state = observe(state, q, keyword_terms(q), None, T0 + timedelta(minutes=i))
        out.append(state)
    return out


def _talk(mem: Memory, lang: str, user: str = "u1", session: str = "s1") -> list[TopicState]:
    """The conversation of ``lang`` through ``Memory.ingest`` (a reply after each user turn);
    the stored state after each user turn."""
    states = []
    for i, text in enumerate(CONVERSATIONS[lang]):
        at = T0 + timedelta(minutes=2 * i)
        mem.ingest(text, session_id=session, user_id=user, at=at)
        state = mem.topic_state(session, user, as_of=at + timedelta(seconds=30))
        assert state is not None
        states.append(state)
        mem.ingest(REPLIES[lang], session_id=session, user_id=user, role="assistant",
                   at=at + timedelta(minutes=1))
    return states


def _hits(hits: list[Hit]) -> list[tuple[str, float, float, str]]:
    return [(h.unit.id, h.score, h.confidence, h.stage) for h in hits]


def test_intents() -> None:
    assert detect_intent("帮我查一下订单到哪了") == "order"
    assert detect_intent("有什么新品推荐") == "recommendation"
    assert detect_intent("我要投訴你們的客服") == "complaint"
    assert detect_intent("where is my order?") == "order"
    assert detect_intent("hello there") is None


def test_switch_freeze_thaw_zh() -> None:
    states = _walk(["帮我查一下订单ABC123到哪了", "物流怎么还没更新", "有什么新品推荐吗",
                    "我要投诉，客服态度太差", "我的订单到底什么时候到"])
    assert [s.switched for s in states] == [False, False, True, True, True]
    assert states[2].active is not None and states[2].active.label == "recommendation"
    assert [t.label for t in states[3].frozen] == ["order", "recommendation"]
    last = states[4]
    assert last.returned and last.active is not None and last.active.label == "order"
    assert {t.label for t in last.frozen} == {"recommendation", "complaint"}
    assert last.switch_count == 3


def test_switch_freeze_thaw_en() -> None:
    states = _walk(["where is my order 5521?", "the tracking has not moved",
                    "can you recommend something new?", "by the way, my password fails",
                    "back to my order, is it shipped?"])
    assert [s.switched for s in states] == [False, False, True, True, True]
    assert states[4].returned and states[4].active is not None
    assert states[4].active.label == "order"


def test_cue_and_drift_without_intent() -> None:
    states = _walk(["周末去爬山的计划", "换个话题，聊聊晚饭吃什么"])
    assert states[1].switched
    states = _walk(["my garden tomatoes are growing", "the tomatoes need water"])
    assert not states[1].switched  # shared keyword: same topic


def test_state_document_round_trips_exactly() -> None:
    state = None
    for i, text in enumerate(CONVERSATIONS["zh-Hant"]):
        vec = np.random.default_rng(i).standard_normal(8).astype(np.float32)
        state = observe_turn(state, "s1", text, keyword_terms(text), vec,
                             T0 + timedelta(minutes=i, microseconds=7))
    assert state is not None and state.returned
    back = decode("s1", encode(state))
    assert back is not None and encode(back) == encode(state)
    assert back.boundaries == state.boundaries and back.last_key == state.last_key
    active = back.active
    assert active is not None and active.centroid is not None and state.active is not None
    assert state.active.centroid is not None
    assert active.centroid.tobytes() == state.active.centroid.tobytes()  # bit for bit
    assert all(t.centroid is None for t in back.frozen)  # frozen topics match by words
    assert decode("s1", "not json") is None and decode("s1", '{"v": 99}') is None


@pytest.mark.parametrize("lang", list(CONVERSATIONS))
def test_user_turns_switch_and_return(any_mem: Memory, lang: str) -> None:
    states = _talk(any_mem, lang)
    assert [s.switched for s in states] == [False, False, True, True]
    assert [s.returned for s in states] == [False, False, False, True]
    labels = [s.active.label if s.active else None for s in states]
    assert labels == ["order", "order", "recommendation", "order"]
    assert [t.label for t in states[2].frozen] == ["order"]
    assert [t.label for t in states[3].frozen] == ["recommendation"]  # the order topic thawed
    # assistant turns never move the topics; a recall never writes them
    doc = any_mem.store.session_topics("u1", "s1")
    any_mem.recall("有什么新品推荐 / anything new?", session_id="s1", user_id="u1",
                   as_of=T0 + timedelta(hours=1))
    assert any_mem.store.session_topics("u1", "s1") == doc
    assert any_mem.topic_state("s2", "u1") is None  # per session


def test_recall_freezes_left_topic(mem: Memory) -> None:
    order = put(mem, "订单ABC123已发货，快递单号SF100", at=T0, type=MemoryType.TOOL_RESULT)
    mem.ingest("帮我查一下订单的物流", session_id="s1", user_id="u1", at=T0)
    rec = put(mem, "用户想看新款耳机推荐", at=T0 + timedelta(minutes=2),
              type=MemoryType.SESSION_STATE)
    fact = put(mem, "订单ABC123的收货人是张伟", at=T0 + timedelta(seconds=30))
    mem.ingest("有什么新品推荐", session_id="s1", user_id="u1", at=T0 + timedelta(minutes=2))
    state = mem.topic_state("s1", "u1")
    assert state is not None and state.switched and state.previous is not None
    assert state.previous.label == "order"
    # the order unit is kept (frozen, not deleted) but down-weighted; the new topic's boosted:
    # compare with the same recall on the same store with topic tracking off
    when = T0 + timedelta(minutes=4)
    hits = mem.recall("新品 订单", session_id="s1", user_id="u1", as_of=when)
    scores = {h.unit.id: h.score for h in hits}
    assert order.id in scores and rec.id in scores
    plain_cfg = mem.config.model_copy(update={"recall": mem.config.recall.model_copy(
        update={"topics": False})})
    plain = Memory(mem.store, embedder=mem.embedder, config=plain_cfg, warm=False)
    base = {h.unit.id: h.score for h in plain.recall(
        "新品 订单", session_id="s1", user_id="u1", as_of=when)}
    weights = mem.config.recall
    assert abs(scores[order.id] / base[order.id] - weights.frozen_topic_factor) < 1e-6
    assert abs(scores[rec.id] / base[rec.id] - weights.active_topic_factor) < 1e-6
    # the user's own facts are never frozen (a user-level unit said in the left topic)
    assert state.topic_of(fact) == state.topic_of(order) == state.previous
    assert state.factor(fact, 0.5, 1.2) == 1.0 and state.factor(order, 0.5, 1.2) == 0.5
    # as of before the switch the session had one topic: nothing frozen, nothing boosted
    before = T0 + timedelta(minutes=1)
    then = mem.topic_state("s1", "u1", as_of=before)
    assert then is not None and then.active is not None and then.active.label == "order"
    assert not then.frozen
    assert (_hits(mem.recall("订单ABC123 快递", session_id="s1", user_id="u1", as_of=before))
            == _hits(plain.recall("订单ABC123 快递", session_id="s1", user_id="u1",
                                  as_of=before)))
    # back to the order topic (the user's turn, then its recall): thawed, its unit first
    mem.ingest("我的订单ABC123呢", session_id="s1", user_id="u1", at=T0 + timedelta(minutes=5))
    hits = mem.recall("我的订单ABC123呢", session_id="s1", user_id="u1",
                      as_of=T0 + timedelta(minutes=6))
    state = mem.topic_state("s1", "u1", query="我的订单ABC123呢",
                            as_of=T0 + timedelta(minutes=6))
    assert state is not None and state.returned  # as the turn left it, not observed twice
    top = state.topic_of(hits[0].unit)
    assert top is not None and top.label == "order" and not top.frozen
    ranks = [h.unit.id for h in hits]
    assert order.id in ranks and (rec.id not in ranks or ranks.index(order.id) < ranks.index(rec.id))


def test_a_query_that_switches_topic_freezes_without_storing(mem: Memory) -> None:
    """The agent recalls before it ingests the user's turn: the query is classified against
    the stored state (a switch freezes the active topic), and nothing is stored."""
    order = put(mem, "订单ABC123已发货，快递单号SF100", at=T0)
    mem.ingest("帮我查订单ABC123", session_id="s1", user_id="u1", at=T0)
    doc = mem.store.session_topics("u1", "s1")
    when = T0 + timedelta(minutes=3)
    state = mem.topic_state("s1", "u1", query="有什么新品推荐", as_of=when)
    assert state is not None and state.switched and not state.returned
    assert state.previous is not None and state.previous.label == "order"
    stored = mem.topic_state("s1", "u1", as_of=when)
    assert stored is not None and not stored.switched and len(stored.topics) == 1
    hits = mem.recall("有什么新品推荐 订单", session_id="s1", user_id="u1", as_of=when)
    found = next(h for h in hits if h.unit.id == order.id)
    assert mem.store.session_topics("u1", "s1") == doc
    assert found.score == next(h for h in mem.recall(
        "有什么新品推荐 订单", session_id="s1", user_id="u1", as_of=when)
        if h.unit.id == order.id).score


QUESTIONS = ["我的订单ABC123到哪了", "有什么新品推荐", "訂單什麼時候到", "where is my order?",
             "换个话题，我的手机号是多少", "by the way, can you recommend headphones?",
             "物流怎么还没更新", "我要投诉客服态度"]


def _fill(mem: Memory) -> None:
    for lang in CONVERSATIONS:
        _talk(mem, lang, session="s-" + lang)
    mem.ingest("我的手机号是13912345678", session_id="s-zh-Hans", user_id="u1",
               at=T0 + timedelta(minutes=20))


def _ask(mem: Memory, when: datetime) -> list[list[tuple[str, float, float, str]]]:
    return [_hits(mem.recall(q, session_id="s-" + lang, user_id="u1", as_of=when))
            for lang in CONVERSATIONS for q in QUESTIONS]


def test_the_same_recall_twice_gives_the_same_hits(any_mem: Memory, store_url: str) -> None:
    _fill(any_mem)
    when = T0 + timedelta(hours=1)
    before = any_mem.store.export_user("u1")
    first = _ask(any_mem, when)
    assert sum(len(h) for h in first) > 0
    assert _ask(any_mem, when) == first  # ids, order, scores, confidences
    after = any_mem.store.export_user("u1")
    assert after["topics"] == before["topics"] and after["units"] == before["units"]
    with Memory.open(store_url, embedder="fake") as other:  # a second worker, same store
        assert _ask(other, when) == first
    # a second process, with another hash seed (nothing may depend on set order)
    questions = [[q, "s-" + lang, "u1", when.isoformat()] for lang in CONVERSATIONS
                 for q in QUESTIONS]
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    out = subprocess.run([sys.executable, str(CHILD), store_url, json.dumps(questions)],
                         capture_output=True, text=True, env=env, timeout=300, check=True)
    child = [[tuple(h) for h in hits] for hits in json.loads(out.stdout)]
    assert child == first


def test_state_survives_reopening_and_erase_removes_it(store_url: str) -> None:
    with Memory.open(store_url, embedder="fake") as mem:
        states = _talk(mem, "en")
        kept = mem.topic_state("s1", "u1")
    assert kept is not None and kept.returned
    with Memory.open(store_url, embedder="fake") as mem:
        again = mem.topic_state("s1", "u1")
        assert again is not None and encode(again) == encode(kept)
        assert encode(again) == encode(states[-1])
        exported = mem.export_user("u1")["topics"]
        assert [t["session_id"] for t in exported] == ["s1"]
        mem.erase_user("u1")
        assert mem.store.session_topics("u1", "s1") is None
        assert mem.topic_state("s1", "u1") is None
        assert mem.export_user("u1")["topics"] == []


def test_a_known_turn_id_leaves_the_topics_alone(mem: Memory) -> None:
    mem.ingest("where is my order ABC123?", session_id="s1", user_id="u1", at=T0, turn_id="t1")
    mem.ingest("can you recommend something new?", session_id="s1", user_id="u1",
               at=T0 + timedelta(minutes=1), turn_id="t2")
    doc = mem.store.session_topics("u1", "s1")
    mem.ingest("can you recommend something new?", session_id="s1", user_id="u1",
               at=T0 + timedelta(minutes=1), turn_id="t2")  # a retry: a no-op
    assert mem.store.session_topics("u1", "s1") == doc


def test_for_query_is_pure() -> None:
    state = None
    for i, text in enumerate(CONVERSATIONS["zh-Hans"][:3]):
        state = observe_turn(state, "s1", text, keyword_terms(text), None,
                             T0 + timedelta(minutes=i))
    assert state is not None
    doc = encode(state)
    at = T0 + timedelta(minutes=9)
    a = for_query(state, "s1", "我的订单ABC123呢", keyword_terms("我的订单ABC123呢"), None, at)
    b = for_query(state, "s1", "我的订单ABC123呢", keyword_terms("我的订单ABC123呢"), None, at)
    assert a == b and a.returned and encode(state) == doc
    # the query that is the latest turn reads the state as that turn left it
    same = for_query(state, "s1", CONVERSATIONS["zh-Hans"][2], [], None, at)
    assert same is state and same.switched


def test_the_best_match_in_a_frozen_topic_returns_there() -> None:
    """The detector keeps "我訂單裡那個耳機叫什麼？" / "what were the earbuds in my order
    called?" in the active topic (its intent); the best match was recommended in a topic left
    since: the recall returns there. A query that switched by itself keeps its state."""
    from jiyi import MemoryUnit
    from jiyi.recall.topics import follow_evidence
    from jiyi.units import Lifespan

    def unit(text: str, at: datetime) -> MemoryUnit:
        return MemoryUnit(content=text, type=MemoryType.SESSION_STATE, session_id="s1",
                          user_id="u1", lifespan=Lifespan(created_at=at, expires_in=10**6))

    for lang in ("zh-Hant", "en"):
        state = None
        for i, text in enumerate(CONVERSATIONS[lang]):
            state = observe_turn(state, "s1", text, keyword_terms(text), None,
                                 T0 + timedelta(minutes=2 * i))
        assert state is not None and state.active is not None
        assert state.active.label == "order" and [t.label for t in state.frozen] == [
            "recommendation"]
        at = T0 + timedelta(hours=1)
        earbud = unit("RunBeat X1 運動耳機 / running earbuds", T0 + timedelta(minutes=5))
        query = ("我訂單裡那個耳機叫什麼？" if lang == "zh-Hant"
                 else "what were the earbuds in my order called?")
        kept = for_query(state, "s1", query, keyword_terms(query), None, at)
        assert not kept.switched and kept.active is not None and kept.active.label == "order"
        back = follow_evidence(kept, earbud, at)
        assert back.returned and back.active is not None
        assert back.active.label == "recommendation"
        assert [t.label for t in back.frozen] == ["order"]
        order_unit = unit("ABC123 shipped", T0 + timedelta(minutes=1))
        assert follow_evidence(kept, order_unit, at) is kept  # already the active topic
        switched = for_query(state, "s1", "我要投訴 / I want to complain", ["投訴"], None, at)
        assert switched.switched and follow_evidence(switched, earbud, at) is switched


def test_gc_keeps_and_backup_restore_carries_the_topics(tmp_path: Path) -> None:
    """The state references no unit (only instants), so purging expired units leaves it whole;
    a backup holds it and a restore brings it back."""
    from jiyi.backup import backup, restore

    path, copy = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    with Memory.open(path, embedder="fake") as mem:
        _talk(mem, "zh-Hans")
        doc = mem.store.session_topics("u1", "s1")
        assert doc is not None
        mem.gc(retention_days=0)
        assert mem.store.session_topics("u1", "s1") == doc
        backup(path, copy)
        mem.erase_user("u1")
        assert mem.store.session_topics("u1", "s1") is None
    restore(copy, path, force=True)
    with Memory.open(path, embedder="fake") as mem:
        assert mem.store.session_topics("u1", "s1") == doc


def test_a_long_session_keeps_a_bounded_state() -> None:
    """Hundreds of switches (zh-Hans, zh-Hant, en intents in turn): at most MAX_TOPICS topics
    and MAX_BOUNDARIES boundaries; units from before the kept boundaries count as no topic's."""
    from jiyi import MemoryUnit
    from jiyi.recall.topics import MAX_BOUNDARIES, MAX_TOPICS
    from jiyi.units import Lifespan

    texts = ["帮我查一下订单", "有什么新品推荐", "我要投訴客服", "I want a refund", "我的密碼登錄不了",
             "the invoice is wrong"]
    state = None
    for i in range(300):
        text = texts[i % len(texts)] + f" {i}"
        state = observe_turn(state, "s1", text, keyword_terms(text), None,
                             T0 + timedelta(minutes=i))
    assert state is not None and state.switch_count == 299
    assert len(state.topics) <= MAX_TOPICS and len(state.boundaries) == MAX_BOUNDARIES
    old = MemoryUnit(content="早期的内容 early", type=MemoryType.SESSION_STATE, session_id="s1",
                     user_id="u1", lifespan=Lifespan(created_at=T0, expires_in=10**6))
    assert state.topic_of(old) is None and state.factor(old, 0.5, 1.2) == 1.0
    back = decode("s1", encode(state))
    assert back is not None and back.boundaries == state.boundaries
