"""SQLite keyword index scoped by an owner token (m004_fts_owner): migration, search, deletion."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from jiyi.store.base import IngestBatch, Scope, TurnRecord
from jiyi.store.sqlite import SQLiteStore
from jiyi.store.sqlite import migrations as sqlite_migrations
from jiyi.store.sqlite.migrations import owner_token, register_functions
from jiyi.text import keyword_terms
from jiyi.units import Lifespan, MemoryType, MemoryUnit

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def _unit(content: str, user: str, session: str = "s") -> MemoryUnit:
    return MemoryUnit(content=content, type=MemoryType.SESSION_STATE,
                      lifespan=Lifespan(created_at=T0, expires_in=86400),
                      session_id=session, user_id=user)


def _put(store: SQLiteStore, unit: MemoryUnit, key: str) -> None:
    turn = TurnRecord(key=key, turn_id=key, session_id=unit.session_id, user_id=unit.user_id,
                      role="user", text=unit.content, at=T0)
    store.commit_ingest(IngestBatch(turn=turn, upserts=[unit]))


def _search(store: SQLiteStore, user: str, query: str) -> list[str]:
    return [i for i, _ in store.keyword_search(Scope(user, "s"), T0, keyword_terms(query), 10)]


@pytest.mark.parametrize("user_id", ["alice", "用户-甲", "使用者：乙", "a b\"c:d", ""])
def test_owner_token_is_one_opaque_token(user_id: str) -> None:
    token = owner_token(user_id)
    assert token == "o" + hashlib.sha256(user_id.encode()).hexdigest()[:20]
    assert token.isascii() and token.isalnum() and token == token.lower()
    assert owner_token(user_id) == token  # pure
    conn = sqlite3.connect(":memory:")
    register_functions(conn)
    assert conn.execute("SELECT jiyi_owner(?), jiyi_owner(NULL)", (user_id,)).fetchone() == \
        (token, None)
    # unicode61 keeps it as exactly one token, so ``owner:"<token>"`` is a single-term match.
    conn.execute("CREATE VIRTUAL TABLE f USING fts5 (x, tokenize = 'unicode61 remove_diacritics 2')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'row')")
    conn.execute("INSERT INTO f (x) VALUES (?)", (token,))
    assert [r[0] for r in conn.execute("SELECT term FROM v")] == [token]


def test_search_matches_only_the_scope_users_rows(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "m.db"))
    mine = [_unit("我喜欢喝咖啡", "alice"), _unit("我喜歡喝咖啡和茶", "alice"),
            _unit("I like coffee in the morning", "alice")]
    theirs = [_unit("我喜欢喝咖啡", "bob"), _unit("I like coffee", "bob")]
    for i, u in enumerate(mine + theirs):
        _put(store, u, f"t{i}")
    assert set(_search(store, "alice", "咖啡")) == {mine[0].id, mine[1].id}
    assert set(_search(store, "alice", "coffee")) == {mine[2].id}
    assert set(_search(store, "bob", "咖啡 coffee")) == {u.id for u in theirs}
    assert _search(store, "carol", "咖啡 coffee") == []
    # The owner token is generated, never searchable as body text, and user text naming the
    # column is only text.
    assert _search(store, "alice", owner_token("bob")) == []
    injected = f'owner:"{owner_token("bob")}" OR body:coffee'
    assert _search(store, "alice", injected) == [mine[2].id]  # "coffee" matched as a word
    with store.locked() as conn:
        rows = conn.execute("SELECT unit_id, owner FROM units_fts").fetchall()
    assert {uid: o for uid, o in rows} == {
        u.id: owner_token(u.user_id) for u in mine + theirs}
    store.close()


def test_ranking_uses_the_body_only(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "m.db"))
    dense = _unit("meeting meeting meeting notes", "alice")
    sparse = _unit("meeting about the quarterly budget and hiring plan", "alice")
    _put(store, sparse, "t1")
    _put(store, dense, "t2")
    hits = store.keyword_search(Scope("alice", "s"), T0, ["meeting"], 10)
    assert [i for i, _ in hits] == [dense.id, sparse.id]
    assert hits[0][1] > hits[1][1] > 0
    store.close()


def _old_store(path: str) -> None:
    """A store as m003 left it: FTS rows without an owner, rowids with gaps, a rowid map."""
    conn = sqlite3.connect(path, isolation_level=None)
    old = sqlite_migrations.MIGRATIONS[:3]
    assert [n for n, _ in old] == ["m001_initial", "m002_health", "m003_fts_rowmap"]
    saved = sqlite_migrations.MIGRATIONS
    sqlite_migrations.MIGRATIONS = old
    try:
        sqlite_migrations.apply_migrations(conn)
    finally:
        sqlite_migrations.MIGRATIONS = saved
    rows = [("m1", "alice", "咖啡 coffee", 7), ("m2", "alice", "茶 tea", 42),
            ("m3", "bob", "咖啡 coffee", 43), ("m4", "用户甲", "會議 meeting", 100)]
    for uid, user, body, rowid in rows:
        conn.execute(
            "INSERT INTO units (id, user_id, session_id, type, content, content_hash, created_at,"
            " expires_in, expires_at, relevance_score, updated_at)"
            " VALUES (?, ?, 's', 'session_state', ?, 'h', ?, 86400, ?, 1.0, 0)",
            (uid, user, body, 0, 2**62))
        conn.execute("INSERT INTO units_fts (rowid, unit_id, body) VALUES (?, ?, ?)",
                     (rowid, uid, body))
        conn.execute("INSERT INTO unit_fts_rows (unit_id, fts_rowid) VALUES (?, ?)", (uid, rowid))
    conn.close()


def test_m004_migrates_rows_keeping_rowids(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    _old_store(path)
    store = SQLiteStore(path)
    assert store.applied_migrations[:2] == ["m004_fts_owner", "m005_fts_by_user"]
    with store.locked() as conn:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(units_fts)")]
        rows = conn.execute("SELECT rowid, unit_id, owner, body FROM units_fts ORDER BY rowid")
        got = rows.fetchall()
        mapped = dict(conn.execute("SELECT unit_id, fts_rowid FROM unit_fts_rows").fetchall())
        leftovers = conn.execute("SELECT name FROM sqlite_master WHERE name LIKE '%m004%'")
        assert leftovers.fetchall() == []
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert cols == ["unit_id", "owner", "body"]
    assert [(r[0], r[1], r[2]) for r in got] == [
        (7, "m1", owner_token("alice")), (42, "m2", owner_token("alice")),
        (43, "m3", owner_token("bob")), (100, "m4", owner_token("用户甲"))]
    assert mapped == {r[1]: r[0] for r in got}
    assert _search(store, "alice", "咖啡 tea") != [] and set(_search(store, "alice", "咖啡 tea")) \
        == {"m1", "m2"}
    assert _search(store, "用户甲", "会议 會議 meeting") == ["m4"]
    # The map still deletes the right row after the rebuild.
    store.erase_user("alice")
    with store.locked() as conn:
        left = conn.execute("SELECT rowid, unit_id FROM units_fts ORDER BY rowid").fetchall()
    assert left == [(43, "m3"), (100, "m4")]
    store.close()


def test_bm25_rank_is_pure_bm25_over_the_users_rows() -> None:
    from jiyi.store.cache.bm25 import bm25_rank, fold_tokens

    assert fold_tokens("Café NAÏVE 咖啡，ABC123 déjà-vu 會議") == \
        ["cafe", "naive", "咖啡", "abc123", "deja", "vu", "會議"]
    docs = [("a", "咖啡 咖啡 coffee"), ("b", "咖啡 茶 tea and more words here"),
            ("c", "會議 meeting"), ("d", "nothing that this tokenizer finds")]
    ranked = bm25_rank(docs, ["咖啡", "Coffee", "會議"], n_docs=100)
    assert [i for i, _ in ranked] == ["a", "c", "b", "d"]
    assert all(s > 0 for _, s in ranked) and ranked[-1][1] < 1e-6  # matched by FTS: kept, last
    # A rarer term (lower df among the user's rows) weighs more than a common one.
    two = bm25_rank([("x", "rare common"), ("y", "common"), ("z", "common")],
                    ["rare", "common"], n_docs=3)
    assert two[0][0] == "x"
    assert bm25_rank([], ["x"], 5) == []
    assert bm25_rank(docs, ["deja vu"], 4)[0][1] < 1e-6  # a phrase absent from every body
