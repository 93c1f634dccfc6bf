"""HTTP and JSON plumbing shared by the LLM clients: bounded retries on connection errors, clear
errors, tool calls."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import httpx

from ..errors import LLMError
from .base import ChatReply, ToolCall

#: Failures where the request never reached the model: safe to send again.
RETRYABLE = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
RETRY_STATUS = frozenset({502, 503, 504})


def default_timeout(read: float = 300.0) -> httpx.Timeout:
    return httpx.Timeout(connect=5.0, read=read, write=30.0, pool=5.0)


def error_message(response: httpx.Response) -> str:
    """The server's own error text (Ollama and OpenAI both answer ``{"error": ...}``)."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:300].strip() or response.reason_phrase
    if isinstance(body, dict):
        err = body.get("error", body.get("detail"))
        if isinstance(err, dict):
            return str(err.get("message") or err)[:500]
        if err is not None:
            return str(err)[:500]
    return json.dumps(body, ensure_ascii=False)[:300]


def raise_for_status(response: httpx.Response, what: str) -> None:
    if response.status_code >= 400:
        kind = "rejected the request" if response.status_code < 500 else "failed"
        raise LLMError(
            f"{what}: server {kind} with HTTP {response.status_code}: {error_message(response)}"
        )


def parse_json(text: str | bytes, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        snippet = text[:200] if isinstance(text, str) else text[:200].decode(errors="replace")
        raise LLMError(f"{what}: server answered something that is not JSON: {snippet!r}") from exc


class Retrying:
    """Send a request with at most ``retries`` extra attempts on connection failures or 502-504."""

    def __init__(
        self, retries: int = 2, backoff: float = 0.25, sleep: Callable[[float], None] = time.sleep
    ):
        self.retries = max(0, retries)
        self.backoff = backoff
        self.sleep = sleep

    def _attempts(self) -> Iterator[int]:
        yield from range(self.retries + 1)

    @contextmanager
    def stream(
        self, client: httpx.Client, method: str, url: str, what: str, **kwargs: Any
    ) -> Iterator[httpx.Response]:
        """An open streamed response with a 2xx status (the body is not yet read)."""
        last: Exception | None = None
        for attempt in self._attempts():
            if attempt:
                self.sleep(self.backoff * 2 ** (attempt - 1))
            yielded = False
            try:
                with client.stream(method, url, **kwargs) as response:
                    if response.status_code in RETRY_STATUS and attempt < self.retries:
                        response.read()
                        last = LLMError(f"{what}: HTTP {response.status_code}")
                        continue
                    if response.status_code >= 400:
                        response.read()
                        raise_for_status(response, what)
                    yielded = True
                    yield response
                    return
            except RETRYABLE as exc:
                if yielded:
                    raise LLMError(f"{what}: connection lost mid-answer: {exc}") from exc
                last = exc
                continue
            except httpx.TimeoutException as exc:
                raise LLMError(f"{what}: timed out ({type(exc).__name__}) at {url}") from exc
            except httpx.HTTPError as exc:
                raise LLMError(f"{what}: {type(exc).__name__}: {exc}") from exc
        raise LLMError(
            f"{what}: cannot reach {url} after {self.retries + 1} attempts: {last}"
        ) from last

    def json_stream(
        self,
        client: httpx.Client,
        path: str,
        what: str,
        body: Mapping[str, Any],
        payload_of: Callable[[str], str | None],
        end_marker: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """The JSON objects of a streamed POST answer. ``payload_of`` picks a line's JSON text
        (None: not a data line); a payload equal to ``end_marker`` ends the stream. An object
        with an ``error`` raises it."""
        with self.stream(client, "POST", path, what, json=body) as response:
            try:
                for line in response.iter_lines():
                    payload = payload_of(line)
                    if payload is None:
                        continue
                    if payload == end_marker:
                        return
                    obj = parse_json(payload, what)
                    if not isinstance(obj, dict):
                        raise LLMError(f"{what}: expected an object, got {payload[:200]!r}")
                    if obj.get("error"):
                        raise LLMError(f"{what}: {obj['error']}")
                    yield obj
            except httpx.HTTPError as exc:
                raise LLMError(f"{what}: connection lost mid-answer: {exc}") from exc

    def request(self, client: httpx.Client, method: str, url: str, what: str, **kwargs: Any) -> Any:
        """The parsed JSON body of a successful request."""
        with self.stream(client, method, url, what, **kwargs) as response:
            try:
                body = response.read()
            except httpx.HTTPError as exc:
                raise LLMError(f"{what}: connection lost while reading: {exc}") from exc
        return parse_json(body, what)


def parse_tool_calls(raw_calls: Any, backend: str) -> list[ToolCall]:
    """The function calls of a reply, as Ollama and OpenAI both send them
    (``[{"id"?, "function": {"name", "arguments": object or JSON text}}]``). A call whose
    arguments are not a JSON object is kept with ``arguments_error`` set, not raised."""
    calls: list[ToolCall] = []
    for raw in raw_calls or []:
        fn = raw.get("function") if isinstance(raw, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise LLMError(f"{backend}: malformed tool call {raw!r:.200}")
        args: Any = fn.get("arguments") or {}
        try:
            if isinstance(args, str):
                args = parse_json(args, f"{backend} tool call {fn['name']} arguments")
            if not isinstance(args, dict):
                raise LLMError(f"{backend}: tool call arguments are not an object: {args!r:.200}")
        except LLMError as exc:
            calls.append(ToolCall(name=fn["name"], id=raw.get("id"), arguments_error=str(exc)))
            continue
        calls.append(ToolCall(name=fn["name"], arguments=args, id=raw.get("id")))
    return calls


def message_reply(message: Mapping[str, Any], what: str, backend: str, **fields: Any) -> ChatReply:
    """A reply from the ``{"content", "tool_calls"}`` message both APIs answer with; ``fields``
    are the backend's counts, timings, model and finish reason."""
    content = message.get("content") or ""
    if not isinstance(content, str):
        raise LLMError(f"{what}: content is not text: {content!r:.200}")
    tool_calls = parse_tool_calls(message.get("tool_calls"), backend)
    return ChatReply(content=content, tool_calls=tool_calls, **fields)
