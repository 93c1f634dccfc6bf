"""What every HTTP chat client shares: the connection, the bounded retries, ``chat`` and
``stream_chat`` written once over two backend hooks.

A backend (:mod:`jiyi.llm.ollama`, :mod:`jiyi.llm.openai_compat`) says how to get one whole
answer (:meth:`HTTPChatClient._complete`) and how to stream one (:meth:`HTTPChatClient._stream`:
yields text, returns the rest of the reply); assembling a streamed reply, the timings and
closing are here.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from typing import Self, TypeVar, Unpack

import httpx

from ._http import Retrying, default_timeout
from .base import ChatOptions, ChatReply, Format, Message

T = TypeVar("T")
#: What a backend's stream gives: text chunks, then the reply without its text.
ReplyStream = Generator[str, None, ChatReply]


class HTTPChatClient(ABC):
    """A :class:`~jiyi.llm.base.ChatClient` over one ``httpx.Client`` with bounded retries."""

    name: str

    def __init__(
        self,
        base_url: str,
        *,
        timeout: httpx.Timeout | float | None,
        retries: int,
        transport: httpx.BaseTransport | None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self._retry = Retrying(retries)
        self._http = httpx.Client(
            base_url=base_url,
            timeout=timeout if timeout is not None else default_timeout(),
            headers=dict(headers or {}),
            transport=transport,
        )

    @abstractmethod
    def _complete(self, messages: Sequence[Message], options: ChatOptions) -> ChatReply:
        """One whole (non-streamed) answer."""

    @abstractmethod
    def _stream(self, messages: Sequence[Message], options: ChatOptions) -> ReplyStream:
        """A streamed answer: its text chunk by chunk, then the reply (tool calls, counts)."""

    @abstractmethod
    def context_length(self) -> int | None: ...

    def _with_format_fallback(self, call: Callable[[], T], format: Format) -> T:
        """Run ``call``; a backend may ask again in another structured-output style."""
        return call()

    def chat(
        self, messages: Sequence[Message], *, stream: bool = False, **options: Unpack[ChatOptions]
    ) -> ChatReply:
        started = time.perf_counter()
        first: float | None = None
        if stream:
            reply, first = self._with_format_fallback(
                lambda: self._assemble(messages, options), options.get("format"))
        else:
            reply = self._with_format_fallback(
                lambda: self._complete(messages, options), options.get("format"))
        timings = {"total_s": time.perf_counter() - started}
        if first is not None:
            timings["first_token_s"] = first
        return reply.model_copy(update={"timings": {**timings, **reply.timings}})

    def stream_chat(
        self, messages: Sequence[Message], **options: Unpack[ChatOptions]
    ) -> Iterator[str]:
        yield from self._stream(messages, options)

    def _assemble(
        self, messages: Sequence[Message], options: ChatOptions
    ) -> tuple[ChatReply, float | None]:
        started = time.perf_counter()
        parts: list[str] = []
        first: float | None = None
        stream = self._stream(messages, options)
        while True:
            try:
                text = next(stream)
            except StopIteration as stop:
                reply: ChatReply = stop.value
                return reply.model_copy(update={"content": "".join(parts)}), first
            if first is None:
                first = time.perf_counter() - started
            parts.append(text)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
