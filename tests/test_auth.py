"""The auth layer itself (jiyi.auth): bearer parsing, the tokens file, grants, the bind rule and
the middleware on a bare ASGI app. The doors (serve, inspector, proxy, MCP) are tested over real
sockets in test_edge_doors.py."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from jiyi.auth import (
    GRANT_KEY,
    LOCAL,
    Auth,
    ForbiddenError,
    Grant,
    RequireToken,
    authorize,
    check_bind,
    grant_of,
    is_loopback,
    parse_bearer,
)
from jiyi.errors import ConfigError

ACME = "acme-token-0123456789"
GLOBEX = "globex-token-0123456789"
PROM = "prom-token-0123456789abc"

TOML = f"""
[[tokens]]
name = "acme"
token = "{ACME}"
users = ["acme-*"]
operations = ["read", "write"]

[[tokens]]
name = "globex"
token = "{GLOBEX}"
users = ["globex-1", "globex-2"]
operations = ["read"]

[[tokens]]
name = "prometheus"
token_sha256 = "{hashlib.sha256(PROM.encode()).hexdigest()}"
users = ["*"]
operations = ["metrics"]
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return path


@pytest.mark.parametrize("header", [f"Bearer {ACME}", f"bearer {ACME}", f"BEARER  {ACME} ",
                                    f"BeArEr {ACME}".encode()])
def test_bearer_scheme_is_case_insensitive(header: str | bytes) -> None:
    assert parse_bearer(header) == ACME


@pytest.mark.parametrize("header", [None, "", ACME, f"Basic {ACME}", "Bearer", "Bearer  ",
                                    f"Bearer {ACME} extra", f"Token {ACME}"])
def test_malformed_authorization_is_no_token(header: str | None) -> None:
    assert parse_bearer(header) is None


@pytest.mark.parametrize("suffix", ["toml", "json"])
def test_tokens_file_toml_and_json_give_the_same_grants(tmp_path: Path, suffix: str) -> None:
    if suffix == "toml":
        path = write(tmp_path, "tokens.toml", TOML)
    else:
        path = write(tmp_path, "tokens.json", json.dumps({"tokens": [
            {"name": "acme", "token": ACME, "users": ["acme-*"], "operations": ["read", "write"]},
            {"name": "globex", "token": GLOBEX, "users": ["globex-1", "globex-2"],
             "operations": ["read"]},
            {"name": "prometheus", "token_sha256": hashlib.sha256(PROM.encode()).hexdigest(),
             "users": ["*"], "operations": ["metrics"]},
        ]}))
    auth = Auth.build(tokens_file=path)
    assert auth.required
    acme = auth.authenticate(f"Bearer {ACME}".encode())
    assert acme is not None and acme.name == "acme"
    assert acme.covers("acme-1") and acme.covers("acme-") and acme.covers("acme-北京")
    assert not acme.covers("acme") and not acme.covers("globex-1") and not acme.covers("xacme-1")
    assert acme.allows("read") and acme.allows("write") and not acme.allows("metrics")
    globex = auth.authenticate(f"bearer {GLOBEX}".encode())
    assert globex is not None and globex.covers("globex-2") and not globex.covers("globex-3")
    assert not globex.allows("write")
    prom = auth.authenticate(f"Bearer {PROM}".encode())  # stored only as its sha256
    assert prom is not None and prom.allows("metrics") and not prom.allows("read")
    assert auth.authenticate(b"Bearer " + ACME[:-1].encode()) is None
    assert auth.authenticate(b"Bearer " + (ACME + "x").encode()) is None
    assert auth.authenticate(None) is None
    assert "3 scoped" in auth.describe() and ACME not in auth.describe()


def test_jiyi_token_is_the_admin_shortcut(tmp_path: Path) -> None:
    auth = Auth.from_env({"JIYI_TOKEN": " admin-secret ",
                          "JIYI_TOKENS_FILE": str(write(tmp_path, "t.toml", TOML))})
    admin = auth.authenticate(b"Bearer admin-secret")
    assert admin is not None and admin.all_users and admin.covers("anyone")
    assert all(admin.allows(op) for op in ("read", "write", "metrics", "admin"))
    assert "JIYI_TOKEN + 3 scoped" in auth.describe()
    assert not Auth.from_env({}).required
    with pytest.raises(ConfigError, match="blank"):
        Auth.from_env({"JIYI_TOKEN": "  "})


@pytest.mark.parametrize(("text", "needle"), [
    ("not = [valid", "not valid TOML"),
    ("{\"tokens\": [", "not valid JSON"),
    ("[other]\nx = 1", 'only a "tokens" list'),
    ("tokens = []", "empty"),
    (f'[[tokens]]\ntoken = "{ACME}"\nusers = ["a"]\noperations = ["delete"]', "unknown operation"),
    (f'[[tokens]]\ntoken = "{ACME}"\nusers = ["a-*"]\noperations = ["admin"]', 'users must be ["*"]'),
    (f'[[tokens]]\ntoken = "{ACME}"\nusers = []\noperations = ["read"]', "users must be"),
    (f'[[tokens]]\ntoken = "{ACME}"\nusers = ["a*b"]\noperations = ["read"]', "may only end"),
    (f'[[tokens]]\ntoken = "{ACME}"\nusers = ["a"]\noperations = ["read"]\nrole = "x"',
     "unknown key"),
    ('[[tokens]]\ntoken = "short"\nusers = ["a"]\noperations = ["read"]', "at least 16"),
    (f'[[tokens]]\ntoken = "{ACME} x"\nusers = ["a"]\noperations = ["read"]', "spaces"),
    ('[[tokens]]\nusers = ["a"]\noperations = ["read"]', "exactly one of token"),
    ('[[tokens]]\ntoken_sha256 = "abc"\nusers = ["a"]\noperations = ["read"]', "64 hex"),
    (f'[[tokens]]\ntoken = "{ACME}"\nusers = ["a"]\noperations = ["read"]\n'
     f'[[tokens]]\ntoken = "{ACME}"\nusers = ["b"]\noperations = ["read"]', "same token"),
])
def test_bad_tokens_files_are_one_line_errors_without_the_token(
        tmp_path: Path, text: str, needle: str) -> None:
    path = write(tmp_path, "tokens.toml", text)
    with pytest.raises(ConfigError, match=re.escape(needle)) as info:
        Auth.build(tokens_file=path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    assert ACME not in message and "short" not in message.replace("shortcut", "")


def test_a_missing_tokens_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read it"):
        Auth.build(tokens_file=tmp_path / "nope.toml")


def test_the_admin_token_may_not_repeat_a_scoped_token(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="same token"):
        Auth.build(ACME, write(tmp_path, "t.toml", TOML))


def test_authorize_checks_operation_then_user(caplog: pytest.LogCaptureFixture) -> None:
    grant = Grant("acme", ("acme-*", "vip"), frozenset({"read"}))
    authorize(grant, "read", "acme-7")
    authorize(grant, "read", "vip")
    authorize(grant, "read")
    with caplog.at_level(logging.WARNING, "jiyi.auth"):
        with pytest.raises(ForbiddenError, match="'write'"):
            authorize(grant, "write", "acme-7")
        with pytest.raises(ForbiddenError, match="does not cover user 'vip2'"):
            authorize(grant, "read", "vip2")
    assert "acme" in caplog.text  # logs name the token, never its value
    authorize(LOCAL, "admin", "anyone")
    with pytest.raises(ForbiddenError):
        grant_of({})  # fails closed without the middleware


def test_bind_rule() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("127.8.9.10") and is_loopback("::1")
    assert is_loopback("[::1]") and is_loopback("localhost") and is_loopback("::ffff:127.0.0.1")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("10.1.2.3")
    assert not is_loopback("example.com")
    check_bind("127.0.0.1", Auth())
    check_bind("0.0.0.0", Auth.build("t"))
    with pytest.raises(ConfigError, match=r"refusing to listen on 0\.0\.0\.0 without a token"):
        check_bind("0.0.0.0", Auth())


async def _echo_grant(scope: dict[str, Any], receive: Any, send: Any) -> None:
    grant = scope.get(GRANT_KEY)
    body = json.dumps({"grant": grant.name if grant else None,
                       "auth": dict(scope["headers"]).get(b"authorization", b"").decode()})
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body.encode()})


def _client(app: Any, client_ip: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(client_ip, 5000))
    return httpx.AsyncClient(transport=transport, base_url="http://jiyi")


@pytest.mark.anyio
async def test_middleware_without_tokens_answers_loopback_clients_only() -> None:
    app = RequireToken(_echo_grant, Auth())
    async with _client(app, "127.0.0.1") as local:
        assert (await local.get("/x")).json()["grant"] == "local"
    async with _client(app, "192.0.2.77") as remote:
        resp = await remote.get("/x")
        assert resp.status_code == 403
        assert resp.json()["error"]["code"] == "forbidden"
        assert (await remote.get("/healthz")).status_code == 200  # liveness stays open


@pytest.mark.anyio
async def test_middleware_with_tokens(tmp_path: Path) -> None:
    auth = Auth.build("admin-secret", write(tmp_path, "t.toml", TOML))
    app = RequireToken(_echo_grant, auth, strip_authorization=True)
    async with _client(app, "192.0.2.77") as c:
        for headers in ({}, {"authorization": "Bearer wrong-token-0123456789"},
                        {"authorization": ACME}, {"authorization": f"Basic {ACME}"}):
            resp = await c.get("/v1/anything", headers=headers)
            assert resp.status_code == 401
            assert resp.headers["www-authenticate"].startswith("Bearer")
            assert set(resp.json()["error"]) == {"code", "message"}
            assert ACME not in resp.text
        ok = (await c.get("/v1/anything", headers={"authorization": f"bEaReR {ACME}"})).json()
        assert ok == {"grant": "acme", "auth": ""}  # stripped: never relayed further
        assert (await c.get("/healthz")).status_code == 200


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_readme_example_is_a_valid_tokens_file(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    example = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    digest = hashlib.sha256(PROM.encode()).hexdigest()
    auth = Auth.build(tokens_file=write(tmp_path, "t.toml",
                                        example.replace("<64 hex digits>", digest)))
    app = auth.authenticate(b"Bearer a-long-random-secret")
    assert app is not None and app.covers("acme-1") and app.covers("vip-7")
    prom = auth.authenticate(f"Bearer {PROM}".encode())
    assert prom is not None and prom.allows("metrics") and not prom.allows("read")
    example_json = readme.split("```json\n", 1)[1].split("```", 1)[0]
    assert "a-long-random-secret" in example_json
    assert Auth.build(tokens_file=write(tmp_path, "t.json", example_json)).required
