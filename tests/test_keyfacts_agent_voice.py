"""Questions in the agent's voice and terse keyword questions find their slot (issue #24). An
agent asking the memory about the person it belongs to says "the customer", "this client", "the
user", "该客户", "這位顧客" where the user says "my" / "我"; a few keywords with no question words
("phone?", "email addr?", "contact pref now", "邮箱？") ask for the user's own fact. Business
compounds ("customer service number", "客户端", "用户名") and customers in general ("other
customers", "其他用户") are no one's own. Sentences written for these tests, in Simplified
Chinese, Traditional Chinese and English; the Memory tests run on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from jiyi import Memory
from jiyi.keyfacts.schema import base_name
from jiyi.recall.rules import slot_intent
from keyfacts_memory import ask_after


@pytest.mark.parametrize(("query", "slot"), [
    ("What's this customer's preferred contact method?", "contact_channel"),
    ("how should we contact the client?", "contact_channel"),
    ("customer's phone?", "phone"),
    ("What's the user's current email", "email"),
    ("client name?", "name"),
    ("who's the account holder on your end?", "name"),
    ("where does the customer live now?", "address"),
    ("这位客户的电话是多少", "phone"),
    ("用户的邮箱", "email"),
    ("這位顧客的聯絡方式是什麼", "contact_channel"),
    ("該客戶的電話", "phone"),
    ("phone?", "phone"),
    ("email addr?", "email"),
    ("contact pref now", "contact_channel"),
    ("phone number on record now?", "phone"),
    ("which email is in the system for this account holder?", "email"),
    ("邮箱？", "email"),
    ("電話？", "phone"),
])
def test_agent_voice_and_terse_questions_are_the_users_own(query: str, slot: str) -> None:
    intent = slot_intent(query)
    # a role's name ("name:account") is the name slot asked for the account's holder
    assert intent is not None and intent.own and base_name(intent.slots[0]) == slot, intent


@pytest.mark.parametrize("query", [
    "what's the customer service number?",
    "the client's mother's phone?",
    "do other customers get free shipping?",
    "a user said the app crashes",
    "user guide email?",
    "customer service phone?",
    "客服邮箱？",
    "其他用户的电话",
    "客户端的邮箱设置在哪",
    "其他客戶的電話",
    "my sister's phone?",
    "recommend a phone",
    "推荐一款手机",
    "買手機",
])
def test_business_words_and_other_people_are_not_the_users_own(query: str) -> None:
    intent = slot_intent(query)
    assert intent is None or not intent.own, intent


@pytest.mark.parametrize(("turns", "ask", "new", "old"), [
    (["My email is tom@oldmail.com.", "New one: tom@newmail.com",
      "Your email newsletter about the email sale was funny."],
     "What's this customer's email?", "tom@newmail.com", "tom@oldmail.com"),
    (["Call me on 9123 4567.", "Got a new SIM, it's 8765 4321.",
      "The phone case for my phone came in blue, phone looks great."], "phone?", "8765 4321",
     "9123 4567"),
    (["我的邮箱是lin@old.cn", "换了，lin@new.cn", "你们的邮箱通知邮件太多了，邮箱都满了"],
     "这位客户的邮箱是什么", "lin@new.cn", "lin@old.cn"),
    (["我的電話是0912345678", "換號了，0987654321", "電話殼很好看，電話螢幕也沒刮傷"],
     "該客戶的電話", "0987654321", "0912345678"),
    (["我的邮箱是wu@old.cn", "换了，wu@new.cn", "你们的邮箱通知邮件太多了，邮箱都满了"],
     "邮箱？", "wu@new.cn", "wu@old.cn"),
])
def test_the_current_value_answers_the_agent(
        any_mem: Memory, turns: list[str], ask: str, new: str, old: str) -> None:
    hits = ask_after(any_mem, turns, ask)
    shown = [(h.unit.content, h.current) for h in hits]
    assert hits and new in hits[0].unit.content and hits[0].current, shown  # answered first
    assert not any(old in h.unit.content and h.current for h in hits), shown
