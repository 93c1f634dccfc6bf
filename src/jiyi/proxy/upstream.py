"""The upstream model server: its kind, its URLs, the HTTP client, and error answers."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx
from starlette.responses import Response

from ..context.prompt import MIN_NUM_CTX
from ..errors import ConfigError

Flavor = Literal["ollama", "openai"]

#: Request headers never forwarded upstream (hop-by-hop, recomputed, or jiyi's own).
_DROP_REQUEST = frozenset({
    "host", "content-length", "connection", "keep-alive", "transfer-encoding", "te", "trailer",
    "upgrade", "proxy-authorization", "proxy-connection", "accept-encoding",
    "x-jiyi-session", "x-jiyi-user", "x-jiyi-turn-id",
})
#: Response headers never copied back to the client (the proxy's server sets its own).
_DROP_RESPONSE = frozenset({
    "content-length", "connection", "keep-alive", "transfer-encoding", "content-encoding",
    "date", "server", "trailer", "upgrade",
})


@dataclass(frozen=True)
class ProxySettings:
    """How the proxy talks to its upstream. Frozen; build a new one to change it."""

    upstream: str
    flavor: Flavor
    default_num_ctx: int = 4096
    connect_timeout: float = 5.0
    read_timeout: float = 300.0
    write_timeout: float = 30.0
    #: Sent upstream as ``Authorization: Bearer`` instead of the client's header (a proxy that
    #: requires jiyi tokens never relays them: the client's Authorization is jiyi's).
    upstream_key: str | None = field(default=None, repr=False)

    @classmethod
    def for_upstream(cls, url: str, **kwargs: Any) -> ProxySettings:
        """Settings for ``url``: an OpenAI-compatible base ends in ``/v1``, anything else is an
        Ollama base (``http://127.0.0.1:11434``)."""
        base = url.strip().rstrip("/")
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(f"--upstream must be an http(s) URL, got {url!r}")
        if parts.query or parts.fragment:
            raise ConfigError(f"--upstream must not carry a query or fragment: {url!r}")
        flavor: Flavor = "openai" if parts.path.endswith("/v1") else "ollama"
        settings = cls(upstream=base, flavor=flavor, **kwargs)
        if settings.default_num_ctx < MIN_NUM_CTX:
            raise ConfigError(f"the default num_ctx must be at least {MIN_NUM_CTX} tokens")
        if min(settings.connect_timeout, settings.read_timeout, settings.write_timeout) <= 0:
            raise ConfigError("timeouts must be positive")
        return settings

    def url_for(self, path: str) -> str:
        """The upstream URL of a proxy path (``/api/...`` or ``/v1/...``)."""
        if self.flavor == "openai" and path.startswith("/v1/"):
            return self.upstream + path[3:]
        return self.upstream + path

    def timeout(self) -> httpx.Timeout:
        return httpx.Timeout(connect=self.connect_timeout, read=self.read_timeout,
                             write=self.write_timeout, pool=self.connect_timeout)


def new_client(settings: ProxySettings) -> httpx.AsyncClient:
    """The one upstream client of a proxy app (connection pool, timeouts, no env proxies,
    the upstream key when there is one)."""
    headers = ({"authorization": f"Bearer {settings.upstream_key}"}
               if settings.upstream_key else None)
    return httpx.AsyncClient(timeout=settings.timeout(), trust_env=False, headers=headers,
                             limits=httpx.Limits(max_connections=64, max_keepalive_connections=16))


def forward_headers(headers: Any, *, keep_authorization: bool = True) -> dict[str, str]:
    """The client's request headers to send upstream (``Authorization`` only when
    ``keep_authorization``: not when the proxy has its own upstream key)."""
    drop = _DROP_REQUEST if keep_authorization else _DROP_REQUEST | {"authorization"}
    out = {k: v for k, v in headers.items() if k.lower() not in drop}
    out["accept-encoding"] = "identity"  # relay the upstream's bytes exactly as sent
    return out


def response_headers(headers: httpx.Headers) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k.lower() not in _DROP_RESPONSE}


def error_response(status: int, code: str, message: str,
                   headers: dict[str, str] | None = None) -> Response:
    """A JSON error in jiyi's shape ``{"error": {"code", "message"}}`` (OpenAI clients read
    ``error.message`` and ``error.code`` from it too)."""
    body = {"error": {"code": code, "message": message, "type": "jiyi_proxy_error"}}
    return Response(json.dumps(body, ensure_ascii=False), status_code=status,
                    media_type="application/json", headers=headers)


def describe_http_error(exc: httpx.HTTPError, url: str) -> tuple[str, str]:
    """(code, message) for a failed upstream exchange."""
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return "upstream_unreachable", f"connecting to {url} timed out"
    if isinstance(exc, httpx.TimeoutException):
        return "upstream_timeout", f"{url} did not answer in time ({type(exc).__name__})"
    if isinstance(exc, httpx.ConnectError):
        return "upstream_unreachable", f"cannot connect to {url}: {exc}"
    return "upstream_error", f"{url}: {type(exc).__name__}: {exc}"
