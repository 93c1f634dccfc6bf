"""Frames of stop 46, read from ``sets48`` (both halves: development data since this stop),
each written for every script it applies to:

* **a request that changes something for good outlives its session**: "幫我降返最平嗰個
  300M", "can you switch me to unlimited?", "please always before 7am" are what the user wants
  from now on, not a task of the session (which expires in hours); a task ("幫我查一下訂單",
  "can you help me track my parcel?") stays one;
* **only the value on file is presented as current**: for a key-fact question whose slot holds a
  value (a single-valued slot's current unit, a list's valid members), an untyped hit that does
  not hold that value is shown with its date, not as current ("我朋友给了我她的码 PAL88" beside
  a valid coupon); with nothing on file, only the newest telling of a value is;
* **one past occasion told is no preference**: "上次你们打电话给我，我在开会没接到" or "you rang me
  yesterday" does not replace "以后有事发短信给我".

Sentences written for these tests; look-alikes beside each frame change nothing."""

from __future__ import annotations

import pytest

from jiyi import Memory
from jiyi.keyfacts.asking import of_the_past
from jiyi.recall.rules import slot_intent
from jiyi.units import MemoryType
from jiyi.write.classify import asks_a_standing_change, classify
from keyfacts_memory import ask_after, say, slot_units


@pytest.mark.parametrize("text", [
    "幫我降返最平嗰個 300M",
    "帮我降到最便宜的那个100M套餐",
    "can you switch me to unlimited?",
    "Please always before 7am",
    "能不能幫我改到禮拜六送？",
    "以后都帮我放快递柜",
    "could you update my address to 5 Elm Street?",
])
def test_a_standing_request_outlives_its_session(text: str) -> None:
    assert asks_a_standing_change(text)
    assert classify(text, "user", [], None) is MemoryType.FACT_REFERENCE


@pytest.mark.parametrize("text", [
    "幫我查一下訂單",
    "帮我看看物流到哪了",
    "Can you help me track my parcel?",
    "please check the refund",
])
def test_a_task_stays_a_session_state(text: str) -> None:
    assert not asks_a_standing_change(text)
    assert classify(text, "user", [], None) is MemoryType.SESSION_STATE


def test_an_assistants_change_is_still_a_session_state() -> None:
    assert classify("可以幫你改到禮拜六送", "assistant", [], None) is MemoryType.SESSION_STATE


@pytest.mark.parametrize(("turns", "ask", "other"), [
    (["我有一张满300减50的券，码是 SAVE50，6月30号前有效", "我朋友给了我她的码 PAL88，说能减20"],
     "我现在有哪些券能用？", "PAL88"),
    (["我有一張滿300減50的券，碼是 SAVE50，6月30號前有效", "我朋友給了我她的碼 PAL88，說能減20"],
     "我現在有哪些券能用？", "PAL88"),
    (["I have a voucher SAVE50, £50 off, valid until 30 June",
      "my friend sent me her code PAL88, says it takes off £20"],
     "which of my vouchers can I still use?", "PAL88"),
])
def test_with_a_list_on_file_another_code_is_not_current(
        any_mem: Memory, turns: list[str], ask: str, other: str) -> None:
    hits = ask_after(any_mem, turns, ask)
    assert any("SAVE50" in h.unit.content and h.current for h in hits)
    assert not any(other in h.unit.content and h.current for h in hits)


@pytest.mark.parametrize(("turns", "ask", "other"), [
    (["以后有事发短信给我就行", "上次你们打电话给我，我在开会没接到"], "你们一般怎么联系我？", "打电话"),
    (["以後有事傳簡訊給我就好", "上次你們打電話給我，我在開會沒接到"], "你們一般怎麼聯絡我？", "打電話"),
    (["Text me if anything comes up, that's easiest", "you rang me yesterday and I was in a meeting"],
     "how do you usually contact me?", "rang me"),
])
def test_a_past_occasion_replaces_no_preference(
        any_mem: Memory, turns: list[str], ask: str, other: str) -> None:
    say(any_mem, turns)
    channels = [u.content for u in slot_units(any_mem, "contact_channel")]
    assert len(channels) == 1 and other not in channels[0]
    hits = ask_after(any_mem, [], ask)
    assert not any(other in h.unit.content and h.current for h in hits)


@pytest.mark.parametrize("text", [
    "上次你们打电话给我，我在开会没接到",
    "昨天你們的司機打給我，我沒接到",
    "you rang me yesterday and I missed it",
])
def test_one_past_occasion_is_of_the_past(text: str) -> None:
    assert of_the_past(text)


@pytest.mark.parametrize("text", [
    "以后有事打电话给我", "現在改成傳簡訊給我", "call me from now on",
])
def test_a_standing_wish_is_not_of_the_past(text: str) -> None:
    assert not of_the_past(text)


@pytest.mark.parametrize(("turns", "ask", "old"), [
    (["家里宽带300M的，晚上打游戏老卡", "上个月已经升到1000M了，爽"], "我家宽带现在是多少兆？", "300M"),
    (["屋企寬頻300M，晚上打機成日lag", "上個月已經升咗1000M，快好多"], "我屋企寬頻而家幾多M？", "300M"),
    (["I'm on the 20GB plan and it runs out fast", "moved up to Unlimited last month, so much better"],
     "what plan am I on now?", "20GB"),
])
def test_with_nothing_on_file_an_older_mention_is_not_current(
        e5_mem: Memory, turns: list[str], ask: str, old: str) -> None:
    hits = ask_after(e5_mem, turns, ask)
    assert not any(old in h.unit.content and h.current for h in hits)


@pytest.mark.parametrize(("question", "slot"), [
    ("之後有咩通知，你哋會email去邊度？", "email"),
    ("你們之後會寄 email 到哪個地址？", "email"),
    ("我屋企寬頻而家幾多M？", "membership"),
    ("我屋企用緊幾多M嘅plan？", "membership"),
    ("我网盘现在是多大的套餐？", "membership"),
    ("Which speed am I on now?", "membership"),
    ("我账户里还有啥红包能用？", "coupon"),
    ("which of my codes are still live?", "coupon"),
])
def test_questions_find_their_slot(question: str, slot: str) -> None:
    intent = slot_intent(question)
    assert intent is not None and slot in intent.slots


@pytest.mark.parametrize("question", [
    "你們的客服電話是多少？", "你哋客服電話幾號？", "What speed does the 500 plan give?",
])
def test_the_business_own_things_are_not_mine(question: str) -> None:
    intent = slot_intent(question)
    assert intent is None or not {"phone", "address", "membership"} & set(intent.slots)
