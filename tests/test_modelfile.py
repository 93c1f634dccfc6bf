"""The Ollama Modelfile for Qwen2.5 (S10): real parameters only, no fake ADAPTER line."""

from __future__ import annotations

import pytest

from jiyi.context import render_modelfile
from jiyi.context.prompt import SYSTEM_PROMPTS
from jiyi.errors import ValidationError


def directives(text: str) -> list[str]:
    """Modelfile instructions (first word of each non-comment line outside the SYSTEM block)."""
    body = text.split('SYSTEM """', 1)[0]
    return [line.split()[0] for line in body.splitlines() if line and not line.startswith("#")]


def test_default_modelfile() -> None:
    text = render_modelfile("qwen2.5:7b")
    lines = text.splitlines()
    assert "FROM qwen2.5:7b" in lines
    assert "PARAMETER num_ctx 32768" in lines
    assert "PARAMETER rope_freq_base 1000000" in lines
    assert directives(text) == ["FROM", "PARAMETER", "PARAMETER"]
    assert "ADAPTER" not in text and "flash" not in text.lower()
    assert text.endswith(f'SYSTEM """{SYSTEM_PROMPTS["zh"]}"""\n')
    assert "<|memory_anchor|>" in text and "<|context_reset|>" in text


def test_english_and_custom_values() -> None:
    text = render_modelfile("qwen2.5:14b", num_ctx=16384, language="en")
    assert "FROM qwen2.5:14b" in text and "PARAMETER num_ctx 16384" in text
    assert SYSTEM_PROMPTS["en"] in text
    assert 'SYSTEM """Be brief."""' in render_modelfile(system="Be brief.")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"model": ""},
        {"model": "qwen2.5:7b\nADAPTER ./x"},
        {"num_ctx": 0},
        {"language": "fr"},
        {"system": 'break """ out'},
    ],
)
def test_bad_input_is_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        render_modelfile(**kwargs)  # type: ignore[arg-type]
