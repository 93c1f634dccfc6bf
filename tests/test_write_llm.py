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
from jiyi.errors import ConfigError
from jiyi.write import TurnInput, extract_turn
from jiyi.write.llm_extract import FACTS_SCHEMA, LLMExtractor, parse_spec

AT = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)
TEXT = "我叫张伟，订单号是ABC123，明天下午3点前要发货，我的key是sk-proj-SECRETSECRETSECRET1234"
GOOD = {"facts": [
    {"content": "张伟的订单ABC123须在2026年5月2日15:00前发货", "type": "session_state", "slot": None},
    {"content": "用户名叫张伟", "type": "user_profile", "slot": "name"},
]}


class FakeLLM:
    """A tiny real HTTP server that answers like Ollama /api/chat or OpenAI /chat/completions."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.answer: dict[str, Any] = GOOD
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "body": body})
                if outer.mode == "slow":
                    time.sleep(1.5)
                if outer.mode == "error":
                    self.send_response(500)
                    self.end_headers()
                    return
                content = json.dumps(outer.answer, ensure_ascii=False)
                if outer.mode == "malformed":
                    content = '{"facts": [{"content": "订单ABC123", "type": '
                if self.path.endswith("/api/chat"):
                    payload: dict[str, Any] = {"message": {"role": "assistant", "content": content}}
                else:
                    payload = {"choices": [{"message": {"role": "assistant", "content": content}}]}
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

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


def test_ollama_schema_request_and_validated_answer(llm: FakeLLM) -> None:
    extractor = LLMExtractor(parse_spec(f"ollama:qwen2.5:7b@{llm.url}"))
    out = extract_turn(turn(), llm=extractor)
    assert out.extractor == "llm:qwen2.5:7b"
    contents = [d.content for d in out.drafts]
    assert contents[:2] == [f["content"] for f in GOOD["facts"]]
    req = llm.requests[-1]
    assert req["path"] == "/api/chat" and req["body"]["format"] == FACTS_SCHEMA
    assert req["body"]["stream"] is False
    assert "sk-proj-SECRET" not in json.dumps(req["body"], ensure_ascii=False)  # redacted first
    assert "[API_KEY]" in json.dumps(req["body"], ensure_ascii=False)
    assert "sk-proj-SECRETSECRETSECRET1234" in out.secrets.values()
    extractor.close()


def test_openai_response_format(llm: FakeLLM) -> None:
    extractor = LLMExtractor(parse_spec(f"openai:gpt-x@{llm.url}/v1"))
    out = extract_turn(turn(), llm=extractor)
    req = llm.requests[-1]
    assert req["path"] == "/v1/chat/completions"
    rf = req["body"]["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["schema"] == FACTS_SCHEMA
    assert out.extractor == "llm:gpt-x"
    extractor.close()


@pytest.mark.parametrize("mode", ["malformed", "error", "slow", "offschema", "toolong"])
def test_fallback_to_rules(llm: FakeLLM, mode: str) -> None:
    llm.mode = "slow" if mode == "slow" else "ok" if mode in ("offschema", "toolong") else mode
    if mode == "offschema":
        llm.answer = {"facts": [{"content": "x", "type": "gossip"}]}
    if mode == "toolong":
        llm.answer = {"facts": [{"content": "长" * 151, "type": "fact_reference"}]}
    cfg = parse_spec(f"ollama:m@{llm.url}", timeout=0.5)
    extractor = LLMExtractor(cfg)
    rules = extract_turn(turn())
    out = extract_turn(turn(), llm=extractor)
    assert out.extractor == "rules"
    assert [d.content for d in out.drafts] == [d.content for d in rules.drafts]
    assert extractor.failures == 1 and extractor.last_error
    extractor.close()


def test_entities_the_model_dropped_are_put_back(llm: FakeLLM) -> None:
    llm.answer = {"facts": [{"content": "用户在催发货", "type": "session_state", "slot": None}]}
    extractor = LLMExtractor(parse_spec(f"ollama:m@{llm.url}"))
    out = extract_turn(turn(), llm=extractor)
    joined = "\n".join(d.content for d in out.drafts)
    assert "用户在催发货" in joined and "ABC123" in joined and "张伟" in joined
    extractor.close()


def test_memory_uses_llm_only_when_configured(llm: FakeLLM, db_path: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    with Memory.open(db_path, embedder="fake") as mem:
        plain = mem.ingest(TEXT, session_id="s", at=AT)
        assert llm.requests == [] and all("2026年5月2日15:00前发货" not in u.content for u in plain)
        monkeypatch.setenv("JIYI_LLM_EXTRACT", f"ollama:m@{llm.url}")
        units = mem.ingest(TEXT + "。", session_id="s2", at=AT)
        assert len(llm.requests) == 1
        assert any(u.content == GOOD["facts"][0]["content"] for u in units)


@pytest.mark.parametrize("spec", ["", "claude:x", "openai:m", "ollama:"])
def test_bad_specs(spec: str) -> None:
    with pytest.raises(ConfigError):
        parse_spec(spec)
