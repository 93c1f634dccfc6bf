"""Issue 21, item 2: the dense z-scale of the episodic search from running sums, not a scan.

The sums (``turn_vector_sums``) must give the scan's mean, spread and count after writes, an
overwritten vector, a supersession, a forget, a purge and an erase, on SQLite and PostgreSQL,
seen by the very next search in this process and in another one; the migration builds them
for a store written without them."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from jiyi import Memory
from jiyi.clock import to_micros, utc_now
from jiyi.store import open_store
from jiyi.store.base import Store, TurnRecord
from jiyi.store.sql.turn_sums import TurnSums
from jiyi.store.sql.writes import SqlWrites

EPOCH = datetime(1970, 1, 2, tzinfo=UTC)

TURNS = [
    "我的手机号是13800001111", "周末打算去爬山", "明天要交报告，今晚得加班",
    "我們家的貓叫湯圓，今年三歲", "我們去了夜市吃東西", "這週的天氣很潮濕",
    "The printer needs toner again", "I had noodles for lunch", "My sister lives in Leeds",
]
QUERIES = ["我的手机号是多少？", "我們家的貓叫什麼？", "where does my sister live?"]


@pytest.fixture(autouse=True)
def _every_user_keeps_sums(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SqlWrites, "turn_sums_min", 1)


def _scale_pair(mem: Memory, user: str, query: str) -> tuple[tuple[float, float, int],
                                                             tuple[float, float, int]]:
    """(the search's scale, the exact scan's): a window from 1970 on always scans."""
    store, name = mem.store, mem.embedder.name
    q = mem.embedder.embed_query(query)
    now = utc_now()
    fast = store.turn_vector_search(user, now, name, q, 5)
    exact = store.turn_vector_search(user, now, name, q, 5, since=EPOCH)
    assert [k for k, _ in fast.hits] == [k for k, _ in exact.hits]
    return (fast.mean, fast.std, fast.n), (exact.mean, exact.std, exact.n)


def _agree(mem: Memory, user: str, n: int) -> None:
    for query in QUERIES:
        fast, exact = _scale_pair(mem, user, query)
        assert fast[2] == exact[2] == n
        assert abs(fast[0] - exact[0]) < 1e-6 and abs(fast[1] - exact[1]) < 1e-6
    assert _sums(mem.store, user, mem.embedder.name) is not None


def _sums(store: Store, user: str, embedder: str) -> TurnSums | None:
    cache = store.turn_sums  # type: ignore[attr-defined]
    q = np.zeros(1, dtype=np.float32)
    cache.scale(store._read, user, embedder, q, 0)  # type: ignore[attr-defined]
    entry = cache._entries.get((user, embedder))
    return None if entry is None else entry.sums


def _turn_count(mem: Memory, user: str) -> int:
    return mem.store.stats(user_id=user).turns


def test_the_sums_hold_the_moments_of_the_vectors() -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((50, 16)).astype(np.float32)
    sums = TurnSums(16)
    sums.add(list(x), list(range(50)))
    sums.add(list(x[:10]), [], sign=-1)
    kept = x[10:].astype(np.float64)
    assert sums.n == 40 and sums.max_at == 49
    assert np.allclose(sums.sx, kept.sum(axis=0))
    assert np.allclose(sums.matrix(), kept.T @ kept)
    sums.add([rng.standard_normal(8).astype(np.float32)], [99])  # another dimension: ignored
    assert sums.n == 40 and sums.max_at == 49


@pytest.mark.parametrize("fold", [1, 3, 64])
def test_sums_equal_the_scan_through_every_change(store_url: str, fold: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Writes, an overwritten turn vector, a supersession, a forget, a purge, an erase; with
    the pending vectors folded at every write, every third, or never in this test."""
    monkeypatch.setattr(SqlWrites, "turn_sums_fold", fold)
    with Memory.open(store_url, embedder="fake") as mem:
        start = utc_now() - timedelta(days=40)
        for i, text in enumerate(TURNS):
            mem.ingest(text, session_id=f"s{i % 3}", user_id="u1", at=start + timedelta(hours=i))
            mem.ingest(text, session_id="o", user_id="u2", at=start + timedelta(hours=i))
        _agree(mem, "u1", len(TURNS))
        # supersession: a new value replaces the number
        mem.ingest("我换号了，新号是13999992222", session_id="s9", user_id="u1",
                   at=start + timedelta(days=1))
        _agree(mem, "u1", len(TURNS) + 1)
        # an overwritten vector (reindex writes over a turn's vector)
        turn = TurnRecord(key=_first_turn_key(mem, "u1"), turn_id="t", session_id="s0",
                          user_id="u1", role="user", text="x", at=start)
        mem.store.put_turn_vectors(mem.embedder.name, [turn],
                                   [mem.embedder.embed_query("a different vector")])
        _agree(mem, "u1", len(TURNS) + 1)
        # a forget, then the purge that hard-deletes the forgotten unit (turns stay)
        unit = mem.recall("我的手机号是多少？", session_id="s9", user_id="u1", k=1)[0].unit
        mem.forget(unit.id, "user asked", at=utc_now() - timedelta(days=2))
        _agree(mem, "u1", len(TURNS) + 1)
        assert mem.gc(retention_days=1) >= 1
        _agree(mem, "u1", len(TURNS) + 1)
        # erasing u2 leaves u1's sums alone; erasing u1 leaves nothing to scale
        mem.erase_user("u2")
        _agree(mem, "u1", len(TURNS) + 1)
        assert _sums(mem.store, "u2", mem.embedder.name) is None
        mem.erase_user("u1")
        assert _sums(mem.store, "u1", mem.embedder.name) is None
        q = mem.embedder.embed_query("手机号")
        assert mem.store.turn_vector_search("u1", utc_now(), mem.embedder.name, q, 5).n == 0


def _first_turn_key(mem: Memory, user: str) -> str:
    export = mem.export_user(user)
    return str(export["turns"][0]["key"])


def test_an_earlier_as_of_or_a_window_scans(store_url: str) -> None:
    """The sums stand for every turn; a search that must leave some out scans them."""
    with Memory.open(store_url, embedder="fake") as mem:
        start = utc_now() - timedelta(days=10)
        for i, text in enumerate(TURNS):
            mem.ingest(text, session_id="s", user_id="u1", at=start + timedelta(days=i))
        q = mem.embedder.embed_query("周末")
        name = mem.embedder.name
        cache = mem.store.turn_sums  # type: ignore[attr-defined]
        as_of = start + timedelta(days=3, hours=1)
        assert cache.scale(mem.store._read, "u1", name, q,  # type: ignore[attr-defined]
                           to_micros(as_of)) is None
        past = mem.store.turn_vector_search("u1", as_of, name, q, 5)
        assert past.n == 4
        assert cache.scale(mem.store._read, "u1", name, q,  # type: ignore[attr-defined]
                           to_micros(utc_now())) is not None


def test_a_user_gets_sums_at_the_threshold(store_url: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SqlWrites, "turn_sums_min", 4)
    with Memory.open(store_url, embedder="fake") as mem:
        for i, text in enumerate(TURNS[:3]):
            mem.ingest(text, session_id="s", user_id="u1", at=utc_now() - timedelta(hours=9 - i))
        assert _sums(mem.store, "u1", mem.embedder.name) is None
        mem.ingest(TURNS[3], session_id="s", user_id="u1", at=utc_now() - timedelta(hours=1))
        _agree(mem, "u1", 4)


WRITER = textwrap.dedent("""
    import sys
    from jiyi.memory import Memory
    url, action, arg = sys.argv[1:4]
    with Memory.open(url, embedder="fake") as mem:
        if action == "ingest":
            mem.ingest(arg, session_id="s1", user_id="u1")
        elif action == "erase":
            mem.erase_user(arg)
""")


def _other_process(url: str, action: str, arg: str) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", WRITER, url, action, arg], check=True, env=env,
                   timeout=120)


def test_another_process_write_is_seen_by_the_next_search(store_url: str) -> None:
    """The other process keeps the default threshold: it still updates a row that exists."""
    with Memory.open(store_url, embedder="fake") as mem:
        for i, text in enumerate(TURNS[:5]):
            mem.ingest(text, session_id="s1", user_id="u1", at=utc_now() - timedelta(hours=9 - i))
        _agree(mem, "u1", 5)  # this process has the sums cached
        _other_process(store_url, "ingest", "我們家的貓叫湯圓 and my sister lives in Leeds")
        _agree(mem, "u1", 6)
        hits = mem.recall("我們家的貓叫什麼？", session_id="s1", user_id="u1", k=3)
        assert any("湯圓" in h.unit.content for h in hits)
        _other_process(store_url, "erase", "u1")
        assert _sums(mem.store, "u1", mem.embedder.name) is None
        q = mem.embedder.embed_query("cat")
        assert mem.store.turn_vector_search("u1", utc_now(), mem.embedder.name, q, 5).n == 0


def test_the_migration_builds_the_sums_of_an_older_store(store_url: str) -> None:
    with Memory.open(store_url, embedder="fake") as mem:
        for i, text in enumerate(TURNS):
            mem.ingest(text, session_id="s", user_id="u1", at=utc_now() - timedelta(hours=20 - i))
    _forget_m010(store_url)
    store = open_store(store_url)
    try:
        assert "m010_turn_sums" in store.applied_migrations  # type: ignore[attr-defined]
    finally:
        store.close()
    with Memory.open(store_url, embedder="fake") as mem:
        _agree(mem, "u1", len(TURNS))


def _forget_m010(url: str) -> None:
    """The store as m009 left it: no sums table, m010 not recorded."""
    store = open_store(url)
    try:
        if url.startswith("postgresql"):
            with store.connection() as conn:  # type: ignore[attr-defined]
                conn.execute("DROP TABLE turn_vector_sums")
                conn.execute("DROP TABLE turn_sum_pending")
                conn.execute("DELETE FROM jiyi_migrations WHERE name = 'm010_turn_sums'")
        else:
            conn = store.connection  # type: ignore[attr-defined]
            conn.execute("DROP TABLE turn_vector_sums")
            conn.execute("DROP TABLE turn_sum_pending")
            conn.execute("DELETE FROM jiyi_migrations WHERE name = 'm010_turn_sums'")
    finally:
        store.close()


def test_a_copy_between_backends_builds_the_targets_sums(tmp_path: object, pg_url: str) -> None:
    from jiyi.store.transfer import copy_store
    src = str(tmp_path) + "/src.db"  # type: ignore[operator]
    with Memory.open(src, embedder="fake") as mem:
        for i, text in enumerate(TURNS):
            mem.ingest(text, session_id="s", user_id="u1", at=utc_now() - timedelta(hours=20 - i))
    a, b = open_store(src), open_store(pg_url)
    try:
        assert all(r.ok for r in copy_store(a, b))
    finally:
        a.close()
        b.close()
    with Memory.open(pg_url, embedder="fake") as mem:
        _agree(mem, "u1", len(TURNS))


@pytest.mark.postgres
def test_concurrent_writers_lose_no_vector(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two stores (two connection pools, as two worker processes) write one user's turn vectors
    side by side, folding often: the sums still equal the scan (the advisory lock orders them)."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(SqlWrites, "turn_sums_fold", 3)
    rng = np.random.default_rng(2)
    stores = [open_store(pg_url), open_store(pg_url)]
    start = utc_now() - timedelta(days=1)

    def write(w: int) -> None:
        for i in range(12):
            turn = TurnRecord(key=f"w{w}-{i}", turn_id=f"{w}-{i}", session_id="s", user_id="u1",
                              role="user", text="x", at=start + timedelta(seconds=i))
            vec = rng.standard_normal(16).astype(np.float32)
            stores[w].put_turn_vectors("e16", [turn], [vec / np.linalg.norm(vec)])

    try:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(write, [0, 1]))
        q = rng.standard_normal(16).astype(np.float32)
        q /= np.linalg.norm(q)
        fast = stores[0].turn_vector_search("u1", utc_now(), "e16", q, 5)
        exact = stores[0].turn_vector_search("u1", utc_now(), "e16", q, 5, since=EPOCH)
        assert fast.n == exact.n == 24
        assert abs(fast.mean - exact.mean) < 1e-6 and abs(fast.std - exact.std) < 1e-6
        assert _sums(stores[0], "u1", "e16") is not None
    finally:
        for s in stores:
            s.close()
