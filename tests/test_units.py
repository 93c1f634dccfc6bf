from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError as PydanticValidationError

from jiyi.clock import ensure_utc, parse_time
from jiyi.errors import ValidationError
from jiyi.units import (
    MAX_RELEVANCE,
    MIN_RELEVANCE,
    Lifespan,
    MemoryType,
    MemoryUnit,
    apply_feedback,
    content_hash,
    is_valid_at,
)

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def unit(**kw: object) -> MemoryUnit:
    base: dict[str, object] = dict(
        content="订单ABC123已发货", type=MemoryType.TOOL_RESULT,
        lifespan=Lifespan(created_at=T0, expires_in=86400), session_id="s", user_id="u",
    )
    base.update(kw)
    return MemoryUnit(**base)  # type: ignore[arg-type]


def test_content_limit_is_enforced_not_truncated() -> None:
    assert len(unit(content="字" * 150).content) == 150
    with pytest.raises(PydanticValidationError, match="at most 150"):
        unit(content="字" * 151)
    with pytest.raises(PydanticValidationError):
        unit(content="   ")


def test_unknown_type_is_rejected() -> None:
    with pytest.raises(PydanticValidationError):
        unit(type="gossip")


def test_relevance_bounds_are_enforced() -> None:
    with pytest.raises(PydanticValidationError):
        Lifespan(created_at=T0, expires_in=10, relevance_score=2.5)
    with pytest.raises(PydanticValidationError):
        Lifespan(created_at=T0, expires_in=0)


def test_naive_created_at_means_utc() -> None:
    naive = datetime(2026, 5, 1, 9, 0)
    assert Lifespan(created_at=naive, expires_in=1).created_at == T0
    shanghai = timezone(timedelta(hours=8))
    assert ensure_utc(datetime(2026, 5, 1, 17, 0, tzinfo=shanghai)) == T0
    assert parse_time("2026-05-01T17:00:00+08:00") == T0
    assert parse_time("2026-05-01T09:00:00Z") == T0
    with pytest.raises(ValidationError):
        parse_time("yesterday")


@pytest.mark.parametrize(
    ("score", "unit_type", "event", "expected"),
    [
        (1.0, MemoryType.SESSION_STATE, "used", 1.1),
        (1.95, MemoryType.SESSION_STATE, "used", MAX_RELEVANCE),
        (1.0, MemoryType.SESSION_STATE, "ignored", 0.7),
        (1.0, MemoryType.TOOL_RESULT, "wrong", 0.7),
        (0.2, MemoryType.TOOL_RESULT, "wrong", MIN_RELEVANCE),
        (1.0, MemoryType.USER_PROFILE, "ignored", 1.0),  # an unused profile fact is not wrong
        (1.0, MemoryType.USER_PROFILE, "wrong", 0.7),
        (1.0, MemoryType.USER_PROFILE, "confirmed", 1.1),
        (2.0, MemoryType.USER_PROFILE, "confirmed", 2.0),
    ],
)
def test_feedback_rules(score: float, unit_type: MemoryType, event: str, expected: float) -> None:
    assert apply_feedback(score, unit_type, event) == pytest.approx(expected)


def test_confirmation_never_lowers_any_type() -> None:
    for t in MemoryType:
        for s in (0.1, 0.5, 1.0, 1.99, 2.0):
            assert apply_feedback(s, t, "confirmed") >= s


def test_unknown_feedback_event() -> None:
    with pytest.raises(ValidationError):
        apply_feedback(1.0, MemoryType.TOOL_RESULT, "loved")


def test_validity_window() -> None:
    u = unit(valid_until=T0 + timedelta(hours=2))
    assert not is_valid_at(u, T0 - timedelta(seconds=1))  # not known yet
    assert is_valid_at(u, T0)
    assert not is_valid_at(u, T0 + timedelta(hours=2))  # valid_until is exclusive
    assert not unit().is_valid_at(T0 + timedelta(days=1))  # expired
    gone = unit(invalidated_at=T0 + timedelta(minutes=5))
    assert gone.is_valid_at(T0 + timedelta(minutes=4))
    assert not gone.is_valid_at(T0 + timedelta(minutes=5))
    future = unit(valid_at=T0 + timedelta(hours=1))
    assert not future.is_valid_at(T0)


def test_content_hash_is_per_user_and_ignores_case_and_punctuation() -> None:
    assert content_hash("u", "Order ABC123 shipped.") == content_hash("u", "order abc123 shipped")
    assert content_hash("u", "x1") != content_hash("v", "x1")
    assert unit().content_hash == content_hash("u", "订单ABC123已发货")
