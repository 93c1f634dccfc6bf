"""OpenAI-compatible servers (llama.cpp, vLLM, LM Studio...): ``POST {base}/chat/completions``
with tools, ``response_format`` and SSE streaming; ``GET {base}/models`` for the model id.

A JSON schema is sent the OpenAI way (``{"type": "json_schema", ...}``); a server that rejects
that (llama-cpp-python accepts only ``json_object``) is asked again once with
``{"type": "json_object", "schema": ...}`` and the client remembers the style.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import httpx

from ..errors import ConfigError, LLMError
from ._http import Retrying, default_timeout, parse_json
from .base import ChatReply, Format, Message, ToolCall


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


def _parse_tool_calls(raw_calls: Any) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for raw in raw_calls or []:
        fn = raw.get("function") if isinstance(raw, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise LLMError(f"openai: malformed tool call {raw!r:.200}")
        args: Any = fn.get("arguments") or "{}"
        try:
            if isinstance(args, str):
                args = parse_json(args, f"openai tool call {fn['name']} arguments")
            if not isinstance(args, dict):
                raise LLMError(f"openai: tool call arguments are not an object: {args!r:.200}")
        except LLMError as exc:
            calls.append(ToolCall(name=fn["name"], id=raw.get("id"), arguments_error=str(exc)))
            continue
        calls.append(ToolCall(name=fn["name"], arguments=args, id=raw.get("id")))
    return calls


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


class OpenAICompatClient:
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
        self.name = f"openai:{self.base_url}" + (f"#{model}" if model else "")
        self.schema_style = "openai"
        self._retry = Retrying(retries)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            base_url=self.base_url + "/",
            timeout=timeout if timeout is not None else default_timeout(),
            headers=headers,
            transport=transport,
        )

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
                raise LLMError("openai /models: the server lists no model; pass one with #model")
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
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None,
        format: Format,
        stream: bool,
        max_tokens: int | None,
        temperature: float | None,
        options: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        """The ``/chat/completions`` body. ``num_ctx`` has no OpenAI field: the server's own
        window applies, and the caller budgets against :meth:`context_length`."""
        body: dict[str, Any] = {
            "model": self.model_id(),
            "messages": [dict(m) for m in messages],
            "stream": stream,
        }
        if tools:
            body["tools"] = [dict(t) for t in tools]
        fmt = response_format(format, self.schema_style)
        if fmt is not None:
            body["response_format"] = fmt
        if max_tokens is not None:
            body["max_tokens"] = int(max_tokens)
        if temperature is not None:
            body["temperature"] = float(temperature)
        body.update(options or {})
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
        kwargs: dict[str, Any] = dict(
            tools=tools,
            format=format,
            max_tokens=max_tokens,
            temperature=temperature,
            options=options,
        )
        started = time.perf_counter()
        if stream:
            state, first = self._consume(messages, **kwargs)
            return self._stream_reply(state, started, first)
        data = self._with_schema_fallback(
            lambda: self._retry.request(
                self._http,
                "POST",
                "chat/completions",
                "openai /chat/completions",
                json=self.build_request(messages, stream=False, **kwargs),
            ),
            format,
        )
        choices = data.get("choices") if isinstance(data, dict) else None
        if not choices or not isinstance(choices[0], Mapping):
            raise LLMError(f"openai /chat/completions: no choices in {data!r:.200}")
        message = choices[0].get("message") or {}
        usage = data.get("usage") or {}
        content = message.get("content") or ""
        if not isinstance(content, str):
            raise LLMError(f"openai /chat/completions: content is not text: {content!r:.200}")
        return ChatReply(
            content=content,
            tool_calls=_parse_tool_calls(message.get("tool_calls")),
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            timings={"total_s": time.perf_counter() - started},
            model=data.get("model"),
            finish_reason=choices[0].get("finish_reason"),
        )

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
            stream=True,
            max_tokens=max_tokens,
            temperature=temperature,
            options=options,
        )
        state = _StreamState()
        for chunk in self._events(body):
            text = state.feed(chunk)
            if text:
                yield text

    def _consume(
        self, messages: Sequence[Message], **kwargs: Any
    ) -> tuple[_StreamState, float | None]:
        def run() -> tuple[_StreamState, float | None]:
            state = _StreamState()
            started = time.perf_counter()
            first: float | None = None
            body = self.build_request(messages, stream=True, **kwargs)
            for chunk in self._events(body):
                if state.feed(chunk) and first is None:
                    first = time.perf_counter() - started
            return state, first

        result: tuple[_StreamState, float | None] = self._with_schema_fallback(
            run, kwargs["format"]
        )
        return result

    def _events(self, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The JSON events of an SSE answer, up to ``data: [DONE]``."""
        what = "openai /chat/completions (stream)"
        finished = False
        with self._retry.stream(self._http, "POST", "chat/completions", what, json=body) as resp:
            try:
                for line in resp.iter_lines():
                    line = line.strip()
                    if not line or line.startswith(":") or not line.startswith("data:"):
                        continue
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        return
                    event = parse_json(payload, what)
                    if not isinstance(event, dict):
                        raise LLMError(f"{what}: event is not an object: {payload[:200]!r}")
                    if event.get("error"):
                        raise LLMError(f"{what}: {event['error']}")
                    finished = finished or any(
                        isinstance(c, Mapping) and c.get("finish_reason")
                        for c in event.get("choices") or []
                    )
                    yield event
            except httpx.HTTPError as exc:
                raise LLMError(f"{what}: connection lost mid-answer: {exc}") from exc
        if not finished:
            raise LLMError(f"{what}: the stream ended without a finish_reason or data: [DONE]")

    def _with_schema_fallback(self, call: Any, format: Format) -> Any:
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

    def _stream_reply(self, state: _StreamState, started: float, first: float | None) -> ChatReply:
        timings = {"total_s": time.perf_counter() - started}
        if first is not None:
            timings["first_token_s"] = first
        tools = [state.tools[i] for i in sorted(state.tools)]
        return ChatReply(
            content="".join(state.text),
            tool_calls=_parse_tool_calls(tools),
            prompt_tokens=state.usage.get("prompt_tokens"),
            completion_tokens=state.usage.get("completion_tokens"),
            timings=timings,
            model=state.model,
            finish_reason=state.finish,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenAICompatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
