"""Nothing forgotten: what was said stays findable. Expiry, sessions and
supersession change how a memory ranks and how it is labelled, never whether it can be found;
never another user's. Real stores (SQLite and PostgreSQL), real ingest through the write path."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory
from jiyi.store import Scope

NOW = datetime(2026, 5, 20, 9, 0, tzinfo=UTC)

#: (last week's turn, this week's question) in zh-Hans, zh-Hant, en: said as plain chat, so the
#: write path types them session_state or fact_reference with short or long lifespans alike.
LAST_WEEK = [
    ("我表哥的婚礼在杭州西湖边的酒店办的，下午还下了雨", "我表哥的婚礼是在哪里办的？"),
    ("我表哥的婚禮在杭州西湖邊的酒店辦的，下午還下了雨", "我表哥的婚禮是在哪裡辦的？"),
    ("My cousin's wedding was at a hotel by the lake in Hangzhou, it rained all afternoon",
     "where was my cousin's wedding?"),
]


def _filler(mem: Memory, user: str, at: datetime) -> None:
    lines = ["今天天气不错", "我在看一本关于园艺的书", "周末打算去爬山", "The printer needs toner",
             "I had noodles for lunch", "明天要交报告", "我們去了夜市吃東西", "The bus was late again"]
    for i, line in enumerate(lines):
        mem.ingest(line, session_id=f"{user}-old-{i}", user_id=user, at=at + timedelta(hours=i))


@pytest.mark.parametrize(("said", "asked"), LAST_WEEK)
def test_last_weeks_turn_is_found_from_a_new_session(store_url: str, said: str,
                                                      asked: str) -> None:
    with Memory.open(store_url, embedder="fake") as mem:
        week_ago = NOW - timedelta(days=7)
        _filler(mem, "u1", week_ago - timedelta(days=1))
        mem.ingest(said, session_id="last-week", user_id="u1", at=week_ago, turn_id="w1")
        mem.ingest(said, session_id="s-other-user", user_id="u2", at=week_ago, turn_id="x1")
        hits = mem.recall(asked, session_id="today", user_id="u1", k=3, as_of=NOW)
        assert hits and "w1" in hits[0].unit.source_turn_ids
        assert all(h.unit.user_id == "u1" for h in hits)
        assert hits[0].to_public_dict()["date"].startswith(week_ago.date().isoformat())


def test_a_fourteen_month_old_import_comes_back_as_history(store_url: str) -> None:
    """Last year's chat imported with its own timestamps: everything is past its lifespan, yet
    recall finds it, labelled history with its date; health() and export leave it in place."""
    long_ago = NOW - timedelta(days=426)
    turns = ["我的订单号是 ABC123，买的是空气净化器", "我們家的貓叫湯圓，今年三歲",
             "I'm allergic to peanuts, please remember that"]
    with Memory.open(store_url, embedder="fake") as mem:
        for i, text in enumerate(turns):
            mem.ingest(text, session_id="import", user_id="u1", at=long_ago + timedelta(minutes=i))
        total = mem.store.stats(user_id="u1").units_total
        for query, needle in (("空气净化器的订单号", "ABC123"), ("我家的猫叫什么", "湯圓"),
                              ("what am I allergic to", "peanuts")):
            hits = mem.recall(query, session_id="new", user_id="u1", k=3, as_of=NOW)
            top = next(h for h in hits if needle in h.unit.content)
            assert not top.current and top.status == "expired"
            assert top.date.date() == long_ago.date()
        mem.health()
        assert mem.store.stats(user_id="u1").units_total == total
        assert len(mem.export_user("u1")["units"]) == total


def test_a_replaced_value_is_never_current_and_only_for_the_past(store_url: str) -> None:
    with Memory.open(store_url, embedder="fake") as mem:
        mem.ingest("我的手机号是13800001111", session_id="s1", user_id="u1", at=NOW - timedelta(days=30))
        mem.ingest("我换号了，新号是13999992222", session_id="s2", user_id="u1",
                   at=NOW - timedelta(days=3))
        now = mem.recall("我的手机号是多少？", session_id="s3", user_id="u1", k=5, as_of=NOW)
        assert now and "13999992222" in now[0].unit.content and now[0].current
        assert not any("13800001111" in h.unit.content for h in now)
        past = mem.recall("我以前的手机号是多少？", session_id="s3", user_id="u1", k=5, as_of=NOW)
        old = [h for h in past if "13800001111" in h.unit.content]
        assert old and all(not h.current and h.status == "superseded" for h in old)
        before = mem.recall("我的手机号是多少？", session_id="s3", user_id="u1", k=5,
                            as_of=NOW - timedelta(days=10))
        assert before and "13800001111" in before[0].unit.content and before[0].current


def test_a_forgotten_unit_never_comes_back(store_url: str) -> None:
    with Memory.open(store_url, embedder="fake") as mem:
        unit = mem.ingest("My locker code is 4471", session_id="s", user_id="u1", at=NOW)[0]
        mem.forget(unit.id, "user asked", at=NOW + timedelta(minutes=1))
        later = NOW + timedelta(days=400)
        for q in ("locker code", "what was my old locker code"):
            assert unit.id not in [h.unit.id for h in mem.recall(
                q, session_id="s2", user_id="u1", as_of=later)]


def test_turn_vectors_and_order_in_the_store(store_url: str) -> None:
    """The episodic layer's store contract: one vector per turn (reindex fills gaps), searched
    per user with the score scale, units per turn, next turn by ingestion order."""
    with Memory.open(store_url, embedder="fake") as mem:
        for i, text in enumerate(["第一句：我们去了海边", "second: we swam", "第三句：晚上吃了海鲜"]):
            mem.ingest(text, session_id="s", user_id="u1", at=NOW, turn_id=f"t{i}")
        mem.ingest("第一句：我们去了海边", session_id="s", user_id="u2", at=NOW, turn_id="o")
        store = mem.store
        assert store.count_turns_missing_vectors(mem.embedder.name) == 0
        found = store.turn_vector_search("u1", NOW, mem.embedder.name,
                                         mem.embedder.embed_query("海边"), 10)
        assert found.n == 3 and len(found.hits) == 3 and found.std > 0
        keys = [k for k, _ in found.hits]
        turns = {t.key: t for t in store.get_turns(keys)}
        assert {t.user_id for t in turns.values()} == {"u1"}
        assert turns[keys[0]].turn_id == "t0"
        assert not store.turn_vector_search("u1", NOW - timedelta(seconds=1), mem.embedder.name,
                                            mem.embedder.embed_query("海边"), 10).hits
        units = store.turn_units(keys)
        assert all(units[k] for k in keys)
        by_id = {t.turn_id: t.key for t in turns.values()}
        assert store.next_turns([by_id["t0"], by_id["t2"]]) == {by_id["t0"]: by_id["t1"]}
        assert len(store.recent_turns(Scope("u1", "s"), 5)) == 3
