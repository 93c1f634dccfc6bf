"""One spelling for models behind a URL: BACKEND:MODEL@URL (pure parsing, no server)."""

from __future__ import annotations

import pytest

from jiyi.errors import ConfigError
from jiyi.llm.registry import ClientSpec, make_client, parse_client_spec


@pytest.mark.parametrize(("spec", "parsed"), [
    ("ollama:qwen2.5:7b", ClientSpec("ollama", "qwen2.5:7b", None)),
    ("ollama:qwen2.5:7b@http://gpu-box:11434", ClientSpec("ollama", "qwen2.5:7b", "http://gpu-box:11434")),
    ("openai:http://127.0.0.1:8080/v1", ClientSpec("openai", None, "http://127.0.0.1:8080/v1")),
    ("openai:gpt-x@http://127.0.0.1:8080/v1", ClientSpec("openai", "gpt-x", "http://127.0.0.1:8080/v1")),
    ("openai:m@https://u:p@host/v1", ClientSpec("openai", "m", "https://u:p@host/v1")),
    ("  openai:m@http://h/v1 ", ClientSpec("openai", "m", "http://h/v1")),
])
def test_the_one_spelling(spec: str, parsed: ClientSpec) -> None:
    assert parse_client_spec(spec) == parsed


def test_the_old_openai_spelling_is_read_with_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match=r"write openai:m@http://h/v1"):
        assert parse_client_spec("openai:http://h/v1#m") == ClientSpec("openai", "m", "http://h/v1")


@pytest.mark.parametrize("spec", [
    "", "gpt", "ollama", "ollama:", "ollama:@http://h:11434", "openai:", "openai:gpt-x",
    "openai:gpt-x@ftp://h", "claude:x", "bogus:thing",
])
def test_bad_specs_are_config_errors(spec: str) -> None:
    with pytest.raises(ConfigError):
        parse_client_spec(spec)


def test_client_names_use_the_spelling() -> None:
    with make_client("openai:gpt-x@http://127.0.0.1:9/v1") as client:  # type: ignore[attr-defined]
        assert client.name == "openai:gpt-x@http://127.0.0.1:9/v1"
    with make_client("ollama:m@http://127.0.0.1:9") as client:  # type: ignore[attr-defined]
        assert client.name == "ollama:m" and client.base_url == "http://127.0.0.1:9"
    with pytest.raises(ConfigError, match="disagree"):
        make_client("ollama:m@http://127.0.0.1:9", base_url="http://127.0.0.1:10")
