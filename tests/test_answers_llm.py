"""``jiyi eval answers``, the whole protocol on a 20-question sample, against the REAL llama.cpp
server CI starts (``.ci/llama_server.sh``, SmolLM2-135M, ``JIYI_TEST_LLM_URL``) as reader and
judge: the project's scenarios (zh-Hans, zh-Hant, en) plus tiny LoCoMo- and MADial-shaped files.
It checks the mechanics (every plan asked, counted, timed, judged, reported; the same command
again asks nothing), never the tiny model's quality."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from answers_fixtures import LOCOMO_FILE, MADIAL_DIR
from jiyi.cli.app import app

LLM_URL = os.environ.get("JIYI_TEST_LLM_URL")
SCENARIOS = Path(__file__).parent / "data" / "eval"
pytestmark = [
    pytest.mark.llm,
    # 60 reader + 60 judge calls: 15 min on a 2-core machine at load 6-7 (idle: expected a few)
    pytest.mark.timeout(int(os.environ.get("JIYI_TEST_LLM_TIMEOUT", "1800"))),
    pytest.mark.skipif(
        not LLM_URL,
        reason="JIYI_TEST_LLM_URL is not set: start a real server with "
        "`export JIYI_TEST_LLM_URL=$(.ci/llama_server.sh .venv/bin/python)`"),
]
SAMPLE = 20


def test_whole_protocol_on_a_sample_against_llama_cpp(tmp_path: Path) -> None:
    args = ["eval", "answers", "--reader", f"openai:{LLM_URL}", "--judge", f"openai:{LLM_URL}",
            "--data", str(LOCOMO_FILE), "--data", str(MADIAL_DIR),
            "--data", str(SCENARIOS), "--sample", str(SAMPLE), "--seed", "1",
            "--max-tokens", "16", "--work", str(tmp_path / "work"),
            "--out-dir", str(tmp_path / "out"), "--name", "answers-ci",
            "--note", "Protocol-only: SmolLM2-135M; these numbers say nothing about quality."]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    report = json.loads((tmp_path / "out" / "answers-ci.json").read_text(encoding="utf-8"))
    rows = report["rows"]
    assert report["questions"] == SAMPLE and len(rows) == 3 * SAMPLE
    assert {r["plan"] for r in rows} == {"A", "B", "C"}
    assert not [r for r in rows if r["error"]], [r["error"] for r in rows if r["error"]][:3]
    assert report["num_ctx"] >= 256  # the server's own window (n_ctx), as it reports it
    for r in rows:
        assert r["qwen_tokens"] > 0 and r["server_tokens"] and r["server_tokens"] > 0
        assert 0 < r["first_token_s"] <= r["total_s"]
        assert "judge" in r and r["judge"] in ("CORRECT", "WRONG", None)
        assert 0.0 <= r["f1"] <= 1.0 and 0.0 <= r["bleu1"] <= 1.0
        if r["plan"] == "A":
            assert r["qwen_tokens"] <= report["num_ctx"] - 16
    s = report["summary"]
    # seed 1 draws from every data set and language (18 scenario questions, 1 LoCoMo, 1 MADial)
    assert set(s["by_dataset"]) == {"locomo", "madial", "scenarios"}
    assert set(s["by_language"]) == {"en", "zh-Hans", "zh-Hant"}
    assert s["overall"]["A"]["total_s_p95"] >= s["overall"]["A"]["total_s_p50"] > 0
    md = (tmp_path / "out" / "answers-ci.md").read_text(encoding="utf-8")
    assert "**Protocol-only" in md and "## Per language" in md and "Judge prompt" in md

    again = CliRunner().invoke(app, args)  # the same command: everything is already recorded
    assert again.exit_code == 0, again.output
    assert "asked 0 this run" in again.output
