"""The Ollama client against a real HTTP server on 127.0.0.1 that follows Ollama's documented
API (https://github.com/ollama/ollama/blob/main/docs/api.md): request shapes are asserted."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from jiyi.errors import ConfigError, LLMError
from jiyi.llm import make_client
from jiyi.llm.ollama import OllamaClient, ollama_base_url, parse_show

Route = Callable[["FakeOllama", dict[str, Any]], tuple[int, str, list[bytes]]]

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_order_status",
            "description": "查询订单状态",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}},
                "required": ["order_id"],
            },
        },
    }
]
SCHEMA = {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}
DONE = {
    "done": True,
    "done_reason": "stop",
    "total_duration": 2_000_000_000,
    "load_duration": 100_000_000,
    "prompt_eval_count": 42,
    "prompt_eval_duration": 500_000_000,
    "eval_count": 7,
    "eval_duration": 1_000_000_000,
}


def ndjson(*objs: dict[str, Any]) -> list[bytes]:
    return [json.dumps(o, ensure_ascii=False).encode() + b"\n" for o in objs]


def chat_route(server: FakeOllama, body: dict[str, Any]) -> tuple[int, str, list[bytes]]:
    """/api/chat as Ollama documents it: streams unless "stream": false."""
    base = {"model": body["model"], "created_at": "2026-05-01T09:30:00Z"}
    if body.get("tools"):
        call = {"function": {"name": "get_order_status", "arguments": {"order_id": "ABC123"}}}
        message: dict[str, Any] = {"role": "assistant", "content": "", "tool_calls": [call]}
    elif body.get("format") is not None:
        message = {"role": "assistant", "content": '{"status":"已发货"}'}
    else:
        message = {"role": "assistant", "content": "您的订单已发货。"}
    if body.get("stream", True):
        text = message["content"]
        chunks = [text[i : i + 3] for i in range(0, len(text), 3)]
        lines = [
            {**base, "message": {"role": "assistant", "content": c}, "done": False} for c in chunks
        ]
        if message.get("tool_calls"):
            lines.append({**base, "message": message, "done": False})
        lines.append({**base, "message": {"role": "assistant", "content": ""}, **DONE})
        return 200, "application/x-ndjson", ndjson(*lines)
    return 200, "application/json", ndjson({**base, "message": message, **DONE})


def show_route(server: FakeOllama, body: dict[str, Any]) -> tuple[int, str, list[bytes]]:
    return 200, "application/json", ndjson(server.show_body)


class FakeOllama:
    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.routes: dict[str, Route] = {"/api/chat": chat_route, "/api/show": show_route}
        self.show_body: dict[str, Any] = {
            "parameters": 'num_ctx 8192\nstop "<|im_end|>"',
            "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
        }
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                body = json.loads(raw)
                assert self.headers["Content-Type"] == "application/json"
                fake.requests.append((self.path, body))
                route = fake.routes.get(self.path)
                if route is None:
                    status, ctype, parts = 404, "application/json", ndjson({"error": "not found"})
                else:
                    status, ctype, parts = route(fake, body)
                payload = b"".join(parts)
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [b for p, b in self.requests if p == path]


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    fake = FakeOllama()
    yield fake
    fake.close()


@pytest.fixture
def client(server: FakeOllama) -> Iterator[OllamaClient]:
    with OllamaClient("qwen2.5:7b", base_url=server.url, timeout=5.0, retries=1) as c:
        yield c


MESSAGES = [
    {"role": "system", "content": "你是助手"},
    {"role": "user", "content": "我的订单到哪了？"},
]


def test_chat_sends_num_ctx_and_stream_false(server: FakeOllama, client: OllamaClient) -> None:
    reply = client.chat(MESSAGES, num_ctx=4096, max_tokens=64, temperature=0.2)
    (body,) = server.bodies("/api/chat")
    assert body == {
        "model": "qwen2.5:7b",
        "messages": MESSAGES,
        "stream": False,
        "options": {"num_ctx": 4096, "num_predict": 64, "temperature": 0.2},
    }
    assert server.bodies("/api/show") == []  # the caller gave num_ctx
    assert reply.content == "您的订单已发货。"
    assert (reply.prompt_tokens, reply.completion_tokens) == (42, 7)
    assert reply.timings["prompt_eval_s"] == 0.5 and reply.timings["eval_s"] == 1.0
    assert reply.finish_reason == "stop"


def test_num_ctx_read_once_from_api_show(server: FakeOllama, client: OllamaClient) -> None:
    client.chat(MESSAGES)
    client.chat(MESSAGES)
    assert server.bodies("/api/show") == [{"model": "qwen2.5:7b"}]
    assert [b["options"]["num_ctx"] for b in server.bodies("/api/chat")] == [8192, 8192]
    assert client.context_length() == 8192


def test_parse_show() -> None:
    info = {"model_info": {"qwen2.context_length": 131072}}
    assert parse_show({"parameters": "num_ctx 16384", **info}) == 16384
    assert parse_show(info) == 32768
    assert parse_show(info, max_num_ctx=200_000) == 131072
    assert parse_show({"parameters": "temperature 0.7"}) is None
    assert parse_show({}) is None


def test_tools_round_trip(server: FakeOllama, client: OllamaClient) -> None:
    reply = client.chat(MESSAGES, tools=TOOLS, num_ctx=2048)
    assert server.bodies("/api/chat")[0]["tools"] == TOOLS
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("get_order_status", {"order_id": "ABC123"})
    ]


@pytest.mark.parametrize("fmt", [SCHEMA, "json"])
def test_structured_format(server: FakeOllama, client: OllamaClient, fmt: Any) -> None:
    reply = client.chat(MESSAGES, format=fmt, num_ctx=2048)
    assert server.bodies("/api/chat")[0]["format"] == fmt
    assert json.loads(reply.content) == {"status": "已发货"}


def test_stream_ndjson(server: FakeOllama, client: OllamaClient) -> None:
    chunks = list(client.stream_chat(MESSAGES, num_ctx=2048))
    assert server.bodies("/api/chat")[0]["stream"] is True
    assert len(chunks) > 1 and "".join(chunks) == "您的订单已发货。"
    reply = client.chat(MESSAGES, num_ctx=2048, stream=True)
    assert reply.content == "您的订单已发货。"
    assert reply.prompt_tokens == 42 and "first_token_s" in reply.timings


def test_streamed_tool_call(server: FakeOllama, client: OllamaClient) -> None:
    reply = client.chat(MESSAGES, tools=TOOLS, num_ctx=2048, stream=True)
    assert [c.name for c in reply.tool_calls] == ["get_order_status"]


def fixed(status: int, ctype: str, *payload: bytes) -> Route:
    return lambda server, body: (status, ctype, list(payload))


@pytest.mark.parametrize(
    ("route", "message"),
    [
        (
            fixed(404, "application/json", b'{"error":"model \\"qwen9\\" not found"}'),
            "HTTP 404.*not found",
        ),
        (fixed(400, "application/json", b'{"error":"invalid format"}'), "HTTP 400.*invalid format"),
        (fixed(500, "text/plain", b"llama runner crashed"), "HTTP 500.*runner crashed"),
        (fixed(200, "application/json", b"<html>proxy login</html>"), "not JSON"),
        (fixed(200, "application/json", b'{"model":"x","done":true}'), "no message"),
    ],
)
def test_errors_are_clear(
    server: FakeOllama, client: OllamaClient, route: Route, message: str
) -> None:
    server.routes["/api/chat"] = route
    with pytest.raises(LLMError, match=message):
        client.chat(MESSAGES, num_ctx=2048)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            [b'{"message":{"content":"hi"},"done":false}\n', b'{"error":"out of memory"}\n'],
            "out of memory",
        ),
        ([b'{"message":{"content":"hi"},"done":false}\n'], "without a final done"),
        ([b'{"message":{"content":"hi"},"done":false}\n', b"garbage\n"], "not JSON"),
    ],
)
def test_stream_errors(
    server: FakeOllama, client: OllamaClient, lines: list[bytes], message: str
) -> None:
    server.routes["/api/chat"] = fixed(200, "application/x-ndjson", *lines)
    with pytest.raises(LLMError, match=message):
        list(client.stream_chat(MESSAGES, num_ctx=2048))


def test_503_is_retried_then_succeeds(server: FakeOllama, client: OllamaClient) -> None:
    calls: list[int] = []

    def flaky(fake: FakeOllama, body: dict[str, Any]) -> tuple[int, str, list[bytes]]:
        calls.append(1)
        if len(calls) == 1:
            return 503, "application/json", [b'{"error":"server busy"}']
        return chat_route(fake, body)

    server.routes["/api/chat"] = flaky
    assert client.chat(MESSAGES, num_ctx=2048).content == "您的订单已发货。"
    assert len(calls) == 2


def test_503_gives_up_after_bounded_retries(server: FakeOllama, client: OllamaClient) -> None:
    server.routes["/api/chat"] = fixed(503, "application/json", b'{"error":"server busy"}')
    with pytest.raises(LLMError, match="503"):
        client.chat(MESSAGES, num_ctx=2048)
    assert len(server.bodies("/api/chat")) == 2  # 1 + retries=1


def test_connection_refused_is_bounded() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = OllamaClient("qwen2.5:7b", base_url=f"http://127.0.0.1:{port}", retries=2)
    with client, pytest.raises(LLMError, match="after 3 attempts"):
        client.chat(MESSAGES, num_ctx=2048)


def test_registry_and_urls(server: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> None:
    client = make_client("ollama:qwen2.5:7b", base_url=server.url)
    assert isinstance(client, OllamaClient) and client.model == "qwen2.5:7b"
    assert client.name == "ollama:qwen2.5:7b"
    assert client.chat(MESSAGES, num_ctx=1024).content
    client.close()
    with make_client(f"ollama:qwen2.5:7b@{server.url}") as spelled:  # type: ignore[attr-defined]
        assert spelled.chat(MESSAGES, num_ctx=1024).content
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0:11434")
    assert ollama_base_url() == "http://127.0.0.1:11434"
    assert ollama_base_url("gpu-box") == "http://gpu-box:11434"
    assert ollama_base_url("https://ollama.example.com/") == "https://ollama.example.com"
    with pytest.raises(ConfigError):
        ollama_base_url("ftp://x")
    with pytest.raises(ConfigError):
        make_client("bogus:thing")
    with pytest.raises(ConfigError):
        make_client("ollama")
