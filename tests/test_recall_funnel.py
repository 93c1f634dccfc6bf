"""The funnel end to end through Memory.recall: scope, validity, hybrid zh/en, windows,
vague references, comparable scores and the confidence flag."""

from __future__ import annotations

from datetime import timedelta

import pytest

from jiyi import Entity, Memory, MemoryType, ValidationError
from jiyi.recall import RecallTrace, recall_came_back_empty
from jiyi.recall.calibrate import expected_calibration_error, fit_logistic, predict
from jiyi.recall.fusion import reciprocal_ranks
from test_recall_helpers import T0, put

LATER = T0 + timedelta(days=3)


@pytest.fixture
def filled(mem: Memory) -> Memory:
    put(mem, "用户订购了蓝牙耳机，订单已发货", at=T0)
    put(mem, "The user prefers aisle seats on long flights", at=T0 + timedelta(hours=1))
    put(mem, "用户住在上海浦东新区", type=MemoryType.USER_PROFILE, at=T0 + timedelta(hours=2))
    put(mem, "User's dog is called Biscuit and loves the beach", at=T0 + timedelta(hours=3))
    put(mem, "另一个用户的蓝牙耳机订单", user="u2", at=T0)
    return mem


def test_keyword_and_vector_zh_en_traditional(filled: Memory) -> None:
    top = filled.recall("蓝牙耳机发货了吗", session_id="s1", user_id="u1", as_of=LATER)[0]
    assert "蓝牙耳机" in top.unit.content and top.stage in ("semantic", "keyword")
    top = filled.recall("藍牙耳機發貨了嗎", session_id="s1", user_id="u1", as_of=LATER)[0]
    assert "蓝牙耳机" in top.unit.content
    top = filled.recall("what is my dog's name?", session_id="s1", user_id="u1", as_of=LATER)[0]
    assert "Biscuit" in top.unit.content
    top = filled.recall("seat preference on flights", session_id="s1", user_id="u1",
                        as_of=LATER)[0]
    assert "aisle" in top.unit.content


def test_never_another_user_and_expired_only_as_history(filled: Memory) -> None:
    hits = filled.recall("蓝牙耳机订单", session_id="s1", user_id="u1", k=20, as_of=LATER)
    assert hits and all(h.unit.user_id == "u1" for h in hits)
    gone = put(filled, "优惠券SAVE50本周有效", at=T0, expires_in=86400)
    hits = filled.recall("优惠券SAVE50", session_id="s1", user_id="u1", k=20, as_of=LATER)
    old = [h for h in hits if h.unit.id == gone.id]  # expired: history, never current
    assert old and not old[0].current and old[0].status == "expired"
    assert all(h.current == h.unit.is_valid_at(LATER) for h in hits)
    hits = filled.recall("优惠券SAVE50", session_id="s1", user_id="u1", k=20,
                         as_of=T0 + timedelta(hours=2))
    assert hits[0].unit.id == gone.id
    # a session-level unit of another session is still evidence, ranked lower than at home
    state = put(filled, "本次会话：用户在问上海浦东的门店", type=MemoryType.SESSION_STATE)
    when = T0 + timedelta(hours=4)
    away = {h.unit.id: h.score for h in filled.recall(
        "上海浦东", session_id="s9", user_id="u1", k=20, as_of=when)}
    home = {h.unit.id: h.score for h in filled.recall(
        "上海浦东", session_id="s1", user_id="u1", k=20, as_of=when)}
    assert state.id in away and state.id in home
    assert MemoryType.USER_PROFILE in [filled.get(u).type for u in away]


def test_scores_comparable_and_confidence(filled: Memory) -> None:
    strong = filled.recall("Biscuit dog beach", session_id="s1", user_id="u1", as_of=LATER)
    weak = filled.recall("quantum chromodynamics lecture", session_id="s1", user_id="u1",
                         as_of=LATER)
    assert strong and 0.0 <= strong[0].confidence <= 1.0
    assert not weak or weak[0].score < strong[0].score
    assert not weak or weak[0].confidence < strong[0].confidence
    assert recall_came_back_empty([], 0.7)
    assert not recall_came_back_empty(strong, min(h.confidence for h in strong))
    assert [h.score for h in strong] == sorted((h.score for h in strong), reverse=True)


def test_time_window_prefers_in_window(mem: Memory) -> None:
    old = put(mem, "用户买了一台咖啡机", at=T0)
    new = put(mem, "用户买了一台咖啡机的滤网", at=T0 + timedelta(days=10))
    trace = RecallTrace()
    hits = mem.recall("5月1日那天买了什么", session_id="s1", user_id="u1",
                      as_of=T0 + timedelta(days=12), trace=trace)
    assert trace.query is not None and trace.query.window is not None
    assert hits[0].unit.id == old.id and new.id in [h.unit.id for h in hits]


def test_vague_reference_uses_recent_entities(mem: Memory) -> None:
    put(mem, "用户在看 Sony WH-1000XM5", at=T0,
        entities=[Entity(kind="product", text="Sony WH-1000XM5", value="SONY WH-1000XM5")])
    target = put(mem, "WH-1000XM5 库存 3 台，黑色", at=T0 - timedelta(days=5))
    for i in range(5):
        put(mem, f"用户问过产品{i}的价格", at=T0 - timedelta(days=4, minutes=i))
    trace = RecallTrace()
    hits = mem.recall("那个产品还有货吗", session_id="s1", user_id="u1",
                      as_of=T0 + timedelta(minutes=5), trace=trace)
    assert trace.query is not None and trace.query.expansion == ["Sony WH-1000XM5"]
    # the expansion is keyword evidence (the query's vector stays the user's own words): the
    # unit naming what "那个产品" points to comes first, and the stock fact gains keyword evidence
    assert "Sony WH-1000XM5" in hits[0].unit.content
    stock = next(c for c in trace.candidates if c.unit.id == target.id)
    assert stock.features["keyword_rr"] > 0 and "keyword" in stock.sources


def test_bad_input_is_clear(mem: Memory) -> None:
    with pytest.raises(ValidationError):
        mem.recall("   ", session_id="s1")
    with pytest.raises(ValidationError):
        mem.recall("x", session_id=None)
    with pytest.raises(ValidationError):
        mem.recall("x", session_id="s1", k=0)


def test_reindex_fills_new_embedder_space(db_path: str) -> None:
    with Memory.open(db_path, embedder="fake:32") as m:
        unit = put(m, "用户喜欢爵士乐")
    with Memory.open(db_path, embedder="fake:48") as m:
        assert m.store.count_units_missing_vectors("fake-48") == 1
        assert m.store.count_turns_missing_vectors("fake-48") == 1
        assert m.reindex() == 2  # the unit and its raw turn
        assert m.store.count_units_missing_vectors("fake-48") == 0
        assert m.store.count_units_missing_vectors("fake-32") == 0
        assert m.recall("爵士乐", session_id="s1", user_id="u1", as_of=LATER)[0].unit.id == unit.id


def test_fusion_and_calibration_are_pure() -> None:
    assert reciprocal_ranks(["x", "y"], 60) == {"x": 1.0, "y": 61 / 62}
    xs = [[float(i % 10) / 10] for i in range(400)]
    ys = [1 if x[0] > 0.55 else 0 for x in xs]
    bias, w = fit_logistic(xs, ys)
    assert w[0] > 2 and predict([[0.9]], bias, w)[0] > 0.8 and predict([[0.1]], bias, w)[0] < 0.2
    assert expected_calibration_error([0.9, 0.1], [1, 0]) < 0.11
