"""Ollama's HTTP API: ``POST /api/chat`` (``options.num_ctx``, tools, structured ``format``, NDJSON
streaming) and ``POST /api/show`` for the model's context window.

Ollama streams by default, so every non-streaming request says ``"stream": false``. When the
caller gives no ``num_ctx``, the client reads it once from ``/api/show``: the Modelfile's
``num_ctx`` parameter when set, else the model's ``*.context_length`` capped at ``max_num_ctx``,
and always sends it, so the server never silently cuts a prompt at its small default.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Unpack

import httpx

from ..errors import ConfigError, LLMError
from ._client import HTTPChatClient, ReplyStream
from ._http import message_reply, parse_tool_calls
from .base import ChatOptions, ChatReply, Message, ToolCall

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


def _ndjson_line(line: str) -> str | None:
    return line if line.strip() else None


class OllamaClient(HTTPChatClient):
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
        self._num_ctx: int | None = None
        self._shown = False
        super().__init__(self.base_url, timeout=timeout, retries=retries, transport=transport)

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
        self, messages: Sequence[Message], *, stream: bool, **options: Unpack[ChatOptions]
    ) -> dict[str, Any]:
        """The ``/api/chat`` body (pure apart from reading the context window once)."""
        opts: dict[str, Any] = dict(options.get("options") or {})
        num_ctx, max_tokens = options.get("num_ctx"), options.get("max_tokens")
        temperature, fmt = options.get("temperature"), options.get("format")
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
        if options.get("tools"):
            body["tools"] = [dict(t) for t in options.get("tools") or []]
        if fmt is not None:
            body["format"] = fmt if isinstance(fmt, str) else dict(fmt)
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        return body

    def _complete(self, messages: Sequence[Message], options: ChatOptions) -> ChatReply:
        body = self.build_request(messages, stream=False, **options)
        data = self._retry.request(self._http, "POST", "/api/chat", "ollama /api/chat", json=body)
        if not isinstance(data, dict) or not isinstance(data.get("message"), dict):
            raise LLMError(f"ollama /api/chat: no message in the answer: {data!r:.200}")
        if data.get("error"):
            raise LLMError(f"ollama /api/chat: {data['error']}")
        return self._reply(data, data["message"])

    def _stream(self, messages: Sequence[Message], options: ChatOptions) -> ReplyStream:
        calls: list[ToolCall] = []
        final: dict[str, Any] = {}
        for chunk in self._chunks(self.build_request(messages, stream=True, **options)):
            msg = chunk.get("message") or {}
            text = msg.get("content") or ""
            if text:
                yield text
            calls.extend(parse_tool_calls(msg.get("tool_calls"), "ollama"))
            if chunk.get("done"):
                final = chunk
        return self._reply(final, {}).model_copy(update={"tool_calls": calls})

    def _chunks(self, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The NDJSON objects of a streamed ``/api/chat`` answer, up to the ``done`` one."""
        what = "ollama /api/chat (stream)"
        for chunk in self._retry.json_stream(self._http, "/api/chat", what, body, _ndjson_line):
            yield chunk
            if chunk.get("done"):
                return
        raise LLMError(f"{what}: the stream ended without a final done message")

    @staticmethod
    def _reply(data: Mapping[str, Any], message: Mapping[str, Any]) -> ChatReply:
        """A reply from Ollama's answer (the final object when streamed), server timings in s."""
        timings: dict[str, float] = {}
        for key, name in (
            ("total_duration", "server_total_s"),
            ("load_duration", "load_s"),
            ("prompt_eval_duration", "prompt_eval_s"),
            ("eval_duration", "eval_s"),
        ):
            value = _ns(data, key)
            if value is not None:
                timings[name] = value
        return message_reply(
            message, "ollama /api/chat", "ollama",
            prompt_tokens=data.get("prompt_eval_count"),
            completion_tokens=data.get("eval_count"),
            timings=timings,
            model=data.get("model"),
            finish_reason=data.get("done_reason"),
        )
