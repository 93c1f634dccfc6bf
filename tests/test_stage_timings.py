"""Each recall's own stage timings (``RecallTrace.seconds``): the funnel's stage timers add into
the trace of the recall they time, with or without a metrics observer."""

from __future__ import annotations

from jiyi import Memory, RecallTrace
from jiyi.timing import recall_stage, recording


def test_recording_adds_each_stage_up_in_first_timed_order() -> None:
    seconds: dict[str, float] = {}
    with recording(seconds):
        for stage in ("rule", "keyword", "rule"):
            with recall_stage(stage):
                pass
    assert list(seconds) == ["rule", "keyword"]
    assert all(s >= 0.0 for s in seconds.values())
    with recall_stage("outside"):
        pass
    assert "outside" not in seconds
    with recording(None), recall_stage("untraced"):
        pass
    assert "untraced" not in seconds


def test_a_traced_recall_holds_its_stage_times(mem: Memory) -> None:
    mem.ingest("我的手机号是13812345678", session_id="s1", user_id="u")
    trace = RecallTrace()
    mem.recall("我的手机号是多少", session_id="s1", user_id="u", log=False, trace=trace)
    assert next(iter(trace.seconds)) == "rule"
    assert {"rule", "query", "keyword", "rerank"} <= set(trace.seconds)
    assert all(s >= 0.0 for s in trace.seconds.values())
    assert [(e.kind, e.value) for e in trace.entities] == []  # a slot question, no entity
    again = RecallTrace()
    mem.recall("13812345678 是谁", session_id="s1", user_id="u", log=False, trace=again)
    assert [(e.kind, e.value) for e in again.entities] == [("phone", "13812345678")]
