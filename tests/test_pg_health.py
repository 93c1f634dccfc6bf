"""Memory health on both backends: the amnesia streak and auto_gc claims are shared by every
process using the store (on PostgreSQL through the m002_health tables, not per process)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from jiyi import Memory
from jiyi.config import JiyiConfig
from jiyi.health.state import LocalHealthState, health_state_for

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def test_health_state_is_persistent_not_local(any_mem: Memory) -> None:
    assert not isinstance(health_state_for(any_mem.store), LocalHealthState)


def test_amnesia_streak_shared_by_two_workers(store_url: str) -> None:
    with Memory.open(store_url, embedder="fake") as a, \
            Memory.open(store_url, embedder="fake") as b:
        a.observe_reply("I don't recall", session_id="s", user_id="u", recall_empty=True)
        b.observe_reply("抱歉，我不太記得您之前說的內容", session_id="s", user_id="u",
                        recall_empty=True)
        assert not a.health().amnesia_alert
        assert a.observe_reply("我不记得了", session_id="s", user_id="u",
                               recall_empty=True).raised
        assert b.health().amnesia_sessions == ["s"] and b.health().amnesia_alerts_total == 1
        assert b.recall("nothing here", session_id="t", user_id="u") == []
        assert a.observe_reply("Could you repeat that?", session_id="t",
                               user_id="u").recall_empty
        ok = b.observe_reply("您的订单已发货。", session_id="s", user_id="u", recall_empty=True)
        assert not ok.alerting and ok.streak == 0
        assert not a.health().amnesia_alert


def test_auto_gc_claimed_once_per_interval_across_workers(store_url: str) -> None:
    clock = Clock(T0)
    config = JiyiConfig(retention_days=10_000, auto_gc=True)
    with Memory.open(store_url, embedder="fake", clock=clock, config=config) as a, \
            Memory.open(store_url, embedder="fake", clock=clock, config=config) as b:
        a.ingest("My order number is QWE456", session_id="s", user_id="u", at=T0)
        assert b.health().cleanup_runs_total == 1  # a's ingest ran the retention policy
        b.ingest("我的订单号是 ABC123", session_id="s", user_id="u", at=T0)
        assert a.health().cleanup_runs_total == 1  # b saw a's claim and did not run again
        clock.now = T0 + timedelta(days=800)
        first = a.health()
        assert first.freshness_ratio == 0.0 and first.cleanup is None
        assert b.health().units_total == first.units_total  # reading purged nothing
        counts = health_state_for(b.store).unit_counts(clock.now)
        assert sum(sum(v.values()) for v in counts.values()) == first.units_total
        assert all(set(v) <= {"valid", "pending", "expired", "invalidated"}
                   for v in counts.values())
