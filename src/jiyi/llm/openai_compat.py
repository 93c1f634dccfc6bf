"""OpenAI-compatible servers (llama.cpp, vLLM, LM Studio...): ``POST {base}/chat/completions``
with tools, ``response_format`` and SSE streaming; ``GET {base}/models`` for the model id.

A JSON schema is sent the OpenAI way (``{"type": "json_schema", ...}``); a server that rejects
that (llama-cpp-python accepts only ``json_object``) is asked again once with
``{"type": "json_object", "schema": ...}`` and the client remembers the style.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar, Unpack

import httpx

from ..errors import ConfigError, LLMError
from ._client import HTTPChatClient, ReplyStream
from ._http import message_reply, parse_tool_calls
from .base import ChatOptions, ChatReply, Format, Message

T = TypeVar("T")


def response_format(format: Format, style: str = "openai") -> dict[str, Any] | None:
    """The ``response_format`` for ``format`` ("json" or a schema) in the given style."""
    if format is None:
        return None
    if isinstance(format, str):
        if format != "json":
            raise ConfigError(f"format must be 'json' or a JSON schema, got {format!r}")
        return {"type": "json_object"}
    schema = dict(format)
    if style == "llama_cpp":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}


def _sse_data(line: str) -> str | None:
    """The payload of an SSE ``data:`` line (comments and other fields are skipped)."""
    line = line.strip()
    return line[5:].strip() if line.startswith("data:") else None


class _StreamState:
    """Accumulates SSE deltas: text, tool-call fragments (by index), usage, finish reason."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.tools: dict[int, dict[str, Any]] = {}
        self.usage: Mapping[str, Any] = {}
        self.finish: str | None = None
        self.model: str | None = None

    def feed(self, chunk: Mapping[str, Any]) -> str:
        self.model = chunk.get("model") or self.model
        if isinstance(chunk.get("usage"), Mapping):
            self.usage = chunk["usage"]
        out = ""
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            text = delta.get("content")
            if isinstance(text, str) and text:
                self.text.append(text)
                out += text
            for frag in delta.get("tool_calls") or []:
                slot = self.tools.setdefault(
                    int(frag.get("index", len(self.tools))), {"function": {"arguments": ""}}
                )
                if frag.get("id"):
                    slot["id"] = frag["id"]
                fn = frag.get("function") or {}
                if fn.get("name"):
                    slot["function"]["name"] = fn["name"]
                if fn.get("arguments"):
                    slot["function"]["arguments"] += fn["arguments"]
            if choice.get("finish_reason"):
                self.finish = choice["finish_reason"]
        return out

    def reply(self) -> ChatReply:
        """The streamed reply (its text is assembled by the caller)."""
        return ChatReply(
            tool_calls=parse_tool_calls([self.tools[i] for i in sorted(self.tools)], "openai"),
            prompt_tokens=self.usage.get("prompt_tokens"),
            completion_tokens=self.usage.get("completion_tokens"),
            model=self.model,
            finish_reason=self.finish,
        )


class OpenAICompatClient(HTTPChatClient):
    """A :class:`~jiyi.llm.base.ChatClient` for an OpenAI-compatible ``/v1`` base URL."""

    def __init__(
        self,
        base_url: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        timeout: httpx.Timeout | float | None = None,
        retries: int = 2,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        url = httpx.URL(base_url.rstrip("/"))
        if url.scheme not in ("http", "https") or not url.host:
            raise ConfigError(f"not an OpenAI-compatible base URL: {base_url!r}")
        self.base_url = str(url)
        self.model = model
        self.name = f"openai:{model or ''}@{self.base_url}"
        self.schema_style = "openai"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        super().__init__(self.base_url + "/", timeout=timeout, retries=retries,
                         transport=transport, headers=headers)

    def models(self) -> list[dict[str, Any]]:
        """The ``data`` list of ``GET /models``."""
        body = self._retry.request(self._http, "GET", "models", "openai /models")
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise LLMError(f"openai /models: no data list in {body!r:.200}")
        return [m for m in data if isinstance(m, dict)]

    def model_id(self) -> str:
        """The model to ask for: the one given, else the first the server lists."""
        if self.model is None:
            listed = self.models()
            if not listed or not isinstance(listed[0].get("id"), str):
                raise LLMError("openai /models: the server lists no model; name one: openai:MODEL@URL")
            self.model = str(listed[0]["id"])
        return self.model

    def context_length(self) -> int | None:
        """``n_ctx`` when ``/models`` metadata reports it (llama.cpp), else ``None``."""
        for entry in self.models():
            if entry.get("id") != self.model_id():
                continue
            for holder in (entry.get("meta"), entry):
                if isinstance(holder, Mapping):
                    for key in ("n_ctx", "context_length", "max_model_len"):
                        if isinstance(holder.get(key), int):
                            return int(holder[key])
        return None

    def build_request(
        self, messages: Sequence[Message], *, stream: bool, **options: Unpack[ChatOptions]
    ) -> dict[str, Any]:
        """The ``/chat/completions`` body. ``num_ctx`` has no OpenAI field: the server's own
        window applies, and the caller budgets against :meth:`context_length`."""
        body: dict[str, Any] = {
            "model": self.model_id(),
            "messages": [dict(m) for m in messages],
            "stream": stream,
        }
        if options.get("tools"):
            body["tools"] = [dict(t) for t in options.get("tools") or []]
        fmt = response_format(options.get("format"), self.schema_style)
        if fmt is not None:
            body["response_format"] = fmt
        max_tokens, temperature = options.get("max_tokens"), options.get("temperature")
        if max_tokens is not None:
            body["max_tokens"] = int(max_tokens)
        if temperature is not None:
            body["temperature"] = float(temperature)
        body.update(options.get("options") or {})
        return body

    def _complete(self, messages: Sequence[Message], options: ChatOptions) -> ChatReply:
        what = "openai /chat/completions"
        body = self.build_request(messages, stream=False, **options)
        data = self._retry.request(self._http, "POST", "chat/completions", what, json=body)
        choices = data.get("choices") if isinstance(data, dict) else None
        if not choices or not isinstance(choices[0], Mapping):
            raise LLMError(f"{what}: no choices in {data!r:.200}")
        message = choices[0].get("message") or {}
        usage = data.get("usage") or {}
        return message_reply(
            message, what, "openai",
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            model=data.get("model"),
            finish_reason=choices[0].get("finish_reason"),
        )

    def _stream(self, messages: Sequence[Message], options: ChatOptions) -> ReplyStream:
        state = _StreamState()
        for chunk in self._events(self.build_request(messages, stream=True, **options)):
            text = state.feed(chunk)
            if text:
                yield text
        return state.reply()

    def _events(self, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The JSON events of an SSE answer, up to ``data: [DONE]``."""
        what = "openai /chat/completions (stream)"
        finished = False
        for event in self._retry.json_stream(
            self._http, "chat/completions", what, body, _sse_data, end_marker="[DONE]"
        ):
            finished = finished or any(
                isinstance(c, Mapping) and c.get("finish_reason")
                for c in event.get("choices") or []
            )
            yield event
        if not finished:
            raise LLMError(f"{what}: the stream ended without a finish_reason or data: [DONE]")

    def _with_format_fallback(self, call: Callable[[], T], format: Format) -> T:
        """A server that rejects ``json_schema`` (llama-cpp-python) is asked again once in its
        own style, which the client then keeps."""
        try:
            return call()
        except LLMError as exc:
            retry = (
                isinstance(format, Mapping)
                and self.schema_style == "openai"
                and "json_schema" in str(exc)
            )
            if not retry:
                raise
            self.schema_style = "llama_cpp"
            return call()
