"""Frames of stop 42, read from the code-blind set ``sets44`` (its held-out run of stop 41 is
over; it is this stop's dev set), each written for every script it applies to:

* **a question of how is asked** ("你们会怎么通知我", "修好了你们咋通知我", "理赔进度会通过啥通知我"):
  no contact channel, and the user's channel stays; "有啥事发短信" still states one;
* **a channel beside the number** ("以后有事发短信 手机 137…"): SMS is a channel of its own,
  "改一下信箱，新的是…" still names only the e-mail;
* **a request opened by a dash or "also"**, or a standing change asked ("- can you text updates
  to X instead?", "From now on can everything go to X?") states its value;
* **a name is no level**: "I got married … so I'm Priya Castellano now", "I changed my surname
  by deed poll … so it's Christopher Hale now", "my ID now says X", "Please put as X on my
  account", "Booking name is X";
* **a phone named after it** ("use 70221 86634 for everything, that's my new personal mobile");
* **a plan subscribed to** ("我訂閱的是標準方案" → "升級進階方案"), never a plan of treatment.

Sentences written for these tests; look-alikes beside each frame change nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jiyi import Memory
from jiyi.keyfacts.asking import asks, is_request
from jiyi.text.entities import extract_entities
from jiyi.text.levels import level_mentions
from keyfacts_memory import say, slot_units

AT = datetime(2026, 5, 4, tzinfo=UTC)


def _people(text: str) -> list[str]:
    return [e.text for e in extract_entities(text, AT) if e.kind == "person"]


@pytest.mark.parametrize(("first", "question", "kept"), [
    ("以后有事发微信给我", "下一本出了的话你们会怎么通知我", "微信"),
    ("以後有事傳LINE給我", "修好了你們咋通知我", "LINE"),
    ("有咩事WhatsApp我", "理赔进度你们会通过啥通知我", "WhatsApp"),
])
def test_a_question_of_how_is_no_channel(any_mem: Memory, first: str, question: str,
                                         kept: str) -> None:
    say(any_mem, [first, question])
    channels = [u.content for u in slot_units(any_mem, "contact_channel")]
    assert len(channels) == 1 and kept in channels[0], channels


@pytest.mark.parametrize(("text", "asked"), [
    ("你们会怎么通知我", True), ("你們會怎麼通知我", True), ("修好了咋通知我", True),
    ("会通过啥通知我", True), ("有啥事发短信", False), ("不管怎么样都发短信", False),
    ("163那个我不怎么看", False), ("快递咋这么慢", False), ("我沒怎麼用過", False),
])
def test_how_asks_unless_it_is_no_matter_how(text: str, asked: bool) -> None:
    assert asks(text) is asked


@pytest.mark.parametrize(("text", "channel"), [
    ("别发邮件了 邮箱我基本不看 以后有事发短信 手机 13761209875", "短信"),
    ("別寄郵件了 信箱我很少看 以後有事傳簡訊 手機 0912345678", "簡訊"),
])
def test_a_channel_beside_a_number_is_stated(any_mem: Memory, text: str, channel: str) -> None:
    say(any_mem, [text])
    assert any(channel in u.content for u in slot_units(any_mem, "contact_channel"))
    assert slot_units(any_mem, "phone")


def test_a_new_mail_address_alone_states_no_channel(any_mem: Memory) -> None:
    say(any_mem, ["改一下信箱，新的是 lin.w@example.com"])
    assert slot_units(any_mem, "email") and not slot_units(any_mem, "contact_channel")


@pytest.mark.parametrize(("text", "wanted"), [
    ("- can you text updates to 617-555-0198 instead?", True),
    ("Also - could you use my office line?", True),
    ("From now on can everything go to kwame@studio.example?", True),
    ("can it all go to my office instead?", True),
    ("What number do you have for me?", False),
    ("- is that my office line?", False),
])
def test_requests_opened_by_a_dash_or_a_standing_change(text: str, wanted: bool) -> None:
    assert is_request(text) is wanted


@pytest.mark.parametrize(("first", "later", "new"), [
    ("(617) 555-0143, my home line",
     "Any luck on the search? Also - can you text updates to 617-555-0198 instead? That's my "
     "work cell", "617-555-0198"),
    ("my number is 98450 12763",
     "Also the office line is useless now. Please use 70221 86634 for everything, that's my new "
     "personal mobile", "70221 86634"),
])
def test_a_phone_asked_for_or_named_after(any_mem: Memory, first: str, later: str,
                                          new: str) -> None:
    say(any_mem, [first, later])
    phones = [u.content for u in slot_units(any_mem, "phone")]
    assert len(phones) == 1 and new in phones[0], phones


@pytest.mark.parametrize(("first", "later", "name"), [
    ("My name is Priya Raman, loyalty number HR-5521907.",
     "Bit of admin. I got married over Christmas and finally have my new passport, so I'm "
     "Priya Castellano now.", "Priya Castellano"),
    ("I'm Chris Halvorsen, 34, no claims 8 yrs",
     "Another name thing sorry!! I changed my surname by deed poll - long story - so it's "
     "Christopher Hale now.", "Christopher Hale"),
    ("Name for the ticket: Mariana Souza",
     "FYI I got married in Feb so my ID now says Marianna Hartley - please use that.",
     "Marianna Hartley"),
    ("My name is Nguyen Van Hoa", "Please put as Hoa Nguyen on my account", "Hoa Nguyen"),
])
def test_a_new_name_is_the_name_and_no_level(any_mem: Memory, first: str, later: str,
                                             name: str) -> None:
    say(any_mem, [first, later])
    names = [u.content for u in slot_units(any_mem, "name")]
    assert len(names) == 1 and name in names[0], names
    assert not slot_units(any_mem, "membership")


@pytest.mark.parametrize(("text", "person"), [
    ("Sender name Rebecca Stone", "Rebecca Stone"),
    ("my passport says Wei Zhang", "Wei Zhang"),
    ("it's Platinum Plus now", None),
    ("it's Gold Elite now", None),
])
def test_names_a_record_carries(text: str, person: str | None) -> None:
    assert _people(text) == ([person] if person else [])


@pytest.mark.parametrize(("first", "later", "level"), [
    ("我订阅的是标准方案 月付 399", "升级🆙 进阶方案！要看那个 AI 专题", "进阶方案"),
    ("我訂閱的是標準方案 月付 399", "升級🆙 進階方案！要看那個 AI 專題", "進階方案"),
    ("我買咗你哋自願醫保 標準計劃", "諗清楚喇 upgrade 去靈活計劃 表格已經交咗", "靈活計劃"),
])
def test_a_plan_subscribed_to_is_a_level(any_mem: Memory, first: str, later: str,
                                         level: str) -> None:
    say(any_mem, [first, later])
    levels = [u.content for u in slot_units(any_mem, "membership")]
    assert len(levels) == 1 and level in levels[0], levels


@pytest.mark.parametrize("text", ["医生给我定了治疗方案", "我的旅行计划是去日本", "醫生幫我排了治療計劃"])
def test_a_plan_of_something_else_is_no_level(text: str) -> None:
    assert level_mentions(text) == []


@pytest.mark.parametrize(("text", "address"), [
    ("现在住龙华区民治街道书香门第上河坊5栋2203 能不能让他过来", "龙华区民治街道书香门第上河坊5栋2203"),
    ("新地址是佛山市南海区桂城千灯湖万科金域华府8座2603以后都寄这里", "佛山市南海区桂城千灯湖万科金域华府8座2603"),
    ("以後寄山水人家3幢402", "山水人家3幢402"),
])
def test_an_estate_named_by_no_estate_word_with_block_and_room(text: str, address: str) -> None:
    assert [e.text for e in extract_entities(text, AT) if e.kind == "address"] == [address]


@pytest.mark.parametrize("text", ["我在3栋等你", "A座1203会议室开会", "第5座1203场次"])
def test_a_block_without_an_estate_and_room_is_no_address(text: str) -> None:
    assert not [e for e in extract_entities(text, AT) if e.kind == "address"]


@pytest.mark.parametrize(("first", "later", "ask", "gone"), [
    ("我没什么忌口，啥都吃", "前两天去医院查了，说是花生过敏，以后我的餐里不能放花生", "我有什么忌口吗", "没什么忌口"),
    ("我沒什麼忌口", "醫生說我對蝦過敏，以後餐點不要放蝦", "我有什麼忌口嗎", "沒什麼忌口"),
    ("High protein, no restrictions, I eat everything",
     "Ended up in A&E. Turns out I'm allergic to shellfish.", "any food restrictions on my file?",
     "no restrictions"),
])
def test_eating_anything_is_ended_by_a_later_allergy(e5_mem: Memory, first: str, later: str,
                                                     ask: str, gone: str) -> None:
    from keyfacts_memory import ask_after
    hits = ask_after(e5_mem, [first, later], ask)
    assert not [h for h in hits if gone in h.unit.content and h.current], \
        [(h.unit.content, h.current) for h in hits]


@pytest.mark.parametrize("text", ["山水人家3幢402 账单以后寄这儿，别再寄东湖大郡了",
                                  "帳單以後寄公司，別再寄舊家了"])
def test_a_negation_of_sending_is_no_food(any_mem: Memory, text: str) -> None:
    say(any_mem, [text])
    assert not slot_units(any_mem, "food")


@pytest.mark.parametrize(("first", "later", "new"), [
    ("Hi, weekly laundry pickup - Monday 7-9am works for me",
     "my shift roster changed, can you move pickups to Wednesday evening 7-9pm?", "Wednesday"),
    ("Please deliver weekday mornings, I'm home till noon",
     "started part time work, can deliveries be Fridays only?", "Fridays"),
])
def test_pickups_and_asked_for_times_are_delivery_times(any_mem: Memory, first: str, later: str,
                                                        new: str) -> None:
    say(any_mem, [first, later])
    times = [u.content for u in slot_units(any_mem, "delivery_time")]
    assert len(times) == 1 and new in times[0], times


@pytest.mark.parametrize(("first", "later", "new"), [
    ("月結 email 係 sammi_lok@hotmail.com", "用 sammi.lok.hk@gmail.com", "sammi.lok.hk@gmail.com"),
    ("my email is sreyes1990@gmail.com",
     "hey can you change the email on my account to samreyes.lifts@proton.me the gmail one I "
     "barely check anymore", "samreyes.lifts@proton.me"),
])
def test_an_email_used_or_changed_to(any_mem: Memory, first: str, later: str, new: str) -> None:
    say(any_mem, [first, later])
    mails = [u.content for u in slot_units(any_mem, "email")]
    assert len(mails) == 1 and new in mails[0], mails


def test_how_to_reach_me_beside_the_address_is_a_channel(any_mem: Memory) -> None:
    say(any_mem, ["Contact me by email, wei.zhang.mel@gmail.com"])
    assert slot_units(any_mem, "email") and slot_units(any_mem, "contact_channel")


def test_collecting_from_an_address_states_it(any_mem: Memory) -> None:
    say(any_mem, ["My address is Block 231 Bishan St 23, #08-112",
                  "From this Sat please collect from Block 405 Ang Mo Kio Ave 10, #11-1458 instead."])
    addresses = [u.content for u in slot_units(any_mem, "address")]
    assert len(addresses) == 1 and "Ang Mo Kio" in addresses[0], addresses
