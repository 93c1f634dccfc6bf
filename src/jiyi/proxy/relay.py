"""Readers of the upstream's answer formats, as pure, incremental parsers.

The proxy forwards the upstream's bytes unchanged; these readers only *look* at them, one
complete record at a time, to learn the assistant's text and whether the answer completed:

* Ollama streams NDJSON: one JSON object per line, the last one with ``"done": true``; a
  failing stream ends with ``{"error": "..."}``.
* OpenAI-compatible servers stream SSE: events separated by a blank line, ``data: {...}``
  chunks with ``choices[].delta.content``, ended by ``data: [DONE]``.

A record that is not what the format promises raises :class:`UpstreamGarbage`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


class UpstreamGarbage(Exception):
    """The upstream answered something that is not its own documented format."""


@dataclass
class ReplyState:
    """What the proxy learned from the records it has seen so far."""

    text: list[str] = field(default_factory=list)
    done: bool = False
    error: str | None = None

    @property
    def reply(self) -> str:
        return "".join(self.text)


class StreamReader(Protocol):
    """Splits a byte stream into raw records and interprets each one."""

    state: ReplyState

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        """The complete raw records (exact bytes, separators included) finished by ``chunk``."""
        ...

    def finish(self) -> Iterator[bytes]:
        """Whatever is left at the end of the stream."""
        ...


def _loads(raw: bytes, what: str) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        snippet = raw[:120].decode("utf-8", errors="replace")
        raise UpstreamGarbage(f"{what} is not JSON: {snippet!r}") from exc


# ----------------------------------------------------------------------------- Ollama


def ollama_chunk_text(obj: Mapping[str, Any]) -> str:
    """The assistant text in one Ollama record (``/api/chat`` or ``/api/generate``)."""
    message = obj.get("message")
    if isinstance(message, Mapping):
        content = message.get("content")
        return content if isinstance(content, str) else ""
    response = obj.get("response")
    return response if isinstance(response, str) else ""


def read_ollama_record(state: ReplyState, raw: bytes) -> None:
    """Interpret one NDJSON line of an Ollama answer into ``state``."""
    if not raw.strip():
        return
    obj = _loads(raw, "an Ollama stream line")
    if not isinstance(obj, Mapping):
        raise UpstreamGarbage(f"an Ollama stream line is not an object: {raw[:120]!r}")
    if "error" in obj:
        state.error = str(obj["error"])[:500]
        return
    if "message" not in obj and "response" not in obj and "done" not in obj:
        raise UpstreamGarbage(f"an Ollama stream line has no message/response/done: {raw[:120]!r}")
    state.text.append(ollama_chunk_text(obj))
    if obj.get("done") is True:
        state.done = True


class NdjsonReader:
    """Ollama's NDJSON stream."""

    def __init__(self) -> None:
        self.state = ReplyState()
        self._buf = b""

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        self._buf += chunk
        while True:
            cut = self._buf.find(b"\n")
            if cut < 0:
                return
            raw, self._buf = self._buf[: cut + 1], self._buf[cut + 1 :]
            read_ollama_record(self.state, raw)
            yield raw

    def finish(self) -> Iterator[bytes]:
        if self._buf:
            raw, self._buf = self._buf, b""
            read_ollama_record(self.state, raw)
            yield raw


# ----------------------------------------------------------------------------- OpenAI


def openai_delta_text(obj: Mapping[str, Any]) -> tuple[str, bool]:
    """The text of one ``chat.completion.chunk`` and whether it carries a finish reason."""
    choices = obj.get("choices")
    if not isinstance(choices, list):
        raise UpstreamGarbage("a chat.completion.chunk has no choices list")
    text, finished = "", False
    for choice in choices:
        if not isinstance(choice, Mapping):
            raise UpstreamGarbage("a chat.completion.chunk choice is not an object")
        if choice.get("index", 0) != 0:
            continue
        delta = choice.get("delta")
        if isinstance(delta, Mapping) and isinstance(delta.get("content"), str):
            text += delta["content"]
        if choice.get("finish_reason"):
            finished = True
    return text, finished


def read_sse_event(state: ReplyState, raw: bytes, finish_seen: list[bool]) -> None:
    """Interpret one SSE event (its ``data:`` lines) of an OpenAI-compatible stream."""
    data_lines: list[bytes] = []
    for line in raw.splitlines():
        if line.startswith(b"data:"):
            data_lines.append(line[5:].lstrip(b" "))
        elif line and not line.startswith((b":", b"event:", b"id:", b"retry:")):
            raise UpstreamGarbage(f"not a server-sent event line: {line[:120]!r}")
    if not data_lines:
        return
    data = b"\n".join(data_lines)
    if data.strip() == b"[DONE]":
        state.done = True
        return
    obj = _loads(data, "an SSE data field")
    if not isinstance(obj, Mapping):
        raise UpstreamGarbage(f"an SSE data field is not an object: {data[:120]!r}")
    if "error" in obj:
        err = obj["error"]
        state.error = str(err.get("message") if isinstance(err, Mapping) else err)[:500]
        return
    text, finished = openai_delta_text(obj)
    state.text.append(text)
    if finished:
        finish_seen[0] = True


class SseReader:
    """An OpenAI-compatible SSE stream. Complete when ``[DONE]`` arrives, or when the stream
    ends cleanly after a chunk with a ``finish_reason`` (servers that omit ``[DONE]``)."""

    def __init__(self) -> None:
        self.state = ReplyState()
        self._buf = b""
        self._finish_seen = [False]

    def _cut(self) -> int:
        for sep in (b"\r\n\r\n", b"\n\n", b"\r\r"):
            pos = self._buf.find(sep)
            if pos >= 0:
                return pos + len(sep)
        return -1

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        self._buf += chunk
        while True:
            cut = self._cut()
            if cut < 0:
                return
            raw, self._buf = self._buf[:cut], self._buf[cut:]
            read_sse_event(self.state, raw, self._finish_seen)
            yield raw

    def finish(self) -> Iterator[bytes]:
        if self._buf.strip():
            raw, self._buf = self._buf, b""
            read_sse_event(self.state, raw, self._finish_seen)
            yield raw
        if self._finish_seen[0] and self.state.error is None:
            self.state.done = True


# ----------------------------------------------------------------------------- whole bodies


def read_ollama_body(body: bytes) -> ReplyState:
    """A non-streamed Ollama answer: one JSON object (``done`` true)."""
    state = ReplyState()
    obj = _loads(body, "the Ollama answer")
    if not isinstance(obj, Mapping) or ("message" not in obj and "response" not in obj):
        raise UpstreamGarbage(f"the Ollama answer has no message: {body[:120]!r}")
    state.text.append(ollama_chunk_text(obj))
    state.done = obj.get("done", True) is not False
    return state


def read_openai_body(body: bytes) -> ReplyState:
    """A non-streamed ``chat.completion``."""
    state = ReplyState()
    obj = _loads(body, "the chat completion")
    choices = obj.get("choices") if isinstance(obj, Mapping) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise UpstreamGarbage(f"the chat completion has no choices: {body[:120]!r}")
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        raise UpstreamGarbage("the chat completion's first choice has no message")
    content = message.get("content")
    state.text.append(content if isinstance(content, str) else "")
    state.done = True
    return state


def check_json_body(body: bytes, what: str) -> Any:
    """A JSON body that must be an object (``/api/tags``, ``/api/show``, ``/v1/models``)."""
    obj = _loads(body, what)
    if not isinstance(obj, Mapping):
        raise UpstreamGarbage(f"{what} is not a JSON object")
    return obj
