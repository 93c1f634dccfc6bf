"""The proxy's OpenAI side end to end: the official ``openai`` client -> jiyi proxy (uvicorn) ->
a recording relay -> a REAL llama.cpp server with SmolLM2 (``JIYI_TEST_LLM_URL`` or started here).
The relay only records what jiyi sent upstream and streams the answer back byte for byte."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import openai
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from jiyi import Memory
from jiyi.proxy import ProxySettings, create_proxy_app
from jiyi.proxy.forward import ClosingStreamingResponse
from jiyi.store import Scope
from live_server import LlamaServer, ThreadServer, free_port


@pytest.fixture(scope="session")
def llama_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = LlamaServer(tmp_path_factory.mktemp("llama"))
    try:
        if server.url is None:
            pytest.skip(f"no real LLM server: {server.skip_reason}")
        yield server.url
    finally:
        server.close()


class Recorder:
    """A pass-through relay that keeps every JSON request body it forwards."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.bodies: list[dict[str, Any]] = []
        self.app = Starlette(routes=[Route("/v1/{rest:path}", self.relay, methods=["GET", "POST"])])

    async def relay(self, request: Request) -> Response:
        raw = await request.body()
        if raw:
            self.bodies.append(json.loads(raw))
        client = httpx.AsyncClient(timeout=60)
        url = self.upstream + "/" + request.path_params["rest"]
        upstream = await client.send(
            client.build_request(request.method, url, content=raw,
                                 headers={"content-type": "application/json"}), stream=True)

        async def body() -> AsyncIterator[bytes]:
            try:
                async for chunk in upstream.aiter_raw():
                    yield chunk
            finally:
                await upstream.aclose()
                await client.aclose()

        return ClosingStreamingResponse(body(), status_code=upstream.status_code,
                                        media_type=upstream.headers.get("content-type"))


@pytest.fixture
def chain(llama_url: str, mem: Memory) -> Iterator[tuple[Recorder, str]]:
    recorder = Recorder(llama_url)
    with ThreadServer(recorder.app) as rec_server:
        settings = ProxySettings.for_upstream(rec_server.url + "/v1", default_num_ctx=4096,
                                              read_timeout=60)
        with ThreadServer(create_proxy_app(mem, settings)) as proxy:
            yield recorder, proxy.url + "/v1"


def client_for(base: str, session: str | None = None) -> openai.OpenAI:
    headers = {"X-Jiyi-Session": session} if session else None
    return openai.OpenAI(base_url=base, api_key="not-needed", max_retries=0, timeout=60,
                         default_headers=headers)


def turns(mem: Memory, session: str, user: str | None = None) -> list[tuple[str, str]]:
    scope = Scope(user_id=user or session, session_id=session)
    return [(t.role, t.text) for t in mem.store.recent_turns(scope, 20)]


@pytest.mark.llm
def test_non_streamed_chat_through_real_llama(
    chain: tuple[Recorder, str], mem: Memory, request: pytest.FixtureRequest
) -> None:
    recorder, base = chain
    client = client_for(base, "s-openai")
    request.addfinalizer(client.close)
    first = "My name is Alice. My order number is ZX90817."
    raw = client.chat.completions.with_raw_response.create(
        model="smollm2", max_tokens=24, temperature=0,
        messages=[{"role": "system", "content": "You are a concise assistant."},
                  {"role": "user", "content": first}])
    assert raw.headers["x-jiyi-memory"] == "on"
    completion = raw.parse()
    reply = completion.choices[0].message.content or ""
    assert completion.object == "chat.completion"
    sent = recorder.bodies[-1]["messages"]
    assert sent[0]["role"] == "system" and "<|memory_anchor|>" in sent[0]["content"]
    assert sent[0]["content"].startswith("You are a concise assistant.")
    assert sent[-1] == {"role": "user", "content": first}
    assert turns(mem, "s-openai")[:1] == [("user", first)]
    assert turns(mem, "s-openai")[1:] == ([("assistant", reply)] if reply.strip() else [])

    client.chat.completions.create(
        model="smollm2", max_tokens=16, temperature=0,
        messages=[{"role": "user", "content": "What is my order number?"}])
    assert "ZX90817" in json.dumps(recorder.bodies[-1]["messages"])  # recalled into the prompt


@pytest.mark.llm
def test_streamed_chat_through_real_llama(
    chain: tuple[Recorder, str], mem: Memory, request: pytest.FixtureRequest
) -> None:
    recorder, base = chain
    client = client_for(base)
    request.addfinalizer(client.close)  # no header: the OpenAI "user" field names the session
    text = "我叫陈静，我的手机号是 13512345678。"
    stream = client.chat.completions.create(
        model="smollm2", max_tokens=24, temperature=0, stream=True, user="用户-陈",
        messages=[{"role": "user", "content": text}])
    pieces = [c.choices[0].delta.content or "" for c in stream if c.choices]
    reply = "".join(pieces)
    assert len(pieces) > 1  # really streamed
    assert recorder.bodies[-1]["stream"] is True
    assert "<|memory_anchor|>" in recorder.bodies[-1]["messages"][0]["content"]
    stored = turns(mem, "用户-陈")
    assert stored[0] == ("user", text)
    assert stored[1:] == ([("assistant", reply)] if reply.strip() else [])


@pytest.mark.llm
def test_models_and_bypass(
    chain: tuple[Recorder, str], mem: Memory, request: pytest.FixtureRequest
) -> None:
    recorder, base = chain
    client = client_for(base)
    request.addfinalizer(client.close)
    assert [m.id for m in client.models.list()]
    raw = client.chat.completions.with_raw_response.create(
        model="smollm2", max_tokens=8, messages=[{"role": "user", "content": "Say hi."}])
    assert raw.headers["x-jiyi-memory"] == "bypass"
    assert recorder.bodies[-1]["messages"] == [{"role": "user", "content": "Say hi."}]
    assert mem.store.stats().turns == 0


@pytest.mark.llm
def test_client_disconnect_mid_stream_ingests_nothing(
    chain: tuple[Recorder, str], mem: Memory
) -> None:
    _, base = chain
    with httpx.stream("POST", base + "/chat/completions", headers={"X-Jiyi-Session": "s-cut"},
                      json={"model": "smollm2", "max_tokens": 200, "stream": True,
                            "messages": [{"role": "user", "content": "Tell a long story."}]},
                      timeout=60) as resp:
        assert resp.status_code == 200
        for n, _line in enumerate(resp.iter_lines()):
            if n >= 4:
                break
    time.sleep(3)  # 200 tokens at ~100 tok/s would have finished by now
    assert turns(mem, "s-cut") == []


def test_openai_upstream_down_is_a_502(mem: Memory, request: pytest.FixtureRequest) -> None:
    settings = ProxySettings.for_upstream(f"http://127.0.0.1:{free_port()}/v1",
                                          connect_timeout=1.0, read_timeout=2.0)
    with ThreadServer(create_proxy_app(mem, settings)) as proxy:
        client = client_for(proxy.url + "/v1", "s-down")
        request.addfinalizer(client.close)
        start = time.monotonic()
        with pytest.raises(openai.APIStatusError) as info:
            client.chat.completions.create(model="x", messages=[{"role": "user", "content": "你好"}])
        assert info.value.status_code == 502
        assert time.monotonic() - start < 3
        body = info.value.body
        assert isinstance(body, dict)
        assert body.get("code") == "upstream_unreachable" or \
            body.get("error", {}).get("code") == "upstream_unreachable"
    assert mem.store.stats().turns == 0
