"""Ollama's HTTP API: ``POST /api/chat`` (``options.num_ctx``, tools, structured ``format``, NDJSON
streaming) and ``POST /api/show`` for the model's context window.

Ollama streams by default, so every non-streaming request says ``"stream": false``. When the
caller gives no ``num_ctx``, the client reads it once from ``/api/show``: the Modelfile's
``num_ctx`` parameter when set, else the model's ``*.context_length`` capped at ``max_num_ctx``,
and always sends it, so the server never silently cuts a prompt at its small default.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import httpx

from ..errors import ConfigError, LLMError
from ._http import Retrying, default_timeout, parse_json
from .base import ChatReply, Format, Message, ToolCall

DEFAULT_BASE_URL = "http://127.0.0.1:11434"
DEFAULT_MAX_NUM_CTX = 32768


def ollama_base_url(value: str | None = None) -> str:
    """The server's base URL: ``value``, else ``$OLLAMA_HOST``, else 127.0.0.1:11434."""
    raw = (value or os.environ.get("OLLAMA_HOST") or DEFAULT_BASE_URL).strip().rstrip("/")
    bare = "://" not in raw
    url = httpx.URL("http://" + raw if bare else raw)
    if url.scheme not in ("http", "https") or not url.host:
        raise ConfigError(f"not an Ollama URL: {value!r}")
    host = "127.0.0.1" if url.host == "0.0.0.0" else url.host
    port = url.port or (11434 if bare else None)
    return f"{url.scheme}://{host}" + (f":{port}" if port else "") + url.path.rstrip("/")


def parse_show(body: Mapping[str, Any], max_num_ctx: int = DEFAULT_MAX_NUM_CTX) -> int | None:
    """The context window to use from an ``/api/show`` answer (see the module docstring)."""
    params = body.get("parameters")
    if isinstance(params, str):
        for line in params.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "num_ctx" and parts[1].isdigit():
                return int(parts[1])
    info = body.get("model_info")
    if isinstance(info, Mapping):
        for key, value in info.items():
            if key.endswith(".context_length") and isinstance(value, int) and value > 0:
                return min(value, max_num_ctx)
    return None


def _ns(body: Mapping[str, Any], key: str) -> float | None:
    value = body.get(key)
    return value / 1e9 if isinstance(value, (int, float)) else None


def _tool_calls(message: Mapping[str, Any]) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for raw in message.get("tool_calls") or []:
        fn = raw.get("function") if isinstance(raw, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise LLMError(f"ollama: malformed tool call {raw!r}")
        args = fn.get("arguments") or {}
        try:
            if isinstance(args, str):
                args = parse_json(args, "ollama tool call arguments")
            if not isinstance(args, dict):
                raise LLMError(f"ollama: tool call arguments are not an object: {args!r:.200}")
        except LLMError as exc:
            calls.append(ToolCall(name=fn["name"], id=raw.get("id"), arguments_error=str(exc)))
            continue
        calls.append(ToolCall(name=fn["name"], arguments=args, id=raw.get("id")))
    return calls


class OllamaClient:
    """A :class:`~jiyi.llm.base.ChatClient` for one Ollama model."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        timeout: httpx.Timeout | float | None = None,
        retries: int = 2,
        keep_alive: str | int | None = None,
        max_num_ctx: int = DEFAULT_MAX_NUM_CTX,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not model or not model.strip():
            raise ConfigError("an Ollama model name is required, e.g. qwen2.5:7b")
        self.model = model
        self.base_url = ollama_base_url(base_url)
        self.name = f"ollama:{model}"
        self.keep_alive = keep_alive
        self.max_num_ctx = max_num_ctx
        self._retry = Retrying(retries)
        self._num_ctx: int | None = None
        self._shown = False
        self._http = httpx.Client(
            base_url=self.base_url,
            timeout=timeout if timeout is not None else default_timeout(),
            transport=transport,
        )

    # ------------------------------------------------------------------ model info
    def show(self) -> dict[str, Any]:
        """The raw ``/api/show`` answer for this model."""
        body = self._retry.request(
            self._http, "POST", "/api/show", "ollama /api/show", json={"model": self.model}
        )
        if not isinstance(body, dict):
            raise LLMError(f"ollama /api/show: expected an object, got {body!r:.200}")
        return body

    def context_length(self) -> int | None:
        if not self._shown:
            self._num_ctx = parse_show(self.show(), self.max_num_ctx)
            self._shown = True
        return self._num_ctx

    # ------------------------------------------------------------------ chat
    def build_request(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None,
        format: Format,
        num_ctx: int | None,
        stream: bool,
        max_tokens: int | None,
        temperature: float | None,
        options: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        """The ``/api/chat`` body (pure apart from reading the context window once)."""
        opts: dict[str, Any] = dict(options or {})
        ctx = num_ctx if num_ctx is not None else self.context_length()
        if ctx is not None:
            opts["num_ctx"] = int(ctx)
        if max_tokens is not None:
            opts["num_predict"] = int(max_tokens)
        if temperature is not None:
            opts["temperature"] = float(temperature)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "stream": stream,
        }
        if opts:
            body["options"] = opts
        if tools:
            body["tools"] = [dict(t) for t in tools]
        if format is not None:
            body["format"] = format if isinstance(format, str) else dict(format)
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        return body

    def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        format: Format = None,
        num_ctx: int | None = None,
        stream: bool = False,
        max_tokens: int | None = None,
        temperature: float | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> ChatReply:
        body = self.build_request(
            messages,
            tools=tools,
            format=format,
            num_ctx=num_ctx,
            stream=stream,
            max_tokens=max_tokens,
            temperature=temperature,
            options=options,
        )
        started = time.perf_counter()
        if not stream:
            data = self._retry.request(
                self._http, "POST", "/api/chat", "ollama /api/chat", json=body
            )
            if not isinstance(data, dict) or not isinstance(data.get("message"), dict):
                raise LLMError(f"ollama /api/chat: no message in the answer: {data!r:.200}")
            if data.get("error"):
                raise LLMError(f"ollama /api/chat: {data['error']}")
            return self._reply(data, data["message"], started, None)
        parts: list[str] = []
        calls: list[ToolCall] = []
        first: float | None = None
        final: dict[str, Any] = {}
        for chunk in self._chunks(body):
            msg = chunk.get("message") or {}
            text = msg.get("content") or ""
            if text:
                if first is None:
                    first = time.perf_counter() - started
                parts.append(text)
            calls.extend(_tool_calls(msg))
            if chunk.get("done"):
                final = chunk
        reply = self._reply(final, {"content": "".join(parts)}, started, first)
        return reply.model_copy(update={"tool_calls": calls})

    def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        format: Format = None,
        num_ctx: int | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Iterator[str]:
        body = self.build_request(
            messages,
            tools=tools,
            format=format,
            num_ctx=num_ctx,
            stream=True,
            max_tokens=max_tokens,
            temperature=temperature,
            options=options,
        )
        for chunk in self._chunks(body):
            text = (chunk.get("message") or {}).get("content") or ""
            if text:
                yield text

    def _chunks(self, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The NDJSON objects of a streamed ``/api/chat`` answer, up to the ``done`` one."""
        what = "ollama /api/chat (stream)"
        with self._retry.stream(self._http, "POST", "/api/chat", what, json=body) as response:
            done = False
            try:
                for line in response.iter_lines():
                    if not line.strip():
                        continue
                    chunk = parse_json(line, what)
                    if not isinstance(chunk, dict):
                        raise LLMError(f"{what}: expected an object per line, got {line[:200]!r}")
                    if chunk.get("error"):
                        raise LLMError(f"{what}: {chunk['error']}")
                    yield chunk
                    if chunk.get("done"):
                        done = True
                        break
            except httpx.HTTPError as exc:
                raise LLMError(f"{what}: connection lost mid-answer: {exc}") from exc
            if not done:
                raise LLMError(f"{what}: the stream ended without a final done message")

    def _reply(
        self,
        data: Mapping[str, Any],
        message: Mapping[str, Any],
        started: float,
        first: float | None,
    ) -> ChatReply:
        timings = {"total_s": time.perf_counter() - started}
        if first is not None:
            timings["first_token_s"] = first
        for key, name in (
            ("total_duration", "server_total_s"),
            ("load_duration", "load_s"),
            ("prompt_eval_duration", "prompt_eval_s"),
            ("eval_duration", "eval_s"),
        ):
            value = _ns(data, key)
            if value is not None:
                timings[name] = value
        content = message.get("content") or ""
        if not isinstance(content, str):
            raise LLMError(f"ollama /api/chat: content is not text: {content!r:.200}")
        return ChatReply(
            content=content,
            tool_calls=_tool_calls(message),
            prompt_tokens=data.get("prompt_eval_count"),
            completion_tokens=data.get("eval_count"),
            timings=timings,
            model=data.get("model"),
            finish_reason=data.get("done_reason"),
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OllamaClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
