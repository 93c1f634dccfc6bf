"""The SQLite store's resident vector tables: the same answers as the SQL scan, and
every write, supersession, forget and erase visible to the very next search, in this process
and when another process wrote the file."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from jiyi.clock import utc_now
from jiyi.memory import Memory
from jiyi.store.base import IngestBatch, Scope, TurnRecord
from jiyi.store.sqlite import SQLiteStore
from jiyi.store.sqlite.migrations import NEW_CACHE_EPOCH_SQL
from jiyi.units import USER_LEVEL_TYPES, Lifespan, MemoryType, MemoryUnit, content_hash

DIM = 16
EMB = "test-emb"
NOW = utc_now()


def _vec(rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def _unit(i: int, user: str, session: str, rng: random.Random) -> MemoryUnit:
    created = NOW - timedelta(days=rng.uniform(0, 60))
    mtype = rng.choice(list(MemoryType))
    content = f"记忆 unit {i} 記憶"
    unit = MemoryUnit(
        id=f"m{i}", user_id=user, session_id=session, type=mtype, content=content,
        content_hash=content_hash(user, content),
        lifespan=Lifespan(created_at=created, expires_in=rng.choice([86400, 30 * 86400,
                                                                    400 * 86400])),
        valid_at=created + timedelta(days=rng.uniform(-5, 5)) if rng.random() < 0.3 else None,
        valid_until=(created + timedelta(days=rng.uniform(0, 30))
                     if rng.random() < 0.2 else None),
    )
    roll = rng.random()
    if roll < 0.15:  # forgotten
        unit = unit.model_copy(update={"invalidated_at": created + timedelta(days=2),
                                       "invalidation_reason": "forgotten"})
    elif roll < 0.3:  # superseded
        unit = unit.model_copy(update={"invalidated_at": created + timedelta(days=1),
                                       "invalidation_reason": "superseded",
                                       "superseded_by": f"m{i + 1}"})
    return unit


def _fill(store: SQLiteStore, users: dict[str, int], seed: int = 1) -> None:
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    i = 0
    for user, count in users.items():
        for j in range(count):
            session = f"{user}-s{j % 3}"
            unit = _unit(i, user, session, rng)
            turn = TurnRecord(key=f"k{i}", turn_id=f"t{i}", session_id=session, user_id=user,
                              role="user", text=unit.content, at=unit.created_at)
            store.commit_ingest(IngestBatch(turn=turn, upserts=[unit], embedder=EMB,
                                            vectors={unit.id: _vec(nrng)},
                                            turn_vector=_vec(nrng)))
            i += 1


def _searches(user: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for as_of in (NOW, NOW - timedelta(days=20), NOW + timedelta(days=45)):
        for history in (False, True):
            for session in (None, f"{user}-s1"):
                out.append({"scope": Scope(user, session), "as_of": as_of, "history": history})
        out.append({"scope": Scope(user, None), "as_of": as_of, "history": True,
                    "since": NOW - timedelta(days=30), "until": NOW - timedelta(days=5)})
        out.append({"scope": Scope(user, None), "as_of": as_of, "history": False,
                    "types": [MemoryType.FACT_REFERENCE, MemoryType.USER_PROFILE]})
        out.append({"scope": Scope(user, f"{user}-s2", frozenset()), "as_of": as_of,
                    "history": True})
        out.append({"scope": Scope(user, f"{user}-s0", USER_LEVEL_TYPES), "as_of": as_of,
                    "history": False, "types": []})
    return out


def _same(cached: SQLiteStore, plain: SQLiteStore, user: str, q: np.ndarray) -> None:
    """Every unit and turn search answers the same through the cache and through SQL."""
    for args in _searches(user):
        a = cached.vector_search(query=q, embedder=EMB, limit=7, **args)  # type: ignore[arg-type]
        b = plain.vector_search(query=q, embedder=EMB, limit=7, **args)  # type: ignore[arg-type]
        assert a == b, args  # ids, order and cosines to the bit, whichever path answered
    for as_of in (NOW, NOW - timedelta(days=30)):
        for window in ({}, {"since": NOW - timedelta(days=40), "until": NOW - timedelta(days=10)}):
            a2 = cached.turn_vector_search(user, as_of, EMB, q, 5, **window)  # type: ignore[arg-type]
            b2 = plain.turn_vector_search(user, as_of, EMB, q, 5, **window)  # type: ignore[arg-type]
            assert a2 == b2  # the hits and the scale (mean, spread) to the bit


@pytest.fixture
def stores(tmp_path: Path) -> tuple[SQLiteStore, SQLiteStore]:
    path = str(tmp_path / "c.db")
    cached = SQLiteStore(path, vector_cache_bytes=64 * 2**20)
    plain = SQLiteStore(path, vector_cache_bytes=0)
    yield cached, plain  # type: ignore[misc]
    cached.close()
    plain.close()


def test_cached_searches_answer_like_the_sql_scan(
        stores: tuple[SQLiteStore, SQLiteStore]) -> None:
    cached, plain = stores
    _fill(cached, {"amy": 120, "ben": 60})
    rng = np.random.default_rng(7)
    for _ in range(3):
        q = _vec(rng)
        _same(cached, plain, "amy", q)
        _same(cached, plain, "ben", q)
    assert cached.vector_cache is not None and cached.vector_cache.loads == 4
    assert plain.vector_cache is None
    # never another user's vector: every hit of amy's searches is amy's
    hits = cached.vector_search(Scope("amy", None), NOW, EMB, _vec(rng), 500, history=True)
    assert hits and all(u.user_id == "amy" for u in cached.get_units([h for h, _ in hits]))


def test_writes_in_this_process_reach_the_next_search(
        stores: tuple[SQLiteStore, SQLiteStore]) -> None:
    cached, plain = stores
    _fill(cached, {"amy": 80})
    q = _vec(np.random.default_rng(3))
    _same(cached, plain, "amy", q)
    assert cached.vector_cache is not None
    loads = cached.vector_cache.loads
    # a new unit whose vector is the query itself: it must come first at once
    unit = _unit(1000, "amy", "amy-s1", random.Random(99)).model_copy(
        update={"invalidated_at": None, "invalidation_reason": None, "superseded_by": None,
                "valid_at": None, "valid_until": None})
    turn = TurnRecord(key="k1000", turn_id="t1000", session_id="amy-s1", user_id="amy",
                      role="user", text=unit.content, at=NOW - timedelta(minutes=1))
    cached.commit_ingest(IngestBatch(turn=turn, upserts=[unit], embedder=EMB,
                                     vectors={unit.id: q}, turn_vector=q))
    assert cached.vector_search(Scope("amy", None), NOW, EMB, q, 3)[0][0] == "m1000"
    assert cached.turn_vector_search("amy", NOW, EMB, q, 3).hits[0][0] == "k1000"
    _same(cached, plain, "amy", q)
    # superseded: gone from current searches, still in history
    cached.invalidate("m1000", NOW - timedelta(seconds=30), "superseded", superseded_by="m1")
    assert "m1000" not in [u for u, _ in cached.vector_search(Scope("amy", None), NOW, EMB, q, 5)]
    assert cached.vector_search(Scope("amy", None), NOW, EMB, q, 1, history=True)[0][0] == "m1000"
    _same(cached, plain, "amy", q)
    # a vector replaced in place (re-embedding) moves the unit
    cached.put_vectors(EMB, {"m1000": -q})
    assert "m1000" not in [u for u, _ in cached.vector_search(
        Scope("amy", None), NOW, EMB, q, 5, history=True)]
    _same(cached, plain, "amy", q)
    # forgotten on request: never found again
    cached.put_vectors(EMB, {"m1000": q})
    cached.commit_ingest(IngestBatch(turn=turn, upserts=[unit.model_copy(
        update={"id": "m1001", "superseded_by": None})], embedder=EMB, vectors={"m1001": q}))
    cached.invalidate("m1001", NOW - timedelta(seconds=1), "forgotten")
    assert "m1001" not in [u for u, _ in cached.vector_search(
        Scope("amy", None), NOW, EMB, q, 50, history=True)]
    _same(cached, plain, "amy", q)
    assert cached.vector_cache.loads == loads  # all of it by increments, no reload
    assert cached.vector_cache.deltas >= 4
    # hard delete (gc) and erase
    cached.purge_expired(NOW + timedelta(days=3650))
    _same(cached, plain, "amy", q)
    cached.erase_user("amy")
    assert cached.vector_search(Scope("amy", None), NOW, EMB, q, 5, history=True) == []
    assert cached.turn_vector_search("amy", NOW, EMB, q, 5).hits == []


def test_a_search_inside_a_write_transaction_never_caches_uncommitted_rows(
        stores: tuple[SQLiteStore, SQLiteStore]) -> None:
    cached, plain = stores
    _fill(cached, {"amy": 30})
    q = _vec(np.random.default_rng(5))
    _same(cached, plain, "amy", q)
    unit = _unit(500, "amy", "amy-s0", random.Random(1)).model_copy(
        update={"invalidated_at": None, "invalidation_reason": None, "superseded_by": None,
                "valid_at": None, "valid_until": None})
    turn = TurnRecord(key="k500", turn_id="t500", session_id="amy-s0", user_id="amy",
                      role="user", text=unit.content, at=NOW - timedelta(minutes=1))
    with pytest.raises(RuntimeError), cached.placement_lock("amy"):
        cached.commit_ingest(IngestBatch(turn=turn, upserts=[unit], embedder=EMB,
                                         vectors={unit.id: q}, turn_vector=q))
        # the uncommitted unit is seen by its own transaction (read from SQL) ...
        assert cached.vector_search(Scope("amy", None), NOW, EMB, q, 1)[0][0] == "m500"
        raise RuntimeError("roll back")
    # ... and by nobody after the rollback
    assert "m500" not in [u for u, _ in cached.vector_search(Scope("amy", None), NOW, EMB, q, 5)]
    _same(cached, plain, "amy", q)


def test_the_cache_stays_within_its_bytes_and_falls_back_to_sql(tmp_path: Path) -> None:
    path = str(tmp_path / "small.db")
    tiny = SQLiteStore(path, vector_cache_bytes=20_000)
    plain = SQLiteStore(path, vector_cache_bytes=0)
    try:
        _fill(tiny, {"amy": 40, "ben": 40, "cat": 400})
        q = _vec(np.random.default_rng(11))
        for user in ("amy", "ben", "cat", "amy"):
            _same(tiny, plain, user, q)
            assert tiny.vector_cache is not None
            assert tiny.vector_cache.nbytes <= 20_000
        # cat's 400 vectors do not fit: never cached, still answered (by SQL)
        assert all(k[1] != "cat" for k in tiny.vector_cache.cached_keys())  # type: ignore[index]
    finally:
        tiny.close()
        plain.close()


def test_an_erase_or_restore_elsewhere_drops_every_cached_table(
        stores: tuple[SQLiteStore, SQLiteStore]) -> None:
    cached, plain = stores
    _fill(cached, {"amy": 20, "ben": 20})
    q = _vec(np.random.default_rng(2))
    _same(cached, plain, "amy", q)
    _same(cached, plain, "ben", q)
    assert cached.vector_cache is not None
    loads = cached.vector_cache.loads
    with plain.locked() as conn:
        conn.execute(NEW_CACHE_EPOCH_SQL)
    _same(cached, plain, "amy", q)
    assert cached.vector_cache.loads == loads + 2  # amy's two tables, reloaded


def test_a_table_older_than_the_pruned_log_reloads(
        stores: tuple[SQLiteStore, SQLiteStore]) -> None:
    cached, plain = stores
    _fill(cached, {"amy": 20})
    q = _vec(np.random.default_rng(4))
    _same(cached, plain, "amy", q)
    plain.put_vectors(EMB, {"m3": q})  # amy's change, then 60,000 others push it out of the log
    with plain.locked() as conn:
        conn.executemany("INSERT INTO vector_changes (user_id, kind, key) VALUES (?, 'u', ?)",
                         [("zed", f"x{i}") for i in range(60_000)])
        pruned = conn.execute("SELECT value FROM vector_cache_meta WHERE name = 'pruned'"
                              ).fetchone()[0]
        assert pruned > 0
        assert conn.execute("SELECT COUNT(*) FROM vector_changes").fetchone()[0] <= 60_000
    assert cached.vector_search(Scope("amy", None), NOW, EMB, q, 1, history=True)[0][0] == "m3"
    _same(cached, plain, "amy", q)


WRITER = textwrap.dedent("""
    import sys
    from jiyi.memory import Memory
    path, action, arg = sys.argv[1:4]
    with Memory.open(path, embedder="fake") as mem:
        if action == "ingest":
            mem.ingest(arg, session_id="s1", user_id="amy")
        elif action == "forget":
            mem.forget(arg, "user asked")
        elif action == "erase":
            mem.erase_user(arg)
""")


def _other_process(path: str, action: str, arg: str) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", WRITER, path, action, arg], check=True, env=env,
                   timeout=120)


def _agree(store: SQLiteStore, path: str, mem: Memory, query: str) -> None:
    """The memory's cached store and a fresh SQL-only view of the file answer alike."""
    plain = SQLiteStore(path, vector_cache_bytes=0)
    try:
        q = mem.embedder.embed_query(query)
        name = mem.embedder.name
        for history in (False, True):
            a = store.vector_search(Scope("amy", None), utc_now(), name, q, 10, history=history)
            b = plain.vector_search(Scope("amy", None), utc_now(), name, q, 10, history=history)
            assert [u for u, _ in a] == [u for u, _ in b]
            assert np.allclose([x for _, x in a], [x for _, x in b], atol=1e-5)
        ta = store.turn_vector_search("amy", utc_now(), name, q, 10)
        tb = plain.turn_vector_search("amy", utc_now(), name, q, 10)
        assert [k for k, _ in ta.hits] == [k for k, _ in tb.hits] and ta.n == tb.n
    finally:
        plain.close()


@pytest.mark.parametrize("in_process", [True, False], ids=["same-process", "other-process"])
def test_recall_sees_writes_supersessions_forgets_and_erases_at_once(
        tmp_path: Path, in_process: bool) -> None:
    path = str(tmp_path / "m.db")
    with Memory.open(path, embedder="fake") as mem:
        def write(action: str, arg: str) -> None:
            if not in_process:
                _other_process(path, action, arg)
            elif action == "ingest":
                mem.ingest(arg, session_id="s1", user_id="amy")
            elif action == "forget":
                mem.forget(arg, "user asked")
            else:
                mem.erase_user(arg)

        def recall(query: str) -> list[tuple[str, str]]:
            return [(h.unit.content, h.status) for h in
                    mem.recall(query, session_id="s1", user_id="amy", k=10, log=False)]

        mem.ingest("I live in Berlin and work as a nurse", session_id="s1", user_id="amy")
        mem.ingest("我最喜欢的水果是芒果", session_id="s1", user_id="amy")
        assert recall("where do I live")  # the tables are loaded now
        store = mem.store
        assert isinstance(store, SQLiteStore) and store.vector_cache is not None
        assert store.vector_cache.loads >= 1
        # a write
        write("ingest", "My new phone number is 13912345678")
        _agree(store, path, mem, "what is my phone number")
        assert any("13912345678" in c for c, _ in recall("what is my phone number"))
        # a supersession: the same slot gets a new value; the old one is history now
        write("ingest", "My new phone number is 13800001111")
        _agree(store, path, mem, "what is my phone number")
        found = recall("what is my phone number")
        assert ("My new phone number is 13800001111", "current") in found or any(
            "13800001111" in c and s == "current" for c, s in found)
        assert all(s != "current" for c, s in found if "13912345678" in c)
        # a forget
        target = next(h.unit for h in mem.recall("芒果", session_id="s1", user_id="amy",
                                                  log=False) if "芒果" in h.unit.content)
        write("forget", target.id)
        _agree(store, path, mem, "我最喜欢的水果是什么")
        assert all("芒果" not in c for c, _ in recall("我最喜欢的水果是什么"))
        # an erase
        write("erase", "amy")
        _agree(store, path, mem, "where do I live")
        assert recall("where do I live") == []
        assert recall("what is my phone number") == []


def test_m008_logs_every_kind_of_write(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "log.db"), vector_cache_bytes=0)
    try:
        _fill(store, {"amy": 2})
        with store.locked() as conn:
            rows = conn.execute("SELECT user_id, kind, key FROM vector_changes ORDER BY seq"
                                ).fetchall()
        assert ("amy", "u", "m0") in rows and ("amy", "t", "k0") in rows
        store.invalidate("m1", NOW, "forgotten")
        store.erase_user("amy")
        with store.locked() as conn:
            assert conn.execute("SELECT COUNT(*) FROM vector_changes WHERE user_id = 'amy'"
                                ).fetchone()[0] == 0
    finally:
        store.close()


def test_the_env_bound_is_read_and_checked(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    from jiyi.errors import StoreError

    monkeypatch.setenv("JIYI_VECTOR_CACHE_MB", "0")
    store = SQLiteStore(str(tmp_path / "e.db"))
    assert store.vector_cache is None
    store.close()
    monkeypatch.setenv("JIYI_VECTOR_CACHE_MB", "1.5")
    store = SQLiteStore(str(tmp_path / "e.db"))
    assert store.vector_cache is not None and store.vector_cache.max_bytes == int(1.5 * 2**20)
    store.close()
    monkeypatch.setenv("JIYI_VECTOR_CACHE_MB", "lots")
    with pytest.raises(StoreError, match="JIYI_VECTOR_CACHE_MB"):
        SQLiteStore(str(tmp_path / "e.db"))


WORDS = ["咖啡", "订单", "訂單", "地址", "北京", "臺北", "coffee", "order", "address", "budget",
         "预算", "預算", "耳机", "耳機", "refund", "退款", "Berlin", "会议", "會議", "ORD-123"]


def _fill_text(store: SQLiteStore, users: dict[str, int], seed: int = 4) -> None:
    """Units with varied zh-Hans / zh-Hant / English text (the keyword index needs words)."""
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    i = 0
    for user, count in users.items():
        for j in range(count):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9)))
            unit = _unit(i, user, f"{user}-s{j % 3}", rng).model_copy(
                update={"content": f"{text} {i}", "content_hash": f"h{i}"})
            turn = TurnRecord(key=f"k{i}", turn_id=f"t{i}", session_id=unit.session_id,
                              user_id=user, role="user", text=f"{text} 第{i}句",
                              at=unit.created_at)
            store.commit_ingest(IngestBatch(turn=turn, upserts=[unit], embedder=EMB,
                                            vectors={unit.id: _vec(nrng)}))
            i += 1


def _same_keywords(cached: SQLiteStore, plain: SQLiteStore, user: str) -> None:
    for terms in (["咖啡"], ["订单", "地址"], ["訂單", "預算", "coffee"], ["ORD-123"],
                  ["Berlin", "refund", "退款"], ["nothing-here"], ["会议", "會議", "order"]):
        for args in _searches(user):
            args = {k: v for k, v in args.items() if k != "types"}
            a = cached.keyword_scored(terms=terms, limit=6, **args)  # type: ignore[arg-type]
            b = plain.keyword_scored(terms=terms, limit=6, **args)  # type: ignore[arg-type]
            assert [x for x, _ in a.hits] == [x for x, _ in b.hits], (terms, args)
            assert np.allclose([s for _, s in a.hits], [s for _, s in b.hits], rtol=1e-9)
            assert (a.n, a.mean, a.std) == pytest.approx((b.n, b.mean, b.std), rel=1e-9)


def test_a_big_users_keyword_index_answers_like_fts5(
        stores: tuple[SQLiteStore, SQLiteStore], monkeypatch: pytest.MonkeyPatch) -> None:
    import jiyi.store.sqlite.caches as svc
    from jiyi.store.cache.keywords import KeywordTable

    monkeypatch.setattr(svc, "KEYWORD_MIN_ROWS", 100)
    cached, plain = stores
    _fill_text(cached, {"amy": 150, "ben": 40})
    _same_keywords(cached, plain, "amy")
    _same_keywords(cached, plain, "ben")  # small: FTS5 on both sides
    assert cached.vector_cache is not None
    kinds = [k[0] for k in cached.vector_cache.cached_keys()]  # type: ignore[index]
    assert kinds.count("kw") == 1  # amy's only
    # writes reach it at once: a new unit, a supersession, a forget, a purge, an erase
    unit = _unit(900, "amy", "amy-s1", random.Random(2)).model_copy(update={
        "content": "独一无二 coffee", "content_hash": "h900", "invalidated_at": None,
        "lifespan": Lifespan(created_at=NOW - timedelta(minutes=1), expires_in=400 * 86400),
        "superseded_by": None, "invalidation_reason": None, "valid_at": None,
        "valid_until": None})
    turn = TurnRecord(key="k900", turn_id="t900", session_id="amy-s1", user_id="amy",
                      role="user", text="独一无二 coffee", at=NOW - timedelta(minutes=1))
    cached.commit_ingest(IngestBatch(turn=turn, upserts=[unit], embedder=EMB,
                                     vectors={unit.id: _vec(np.random.default_rng(1))}))
    assert cached.keyword_scored(Scope("amy", None), NOW, ["独一无二"], 5).hits[0][0] == "m900"
    _same_keywords(cached, plain, "amy")
    cached.invalidate("m900", NOW - timedelta(seconds=5), "superseded", superseded_by="m1")
    assert cached.keyword_scored(Scope("amy", None), NOW, ["独一无二"], 5).hits == []
    assert cached.keyword_scored(Scope("amy", None), NOW, ["独一无二"], 5,
                                 history=True).hits[0][0] == "m900"
    _same_keywords(cached, plain, "amy")
    for uid in ("m3", "m7", "m11"):
        cached.invalidate(uid, NOW - timedelta(seconds=1), "forgotten")
    _same_keywords(cached, plain, "amy")
    table = cached._cached_table("kw", "amy", "", 0)
    assert isinstance(table, KeywordTable) and cached.vector_cache.loads == 1  # increments only
    cached.purge_expired(NOW - timedelta(days=20))
    _same_keywords(cached, plain, "amy")
    cached.erase_user("amy")
    assert cached.keyword_scored(Scope("amy", None), NOW, ["coffee"], 5, history=True).hits == []


def test_another_processs_writes_reach_a_resident_keyword_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import jiyi.store.sqlite.caches as svc

    monkeypatch.setattr(svc, "KEYWORD_MIN_ROWS", 1)
    path = str(tmp_path / "kw.db")
    with Memory.open(path, embedder="fake") as mem:
        mem.ingest("我住在北京，订单号是 ORD123456", session_id="s1", user_id="amy")
        mem.ingest("I live in Berlin and my budget is 300 dollars", session_id="s1",
                   user_id="amy")
    cached = SQLiteStore(path, vector_cache_bytes=64 * 2**20)
    plain = SQLiteStore(path, vector_cache_bytes=0)
    try:
        def agree(terms: list[str]) -> list[str]:
            for history in (False, True):
                a = cached.keyword_scored(Scope("amy", "s1"), utc_now(), terms, 10,
                                          history=history)
                b = plain.keyword_scored(Scope("amy", "s1"), utc_now(), terms, 10,
                                         history=history)
                assert [x for x, _ in a.hits] == [x for x, _ in b.hits]
                assert (a.n, a.mean, a.std) == pytest.approx((b.n, b.mean, b.std), rel=1e-9)
            return [x for x, _ in cached.keyword_scored(Scope("amy", "s1"), utc_now(), terms,
                                                         10).hits]

        assert agree(["北京"])
        assert cached.vector_cache is not None and cached.vector_cache.loads == 1
        _other_process(path, "ingest", "我的新电话是 13912345678，预算 500 元")
        found = agree(["电话", "预算"])
        assert any("13912345678" in u.content for u in cached.get_units(found))
        # 北京 stands in the first turn's text (the city unit itself was replaced by Berlin)
        target = cached.get_units(agree(["北京"]))[0]
        _other_process(path, "forget", target.id)
        assert target.id not in agree(["北京"])
        _other_process(path, "erase", "amy")
        assert agree(["北京", "Berlin", "电话"]) == []
        assert cached.vector_cache.loads >= 1
    finally:
        cached.close()
        plain.close()


def test_big_tables_load_in_the_background_and_searches_stay_exact(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table of many rows is read on a thread of its own (its first searches read SQL);
    once in, it answers like SQL, and later writes reach it by increments."""
    import jiyi.store.sqlite.caches as svc

    monkeypatch.setattr(svc, "KEYWORD_MIN_ROWS", 10)
    path = str(tmp_path / "bg dir #1" / "b.db")  # a path that needs URI quoting
    cached = SQLiteStore(path, vector_cache_bytes=64 * 2**20)
    plain = SQLiteStore(path, vector_cache_bytes=0)
    cached.background_min_rows = 50
    try:
        _fill_text(cached, {"amy": 80, "ben": 20})
        q = _vec(np.random.default_rng(8))
        _same(cached, plain, "amy", q)  # amy's tables are loading meanwhile
        _same_keywords(cached, plain, "amy")
        cached.wait_for_tables()
        assert cached.vector_cache is not None
        assert {k[0] for k in cached.vector_cache.cached_keys()  # type: ignore[index]
                if k[1] == "amy"} == {"unit", "turn", "kw"}  # type: ignore[index]
        plain.invalidate("m5", NOW - timedelta(seconds=1), "forgotten")
        plain.put_vectors(EMB, {"m6": q})
        _same(cached, plain, "amy", q)
        _same_keywords(cached, plain, "amy")
        assert cached.vector_cache.deltas >= 1
    finally:
        cached.close()
        plain.close()


@pytest.mark.parametrize("writer_kind", ["same-store", "other-connection"])
def test_tables_loaded_while_the_query_embeds_still_see_the_next_write(
        tmp_path: Path, writer_kind: str) -> None:
    """Recall loads a cold user's tables early (``load_user_tables``, while the query is
    embedded); a write, a supersession, a forget, a purge or an erase landing between that
    load and the searches (here or through another connection to the file, as another process
    writes) is in the searches all the same."""
    path = str(tmp_path / "early.db")
    cached = SQLiteStore(path, vector_cache_bytes=64 * 2**20)
    plain = SQLiteStore(path, vector_cache_bytes=0)
    other = cached if writer_kind == "same-store" else SQLiteStore(path, vector_cache_bytes=0)
    try:
        _fill(cached, {"amy": 60})
        q = _vec(np.random.default_rng(11))
        unit = _unit(700, "amy", "amy-s1", random.Random(4)).model_copy(
            update={"invalidated_at": None, "invalidation_reason": None, "superseded_by": None,
                    "valid_at": None, "valid_until": None,
                    "lifespan": Lifespan(created_at=NOW - timedelta(minutes=5),
                                         expires_in=86400)})
        turn = TurnRecord(key="k700", turn_id="t700", session_id="amy-s1", user_id="amy",
                          role="user", text=unit.content, at=NOW - timedelta(minutes=5))
        steps = [
            ("write", lambda: other.commit_ingest(IngestBatch(
                turn=turn, upserts=[unit], embedder=EMB, vectors={unit.id: q},
                turn_vector=q))),
            ("supersede", lambda: other.invalidate(
                "m700", NOW - timedelta(seconds=30), "superseded", superseded_by="m1")),
            ("forget", lambda: other.invalidate("m5", NOW - timedelta(seconds=20), "forgotten")),
            ("purge", lambda: other.purge_expired(NOW + timedelta(days=3650))),
            ("erase", lambda: other.erase_user("amy")),
        ]
        assert cached.vector_cache is not None
        for name, step in steps:
            cached._drop_cached_user("amy")  # a cold user again
            cached.load_user_tables("amy", EMB, DIM)  # the early load ...
            assert cached.vector_cache.get(("unit", "amy", EMB)) is not None
            step()  # ... a write lands ...
            _same(cached, plain, "amy", q)  # ... and the searches see it
            if name == "write":
                assert cached.vector_search(Scope("amy", None), NOW, EMB, q, 1)[0][0] == "m700"
            if name == "supersede":
                assert "m700" not in [u for u, _ in cached.vector_search(
                    Scope("amy", None), NOW, EMB, q, 5)]
        assert cached.vector_search(Scope("amy", None), NOW, EMB, q, 5, history=True) == []
    finally:
        for s in {id(x): x for x in (cached, plain, other)}.values():
            s.close()
