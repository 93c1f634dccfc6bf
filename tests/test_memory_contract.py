"""``Memory`` behaves the same on every backend: ingest, recall, feedback, forget, gc.

``any_mem`` (tests/conftest.py) is a Memory over SQLite and over a real PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.errors import MissingSessionError, NotFoundError, ValidationError

T0 = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)


def contents(hits: list[object]) -> list[str]:
    return [h.unit.content for h in hits]  # type: ignore[attr-defined]


def test_ingest_then_recall_in_three_scripts(any_mem: Memory) -> None:
    any_mem.ingest("我的订单号是 ZX20260601，明天下午送到", session_id="s1", user_id="alice", at=T0)
    any_mem.ingest("我的電話號碼是 13912345678", session_id="s1", user_id="alice", at=T0)
    any_mem.ingest("I am allergic to peanuts", session_id="s1", user_id="alice", at=T0)
    later = T0 + timedelta(minutes=5)
    zh = any_mem.recall("订单号是多少", session_id="s1", user_id="alice", as_of=later, k=1)
    assert "ZX20260601" in zh[0].unit.content
    hant = any_mem.recall("電話", session_id="s1", user_id="alice", as_of=later, k=1)
    assert "13912345678" in hant[0].unit.content
    en = any_mem.recall("peanuts allergy", session_id="s1", user_id="alice", as_of=later, k=1)
    assert "peanuts" in en[0].unit.content
    exact = any_mem.recall("ZX20260601", session_id="s1", user_id="alice", as_of=later, k=3)
    assert "ZX20260601" in exact[0].unit.content and exact[0].stage == "rule"


def test_users_never_see_each_other(any_mem: Memory) -> None:
    any_mem.ingest("我的邮箱是 alice@example.com", session_id="s", user_id="alice", at=T0)
    any_mem.ingest("My email is bob@example.org", session_id="s", user_id="bob", at=T0)
    for query in ("邮箱", "email", "alice@example.com", "bob@example.org"):
        for user, own in (("alice", "alice@"), ("bob", "bob@")):
            hits = any_mem.recall(query, session_id="s", user_id=user, as_of=T0, k=5)
            assert all(h.unit.user_id == user for h in hits)
            assert all(own in h.unit.content for h in hits)
    with pytest.raises(MissingSessionError):
        any_mem.recall("email", session_id=None, user_id="bob")


def test_repeat_updates_instead_of_duplicating(any_mem: Memory) -> None:
    first = any_mem.ingest("我喜欢喝乌龙茶", session_id="s", user_id="u", at=T0)
    again = any_mem.ingest("我喜欢喝乌龙茶", session_id="s", user_id="u",
                           at=T0 + timedelta(hours=1))
    assert [u.id for u in first] == [u.id for u in again]
    assert any_mem.store.stats().units_total == len(first)
    assert len(any_mem.store.unit_turn_keys(first[0].id)) == 2


def test_feedback_forget_as_of_and_gc(any_mem: Memory) -> None:
    units = any_mem.ingest("The meeting room is B-204", session_id="s", user_id="u", at=T0)
    uid = units[0].id
    hits = any_mem.recall("meeting room", session_id="s", user_id="u", as_of=T0, k=3)
    assert hits and hits[0].unit.id == uid
    boosted = any_mem.feedback(uid, "used")
    assert boosted.relevance_score > units[0].relevance_score
    assert any_mem.store.recall_hit_rate(None) == (1, 1)
    with pytest.raises(ValidationError):
        any_mem.feedback(uid, "loved")
    with pytest.raises(NotFoundError):
        any_mem.feedback("m_nope", "used")
    forgotten = any_mem.forget(uid, "moved to another room", at=T0 + timedelta(hours=1))
    assert forgotten.invalidated_at == T0 + timedelta(hours=1)
    before = any_mem.recall("meeting room", session_id="s", user_id="u",
                            as_of=T0 + timedelta(minutes=30), k=3)
    after = any_mem.recall("meeting room", session_id="s", user_id="u",
                           as_of=T0 + timedelta(hours=2), k=3)
    assert uid in [h.unit.id for h in before]
    assert uid not in [h.unit.id for h in after]
    history = any_mem.history(uid)
    assert [t.text for t in history.turns] == ["The meeting room is B-204"]
    assert "invalidated" in [e.event for e in history.events]
    any_mem.clock = lambda: T0 + timedelta(days=400)
    assert any_mem.gc(30) >= 1
    with pytest.raises(NotFoundError):
        any_mem.get(uid)
