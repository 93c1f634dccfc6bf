"""A driver error is a StoreError on both backends: a read or a write that the
database refuses (here: a table dropped behind the store's back) raises
:class:`jiyi.errors.StoreError` naming the cause, never a raw ``sqlite3`` / ``psycopg``
exception; the CLI shows it as one line without a traceback."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from jiyi import Memory
from jiyi.cli.app import app
from jiyi.errors import StoreError
from jiyi.store.base import RecallLogEntry, Scope, Store
from jiyi.store.sqlite import SQLiteStore
from jiyi.units import Entity

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def drop_table(store: Store, table: str) -> None:
    """Drop ``table`` through the store's own connection (what a damaged database looks like)."""
    if isinstance(store, SQLiteStore):
        with store.locked() as conn:
            conn.execute(f"DROP TABLE {table}")
    else:
        from jiyi.store.postgres import PostgresStore  # only where PostgreSQL tests run

        assert isinstance(store, PostgresStore)
        with store.connection() as conn:
            conn.execute(f"DROP TABLE {table} CASCADE")


def test_a_refused_read_is_a_store_error(any_store: Store) -> None:
    drop_table(any_store, "unit_events")
    with pytest.raises(StoreError, match="unit_events"):
        any_store.unit_events("u-1")


def test_a_refused_shared_search_is_a_store_error(any_store: Store) -> None:
    drop_table(any_store, "unit_entities")
    with pytest.raises(StoreError, match="unit_entities"):
        any_store.entity_search(Scope("用户", None), T0, [Entity(kind="order", text="ABC123", value="ABC123")],
                                5)


def test_a_refused_write_is_a_store_error(any_store: Store) -> None:
    drop_table(any_store, "recall_log")
    with pytest.raises(StoreError, match="recall_log"):
        any_store.log_recall([RecallLogEntry("r1", T0, "s", "使用者", "u-1", "vector", 1)])


def test_the_cli_shows_a_refused_read_in_one_line(db_path: str) -> None:
    with Memory.open(db_path, embedder="fake") as mem:
        mem.ingest("我的订单号是 ABC123", session_id="s1", user_id="u1", at=T0)
    with sqlite3.connect(db_path) as conn:
        conn.execute("DROP TABLE unit_events")
    result = CliRunner().invoke(app, ["--db", db_path, "export-user", "u1"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("Error: SQLite read failed") and "unit_events" in lines[0]
