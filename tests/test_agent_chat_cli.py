"""``jiyi chat`` and ``jiyi modelfile`` through the CLI runner, against a scripted server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi import Memory
from jiyi.cli.app import app
from jiyi.store import Scope
from scripted_openai import ScriptedOpenAI, text_reply


@pytest.fixture
def scripted() -> Iterator[ScriptedOpenAI]:
    server = ScriptedOpenAI([text_reply("好的，张伟，您的订单 ABC12345 已记下。"),
                             text_reply("您的订单号是 ABC12345。")])
    yield server
    server.close()


def _chat(db: str, url: str, stdin: str, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["--db", db, "--embedder", "fake", "chat", "--llm", f"openai:{url}",
              "--session", "cli-s", *extra], input=stdin)
    return result.exit_code, result.output


def test_chat_answers_and_runs_the_slash_commands(tmp_path: Path,
                                                   scripted: ScriptedOpenAI) -> None:
    db = str(tmp_path / "m.db")
    code, out = _chat(db, scripted.url, "我叫张伟，订单号是 ABC12345\n我的订单号是多少？\n"
                      "/memory\n/health\n/forget ABC12345\n/nope\n/quit\n", "--num-ctx", "2048")
    assert code == 0, out
    assert "jiyi> 您的订单号是 ABC12345。" in out
    assert "/2048 tokens" in out
    assert "recalled for the last turn" in out and "rule" in out
    assert "freshness" in out and "amnesia alert: no" in out
    assert "forgotten: m_" in out and "unknown command /nope" in out
    assert "bye: 2 turn(s) in session cli-s" in out
    assert len(scripted.bodies) == 2
    with Memory.open(db, embedder="fake") as mem:
        hits = mem.recall("ABC12345", session_id="cli-s", k=5)
        assert all(h.unit.invalidated_at is None for h in hits)
        scope = Scope(user_id="cli-s", session_id="cli-s")
        forgotten = [u for u in mem.store.find_units(scope, as_of=None) if u.invalidated_at]
        assert len(forgotten) == 1


def test_chat_survives_a_dead_server_and_ends_on_eof(tmp_path: Path) -> None:
    code, out = _chat(str(tmp_path / "m.db"), "m@http://127.0.0.1:9/v1", "hello\n/memory\n",
                      "--num-ctx", "4096")
    assert code == 0, out
    assert "error: " in out and "Traceback" not in out
    assert "nothing recalled yet" in out and "bye: 0 turn(s)" in out


def test_chat_rejects_a_bad_llm_spec(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "m.db"), "chat", "--llm", "gpt"])
    assert result.exit_code == 1 and "ollama:MODEL[@URL] or openai:[MODEL@]URL" in result.output


def test_modelfile_command() -> None:
    result = CliRunner().invoke(app, ["modelfile", "qwen2.5:7b", "--language", "en"])
    assert result.exit_code == 0
    assert "FROM qwen2.5:7b\nPARAMETER num_ctx 32768\nPARAMETER rope_freq_base 1000000\n" in (
        result.output)
    assert "ADAPTER" not in result.output and "memory_anchor" in result.output
    bad = CliRunner().invoke(app, ["modelfile", "qwen 7b"])
    assert bad.exit_code == 1 and "one word" in bad.output
