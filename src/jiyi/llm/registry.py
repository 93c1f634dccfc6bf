"""Choose an LLM client by spec, the one spelling jiyi uses for every model behind a URL:
``BACKEND:MODEL@URL``.

- ``ollama:MODEL`` or ``ollama:MODEL@URL``: Ollama; without ``@URL`` the server is ``base_url=``,
  else ``$OLLAMA_HOST``, else http://127.0.0.1:11434 (``ollama:qwen2.5:7b@http://gpu-box:11434``).
- ``openai:MODEL@URL`` or ``openai:URL``: an OpenAI-compatible server whose base URL is ``URL``
  (the ``/v1`` one); without ``MODEL@`` the first model the server lists is used
  (``openai:qwen2.5-7b@http://127.0.0.1:8080/v1``).

Embedders are named the same way (:mod:`jiyi.embed.registry`). The older ``openai:URL#MODEL``
is still read, with a :class:`DeprecationWarning`; it will be refused in jiyi 0.2.
Each backend module is imported only when it is selected.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from .base import ChatClient

SCHEMES = ("ollama", "openai")
_SPELLING = "ollama:MODEL[@URL] or openai:[MODEL@]URL"


@dataclass(frozen=True)
class ClientSpec:
    """A parsed spec: the backend, the model (None: the server's first) and the URL (None: the
    backend's default)."""

    backend: str
    model: str | None
    url: str | None


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def parse_client_spec(spec: str) -> ClientSpec:
    """``ollama:MODEL[@URL]`` / ``openai:[MODEL@]URL`` -> :class:`ClientSpec` (pure)."""
    scheme, sep, rest = (spec or "").strip().partition(":")
    if not sep or not rest:
        raise ConfigError(f"LLM spec {spec!r} must look like {_SPELLING}")
    if scheme == "ollama":
        model, _, url = rest.partition("@")
        if not model:
            raise ConfigError(f"LLM spec {spec!r} names no model: ollama:MODEL[@URL]")
        return ClientSpec(scheme, model, url or None)
    if scheme == "openai":
        if _is_url(rest):
            url, _, model = rest.partition("#")
            if model:
                warnings.warn(
                    f"LLM spec {spec!r}: openai:URL#MODEL is deprecated and will be refused in "
                    f"jiyi 0.2; write openai:{model}@{url}", DeprecationWarning, stacklevel=3)
            return ClientSpec(scheme, model or None, url)
        model, _, url = rest.partition("@")
        if not _is_url(url):
            raise ConfigError(
                f"LLM spec {spec!r} needs the server's base URL: openai:[MODEL@]http://host:port/v1")
        return ClientSpec(scheme, model or None, url)
    raise ConfigError(f"unknown LLM backend {scheme!r} in {spec!r}; use one of {SCHEMES}")


def make_client(spec: str, **kwargs: Any) -> ChatClient:
    """A client for ``spec`` (see the module docstring). Other keyword arguments go to the
    client (``timeout``, ``retries``, ``api_key``, ``base_url`` for Ollama...)."""
    parsed = parse_client_spec(spec)
    if parsed.backend == "ollama":
        from .ollama import OllamaClient

        if parsed.url and kwargs.get("base_url") not in (None, parsed.url):
            raise ConfigError(f"LLM spec {spec!r} and base_url={kwargs['base_url']!r} disagree")
        if parsed.url:
            kwargs["base_url"] = parsed.url
        return OllamaClient(parsed.model or "", **kwargs)
    from .openai_compat import OpenAICompatClient

    model = parsed.model or kwargs.pop("model", None)
    return OpenAICompatClient(parsed.url or "", model=model, **kwargs)
