"""``jiyi ingest FILE`` a user can trust: every bad line named and nothing stored, an
idempotent rerun, Ctrl-C (a real SIGINT to a real process) leaves a consistent store and the
rerun resumes, the count printed is the file's distinct turn ids."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from jiyi import Memory
from jiyi.cli import ingest_file
from jiyi.cli.app import app
from jiyi.cli.ingest_file import derived_turn_id
from jiyi.store import Scope
from store_snapshot import snapshot

runner = CliRunner()
SRC = str(Path(__file__).resolve().parents[1] / "src")

ZH_EN = ["我的订单号是 A{n:05d}，请帮我查一下", "My order number is B{n:05d}, where is it?",
         "我的手機號碼是 09{n:08d}", "I live in city number {n}", "好的，谢谢"]


def write_lines(path: Path, lines: list[Any]) -> str:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)
                              for x in lines) + "\n", "utf-8")
    return str(path)


def mixed_turns(count: int, *, with_ids: bool = True) -> list[dict[str, Any]]:
    """zh-Hans, zh-Hant and en turns; every third without a turn id (a derived one applies)."""
    out = []
    for n in range(count):
        row: dict[str, Any] = {"role": "user" if n % 2 == 0 else "assistant",
                               "text": ZH_EN[n % len(ZH_EN)].format(n=n),
                               "at": f"2026-04-01T{8 + n // 3600:02d}:{n // 60 % 60:02d}:"
                                     f"{n % 60:02d}Z"}
        if with_ids and n % 3:
            row["turn_id"] = f"D{n}"
        out.append(row)
    return out


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def stored_turns(db: str) -> int:
    with Memory.open(db, embedder="fake", create=False) as mem:
        return mem.store.stats().turns


def test_every_bad_line_is_named_and_nothing_is_stored(tmp_path: Path, db_path: str) -> None:
    good = {"text": "我的邮箱是 ok@example.com", "turn_id": "g1"}
    f = write_lines(tmp_path / "t.jsonl", [
        good,
        {"text": "   "},                                   # 2: blank
        '{"text": "unterminated',                          # 3: not JSON
        {"text": "ok", "at": "next tuesday"},             # 4: bad instant
        "",                                                # 5: empty lines are skipped
        ["not", "an", "object"],                           # 6
        {"role": "robot", "text": "beep"},                 # 7: bad role
        {"text": "fine", "turn_id": "   "},                # 8: blank turn id
        {"text": 42},                                      # 9: not a string
        {"role": "user"},                                  # 10: no text
        good,
    ])
    code, out = invoke("--db", db_path, "ingest", "--session", "s", f)
    assert code == 1
    assert out.startswith(f"Error: 8 lines are bad in {f}; nothing was stored:")
    for n in (2, 3, 4, 6, 7, 8, 9, 10):
        assert f"\n  line {n}: " in out
    assert "line 1:" not in out and "line 5:" not in out and "line 11:" not in out
    assert "line 2: text is empty" in out and "line 7: role must be one of" in out
    assert "Traceback" not in out
    assert not Path(db_path).exists()  # not even an empty store

    many = write_lines(tmp_path / "many.jsonl", [{"text": ""}] * 30 + [good])
    code, out = invoke("--db", db_path, "ingest", "--session", "s", many)
    assert code == 1 and "30 lines are bad" in out
    assert "line 20:" in out and "line 21:" not in out and "... and 10 more bad lines" in out
    assert not Path(db_path).exists()


def test_rerun_is_idempotent_and_counts_distinct_turn_ids(tmp_path: Path, db_path: str) -> None:
    rows = mixed_turns(40)
    rows.append(dict(rows[1]))  # a repeated turn id: one turn
    f = write_lines(tmp_path / "t.jsonl", rows)
    distinct = 40
    code, out = invoke("--db", db_path, "ingest", "--session", "s", "--user", "u", f)
    assert code == 0, out
    assert f"ingested {distinct} turns ({distinct} new, 0 already stored)" in out
    assert stored_turns(db_path) == distinct
    with Memory.open(db_path, embedder="fake") as mem:
        before = snapshot(mem, ["u"])
    code, out = invoke("--db", db_path, "ingest", "--session", "s", "--user", "u", "--quiet", f)
    assert code == 0, out
    assert out.strip().startswith(f"ingested {distinct} turns (0 new, {distinct} already stored)")
    with Memory.open(db_path, embedder="fake") as mem:
        assert snapshot(mem, ["u"]) == before
        stored = {t.turn_id for t in mem.store.recent_turns(Scope("u", "s"), 100)}
    # the lines without an id got the documented derived id
    source = str((tmp_path / "t.jsonl").resolve())
    assert derived_turn_id(source, 1, rows[0]["text"]) in stored
    assert "D1" in stored


def _python_env(db: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("JIYI_DB", "JIYI_TOKEN")}
    env.update(JIYI_EMBEDDER="fake", PYTHONPATH=SRC + os.pathsep + env.get("PYTHONPATH", ""),
               PYTHONUNBUFFERED="1")
    return env


def _interruptible() -> None:
    """In the child before it runs jiyi: SIGINT delivered as from a terminal. A child inherits
    an ignored or blocked SIGINT (and Python then installs no KeyboardInterrupt handler): a
    test run started as a background job (`make test &`) ignores SIGINT, so the ingest this
    test interrupts ran to its end and exited 0."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _ingest_cmd(db: str, f: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "jiyi", "--db", db, "ingest", "--session", "s", "--user", "u",
            *extra, f]


def _turn_count(db: str) -> int:
    if not Path(db).exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM turns").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


def test_ctrl_c_leaves_a_consistent_store_and_the_rerun_resumes(
        tmp_path: Path, db_path: str) -> None:
    rows = mixed_turns(3000)
    f = write_lines(tmp_path / "big.jsonl", rows)
    proc = subprocess.Popen(_ingest_cmd(db_path, f, "--batch-size", "16"),
                            env=_python_env(db_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_interruptible)
    deadline = time.monotonic() + 120
    while _turn_count(db_path) < 48 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the ingest ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert "interrupted:" in err and "run the same command again to resume" in err
    assert "Traceback" not in out + err
    partial = _turn_count(db_path)
    assert 48 <= partial < len(rows)

    # consistent: whole turns only, each with its units, no turn twice
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM (SELECT turn_id FROM turns"
                            " GROUP BY user_id, session_id, turn_id HAVING COUNT(*) > 1)"
                            ).fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM unit_turns WHERE turn_key NOT IN"
                            " (SELECT key FROM turns)").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM turns t WHERE t.text != '好的，谢谢' AND NOT"
                            " EXISTS (SELECT 1 FROM unit_turns ut WHERE ut.turn_key = t.key)"
                            ).fetchone()[0] == 0
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    # the same command again resumes: the count printed is the file's distinct turn ids
    done = subprocess.run(_ingest_cmd(db_path, f, "--quiet"), env=_python_env(db_path),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"ingested {len(rows)} turns ({len(rows) - partial} new, {partial} already stored)" \
        in done.stdout
    assert done.stderr == ""  # --quiet: no progress bar
    assert _turn_count(db_path) == len(rows)

    # and the store is the one an uninterrupted run makes, unit for unit
    whole = str(tmp_path / "whole.db")
    one_go = subprocess.run(_ingest_cmd(whole, f, "--quiet"), env=_python_env(whole),
                            capture_output=True, text=True, timeout=600)
    assert one_go.returncode == 0, one_go.stderr
    with Memory.open(db_path, embedder="fake") as resumed, \
            Memory.open(whole, embedder="fake") as straight:
        assert snapshot(resumed, ["u"]) == snapshot(straight, ["u"])


def test_progress_bar_after_a_second_and_never_with_quiet(
        tmp_path: Path, db_path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    f = write_lines(tmp_path / "t.jsonl", mixed_turns(60))
    monkeypatch.setattr(ingest_file, "PROGRESS_AFTER_SECONDS", 3600.0)  # as if it were quick
    code, out = invoke("--db", db_path, "ingest", "--session", "s", "--batch-size", "8", f)
    assert code == 0 and "turns/s" not in out  # done before the threshold: silent
    monkeypatch.setattr(ingest_file, "PROGRESS_AFTER_SECONDS", 0.0)  # as if it were slow
    f2 = write_lines(tmp_path / "t2.jsonl", mixed_turns(60, with_ids=False))
    code, out = invoke("--db", db_path, "ingest", "--session", "s2", "--batch-size", "8", f2)
    assert code == 0
    assert "turns/s" in out and "60/60" in out and "ETA" in out
    last = out.rstrip().splitlines()[-1]  # how many units is the write path's business
    assert re.fullmatch(r"ingested 60 turns \(60 new, 0 already stored\) -> \d+ units", last)
    code, out = invoke("--db", db_path, "ingest", "--session", "s3", "--quiet", f2)
    assert code == 0 and out.startswith("ingested 60 turns") and "turns/s" not in out
