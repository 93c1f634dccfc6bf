"""Turns checked before the write path sees them: one rule for ``ingest`` and ``ingest_many``.

A batch is checked whole before anything is stored ("nothing stored when any item is bad":
the user fixes the file and runs it again), so the checks are a pure function of the items and
return every problem, not the first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .errors import BatchValidationError, ValidationError
from .validation import (
    check_identifier,
    check_role,
    check_text,
    check_time,
    check_user_id,
    require_session_id,
)

#: The keys a turn item may have (``Memory.ingest_many``); anything else is a typo to report.
TURN_FIELDS = frozenset({"text", "session_id", "user_id", "role", "at", "turn_id", "speaker"})


@dataclass(frozen=True)
class TurnItem:
    """One valid turn: ids checked, text cleaned, ``at`` resolved (the clock when not given)."""

    text: str
    session_id: str
    user_id: str
    role: str
    at: datetime
    turn_id: str | None
    speaker: str | None

    @property
    def identity(self) -> tuple[str, str, str] | None:
        """(user, session, turn_id): what makes a turn a repeat; None: never a repeat."""
        return None if self.turn_id is None else (self.user_id, self.session_id, self.turn_id)


def check_turn(
    text: Any, *, session_id: Any, user_id: Any, role: Any, at: Any, turn_id: Any,
    speaker: Any, max_bytes: int, now: Callable[[], datetime],
) -> TurnItem:
    """One turn's fields, checked in the order a caller fixes them (session first)."""
    sid = require_session_id(session_id)
    uid = check_user_id(user_id, sid)
    role_s = check_role(role)
    body = check_text(text, what="text", max_bytes=max_bytes)
    when = check_time(at, "at") or now()
    tid = check_identifier(turn_id, "turn_id") if turn_id is not None else None
    spk = check_identifier(speaker, "speaker") if speaker is not None else None
    return TurnItem(text=body, session_id=sid, user_id=uid, role=role_s, at=when, turn_id=tid,
                    speaker=spk)


def check_turn_item(item: Any, *, max_bytes: int, now: Callable[[], datetime]) -> TurnItem:
    """A mapping with the :data:`TURN_FIELDS` (``text`` and ``session_id`` required)."""
    if not isinstance(item, Mapping):
        raise ValidationError(f"a turn must be an object, got {type(item).__name__}")
    unknown = sorted(str(k) for k in item if k not in TURN_FIELDS)
    if unknown:
        raise ValidationError(f"unknown field(s) {', '.join(unknown)}; a turn has "
                              f"{', '.join(sorted(TURN_FIELDS))}")
    if "text" not in item:
        raise ValidationError("text is required")
    return check_turn(item["text"], session_id=item.get("session_id"),
                      user_id=item.get("user_id"), role=item.get("role", "user"),
                      at=item.get("at"), turn_id=item.get("turn_id"),
                      speaker=item.get("speaker"), max_bytes=max_bytes, now=now)


def check_turn_items(items: Any, *, max_bytes: int,
                     now: Callable[[], datetime]) -> list[TurnItem]:
    """Every item checked; :class:`BatchValidationError` naming each bad one (by index from 0)
    when any is bad, so a caller stores all or nothing."""
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise ValidationError("turns must be a list of turn objects")
    seq = list(items)
    good: list[TurnItem] = []
    problems: list[tuple[int, str]] = []
    for i, item in enumerate(seq):
        try:
            good.append(check_turn_item(item, max_bytes=max_bytes, now=now))
        except ValidationError as exc:
            problems.append((i, str(exc)))
    if problems:
        raise BatchValidationError(problems, len(seq))
    return good
