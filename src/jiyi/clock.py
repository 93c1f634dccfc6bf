"""Time as pure functions: every timestamp jiyi keeps is timezone-aware UTC.

A naive ``datetime`` is taken to be UTC (documented behaviour); an aware one is converted.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from .errors import ValidationError

Clock = Callable[[], datetime]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def utc_now() -> datetime:
    """The current instant, UTC, aware."""
    return datetime.now(UTC)


def ensure_utc(value: datetime) -> datetime:
    """Return ``value`` as an aware UTC datetime. Naive values are read as UTC."""
    if not isinstance(value, datetime):
        raise ValidationError(f"expected a datetime, got {type(value).__name__}")
    if value.tzinfo is UTC:
        return value  # already UTC (every stored and checked instant): no conversion call
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def parse_time(text: str) -> datetime:
    """Parse ISO-8601 (``Z`` allowed) into aware UTC; naive means UTC."""
    if not isinstance(text, str) or not text.strip():
        raise ValidationError("a time must be a non-empty ISO-8601 string")
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError as exc:
        raise ValidationError(f"not an ISO-8601 time: {text!r}") from exc
    return ensure_utc(parsed)


def to_micros(value: datetime) -> int:
    """Microseconds since the Unix epoch (how SQLite stores instants)."""
    delta = ensure_utc(value) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(value: int) -> datetime:
    """Inverse of :func:`to_micros`."""
    from datetime import timedelta

    return _EPOCH + timedelta(microseconds=int(value))


def iso(value: datetime) -> str:
    """ISO-8601 UTC with a ``Z``, as jiyi writes times in JSON."""
    return ensure_utc(value).isoformat().replace("+00:00", "Z")
