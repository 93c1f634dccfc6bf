"""Recognise secrets in prompt material: by key name (``api_key``, ``password``...) and by value
shape (``sk-...``, ``Bearer ...``, ``AKIA...``, ``ghp_...``, JWTs, private keys, ``密码是...``).

The execution channel masks them; the summary channel drops any sentence that holds one.
"""

from __future__ import annotations

import re
from typing import Any

MASK = "***"

SECRET_VALUE_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}"),
    re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),
    re.compile(r"\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"),
    re.compile(
        r"\b(?:password|passwd|pwd|passcode|api[_\- ]?key|secret|token)\b\s*(?:is|=|:)\s*\S+",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?:密码|密碼|口令|密钥|密鑰|令牌|验证码|驗證碼)\s*(?:是|为|為|:|：|=)?\s*[^\s，。,;；]+"
    ),
)

_KEY_PARTS = frozenset(
    "token password passwd pwd passcode secret authorization auth cookie credential credentials "  # noqa: SIM905
    "apikey privatekey accesskey secretkey otp pin cvv ssn".split()
)
_KEY_JOINED = ("apikey", "privatekey", "accesskey", "secretkey", "clientsecret", "sessiontoken")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def is_secret_key(key: str) -> bool:
    """True for a mapping key that names a secret (``api_key``, ``X-Auth-Token``, ``password``)."""
    parts = [p for p in re.split(r"[^a-z0-9]+", _CAMEL.sub("_", key).lower()) if p]
    joined = "".join(parts)
    return any(p in _KEY_PARTS for p in parts) or any(j in joined for j in _KEY_JOINED)


def has_secret(text: str) -> bool:
    """True when ``text`` holds something shaped like a secret."""
    return any(p.search(text) for p in SECRET_VALUE_PATTERNS)


def mask_text(text: str) -> str:
    """``text`` with every secret-shaped span replaced by ``***``."""
    for pattern in SECRET_VALUE_PATTERNS:
        text = pattern.sub(MASK, text)
    return text


def mask_secrets(value: Any) -> Any:
    """A copy of a JSON-like value with secret keys' values and secret-shaped strings masked."""
    if isinstance(value, dict):
        return {
            k: (MASK if is_secret_key(str(k)) and v not in (None, "") else mask_secrets(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    if isinstance(value, str):
        return mask_text(value)
    return value
