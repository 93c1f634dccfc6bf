"""The Python contract of api-contract.md, in Chinese and English, and its bad-input answers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import jiyi
from jiyi import Hit, Memory, MemoryType, MemoryUnit
from jiyi.errors import MissingSessionError, NotFoundError, ValidationError

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def test_public_surface_matches_the_contract() -> None:
    for name in ("Memory", "MemoryUnit", "MemoryType", "Hit"):
        assert name in jiyi.__all__
        assert hasattr(jiyi, name)
    assert set(jiyi.__all__) <= set(dir(jiyi))
    assert {t.value for t in MemoryType} == {
        "user_profile", "session_state", "tool_result", "fact_reference", "batch_operation"}


def test_ingest_and_recall_zh(mem: Memory) -> None:
    units = mem.ingest("我叫张伟，订单号是 ABC123", session_id="s-42", user_id="u-7", role="user",
                       at=T0, turn_id="D1:3")
    assert units and all(isinstance(u, MemoryUnit) for u in units)
    u = units[0]
    assert u.source_turn_ids == ["D1:3"] and u.session_id == "s-42" and u.user_id == "u-7"
    assert u.lifespan.created_at == T0 and u.lifespan.relevance_score == 1.0
    hits = mem.recall("我的订单号是多少？", session_id="s-42", user_id="u-7", k=5,
                      as_of=T0 + timedelta(minutes=1))
    assert hits and isinstance(hits[0], Hit)
    assert "ABC123" in hits[0].unit.content
    assert hits[0].stage in {"rule", "semantic", "keyword", "vector", "slot"}
    assert hits == sorted(hits, key=lambda h: -h.score)


def test_ingest_and_recall_en_and_traditional(mem: Memory) -> None:
    mem.ingest("My order number is XK-99812 and it has not arrived", session_id="s", at=T0)
    mem.ingest("我的會員等級是黃金會員", session_id="s", at=T0)
    later = T0 + timedelta(minutes=5)
    assert any("XK-99812" in h.unit.content
               for h in mem.recall("what is my order number?", session_id="s", as_of=later))
    assert any("會員" in h.unit.content
               for h in mem.recall("我的会员等级", session_id="s", as_of=later))


def test_user_id_defaults_to_session(mem: Memory) -> None:
    units = mem.ingest("hello there, my name is Li Na", session_id="only-session", at=T0)
    assert units and units[0].user_id == "only-session"


def test_feedback_changes_relevance_within_bounds(mem: Memory) -> None:
    unit = mem.ingest("The firmware version is 3.2.1", session_id="s", at=T0)[0]
    assert mem.feedback(unit.id, "used").relevance_score == pytest.approx(1.1)
    for _ in range(12):
        mem.feedback(unit.id, "used")
    assert mem.get(unit.id).relevance_score == 2.0
    with pytest.raises(ValidationError):
        mem.feedback(unit.id, "meh")
    with pytest.raises(NotFoundError):
        mem.feedback("m_nope", "used")


def test_expired_units_come_back_as_history_never_as_current(mem: Memory) -> None:
    unit = mem.ingest("The router shows error E1042", session_id="s", role="assistant", at=T0)[0]
    lifespan = unit.lifespan.expires_in
    after = T0 + timedelta(seconds=lifespan + 1)
    old = [h for h in mem.recall("router error E1042", session_id="s", as_of=after)
           if h.unit.id == unit.id]
    assert old and old[0].status == "expired" and not old[0].current
    assert old[0].to_public_dict()["current"] is False
    assert old[0].to_public_dict()["date"].startswith(T0.date().isoformat())
    assert mem.get(unit.id).content == unit.content  # kept
    fresh = mem.recall("router error E1042", session_id="s", as_of=T0 + timedelta(seconds=5))
    assert fresh and fresh[0].unit.id == unit.id and fresh[0].current


def test_forget_invalidates_with_a_reason(mem: Memory) -> None:
    unit = mem.ingest("My locker code is 4471", session_id="s", at=T0)[0]
    gone = mem.forget(unit.id, "user asked to forget", at=T0 + timedelta(minutes=1))
    assert gone.invalidated_at == T0 + timedelta(minutes=1)
    assert not mem.recall("locker code", session_id="s", as_of=T0 + timedelta(minutes=2))
    # still true for a question about the past
    assert mem.recall("locker code", session_id="s", as_of=T0 + timedelta(seconds=30))
    events = [e.event for e in mem.history(unit.id).events]
    assert "invalidated" in events


def test_gc_purges_only_long_expired(mem: Memory) -> None:
    mem.ingest("temporary state of the cart", session_id="s", role="assistant",
               at=datetime.now(UTC) - timedelta(days=90))
    keep = mem.ingest("current state of the cart", session_id="s", role="assistant")
    assert mem.gc(retention_days=30) >= 1
    assert mem.get(keep[0].id)
    with pytest.raises(ValidationError):
        mem.gc(retention_days=-1)


@pytest.mark.parametrize("sid", [None, "", "   ", 42, "\x00bad"])
def test_missing_or_blank_session_is_an_error(mem: Memory, sid: object) -> None:
    with pytest.raises(MissingSessionError):
        mem.ingest("hi, my name is Bob", session_id=sid)
    with pytest.raises(MissingSessionError):
        mem.recall("name", session_id=sid)
    assert isinstance(MissingSessionError("x"), ValueError)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        (b"\xff\xfe broken", "UTF-8"),
        ("lone \ud800 surrogate", "surrogate"),
        (12345, "string"),
        ("字" * 400_000, "limit"),
    ],
)
def test_bad_text_is_refused_and_nothing_is_written(mem: Memory, text: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        mem.ingest(text, session_id="s")
    s = mem.store.stats()
    assert (s.units_total, s.turns) == (0, 0)


def test_valid_utf8_bytes_are_accepted(mem: Memory) -> None:
    assert mem.ingest("我的邮箱是 li@example.com".encode(), session_id="s")


@pytest.mark.parametrize("k", [0, -1, 10**9, 2.5, True, "5"])
def test_bad_k(mem: Memory, k: object) -> None:
    with pytest.raises(ValidationError, match="k must"):
        mem.recall("x", session_id="s", k=k)


def test_bad_role_and_time(mem: Memory) -> None:
    with pytest.raises(ValidationError, match="role"):
        mem.ingest("x y z", session_id="s", role="robot")
    with pytest.raises(ValidationError):
        mem.ingest("x y z", session_id="s", at="not a time")
    with pytest.raises(ValidationError):
        mem.recall("x", session_id="s", as_of=1234)


def test_naive_and_offset_times_are_utc(mem: Memory) -> None:
    u1 = mem.ingest("My cat is called Miso", session_id="s", at=datetime(2026, 5, 1, 9, 0))[0]
    assert u1.created_at == T0
    u2 = mem.ingest("我的狗叫旺财", session_id="s", at="2026-05-01T17:00:00+08:00")[0]
    assert u2.created_at == T0


@pytest.mark.parametrize(
    "query",
    ['"', "*", "NEAR(订单 ABC123)", "OR", "ABC123 OR 1=1", "'; DROP TABLE units; --",
     "订单\" OR \"", "a*b*c", "😀😀"],
)
def test_hostile_queries_give_results_or_nothing_never_corruption(mem: Memory, query: str) -> None:
    mem.ingest("订单号 ABC123 已发货", session_id="s", at=T0)
    hits = mem.recall(query, session_id="s", as_of=T0 + timedelta(minutes=1))
    assert all(h.unit.user_id == "s" for h in hits)
    assert mem.store.stats().units_total >= 1
    assert mem.recall("ABC123", session_id="s", as_of=T0 + timedelta(minutes=1))


def test_user_level_units_cross_sessions_but_not_users(mem: Memory) -> None:
    units = mem.ingest("我叫王芳", session_id="s1", user_id="alice", at=T0)
    shared = [u for u in units if u.type in (MemoryType.USER_PROFILE, MemoryType.FACT_REFERENCE)]
    assert shared, "a name is a user-level fact"
    later = T0 + timedelta(minutes=1)
    assert any("王芳" in h.unit.content
               for h in mem.recall("我叫什么名字", session_id="s2", user_id="alice", as_of=later))
    assert not any("王芳" in h.unit.content
                   for h in mem.recall("我叫什么名字", session_id="s1", user_id="bob", as_of=later))


def test_another_sessions_state_is_found_but_ranks_below_this_sessions(mem: Memory) -> None:
    """What was said in another session of the same user is still evidence (the episodic
    layer); the current session's unit of the same text ranks first; never another user's."""
    there = mem.ingest("正在为您查询物流信息", session_id="s1", user_id="alice", role="assistant",
                       at=T0)[0]
    later = T0 + timedelta(minutes=1)
    hits = mem.recall("查询物流信息", session_id="s2", user_id="alice", as_of=later)
    assert [h.unit.id for h in hits] == [there.id]
    here = mem.ingest("正在为您查询物流信息。", session_id="s2", user_id="alice",
                      role="assistant", at=later)[0]
    hits = mem.recall("查询物流信息", session_id="s2", user_id="alice", as_of=later)
    assert [h.unit.id for h in hits][:2] == [here.id, there.id]
    assert not mem.recall("查询物流信息", session_id="s2", user_id="bob", as_of=later)


def test_history_shows_provenance(mem: Memory) -> None:
    unit = mem.ingest("My email is li@example.com", session_id="s", at=T0, turn_id="D9:1")[0]
    h = mem.history(unit.id)
    assert [t.turn_id for t in h.turns] == ["D9:1"]
    assert "li@example.com" in h.turns[0].text
    assert next(e.event for e in h.events) == "created"


def test_repeated_fact_updates_instead_of_duplicating(mem: Memory) -> None:
    a = mem.ingest("My email is li@example.com", session_id="s", at=T0, turn_id="a")
    b = mem.ingest("My email is li@example.com", session_id="s", at=T0 + timedelta(hours=1),
                   turn_id="b")
    assert a[0].id == b[0].id
    assert mem.get(a[0].id).source_turn_ids == ["a", "b"]
    assert mem.store.stats().units_total == len(a)
