"""Helpers shared by the key-facts tests that talk to a real ``Memory`` (SQLite or PostgreSQL):
say a user's turns days apart, read a slot's current units, ask after a conversation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from jiyi import Hit, Memory
from jiyi.keyfacts.schema import base_name
from jiyi.store.base import Scope
from jiyi.units import MemoryUnit

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
#: After every turn the tests say: the slot's current units are read as of then.
LATER = T0 + timedelta(days=30)


def say(mem: Memory, turns: list[str], days: int = 5) -> None:
    """User ``u`` says each turn in a session of its own, ``days`` apart from :data:`T0`."""
    for i, text in enumerate(turns):
        mem.ingest(text, session_id=f"s{i}", user_id="u", at=T0 + timedelta(days=days * i),
                   role="user")


def slot_units(mem: Memory, slot: str) -> list[MemoryUnit]:
    """The slot's units current at :data:`LATER`."""
    return [u for u in mem.store.find_units(Scope("u", None), as_of=LATER)
            if u.slot and base_name(u.slot) == slot]


def ask_after(mem: Memory, turns: list[str], ask: str) -> list[Hit]:
    """Say ``turns`` three days apart, then ask ``ask`` in a new session 20 days after T0."""
    say(mem, turns, days=3)
    return mem.recall(ask, session_id="s9", user_id="u", k=5, as_of=T0 + timedelta(days=20))
