"""Choose an LLM client by name: ``ollama:MODEL`` or ``openai:BASE_URL[#MODEL]``.

Each backend module is imported only when it is selected.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from .base import ChatClient

SCHEMES = ("ollama", "openai")


def make_client(spec: str, **kwargs: Any) -> ChatClient:
    """A client for ``spec``:

    - ``ollama:qwen2.5:7b`` -> Ollama at ``base_url=`` / ``$OLLAMA_HOST`` / 127.0.0.1:11434
    - ``openai:http://127.0.0.1:8080/v1`` or ``openai:http://127.0.0.1:8080/v1#model-id``

    Other keyword arguments go to the client (``timeout``, ``retries``, ``api_key``...)."""
    scheme, sep, rest = (spec or "").strip().partition(":")
    if not sep or not rest:
        raise ConfigError(f"LLM spec {spec!r} must look like ollama:MODEL or openai:URL[#MODEL]")
    if scheme == "ollama":
        from .ollama import OllamaClient

        return OllamaClient(rest, **kwargs)
    if scheme == "openai":
        from .openai_compat import OpenAICompatClient

        url, _, model = rest.partition("#")
        return OpenAICompatClient(url, model=model or kwargs.pop("model", None), **kwargs)
    raise ConfigError(f"unknown LLM backend {scheme!r} in {spec!r}; use one of {SCHEMES}")
