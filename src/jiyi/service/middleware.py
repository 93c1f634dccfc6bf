"""Plain ASGI middleware: request-size limit, per-route HTTP metrics (the token check lives in
:mod:`jiyi.auth`, shared with the proxy and MCP)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .errors import error_bytes

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

async def send_error(send: Send, status: int, code: str, message: str,
                     headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = error_bytes(code, message)
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        *(headers or []),
    ]})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value)
    return None


class BodyLimit:
    """Reads the request body first (at most ``max_body`` bytes) and answers 413 beyond it,
    whether the client sent a Content-Length or a chunked body."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                await send_error(send, 400, "bad_request", "Content-Length is not a number")
                return
            if int(declared) > self.max_body:
                await self._too_large(send)
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await self._too_large(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        await send_error(send, 413, "payload_too_large",
                         f"the request body is larger than {self.max_body} bytes")


class HttpMetrics:
    """Counts and times each request by method, route template and status (never the raw
    path: it could carry ids)."""

    def __init__(self, app: ASGIApp, observe: Callable[[str, str, int, float], None]) -> None:
        self.app = app
        self._observe = observe

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def tracking(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) if route is not None else None
            self._observe(str(scope.get("method", "?")), template or "unmatched", status,
                          time.perf_counter() - start)
