"""S18: leaving a topic freezes it (down-weighted, kept), the new one is boosted, returning
thaws it. Chinese and English; pure detector and through Memory.recall."""

from __future__ import annotations

from datetime import timedelta

from jiyi import Memory
from jiyi.recall.topics import TopicState, detect_intent, observe
from jiyi.text import keyword_terms
from test_recall_helpers import T0, put


def _walk(queries: list[str]) -> list[TopicState]:
    state = TopicState(session_id="s1")
    out = []
    for i, q in enumerate(queries):
        state = observe(state, q, keyword_terms(q), None, T0 + timedelta(minutes=i))
        out.append(state)
    return out


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


def test_recall_freezes_left_topic(mem: Memory) -> None:
    order = put(mem, "订单ABC123已发货，快递单号SF100", at=T0)
    assert mem.recall("帮我查订单ABC123", session_id="s1", user_id="u1", as_of=T0)
    rec = put(mem, "用户想看新款耳机推荐", at=T0 + timedelta(minutes=2))
    mem.recall("有什么新品推荐", session_id="s1", user_id="u1", as_of=T0 + timedelta(minutes=3))
    state = mem.topic_state("s1", "u1")
    assert state is not None and state.switched and state.previous is not None
    assert state.previous.label == "order"
    # the order unit is kept (frozen, not deleted) but down-weighted; the new topic's boosted:
    # compare with the same recall on the same store with topic tracking off
    hits = mem.recall("新品 订单", session_id="s1", user_id="u1", as_of=T0 + timedelta(minutes=4))
    scores = {h.unit.id: h.score for h in hits}
    assert order.id in scores and rec.id in scores
    plain_cfg = mem.config.model_copy(update={"recall": mem.config.recall.model_copy(
        update={"topics": False})})
    plain = Memory(mem.store, embedder=mem.embedder, config=plain_cfg, warm=False)
    base = {h.unit.id: h.score for h in plain.recall(
        "新品 订单", session_id="s1", user_id="u1", as_of=T0 + timedelta(minutes=4))}
    weights = mem.config.recall
    assert abs(scores[order.id] / base[order.id] - weights.frozen_topic_factor) < 1e-6
    assert abs(scores[rec.id] / base[rec.id] - weights.active_topic_factor) < 1e-6
    # back to the order topic: thawed, its unit ranks first again
    hits = mem.recall("我的订单ABC123呢", session_id="s1", user_id="u1",
                      as_of=T0 + timedelta(minutes=5))
    state = mem.topic_state("s1", "u1")
    assert state is not None and state.returned
    assert hits[0].unit.id == order.id


def test_topic_state_is_per_session(mem: Memory) -> None:
    put(mem, "订单ABC123已发货")
    mem.recall("查订单", session_id="s1", user_id="u1", as_of=T0 + timedelta(1))
    assert mem.topic_state("s2", "u1") is None
    assert mem.topic_state("s1", "u1") is not None
