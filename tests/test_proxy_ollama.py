"""The proxy's Ollama side, end to end over real HTTP on 127.0.0.1: client -> jiyi proxy (uvicorn)
-> a fake Ollama server that follows Ollama's documented API (Ollama cannot be installed here)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from fake_ollama import FakeOllama, expected_stream, garbage_app
from jiyi import Memory
from jiyi.proxy import ProxySettings, create_proxy_app
from jiyi.proxy.ollama import num_ctx_from_show
from jiyi.store import Scope
from live_server import ThreadServer, free_port


@pytest.fixture
def fake() -> Iterator[tuple[FakeOllama, str]]:
    backend = FakeOllama()
    with ThreadServer(backend.app) as server:
        yield backend, server.url


@pytest.fixture
def proxy(fake: tuple[FakeOllama, str], mem: Memory) -> Iterator[str]:
    settings = ProxySettings.for_upstream(fake[1], read_timeout=2.0, connect_timeout=1.0)
    with ThreadServer(create_proxy_app(mem, settings)) as server:
        yield server.url


def turns(mem: Memory, session: str, user: str | None = None) -> list[tuple[str, str]]:
    scope = Scope(user_id=user or session, session_id=session)
    return [(t.role, t.text) for t in mem.store.recent_turns(scope, 20)]


def headers(session: str, user: str | None = None) -> dict[str, str]:
    out = {"X-Jiyi-Session": quote(session, safe="")}
    if user:
        out["X-Jiyi-User"] = quote(user, safe="")
    return out


def chat_body(text: str, *, model: str = "qwen2.5:7b", stream: bool | None = None,
              system: str | None = None, num_ctx: int | None = None) -> dict[str, object]:
    messages = [{"role": "system", "content": system}] if system else []
    messages += [{"role": "user", "content": "earlier turn the client kept"},
                 {"role": "assistant", "content": "earlier answer"},
                 {"role": "user", "content": text}]
    body: dict[str, object] = {"model": model, "messages": messages}
    if stream is not None:
        body["stream"] = stream
    if num_ctx is not None:
        body["options"] = {"num_ctx": num_ctx}
    return body


def test_streamed_chat_is_relayed_unchanged_rewritten_and_ingested(
    fake: tuple[FakeOllama, str], proxy: str, mem: Memory
) -> None:
    backend, _ = fake
    sess = "会话-甲"
    first = "我叫张伟，订单号是 ABC12345，请帮我查一下"
    with httpx.stream("POST", proxy + "/api/chat", json=chat_body(first, system="你是客服助手。"),
                      headers=headers(sess, "用户7"), timeout=10) as resp:
        raw = resp.read()
        assert resp.status_code == 200
        assert resp.headers["x-jiyi-memory"] == "on"
        assert resp.headers["content-type"].startswith("application/x-ndjson")
    assert raw == expected_stream("qwen2.5:7b", "好的，我记住了。")  # byte for byte
    sent = backend.bodies("/api/chat")[-1]
    system = sent["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("你是客服助手。")  # the client's instructions are kept
    assert "<|memory_anchor|>" in system["content"]
    assert sent["messages"][-1] == {"role": "user", "content": first}
    assert all(m["content"] != "earlier turn the client kept" for m in sent["messages"])
    assert sent["model"] == "qwen2.5:7b"
    assert turns(mem, sess, "用户7") == [("user", first), ("assistant", "好的，我记住了。")]

    # the next turn sees what the first one stored: the order number is recalled
    with httpx.stream("POST", proxy + "/api/chat", json=chat_body("我的订单号是多少？"),
                      headers=headers(sess, "用户7"), timeout=10) as resp:
        resp.read()
        assert int(resp.headers["x-jiyi-recalled"]) >= 1
    prompt = json.dumps(backend.bodies("/api/chat")[-1]["messages"], ensure_ascii=False)
    assert "ABC12345" in prompt
    assert len(turns(mem, sess, "用户7")) == 4


@pytest.mark.parametrize("text", ["My name is Alice and my phone is 13812345678.",
                                  "我的電話號碼是 13912345678，請記住。"])
def test_non_streamed_chat_english_and_traditional(
    fake: tuple[FakeOllama, str], proxy: str, mem: Memory, text: str
) -> None:
    backend, _ = fake
    resp = httpx.post(proxy + "/api/chat", json=chat_body(text, stream=False),
                      headers=headers("s-en"), timeout=10)
    assert resp.status_code == 200, resp.text
    answer = resp.json()
    assert answer["done"] is True
    assert answer["message"]["role"] == "assistant"
    assert backend.bodies("/api/chat")[-1]["stream"] is False
    assert turns(mem, "s-en") == [("user", text), ("assistant", answer["message"]["content"])]
    units = mem.store.find_units(Scope("s-en", "s-en"), as_of=None)
    assert units, "the turn produced memory units"


def test_num_ctx_from_options_or_api_show(fake: tuple[FakeOllama, str], proxy: str) -> None:
    backend, _ = fake
    httpx.post(proxy + "/api/chat", json=chat_body("hello there", stream=False, num_ctx=4096),
               headers=headers("s-ctx"), timeout=10).raise_for_status()
    assert backend.bodies("/api/show") == []  # options.num_ctx wins, no lookup
    for _ in range(2):
        httpx.post(proxy + "/api/chat", json=chat_body("hello again", stream=False),
                   headers=headers("s-ctx"), timeout=10).raise_for_status()
    assert backend.bodies("/api/show") == [{"model": "qwen2.5:7b"}]  # looked up once, cached
    assert num_ctx_from_show({"parameters": "stop <|im_end|>\nnum_ctx 32768"}) == 32768
    assert num_ctx_from_show({"model_info": {"qwen2.context_length": 32768}}) is None


def test_without_session_the_request_passes_untouched(
    fake: tuple[FakeOllama, str], proxy: str, mem: Memory
) -> None:
    backend, _ = fake
    body = chat_body("我叫李雷", stream=False)
    resp = httpx.post(proxy + "/api/chat", json=body, timeout=10)
    assert resp.status_code == 200
    assert resp.headers["x-jiyi-memory"] == "bypass"
    assert "session" in resp.headers["x-jiyi-memory-reason"].lower()
    assert backend.bodies("/api/chat")[-1] == body
    assert mem.store.stats().turns == 0


def test_generate_tags_show_and_other_endpoints_pass_through(
    fake: tuple[FakeOllama, str], proxy: str, mem: Memory
) -> None:
    backend, url = fake
    for path in ("/api/tags", "/api/version"):
        direct, via = httpx.get(url + path), httpx.get(proxy + path)
        assert via.status_code == 200 and via.json() == direct.json()
    show = httpx.post(proxy + "/api/show", json={"model": "qwen2.5:7b"})
    assert "num_ctx" in show.json()["parameters"]
    missing = httpx.post(proxy + "/api/show", json={"model": "nope"})
    assert missing.status_code == 404 and "not found" in missing.json()["error"]
    with httpx.stream("POST", proxy + "/api/generate", headers=headers("s-gen"),
                      json={"model": "qwen2.5:7b", "prompt": "hi"}) as resp:
        assert resp.read() == expected_stream("qwen2.5:7b", "Hello from generate.", "response")
        assert resp.headers["x-jiyi-memory"] == "bypass"
    assert backend.bodies("/api/generate")[-1] == {"model": "qwen2.5:7b", "prompt": "hi"}
    assert mem.store.stats().turns == 0


def test_upstream_down_is_a_quick_502(mem: Memory) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    settings = ProxySettings.for_upstream(dead, connect_timeout=1.0, read_timeout=2.0)
    with ThreadServer(create_proxy_app(mem, settings)) as server:
        for path, method in (("/api/chat", "POST"), ("/api/tags", "GET"), ("/api/show", "POST")):
            start = time.monotonic()
            resp = httpx.request(method, server.url + path, headers=headers("s-down"),
                                 json=chat_body("你好"), timeout=10)
            assert time.monotonic() - start < 3
            assert resp.status_code == 502
            assert resp.json()["error"]["code"] == "upstream_unreachable"
    assert mem.store.stats().turns == 0


def test_upstream_that_hangs_times_out_with_502(proxy: str, mem: Memory) -> None:
    start = time.monotonic()
    resp = httpx.post(proxy + "/api/chat", json=chat_body("hello", model="hang"),
                      headers=headers("s-hang"), timeout=10)
    assert resp.status_code == 502
    assert resp.json()["error"]["code"] == "upstream_timeout"
    assert time.monotonic() - start < 5  # read timeout 2 s
    assert turns(mem, "s-hang") == []


@pytest.mark.parametrize("stream", [True, False])
def test_upstream_garbage_is_a_502(proxy: str, mem: Memory, stream: bool) -> None:
    resp = httpx.post(proxy + "/api/chat", json=chat_body("你好", model="garbage", stream=stream),
                      headers=headers("s-garbage"), timeout=10)
    assert resp.status_code == 502
    err = resp.json()["error"]
    assert err["code"] == "upstream_garbage" and "not JSON" in err["message"]
    assert turns(mem, "s-garbage") == []


def test_garbage_server_on_every_endpoint(mem: Memory) -> None:
    with ThreadServer(garbage_app()) as bad:
        settings = ProxySettings.for_upstream(bad.url, read_timeout=2.0)
        with ThreadServer(create_proxy_app(mem, settings)) as server:
            assert httpx.get(server.url + "/api/tags").status_code == 502
            assert httpx.post(server.url + "/api/show", json={"model": "x"}).status_code == 502
            resp = httpx.post(server.url + "/api/chat", json=chat_body("hi"),
                              headers=headers("s-bad"))
            assert resp.status_code == 502 and resp.json()["error"]["code"] == "upstream_garbage"


@pytest.mark.parametrize("model", ["half-garbage", "cut"])
def test_broken_stream_ends_with_an_error_and_ingests_nothing(
    proxy: str, mem: Memory, model: str
) -> None:
    with httpx.stream("POST", proxy + "/api/chat", json=chat_body("记住我的邮箱 a@b.cn", model=model),
                      headers=headers("s-broken"), timeout=10) as resp:
        lines = [json.loads(line) for line in resp.iter_lines() if line]
    assert resp.status_code == 200  # the stream had started: the status was already sent
    assert lines[0]["message"]["role"] == "assistant"
    if model == "half-garbage":
        assert "upstream_garbage" in lines[-1]["error"]
    else:
        assert lines[-1]["done"] is False
    assert turns(mem, "s-broken") == []


def test_client_disconnect_mid_stream_ingests_nothing(
    fake: tuple[FakeOllama, str], proxy: str, mem: Memory
) -> None:
    backend, _ = fake
    port = int(proxy.rsplit(":", 1)[1])
    body = json.dumps(chat_body("我叫王芳，会员号 VIP99887", model="slow"),
                      ensure_ascii=False).encode()
    request = (f"POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               f"X-Jiyi-Session: s-drop\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        got = b""
        while got.count(b'"done": false') < 3:
            data = sock.recv(4096)
            assert data, "the proxy closed the stream early"
            got += data
        assert b"200 OK" in got
    # the slow stream takes about 40 x 30 ms; wait past its end, then nothing may be stored
    time.sleep(1.8)
    assert len(backend.bodies("/api/chat")) == 1
    assert turns(mem, "s-drop") == []
    # the same request read to the end is ingested (so the check above can fail)
    with httpx.stream("POST", proxy + "/api/chat", content=body, timeout=10,
                      headers={"X-Jiyi-Session": "s-drop"}) as resp:
        resp.read()
    assert [role for role, _ in turns(mem, "s-drop")] == ["user", "assistant"]


@pytest.mark.parametrize("value", ["%20%20", "%E4%BC%9A%07x"])
def test_bad_session_header_is_a_400(proxy: str, mem: Memory, value: str) -> None:
    resp = httpx.post(proxy + "/api/chat", json=chat_body("hi"), headers={"X-Jiyi-Session": value})
    assert resp.status_code == 400
    assert resp.json()["error"]["code"] == "missing_session_id"
    assert mem.store.stats().turns == 0


def test_bad_request_body_is_a_400(proxy: str) -> None:
    resp = httpx.post(proxy + "/api/chat", content=b"{not json", headers=headers("s"))
    assert resp.status_code == 400 and resp.json()["error"]["code"] == "invalid_input"
    assert ProxySettings.for_upstream("http://127.0.0.1:11434").flavor == "ollama"
    assert ProxySettings.for_upstream("http://127.0.0.1:8080/v1/").flavor == "openai"


def test_jiyi_proxy_command(fake: tuple[FakeOllama, str], db_path: str, tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "JIYI_EMBEDDER": "fake", "XDG_DATA_HOME": str(tmp_path / "xdg")}
    bad = subprocess.run([sys.executable, "-m", "jiyi", "--db", db_path, "proxy", "--upstream",
                          "ftp://example"], env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "http(s) URL" in bad.stderr and "Traceback" not in bad.stderr
    log = open(tmp_path / "proxy.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "jiyi", "--db", db_path, "proxy",
                             "--upstream", fake[1], "--port", str(port)],
                            env=env, stdout=log, stderr=log)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "proxy.log").read_text()
            try:
                httpx.get(url + "/", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        resp = httpx.post(url + "/api/chat", json=chat_body("我住在杭州西湖区", stream=False),
                          headers=headers("s-cli"), timeout=30)
        assert resp.status_code == 200 and resp.headers["x-jiyi-memory"] == "on", resp.text
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()
    with Memory.open(db_path, embedder="fake") as reopened:
        assert turns(reopened, "s-cli")[0] == ("user", "我住在杭州西湖区")
