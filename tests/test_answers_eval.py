"""``jiyi eval answers`` end to end against a local fake server speaking Ollama's HTTP API
(tests/fake_ollama.py): all three data set shapes, the three plans, the judge, the report; and a
run killed with SIGKILL mid-way that resumes without asking an answered question again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from answers_fixtures import LOCOMO_FILE, MADIAL_DIR, fake_judge_or_reader
from fake_ollama import FakeOllama
from jiyi.cli.app import app
from jiyi.context.tokens import QwenTokenCounter
from jiyi_bench.answers_score import JUDGE_SYSTEM
from live_server import ThreadServer

SCENARIOS = Path(__file__).parent / "data" / "eval"
QWEN = QwenTokenCounter()


def _reader_bodies(fake: FakeOllama) -> list[dict[str, Any]]:
    """Chat requests of the reader (not the warm-up, not the judge)."""
    out = []
    for body in fake.bodies("/api/chat"):
        last = str(body["messages"][-1]["content"])
        if last == "hello" or "Gold answer:" in last:
            continue
        out.append(body)
    return out


def test_answers_on_all_data_sets_with_a_judge(tmp_path: Path) -> None:
    fake = FakeOllama(reply=fake_judge_or_reader, count_prompt=True)
    with ThreadServer(fake.app) as srv:
        spec = f"ollama:qwen2.5:7b@{srv.url}"
        result = CliRunner().invoke(app, [
            "eval", "answers", "--reader", spec, "--judge", spec,
            "--data", str(LOCOMO_FILE), "--data", str(MADIAL_DIR),
            "--data", str(SCENARIOS), "--embedder", "fake", "--num-ctx", "700",
            "--max-tokens", "32", "--work", str(tmp_path / "work"),
            "--out-dir", str(tmp_path / "out"), "--name", "answers-test"])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out" / "answers-test.json").read_text(encoding="utf-8"))
    rows = report["rows"]
    # LoCoMo categories 1-4 only (4 of 5), both MADial languages, every scenario query
    n_scenarios = sum(len(json.loads(p.read_text(encoding="utf-8"))["queries"])
                      for p in SCENARIOS.glob("*.json"))
    assert report["questions"] == 4 + 2 + n_scenarios
    assert len(rows) == 3 * report["questions"]
    assert Counter(r["plan"] for r in rows) == {"A": report["questions"],
                                                 "B": report["questions"],
                                                 "C": report["questions"]}
    assert not [r for r in rows if r["error"]]
    assert report["model"] == "qwen2.5:7b" and report["num_ctx"] == 700
    s = report["summary"]
    assert set(s["by_dataset"]) == {"locomo", "madial", "scenarios"}
    assert set(s["by_language"]) == {"en", "zh-Hans", "zh-Hant"}
    assert "locomo 2 temporal" in s["by_category"] and "madial memory reply" in s["by_category"]
    # the fake reader answers from what the prompt shows: the LoCoMo cat question is answered
    # from the raw history (A) and from the recalled unit (C), and the judge says so
    cat = {r["plan"]: r for r in rows if r["case_id"] == "locomo-0-q0"}
    for plan in ("A", "C"):
        assert "Pepper" in cat[plan]["answer"], cat[plan]
        assert cat[plan]["judge"] == "CORRECT" and cat[plan]["f1"] > 0
        assert cat[plan]["evidence_in_prompt"] == 1.0
    assert all(r["judge"] in ("CORRECT", "WRONG") for r in rows)
    assert all(r["server_tokens"] and r["qwen_tokens"] for r in rows)
    assert all(r["first_token_s"] is not None and r["total_s"] >= r["first_token_s"] for r in rows)
    # what the server got: the window and temperature 0 on every call; plan A within the window
    for body in _reader_bodies(fake):
        assert body["options"]["num_ctx"] == 700 and body["options"]["temperature"] == 0.0
        assert QWEN.count_messages(body["messages"]) <= 700 - 32
    judged = [b for b in fake.bodies("/api/chat") if "Gold answer:" in b["messages"][-1]["content"]]
    assert len(judged) == len(rows)
    assert all(b["messages"][0]["content"] == JUDGE_SYSTEM for b in judged)
    assert all(b["options"]["temperature"] == 0.0 for b in judged)
    md = (tmp_path / "out" / "answers-test.md").read_text(encoding="utf-8")
    for needle in ("## Per category", "## Per language", "zh-Hant", "Machine:", JUDGE_SYSTEM,
                   "| all | A raw history |", "Reader: `ollama:qwen2.5:7b@", "LoCoMo (categories"):
        assert needle in md
    assert (tmp_path / "out" / "answers-test.png").stat().st_size > 1000


def test_plan_a_is_cut_at_a_small_window(tmp_path: Path) -> None:
    fake = FakeOllama(count_prompt=True)
    with ThreadServer(fake.app) as srv:
        result = CliRunner().invoke(app, [
            "eval", "answers", "--reader", f"ollama:qwen2.5:7b@{srv.url}", "--data",
            str(SCENARIOS), "--embedder", "fake", "--num-ctx", "300", "--plans", "A",
            "--max-tokens", "16", "--limit", "4", "--work", str(tmp_path / "w"),
            "--out-dir", str(tmp_path), "--name", "a"])
    assert result.exit_code == 0, result.output
    rows = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))["rows"]
    assert len(rows) == 4 and {r["plan"] for r in rows} == {"A"}
    assert all(0 < r["turns_kept"] < r["turns_total"] for r in rows)
    for body in _reader_bodies(fake):
        assert QWEN.count_messages(body["messages"]) <= 300 - 16
        # the newest turn is always there: the cut takes the oldest first
        assert body["messages"][-2]["content"].startswith("[")


def _command(url: str, work: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "jiyi", "eval", "answers", "--reader",
            f"ollama:qwen2.5:7b@{url}", "--data", str(SCENARIOS), "--embedder", "fake",
            "--sample", "6", "--seed", "4", "--work", str(work), "--out-dir", str(out),
            "--name", "killed"]


KILL_AT = 8  # the reader request during which the first run is killed


@pytest.mark.timeout(240)
def test_a_killed_run_resumes_without_asking_an_answered_question_again(tmp_path: Path) -> None:
    child: list[subprocess.Popen[str]] = []
    seen: list[str] = []

    def on_chat(body: dict[str, Any]) -> None:
        last = str(body["messages"][-1]["content"])
        if last == "hello":
            return
        seen.append(json.dumps(body["messages"], ensure_ascii=False, sort_keys=True))
        if len(seen) == KILL_AT and child:
            os.kill(child[0].pid, signal.SIGKILL)  # before this request is answered

    fake = FakeOllama(on_chat=on_chat, count_prompt=True)
    work, out = tmp_path / "work", tmp_path / "out"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with ThreadServer(fake.app) as srv:
        child.append(subprocess.Popen(_command(srv.url, work, out), stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env))
        child[0].communicate(timeout=180)
        assert child[0].returncode == -signal.SIGKILL
        recorded = [json.loads(x) for x in (work / "results.jsonl").read_text().splitlines()]
        assert len(recorded) == KILL_AT - 1  # every answer before the kill is on disk
        second = subprocess.run(_command(srv.url, work, out), capture_output=True, text=True,
                                env=env, timeout=180)
    assert second.returncode == 0, second.stderr
    items = 6 * 3
    assert f"asked {items - (KILL_AT - 1)} this run" in second.stdout
    counts = Counter(seen)
    assert len(counts) == items  # every (question, plan) was asked
    twice = [p for p, n in counts.items() if n > 1]
    # only the request the kill interrupted (never answered) was asked again
    assert twice == [seen[KILL_AT - 1]] and counts[twice[0]] == 2
    report = json.loads((out / "killed.json").read_text(encoding="utf-8"))
    assert len(report["rows"]) == items and not [r for r in report["rows"] if r["error"]]
    assert len({r["item"] for r in report["rows"]}) == items


def test_a_larger_sample_reuses_answers_and_another_setup_is_refused(tmp_path: Path) -> None:
    fake = FakeOllama(count_prompt=True)
    with ThreadServer(fake.app) as srv:
        def run(*extra: str) -> Any:
            return CliRunner().invoke(app, [
                "eval", "answers", "--reader", f"ollama:qwen2.5:7b@{srv.url}", "--data",
                str(SCENARIOS), "--embedder", "fake", "--plans", "A,C", "--work",
                str(tmp_path / "w"), "--out-dir", str(tmp_path), "--name", "grow", *extra])

        small = run("--limit", "2")
        assert small.exit_code == 0, small.output
        assert "asked 4 this run, 0 recorded by an earlier run" in small.output
        big = run("--limit", "5")
        assert big.exit_code == 0, big.output
        assert "asked 6 this run, 4 recorded by an earlier run" in big.output
        other = run("--limit", "5", "--max-tokens", "8")
    assert other.exit_code != 0 and "another setup" in other.output
    assert "max_tokens" in other.output
    rows = json.loads((tmp_path / "grow.json").read_text(encoding="utf-8"))["rows"]
    assert len(rows) == 10
