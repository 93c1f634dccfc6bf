"""Prometheus metrics: names, labels, dedicated registries, values from a real store."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from jiyi import Memory
from jiyi.metrics import EXPORTED, JiyiMetrics


def families(text: bytes) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    out: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for fam in text_string_to_metric_families(text.decode()):
        for s in fam.samples:
            out.setdefault(s.name, {})[tuple(sorted(s.labels.items()))] = s.value
    return out


def test_registries_are_independent() -> None:
    a, b = JiyiMetrics(), JiyiMetrics()
    a.observe_recall(0.01, [])
    b.observe_recall(0.02, ["rule"])
    fa, fb = families(a.render()[0]), families(b.render()[0])
    assert fa["jiyi_recall_empty_total"][()] == 1.0
    assert fb["jiyi_recall_empty_total"][()] == 0.0
    assert fb["jiyi_recall_hits_total"][(("stage", "rule"),)] == 1.0


def test_unknown_stage_labels_are_folded() -> None:
    m = JiyiMetrics()
    m.observe_stage("user typed text 订单", 0.01)
    assert (("stage", "other"),) in families(m.render()[0])["jiyi_recall_seconds_count"]


def test_memory_metrics_from_a_real_store(mem: Memory) -> None:
    metrics = JiyiMetrics(health=mem.health)
    mem.metrics = metrics
    mem.ingest("我叫张伟，订单号是 ABC123", session_id="secret-session-42", user_id="user-7")
    mem.ingest("我住在台北市，訂單編號 XYZ789", session_id="secret-session-42", user_id="user-7")
    mem.ingest("My order number is QWE456", session_id="secret-session-42", user_id="user-7")
    hits = mem.recall("订单号", session_id="secret-session-42", user_id="user-7")
    mem.feedback(hits[0].unit.id, "used")
    for _ in range(3):
        assert mem.recall("天气", session_id="lost-session-9") == []
        mem.observe_reply("抱歉，我不太记得，请再说一遍", session_id="lost-session-9")
    body, content_type = metrics.render()
    assert content_type.startswith("text/plain")
    text = body.decode()
    for private in ("secret-session-42", "user-7", "lost-session-9", "订单", "ABC123"):
        assert private not in text
    f = families(body)
    assert f["jiyi_ingest_seconds_count"][()] == 3.0
    assert f["jiyi_recall_seconds_count"][(("stage", "total"),)] == 4.0
    assert f["jiyi_recall_empty_total"][()] == 3.0
    assert f["jiyi_memory_hit_rate"][()] == 1.0
    assert f["jiyi_memory_freshness_ratio"][()] == 1.0
    assert f["jiyi_amnesia_alerts_total"][()] == 1.0
    assert f["jiyi_amnesia_sessions"][()] == 1.0
    assert f["jiyi_memory_healthy"][()] == 0.0
    units = {dict(k)["type"]: v for k, v in f["jiyi_memory_units"].items()
             if dict(k)["state"] == "valid"}
    assert sum(units.values()) == mem.health().units_valid
    exported = {fam.name for fam in text_string_to_metric_families(text)}
    assert exported == set(EXPORTED), exported ^ set(EXPORTED)
    for name, kind in EXPORTED.items():
        assert name.startswith("jiyi_")
        assert kind in {"counter", "gauge", "histogram"}


def test_hit_rate_is_absent_before_feedback(mem: Memory) -> None:
    metrics = JiyiMetrics(health=mem.health)
    assert "jiyi_memory_hit_rate" not in families(metrics.render()[0])
    assert "# TYPE jiyi_memory_hit_rate gauge" in metrics.render()[0].decode()
