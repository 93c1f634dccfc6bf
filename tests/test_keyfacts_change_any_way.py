"""A change said any way (issue #24): a value's word said in the sentence before ("i change
number already. new one 8765 4321", "typo in my address lol. its 1128 Oak Street"), "mine is"
against someone else's, a membership ended ("let my Silver lapse", "cancelled Gold Plus") or a
plan named ("the basic Bronze plan", "個plan係Basic"), a clause of the changing turn about the
value replaced, a value said in passing with no cue (a Chinese address, a number). Three
scripts, both backends; look-alikes: an order number, a data plan, someone else's number."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jiyi import Hit, Memory
from jiyi.text.entities import extract_entities
from jiyi.text.levels import level_mentions
from keyfacts_memory import ask_after, say, slot_units

AT = datetime(2026, 5, 4, tzinfo=UTC)


def _phones(text: str) -> list[str]:
    return [e.text for e in extract_entities(text, AT) if e.kind == "phone"]


@pytest.mark.parametrize(("text", "phone"), [
    ("我手机号码换了，之前那个已经停机不用了，麻烦帮忙更新一下。新的是 6234 0143", "6234 0143"),
    ("手機號碼換咗，舊嗰個已經冇再用，麻煩幫我更新資料。新嘅係 9123 4567", "9123 4567"),
    ("i change number already lah, old one stop using liao. new one 8765 4321", "8765 4321"),
    ("Got a different phone this week. The new one is 8765 4321", "8765 4321"),
    # look-alikes: an order's number pointed back to, a pointer with no phone word before it
    ("我的订单号变了，新的是 62340143", None),
    ("The old invoice was wrong, the new one is 87654321", None),
    ("新的是 62340143", None),
])
def test_a_number_pointed_back_to_is_the_phone_the_message_named(text: str,
                                                                 phone: str | None) -> None:
    assert _phones(text) == ([phone] if phone else [])


@pytest.mark.parametrize(("text", "level"), [
    ("I let my Silver lapse and rejoined on the basic Bronze plan", "Bronze"),
    ("I'm on the free tier now", "free"),
    ("我用緊個plan係Basic，想問下有冇優惠", "Basic"),
    ("我已經轉咗做Premium plan", "Premium"),
    # look-alikes: a plan that is no level, free things
    ("My data plan ran out again", None),
    ("Family plan is too expensive", None),
    ("I switched to the Verizon plan last month", None),
    ("Is there free shipping on this?", None),
])
def test_a_plan_or_tier_named_with_a_level_word_is_a_level(text: str, level: str | None) -> None:
    found = [m.value for m in level_mentions(text)]
    if level is None:
        assert found == []
    else:
        assert any(level in v for v in found)


def _current(hits: list[Hit], text: str) -> bool:
    return any(h.current and text in h.unit.content.replace(" ", "") for h in hits)


PHONE_CASES = [
    (["有事打我 9123 4567", "我手机号码换了，之前那个已经停机不用了，麻烦帮忙更新一下。新的是 6234 0143"],
     "我现在的手机号是多少？", "62340143", "91234567"),
    (["有問題打呢個 9123 4567 搵我", "手機號碼換咗，舊嗰個已經冇再用，麻煩幫我更新資料。新嘅係 6234 0143"],
     "我而家個電話係幾多？", "62340143", "91234567"),
    (["eh my parcel tracking dont move one leh, can call me 9123 4567 ah",
      "btw i change number already lah, old one stop using liao. new one 8765 4321"],
     "What's this customer's contact number now?", "87654321", "91234567"),
    (["My hp is 012-555 7788, WhatsApp also can.",
      "Sorry ah, that 012 number is my husband's one, I typed wrong. Mine is 016-555 2104."],
     "What's my number in your system?", "016-5552104", "012-5557788"),
]


@pytest.mark.parametrize(("turns", "question", "new", "old"), PHONE_CASES)
def test_a_new_number_pointed_back_to_replaces_the_old(any_mem: Memory, turns: list[str],
                                                       question: str, new: str,
                                                       old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert _current(hits, new)
    assert not _current(hits, old)
    assert any(new in u.content.replace(" ", "") for u in slot_units(any_mem, "phone"))


def test_someone_elses_new_number_is_not_the_users(any_mem: Memory) -> None:
    say(any_mem, ["有事打我 9123 4567", "我老婆换号了，她新的是 6234 0143"])
    units = slot_units(any_mem, "phone")
    assert units and all("6234" not in u.content for u in units)


ADDRESS_CASES = [
    (["plz send the invoice copy with my next order to 1182 Oak Street, Austin TX 78704 thx",
      "wait sorry typo in my address lol its 1128 Oak Street not 1182, same zip"],
     "What's the customer's street address?", "1128OakStreet"),
    # a Chinese address said in passing with no cue, then a move
    (["深圳市南山区科技园南区 W1-A 栋，前台代收，这单加急",
      "换工作了，以后的件寄深圳市福田区深南大道 6008 号 20 楼"], "我的地址是哪里？", "深南大道6008号"),
    (["台中市西屯區中科園區 C2 棟，警衛室代收，這單急件",
      "我搬家了，之後寄台北市大安區復興南路一段 100 號 5 樓"], "我的地址是哪裡？", "復興南路一段100號"),
]


@pytest.mark.parametrize(("turns", "question", "new"), ADDRESS_CASES)
def test_an_address_corrected_or_said_in_passing_is_replaced(any_mem: Memory, turns: list[str],
                                                            question: str, new: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert _current(hits, new)
    first = turns[0].replace(" ", "")
    old = next(w for w in ("1182OakStreet", "科技园南区", "中科園區") if w in first)
    assert not _current(hits, old)
    # still stored: typing changes how a memory ranks, never whether it is stored
    assert any_mem.recall(turns[0], session_id="s9", user_id="u", k=5)


LEVEL_CASES = [
    (["As a Silver cardholder I was told I'd get 10% off, but it wasn't applied.",
      "I let my Silver lapse and rejoined on the basic Bronze plan, just so you're aware."],
     "Customer's membership level?", "Bronze", "Silver"),
    (["I pay for Gold Plus every year and your agent was rude.",
      "I've cancelled Gold Plus. I'm on the free tier now."],
     "What level is my account now?", "free", "Gold Plus"),
    (["我用緊個plan係Basic，想問下有冇優惠", "我已經轉咗做Premium plan，上個禮拜轉嘅"],
     "我而家用緊咩plan？", "Premium", "Basic"),
    (["我现在用的plan是Basic，有没有优惠", "我已经换成Premium plan了"],
     "我现在用的什么plan？", "Premium", "Basic"),
]


@pytest.mark.parametrize(("turns", "question", "new", "old"), LEVEL_CASES)
def test_a_membership_ended_or_changed_without_a_now_word(any_mem: Memory, turns: list[str],
                                                          question: str, new: str,
                                                          old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert any(h.current and h.unit.slot == "membership" and new in h.unit.content
               for h in hits)
    assert not any(h.current and old in h.unit.content and new not in h.unit.content
                   for h in hits)


def test_a_data_plan_is_no_membership(any_mem: Memory) -> None:
    say(any_mem, ["I'm a Gold member", "My data plan ran out again, so annoying"])
    units = slot_units(any_mem, "membership")
    assert [u for u in units if "Gold" in u.content] and not [
        u for u in units if "data" in u.content.casefold()]


CHANNEL_CASES = [
    (["Stop calling me 5 times a day!!! Email only. EMAIL.",
      "ok your emails go straight to my spam, pointless. Use live chat in the app, "
      "I'll check it there"], "contact channel", "app", "emails"),
    (["有事发邮件联系我就行", "你们的邮件老是进垃圾箱，没用。以后用微信联系我吧"],
     "怎么联系我？", "微信", "邮件"),
    (["有咩事發電郵通知我", "你哋啲電郵成日入咗垃圾郵件，冇用。之後WhatsApp聯絡我啦"],
     "點樣聯絡我？", "WhatsApp", "電郵"),
]


@pytest.mark.parametrize(("turns", "question", "new", "old"), CHANNEL_CASES)
def test_a_clause_of_the_changing_turn_about_the_old_channel_is_history(
        any_mem: Memory, turns: list[str], question: str, new: str, old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert any(h.current and new in h.unit.content for h in hits)
    assert not any(h.current and old in h.unit.content and new not in h.unit.content
                   for h in hits)


CORRECTION_CASES = [
    (["btw for the meal kit subscription deliver any time on thurs pls",
      "sorry autocorrect, I meant tues not thurs"],
     "Which day does this customer want deliveries?", "tues", "any time on thurs"),
    (["周三下午送货比较方便", "刚才说错了，是周五下午送，不是周三"],
     "我想什么时候送货？", "周五", "周三下午送货"),
    (["禮拜三送貨比較方便", "頭先講錯咗，應該係禮拜五送，唔係禮拜三"],
     "我想幾時送貨？", "禮拜五", "禮拜三送貨"),
]


@pytest.mark.parametrize(("turns", "question", "new", "old"), CORRECTION_CASES)
def test_a_corrected_delivery_day_replaces_the_one_said(any_mem: Memory, turns: list[str],
                                                        question: str, new: str,
                                                        old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert any(h.current and h.unit.slot == "delivery_time" and new in h.unit.content
               for h in hits)
    assert not any(h.current and old in h.unit.content for h in hits)


def test_a_correction_of_something_else_keeps_the_delivery_day(any_mem: Memory) -> None:
    say(any_mem, ["please deliver on thurs, evenings are best",
                  "sorry typo, I meant the blue mug not the red one"])
    units = slot_units(any_mem, "delivery_time")
    assert units and all("thurs" in u.content for u in units)
