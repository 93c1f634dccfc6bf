"""Idempotent, batched ingest through the doors: ``POST /v1/turns`` and ``POST /v1/turns:batch``
of a real ``jiyi serve`` (with scoped tokens), and the proxy's ``X-Jiyi-Turn-Id``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from fake_ollama import FakeOllama
from jiyi import Memory
from jiyi.proxy import ProxySettings, create_proxy_app
from jiyi.service.spawn import ServerProcess, running_server
from jiyi.store import Scope
from live_server import ThreadServer

ADMIN = "admin-token-0123456789"
ACME = "acme-token-0123456789"
TOKENS = f"""
[[tokens]]
name = "acme"
token = "{ACME}"
users = ["acme-*"]
operations = ["read", "write"]
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    tmp = tmp_path_factory.mktemp("doors")
    (tmp / "tokens.toml").write_text(TOKENS, "utf-8")
    env = {"JIYI_EMBEDDER": "fake", "JIYI_TOKEN": ADMIN,
           "JIYI_TOKENS_FILE": str(tmp / "tokens.toml")}
    with running_server(str(tmp / "memory.db"), env=env) as srv:
        SERVER_DB[srv.url] = tmp / "memory.db"
        yield srv


SERVER_DB: dict[str, Path] = {}


def client(server: ServerProcess, token: str) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=60,
                        headers={"Authorization": f"Bearer {token}"})


def turns_of(server: ServerProcess, user: str) -> int:
    """The user's stored turns, read from the server's SQLite file (WAL: a reader beside it)."""
    with Memory.open(str(SERVER_DB[server.url]), embedder="fake", create=False) as mem:
        return mem.store.stats(user_id=user).turns


def test_post_turn_with_a_known_turn_id_is_a_noop(server: ServerProcess) -> None:
    with client(server, ADMIN) as c:
        body = {"session_id": "s", "user_id": "u-single", "text": "我的邮箱是 a@example.com",
                "turn_id": "d1"}
        first = c.post("/v1/turns", json=body)
        assert first.status_code == 200, first.text
        again = c.post("/v1/turns", json={**body, "text": "我的郵箱是 b@example.com"})
        assert again.status_code == 200, again.text
        assert [u["id"] for u in again.json()["units"]] == \
            [u["id"] for u in first.json()["units"]]
        assert turns_of(server, "u-single") == 1


def test_batch_route_stores_once_and_reports_new_turns(server: ServerProcess) -> None:
    turns = [
        {"session_id": "s", "user_id": "acme-1", "text": "我的邮箱是 old@acme.com",
         "turn_id": "b0", "at": "2026-03-01T09:00:00Z"},
        {"session_id": "s", "user_id": "acme-1", "text": "我的邮箱改成 new@acme.com了",
         "turn_id": "b1", "at": "2026-03-01T09:01:00Z"},
        {"session_id": "s", "user_id": "acme-1", "text": "I live in Taipei", "turn_id": "b2",
         "at": "2026-03-01T09:02:00Z"},
        {"session_id": "s", "user_id": "acme-1", "text": "我的邮箱改成 new@acme.com了",
         "turn_id": "b1"},
    ]
    with client(server, ACME) as c:
        resp = c.post("/v1/turns:batch", json={"turns": turns})
        assert resp.status_code == 200, resp.text
        body = resp.json()
        assert (body["turns"], body["stored"]) == (4, 3)
        new_email = body["results"][1]["units"][0]
        assert new_email["content"] == "用户的邮箱是new@acme.com" and new_email["supersedes"]
        assert body["results"][3]["units"][0]["id"] == new_email["id"]
        again = c.post("/v1/turns:batch", json={"turns": turns}).json()
        assert (again["turns"], again["stored"]) == (4, 0)
        assert turns_of(server, "acme-1") == 3


def test_batch_route_checks_every_user_and_every_turn_first(server: ServerProcess) -> None:
    good = {"session_id": "s", "user_id": "acme-2", "text": "I live in Oslo"}
    with client(server, ACME) as c:
        # one turn of another tenant: 403, and the acme turn before it is not stored either
        resp = c.post("/v1/turns:batch", json={"turns": [
            good, {"session_id": "s", "user_id": "globex-1", "text": "hi"}]})
        assert resp.status_code == 403, resp.text
        assert resp.json()["error"]["code"] == "forbidden"
        # a session id as the user (no user_id) is checked as that user
        resp = c.post("/v1/turns:batch", json={"turns": [good, {"session_id": "x", "text": "hi"}]})
        assert resp.status_code == 403, resp.text
        # a bad instant at index 2: named, nothing stored
        resp = c.post("/v1/turns:batch", json={"turns": [
            good, good, {**good, "at": "yesterday-ish"}]})
        assert resp.status_code == 422, resp.text
        message = resp.json()["error"]["message"]
        assert "turn 2:" in message and "nothing was stored" in message
        # schema errors name the index too
        resp = c.post("/v1/turns:batch", json={"turns": [good, {**good, "text": ""}]})
        assert resp.status_code == 422 and "turns.1.text" in resp.json()["error"]["message"]
        resp = c.post("/v1/turns:batch", json={"turns": []})
        assert resp.status_code == 422
        assert turns_of(server, "acme-2") == 0


# ---------------------------------------------------------------- the proxy


@pytest.fixture
def proxy(mem: Memory) -> Iterator[tuple[FakeOllama, str]]:
    backend = FakeOllama()
    with ThreadServer(backend.app) as upstream:
        settings = ProxySettings.for_upstream(upstream.url, read_timeout=5.0,
                                              connect_timeout=1.0)
        with ThreadServer(create_proxy_app(mem, settings)) as server:
            yield backend, server.url


def _chat(url: str, text: str, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(url + "/api/chat", timeout=10, headers=headers, json={
        "model": "qwen2.5:7b", "stream": False,
        "messages": [{"role": "user", "content": text}]})


def test_proxy_turn_id_makes_a_retried_exchange_a_noop(
        proxy: tuple[FakeOllama, str], mem: Memory) -> None:
    backend, url = proxy
    session = "會話-乙"
    headers = {"X-Jiyi-Session": quote(session, safe=""), "X-Jiyi-Turn-Id": "x-1"}
    for _ in range(2):  # the client retries the same exchange
        resp = _chat(url, "我的手機號碼是 0912345678", headers)
        assert resp.status_code == 200, resp.text
    recorded = mem.store.recent_turns(Scope(session, session), 20)
    assert [(t.turn_id, t.role) for t in recorded] == [("x-1", "user"), ("x-1:reply", "assistant")]
    assert len(backend.bodies("/api/chat")) == 2  # the retry still reached the model
    # without the header every exchange is new
    plain = {"X-Jiyi-Session": quote(session, safe="")}
    _chat(url, "I live in Tainan", plain)
    _chat(url, "I live in Tainan", plain)
    assert len(mem.store.recent_turns(Scope(session, session), 20)) == 6
    bad = _chat(url, "hi", {**plain, "X-Jiyi-Turn-Id": "%20%09"})
    assert bad.status_code == 400 and "X-Jiyi-Turn-Id" in bad.json()["error"]["message"]
