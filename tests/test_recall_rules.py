"""Stage 1: fixed-format entities and slot questions, exact, in Chinese and English."""

from __future__ import annotations

from datetime import timedelta

import pytest

from jiyi import Entity, Memory, MemoryType
from jiyi.recall.rules import lookup_values, query_entities, slot_intent
from test_recall_helpers import T0, put


def test_query_entities_formats() -> None:
    found = {(e.kind, e.value) for e in query_entities(
        "订单 ABC-12345 的邮箱 Zhang.Wei@Example.com 电话 139 1234 5678，2026-05-02 下单", T0)}
    assert ("order_id", "ABC-12345") in found
    assert ("email", "zhang.wei@example.com") in found
    assert ("phone", "13912345678") in found
    assert ("date", "2026-05-02") in found
    # a day without its year may be last year's: the time window settles it, not a lookup
    assert query_entities("5月2日那天", T0) == []
    assert query_entities("what did I say about the weather", T0) == []


def test_query_entities_take_ids_without_labels() -> None:
    """A query names an id without saying what it is: short codes and digit runs count."""
    found = {(e.kind, e.value) for e in query_entities("A123到了吗？还有 12345 那单", T0)}
    assert found == {("code", "A123"), ("number", "12345")}
    assert query_entities("买了3件，花了299元", T0) == []


def test_lookup_variants_cover_spellings() -> None:
    values = {e.value for e in lookup_values(query_entities("+86 139-1234-5678", T0))}
    assert {"13912345678", "8613912345678"} <= values


@pytest.mark.parametrize(("query", "slot"), [
    ("我的订单号是多少", "order_id"),
    ("what's my phone number?", "phone"),
    ("怎么联系我", "phone"),
    ("我現在的電話", "phone"),
    ("What is my email?", "email"),
    ("我的地址是哪里", "address"),
])
def test_slot_intent(query: str, slot: str) -> None:
    intent = slot_intent(query)
    assert intent is not None and slot in intent.slots


def test_slot_intent_needs_own_fact() -> None:
    assert slot_intent("推荐一款手机") is None
    assert slot_intent("recommend a phone for my mother") is not None  # "my" + phone: a slot ask
    assert slot_intent("the weather today") is None


def test_entity_rule_finds_exact_unit(mem: Memory) -> None:
    target = put(mem, "订单ABC12345已发货", entities=[Entity(kind="code", text="ABC12345",
                                                            value="ABC12345")])
    put(mem, "订单XYZ99999已取消", entities=[Entity(kind="code", text="XYZ99999", value="XYZ99999")])
    for i in range(10):
        put(mem, f"闲聊内容第{i}条，关于订单和天气", at=T0 + timedelta(minutes=i))
    hits = mem.recall("abc12345 到哪了", session_id="s1", user_id="u1",
                      as_of=T0 + timedelta(hours=1))
    assert hits[0].unit.id == target.id
    assert hits[0].stage == "rule"
    assert hits[0].confidence >= 0.7


@pytest.mark.parametrize("query", ["我的电话是多少？", "我現在的電話", "what's my phone number",
                                   "怎么联系我"])
def test_slot_question_resolves_current_phone(mem: Memory, query: str) -> None:
    put(mem, "用户手机号：13800000000", type=MemoryType.USER_PROFILE, slot="phone",
        entities=[Entity(kind="phone", text="13800000000", value="13800000000")],
        valid_until=T0 + timedelta(days=1))
    new = put(mem, "用户手机号：13911112222", type=MemoryType.USER_PROFILE, slot="phone",
              at=T0 + timedelta(days=1),
              entities=[Entity(kind="phone", text="13911112222", value="13911112222")])
    put(mem, "用户喜欢蓝色的衣服", type=MemoryType.USER_PROFILE)
    hits = mem.recall(query, session_id="s-other", user_id="u1", as_of=T0 + timedelta(days=2))
    assert hits and hits[0].unit.id == new.id and hits[0].stage == "rule"
    assert all("13800000000" not in h.unit.content for h in hits)  # replaced, never current


def test_rules_never_cross_users(mem: Memory) -> None:
    put(mem, "订单QQ77777", user="other", entities=[Entity(kind="code", text="QQ77777",
                                                          value="QQ77777")])
    assert mem.recall("QQ77777", session_id="s1", user_id="u1", as_of=T0 + timedelta(1)) == []


@pytest.mark.parametrize("query", ["我的退货单号是多少？", "我的退貨單號是多少？", "我的投诉工单号",
                                   "what's my refund number", "my booking number please"])
def test_other_identifiers_are_not_order_number_questions(query: str) -> None:
    """"退货单号" contains "单号": it must not become the order-number slot (that answered the
    order id with high confidence); its id fact is found by its label's words instead."""
    intent = slot_intent(query)
    assert intent is None or "order_id" not in intent.slots
