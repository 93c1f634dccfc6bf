"""``Store.stats`` adds up on every backend: at an instant, every unit is in
exactly one of valid, expired, superseded, forgotten; ``units_invalidated`` is superseded +
forgotten. Store level (exact cases) and through ``Memory`` / ``jiyi stats`` (real ingests)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from jiyi import Memory
from jiyi.cli.app import app
from jiyi.store.base import IngestBatch, Store, StoreStats, TurnRecord
from jiyi.units import Lifespan, MemoryType, MemoryUnit

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
HOUR = 3600


def unit(content: str, *, user: str = "u", ttl: int = 24 * HOUR, **kw: Any) -> MemoryUnit:
    return MemoryUnit(content=content, type=MemoryType.FACT_REFERENCE,
                      lifespan=Lifespan(created_at=T0, expires_in=ttl),
                      session_id="s", user_id=user, **kw)


def put(store: Store, u: MemoryUnit) -> None:
    t = TurnRecord(key="t_" + u.id, turn_id="t_" + u.id, session_id=u.session_id,
                   user_id=u.user_id, role="user", text=u.content, at=u.created_at)
    store.commit_ingest(IngestBatch(turn=t, upserts=[u], vectors={}, embedder="e"))


def states(st: StoreStats) -> tuple[int, int, int, int]:
    return st.units_valid, st.units_expired, st.units_superseded, st.units_forgotten


def adds_up(st: StoreStats) -> bool:
    return (sum(states(st)) == st.units_total
            and st.units_invalidated == st.units_superseded + st.units_forgotten)


def test_every_unit_is_in_exactly_one_state(any_store: Store) -> None:
    valid = unit("用户住在上海")
    expired = unit("購物車裡有三件商品", ttl=HOUR)
    ended = unit("promo code SPRING valid this week", valid_until=T0 + timedelta(hours=2))
    # forgotten after it had also expired: forgotten wins (it is not counted twice)
    forgotten_expired = unit("旧的收货地址", ttl=HOUR)
    forgotten = unit("my old nickname is Bo")
    old_phone = unit("手机号 13812345678")
    new_phone = unit("手机号 13912345678", supersedes=old_phone.id)
    pending = unit("下周一开会", valid_at=T0 + timedelta(days=7), ttl=30 * 24 * HOUR)
    other_user = unit("另一位用户的资料", user="v")
    for u in (valid, expired, ended, forgotten_expired, forgotten, old_phone, new_phone,
              pending, other_user):
        put(any_store, u)
    any_store.invalidate(forgotten_expired.id, T0 + timedelta(hours=5), "user asked")
    any_store.invalidate(forgotten.id, T0 + timedelta(hours=5), "user asked")
    any_store.invalidate(old_phone.id, T0 + timedelta(hours=5), "superseded",
                         superseded_by=new_phone.id)

    # before anything happened: all nine are valid (pending counts as valid, see stats_sql)
    before = any_store.stats(as_of=T0 + timedelta(minutes=1))
    assert before.units_total == 9 and states(before) == (9, 0, 0, 0) and adds_up(before)

    # at 3 h: three past their lifespan or valid_until, nothing invalidated yet
    mid = any_store.stats(as_of=T0 + timedelta(hours=3))
    assert states(mid) == (6, 3, 0, 0) and mid.units_invalidated == 0 and adds_up(mid)

    # at 6 h: the forget and the supersession have happened
    after = any_store.stats(as_of=T0 + timedelta(hours=6))
    assert states(after) == (4, 2, 1, 2) and after.units_invalidated == 3 and adds_up(after)

    # one user only
    mine = any_store.stats(user_id="u", as_of=T0 + timedelta(hours=6))
    assert mine.units_total == 8 and states(mine) == (3, 2, 1, 2) and adds_up(mine)
    theirs = any_store.stats(user_id="v", as_of=T0 + timedelta(hours=6))
    assert states(theirs) == (1, 0, 0, 0)

    # two days on: every 24-hour unit not invalidated has expired; the pending one (30 days)
    # is still valid
    late = any_store.stats(as_of=T0 + timedelta(days=2))
    assert states(late) == (1, 5, 1, 2) and adds_up(late)


def test_an_empty_store_adds_up(any_store: Store) -> None:
    st = any_store.stats()
    assert st.units_total == 0 and states(st) == (0, 0, 0, 0) and adds_up(st)


TURNS = [
    ("我的手机号是13812345678", 0),
    ("我住在台北市信義區，訂單編號 XYZ789 還沒到貨", 1),
    ("My name is Alice and my order number is QWE456", 2),
    ("我换号了，新号是13912345678", 3),
]


def test_memory_health_and_cli_stats_add_up(store_url: str, tmp_path: Path) -> None:
    with Memory.open(store_url, embedder="fake") as mem:
        for text, day in TURNS:
            mem.ingest(text, session_id="s1", user_id="u1", at=T0 + timedelta(days=day))
        units = mem.export_user("u1")["units"]
        target = next(u for u in units if "QWE456" in u["content"])
        mem.forget(target["id"], "user asked", at=T0 + timedelta(days=4))
        now = T0 + timedelta(days=5)
        st = mem.store.stats(as_of=now)
        assert adds_up(st) and st.units_total == len(units)
        assert st.units_superseded >= 1  # the old phone number
        assert st.units_forgotten == 1
        far = mem.store.stats(as_of=T0 + timedelta(days=400))  # past every 365-day lifespan
        assert adds_up(far) and far.units_valid == 0
        assert far.units_expired == far.units_total - far.units_invalidated > 0
        h = mem.health()
        assert (h.units_valid + h.units_expired + h.units_superseded + h.units_forgotten
                == h.units_total)
        assert h.units_invalidated == h.units_superseded + h.units_forgotten
    result = CliRunner().invoke(app, ["--db", store_url, "stats", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["units_valid"] + data["units_expired"] + data["units_superseded"]
            + data["units_forgotten"]) == data["units_total"] == len(units)
    table = CliRunner().invoke(app, ["--db", store_url, "stats"], env={"COLUMNS": "80"})
    assert table.exit_code == 0, table.output
    assert "units_forgotten" in table.output and "units_superseded" in table.output
