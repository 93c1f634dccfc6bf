"""Nothing is deleted by reading, on SQLite and PostgreSQL.

A conversation imported with its real timestamps (14 months old: every unit past its lifespan and
the retention) survives ``mem.health()``, ``/health`` in ``jiyi chat``, ``GET /memory/health`` and
``GET /metrics`` on a real server, and the MCP ``memory_health`` tool; ``export_user`` still holds
every unit. Only the opt-in ``JiyiConfig.auto_gc`` purges, from the write path, counted.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from prometheus_client.parser import text_string_to_metric_families

from jiyi import Memory
from jiyi.cli.chat_cmds import _health_text
from jiyi.config import JiyiConfig
from jiyi.mcp_server import create_mcp_server
from jiyi.metrics import JiyiMetrics
from jiyi.service.app import create_app
from live_server import ThreadServer

#: Three languages, one session, dated 14 months ago (past the 365-day lifespans + 30-day retention).
OLD_TURNS = [
    "我叫张伟，订单号是 ABC123，手机号 13812345678",
    "我住在台北市信義區，訂單編號 XYZ789 還沒到貨",
    "My name is Alice and my order number is QWE456",
]


def ingest_old(mem: Memory, user: str = "u1") -> set[str]:
    old = datetime.now(UTC) - timedelta(days=426)
    for i, text in enumerate(OLD_TURNS):
        mem.ingest(text, session_id="s-old", user_id=user, at=old + timedelta(minutes=i))
    return unit_ids(mem, user)


def unit_ids(mem: Memory, user: str = "u1") -> set[str]:
    return {u["id"] for u in mem.export_user(user)["units"]}


def metric(text: str, name: str) -> float:
    for fam in text_string_to_metric_families(text):
        for sample in fam.samples:
            if sample.name == name:
                return float(sample.value)
    raise AssertionError(f"{name} not exported")


def test_reading_health_and_metrics_deletes_nothing(store_url: str) -> None:
    with Memory.open(store_url, embedder="fake") as mem:
        before = ingest_old(mem)
        assert len(before) >= 3
        for _ in range(2):
            h = mem.health()
            # the freshness ratio and its alert still measure: everything is stale
            assert h.freshness_ratio == 0.0 and not h.freshness_healthy and not h.healthy
            assert h.units_total == len(before) and h.units_valid == 0
            assert h.units_expired + h.units_invalidated == h.units_total
            assert h.cleanup is None and h.cleanup_runs_total == 0
        mem.health(cleanup=True)  # the old flag is accepted and deletes nothing
        assert "0/" in _health_text(mem, "s-old", "u1")  # /health in jiyi chat
        metrics = JiyiMetrics(health=mem.health)
        assert metric(metrics.render()[0].decode(), "jiyi_memory_freshness_ratio") == 0.0
        assert unit_ids(mem) == before

    app = create_app(lambda: Memory.open(store_url, embedder="fake"))
    with ThreadServer(app) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        for _ in range(2):
            r = c.get("/memory/health")
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["units_total"] == len(before) and body["freshness_ratio"] == 0.0
            assert body["freshness_healthy"] is False and body["cleanup"] is None
            text = c.get("/metrics").text
            assert metric(text, "jiyi_memory_freshness_ratio") == 0.0
            assert metric(text, "jiyi_cleanup_runs_total") == 0.0
            assert metric(text, "jiyi_cleanup_purged_units_total") == 0.0

    with Memory.open(store_url, embedder="fake") as mem:
        async def call_mcp() -> list[dict[str, Any]]:
            async with Client(create_mcp_server(mem)) as client:
                out = []
                for args in ({}, {"session_id": "s-old", "user_id": "u1"}):
                    result = await client.call_tool("memory_health", args)
                    assert not result.is_error, result.content
                    assert result.structured_content is not None
                    out.append(result.structured_content)
                return out

        answers = anyio.run(call_mcp)
        assert all(a["units_total"] == len(before) for a in answers)
        assert answers[1]["user"]["freshness_ratio"] == 0.0
        assert unit_ids(mem) == before  # every unit is still there
        assert mem.health().cleanup_runs_total == 0


def test_auto_gc_purges_on_ingest_and_counts(store_url: str,
                                             caplog: pytest.LogCaptureFixture) -> None:
    with Memory.open(store_url, embedder="fake") as mem:  # auto_gc off: the default
        old = ingest_old(mem)
        mem.ingest("今天下单了，订单号 NEW999", session_id="s-new", user_id="u1")
        assert old <= unit_ids(mem)  # an ingest without auto_gc purges nothing either
    with Memory.open(store_url, embedder="fake", config=JiyiConfig(auto_gc=True)) as mem:
        assert mem.health().cleanup_runs_total == 0
        with caplog.at_level(logging.INFO, logger="jiyi.health"):
            new = mem.ingest("我的邮箱是 zw@example.com", session_id="s-new", user_id="u1")
        left = unit_ids(mem)
        assert not (old & left)  # the 14-month-old units are past the 30-day retention
        assert {u.id for u in new} <= left and len(left) >= 2
        assert any("auto_gc purged" in r.getMessage() for r in caplog.records)
        h = mem.health()
        assert h.cleanup_runs_total == 1 and h.cleanup_purged_units_total == len(old)
        text = JiyiMetrics(health=mem.health).render()[0].decode()
        assert metric(text, "jiyi_cleanup_runs_total") == 1.0
        assert metric(text, "jiyi_cleanup_purged_units_total") == float(len(old))
        ingest_old(mem, user="u2")
        mem.ingest("再来一条", session_id="s-new", user_id="u1")
        # at most once per interval: the second batch of old units stays until the next run
        assert len(unit_ids(mem, "u2")) >= 3 and mem.health().cleanup_runs_total == 1


def test_auto_gc_keeps_what_the_retention_keeps(store_url: str) -> None:
    config = JiyiConfig(auto_gc=True, retention_days=1000)
    with Memory.open(store_url, embedder="fake", config=config) as mem:
        old = ingest_old(mem)
        assert old == unit_ids(mem)
        h = mem.health()
        assert h.cleanup_runs_total == 1 and h.cleanup_purged_units_total == 0
