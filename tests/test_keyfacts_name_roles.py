"""Names that change: the user's own name changed, said any way ("my last name's changed, it's X
now", "我个名改咗做X", "身份證上嘅名係X"); the name on a thing, a role of its own (the recipient
of a parcel, the guest of a room, the person a booking is under, the account holder: the name
slot qualified by the role, ``name:recipient``), replaced only by a newer name for that role; a
name said in passing ("訂位人是黃小姐", "我是之前留言的劉先生", "Hey it's Bec") that is history once
another name is current. Look-alikes: someone else's name mentioned in passing ("我同事王强说…",
"my colleague Tom said…") is never the user's name, "I'm Sapphire now" is no name.

Every sentence here is written for these tests (not taken from any phrasing bank). Pure, except
the end-to-end cases (a real Memory on SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from jiyi import Hit, Memory
from jiyi.keyfacts.roles import asked_role, name_role
from jiyi.recall.rules import slot_intent
from jiyi.recall.slotvalues import same_person
from jiyi.write.pipeline import TurnInput, extract_turn
from keyfacts_memory import ask_after, slot_units

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)


def _names(turn: str) -> dict[str, str]:
    """The name slots a user's turn states: slot -> its unit's content."""
    drafts = extract_turn(TurnInput(turn, "user", T0, "s", "u", "t")).drafts
    return {d.slot: d.content for d in drafts
            if d.slot is not None and (d.slot == "name" or d.slot.startswith("name:"))}


# -- the user's own name changed, pure ---------------------------------------------------------

@pytest.mark.parametrize(("turn", "name"), [
    ("I got married so my last name changed, it's Hannah Oduya now.", "Hannah Oduya"),
    ("Name change: Olivia Brandt", "Olivia Brandt"),
    ("I changed my name by deed poll, please use Petra Lindqvist from now on.", "Petra Lindqvist"),
    ("My name on the passport is Aarav Kumar Mehta, kindly update", "Aarav Kumar Mehta"),
    ("please correct the name on the reservation, it's Anil Sharma Gupta as per my passport",
     "Anil Sharma Gupta"),
    ("我改名了，现在叫王思远", "王思远"),
    ("麻烦把我的名字更新成李振华", "李振华"),
    ("我的名字已經改為吳語彤，請幫我更新資料", "吳語彤"),
    ("身份證上嘅名係陳嘉欣，唔該改返", "陳嘉欣"),
    ("我個名改咗做陳曉晴", "陳曉晴"),
    ("我而家叫何家欣", "何家欣"),
])
def test_own_name_changed_is_typed(turn: str, name: str) -> None:
    names = _names(turn)
    assert set(names) == {"name"}, names
    assert name in names["name"]


@pytest.mark.parametrize("turn", [
    "I'm Sapphire now",                                  # a level, not a name
    "it's Snapchat now",                                 # a channel
    "I got married last month, the cake was lovely",     # no name said
])
def test_no_name_in_look_alikes(turn: str) -> None:
    assert _names(turn) == {}


def test_a_renamed_name_is_no_membership_level() -> None:
    drafts = extract_turn(TurnInput("my last name's changed, it's Jennifer Oyelaran now", "user",
                                    T0, "s", "u", "t")).drafts
    assert not any(d.slot == "membership" for d in drafts)


# -- the name on a thing, pure -----------------------------------------------------------------

@pytest.mark.parametrize(("turn", "slot", "name"), [
    ("收件人改成我先生李大伟", "name:recipient", "李大伟"),
    ("收件人改一下，写我老婆的名字刘丽娟", "name:recipient", "刘丽娟"),
    ("寄给我妹妹张小雨", "name:recipient", "张小雨"),
    ("入住人换成我同事赵敏", "name:guest", "赵敏"),
    ("訂位人是黃小姐，黃詩涵，四位", "name:booking", "黃詩涵"),
    ("訂位改我同事的名字，蔡佩君，她會先到", "name:booking", "蔡佩君"),
    ("帳號以後由我女兒管理，名字改成劉怡君", "name:account", "劉怡君"),
    ("收件人寫我老公的名字，陳大文", "name:recipient", "陳大文"),
    ("the parcel is addressed to my roommate, Mark Chen", "name:recipient", "Mark Chen"),
    ("Please send it to my sister Emma Jones", "name:recipient", "Emma Jones"),
    ("the account is under my mom's name, Sandra Cho", "name:account", "Sandra Cho"),
    ("book the table under my boss's name, Mr. Alan Wu", "name:booking", "Alan Wu"),
    ("Change the recipient to my husband, Lucas Martin.", "name:recipient", "Lucas Martin"),
])
def test_a_name_for_a_role_is_the_roles(turn: str, slot: str, name: str) -> None:
    names = _names(turn)
    assert slot in names and name in names[slot], names
    assert "name" not in names  # not the user's own name


@pytest.mark.parametrize("turn", [
    # the user's own name on a thing: no one else named, so it is the user's
    "the account is in the name of Declan Hughes",
    "please correct the name on the booking, it is Ravi Shankar Iyer as per my ID",
])
def test_own_name_on_a_thing_stays_own(turn: str) -> None:
    assert set(_names(turn)) == {"name"}


@pytest.mark.parametrize("turn", [
    "my colleague Tom Baker said the delivery was late",
    "我同事王强说快递还没到",
    "我同事王強話包裹未到",
])
def test_someone_named_in_passing_is_no_name(turn: str) -> None:
    assert _names(turn) == {}


@pytest.mark.parametrize(("lead", "role"), [
    ("收件人改成我先生", "recipient"), ("the recipient is ", "recipient"),
    ("入住人換成", "guest"), ("訂位改我同事的名字，", "booking"),
    ("the account is under my mom's name, ", "account"),
    ("correct the name on the booking, it is ", None), ("I'm ", None), ("我是", None),
])
def test_name_role(lead: str, role: str | None) -> None:
    assert name_role(lead) == role


@pytest.mark.parametrize(("question", "role"), [
    ("收件人姓名", "recipient"), ("入住人是谁", "guest"), ("訂位姓名", "booking"),
    ("帳號持有人", "account"), ("name for the parcel?", "recipient"),
    ("who's the account holder?", "account"), ("guest name?", "guest"),
    ("我叫什么名字", None), ("what is my name?", None), ("full name on file?", None),
])
def test_asked_role(question: str, role: str | None) -> None:
    assert asked_role(question) == role


def test_a_role_question_asks_the_role_then_the_own_name() -> None:
    intent = slot_intent("入住人是谁")
    assert intent is not None and intent.slots[:2] == ("name:guest", "name")
    intent = slot_intent("what's my name?")
    assert intent is not None and intent.slots == ("name",)
    assert slot_intent("包裹到哪了") is None or "name" not in slot_intent("包裹到哪了").slots  # type: ignore[union-attr]


@pytest.mark.parametrize(("name", "current", "same"), [
    ("jennifer", frozenset({"jennifer morales"}), True),
    ("jennifer walsh", frozenset({"jennifer morales"}), False),
    ("suresh kumar", frozenset({"suresh kumar reddy"}), False),
    ("诗涵", frozenset({"黄诗涵"}), True),
    ("刘先生", frozenset({"刘怡君"}), False),
    ("刘怡君", frozenset({"刘怡君"}), True),
])
def test_same_person(name: str, current: frozenset[str], same: bool) -> None:
    assert same_person(name, current) is same


# -- end to end: a real Memory on both backends ------------------------------------------------

def _shown(hits: list[Hit], text: str) -> list[Hit]:
    return [h for h in hits if text.casefold() in h.unit.content.casefold()]


def _current_and_old_not(hits: list[Hit], new: str, old: str) -> None:
    assert any(h.current for h in _shown(hits, new)), [(h.current, h.unit.content) for h in hits]
    assert not any(h.current for h in _shown(hits, old) if not _shown([h], new)), \
        [(h.current, h.unit.content) for h in hits]


@pytest.mark.parametrize(("turns", "question", "new", "old"), [
    (["收件人写的是赵丽华，别搞错", "收件人换成我妈妈孙秀英吧，我不在家"], "收件人是谁", "孙秀英", "赵丽华"),
    (["我是王大力，包裹寄给我", "包裹收件人改成我同事刘芳"], "收件人叫什么", "刘芳", "王大力"),
    (["訂位人是陳先生，陳志偉，六位", "訂位人改成我太太林美君"], "訂位人姓名", "林美君", "陳志偉"),
    (["入住人寫的是黃俊傑", "入住人幫我改成我同事許雅琪"], "入住人是誰", "許雅琪", "黃俊傑"),
    (["Hi it's Nadia, where's my parcel?",
      "Please address the parcel to my neighbour, Omar Farouk, he'll be in"],
     "who is the parcel for?", "Omar Farouk", "Nadia"),
    (["The recipient is Chloe Martin.", "Change the recipient to my husband, Lucas Martin."],
     "recipient name?", "Lucas Martin", "Chloe Martin"),
])
def test_a_roles_newest_name_is_current(any_mem: Memory, turns: list[str], question: str,
                                        new: str, old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    _current_and_old_not(hits, new, old)


@pytest.mark.parametrize(("turns", "question", "new", "old"), [
    (["Hi, this is Laura Bennett, checking on my refund.",
      "Quick update: I got married, my last name's changed, it's Laura Okafor now."],
     "what name do you have for me?", "Laura Okafor", "Laura Bennett"),
    (["你好，我叫张美玲，想问下退款", "我已经改名了，新名字叫张若溪"], "我叫什么名字", "张若溪", "张美玲"),
    (["您好，我係陳嘉欣，想查下單", "我改咗名，而家叫陳曉晴"], "我個名係咩", "陳曉晴", "陳嘉欣"),
    (["我是之前留言的劉先生，劉建國，熱水器還是不熱", "我的名字已經改為劉振宇，請更新"], "客戶姓名",
     "劉振宇", "劉建國"),
])
def test_own_name_changed_end_to_end(any_mem: Memory, turns: list[str], question: str,
                                     new: str, old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    _current_and_old_not(hits, new, old)


def test_a_role_never_named_answers_with_the_own_name(any_mem: Memory) -> None:
    hits = ask_after(any_mem, ["我叫周文静，订单到哪了"], "收件人姓名")
    assert any(h.current for h in _shown(hits, "周文静"))


def test_the_own_name_is_no_roles_name_once_the_role_has_one(any_mem: Memory) -> None:
    hits = ask_after(any_mem, ["Hi, Priya Raman here, order 4471.",
                               "the parcel is addressed to my flatmate, Joel Mensah"],
                     "name for the parcel?")
    assert any(h.current for h in _shown(hits, "Joel Mensah"))
    assert not any(h.current for h in _shown(hits, "Priya Raman"))


@pytest.mark.parametrize(("turns", "question", "own", "other"), [
    (["Hi, I'm Rachel Greenberg.", "My colleague Tom Baker said the delivery was late."],
     "what's my name?", "Rachel Greenberg", "Tom Baker"),
    (["我是周文静", "我同事王强说快递还没到"], "我叫什么", "周文静", "王强"),
    (["我係何嘉欣", "我同事陳大文話個包裹未到"], "我叫咩名", "何嘉欣", "陳大文"),
])
def test_someone_else_in_passing_leaves_the_own_name(any_mem: Memory, turns: list[str],
                                                     question: str, own: str,
                                                     other: str) -> None:
    hits = ask_after(any_mem, turns, question)
    assert any(h.current for h in _shown(hits, own))
    units = slot_units(any_mem, "name")
    assert units and all(other not in u.content for u in units)


# -- more ways of saying and asking a name -----------------------------------------------------

@pytest.mark.parametrize(("turn", "name"), [
    ("Hello, my names are Wanjiru Kamau", "Wanjiru Kamau"),
    ("Good morning, Rahul Verma this side, my order is delayed", "Rahul Verma"),
    ("我姓王，王丽，订单一直没到", "王丽"),
    ("敝姓黃，黃大明", "黃大明"),
    ("我個名已經改咗，新名係黃梓軒", "黃梓軒"),
    ("I've gone back to my maiden name, Siobhan Kelly.", "Siobhan Kelly"),
    ("Mate, it's actually Michael Thompson on my licence, can you fix that up?", "Michael Thompson"),
    ("I'm after getting married so it's Aoife Walsh now", "Aoife Walsh"),
])
def test_more_ways_of_saying_the_own_name(turn: str, name: str) -> None:
    names = _names(turn)
    assert set(names) == {"name"} and name in names["name"], names


@pytest.mark.parametrize("turn", [
    "姓陈，陈皮的陈",          # how the surname is written, no given name
    "她叫我等一下",            # no name after 叫
])
def test_no_full_name_in_look_alikes(turn: str) -> None:
    names = _names(turn)
    assert all(len(v) and "陈皮" not in v for v in names.values())


def test_a_name_said_of_the_person_just_named() -> None:
    names = _names("帳戶轉到我太太名下，她叫林美玲")
    assert "name:account" in names and "林美玲" in names["name:account"]


@pytest.mark.parametrize("question", [
    "Name?", "the name pls", "點稱呼你", "客人姓咩", "how should we address the customer?",
    "what's the customer called?", "who will be checking in?", "寄俾邊個",
])
def test_more_ways_of_asking_a_name(question: str) -> None:
    intent = slot_intent(question)
    assert intent is not None and "name" in intent.slots


@pytest.mark.parametrize("question", [
    "When do you usually deliver to me again?",   # a time, asked with a verb of sending
    "what is my address?", "name of the product?", "shop name?",
])
def test_no_name_question_in_look_alikes(question: str) -> None:
    intent = slot_intent(question)
    assert intent is None or "name" not in intent.slots


@pytest.mark.parametrize(("turns", "question", "new", "old"), [
    # the change in another sentence of the turn than the name
    (["Hi, Laura Bennett here, checking on my refund.",
      "Just got married! Please update: Laura Okafor"],
     "what name do you have for me?", "Laura Okafor", "Laura Bennett"),
    (["Dear team, Regards, Daniel Cho", "Please note I now use the name Danielle Cho."],
     "Name?", "Danielle Cho", "Daniel Cho"),
    (["hi im kevin lee, my parcel is missing",
      "actually pls put my name as Kevin Li, that's how it is on my ID"],
     "what's my name?", "Kevin Li", "kevin lee"),
    (["你好，我叫陈晓雯，想问个事", "跟你说一下，我结婚后改名了。以后请叫我陈若琳"], "客户叫什么名字",
     "陈若琳", "陈晓雯"),
    (["我係黃志強，部機壞咗", "我個名已經改咗，新名係黃梓軒"], "我叫咩名", "黃梓軒", "黃志強"),
])
def test_a_newer_name_however_said_replaces_the_old(any_mem: Memory, turns: list[str],
                                                    question: str, new: str, old: str) -> None:
    hits = ask_after(any_mem, turns, question)
    _current_and_old_not(hits, new, old)


def test_a_place_sent_to_after_a_role_name_leaves_it_current(any_mem: Memory) -> None:
    """A street after "send it to" is no person: the recipient's name stays current."""
    hits = ask_after(any_mem, ["Please address the parcel to my neighbour, Omar Farouk",
                               "It's a present for myself haha, so just send it to 2750 "
                               "Lakeshore Drive, Chicago, IL 60614"],
                     "Who will the delivery be addressed to?")
    assert any(h.current for h in _shown(hits, "Omar Farouk"))
