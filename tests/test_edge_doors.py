"""Every network door of jiyi, knocked on from a non-loopback address.

Four doors: the HTTP service (``jiyi serve``), its inspector API, the proxy (``jiyi proxy``) and
MCP over streamable HTTP (``jiyi mcp --transport http``). Each door gets the same three tests:

* **no token off loopback is refused**: the command refuses to listen on a non-loopback address
  without a token, and an app started there anyway (in-process, no token) refuses a non-loopback
  client with 403;
* **missing or wrong token is 401** (JSON error, ``WWW-Authenticate: Bearer``);
* **a scoped token gets 403 for another tenant's user** on every route that names a user or a
  unit, and the other tenant's data is unchanged afterwards.

"From a non-loopback address": the servers are bound to an IPv4 address of this machine that is
not loopback (eth0's, found with ``ip -4 addr``) and the clients connect to it, so both ends of
every connection use that address. No root rights or network namespace are needed; a machine with
no such address skips these tests and says why.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from fake_ollama import FakeOllama
from jiyi import Memory
from jiyi.auth import Auth
from jiyi.mcp_server import create_mcp_server, mcp_http_app
from jiyi.proxy import ProxySettings, create_proxy_app
from jiyi.service import create_app
from jiyi.service.spawn import ServerProcess, running_server
from live_server import ThreadServer, free_port, non_loopback_ipv4

IP = non_loopback_ipv4()
pytestmark = pytest.mark.skipif(
    IP is None, reason="no non-loopback IPv4 address on this machine (`ip -4 addr` lists only "
                       "lo): the doors cannot be tested from off loopback")

ROOT = Path(__file__).resolve().parents[1]
ADMIN = "admin-token-0123456789"
ACME = "acme-token-0123456789"  # read + write on acme-*
ACME_READER = "acme-reader-0123456789"  # read on acme-*
GLOBEX = "globex-token-0123456789"  # read + write on globex-*
PROM = "prometheus-token-0123456789"  # metrics only

TOKENS_TOML = f"""
[[tokens]]
name = "acme"
token = "{ACME}"
users = ["acme-*"]
operations = ["read", "write"]

[[tokens]]
name = "acme-reader"
token = "{ACME_READER}"
users = ["acme-*"]
operations = ["read"]

[[tokens]]
name = "globex"
token = "{GLOBEX}"
users = ["globex-*"]
operations = ["read", "write"]

[[tokens]]
name = "prometheus"
token = "{PROM}"
users = ["*"]
operations = ["metrics"]
"""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def http(token: str | None = None) -> httpx.Client:
    return httpx.Client(timeout=60, trust_env=False, headers=bearer(token) if token else None)


def assert_error(resp: httpx.Response, status: int, code: str) -> None:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/json")
    body = resp.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    for token in (ADMIN, ACME, ACME_READER, GLOBEX, PROM):
        assert token not in resp.text
    if status == 401:
        assert resp.headers["www-authenticate"].startswith("Bearer")


def child_env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("JIYI_TOKEN", "JIYI_TOKENS_FILE", "JIYI_DB")}
    env.update({"JIYI_EMBEDDER": "fake", "XDG_DATA_HOME": str(tmp / "xdg"),
                "PYTHONPATH": str(ROOT / "src"), "PYTHONWARNINGS": "ignore"}, **extra)
    return env


def refused_without_token(tmp: Path, *command: str) -> None:
    """The CLI refuses to listen on the non-loopback address without a token, in one line."""
    done = subprocess.run([sys.executable, "-m", "jiyi", "--db", str(tmp / "refused.db"),
                           *command, "--host", str(IP), "--port", str(free_port(str(IP)))],
                          capture_output=True, text=True, env=child_env(tmp), timeout=120)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"refusing to listen on {IP} without a token" in lines[0], lines
    assert "Traceback" not in done.stderr + done.stdout


def remote_client_refused(app: Any, path: str, method: str = "GET") -> None:
    """An app without tokens, bound to the non-loopback address anyway, refuses a client there."""
    with ThreadServer(app, host=str(IP)) as server, http() as c:
        assert_error(c.request(method, server.url + path, json={} if method == "POST" else None),
                     403, "forbidden")
        assert c.get(server.url + "/healthz").status_code == 200


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("doors")
    (path / "tokens.toml").write_text(TOKENS_TOML, "utf-8")
    return path


def door_env(tmp: Path) -> dict[str, str]:
    return {"JIYI_EMBEDDER": "fake", "JIYI_TOKEN": ADMIN,
            "JIYI_TOKENS_FILE": str(tmp / "tokens.toml")}


# ----------------------------------------------------------------------------- serve + inspector


class Tenants:
    """What the serve door's store holds: one unit of each tenant."""

    def __init__(self, server: ServerProcess) -> None:
        self.url = server.url
        with http(ACME) as c:
            r = c.post(self.url + "/v1/turns", json={
                "session_id": "acme-s1", "user_id": "acme-1", "text": "我叫张伟，订单号是 ABC12345"})
            assert r.status_code == 200, r.text
            self.acme_unit = r.json()["units"][0]["id"]
        with http(GLOBEX) as c:
            r = c.post(self.url + "/v1/turns", json={
                "session_id": "globex-s1", "user_id": "globex-1",
                "text": "My order number is GLX778899, ship it to 台北市信義區"})
            assert r.status_code == 200, r.text
            self.globex_unit = r.json()["units"][0]["id"]

    def globex_snapshot(self) -> dict[str, Any]:
        with http(ADMIN) as c:
            units = c.get(self.url + "/inspector/api/units", params={"user_id": "globex-1"})
            sessions = c.get(self.url + "/inspector/api/sessions", params={"user_id": "globex-1"})
        assert units.status_code == 200 and sessions.status_code == 200
        return {"units": [(u["id"], u["content"], u["relevance_score"], u["invalidated_at"])
                          for u in units.json()["units"]],
                "sessions": sessions.json()["sessions"]}


@pytest.fixture(scope="module")
def serve_door(tmp: Path) -> Iterator[Tenants]:
    with running_server(str(tmp / "serve.db"), env=door_env(tmp), host=str(IP),
                        log_path=tmp / "serve.log") as server:
        yield Tenants(server)


#: Every route of the service that reads or changes data, with a request that names another
#: tenant (globex) for the acme token. A route added to the app without a line here fails
#: test_every_service_route_is_checked.
def service_routes(t: Tenants) -> dict[tuple[str, str], dict[str, Any]]:
    other = {"session_id": "globex-s1", "user_id": "globex-1"}
    return {
        ("POST", "/v1/turns"): {"json": {**other, "text": "我换号了，新号是13900001111"}},
        ("POST", "/v1/turns:batch"): {"json": {"turns": [
            {"session_id": "acme-s1", "user_id": "acme-1", "text": "I live in Oslo"},
            {**other, "text": "我换号了，新号是13900002222"}]}},
        ("GET", "/v1/recall"): {"params": {**other, "q": "order number"}},
        ("POST", "/v1/feedback"): {"json": {"unit_id": t.globex_unit, "event": "wrong"}},
        ("POST", "/v1/prompt"): {"json": {**other, "text": "我的订单号是多少？"}},
        ("GET", "/memory/health"): {"params": {"user_id": "globex-1"}},
        ("GET", "/metrics"): {},
        ("GET", "/inspector/api/sessions"): {"params": {"user_id": "globex-1"}},
        ("GET", "/inspector/api/units"): {"params": {"user_id": "globex-1"}},
        ("GET", "/inspector/api/units/{unit_id}"): {"path": {"unit_id": t.globex_unit}},
        ("GET", "/inspector/api/recall"): {"params": {**other, "q": "GLX778899"}},
        ("GET", "/inspector/api/health"): {"params": {"user_id": "globex-1"}},
    }


#: Routes that hold no tenant data: liveness, the inspector's page and files, the API docs.
NO_DATA_ROUTES = {("GET", "/healthz"), ("GET", "/"), ("GET", "/inspector/static/{name}"),
                  ("GET", "/openapi.json"), ("GET", "/docs"), ("GET", "/docs/oauth2-redirect"),
                  ("GET", "/redoc"), ("GET", "/inspector/api/users")}  # users: filtered, below


def call(c: httpx.Client, base: str, route: tuple[str, str], spec: dict[str, Any]
         ) -> httpx.Response:
    method, template = route
    path = template.format(**spec.get("path", {}))
    return c.request(method, base + path, params=spec.get("params"), json=spec.get("json"))


def test_every_service_route_is_checked(serve_door: Tenants) -> None:
    def flatten(routes: list[Any]) -> Iterator[Any]:
        for r in routes:  # FastAPI keeps an included router as one entry
            sub = getattr(r, "original_router", None)
            yield from (flatten(sub.routes) if sub is not None else [r])

    app = create_app(db=":memory:", embedder="fake")
    routes = {(m, r.path) for r in flatten(app.routes)
              for m in (getattr(r, "methods", None) or ()) if m != "HEAD"}
    assert len(routes) > 15
    assert routes == set(service_routes(serve_door)) | NO_DATA_ROUTES


def test_service_no_token_off_loopback_is_refused(tmp: Path) -> None:
    refused_without_token(tmp, "serve")
    remote_client_refused(create_app(db=str(tmp / "open.db"), embedder="fake"),
                          "/v1/recall?q=x&session_id=s")
    remote_client_refused(create_app(db=str(tmp / "open.db"), embedder="fake"), "/v1/turns",
                          "POST")


def test_service_missing_or_wrong_token_is_401(serve_door: Tenants) -> None:
    base = serve_door.url
    with http() as c:
        for route, spec in service_routes(serve_door).items():
            assert_error(call(c, base, route, spec), 401, "unauthorized")
        for headers in ({"Authorization": "Bearer wrong-token-0123456789"},
                        {"Authorization": ACME}, {"Authorization": f"Basic {ACME}"},
                        {"Authorization": f"Bearer {ACME[:-1]}"}):
            c.headers.update(headers)
            for route in (("GET", "/v1/recall"), ("POST", "/v1/turns"), ("GET", "/metrics")):
                assert_error(call(c, base, route, service_routes(serve_door)[route]), 401,
                             "unauthorized")
        assert c.get(base + "/healthz").status_code == 200  # liveness needs no token
    with http() as c:  # the scheme is case-insensitive
        ok = c.get(base + "/v1/recall", params={"q": "订单号", "session_id": "acme-s1",
                                                 "user_id": "acme-1"},
                   headers={"Authorization": f"bEARER {ACME}"})
        assert ok.status_code == 200 and ok.json()["hits"]


def test_service_scoped_token_is_403_for_another_tenant(serve_door: Tenants) -> None:
    base = serve_door.url
    before = serve_door.globex_snapshot()
    with http(ACME) as c:
        for route, spec in service_routes(serve_door).items():
            if route[0] == "GET" and route[1].startswith("/inspector/"):
                continue  # the inspector door, below
            assert_error(call(c, base, route, spec), 403, "forbidden")
        # the user defaults to the session: naming only another tenant's session is refused too
        assert_error(c.get(base + "/v1/recall", params={"q": "x", "session_id": "globex-1"}),
                     403, "forbidden")
        # ids are checked as the memory uses them (stripped), and prefixes are prefixes
        for user in (" globex-1 ", "acme", "acmeglobex", "ACME-1"):
            assert_error(c.get(base + "/v1/recall", params={"q": "x", "session_id": "s",
                                                             "user_id": user}), 403, "forbidden")
        # its own tenant works
        mine = c.get(base + "/v1/recall", params={"q": "订单号", "session_id": "acme-s1",
                                                   "user_id": "acme-1"})
        assert mine.status_code == 200 and mine.json()["hits"]
        assert all(h["unit"]["user_id"] == "acme-1" for h in mine.json()["hits"])
        fb = c.post(base + "/v1/feedback", json={"unit_id": serve_door.acme_unit, "event": "used"})
        assert fb.status_code == 200
    with http(ACME_READER) as c:  # read only: may recall, may not write
        assert c.get(base + "/v1/recall", params={"q": "订单", "session_id": "acme-s1",
                                                   "user_id": "acme-1"}).status_code == 200
        assert_error(c.post(base + "/v1/turns", json={"session_id": "acme-s1",
                                                       "user_id": "acme-1", "text": "hi"}),
                     403, "forbidden")
        assert_error(c.post(base + "/v1/feedback", json={"unit_id": serve_door.acme_unit,
                                                          "event": "wrong"}), 403, "forbidden")
    with http(PROM) as c:  # metrics only
        assert c.get(base + "/metrics").status_code == 200
        assert c.get(base + "/memory/health").status_code == 200
        assert_error(c.get(base + "/v1/recall", params={"q": "x", "session_id": "acme-s1"}),
                     403, "forbidden")
    assert serve_door.globex_snapshot() == before  # nothing read into, changed or erased


def test_inspector_no_token_off_loopback_is_refused(tmp: Path) -> None:
    # the inspector is served by `jiyi serve`: the same refusal to bind, and the same client check
    refused_without_token(tmp, "serve")
    remote_client_refused(create_app(db=str(tmp / "open.db"), embedder="fake"),
                          "/inspector/api/users")


def test_inspector_missing_or_wrong_token_is_401(serve_door: Tenants) -> None:
    base = serve_door.url
    with http() as c:
        for path in ("/inspector/api/users", "/inspector/api/health",
                     f"/inspector/api/units/{serve_door.acme_unit}"):
            assert_error(c.get(base + path), 401, "unauthorized")
            assert_error(c.get(base + path, headers=bearer("nope-0123456789abcdef")), 401,
                         "unauthorized")
        page = c.get(base + "/")  # the page and its files hold no data
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert "acme-1" not in page.text and "globex" not in page.text


def test_inspector_scoped_token_is_403_for_another_tenant(serve_door: Tenants) -> None:
    base = serve_door.url
    before = serve_door.globex_snapshot()
    with http(ACME) as c:
        for route, spec in service_routes(serve_door).items():
            if route[1].startswith("/inspector/api/"):
                assert_error(call(c, base, route, spec), 403, "forbidden")
        users = c.get(base + "/inspector/api/users")
        assert users.status_code == 200 and users.json()["users"] == ["acme-1"]
        mine = c.get(base + "/inspector/api/units", params={"user_id": "acme-1"})
        assert mine.status_code == 200 and mine.json()["units"]
        detail = c.get(base + f"/inspector/api/units/{serve_door.acme_unit}")
        assert detail.status_code == 200 and detail.json()["user_id"] == "acme-1"
    with http(ADMIN) as c:
        assert set(c.get(base + "/inspector/api/users").json()["users"]) >= {"acme-1",
                                                                             "globex-1"}
    assert serve_door.globex_snapshot() == before


# ----------------------------------------------------------------------------- proxy


def chat(text: str) -> dict[str, Any]:
    return {"model": "qwen2.5:7b", "stream": False, "messages": [{"role": "user", "content": text}]}


def wait_ready(proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + 90
    while True:
        assert proc.poll() is None, log.read_text()
        try:
            if httpx.get(url + "/healthz", timeout=1, trust_env=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "not ready:\n" + log.read_text()
        time.sleep(0.2)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


class ProxyDoor:
    def __init__(self, url: str, fake: FakeOllama, db: str) -> None:
        self.url, self.fake, self.db = url, fake, db

    def turns_of(self, user: str) -> int:
        with Memory.open(self.db, embedder="fake", create=False) as mem:
            return len(mem.store.export_user(user)["turns"])


@pytest.fixture(scope="module")
def proxy_door(tmp: Path) -> Iterator[ProxyDoor]:
    fake = FakeOllama()
    port = free_port(str(IP))
    db = str(tmp / "proxy.db")
    log_path = tmp / "proxy.log"
    with ThreadServer(fake.app) as upstream, open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jiyi", "--db", db, "proxy", "--upstream", upstream.url,
             "--host", str(IP), "--port", str(port)],
            env=child_env(tmp, **door_env(tmp)), stdout=log, stderr=log)
        try:
            url = f"http://{IP}:{port}"
            wait_ready(proc, url, log_path)
            yield ProxyDoor(url, fake, db)
        finally:
            stop(proc)


def test_proxy_no_token_off_loopback_is_refused(tmp: Path, mem: Memory) -> None:
    refused_without_token(tmp, "proxy", "--upstream", "http://127.0.0.1:9")
    settings = ProxySettings.for_upstream("http://127.0.0.1:9")
    remote_client_refused(create_proxy_app(mem, settings), "/api/chat", "POST")
    remote_client_refused(create_proxy_app(mem, settings), "/v1/models")


def test_proxy_missing_or_wrong_token_is_401(proxy_door: ProxyDoor) -> None:
    sent = len(proxy_door.fake.requests)
    with http() as c:
        for headers in ({}, bearer("wrong-token-0123456789"), {"Authorization": ACME}):
            assert_error(c.post(proxy_door.url + "/api/chat", json=chat("hi"),
                                headers={**headers, "X-Jiyi-Session": "acme-s1"}),
                         401, "unauthorized")
            assert_error(c.post(proxy_door.url + "/v1/chat/completions", json=chat("hi"),
                                headers=headers), 401, "unauthorized")
            assert_error(c.get(proxy_door.url + "/api/tags", headers=headers), 401,
                         "unauthorized")
            assert_error(c.get(proxy_door.url + "/", headers=headers), 401, "unauthorized")
        assert c.get(proxy_door.url + "/healthz").status_code == 200
    assert len(proxy_door.fake.requests) == sent  # nothing reached the model


def test_proxy_scoped_token_is_403_for_another_tenant(proxy_door: ProxyDoor) -> None:
    url = proxy_door.url
    with http(GLOBEX) as c:
        r = c.post(url + "/api/chat", json=chat("我的订单号是 GLX778899"),
                   headers={"X-Jiyi-Session": "globex-s1", "X-Jiyi-User": "globex-1"})
        assert r.status_code == 200 and r.headers["x-jiyi-memory"] == "on", r.text
    globex_turns = proxy_door.turns_of("globex-1")
    assert globex_turns == 2
    sent = len(proxy_door.fake.requests)
    with http(ACME) as c:
        attempts = [
            c.post(url + "/api/chat", json=chat("我的订单号是多少？"),
                   headers={"X-Jiyi-Session": "acme-s1", "X-Jiyi-User": "globex-1"}),
            c.post(url + "/api/chat", json=chat("what is my order number?"),
                   headers={"X-Jiyi-Session": "globex-1"}),  # user defaults to the session
            c.post(url + "/v1/chat/completions", json={**chat("order?"), "user": "globex-1"}),
            c.post(url + "/v1/chat/completions", json=chat("order?"),
                   headers={"X-Jiyi-Session": "s", "X-Jiyi-User": "%67lobex-1"}),  # encoded
        ]
        for resp in attempts:
            assert_error(resp, 403, "forbidden")
        assert len(proxy_door.fake.requests) == sent  # refused before the model saw anything
        mine = c.post(url + "/api/chat", json=chat("我叫张伟"),
                      headers={"X-Jiyi-Session": "acme-s1", "X-Jiyi-User": "acme-1"})
        assert mine.status_code == 200 and mine.headers["x-jiyi-memory"] == "on"
        assert proxy_door.fake.authorizations[-1] is None  # jiyi's token is never relayed
    with http(ACME_READER) as c:  # a chat with memory writes: read-only is not enough
        assert_error(c.post(url + "/api/chat", json=chat("hi"),
                            headers={"X-Jiyi-Session": "acme-s1", "X-Jiyi-User": "acme-1"}),
                     403, "forbidden")
    assert proxy_door.turns_of("globex-1") == globex_turns
    assert proxy_door.turns_of("acme-1") == 2


def test_proxy_sends_its_own_upstream_key_never_the_clients_token(mem: Memory) -> None:
    fake = FakeOllama()
    with ThreadServer(fake.app) as upstream:
        keyed = ProxySettings.for_upstream(upstream.url, upstream_key="sk-upstream-key")
        assert "sk-upstream-key" not in repr(keyed)
        with ThreadServer(create_proxy_app(mem, keyed, Auth.build(ADMIN))) as proxy, \
                http(ADMIN) as c:
            assert c.post(proxy.url + "/api/chat", json=chat("hi")).status_code == 200
            assert fake.authorizations[-1] == "Bearer sk-upstream-key"
        plain = ProxySettings.for_upstream(upstream.url)
        with ThreadServer(create_proxy_app(mem, plain)) as proxy, http() as c:
            # no jiyi token (loopback): the client's own Authorization goes upstream as before
            r = c.post(proxy.url + "/api/chat", json=chat("hi"), headers=bearer("sk-client"))
            assert r.status_code == 200 and fake.authorizations[-1] == "Bearer sk-client"


# ----------------------------------------------------------------------------- MCP over HTTP


def tool_data(result: CallToolResult) -> Any:
    assert not result.is_error, result.content
    return result.structured_content


def tool_error(result: CallToolResult) -> str:
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


@asynccontextmanager
async def mcp_client(url: str, token: str) -> AsyncIterator[Client]:
    """An MCP client sending ``token`` (the transport does not close a client it was given)."""
    async with httpx2.AsyncClient(headers=bearer(token), timeout=httpx2.Timeout(30, read=120),
                                  trust_env=False) as http_client:
        transport = streamable_http_client(url + "/mcp", http_client=http_client)
        async with Client(transport, read_timeout_seconds=120) as client:
            yield client


@pytest.fixture(scope="module")
def mcp_door(tmp: Path) -> Iterator[str]:
    port = free_port(str(IP))
    log_path = tmp / "mcp.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jiyi", "--db", str(tmp / "mcp.db"), "mcp", "--transport",
             "http", "--host", str(IP), "--port", str(port)],
            env=child_env(tmp, **door_env(tmp)), stdout=log, stderr=log)
        try:
            url = f"http://{IP}:{port}"
            wait_ready(proc, url, log_path)
            yield url
        finally:
            stop(proc)


def test_mcp_no_token_off_loopback_is_refused(tmp: Path, mem: Memory) -> None:
    refused_without_token(tmp, "mcp", "--transport", "http")
    remote_client_refused(mcp_http_app(create_mcp_server(mem), Auth(), host=str(IP)), "/mcp",
                          "POST")


def test_mcp_missing_or_wrong_token_is_401(mcp_door: str) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream"}
    with http() as c:
        for auth in ({}, bearer("wrong-token-0123456789"), {"Authorization": ACME}):
            assert_error(c.post(mcp_door + "/mcp", json=init, headers={**headers, **auth}),
                         401, "unauthorized")
        ok = c.post(mcp_door + "/mcp", json=init, headers={**headers, **bearer(ACME)})
        assert ok.status_code == 200


def test_mcp_scoped_token_is_403_for_another_tenant(mcp_door: str, tmp: Path) -> None:
    async def main() -> None:
        async with mcp_client(mcp_door, GLOBEX) as globex:
            units = tool_data(await globex.call_tool("remember", {
                "text": "我的会员号是 VIP20260501，住在台北市", "session_id": "globex-s1",
                "user_id": "globex-1"}))["units"]
        globex_unit = units[0]["id"]
        async with mcp_client(mcp_door, ACME) as acme:
            forbidden = [
                await acme.call_tool("remember", {"text": "我换号了", "session_id": "globex-s1",
                                                  "user_id": "globex-1"}),
                await acme.call_tool("recall", {"query": "会员号", "session_id": "globex-s1",
                                                "user_id": "globex-1"}),
                await acme.call_tool("recall", {"query": "会员号", "session_id": "globex-1"}),
                await acme.call_tool("forget", {"unit_id": globex_unit,
                                                "session_id": "globex-s1",
                                                "user_id": "globex-1"}),
                await acme.call_tool("memory_health", {"user_id": "globex-1"}),
            ]
            for result in forbidden:
                assert "forbidden: " in tool_error(result), result.content
            # claiming its own user does not reach another tenant's unit either
            stolen = await acme.call_tool("forget", {"unit_id": globex_unit,
                                                     "session_id": "acme-s1",
                                                     "user_id": "acme-1"})
            assert "not_found" in tool_error(stolen)
            tool_data(await acme.call_tool("remember", {
                "text": "我叫张伟，订单号是 ABC12345", "session_id": "acme-s1",
                "user_id": "acme-1"}))
            hits = tool_data(await acme.call_tool("recall", {
                "query": "订单号", "session_id": "acme-s1", "user_id": "acme-1"}))["hits"]
            assert hits and all(h["user_id"] == "acme-1" for h in hits)
        async with mcp_client(mcp_door, ACME_READER) as reader:
            denied = await reader.call_tool("remember", {"text": "hi", "session_id": "acme-s1",
                                                         "user_id": "acme-1"})
            assert "forbidden: " in tool_error(denied)
        with Memory.open(str(tmp / "mcp.db"), embedder="fake", create=False) as mem:
            unit = mem.get(globex_unit)
            assert unit.invalidated_at is None and unit.relevance_score == 1.0
            assert len(mem.store.export_user("globex-1")["turns"]) == 1

    anyio.run(main)


def test_the_address_is_really_not_loopback() -> None:
    # the doors' clients connect from IP: the kernel uses it as the source address
    with socket.socket() as server, socket.socket() as client:
        server.bind((str(IP), 0))
        server.listen(1)
        client.connect(server.getsockname())
        conn, peer = server.accept()
        conn.close()
    assert peer[0] == IP and not peer[0].startswith("127.")
