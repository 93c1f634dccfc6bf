"""Helpers for the read-path tests: write units straight through the store, so the funnel is
tested independently of what the write path extracts."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from jiyi import Entity, Memory, MemoryType, MemoryUnit
from jiyi.store import IngestBatch, TurnRecord
from jiyi.units import Lifespan

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=timezone.utc)


def put(mem: Memory, content: str, *, user: str = "u1", session: str = "s1",
        type: MemoryType = MemoryType.FACT_REFERENCE, at: datetime = T0,
        entities: list[Entity] | None = None, slot: str | None = None,
        speaker: str | None = None, turn_text: str | None = None, expires_in: int = 10**8,
        valid_until: datetime | None = None, topic: str | None = None) -> MemoryUnit:
    key = "t_" + uuid.uuid4().hex
    turn = TurnRecord(key=key, turn_id=key, session_id=session, user_id=user, role="user",
                      text=turn_text or content, at=at, speaker=speaker)
    unit = MemoryUnit(content=content, type=type, lifespan=Lifespan(created_at=at,
                      expires_in=expires_in), session_id=session, user_id=user,
                      source_turn_ids=[key], entities=entities or [], slot=slot,
                      valid_until=valid_until, topic=topic)
    batch = IngestBatch(turn=turn, embedder=mem.embedder.name, upserts=[unit])
    batch.vectors[unit.id] = mem.embedder.embed_passages([content])[0]
    batch.turn_vector = mem.embedder.embed_passages([turn_text or content])[0]
    mem.store.commit_ingest(batch)
    return unit


def test_put_roundtrip(mem: Memory) -> None:
    unit = put(mem, "我的手机号是13912345678", entities=[Entity(kind="phone", text="13912345678",
                                                              value="13912345678")])
    assert mem.get(unit.id).entities[0].value == "13912345678"
    assert mem.store.source_turns([unit.id])[unit.id][0].text == "我的手机号是13912345678"
