"""LLM clients: Ollama and OpenAI-compatible servers behind one :class:`ChatClient` protocol."""

from .base import ChatClient, ChatReply, ToolCall
from .registry import make_client

__all__ = ["ChatClient", "ChatReply", "ToolCall", "make_client"]
