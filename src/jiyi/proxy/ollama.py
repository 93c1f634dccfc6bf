"""The Ollama side: ``/api/chat`` with memory, ``/api/generate``, ``/api/tags``, ``/api/show``
passed through. Follows Ollama's documented API (docs/api.md): chat streams NDJSON by default
(``"stream": false`` for one JSON object), the window is ``options.num_ctx``, else the model's
``num_ctx`` parameter from ``/api/show``."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
import httpx
from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from ..auth import grant_of
from ..errors import JiyiError
from .bridge import chat_scope, check_access, last_user_text, rewrite_messages
from .forward import (
    ChatFormat,
    ProxyContext,
    dumps,
    jiyi_error_response,
    passthrough_json,
    passthrough_raw,
    read_json_object,
    relay_chat,
)
from .relay import NdjsonReader, read_ollama_body
from .upstream import error_response

_NUM_CTX_RE = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def _ollama_error(code: str, message: str) -> bytes:
    return dumps({"error": f"{code}: {message}"}) + b"\n"


OLLAMA_FORMAT = ChatFormat(
    stream_reader=NdjsonReader,
    body_reader=read_ollama_body,
    error_record=_ollama_error,
    stream_media_type="application/x-ndjson",
)


def num_ctx_from_show(show: Any) -> int | None:
    """The window a model runs with, from an ``/api/show`` answer: its ``num_ctx`` parameter
    (Modelfile ``PARAMETER num_ctx``). ``None`` when not set: Ollama then runs with its own
    default, far below the trained ``context_length``, so that figure is not used."""
    if not isinstance(show, dict):
        return None
    params = show.get("parameters")
    if isinstance(params, str):
        m = _NUM_CTX_RE.search(params)
        if m:
            return int(m.group(1))
    return None


async def model_num_ctx(ctx: ProxyContext, model: str, options: Any) -> int:
    """The model's window for this request: ``options.num_ctx``, else ``/api/show``'s
    ``num_ctx`` parameter (cached per model), else the proxy's default."""
    if isinstance(options, dict):
        value = options.get("num_ctx")
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    if model in ctx.num_ctx_cache:
        return ctx.num_ctx_cache[model]
    found: int | None = None
    try:
        resp = await ctx.client.post(ctx.settings.url_for("/api/show"), json={"model": model})
        if resp.status_code == 200:
            found = num_ctx_from_show(resp.json())
    except (httpx.HTTPError, ValueError):
        found = None  # the chat call itself will report an unreachable upstream
    value = found or ctx.settings.default_num_ctx
    ctx.num_ctx_cache[model] = value
    return value


def ollama_router(ctx: ProxyContext) -> APIRouter:
    router = APIRouter()

    @router.post("/api/chat")
    async def chat(request: Request) -> Response:
        raw, body = await read_json_object(request)
        if isinstance(body, Response):
            return body
        stream = body.get("stream", True) is not False
        try:
            scope = chat_scope(request.headers, body)
            if scope is not None:
                check_access(grant_of(request.scope), scope)
        except JiyiError as exc:
            return jiyi_error_response(exc)
        user_text = last_user_text(body.get("messages"))
        if scope is None or ctx.memory is None or user_text is None:
            reason = ("no X-Jiyi-Session header" if scope is None
                      else "memory is off" if ctx.memory is None
                      else "the last message is not a user text turn")
            return await relay_chat(ctx, request, "/api/chat", raw, stream=stream,
                                    fmt=OLLAMA_FORMAT, rewrite=None, reason=reason)
        model = body.get("model")
        if not isinstance(model, str) or not model:
            return error_response(400, "invalid_input", '"model" is required')
        num_ctx = await model_num_ctx(ctx, model, body.get("options"))
        try:
            rewrite = await anyio.to_thread.run_sync(
                rewrite_messages, ctx.memory, scope, body["messages"], user_text, num_ctx)
        except JiyiError as exc:
            return jiyi_error_response(exc)
        content = dumps({**body, "messages": rewrite.messages})
        return await relay_chat(ctx, request, "/api/chat", content, stream=stream,
                                fmt=OLLAMA_FORMAT, rewrite=rewrite)

    @router.post("/api/generate")
    async def generate(request: Request) -> Response:
        raw = await request.body()
        try:
            stream = json.loads(raw).get("stream", True) is not False
        except (ValueError, AttributeError, UnicodeDecodeError):
            return error_response(400, "invalid_input", "the request body must be a JSON object")
        return await relay_chat(ctx, request, "/api/generate", raw, stream=stream,
                                fmt=OLLAMA_FORMAT, rewrite=None,
                                reason="raw completion endpoint (use /api/chat for memory)")

    @router.get("/api/tags")
    async def tags(request: Request) -> Response:
        return await passthrough_json(ctx, request, "/api/tags", "the model list")

    @router.post("/api/show")
    async def show(request: Request) -> Response:
        return await passthrough_json(ctx, request, "/api/show", "the model description")

    @router.api_route("/api/{rest:path}", methods=["GET", "POST", "DELETE", "HEAD"])
    async def other(request: Request, rest: str) -> Response:
        return await passthrough_raw(ctx, request, "/api/" + rest)

    return router
