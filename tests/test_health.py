"""Memory health through the Python API, on real SQLite files."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from jiyi import Memory, MissingSessionError, ValidationError
from jiyi.config import JiyiConfig
from jiyi.health import Health, HealthConfig, find_forgetting_phrase
from jiyi.store.health_state import next_streak

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=timezone.utc)


class FakeClock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


TURNS = [
    ("我叫张伟，订单号是 ABC123，手机号 13812345678", "zh-Hans"),
    ("我住在台北市信義區，訂單編號 XYZ789 還沒到貨", "zh-Hant"),
    ("My name is Alice and my order number is QWE456", "en"),
]


def test_forgetting_phrases_in_three_languages() -> None:
    assert find_forgetting_phrase("抱歉，我不太记得您的订单号了") == "我不太记得"
    assert find_forgetting_phrase("不好意思，請再說一遍您的手機號碼") == "請再說一遍"
    assert find_forgetting_phrase("Sorry, I don\u2019t   RECALL your order.") == "i don't recall"
    assert find_forgetting_phrase("Could you repeat the order id?") == "could you repeat"
    assert find_forgetting_phrase("您的订单 ABC123 已发货") is None
    assert find_forgetting_phrase("I recall your order ABC123 shipped.") is None
    custom = {"fr": ("je ne me souviens pas",)}
    assert find_forgetting_phrase("Je ne me souviens pas.", custom) == "je ne me souviens pas"
    assert find_forgetting_phrase("我不太记得", custom) is None


def test_streak_transition_is_pure() -> None:
    assert next_streak(0, False, True, 3).streak == 1
    up = next_streak(2, False, True, 3)
    assert (up.streak, up.alerting, up.raised) == (3, True, True)
    again = next_streak(3, True, True, 3)
    assert (again.alerting, again.raised) == (True, False)
    reset = next_streak(5, True, False, 3)
    assert (reset.streak, reset.alerting, reset.raised) == (0, False, False)


def test_health_of_an_empty_store(mem: Memory) -> None:
    h = mem.health()
    assert isinstance(h, Health)
    assert h.freshness_ratio == 1.0 and h.freshness_healthy
    assert h.hit_rate is None and h.hit_rate_healthy is None
    assert not h.amnesia_alert and h.amnesia_sessions == []
    assert h.units_total == 0 and h.healthy
    assert h.thresholds.freshness == 0.85 and h.thresholds.hit_rate == 0.70


def test_counts_by_type_and_state_agree_with_the_store(mem: Memory) -> None:
    for i, (text, _) in enumerate(TURNS):
        mem.ingest(text, session_id=f"s{i}", user_id="u1")
        mem.ingest("好的，我来查一下", session_id=f"s{i}", user_id="u1", role="assistant")
    h = mem.health(user_id="u1")
    assert h.units_total > 0
    by_state = h.units_by_type_state
    assert sum(n for states in by_state.values() for n in states.values()) == h.units_total
    assert sum(states.get("valid", 0) for states in by_state.values()) == h.units_valid
    assert {t: sum(s.values()) for t, s in by_state.items()} == h.units_by_type
    assert h.user is not None and h.user.units_total == h.units_total
    assert h.store_size_bytes > 0 and h.turns == 6


def test_hit_rate_follows_feedback(mem: Memory) -> None:
    for text, _ in TURNS:
        mem.ingest(text, session_id="s1", user_id="u1")
    assert mem.health().hit_rate is None
    hits = mem.recall("订单号是多少？", session_id="s1", user_id="u1", k=2)
    assert hits
    mem.feedback(hits[0].unit.id, "used")
    assert mem.health().hit_rate == 1.0
    hits = mem.recall("What is my order number?", session_id="s1", user_id="u1", k=1)
    mem.feedback(hits[0].unit.id, "ignored")
    h = mem.health()
    assert (h.recalls_used, h.recalls_judged) == (1, 2)
    assert h.hit_rate == 0.5 and h.hit_rate_healthy is False and not h.healthy


@pytest.mark.parametrize("reply", [
    "抱歉，我不太记得您之前说的内容，请再说一遍。",
    "抱歉，我不太記得您之前說的內容，請再說一遍。",
    "Sorry, I don't recall what you said earlier. Could you repeat it?",
])
def test_three_forgetful_turns_raise_the_amnesia_alert(mem: Memory, reply: str) -> None:
    for turn in range(3):
        assert mem.recall("我的订单号是多少？", session_id="lost", user_id="u9") == []
        status = mem.observe_reply(reply, session_id="lost", user_id="u9")
        assert status.recall_empty and status.forgetful and status.phrase
        assert status.streak == turn + 1
        assert status.raised == (turn == 2)
    h = mem.health()
    assert h.amnesia_alert and h.amnesia_sessions == ["lost"] and h.amnesia_alerts_total == 1
    assert not h.healthy
    assert mem.health("lost").amnesia_alert
    assert not mem.health("another-session").amnesia_alert
    # a fourth forgetful turn keeps the alert but does not count a new one
    mem.observe_reply(reply, session_id="lost", user_id="u9", recall_empty=True)
    assert mem.health().amnesia_alerts_total == 1
    # a turn where memory works clears it
    ok = mem.observe_reply("您的订单已发货。", session_id="lost", user_id="u9", recall_empty=True)
    assert not ok.forgetful and not ok.alerting and ok.streak == 0
    assert not mem.health().amnesia_alert


def test_a_forgetting_phrase_after_a_successful_recall_is_not_amnesia(mem: Memory) -> None:
    mem.ingest(TURNS[0][0], session_id="s1", user_id="u1")
    for _ in range(4):
        assert mem.recall("订单号 ABC123", session_id="s1", user_id="u1")
        status = mem.observe_reply("我不太记得了", session_id="s1", user_id="u1")
        assert not status.recall_empty and not status.forgetful and status.streak == 0
    assert not mem.health().amnesia_alert


def test_empty_recall_without_the_phrase_is_not_amnesia(mem: Memory) -> None:
    for _ in range(4):
        mem.recall("天气怎么样", session_id="s2")
        assert not mem.observe_reply("今天晴，25 度。", session_id="s2").forgetful
    assert not mem.health().amnesia_alert


def test_alert_state_is_shared_by_processes_on_one_file(db_path: str) -> None:
    with Memory.open(db_path, embedder="fake") as a, Memory.open(db_path, embedder="fake") as b:
        a.observe_reply("I don't recall", session_id="s", recall_empty=True)
        b.observe_reply("I don't recall", session_id="s", recall_empty=True)
        assert not a.health().amnesia_alert
        assert a.observe_reply("我不记得了", session_id="s", recall_empty=True).raised
        assert b.health().amnesia_sessions == ["s"]
        # the recall state written by one is read by the other
        assert b.recall("nothing here", session_id="t") == []
        assert a.observe_reply("Could you repeat that?", session_id="t").recall_empty


def test_configurable_thresholds_and_phrases(mem: Memory) -> None:
    mem.health_config = HealthConfig(amnesia_turns=1,
                                     forgetting_phrases={"en": ("no idea",)})
    assert not mem.observe_reply("我不太记得", session_id="s", recall_empty=True).forgetful
    assert mem.observe_reply("No idea, sorry", session_id="s", recall_empty=True).raised


def test_low_freshness_is_measured_never_purged(tmp_path: Path) -> None:
    """Reading health is a pure read: a stale store is reported, not cleaned."""
    clock = FakeClock(T0)
    with Memory.open(str(tmp_path / "m.db"), embedder="fake", clock=clock) as mem:
        for i, (text, _) in enumerate(TURNS):
            mem.ingest(text, session_id=f"s{i}", user_id="u1", at=T0)
        n = mem.health().units_total
        assert n >= 3
        clock.now = T0 + timedelta(days=800)  # every unit expired more than 30 days ago
        for flag in (False, True, False):
            h = mem.health(cleanup=flag)
            assert h.freshness_ratio == 0.0 and not h.freshness_healthy
            assert h.units_total == n and h.cleanup is None
            assert h.cleanup_runs_total == 0 and h.cleanup_purged_units_total == 0
        assert mem.gc() == n  # only an explicit gc deletes (and auto_gc, tested below)
        assert mem.health().units_total == 0


def test_auto_gc_runs_at_most_once_per_interval(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    config = JiyiConfig(retention_days=10_000, auto_gc=True)  # nothing old enough to purge
    with Memory.open(str(tmp_path / "m.db"), embedder="fake", clock=clock,
                     config=config) as mem:
        mem.ingest(TURNS[2][0], session_id="s", at=T0)
        assert mem.health().cleanup_runs_total == 1  # the first ingest claims the first run
        clock.now = T0 + timedelta(minutes=30)
        mem.ingest(TURNS[0][0], session_id="s")
        assert mem.health().cleanup_runs_total == 1
        clock.now += timedelta(hours=2)
        mem.ingest(TURNS[1][0], session_id="s")
        h = mem.health()
        assert h.cleanup_runs_total == 2 and h.cleanup_purged_units_total == 0
        mem.health_config = HealthConfig(cleanup_interval_seconds=0)
        mem.ingest("Another turn", session_id="s")
        assert mem.health().cleanup_runs_total == 3


def test_bad_input_is_a_clear_error(mem: Memory) -> None:
    with pytest.raises(MissingSessionError):
        mem.observe_reply("I don't recall", session_id=None)
    with pytest.raises(ValidationError):
        mem.observe_reply(b"\xff\xfe", session_id="s")
    with pytest.raises(ValidationError):
        mem.observe_reply("I don't recall", session_id="s", recall_empty="yes")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        mem.health(session_id="   ")
    assert mem.health().amnesia_sessions_count == 0
