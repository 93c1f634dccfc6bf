"""The migrations' text is pinned: an applied migration is never edited, and the tables both
backends share are spelled once (``jiyi.store.sql.ddl``) without changing a byte of it."""

from __future__ import annotations

import hashlib

import pytest

from jiyi.store.postgres import migrations as postgres_migrations
from jiyi.store.sqlite import migrations as sqlite_migrations

#: SHA-256 (first 16 hex digits) of each migration's text as first applied.
PINNED = {
    "sqlite": {
        "m001_initial": "d9f03ff2ea1f51fb", "m002_health": "454689b7e838fb98",
        "m003_fts_rowmap": "e218b2507295c5cb", "m004_fts_owner": "debb430a20a14bb2",
        "m005_fts_by_user": "e3b0c44298fc1c14", "m006_episodic": "632eccda0d5ceab0",
        "m007_turn_ids": "1169b7bd3d8781bf", "m008_user_vectors": "99ccf9ed19e4c6c5",
        "m009_topic_states": "3b074c38284642ab", "m010_turn_sums": "6388867c00d175a8",
    },
    "postgresql": {
        "m001_initial": "94a2860507ac936b", "m002_health": "b68d70f96e9db543",
        "m003_fts_rowmap": "e3b0c44298fc1c14", "m004_fts_owner": "e3b0c44298fc1c14",
        "m005_fts_by_user": "64001e6b4bd8b2dd", "m006_episodic": "9405a7b8f41f1308",
        "m007_turn_ids": "04043be5d92c91b5", "m008_user_vectors": "eab9383f3fc6c72c",
        "m009_topic_states": "d3340014f3856622", "m010_turn_sums": "5597ebffab88ae16",
    },
}


@pytest.mark.parametrize("backend,migrations", [
    ("sqlite", sqlite_migrations.MIGRATIONS), ("postgresql", postgres_migrations.MIGRATIONS)])
def test_applied_migrations_are_unchanged(backend: str,
                                          migrations: list[tuple[str, str]]) -> None:
    found = {name: hashlib.sha256(body.encode()).hexdigest()[:16] for name, body in migrations}
    assert found == PINNED[backend]  # a new migration is appended here, an old one never edited


def test_shared_tables_are_declared_in_each_dialect() -> None:
    sqlite_m001 = sqlite_migrations.M001_INITIAL
    pg_m001 = postgres_migrations.M001_INITIAL
    assert "at          INTEGER NOT NULL\n);" in sqlite_m001
    assert "at          BIGINT NOT NULL,\n    seq         BIGSERIAL\n);" in pg_m001
    assert "vec      BLOB NOT NULL" in sqlite_m001 and "vec      vector NOT NULL" in pg_m001
    assert sqlite_m001.count("WITHOUT ROWID") == 2 and "WITHOUT ROWID" not in pg_m001
    assert "CREATE VIRTUAL TABLE units_fts USING fts5" in sqlite_m001
    assert "tsvector GENERATED ALWAYS" in pg_m001 and "fts5" not in pg_m001
