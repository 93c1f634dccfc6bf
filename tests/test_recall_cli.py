"""``jiyi recall`` explains an empty or history-only answer in one line and its
table keeps the answer readable at 80 columns, in zh-Hans, zh-Hant and English."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from jiyi import Memory
from jiyi.cli.app import app
from jiyi.cli.recall_view import explain_recall
from jiyi.store.base import StoreStats
from jiyi.units import Hit

runner = CliRunner()
T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)

TURNS = [
    {"role": "user", "turn_id": "conversation-2026-05-01:turn-000001",
     "text": "我叫张伟，订单号是 ABC123，收货地址是上海市浦东新区世纪大道100号，手机号 13812345678"},
    {"role": "user", "turn_id": "conversation-2026-05-01:turn-000002",
     "text": "我住在台北市信義區松仁路100號，訂單編號 XYZ789 還沒到貨，請幫我查一下物流狀態"},
    {"role": "user", "turn_id": "conversation-2026-05-01:turn-000003",
     "text": "My order number is QWE456 and it should arrive at 221B Baker Street, London"},
]


def ingest(db: str, tmp_path: Path, *, user: str = "u1", at: datetime = T0) -> None:
    path = tmp_path / f"turns-{user}.jsonl"
    rows = [{**t, "at": (at + timedelta(minutes=i)).isoformat()} for i, t in enumerate(TURNS)]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    result = runner.invoke(app, ["--db", db, "ingest", "--session", "s1", "--user", user,
                                 str(path)])
    assert result.exit_code == 0, result.output


def recall(db: str, *args: str) -> str:
    result = runner.invoke(app, ["--db", db, "recall", "--session", "s1", *args],
                           env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


def content_column(table: str) -> str:
    """The text of the table's content column, every whitespace removed (the columns before it
    are ASCII, so a character offset is a cell offset)."""
    lines = table.splitlines()
    header = next(i for i, line in enumerate(lines) if "content" in line and "score" in line)
    start = lines[header].index("content")
    return "".join("".join(line[start:].split()) for line in lines[header + 2:])


@pytest.mark.parametrize(("query", "needle"), [
    ("我的订单号是多少？", "ABC123"), ("我的訂單編號是什麼？", "XYZ789"),
    ("what is my order number", "QWE456")])
def test_table_keeps_the_answer_at_80_columns(db_path: str, tmp_path: Path, query: str,
                                              needle: str) -> None:
    ingest(db_path, tmp_path)
    as_of = (T0 + timedelta(hours=1)).isoformat()
    rows = json.loads(recall(db_path, "--user", "u1", "--as-of", as_of, "--json", query))
    assert any(needle in r["content"] for r in rows)
    out = recall(db_path, "--user", "u1", "--as-of", as_of, query)
    assert all(cell_len(line) <= 80 for line in out.splitlines()), out
    assert "…" not in out and "conversation-2026" not in out  # no turn-id column
    shown = content_column(out)
    for r in rows:  # every hit's whole content, folded but never cut
        assert "".join(r["content"].split()) in shown, (r["content"], out)
    assert "2026-05-01" in out and "current" in out  # each hit's date and status
    assert "showing history" not in out and "no memories" not in out


def test_an_unknown_user_is_named(db_path: str, tmp_path: Path) -> None:
    ingest(db_path, tmp_path)
    out = recall(db_path, "--user", "u9", "我的订单号是多少？")
    assert out.strip() == "no memories for user u9 in this store"
    # without --user the session is the user
    out = recall(db_path, "where do I live")
    assert out.strip() == "no memories for user s1 in this store"


def test_nothing_known_yet_at_as_of(db_path: str, tmp_path: Path) -> None:
    ingest(db_path, tmp_path)
    before = (T0 - timedelta(days=1)).isoformat()
    out = recall(db_path, "--user", "u1", "--as-of", before, "我的訂單編號是什麼？")
    assert out.strip().startswith("no memories for user u1 match this query as of 2026-04-30")
    assert len(out.strip().splitlines()) == 1


def test_an_old_import_comes_back_as_history(db_path: str, tmp_path: Path) -> None:
    old = datetime.now(UTC) - timedelta(days=426)
    ingest(db_path, tmp_path, at=old)
    out = recall(db_path, "--user", "u1", "我的订单号是多少？")
    first = out.splitlines()[0]
    assert "match but are" in first and first.endswith(": showing history"), out
    assert "expired" in out and old.strftime("%Y-%m-%d") in out and "ABC123" in out


def test_an_old_import_is_explained_in_one_line(db_path: str, tmp_path: Path) -> None:
    """Whatever recall returns for a 14-month-old import, the user is told why nothing is
    current: either it is shown as history, or the empty answer counts the expired units."""
    old = datetime.now(UTC) - timedelta(days=426)
    ingest(db_path, tmp_path, at=old)
    first = recall(db_path, "--user", "u1", "我的订单号是多少？").splitlines()[0]
    assert first.endswith(": showing history") or (
        first.startswith("no memories for user u1 match this query (")
        and first.endswith("are expired or invalidated)")), first


# ---------------------------------------------------------------- the reason, as a pure function
def hits_of(mem: Memory, *statuses: str) -> list[Hit]:
    units = mem.export_user("u1")["units"]
    assert len(units) >= len(statuses)
    return [Hit(unit=mem.get(u["id"]), score=1.0, stage="keyword", status=s)  # type: ignore[arg-type]
            for u, s in zip(units, statuses, strict=False)]


def stats(total: int, valid: int) -> StoreStats:
    return StoreStats.from_counts(total=total, expired=total - valid, superseded=0, forgotten=0,
                                  by_type={}, turns=total, users=1, sessions=1, size_bytes=0)


def test_explain_recall(db_path: str, tmp_path: Path) -> None:
    ingest(db_path, tmp_path)
    with Memory.open(db_path, embedder="fake") as mem:
        assert explain_recall(hits_of(mem, "current", "expired"), "u1", None) is None
        assert (explain_recall(hits_of(mem, "expired", "expired", "expired"), "u1", None)
                == "3 memories match but are expired: showing history")
        assert (explain_recall(hits_of(mem, "superseded"), "u1", None)
                == "1 memory matches but is superseded: showing history")
        assert (explain_recall(hits_of(mem, "expired", "superseded", "expired"), "u1", None)
                == "3 memories match but are history (2 expired, 1 superseded): showing history")
    assert explain_recall([], "u1", stats(0, 0)) == "no memories for user u1 in this store"
    assert (explain_recall([], "用户一", stats(4, 4))
            == "no memories for user 用户一 match this query")
    assert (explain_recall([], "u1", stats(5, 1), T0)
            == "no memories for user u1 match this query as of 2026-05-01T09:00:00Z"
               " (4 of 5 are expired or invalidated)")
