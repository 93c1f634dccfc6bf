"""Forwarding: send a request upstream and relay the answer back, streamed or whole.

The bytes the client gets are the upstream's bytes, record by record, unchanged. Each record is
read on the way through (:mod:`jiyi.proxy.relay`) so that the proxy knows the assistant's reply
and whether it completed. The turn is ingested only when the upstream's terminal record has
arrived, just before that record is handed on: a client that goes away mid-stream cancels the
relay before that point, so nothing of the turn is stored.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.lowlevel
import httpx
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from ..auth import ForbiddenError
from ..errors import BudgetError, JiyiError, ValidationError
from ..memory import Memory
from .bridge import Rewrite, ingest_turns, memory_headers
from .relay import ReplyState, StreamReader, UpstreamGarbage, check_json_body
from .upstream import (
    ProxySettings,
    describe_http_error,
    error_response,
    forward_headers,
    response_headers,
)

log = logging.getLogger("jiyi.proxy")

#: Largest error body relayed from the upstream, and largest whole JSON answer read.
MAX_ERROR_BODY = 64 * 1024
MAX_BODY = 64 * 1024 * 1024


class ClosingStreamingResponse(StreamingResponse):
    """A streamed response that always closes its body iterator, so that a client hanging up
    mid-stream releases the upstream connection at once (Starlette leaves it to the GC)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            aclose = getattr(self.body_iterator, "aclose", None)
            if aclose is not None:
                with anyio.CancelScope(shield=True):
                    await aclose()


@dataclass
class ProxyContext:
    """What every route of one proxy app shares."""

    settings: ProxySettings
    client: httpx.AsyncClient
    memory: Memory | None
    num_ctx_cache: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ChatFormat:
    """How one endpoint's answers look: a stream reader, a whole-body reader, an error record."""

    stream_reader: Callable[[], StreamReader]
    body_reader: Callable[[bytes], ReplyState]
    error_record: Callable[[str, str], bytes]
    stream_media_type: str


def jiyi_error_response(exc: JiyiError, headers: dict[str, str] | None = None) -> Response:
    status = (403 if isinstance(exc, ForbiddenError)
              else 400 if isinstance(exc, ValidationError | BudgetError) else 503)
    return error_response(status, exc.code, str(exc), headers)


async def _send(ctx: ProxyContext, request: Request, path: str,
                content: bytes) -> httpx.Response | Response:
    """The upstream's streamed response, or a 502 answer when it cannot be had."""
    url = ctx.settings.url_for(path)
    upstream_req = ctx.client.build_request(
        request.method, url, content=content,
        headers=forward_headers(request.headers,
                                keep_authorization=ctx.settings.upstream_key is None),
        params=str(request.query_params) or None,
    )
    try:
        return await ctx.client.send(upstream_req, stream=True)
    except httpx.HTTPError as exc:
        code, message = describe_http_error(exc, url)
        log.warning("upstream %s: %s", code, message)
        return error_response(502, code, message)


async def _read_all(resp: httpx.Response, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in resp.aiter_raw():
            size += len(chunk)
            if size > limit:
                raise UpstreamGarbage(f"the upstream answer is larger than {limit} bytes")
            chunks.append(chunk)
    finally:
        await resp.aclose()
    return b"".join(chunks)


async def _relay_error(resp: httpx.Response, extra: dict[str, str]) -> Response:
    """An upstream 4xx/5xx is the upstream's own answer: relayed with its status."""
    try:
        body = await _read_all(resp, MAX_ERROR_BODY)
    except (httpx.HTTPError, UpstreamGarbage) as exc:
        return error_response(502, "upstream_error",
                              f"upstream failed with HTTP {resp.status_code}: {exc}", extra)
    return Response(body, status_code=resp.status_code,
                    headers={**response_headers(resp.headers), **extra})


async def passthrough_json(ctx: ProxyContext, request: Request, path: str, what: str) -> Response:
    """A small JSON endpoint (``/api/tags``, ``/api/show``, ``/v1/models``): relayed whole,
    checked to be a JSON object when successful."""
    extra = memory_headers(None, "not a chat request")
    resp = await _send(ctx, request, path, await request.body())
    if isinstance(resp, Response):
        return resp
    if resp.status_code >= 400:
        return await _relay_error(resp, extra)
    try:
        body = await _read_all(resp, MAX_BODY)
        check_json_body(body, what)
    except httpx.HTTPError as exc:
        return error_response(502, *describe_http_error(exc, ctx.settings.url_for(path)))
    except UpstreamGarbage as exc:
        return error_response(502, "upstream_garbage", str(exc), extra)
    return Response(body, status_code=resp.status_code,
                    headers={**response_headers(resp.headers), **extra})


async def passthrough_raw(ctx: ProxyContext, request: Request, path: str) -> Response:
    """Any other endpoint (``/api/version``, ``/api/embed``, ...): relayed byte for byte."""
    resp = await _send(ctx, request, path, await request.body())
    if isinstance(resp, Response):
        return resp

    async def body() -> AsyncIterator[bytes]:
        try:
            async for chunk in resp.aiter_raw():
                yield chunk
        except httpx.HTTPError as exc:
            log.warning("upstream %s broke off: %s", path, exc)
        finally:
            await resp.aclose()

    return ClosingStreamingResponse(body(), status_code=resp.status_code,
                             headers={**response_headers(resp.headers),
                                      **memory_headers(None, "not a chat request")})


async def _ingest(ctx: ProxyContext, rewrite: Rewrite, state: ReplyState) -> None:
    memory = ctx.memory
    if memory is None:
        return
    try:
        n = await anyio.to_thread.run_sync(
            ingest_turns, memory, rewrite.scope, rewrite.user_text, state.reply)
        log.info("session %s: ingested a turn pair (%d units)", rewrite.scope.session_id, n)
    except JiyiError as exc:  # the client has its answer; memory reports the failure
        log.error("session %s: could not ingest the turn: %s", rewrite.scope.session_id, exc)


async def relay_chat(
    ctx: ProxyContext,
    request: Request,
    path: str,
    content: bytes,
    *,
    stream: bool,
    fmt: ChatFormat,
    rewrite: Rewrite | None,
    reason: str = "",
) -> Response:
    """Forward a chat (or generate) request and relay the answer; ingest it when complete."""
    extra = memory_headers(rewrite, reason)
    resp = await _send(ctx, request, path, content)
    if isinstance(resp, Response):
        resp.headers.update(extra)
        return resp
    if resp.status_code >= 400:
        return await _relay_error(resp, extra)
    headers = {**response_headers(resp.headers), **extra}
    url = ctx.settings.url_for(path)
    if not stream:
        try:
            body = await _read_all(resp, MAX_BODY)
            state = fmt.body_reader(body)
        except httpx.HTTPError as exc:
            return error_response(502, *describe_http_error(exc, url), extra)
        except UpstreamGarbage as exc:
            return error_response(502, "upstream_garbage", str(exc), extra)
        if rewrite is not None and state.done:
            await _ingest(ctx, rewrite, state)
        return Response(body, status_code=resp.status_code, headers=headers)

    reader = fmt.stream_reader()
    chunks = resp.aiter_raw()
    first: list[bytes] = []
    try:  # the first record decides between a relayed stream and a 502
        async for chunk in chunks:
            first.extend(reader.feed(chunk))
            if first:
                break
        else:
            first.extend(reader.finish())
            if not first:
                raise UpstreamGarbage("the upstream closed the stream without a record")
    except httpx.HTTPError as exc:
        await resp.aclose()
        return error_response(502, *describe_http_error(exc, url), extra)
    except UpstreamGarbage as exc:
        await resp.aclose()
        return error_response(502, "upstream_garbage", str(exc), extra)

    state = reader.state
    ingested = False

    async def ingest_when_complete() -> None:
        # Called before each record is handed on. Once the terminal record (``done`` /
        # ``[DONE]``) has arrived the reply is complete: it is ingested *before* that record
        # goes out, so a client that sends its next turn as soon as it sees the end finds this
        # one in memory. A client already gone cancels at the checkpoint; after it the ingest
        # runs shielded, so both turns are stored or neither.
        nonlocal ingested
        if rewrite is not None and not ingested and state.done and state.error is None:
            await anyio.lowlevel.checkpoint()
            ingested = True
            with anyio.CancelScope(shield=True):
                await _ingest(ctx, rewrite, state)

    async def records() -> AsyncIterator[bytes]:
        try:
            for record in first:
                await ingest_when_complete()
                yield record
            async for chunk in chunks:
                for record in reader.feed(chunk):
                    await ingest_when_complete()
                    yield record
            for record in reader.finish():
                await ingest_when_complete()
                yield record
            await ingest_when_complete()  # a stream that ended after a finish_reason
        except (httpx.HTTPError, UpstreamGarbage) as exc:
            code = "upstream_garbage" if isinstance(exc, UpstreamGarbage) else "upstream_error"
            log.warning("upstream stream broken (%s): %s", code, exc)
            yield fmt.error_record(code, f"upstream stream broken: {exc}")
        finally:
            await resp.aclose()
        if rewrite is not None and not ingested:
            log.warning("session %s: the answer did not complete; nothing ingested",
                        rewrite.scope.session_id)

    return ClosingStreamingResponse(records(), status_code=resp.status_code, headers=headers,
                             media_type=fmt.stream_media_type)


def dumps(obj: Any) -> bytes:
    """A request body as the proxy sends it: compact UTF-8 JSON, never ASCII-escaped."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


async def read_json_object(request: Request) -> tuple[bytes, dict[str, Any] | Response]:
    """The raw body and its JSON object, or a 400 answer."""
    raw = await request.body()
    try:
        obj = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return raw, error_response(400, "invalid_input", "the request body is not JSON")
    if not isinstance(obj, dict):
        return raw, error_response(400, "invalid_input", "the request body must be a JSON object")
    return raw, obj
