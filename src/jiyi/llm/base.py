"""The chat-client interface every LLM backend implements, and its reply type."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol, TypedDict, Unpack, runtime_checkable

from pydantic import BaseModel, Field

Message = Mapping[str, Any]
#: ``"json"`` for any JSON object, or a JSON schema the reply must follow.
Format = str | Mapping[str, Any] | None


class ChatOptions(TypedDict, total=False):
    """The keyword options of :meth:`ChatClient.chat` and :meth:`ChatClient.stream_chat`, written
    once here so every backend takes the same ones."""

    tools: Sequence[Mapping[str, Any]] | None
    format: Format
    #: the context window to ask for (Ollama ``options.num_ctx``; OpenAI servers keep their own)
    num_ctx: int | None
    max_tokens: int | None
    temperature: float | None
    #: backend-specific extras (Ollama ``options``, extra OpenAI body fields)
    options: Mapping[str, Any] | None


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
    """A chat model behind some server. Raises :class:`jiyi.errors.LLMError` on failure.

    Built by :func:`jiyi.llm.make_client` from a spec such as ``ollama:qwen2.5:7b`` or
    ``openai:MODEL@http://127.0.0.1:8080/v1``."""

    name: str

    def chat(
        self, messages: Sequence[Message], *, stream: bool = False, **options: Unpack[ChatOptions]
    ) -> ChatReply:
        """One reply. With ``stream=True`` the reply is streamed and assembled, and
        ``timings["first_token_s"]`` says when the first text arrived."""
        ...

    def stream_chat(
        self, messages: Sequence[Message], **options: Unpack[ChatOptions]
    ) -> Iterator[str]:
        """The reply's text, chunk by chunk, as the server sends it."""
        ...

    def context_length(self) -> int | None:
        """The model's context window as the server reports it, or ``None`` when unknown."""
        ...

    def close(self) -> None: ...
