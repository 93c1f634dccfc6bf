"""Guards at every entry point: clear errors, nothing half-written (session isolation and
bad input)."""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Any

from .clock import ensure_utc, parse_time
from .errors import MissingSessionError, ValidationError
from .units import ROLES, Role

MAX_ID_CHARS = 256
#: The largest query a network door takes before ``Memory.recall`` applies
#: ``JiyiConfig.max_query_chars`` (2,000 by default) with its own message: 2,000 characters at up
#: to 4 UTF-8 bytes each. Larger requests are refused before any work.
MAX_QUERY_TRANSPORT_SIZE = 8_000


def require_session_id(session_id: Any) -> str:
    """A non-blank session id, or :class:`MissingSessionError`. Never a default: sessions are
    isolated, so jiyi never guesses one."""
    if session_id is None:
        raise MissingSessionError("session_id is required (jiyi never infers a session)")
    if not isinstance(session_id, str):
        raise MissingSessionError(f"session_id must be a string, got {type(session_id).__name__}")
    return _check_id(session_id, "session_id", MissingSessionError)


def check_user_id(user_id: Any, session_id: str) -> str:
    if user_id is None:
        return session_id
    if not isinstance(user_id, str):
        raise ValidationError(f"user_id must be a string, got {type(user_id).__name__}")
    return _check_id(user_id, "user_id", ValidationError)


def check_identifier(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValidationError(f"{name} must be a string, got {type(value).__name__}")
    return _check_id(value, name, ValidationError)


def _check_id(value: str, name: str, error: type[ValidationError]) -> str:
    stripped = value.strip()
    if not stripped:
        raise error(f"{name} must not be blank")
    if len(stripped) > MAX_ID_CHARS:
        raise error(f"{name} is longer than {MAX_ID_CHARS} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in stripped):
        raise error(f"{name} contains control or invalid characters")
    return stripped


def check_text(text: Any, *, what: str, max_bytes: int) -> str:
    """Text that is a real string: UTF-8 encodable (no lone surrogates), not blank, not oversized.
    Bytes are accepted only when they are valid UTF-8. Control characters other than newline and
    tab are removed."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValidationError(f"{what} is not valid UTF-8 (byte {exc.start})") from exc
    if not isinstance(text, str):
        raise ValidationError(f"{what} must be a string, got {type(text).__name__}")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise ValidationError(f"{what} is not valid Unicode (lone surrogate at {exc.start})") from exc
    if size > max_bytes:
        raise ValidationError(f"{what} is {size} bytes; the limit is {max_bytes}")
    cleaned = "".join(
        ch for ch in text
        if ch in "\n\t" or not unicodedata.category(ch).startswith("C") or ch == "\u200d"
    )
    if not cleaned.strip():
        raise ValidationError(f"{what} is empty")
    return cleaned


def check_role(role: object) -> Role:
    """One of the four roles, typed as such (callers reading roles from files narrow with it)."""
    if role == "user" or role == "assistant" or role == "tool" or role == "system":
        return role
    raise ValidationError(f"role must be one of {', '.join(ROLES)}; got {role!r}")


def check_time(value: Any, name: str) -> datetime | None:
    """``None``, an aware/naive datetime (naive = UTC), or an ISO-8601 string."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return ensure_utc(value)
    if isinstance(value, str):
        return parse_time(value)
    raise ValidationError(f"{name} must be a datetime or ISO-8601 string, got {type(value).__name__}")


def check_k(k: Any, max_k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int):
        raise ValidationError(f"k must be an integer, got {type(k).__name__}")
    if k < 1 or k > max_k:
        raise ValidationError(f"k must be between 1 and {max_k}; got {k}")
    return k
