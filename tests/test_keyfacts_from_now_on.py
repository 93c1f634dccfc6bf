""""From now on" in other Englishes and registers (issue #24): "from now onwards" (Indian and
Nigerian English), "henceforth", "moving forward", "from here on" say that the value after them
is the current one, as "from now on" and "going forward" do. English-only words (the Chinese
words 以后/今后 were there already); the Memory tests run on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from jiyi import Memory
from keyfacts_memory import ask_after


@pytest.mark.parametrize(("turns", "ask", "new", "old"), [
    (["Please deliver on weekday mornings.", "From now onwards, Saturday evenings."],
     "what's my delivery time?", "Saturday evenings", "weekday mornings"),
    (["Kindly contact me on email.", "Henceforth, WhatsApp."],
     "how should you contact me?", "WhatsApp", "email"),
    (["Deliveries in the afternoon please.", "Moving forward, weekends."],
     "what's my delivery time?", "weekends", "afternoon"),
    (["Please deliver on weekday mornings.", "From here on, Sunday nights."],
     "what's my delivery time?", "Sunday nights", "weekday mornings"),
])
def test_from_now_on_said_another_way_makes_the_value_current(
        any_mem: Memory, turns: list[str], ask: str, new: str, old: str) -> None:
    hits = ask_after(any_mem, turns, ask)
    shown = [(h.unit.content, h.current, h.unit.slot) for h in hits]
    assert any(new in h.unit.content and h.current for h in hits), shown
    assert not any(old in h.unit.content and new not in h.unit.content and h.current
                   for h in hits), shown


@pytest.mark.parametrize("said", [
    "Henceforth my boss wants reports on Friday afternoons.",
    "Moving forward, my sister will visit on Sunday nights.",
])
def test_from_now_on_before_something_else_replaces_nothing(any_mem: Memory, said: str) -> None:
    hits = ask_after(any_mem, ["Please deliver on weekday mornings.", said],
                     "what's my delivery time?")
    shown = [(h.unit.content, h.current, h.unit.slot) for h in hits]
    assert any("weekday mornings" in h.unit.content and h.current for h in hits), shown
