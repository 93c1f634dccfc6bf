"""m008 on PostgreSQL: the owner and a user-hash bucket on every vector row, the
HNSW indexes partial per bucket, and the searches that use them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import psycopg
import pytest

from jiyi.store.base import IngestBatch, Scope, TurnRecord
from jiyi.store.postgres import PostgresStore
from jiyi.store.postgres.migrations import (
    MIGRATIONS,
    USER_BUCKETS,
    apply_migrations,
    user_bucket,
    vector_index_name,
)
from jiyi.units import Lifespan, MemoryType, MemoryUnit

pytestmark = pytest.mark.postgres
T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
USERS = ["amy", "张伟", "陳靜", "user@example.com", "u" * 200, "ß-ümlaut"]


def _unit(user: str, i: int) -> MemoryUnit:
    return MemoryUnit(content=f"{user} 的第{i}条 fact {i}", type=MemoryType.FACT_REFERENCE,
                      lifespan=Lifespan(created_at=T0, expires_in=86400), session_id="s",
                      user_id=user, content_hash=f"{user}-{i}")


def _ingest(store: PostgresStore, user: str, n: int, dim: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    units = [_unit(user, i) for i in range(n)]
    vecs = rng.normal(size=(n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    store.commit_ingest(IngestBatch(
        turn=TurnRecord(key=f"t-{user}-{seed}", turn_id="t", session_id="s", user_id=user,
                        role="user", text="x", at=T0),
        upserts=units, vectors={u.id: v for u, v in zip(units, vecs, strict=True)},
        embedder="e", turn_vector=vecs[0]))
    return [u.id for u in units]


def test_the_bucket_is_the_same_in_python_and_in_sql(pg_url: str) -> None:
    with psycopg.connect(pg_url) as conn:
        for user in USERS:
            row = conn.execute("SELECT jiyi_user_bucket(%s)", (user,)).fetchone()
            assert row is not None and row[0] == user_bucket(user)
    assert {user_bucket(f"u{i}") for i in range(200)} == set(range(USER_BUCKETS))


def test_vector_rows_carry_their_owner_and_big_users_walk_their_bucket(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    try:
        ids = {u: _ingest(store, u, 60, 16, seed) for seed, u in enumerate(USERS[:3])}
        with store.connection() as conn:
            rows = conn.execute("SELECT unit_id, user_id, bucket FROM unit_vectors").fetchall()
            names = {r[0] for r in conn.execute(
                "SELECT indexname FROM pg_indexes WHERE tablename = 'unit_vectors'")}
        owner = {i: u for u, got in ids.items() for i in got}
        assert {(r[0], r[1], r[2]) for r in rows} == {
            (i, u, user_bucket(u)) for i, u in owner.items()}
        assert {vector_index_name("e", 16, b) for b in range(USER_BUCKETS)} <= names
        q = np.random.default_rng(5).normal(size=16).astype(np.float32)
        q /= np.linalg.norm(q)
        store.exact_scan_max = 0  # every user takes the HNSW path
        for user in USERS[:3]:
            hits = store.vector_search(Scope(user, None), T0 + timedelta(hours=1), "e", q, 20)
            assert len(hits) == 20 and {h for h, _ in hits} <= set(ids[user])
        # a vector row for a unit that does not exist is refused, not orphaned
        with pytest.raises(Exception, match="unknown unit"), store.connection() as conn:
            conn.execute("INSERT INTO unit_vectors (unit_id, embedder, dim, vec)"
                         " VALUES ('nope', 'e', 16, %s)", (q,))
    finally:
        store.close()


def test_turn_search_gives_the_mean_and_spread_of_every_turn(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    try:
        rng = np.random.default_rng(3)
        vecs = rng.normal(size=(30, 8)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        turns = [TurnRecord(key=f"k{i:02d}", turn_id=f"t{i}", session_id="s", user_id="amy",
                            role="user", text=f"第{i}句", at=T0 + timedelta(minutes=i))
                 for i in range(30)]
        for t in turns:
            store.commit_ingest(IngestBatch(turn=t, embedder="e"))
        store.put_turn_vectors("e", turns, list(vecs))
        q = vecs[4]
        got = store.turn_vector_search("amy", T0 + timedelta(minutes=20), "e", q, 3)
        sims = vecs[:21] @ q
        assert got.n == 21
        assert got.mean == pytest.approx(float(sims.mean()), abs=1e-5)
        assert got.std == pytest.approx(float(sims.std()), abs=1e-5)
        assert [k for k, _ in got.hits] == [f"k{i:02d}" for i in np.argsort(-sims)[:3]]
        assert store.turn_vector_search("ben", T0, "e", q, 3).hits == []
    finally:
        store.close()


def test_m008_moves_an_older_store_to_bucketed_indexes(pg_url: str) -> None:
    """A store migrated up to m006 with vectors and the old whole-table index: m008 fills the
    owners, builds one index per bucket and drops the old one."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")
        import jiyi.store.postgres.migrations as pm

        before = pm.MIGRATIONS
        pm.MIGRATIONS = [m for m in MIGRATIONS if m[0] < "m007"]
        try:
            apply_migrations(conn)  # type: ignore[arg-type]
        finally:
            pm.MIGRATIONS = before
        conn.execute("INSERT INTO units (id, user_id, session_id, type, content, content_hash,"
                     " created_at, expires_in, expires_at, relevance_score, updated_at) VALUES"
                     " ('m1', '张伟', 's', 'fact_reference', '旧的事实', 'h', 0, 1, 1, 1, 0)")
        conn.execute("INSERT INTO unit_vectors (unit_id, embedder, dim, vec)"
                     " VALUES ('m1', 'e', 4, '[1,0,0,0]'), ('orphan', 'e', 4, '[0,1,0,0]')")
        conn.execute("CREATE INDEX unit_vectors_hnsw_4_old ON unit_vectors USING hnsw"
                     " ((vec::vector(4)) vector_cosine_ops) WHERE embedder = 'e' AND dim = 4")
    store = PostgresStore(pg_url)
    try:
        assert "m008_user_vectors" in store.applied_migrations  # type: ignore[attr-defined]
        with store.connection() as conn:
            rows = conn.execute("SELECT unit_id, user_id, bucket FROM unit_vectors").fetchall()
            names = {r[0] for r in conn.execute(
                "SELECT indexname FROM pg_indexes WHERE tablename = 'unit_vectors'")}
        assert rows == [("m1", "张伟", user_bucket("张伟"))]
        assert "unit_vectors_hnsw_4_old" not in names
        assert {vector_index_name("e", 4, b) for b in range(USER_BUCKETS)} <= names
    finally:
        store.close()
