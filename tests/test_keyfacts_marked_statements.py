"""A declarative typed with question marks states (issue #24): "my number is 0412 555 111???",
"我的新号码是13912345678？？" say what the speaker holds, unsure or insistent; a question is made by
its words (a question word, an auxiliary before its subject, 吗/呢, an alternative), and such a
sentence, with none of them, replaces the value it names like any statement. Sentences written
for these tests, in Simplified Chinese, Traditional Chinese and English; the Memory tests run on
SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from jiyi import Memory
from jiyi.keyfacts.asking import asks, declared_with_mark
from keyfacts_memory import ask_after, say, slot_units


@pytest.mark.parametrize("text", [
    "my number is 0412 555 111???",
    "It's tom@newmail.com?",
    "Sorry, my email is kai.l@example.org?",
    "My new address is 5 Hill St, Perth WA 6000?",
    "我的新号码是13912345678？？",
    "我嘅新電話係98765432？",
    "我現在的郵箱是mei@example.tw？",
])
def test_a_declarative_with_question_marks_states(text: str) -> None:
    assert declared_with_mark(text)
    assert not asks(text)


@pytest.mark.parametrize("text", [
    "is my number 0412 555 111?",
    "what is my number?",
    "my tier is Gold or Silver?",
    "I wonder where my parcel is?",
    "I was wondering if you ship to Perth?",
    "I moved, is the address updated?",
    "you have my number as 0412 555 111?",
    "我的号码是13912345678吗？",
    "我是金卡还是银卡？",
    "我該怎麼改地址？",
    "我想问运费多少？",
])
def test_a_question_made_by_its_words_still_asks(text: str) -> None:
    assert not declared_with_mark(text)
    assert asks(text)


@pytest.mark.parametrize(("turns", "old", "new"), [
    (["Call me on 9123 4567.", "my number is 8765 4321???"], "91234567", "87654321"),
    (["我的手机号是13800138000", "我的新号码是13912345678？？"], "13800138000", "13912345678"),
    (["我的電話是0912345678", "我現在的電話是0987654321？"], "0912345678", "0987654321"),
])
def test_a_phone_said_with_question_marks_replaces_the_old(
        any_mem: Memory, turns: list[str], old: str, new: str) -> None:
    say(any_mem, turns)
    held = ["".join(c for c in u.content if c.isdigit()) for u in slot_units(any_mem, "phone")]
    assert any(new in h for h in held), held
    assert not any(old in h for h in held), held


@pytest.mark.parametrize(("turns", "ask", "old", "new"), [
    (["My email is tom@oldmail.com.", "Sorry, it's tom@newmail.com???"], "what's my email?",
     "tom@oldmail.com", "tom@newmail.com"),
    (["我的邮箱是lin@old.cn", "我的邮箱是lin@new.cn？？"], "我的邮箱是什么", "lin@old.cn",
     "lin@new.cn"),
    (["我的郵箱是chen@old.tw", "我現在的郵箱是chen@new.tw？"], "我的郵箱是什麼", "chen@old.tw",
     "chen@new.tw"),
])
def test_an_email_said_with_question_marks_is_current(
        any_mem: Memory, turns: list[str], ask: str, old: str, new: str) -> None:
    hits = ask_after(any_mem, turns, ask)
    assert any(new in h.unit.content and h.current for h in hits), \
        [(h.unit.content, h.current) for h in hits]
    assert not any(old in h.unit.content and h.current for h in hits), \
        [(h.unit.content, h.current) for h in hits]


@pytest.mark.parametrize("turns", [
    ["Call me on 9123 4567.", "is my number 8765 4321?"],
    ["我的手机号是13800138000", "我的号码是13912345678吗？"],
    ["我的電話是0912345678", "我的電話是0987654321還是0912345678？"],
])
def test_a_question_about_a_number_replaces_nothing(any_mem: Memory, turns: list[str]) -> None:
    say(any_mem, turns)
    held = ["".join(c for c in u.content if c.isdigit()) for u in slot_units(any_mem, "phone")]
    first = "".join(c for c in turns[0] if c.isdigit())
    assert any(first in h for h in held), held
