"""``jiyi bench prompt`` end to end against a scripted server (the real numbers come from the
llama.cpp server; see docs/benchmarks/prompt_plan_ab.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from jiyi.cli.app import app
from jiyi.cli.demo_script import QUESTIONS, SCRIPT
from jiyi_bench.bench_prompt import raw_history, summarise
from scripted_openai import ScriptedOpenAI, text_reply


def test_bench_prompt_writes_both_plans(tmp_path: Path) -> None:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        if len(body["messages"]) > 40:  # plan A: the whole raw history
            return {"error": {"message": "Requested tokens exceed context window"}}
        return text_reply("张伟 ABC12345", prompt_tokens=300)

    server = ScriptedOpenAI([answer])
    try:
        result = CliRunner().invoke(app, [
            "bench", "prompt", "--llm", f"openai:{server.url}", "--embedder", "fake",
            "--max-tokens", "8", "--out", str(tmp_path), "--name", "ab"])
    finally:
        server.close()
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "ab.json").read_text(encoding="utf-8"))
    assert [q["question"] for q in data["per_question"]] == QUESTIONS
    assert data["summary"]["A"]["errors"] == len(QUESTIONS)
    assert data["summary"]["B"]["answered"] == len(QUESTIONS)
    first = data["per_question"][0]
    assert first["A"]["qwen_tokens"] > first["B"]["qwen_tokens"] > 0
    assert first["B"]["server_tokens"] == 300 and first["B"]["first_token_s"] is not None
    md = (tmp_path / "ab.md").read_text(encoding="utf-8")
    assert "| A | 0/9 | 9 |" in md and "nproc" in md and "exceed context window" in md


def test_raw_history_and_summary() -> None:
    messages = raw_history("我叫什么名字？")
    assert len(messages) == len(SCRIPT) + 2
    assert messages[-1] == {"role": "user", "content": "我叫什么名字？"}
    assert any(m["content"].startswith("[tool result] {") for m in messages)
    rows = [{"error": None, "qwen_tokens": 10, "server_tokens": 12, "first_token_s": 0.1,
             "total_s": 0.5}, {"error": "refused", "qwen_tokens": 99}]
    assert summarise(rows) == {"questions": 2, "answered": 1, "errors": 1,
                               "median_qwen_tokens": 10.0, "median_server_tokens": 12.0,
                               "median_first_token_s": 0.1, "median_total_s": 0.5}
