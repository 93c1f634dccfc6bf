"""The Ollama Modelfile jiyi recommends for Qwen2.5 (long context, stable sampling).

``num_ctx 32768`` gives the model the window jiyi budgets against; ``rope_freq_base 1000000`` is
Qwen2.5's RoPE base. The seed article's ``ADAPTER`` line for "flash-attn2" is not an Ollama
feature and is deliberately absent (flash attention is a server setting: OLLAMA_FLASH_ATTENTION=1).
"""

from __future__ import annotations

from ..errors import ValidationError
from .prompt import SYSTEM_PROMPTS

DEFAULT_MODEL = "qwen2.5:7b"
DEFAULT_NUM_CTX = 32768
DEFAULT_ROPE_FREQ_BASE = 1_000_000


def render_modelfile(
    model: str = DEFAULT_MODEL,
    *,
    num_ctx: int = DEFAULT_NUM_CTX,
    rope_freq_base: int = DEFAULT_ROPE_FREQ_BASE,
    language: str = "zh",
    system: str | None = None,
) -> str:
    """The Modelfile text. ``system`` defaults to jiyi's system prompt in ``language``."""
    if not model or any(ch.isspace() for ch in model):
        raise ValidationError(f"model must be one word such as qwen2.5:7b, got {model!r}")
    if num_ctx <= 0 or rope_freq_base <= 0:
        raise ValidationError("num_ctx and rope_freq_base must be positive")
    if system is None:
        if language not in SYSTEM_PROMPTS:
            raise ValidationError(f"language must be one of {sorted(SYSTEM_PROMPTS)}")
        system = SYSTEM_PROMPTS[language]
    if '"""' in system:
        raise ValidationError('the system prompt must not contain """')
    return (
        f"# Modelfile for jiyi on {model}. Build it with:\n"
        f"#   ollama create jiyi-{model.replace(':', '-')} -f Modelfile\n"
        f"FROM {model}\n"
        f"PARAMETER num_ctx {num_ctx}\n"
        f"PARAMETER rope_freq_base {rope_freq_base}\n"
        f'SYSTEM """{system}"""\n'
    )
