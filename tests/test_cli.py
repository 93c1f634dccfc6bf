"""The CLI of api-contract.md through Click's runner, and the error boundary."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from jiyi import Memory
from jiyi.cli.app import app

runner = CliRunner()


def jsonl(path: Path, rows: list[dict[str, str]]) -> str:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    return str(path)


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture
def loaded(tmp_path: Path, db_path: str) -> str:
    f = jsonl(tmp_path / "turns.jsonl", [
        {"role": "user", "text": "我叫张伟，订单号是 ABC123", "at": "2026-05-01T09:00:00Z",
         "turn_id": "D1:1"},
        {"role": "user", "text": "My email is zw@example.com", "at": "2026-05-01T09:01:00Z",
         "turn_id": "D1:2"},
    ])
    code, out = invoke("--db", db_path, "ingest", "--session", "s1", "--user", "u1", f)
    assert code == 0, out
    assert "ingested 2 turns" in out
    return db_path


def test_recall_json_has_the_contract_fields(loaded: str) -> None:
    code, out = invoke("--db", loaded, "recall", "--session", "s1", "--user", "u1",
                       "--as-of", "2026-05-01T10:00:00Z", "--json", "我的订单号是多少？")
    assert code == 0, out
    rows = json.loads(out)
    assert rows and "ABC123" in rows[0]["content"]
    for key in ("id", "content", "type", "score", "stage", "source_turn_ids", "session_id",
                "user_id", "created_at", "valid_until", "relevance_score"):
        assert key in rows[0]
    assert rows[0]["source_turn_ids"] == ["D1:1"]


def test_show_forget_gc_stats(loaded: str) -> None:
    rows = json.loads(invoke("--db", loaded, "recall", "--session", "s1", "--user", "u1",
                             "--as-of", "2026-05-01T10:00:00Z", "--json", "email")[1])
    uid = rows[0]["id"]
    code, out = invoke("--db", loaded, "show", "--json", uid)
    assert code == 0 and json.loads(out)["turns"][0]["turn_id"] in {"D1:1", "D1:2"}
    code, out = invoke("--db", loaded, "forget", uid, "--reason", "user asked")
    assert code == 0 and "forgot" in out
    code, out = invoke("--db", loaded, "show", uid)
    assert code == 0 and "user asked" in out
    code, out = invoke("--db", loaded, "gc", "--retention-days", "0")
    assert code == 0 and "purged" in out
    code, out = invoke("--db", loaded, "stats", "--json")
    assert code == 0 and json.loads(out)["turns"] == 2


def test_db_falls_back_to_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "env.db"
    monkeypatch.setenv("JIYI_DB", str(db))
    f = jsonl(tmp_path / "t.jsonl", [{"role": "user", "text": "my name is Ada"}])
    assert invoke("ingest", "--session", "s", f)[0] == 0
    assert db.exists()


def test_db_default_is_the_user_data_dir(tmp_path: Path) -> None:
    f = jsonl(tmp_path / "t.jsonl", [{"role": "user", "text": "my name is Ada"}])
    assert invoke("ingest", "--session", "s", f)[0] == 0
    assert (tmp_path / "xdg" / "jiyi" / "memory.db").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["recall", "x"], "--session"),
        (["recall", "--session", "s", "-k", "0", "x"], "k must"),
        (["recall", "--session", "s", "--as-of", "soon", "x"], "ISO-8601"),
        (["show", "m_missing"], "no memory unit"),
        (["ingest", "--session", "s", "/no/such/file.jsonl"], "no such file"),
    ],
)
def test_errors_are_one_clear_line(mem: Memory, db_path: str, args: list[str],
                                   needle: str) -> None:
    code, out = invoke("--db", db_path, *args)
    assert code != 0
    assert needle in out
    assert "Traceback" not in out


def test_broken_jsonl_and_bad_utf8(tmp_path: Path, mem: Memory, db_path: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\n{"text": \n', "utf-8")
    code, out = invoke("--db", db_path, "ingest", "--session", "s", str(bad))
    assert code != 0 and "line 2" in out
    raw = tmp_path / "raw.jsonl"
    raw.write_bytes(b'{"text": "\xff\xfe"}\n')
    code, out = invoke("--db", db_path, "ingest", "--session", "s", str(raw))
    assert code != 0 and "UTF-8" in out
    # nothing half-written from the broken files
    code, out = invoke("--db", db_path, "stats", "--json")
    assert json.loads(out)["turns"] == 0


def test_every_command_has_help() -> None:
    root = typer.main.get_command(app)
    assert getattr(root, "commands", None)

    def walk(cmd: Any, path: str) -> None:
        assert (cmd.help or cmd.short_help), f"{path} has no help text"
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(root, "jiyi")


def test_real_process_reports_errors_without_traceback(mem: Memory, db_path: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "jiyi", "--db", db_path, "recall", "--session", " ", "q"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode != 0
    assert "session_id must not be blank" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_reindex_fills_vectors_of_a_new_embedder(loaded: str) -> None:
    stats = json.loads(invoke("--db", loaded, "stats", "--json")[1])
    code, out = invoke("--db", loaded, "--embedder", "fake:32", "reindex")
    assert code == 0, out
    assert f"embedded {stats['units_total']} units and {stats['turns']} raw turns with fake-32" in out
    code, out = invoke("--db", loaded, "--embedder", "fake:32", "reindex")
    assert code == 0 and "embedded 0 units and 0 raw turns" in out  # spaces never mix
