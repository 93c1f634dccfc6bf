"""The list-item checks of one ingested turn (an untyped negation adopted, a known item taken
back, the likes a negation contradicts) read the user's profile units once per turn, not once
per draft, and decide as before. End to end on SQLite and PostgreSQL; sentences written for
these tests, in zh-Hans, zh-Hant and English."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from jiyi import Memory
from jiyi.store.base import Scope
from jiyi.units import MemoryType, MemoryUnit
from jiyi.write.meaning import LIST_ITEMS_READ

T0 = datetime(2026, 8, 3, 9, 0, tzinfo=UTC)


def _count_profile_reads(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the store's reads of a user's whole profile list (the list-item checks' query)."""
    calls = [0]
    real = mem.store.find_units

    def counted(scope: Scope, **kw: Any) -> list[MemoryUnit]:
        types: Sequence[MemoryType] | None = kw.get("types")
        if scope.session_id is None and types is not None \
                and list(types) == [MemoryType.USER_PROFILE] \
                and kw.get("limit") == LIST_ITEMS_READ:
            calls[0] += 1
        return real(scope, **kw)

    monkeypatch.setattr(mem.store, "find_units", counted)
    return calls


@pytest.mark.parametrize(("likes", "turn", "item"), [
    ("我超爱吃麻辣烫，每周都要来一碗。",
     "我的新邮箱是lin.tao@example.com。麻辣烫就算了吧最近。周末我去爬山了。订单DD20260803到了没？",
     "麻辣烫"),
    ("我最喜歡吃鳳梨酥了，每次都買好多。",
     "我的新郵箱是chen.wei@example.com。鳳梨酥就算了吧最近。我下個月要去台中出差三天。訂單DD20260804到了沒？",
     "鳳梨酥"),
    ("I really love bagels, I get them every weekend.",
     "I'll pass on bagels from now on. My daughter just started school and loves her teacher. "
     "My husband works at a bank downtown. Has order DD20260805 shipped yet?",
     "bagels"),
])
def test_one_profile_read_per_turn(any_mem: Memory, monkeypatch: pytest.MonkeyPatch,
                                   likes: str, turn: str, item: str) -> None:
    any_mem.ingest(likes, session_id="s0", user_id="u", at=T0, role="user")
    liked = {u.id for u in any_mem.store.find_units(Scope("u", None), as_of=T0 + timedelta(hours=1))
             if u.slot and u.slot.startswith("food:") and item in u.content}
    assert liked  # the like is a list item
    calls = _count_profile_reads(any_mem, monkeypatch)
    written = any_mem.ingest(turn, session_id="s1", user_id="u", at=T0 + timedelta(days=2),
                             role="user")
    assert len(written) >= 3  # several drafts, each checked against the list
    assert calls[0] <= 1
    # the like is taken back all the same: it is no longer current
    current = any_mem.store.find_units(Scope("u", None), as_of=T0 + timedelta(days=3))
    assert not liked & {u.id for u in current}


def test_a_session_scoped_check_still_reads_its_own_scope(any_mem: Memory) -> None:
    """A session-scoped query is no whole-profile read: the shared read never answers it."""
    from jiyi.store.base import TurnRecord
    from jiyi.write.meaning import ProfileRead, profile_units

    turn = TurnRecord(key="k1", turn_id="t1", session_id="s1", user_id="u", role="user",
                      text="hi", at=T0)
    read = ProfileRead(any_mem.store, turn)
    assert read.covers(Scope("u", None), turn)
    assert not read.covers(Scope("u", "s1"), turn)
    assert profile_units(any_mem.store, Scope("u", "s1"), turn, read) == []
