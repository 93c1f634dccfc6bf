"""``export_user`` is shaped once (:mod:`jiyi.store.sql.export`) from rows each backend fetches with
one query per table: SQLite and PostgreSQL give the same JSON for the same rows, the document
is what the per-unit reads say, and the number of queries does not grow with the units."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from jiyi import Memory
from jiyi.store import Store, open_store
from jiyi.store.base import Scope, TurnRecord, UnitEvent
from jiyi.store.sql.export import shape_export
from jiyi.store.transfer import copy_store

T0 = datetime(2026, 9, 1, 8, 0, tzinfo=UTC)
TEXTS = [
    "我的订单号是 MG20260901，电话 13812345678",  # Simplified
    "我的電話號碼改成 13998765432 了",  # Traditional
    "I live in Berlin and prefer green tea",
    "我喜欢喝乌龙茶，不加糖",
    "My email is amy@example.com",
    "我們下週三去台北開會",
]


def fill(mem: Memory, user: str, n: int) -> None:
    """``n`` user turns (each with an assistant reply at the SAME instant: a tie the export
    must order the same way on every backend), recalls with feedback, a forgotten unit."""
    for i in range(n):
        at = T0 + timedelta(minutes=i)
        text = f"{TEXTS[i % len(TEXTS)]} #{i}"
        mem.ingest(text, session_id=f"s{i % 2}", user_id=user, at=at)
        mem.ingest("好的，已記錄 / noted.", session_id=f"s{i % 2}", user_id=user,
                   role="assistant", at=at)
    hits = mem.recall("我的电话是多少", session_id="s0", user_id=user,
                      as_of=T0 + timedelta(hours=1))
    for hit in hits[:2]:
        mem.feedback(hit.unit.id, "used")
    mem.recall("where do I live", session_id="s1", user_id=user, as_of=T0 + timedelta(hours=1))
    if hits:
        mem.forget(hits[-1].unit.id, "changed", at=T0 + timedelta(hours=2))


def reference_export(store: Store, user: str) -> dict[str, Any]:
    """The export as the per-unit reads describe it (what the N+1 version computed)."""
    doc = store.export_user(user)
    units = store.find_units(Scope(user_id=user, session_id=None), as_of=None, limit=10**9)
    assert [u["id"] for u in doc["units"]] == [u.id for u in units]
    return {
        **doc,
        "provenance": {u.id: sorted(store.unit_turn_keys(u.id)) for u in units},
        "events": [
            {"unit_id": e.unit_id, "at": e.at.isoformat(), "event": e.event,
             "detail": e.detail, "score_after": e.score_after}
            for u in units for e in store.unit_events(u.id)
        ],
    }


def test_export_matches_the_per_unit_reads(any_mem: Memory) -> None:
    fill(any_mem, "amy", 6)
    fill(any_mem, "bob", 2)  # another user's rows never leak in
    doc = any_mem.store.export_user("amy")
    assert doc == reference_export(any_mem.store, "amy")
    assert doc["units"] and doc["turns"] and doc["events"] and doc["recalls"]
    assert all(u["user_id"] == "amy" for u in doc["units"])
    assert {t["session_id"] for t in doc["turns"]} == {"s0", "s1"}
    texts = " ".join(t["text"] for t in doc["turns"])
    assert "電話號碼" in texts and "订单号" in texts and "Berlin" in texts
    assert {"created", "used", "invalidated"} <= {e["event"] for e in doc["events"]}
    # each session's topic state, kept from the user's turns
    assert [t["session_id"] for t in doc["topics"]] == ["s0", "s1"]
    assert all(t["state"]["topics"] for t in doc["topics"])
    ids = {u["id"] for u in doc["units"]}
    assert set(doc["provenance"]) == ids and all(doc["provenance"].values())
    assert {e["unit_id"] for e in doc["events"]} <= ids
    # turns oldest first; at equal instants, in the order they were written
    at_pairs = [(t["at"], t["role"]) for t in doc["turns"]]
    assert at_pairs == sorted(at_pairs, key=lambda p: p[0])
    assert [r for _, r in at_pairs[:2]] == ["user", "assistant"]
    assert any_mem.store.export_user("nobody") == {
        "user_id": "nobody", "units": [], "turns": [], "provenance": {}, "events": [],
        "recalls": [], "topics": []}


@pytest.mark.postgres
def test_sqlite_and_postgresql_export_the_same_json(tmp_path: Path, pg_url: str) -> None:
    path = str(tmp_path / "src.db")
    with Memory.open(path, embedder="fake") as mem:
        fill(mem, "amy", 6)
        fill(mem, "bob", 2)
    source, target = open_store(path), open_store(pg_url)
    try:
        assert all(r.ok for r in copy_store(source, target))
        for user in ("amy", "bob", "nobody"):
            a = json.dumps(source.export_user(user), ensure_ascii=False, indent=2)
            b = json.dumps(target.export_user(user), ensure_ascii=False, indent=2)
            assert a == b
        assert json.loads(a)["user_id"] == "nobody"
        assert len(json.loads(json.dumps(source.export_user("amy")))["turns"]) == 12
    finally:
        source.close()
        target.close()


# ---------------------------------------------------------------- statements per export
@contextmanager
def statements(store: Store) -> Iterator[Callable[[], int]]:
    """Count the SQL statements the store runs inside the block (SQLite's trace callback; on
    PostgreSQL every ``Cursor.execute`` of psycopg, which ``Connection.execute`` goes through)."""
    seen: list[str] = []
    if store.backend == "sqlite":
        conn = store.connection  # type: ignore[attr-defined]
        conn.set_trace_callback(seen.append)
        try:
            yield lambda: len(seen)
        finally:
            conn.set_trace_callback(None)
        return
    import psycopg

    original = psycopg.Cursor.execute

    def counting(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(str(query))
        return original(self, query, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(psycopg.Cursor, "execute", counting)
        yield lambda: len(seen)


def test_export_queries_do_not_grow_with_the_units(any_mem: Memory) -> None:
    fill(any_mem, "few", 1)
    fill(any_mem, "many", 12)
    counts: dict[str, int] = {}
    sizes: dict[str, int] = {}
    for user in ("few", "many"):
        with statements(any_mem.store) as count:
            doc = any_mem.store.export_user(user)
            counts[user] = count()
        sizes[user] = len(doc["units"])
    assert sizes["many"] >= sizes["few"] + 10
    assert counts["few"] == counts["many"]
    # units, turns, provenance, events, recall log (+ the snapshot's own statements)
    assert 5 <= counts["many"] <= 8


def test_shape_export_is_pure_and_ignores_rows_of_other_units() -> None:
    at = T0
    doc = shape_export("u", [], [TurnRecord("k1", "t1", "s", "u", "user", "你好 hello", at)],
                       [("stray", "k1")], [UnitEvent("stray", at, "created")],
                       [("r1", 1_000_000, "s", "stray", "rule", 0, 1)])
    assert doc["provenance"] == {} and doc["events"] == []
    assert doc["turns"][0]["text"] == "你好 hello" and doc["turns"][0]["speaker"] is None
    assert doc["recalls"][0]["used"] is True
    assert doc["recalls"][0]["at"] == "1970-01-01T00:00:01+00:00"
