"""``jiyi.bulk.import_units``: prepared turns, units and vectors load through the store Protocol
(on both backends) and are then found by ``Memory.recall`` like ingested ones; a bad item writes
nothing of itself."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jiyi import Memory, MemoryType, MemoryUnit, ValidationError
from jiyi.bulk import ImportItem, import_units
from jiyi.store import TurnRecord
from jiyi.units import Lifespan, content_hash

TEXTS = {
    "zh-Hans": "我的会员等级是黄金会员",
    "zh-Hant": "我的會員等級是白金會員",
    "en": "My favourite tea is oolong from Taiwan",
}


def _item(mem: Memory, n: int, text: str, *, session: str = "s1",
          unit_session: str | None = None) -> ImportItem:
    at = datetime(2026, 5, 1, tzinfo=UTC) + timedelta(minutes=n)
    turn = TurnRecord(key=f"k{n}", turn_id=f"t{n}", session_id=session, user_id="u1",
                      role="user", text=text, at=at)
    unit = MemoryUnit(id=f"m{n}", content=text, type=MemoryType.FACT_REFERENCE,
                      lifespan=Lifespan(created_at=at, expires_in=10**8),
                      session_id=unit_session or session, user_id="u1",
                      source_turn_ids=[turn.turn_id], content_hash=content_hash("u1", text))
    vec = mem.embedder.embed_passages([text])[0]
    return ImportItem(turn=turn, units=[unit], vectors={unit.id: vec}, turn_vector=vec)


def test_imported_units_are_recalled(any_mem: Memory) -> None:
    items = [_item(any_mem, n, text) for n, text in enumerate(TEXTS.values())]
    assert import_units(any_mem.store, items, embedder=any_mem.embedder.name) == 3
    as_of = datetime(2026, 6, 1, tzinfo=UTC)
    for n, (query, text) in enumerate([("会员等级", TEXTS["zh-Hans"]),
                                       ("會員等級 白金", TEXTS["zh-Hant"]),
                                       ("favourite tea", TEXTS["en"])]):
        hits = any_mem.recall(query, session_id="s1", user_id="u1", k=3, as_of=as_of)
        assert text in [h.unit.content for h in hits], (query, [h.unit.content for h in hits])
        assert any_mem.store.unit_turn_keys(f"m{n}") == [f"k{n}"]
        assert [e.event for e in any_mem.store.unit_events(f"m{n}")] == ["created"]


def test_a_unit_outside_its_turn_is_refused(any_mem: Memory) -> None:
    good = _item(any_mem, 0, TEXTS["en"])
    bad = _item(any_mem, 1, TEXTS["zh-Hans"], unit_session="other")
    with pytest.raises(ValidationError, match="m1"):
        import_units(any_mem.store, [good, bad], embedder=any_mem.embedder.name)
    assert [u.id for u in any_mem.store.get_units(["m0", "m1"])] == ["m0"]
    assert any_mem.store.get_turns(["k1"]) == []
