"""Neutralise channel markers in user- and tool-originated text.

The prompt speaks to the model through markers such as ``<|memory_anchor|>``, ``<|context_reset|>``,
``<|execution_context|>`` and ChatML's ``<|im_start|>``/``<|im_end|>``/``<|endoftext|>``. Text that
did not come from jiyi itself must never open one of those channels, so every ``<|`` opener (also
fullwidth ``＜｜``, small-form ``﹤``, spaced ``< |`` or with zero-width characters between) becomes
``‹|`` (``</|`` becomes ``‹/|``) and every ``|>`` closer becomes ``|›``. Qwen's tool-call tags (``<tool_call>`` ...) get the
same treatment. The text stays readable; no tokenizer or template can read it as a marker.
"""

from __future__ import annotations

import re

SAFE_OPEN = "\u2039|"  # ‹|
SAFE_CLOSE = "|\u203a"  # |›

_GAP = r"[\s\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff]*"
_LT = r"[<\uff1c\ufe64\u2329\u3008\u27e8]"  # < ＜ ﹤ 〈 〈 ⟨
_GT = r"[>\uff1e\ufe65\u232a\u3009\u27e9]"  # > ＞ ﹥ 〉 〉 ⟩
_PIPE = r"[|\uff5c\u2223\u01c0\u2502\u00a6\ufe31\ufe32]"  # | ｜ ∣ ǀ │ ¦

_SLASH = r"[/\uff0f]?"
_OPEN_RE = re.compile(_LT + _GAP + "(" + _SLASH + ")" + _GAP + _PIPE)
_CLOSE_RE = re.compile(_PIPE + _GAP + _GT)
_TAG_RE = re.compile(
    _LT + _GAP + r"(/?)" + _GAP + r"(tool_call|tool_response|think|tools)" + _GAP + _GT,
    re.IGNORECASE,
)


def neutralise_markers(text: str) -> str:
    """``text`` with every marker opener/closer defused. Idempotent; other text is untouched."""
    out = _TAG_RE.sub(lambda m: f"\u2039{m.group(1)}{m.group(2)}\u203a", text)
    out = _OPEN_RE.sub(lambda m: "\u2039" + ("/" if m.group(1) else "") + "|", out)
    return _CLOSE_RE.sub(SAFE_CLOSE, out)
