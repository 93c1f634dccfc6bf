"""Migration m005 on PostgreSQL: keyword rows carry their unit's user (filled by a trigger on
every insert path) and the keyword indexes lead with it, so a search walks one user's postings.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from jiyi.errors import StoreError
from jiyi.store.base import IngestBatch, Scope, TurnRecord
from jiyi.store.postgres import PostgresStore
from jiyi.store.postgres.admin import create_database, drop_database
from jiyi.store.postgres.migrations import MIGRATIONS, _split
from jiyi.units import Lifespan, MemoryType, MemoryUnit

pytestmark = pytest.mark.postgres
T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def _unit(user: str, text: str) -> MemoryUnit:
    return MemoryUnit(content=text, type=MemoryType.FACT_REFERENCE,
                      lifespan=Lifespan(created_at=T0, expires_in=86400 * 30),
                      session_id="s", user_id=user)


def _ingest(store: PostgresStore, user: str, texts: list[str]) -> list[MemoryUnit]:
    units = [_unit(user, t) for t in texts]
    store.commit_ingest(IngestBatch(
        turn=TurnRecord(key=f"k-{user}-{uuid.uuid4().hex[:6]}", turn_id="t", session_id="s",
                        user_id=user, role="user", text=" ".join(texts), at=T0),
        upserts=units))
    return units


def test_split_keeps_dollar_quoted_bodies_whole() -> None:
    body = "CREATE TABLE a (x INT);\nCREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$;\nDROP X"
    assert _split(body) == ["CREATE TABLE a (x INT)",
                            "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$", "DROP X"]


def test_ingest_fills_user_and_search_stays_in_user(pg_url: str) -> None:
    store = PostgresStore(pg_url, pool_size=2)
    try:
        mine = _ingest(store, "alice", ["我的预算是三千元", "我的預算改成五千", "my budget is 5k"])
        _ingest(store, "bob", ["我的预算是一万元", "my budget is 10k"])
        with store.connection() as conn:
            owners = dict(conn.execute("SELECT unit_id, user_id FROM units_fts").fetchall())
        assert {owners[u.id] for u in mine} == {"alice"}
        assert sorted(set(owners.values())) == ["alice", "bob"]
        for terms in (["预算"], ["budget"]):
            found = {uid for uid, _ in store.keyword_search(Scope("alice", "s"), T0, terms, 10)}
            assert found and found <= {u.id for u in mine}
        # the trigram fallback (no full-text match) is scoped to the user too
        part = store.keyword_search(Scope("bob", "s"), T0, ["udge"], 10)
        assert part and all(owners[uid] == "bob" for uid, _ in part)
    finally:
        store.close()


def test_keyword_indexes_lead_with_the_user(pg_url: str) -> None:
    store = PostgresStore(pg_url, pool_size=1)
    try:
        with store.connection() as conn:
            defs = dict(conn.execute("SELECT indexname, indexdef FROM pg_indexes"
                                     " WHERE tablename = 'units_fts'").fetchall())
            assert "(user_id, tsv)" in defs["units_fts_user_tsv"]
            assert "(user_id, body gin_trgm_ops)" in defs["units_fts_user_trgm"]
            assert "units_fts_tsv" not in defs  # the all-users index is gone
    finally:
        store.close()


def test_a_keyword_row_for_an_unknown_unit_is_refused(pg_url: str) -> None:
    store = PostgresStore(pg_url, pool_size=1)
    try:
        with store.connection() as conn, pytest.raises(psycopg.Error, match="unknown unit"):
            conn.execute("INSERT INTO units_fts (unit_id, body) VALUES ('nope', 'x')")
    finally:
        store.close()


def test_upgrade_from_m004_fills_existing_rows(pg_server: Any) -> None:
    """A database created before m005 (rows without user_id) is upgraded in place."""
    name = f"jiyi_m4_{uuid.uuid4().hex[:10]}"
    url = create_database(pg_server.admin_url, name)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE jiyi_migrations (name TEXT PRIMARY KEY,"
                         " applied_at BIGINT NOT NULL)")
            for mig, body in MIGRATIONS:
                if mig == "m005_fts_by_user":
                    break
                with conn.transaction():
                    for statement in _split(body):
                        conn.execute(statement.encode())
                    conn.execute("INSERT INTO jiyi_migrations VALUES (%s, 0)", (mig,))
            for i, (user, text) in enumerate([("u1", "住 在 台北"), ("u2", "住 在 杭州")]):
                conn.execute(
                    "INSERT INTO units (id, user_id, session_id, type, content, content_hash,"
                    " created_at, expires_in, expires_at, relevance_score, updated_at)"
                    " VALUES (%s, %s, 's', 'fact_reference', %s, 'h', 0, 86400, %s, 1.0, 0)",
                    (f"id{i}", user, text, 2**62))
                conn.execute("INSERT INTO units_fts (unit_id, body) VALUES (%s, %s)",
                             (f"id{i}", text))
        store = PostgresStore(url, pool_size=1)
        try:
            assert store.applied_migrations[:1] == ["m005_fts_by_user"]
            with store.connection() as conn:
                rows = conn.execute("SELECT unit_id, user_id FROM units_fts ORDER BY unit_id")
                assert rows.fetchall() == [("id0", "u1"), ("id1", "u2")]
            now = datetime(2026, 6, 1, tzinfo=UTC)
            assert [u for u, _ in store.keyword_search(Scope("u1", "s"), now, ["住"], 5)] == [
                "id0"]
        finally:
            store.close()
    finally:
        drop_database(pg_server.admin_url, name)


def test_store_error_not_traceback_on_closed_store(pg_url: str) -> None:
    store = PostgresStore(pg_url, pool_size=1)
    store.close()
    with pytest.raises(StoreError):
        store.keyword_search(Scope("u", "s"), T0, ["x"], 5)
