"""PostgreSQL-specific behaviour: HNSW indexes per (embedder, dim), the HNSW plan agreeing with
the exact scan, concurrent migration, clear errors, password redaction."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import numpy as np
import pytest

from jiyi.errors import StoreError
from jiyi.store import Store
from jiyi.store.base import IngestBatch, Scope, TurnRecord
from jiyi.store.postgres.migrations import MIGRATIONS, USER_BUCKETS, user_bucket, vector_index_name
from jiyi.store.postgres.store import PostgresStore, redact_url
from jiyi.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from jiyi.units import Lifespan, MemoryType, MemoryUnit

pytestmark = pytest.mark.postgres
T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def test_same_migration_names_as_sqlite() -> None:
    assert [n for n, _ in MIGRATIONS] == [n for n, _ in SQLITE_MIGRATIONS]


def test_protocol_is_complete() -> None:
    wanted = {n for n in dir(Store) if not n.startswith("_")}
    assert wanted <= set(dir(PostgresStore)), wanted - set(dir(PostgresStore))


def _fill(store: PostgresStore, users: int, per_user: int, dim: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(8, dim)).astype(np.float32)
    for u in range(users):
        units = [MemoryUnit(content=f"用户{u} 的第{i}条 fact {i}", type=MemoryType.FACT_REFERENCE,
                            lifespan=Lifespan(created_at=T0, expires_in=86400),
                            session_id="s", user_id=f"u{u}") for i in range(per_user)]
        vecs = centers[rng.integers(0, 8, per_user)] + rng.normal(0, 1.0, (per_user, dim))
        vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
        store.commit_ingest(IngestBatch(
            turn=TurnRecord(key=f"t{u}", turn_id=f"t{u}", session_id="s", user_id=f"u{u}",
                            role="user", text="x", at=T0),
            upserts=units, vectors={x.id: v for x, v in zip(units, vecs, strict=True)},
            embedder="e"))


def test_hnsw_plan_matches_exact_scan(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    try:
        _fill(store, users=4, per_user=150, dim=16)
        with store.connection() as conn:
            names = {r[0] for r in conn.execute(
                "SELECT indexname FROM pg_indexes WHERE tablename = 'unit_vectors'")}
        assert {vector_index_name("e", 16, b) for b in range(USER_BUCKETS)} <= names
        q = np.random.default_rng(9).normal(size=16).astype(np.float32)
        q /= np.linalg.norm(q)
        scope = Scope("u2", "s")
        exact = store.vector_search(scope, T0, "e", q, 10)
        store.exact_scan_max = 0  # force the HNSW plan
        approx = store.vector_search(scope, T0, "e", q, 10)
        assert len(approx) == 10 and all(i.startswith("m_") for i, _ in approx)
        mine = {u.id for u in store.find_units(scope, as_of=T0)}
        assert {i for i, _ in approx} <= mine  # the scope filter holds inside the index walk
        overlap = len({i for i, _ in exact} & {i for i, _ in approx})
        assert overlap >= 8, overlap  # HNSW recall@10 on this small set
        assert [s for _, s in approx] == sorted((s for _, s in approx), reverse=True)
        with store.connection() as conn, conn.transaction():
            # the planner may prefer the user's btree index and a sort on these few rows (it did
            # once, after autovacuum's statistics landed): with scans and sorts priced out, only
            # an index that yields rows in distance order can answer, which is the HNSW one
            conn.execute("SET LOCAL enable_seqscan = off")
            conn.execute("SET LOCAL enable_sort = off")
            plan = "\n".join(r[0] for r in conn.execute(
                "EXPLAIN SELECT unit_id FROM unit_vectors v WHERE v.embedder = 'e' AND v.dim = 16"
                f" AND v.bucket = {user_bucket('u2')} AND v.user_id = 'u2'"
                " ORDER BY v.vec::vector(16) <=> %s::vector(16) LIMIT 5", (q,)))
        assert vector_index_name("e", 16, user_bucket("u2")) in plan
    finally:
        store.close()


def test_concurrent_first_open_migrates_once(pg_server: object, pg_url: str) -> None:
    errors: list[BaseException] = []
    stores: list[PostgresStore] = []

    def open_one() -> None:
        try:
            stores.append(PostgresStore(pg_url, pool_size=1))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(s.applied_migrations == [] for s in stores)  # the template already had them
    with stores[0].connection() as conn:
        assert conn.execute("SELECT COUNT(*) FROM jiyi_migrations").fetchone() == (len(MIGRATIONS),)
    for s in stores:
        s.close()


def test_trigram_fallback_finds_a_partial_code(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    try:
        unit = MemoryUnit(content="快递单号 ZXCV98765 已发货", type=MemoryType.TOOL_RESULT,
                          lifespan=Lifespan(created_at=T0, expires_in=86400),
                          session_id="s", user_id="u")
        store.commit_ingest(IngestBatch(turn=TurnRecord(
            key="t", turn_id="t", session_id="s", user_id="u", role="tool",
            text=unit.content, at=T0), upserts=[unit]))
        scope = Scope("u", "s")
        assert store.keyword_search(scope, T0, ["cv987"], 5) == [(unit.id, 0.0)]
        assert store.keyword_search(Scope("v", "s"), T0, ["cv987"], 5) == []
        assert store.keyword_search(scope, T0, ["100%"], 5) == []  # wildcards are literal
        assert store.keyword_search(scope, T0, ["快递"], 5)[0][0] == unit.id
    finally:
        store.close()


def test_clear_errors_and_redacted_location(pg_url: str) -> None:
    with pytest.raises(StoreError, match="cannot open PostgreSQL store"):
        PostgresStore(pg_url.replace("/jiyi_t_", "/no_such_db_"))
    assert redact_url("postgresql://bob:s3cret@db.example:5432/jiyi") == \
        "postgresql://bob:***@db.example:5432/jiyi"
    store = PostgresStore(pg_url)
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.get_units(["m_x"])
