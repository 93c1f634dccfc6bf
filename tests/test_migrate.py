"""``jiyi migrate``: SQLite -> PostgreSQL -> SQLite copies everything, verified, and the copy
behaves like the original (same recall, same history, same as_of answers)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from jiyi import Memory
from jiyi.cli.app import app
from jiyi.store import open_store
from jiyi.store.transfer import copy_store, shared_tables, table_digest

pytestmark = pytest.mark.postgres
T0 = datetime(2026, 8, 1, 9, 0, tzinfo=UTC)
runner = CliRunner()


def fill(path: str) -> dict[str, str]:
    """A small memory with every kind of row: repeats, supersession, forget, feedback, logs."""
    with Memory.open(path, embedder="fake") as mem:
        ids: dict[str, str] = {}
        ids["order"] = mem.ingest("我的订单号是 MG20260801", session_id="s1", user_id="amy",
                                  at=T0)[0].id
        mem.ingest("我的订单号是 MG20260801", session_id="s1", user_id="amy",
                   at=T0 + timedelta(minutes=1))
        ids["phone"] = mem.ingest("我的電話號碼是 13700001111", session_id="s2", user_id="amy",
                                  at=T0 + timedelta(minutes=2))[0].id
        ids["en"] = mem.ingest("Ben prefers window seats on flights", session_id="b1",
                               user_id="ben", at=T0 + timedelta(minutes=3))[0].id
        hits = mem.recall("订单号", session_id="s1", user_id="amy", as_of=T0 + timedelta(hours=1))
        mem.feedback(hits[0].unit.id, "used")
        mem.forget(ids["phone"], "number changed", at=T0 + timedelta(minutes=30))
        return ids


def snapshot(url: str, ids: dict[str, str]) -> dict[str, Any]:
    with Memory.open(url, embedder="fake") as mem:
        at = T0 + timedelta(hours=1)
        return {
            "recall": [(h.unit.id, h.stage) for h in mem.recall(
                "MG20260801 订单", session_id="s1", user_id="amy", as_of=at, log=False)],
            "recall_en": [h.unit.id for h in mem.recall(
                "window seat", session_id="b1", user_id="ben", as_of=at, log=False)],
            "past": [h.unit.id for h in mem.recall(
                "电话", session_id="s2", user_id="amy", as_of=T0 + timedelta(minutes=10),
                log=False)],
            "now": [h.unit.id for h in mem.recall(
                "电话", session_id="s2", user_id="amy", as_of=at, log=False)],
            "history": {k: ([t.key for t in mem.history(v).turns],
                            [(e.event, e.score_after) for e in mem.history(v).events])
                        for k, v in ids.items()},
            "units": {k: mem.get(v).model_dump() for k, v in ids.items()},
            "stats": {k: v for k, v in vars(mem.store.stats(as_of=at)).items()
                      if k != "size_bytes"},
            "hit_rate": mem.store.recall_hit_rate(None),
            "export": mem.store.export_user("amy"),
        }


def test_cli_round_trip_sqlite_postgres_sqlite(tmp_path: Path, pg_url: str) -> None:
    first = str(tmp_path / "first.db")
    ids = fill(first)
    before = snapshot(first, ids)
    assert before["past"][0] == ids["phone"]  # known in the past ...
    assert ids["phone"] not in before["now"]  # ... forgotten now

    result = runner.invoke(app, ["migrate", "--from", first, "--to", pg_url])
    assert result.exit_code == 0, result.output
    assert "counts and checksums match" in result.output
    assert "unit_vectors" in result.output and "MISMATCH" not in result.output
    assert snapshot(pg_url, ids) == before

    back = str(tmp_path / "back.db")
    result = runner.invoke(app, ["migrate", "--from", pg_url, "--to", back])
    assert result.exit_code == 0, result.output
    assert snapshot(back, ids) == before

    # Every shared table is identical after the round trip, not only what the API shows.
    a, b = open_store(first), open_store(back)
    try:
        tables = shared_tables(a, b)
        assert {"units", "turns", "unit_turns", "unit_entities", "unit_vectors", "units_fts",
                "unit_events", "recall_log"} <= set(tables)
        for table, columns in tables.items():
            assert table_digest(a, table, columns) == table_digest(b, table, columns), table
    finally:
        a.close()
        b.close()


def test_refuses_a_non_empty_target_and_bad_urls(tmp_path: Path, pg_url: str) -> None:
    first = str(tmp_path / "first.db")
    fill(first)
    assert runner.invoke(app, ["migrate", "--from", first, "--to", pg_url]).exit_code == 0
    again = runner.invoke(app, ["migrate", "--from", first, "--to", pg_url])
    assert again.exit_code == 1 and "not empty" in again.output
    assert "Traceback" not in again.output
    same = runner.invoke(app, ["migrate", "--from", first, "--to", first])
    assert same.exit_code == 1 and "same store" in same.output
    bad = runner.invoke(app, ["migrate", "--from", first, "--to", "mysql://x/y"])
    assert bad.exit_code == 1 and "unknown store URL" in bad.output


def test_checksum_detects_a_changed_row(tmp_path: Path, pg_url: str) -> None:
    first = str(tmp_path / "first.db")
    fill(first)
    src, dst = open_store(first), open_store(pg_url)
    try:
        reports = copy_store(src, dst)
        assert all(r.ok for r in reports)
        with dst.connection() as conn:  # type: ignore[attr-defined]
            conn.execute("UPDATE units SET relevance_score = relevance_score + 0.01"
                         " WHERE id = (SELECT MIN(id) FROM units)")
        cols = shared_tables(src, dst)["units"]
        assert table_digest(src, "units", cols) != table_digest(dst, "units", cols)
        assert table_digest(src, "units", cols)[0] == table_digest(dst, "units", cols)[0]
    finally:
        src.close()
        dst.close()
