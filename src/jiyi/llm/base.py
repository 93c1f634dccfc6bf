"""The chat-client interface every LLM backend implements, and its reply type."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

Message = Mapping[str, Any]
#: ``"json"`` for any JSON object, or a JSON schema the reply must follow.
Format = str | Mapping[str, Any] | None


class ToolCall(BaseModel):
    """One function call the model asked for, arguments already parsed."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    #: Set when the model's arguments were not a JSON object (e.g. cut off by max_tokens): the
    #: call is still reported, so the agent can answer it with a tool error instead of failing.
    arguments_error: str | None = None


class ChatReply(BaseModel):
    """What a model answered, with token counts and timings (seconds) when the server gives them."""

    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    timings: dict[str, float] = Field(default_factory=dict)
    model: str | None = None
    finish_reason: str | None = None


@runtime_checkable
class ChatClient(Protocol):
    """A chat model behind some server. Raises :class:`jiyi.errors.LLMError` on failure."""

    name: str

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
        """One reply. With ``stream=True`` the reply is streamed and assembled, and
        ``timings["first_token_s"]`` says when the first text arrived."""
        ...

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
        """The reply's text, chunk by chunk, as the server sends it."""
        ...

    def context_length(self) -> int | None:
        """The model's context window as the server reports it, or ``None`` when unknown."""
        ...

    def close(self) -> None: ...
