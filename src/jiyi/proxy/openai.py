"""The OpenAI side: ``/v1/chat/completions`` with memory (SSE when ``"stream": true``, one
``chat.completion`` otherwise) and ``/v1/models`` passed through. The window is the proxy's
configured default (OpenAI's API does not tell it)."""

from __future__ import annotations

import anyio
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
from .relay import SseReader, read_openai_body


def _sse_error(code: str, message: str) -> bytes:
    payload = {"error": {"code": code, "message": message, "type": "jiyi_proxy_error"}}
    return b"data: " + dumps(payload) + b"\n\n"


OPENAI_FORMAT = ChatFormat(
    stream_reader=SseReader,
    body_reader=read_openai_body,
    error_record=_sse_error,
    stream_media_type="text/event-stream",
)


def openai_router(ctx: ProxyContext) -> APIRouter:
    router = APIRouter()

    @router.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Response:
        raw, body = await read_json_object(request)
        if isinstance(body, Response):
            return body
        stream = body.get("stream") is True
        try:
            scope = chat_scope(request.headers, body)
            if scope is not None:
                check_access(grant_of(request.scope), scope)
        except JiyiError as exc:
            return jiyi_error_response(exc)
        user_text = last_user_text(body.get("messages"))
        if scope is None or ctx.memory is None or user_text is None:
            reason = ("no X-Jiyi-Session header or user field" if scope is None
                      else "memory is off" if ctx.memory is None
                      else "the last message is not a user text turn")
            return await relay_chat(ctx, request, "/v1/chat/completions", raw, stream=stream,
                                    fmt=OPENAI_FORMAT, rewrite=None, reason=reason)
        try:
            rewrite = await anyio.to_thread.run_sync(
                rewrite_messages, ctx.memory, scope, body["messages"], user_text,
                ctx.settings.default_num_ctx)
        except JiyiError as exc:
            return jiyi_error_response(exc)
        content = dumps({**body, "messages": rewrite.messages})
        return await relay_chat(ctx, request, "/v1/chat/completions", content, stream=stream,
                                fmt=OPENAI_FORMAT, rewrite=rewrite)

    @router.get("/v1/models")
    async def models(request: Request) -> Response:
        return await passthrough_json(ctx, request, "/v1/models", "the model list")

    @router.api_route("/v1/{rest:path}", methods=["GET", "POST", "DELETE"])
    async def other(request: Request, rest: str) -> Response:
        return await passthrough_raw(ctx, request, "/v1/" + rest)

    return router
