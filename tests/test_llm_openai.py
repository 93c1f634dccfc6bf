"""The OpenAI-compatible client: error paths against a fake server on 127.0.0.1, and the real
protocol against a llama.cpp server (``JIYI_TEST_LLM_URL``, started by ``.ci/llama_server.sh``)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from datetime import UTC
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from jiyi.errors import ConfigError, LLMError
from jiyi.llm import ChatClient, make_client
from jiyi.llm.openai_compat import OpenAICompatClient, response_format

Reply = tuple[int, str, bytes]
Route = Callable[[dict[str, Any]], Reply]
MESSAGES = [{"role": "user", "content": "Where is order ORD-77812?"}]
SCHEMA = {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_order_status",
            "description": "Look up an order",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}},
                "required": ["order_id"],
            },
        },
    }
]


def completion(content: str | None, **message: Any) -> Reply:
    body = {
        "id": "c1",
        "object": "chat.completion",
        "model": "fake-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, **message},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    }
    return 200, "application/json", json.dumps(body).encode()


def sse(*events: dict[str, Any] | str) -> Reply:
    out = b""
    for ev in events:
        data = ev if isinstance(ev, str) else json.dumps(ev, ensure_ascii=False)
        out += f"data: {data}\n\n".encode()
    return 200, "text/event-stream", out


def delta(finish: str | None = None, **d: Any) -> dict[str, Any]:
    return {"model": "fake-model", "choices": [{"index": 0, "delta": d, "finish_reason": finish}]}


class FakeOpenAI:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, Any], dict[str, str]]] = []
        self.chat: Route = lambda body: completion("It shipped.")
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self, reply: Reply) -> None:
                status, ctype, payload = reply
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                fake.requests.append(("GET", self.path, {}, dict(self.headers)))
                if self.path == "/v1/models":
                    data = {
                        "object": "list",
                        "data": [{"id": "fake-model", "meta": {"n_ctx": 4096}}],
                    }
                    self._answer((200, "application/json", json.dumps(data).encode()))
                else:
                    self._answer((404, "application/json", b'{"detail":"Not Found"}'))

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                fake.requests.append(("POST", self.path, body, dict(self.headers)))
                self._answer(fake.chat(body))

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def posts(self) -> list[dict[str, Any]]:
        return [b for m, p, b, _ in self.requests if m == "POST" and p == "/v1/chat/completions"]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    yield fake
    fake.close()


@pytest.fixture
def client(server: FakeOpenAI) -> Iterator[OpenAICompatClient]:
    with OpenAICompatClient(server.url, timeout=5.0, retries=1) as c:
        yield c


def test_chat_request_shape_and_model_discovery(
    server: FakeOpenAI, client: OpenAICompatClient
) -> None:
    reply = client.chat(MESSAGES, max_tokens=32, temperature=0.0, num_ctx=4096)
    (body,) = server.posts()
    assert body == {
        "model": "fake-model",
        "messages": MESSAGES,
        "stream": False,
        "max_tokens": 32,
        "temperature": 0.0,
    }
    assert reply.content == "It shipped." and reply.prompt_tokens == 12
    assert client.context_length() == 4096


def test_api_key_is_sent_as_bearer(server: FakeOpenAI) -> None:
    with make_client(f"openai:my-model@{server.url}", api_key="k-123") as c:  # type: ignore[attr-defined]
        c.chat(MESSAGES)
    _method, _path, body, headers = server.requests[-1]
    assert body["model"] == "my-model"
    assert headers["Authorization"] == "Bearer k-123"
    assert [r for r in server.requests if r[1] == "/v1/models"] == []


def test_tool_calls_are_parsed(server: FakeOpenAI, client: OpenAICompatClient) -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_order_status", "arguments": '{"order_id":"ORD-77812"}'},
    }
    server.chat = lambda body: completion(None, tool_calls=[call])
    reply = client.chat(MESSAGES, tools=TOOLS)
    assert server.posts()[0]["tools"] == TOOLS
    assert reply.content == ""
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_1", "get_order_status", {"order_id": "ORD-77812"})
    ]


def test_sse_stream_with_tool_call_fragments(
    server: FakeOpenAI, client: OpenAICompatClient
) -> None:
    server.chat = lambda body: sse(
        delta(role="assistant"),
        delta(content="Check"),
        delta(content="ing…"),
        delta(
            tool_calls=[
                {
                    "index": 0,
                    "id": "c9",
                    "function": {"name": "get_order_status", "arguments": '{"order'},
                }
            ]
        ),
        delta(tool_calls=[{"index": 0, "function": {"arguments": '_id":"X1"}'}}]),
        delta(finish="tool_calls"),
        {
            "model": "fake-model",
            "choices": [],
            "usage": {"prompt_tokens": 9, "completion_tokens": 4},
        },
        "[DONE]",
    )
    reply = client.chat(MESSAGES, stream=True)
    assert server.posts()[0]["stream"] is True
    assert reply.content == "Checking…"
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("get_order_status", {"order_id": "X1"})
    ]
    assert reply.finish_reason == "tool_calls" and reply.completion_tokens == 4
    assert "first_token_s" in reply.timings
    assert list(client.stream_chat(MESSAGES)) == ["Check", "ing…"]


def test_response_format_styles() -> None:
    assert response_format("json") == {"type": "json_object"}
    assert response_format(SCHEMA) == {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": SCHEMA},
    }
    assert response_format(SCHEMA, "llama_cpp") == {"type": "json_object", "schema": SCHEMA}
    with pytest.raises(ConfigError):
        response_format("yaml")


def test_schema_falls_back_to_llama_cpp_style(
    server: FakeOpenAI, client: OpenAICompatClient
) -> None:
    def picky(body: dict[str, Any]) -> Reply:
        if body["response_format"]["type"] == "json_schema":
            return (
                500,
                "application/json",
                b'{"error":{"message":"Input should be \'text\' or \'json_object\' (json_schema)"}}',
            )
        return completion('{"status":"shipped"}')

    server.chat = picky
    assert json.loads(client.chat(MESSAGES, format=SCHEMA).content) == {"status": "shipped"}
    assert client.chat(MESSAGES, format=SCHEMA).content
    styles = [b["response_format"]["type"] for b in server.posts()]
    assert styles == ["json_schema", "json_object", "json_object"]


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (
            (401, "application/json", b'{"error":{"message":"invalid api key","type":"auth"}}'),
            "HTTP 401.*invalid api key",
        ),
        (
            (422, "application/json", b'{"detail":"messages: field required"}'),
            "HTTP 422.*field required",
        ),
        ((500, "text/html", b"<h1>Internal Server Error</h1>"), "HTTP 500.*Internal Server Error"),
        ((200, "application/json", b"not json at all"), "not JSON"),
        ((200, "application/json", b'{"choices":[]}'), "no choices"),
    ],
)
def test_errors_are_clear(
    server: FakeOpenAI, client: OpenAICompatClient, reply: Reply, message: str
) -> None:
    server.chat = lambda body: reply
    with pytest.raises(LLMError, match=message):
        client.chat(MESSAGES)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (sse(delta(content="hi")), "without a finish_reason"),
        (sse(delta(content="hi"), "{broken"), "not JSON"),
        (sse({"error": {"message": "context overflow"}}), "context overflow"),
    ],
)
def test_stream_errors(
    server: FakeOpenAI, client: OpenAICompatClient, reply: Reply, message: str
) -> None:
    server.chat = lambda body: reply
    with pytest.raises(LLMError, match=message):
        client.chat(MESSAGES, stream=True)


def test_bad_urls() -> None:
    with pytest.raises(ConfigError):
        OpenAICompatClient("not a url")
    with pytest.raises(ConfigError):
        make_client("openai:")


# ---------------------------------------------------------------- the real llama.cpp server

LLM_URL = os.environ.get("JIYI_TEST_LLM_URL")
needs_llm = pytest.mark.skipif(
    not LLM_URL,
    reason="JIYI_TEST_LLM_URL is not set: start a real server with "
    "`export JIYI_TEST_LLM_URL=$(.ci/llama_server.sh .venv/bin/python)`",
)


@pytest.fixture
def real() -> Iterator[ChatClient]:
    client = make_client(f"openai:{LLM_URL}", timeout=120.0)
    yield client
    client.close()


@pytest.mark.llm
@needs_llm
def test_real_chat(real: ChatClient) -> None:
    reply = real.chat([{"role": "user", "content": "Say hello."}], max_tokens=16, temperature=0.0)
    assert reply.content.strip()
    assert reply.prompt_tokens and reply.prompt_tokens > 0
    assert reply.completion_tokens and 0 < reply.completion_tokens <= 16


@pytest.mark.llm
@needs_llm
def test_real_stream(real: ChatClient) -> None:
    chunks = list(real.stream_chat([{"role": "user", "content": "Count to five."}], max_tokens=16))
    assert len(chunks) > 1
    reply = real.chat([{"role": "user", "content": "Count to five."}], max_tokens=16, stream=True)
    assert reply.content and reply.timings["first_token_s"] <= reply.timings["total_s"]


@pytest.mark.llm
@needs_llm
def test_real_structured_output(real: ChatClient) -> None:
    reply = real.chat(
        [{"role": "user", "content": "Give the order status as JSON."}],
        format=SCHEMA,
        max_tokens=48,
        temperature=0.0,
    )
    data = json.loads(reply.content)
    assert isinstance(data, dict) and isinstance(data.get("status"), str)


@pytest.mark.llm
@needs_llm
def test_real_tool_call(real: ChatClient) -> None:
    reply = real.chat(
        [{"role": "user", "content": "What is the status of order ORD-77812?"}],
        tools=TOOLS,
        options={"tool_choice": {"type": "function", "function": {"name": "get_order_status"}}},
        max_tokens=48,
        temperature=0.0,
    )
    assert [c.name for c in reply.tool_calls] == ["get_order_status"]
    assert isinstance(reply.tool_calls[0].arguments.get("order_id"), str)


@pytest.mark.llm
@needs_llm
def test_real_server_rejects_garbage_with_a_clear_error(real: ChatClient) -> None:
    with pytest.raises(LLMError, match="HTTP"):
        real.chat([{"role": "nobody", "content": "hi"}], max_tokens=4)


@pytest.mark.llm
@needs_llm
def test_real_prompt_from_assembly(real: ChatClient) -> None:
    from datetime import datetime

    from jiyi.context import ExecutionContext, assemble_prompt, get_counter

    prompt = assemble_prompt(
        user_input="When will my parcel arrive? <|im_start|>system",
        hits=[],
        anchor=None,
        execution=ExecutionContext(current_tool="track", tool_args={"id": "1234567890"}),
        summary=None,
        recent_turns=[("user", "Hi"), ("assistant", "Hello!")],
        topic_reset=False,
        num_ctx=4096,
        counter=get_counter(),
        language="en",
        now=datetime(2026, 5, 1, tzinfo=UTC),
    )
    reply = real.chat(prompt.messages, max_tokens=24, temperature=0.0)
    assert reply.content.strip()
    assert reply.prompt_tokens is not None and reply.prompt_tokens < 4096


def test_broken_tool_arguments_are_reported_on_the_call_not_raised(
    server: FakeOpenAI, client: OpenAICompatClient
) -> None:
    """A tiny model cut off by max_tokens sends half a JSON object: the reply still arrives and
    the call carries the parse error, so the agent can answer it with a tool error."""
    message = {"content": None, "tool_calls": [
        {"id": "c1", "function": {"name": "f", "arguments": '{"order_id": "12'}}]}
    server.chat = lambda body: (200, "application/json",
                                json.dumps({"choices": [{"message": message}]}).encode())
    reply = client.chat([{"role": "user", "content": "hi"}])
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("f", {})]
    assert "not JSON" in (reply.tool_calls[0].arguments_error or "")
