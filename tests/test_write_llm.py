"""Optional LLM extraction against a real HTTP server on 127.0.0.1 (Ollama and OpenAI shapes)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from jiyi import Memory
from jiyi.config import JiyiConfig
from jiyi.errors import ConfigError
from jiyi.llm import make_client
from jiyi.write import TurnInput, extract_turn
from jiyi.write.llm_extract import FACTS_SCHEMA, LLMExtractor, extractor_from_config

AT = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)
TEXT = "我叫张伟，订单号是ABC123，明天下午3点前要发货，我的key是sk-proj-SECRETSECRETSECRET1234"
GOOD = {"facts": [
    {"content": "张伟的订单ABC123须在2026年5月2日15:00前发货", "type": "session_state", "slot": None},
    {"content": "用户名叫张伟", "type": "user_profile", "slot": "name"},
]}


class FakeLLM:
    """A tiny real HTTP server that answers like Ollama (/api/show, /api/chat) or an
    OpenAI-compatible server (/v1/chat/completions), as their APIs document."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.answer: dict[str, Any] = GOOD
        self.requests: list[dict[str, Any]] = []  # chat requests only
        self.shows = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if outer.mode == "slow":
                    time.sleep(1.5)
                if self.path == "/api/show":
                    outer.shows += 1
                    self._send(200, {"parameters": "num_ctx 4096", "model_info": {}})
                    return
                outer.requests.append({"path": self.path, "body": body})
                if outer.mode == "error" or (outer.mode == "503-once" and len(outer.requests) == 1):
                    self._send(500 if outer.mode == "error" else 503, {"error": "busy"})
                    return
                content = json.dumps(outer.answer, ensure_ascii=False)
                if outer.mode == "malformed":
                    content = '{"facts": [{"content": "订单ABC123", "type": '
                message = {"role": "assistant", "content": content}
                if self.path == "/api/chat":
                    self._send(200, {"model": body["model"], "message": message, "done": True})
                else:
                    self._send(200, {"choices": [{"message": message, "finish_reason": "stop"}]})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    server = FakeLLM()
    yield server
    server.close()


def turn(text: str = TEXT) -> TurnInput:
    return TurnInput(text, "user", AT, "s", "u", "t1")


def extractor(spec: str, timeout: float = 20.0) -> LLMExtractor:
    built = extractor_from_config(JiyiConfig(extract_llm=spec, extract_llm_timeout=timeout), {})
    assert built is not None
    return built


def test_ollama_schema_request_and_validated_answer(llm: FakeLLM) -> None:
    ex = extractor(f"ollama:qwen2.5:7b@{llm.url}")
    out = extract_turn(turn(), llm=ex)
    assert out.extractor == "llm:ollama:qwen2.5:7b"
    contents = [d.content for d in out.drafts]
    assert contents[:2] == [f["content"] for f in GOOD["facts"]]
    req = llm.requests[-1]
    assert req["path"] == "/api/chat" and req["body"]["format"] == FACTS_SCHEMA
    assert req["body"]["stream"] is False
    assert req["body"]["options"] == {"num_ctx": 4096, "temperature": 0.0}  # from /api/show
    assert "sk-proj-SECRET" not in json.dumps(req["body"], ensure_ascii=False)  # redacted first
    assert "[API_KEY]" in json.dumps(req["body"], ensure_ascii=False)
    assert "sk-proj-SECRETSECRETSECRET1234" in out.secrets.values()
    ex.close()


def test_openai_response_format(llm: FakeLLM) -> None:
    ex = extractor(f"openai:gpt-x@{llm.url}/v1")
    out = extract_turn(turn(), llm=ex)
    req = llm.requests[-1]
    assert req["path"] == "/v1/chat/completions" and req["body"]["model"] == "gpt-x"
    rf = req["body"]["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["schema"] == FACTS_SCHEMA
    assert out.extractor == f"llm:openai:gpt-x@{llm.url}/v1"
    ex.close()


@pytest.mark.parametrize("mode", ["malformed", "error", "slow", "offschema", "toolong"])
def test_fallback_to_rules(llm: FakeLLM, mode: str) -> None:
    llm.mode = "slow" if mode == "slow" else "ok" if mode in ("offschema", "toolong") else mode
    if mode == "offschema":
        llm.answer = {"facts": [{"content": "x", "type": "gossip"}]}
    if mode == "toolong":
        llm.answer = {"facts": [{"content": "长" * 151, "type": "fact_reference"}]}
    ex = extractor(f"ollama:m@{llm.url}", timeout=0.5)
    rules = extract_turn(turn())
    out = extract_turn(turn(), llm=ex)
    assert out.extractor == "rules"
    assert [d.content for d in out.drafts] == [d.content for d in rules.drafts]
    assert ex.failures == 1 and ex.last_error
    ex.close()


def test_a_busy_server_is_asked_again(llm: FakeLLM) -> None:
    """The write path goes through the ordinary chat clients: a 503 is retried (bounded)."""
    llm.mode = "503-once"
    ex = extractor(f"ollama:m@{llm.url}")
    out = extract_turn(turn(), llm=ex)
    assert out.extractor == "llm:ollama:m" and ex.failures == 0
    assert len(llm.requests) == 2
    ex.close()


def test_entities_the_model_dropped_are_put_back(llm: FakeLLM) -> None:
    llm.answer = {"facts": [{"content": "用户在催发货", "type": "session_state", "slot": None}]}
    ex = extractor(f"ollama:m@{llm.url}")
    out = extract_turn(turn(), llm=ex)
    joined = "\n".join(d.content for d in out.drafts)
    assert "用户在催发货" in joined and "ABC123" in joined and "张伟" in joined
    ex.close()


def test_memory_uses_llm_only_when_configured(llm: FakeLLM, db_path: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JIYI_LLM_EXTRACT", raising=False)
    with Memory.open(db_path, embedder="fake") as mem:
        assert mem.llm_extractor is None
        plain = mem.ingest(TEXT, session_id="s", at=AT)
        assert llm.requests == [] and all("2026年5月2日15:00前发货" not in u.content for u in plain)
    config = JiyiConfig(extract_llm=f"ollama:m@{llm.url}")
    with Memory.open(db_path, embedder="fake", config=config) as mem:
        units = mem.ingest(TEXT + "。", session_id="s2", at=AT)
        assert len(llm.requests) == 1
        assert any(u.content == GOOD["facts"][0]["content"] for u in units)


def test_a_client_passed_in_the_config_is_used_and_left_open(llm: FakeLLM, db_path: str) -> None:
    client = make_client(f"openai:gpt-x@{llm.url}/v1", timeout=5.0)
    with Memory.open(db_path, embedder="fake", config=JiyiConfig(extract_llm=client)) as mem:
        units = mem.ingest(TEXT, session_id="s", at=AT)
        assert any(u.content == GOOD["facts"][0]["content"] for u in units)
    assert client.chat([{"role": "user", "content": "still open?"}]).content  # not closed
    client.close()


def test_the_environment_names_the_model_when_the_config_does_not(
        llm: FakeLLM, db_path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIYI_LLM_EXTRACT", f"ollama:m@{llm.url}")
    with Memory.open(db_path, embedder="fake") as mem:
        assert mem.llm_extractor is not None and mem.llm_extractor.name == "llm:ollama:m"
        mem.ingest(TEXT, session_id="s", at=AT)
        assert len(llm.requests) == 1
    monkeypatch.setenv("JIYI_LLM_EXTRACT_TIMEOUT", "soon")
    with pytest.raises(ConfigError, match="JIYI_LLM_EXTRACT_TIMEOUT"):
        Memory.open(db_path, embedder="fake")


@pytest.mark.parametrize("spec", ["", "claude:x", "openai:m", "ollama:"])
def test_bad_specs(spec: str) -> None:
    with pytest.raises(ConfigError):
        extractor_from_config(JiyiConfig(extract_llm=spec), {})


def test_the_model_is_told_every_memory_type_and_the_schema_slots() -> None:
    """The model's types and slots come from ``MemoryType`` and the slot schema, not a second
    hand-written list (which had lost ``tool_result``)."""
    from jiyi.keyfacts import schema
    from jiyi.units import MemoryType
    from jiyi.write.llm_extract import SYSTEM_PROMPT, TYPE_MEANINGS, LLMFacts, single_slots

    assert set(TYPE_MEANINGS) == set(MemoryType)
    fact = FACTS_SCHEMA["$defs"]["LLMFact"]["properties"]
    assert set(FACTS_SCHEMA["$defs"]["MemoryType"]["enum"]) == {t.value for t in MemoryType}
    assert fact["slot"]["anyOf"][0]["enum"] == list(single_slots())
    assert set(single_slots()) == {r.name for r in schema() if r.single}
    for name in (*single_slots(), *(t.value for t in MemoryType)):
        assert name in SYSTEM_PROMPT
    ok = LLMFacts.model_validate_json(
        '{"facts": [{"content": "订单 A1 已发货", "type": "tool_result", "slot": null}]}')
    assert ok.facts[0].type is MemoryType.TOOL_RESULT
    for bad in ('{"facts": [{"content": "x", "type": "mood"}]}',
                '{"facts": [{"content": "x", "type": "user_profile", "slot": "food"}]}'):
        with pytest.raises(ValueError):
            LLMFacts.model_validate_json(bad)
