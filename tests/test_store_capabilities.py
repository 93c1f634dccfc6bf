"""Optional store capabilities (``jiyi.store.capabilities``) on both backends: each store claims
exactly the capabilities it has; callers fall back cleanly for a store without them; the one
persisted health state and the one migration runner behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from jiyi import Memory
from jiyi.clock import utc_now
from jiyi.errors import StoreError
from jiyi.health.state import LocalHealthState, health_state_for
from jiyi.store import Store, open_store
from jiyi.store.capabilities import (
    BulkTransferStore,
    HealthStateStore,
    ResidentTablesStore,
    VectorIndexStore,
    WarmableStore,
)
from jiyi.store.sql.health import SqlHealthState
from jiyi.store.sql.migrations import MigrationDb, run_migrations
from jiyi.store.transfer import copy_store

T0 = datetime(2026, 5, 20, 9, 0, tzinfo=UTC)
CAPABILITIES = {"warm": WarmableStore, "health": HealthStateStore, "bulk": BulkTransferStore,
                "vector_index": VectorIndexStore, "resident": ResidentTablesStore}
CLAIMS = {"sqlite": {"warm", "health", "bulk", "resident"},
          "postgresql": {"warm", "health", "bulk", "vector_index"}}


def test_each_backend_claims_exactly_its_capabilities(any_store: Store) -> None:
    claimed = {name for name, cap in CAPABILITIES.items() if isinstance(any_store, cap)}
    assert claimed == CLAIMS[any_store.backend]
    assert isinstance(any_store, Store)


class Bare:
    """A store with the contract only: every capability method hidden."""

    HIDDEN = frozenset({"warm", "health_state", "table_columns", "read_table", "bulk_insert",
                        "ensure_vector_index", "load_user_tables"})

    def __init__(self, inner: Store) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name in self.HIDDEN:
            raise AttributeError(name)
        return getattr(self._inner, name)


def test_a_store_without_capabilities_falls_back(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    with Memory.open(path, embedder="fake") as mem:
        mem.ingest("我住在台北市大安區", session_id="會話", user_id="用戶")
    inner = open_store(path)
    try:
        bare: Any = Bare(inner)
        assert isinstance(bare, Store) and not any(isinstance(bare, c)
                                                  for c in CAPABILITIES.values())
        with Memory(bare, embedder="fake") as mem:
            assert mem.warmed_units == 0  # no warm-up, no AttributeError
            assert isinstance(health_state_for(mem.store), LocalHealthState)
            hits = mem.recall("台北", session_id="會話", user_id="用戶", log=False)
            assert hits and all("台北" in h.unit.content for h in hits)
        target = open_store(str(tmp_path / "copy.db"))
        try:
            with pytest.raises(StoreError, match="cannot be copied"):
                copy_store(bare, target)
        finally:
            target.close()
    finally:
        inner.close()


def test_both_backends_warm_recent_units_and_answer_the_same(store_url: str) -> None:
    """The warm-up reads the recent valid units (and plans the searches ahead on PostgreSQL);
    it changes nothing a recall returns."""
    with Memory.open(store_url, embedder="fake") as mem:
        for text in ("我喜欢喝乌龙茶", "我住在臺北市大安區", "I always book an aisle seat"):
            mem.ingest(text, session_id="s", user_id="u")
    asked = utc_now() + timedelta(minutes=1)
    with Memory(open_store(store_url), embedder="fake", warm=False) as mem:
        assert mem.warmed_units == 0
        cold = [[(h.unit.id, h.score) for h in mem.recall(
            q, session_id="s", user_id="u", log=False, as_of=asked)]
                for q in ("乌龙茶", "臺北", "aisle seat")]
    with Memory.open(store_url, embedder="fake") as mem:
        valid = mem.store.stats().units_valid
        assert valid >= 3 and isinstance(mem.store, WarmableStore)
        assert mem.warmed_units == valid
        warm = [[(h.unit.id, h.score) for h in mem.recall(
            q, session_id="s", user_id="u", log=False, as_of=asked)]
                for q in ("乌龙茶", "臺北", "aisle seat")]
    assert warm == cold and all(cold)


def test_one_shot_cli_commands_skip_the_warm_up_and_servers_keep_it(tmp_path: Path) -> None:
    """``Memory.open(warm=False)`` reads nothing ahead; the CLI's one-shot commands open that
    way (a recall from the shell must not pay for a server's warm-up), the long-running ones
    (serve, proxy, mcp, chat) warm; the answers are the same."""
    from jiyi.cli.common import CliState

    db = str(tmp_path / "m.db")
    with Memory.open(db, embedder="fake") as mem:
        for text in ("我喜欢喝乌龙茶", "我住在臺北市大安區", "I always book an aisle seat"):
            mem.ingest(text, session_id="s", user_id="u")
    asked = utc_now() + timedelta(minutes=1)
    answers = []
    for warm in (False, True):
        with CliState(db=db, embedder="fake").open(warm=warm) as mem:
            assert (mem.warmed_units > 0) is warm
            answers.append([h.unit.id for h in mem.recall(
                "乌龙茶", session_id="s", user_id="u", log=False, as_of=asked)])
    with Memory.open(db, embedder="fake", warm=False) as mem:
        assert mem.warmed_units == 0
    assert answers[0] == answers[1] and answers[0]


def test_one_health_state_on_both_backends(any_store: Store) -> None:
    assert isinstance(any_store, HealthStateStore)
    state = any_store.health_state()
    assert isinstance(state, SqlHealthState)
    user, session = "用户甲", "s1會話一"

    state.note_recall(user, session, True, T0)
    assert state.last_recall_empty(user, session)
    state.note_recall(user, session, False, T0)
    assert not state.last_recall_empty(user, session)
    assert not state.last_recall_empty(user, "never seen")

    ups = [state.record_reply(user, session, True, 3, T0 + timedelta(minutes=i))
           for i in range(4)]
    assert [(u.streak, u.alerting, u.raised) for u in ups] == [
        (1, False, False), (2, False, False), (3, True, True), (4, True, False)]
    state.record_reply(user, "s2", True, 1, T0)
    assert state.alerting_sessions(None, 10) == ([session, "s2"], 2)
    assert state.alerting_sessions(None, 1) == ([session], 2)
    assert state.alerting_sessions(session, 10) == ([session], 1)
    assert state.counters()["amnesia_alerts"] == 2
    calm = state.record_reply(user, session, False, 3, T0)
    assert (calm.streak, calm.alerting, calm.raised) == (0, False, False)
    assert state.alerting_sessions(session, 10) == ([], 0)
    # a calm reply in an unknown session writes nothing and raises nothing
    assert not state.record_reply(user, "new", False, 3, T0).alerting

    state.bump("cleanup_runs")
    state.bump("cleanup_purged_units", 5)
    assert state.counters() == {"amnesia_alerts": 2, "cleanup_runs": 1,
                                "cleanup_purged_units": 5}

    assert state.claim_cleanup(T0, 3600)
    assert not state.claim_cleanup(T0 + timedelta(minutes=59), 3600)
    assert state.claim_cleanup(T0 + timedelta(hours=1), 3600)
    assert state.unit_counts(T0) == {}


class ClaimsNothingRecorded:
    """A real backend connection that reports no recorded migration before the lock: the
    runner must re-check under the lock and apply nothing twice."""

    def __init__(self, inner: MigrationDb) -> None:
        self._inner = inner

    def prepare(self) -> set[str]:
        self._inner.prepare()
        return set()

    def schema_transaction(self) -> AbstractContextManager[None]:
        return self._inner.schema_transaction()

    def execute(self, statement: str, params: dict[str, Any] | None = None) -> list[Any]:
        return self._inner.execute(statement, params)

    def split(self, body: str) -> list[str]:
        return self._inner.split(body)


@pytest.fixture
def migration_db(store_url: str) -> Iterator[tuple[MigrationDb, list[tuple[str, str]]]]:
    """The backend's own migration connection, on an already migrated store."""
    open_store(store_url).close()
    if store_url.startswith("postgresql"):
        import psycopg

        from jiyi.store.postgres import migrations as pm

        with psycopg.connect(store_url, autocommit=True) as conn:
            yield pm._PgMigrationDb(conn), pm.MIGRATIONS
    else:
        import sqlite3

        from jiyi.store.sqlite import migrations as sm

        conn = sqlite3.connect(store_url, isolation_level=None)
        sm.register_functions(conn)
        try:
            yield sm._SqliteMigrationDb(conn), sm.MIGRATIONS
        finally:
            conn.close()


def test_runner_rechecks_under_the_lock(
    migration_db: tuple[MigrationDb, list[tuple[str, str]]]
) -> None:
    db, migrations = migration_db
    assert run_migrations(db, migrations) == []
    assert run_migrations(ClaimsNothingRecorded(db), migrations) == []
    names = [r[0] for r in db.execute("SELECT name FROM jiyi_migrations ORDER BY name", {})]
    assert names == [n for n, _ in migrations]


def test_runner_applies_new_migrations_in_order_and_records_them(
    migration_db: tuple[MigrationDb, list[tuple[str, str]]]
) -> None:
    db, migrations = migration_db
    extra = [("m900_notes", "CREATE TABLE caps_notes (id INTEGER PRIMARY KEY, body TEXT);"
                            "INSERT INTO caps_notes (id, body) VALUES (1, '备注: 記錄')"),
             ("m901_empty", "")]
    assert run_migrations(db, [*migrations, *extra]) == ["m900_notes", "m901_empty"]
    assert run_migrations(db, [*migrations, *extra]) == []
    rows = db.execute("SELECT name, applied_at FROM jiyi_migrations WHERE name >= :n"
                      " ORDER BY name", {"n": "m9"})
    assert [r[0] for r in rows] == ["m900_notes", "m901_empty"]
    assert all(isinstance(r[1], int) and r[1] > 0 for r in rows)
    assert db.execute("SELECT body FROM caps_notes", {}) == [("备注: 記錄",)]
    # a failing migration is rolled back whole and not recorded
    bad = [("m902_bad", "CREATE TABLE caps_half (id INTEGER); SELECT * FROM no_such_table")]
    with pytest.raises(Exception, match="no_such_table"):
        run_migrations(db, [*migrations, *extra, *bad])
    assert db.execute("SELECT name FROM jiyi_migrations WHERE name = :n", {"n": "m902_bad"}) == []
    with pytest.raises(Exception, match="caps_half"):
        db.execute("SELECT * FROM caps_half", {})
