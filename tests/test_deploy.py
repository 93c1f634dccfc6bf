"""deploy/: Prometheus config and alert rules (promtool), the Grafana dashboard, checked against
the metric names a real ``jiyi serve`` exports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from jiyi.service.spawn import running_server

ROOT = Path(__file__).resolve().parents[1]
PROM = ROOT / "deploy" / "prometheus"
DASHBOARD = ROOT / "deploy" / "grafana" / "jiyi-dashboard.json"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None,
    reason="promtool not installed (Debian package 'prometheus'; .ci/run installs it)")

NAME = re.compile(r"\bjiyi_[a-z0-9_]+")
BY = re.compile(r"\bby\s*\(([^)]*)\)")
MATCHER = re.compile(r"\{([^}]*)\}")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, set[str]]]:
    """Sample name -> label names, scraped from a real server after some traffic."""
    db = tmp_path_factory.mktemp("deploy") / "m.db"
    with running_server(str(db), env={"JIYI_EMBEDDER": "fake"}) as srv, \
            httpx.Client(base_url=srv.url, timeout=30) as c:
        c.post("/v1/turns", json={"session_id": "s", "text": "我叫张伟，订单号是 ABC123"}
               ).raise_for_status()
        c.post("/v1/turns", json={"session_id": "s", "text": "My order number is QWE456"}
               ).raise_for_status()
        hits = c.get("/v1/recall", params={"q": "订单号", "session_id": "s"}).json()["hits"]
        c.post("/v1/feedback", json={"unit_id": hits[0]["unit"]["id"], "event": "used"}
               ).raise_for_status()
        c.get("/v1/recall", params={"q": "天气", "session_id": "empty"}).raise_for_status()
        text = c.get("/metrics").text
    names: dict[str, set[str]] = {}
    for fam in text_string_to_metric_families(text):
        names.setdefault(fam.name, set())
        for s in fam.samples:
            names.setdefault(s.name, set()).update(s.labels)
    (tmp_path_factory.getbasetemp() / "metrics.txt").write_text(text)
    yield names


def dashboard_exprs() -> list[str]:
    data = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return [t["expr"] for p in data["panels"] for t in p["targets"]]


def rule_exprs() -> list[str]:
    text = (PROM / "jiyi-alerts.yml").read_text(encoding="utf-8")
    return [m.group(1).strip() for m in re.finditer(r"^\s*expr:\s*(.+)$", text, re.M)]


def test_dashboard_structure() -> None:
    data = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    assert data["title"] and data["uid"] == "jiyi-memory-health"
    assert data["refresh"] == "30s"
    ids = [p["id"] for p in data["panels"]]
    assert len(ids) == len(set(ids)) >= 6
    titles = " | ".join(p["title"].lower() for p in data["panels"])
    for needed in ("freshness", "hit rate", "amnesia", "p50", "p95", "units by type"):
        assert needed in titles
    for p in data["panels"]:
        assert p["type"] in {"timeseries", "stat", "gauge", "table"}
        assert {"x", "y", "w", "h"} <= set(p["gridPos"]) and p["gridPos"]["w"] <= 24
        assert p["targets"], p["title"]
        refs = [t["refId"] for t in p["targets"]]
        assert len(refs) == len(set(refs))
        for t in p["targets"]:
            assert t["expr"].strip() and t["datasource"]["type"] == "prometheus"
    p95 = [e for e in dashboard_exprs() if "histogram_quantile(0.95" in e and "recall" in e]
    assert p95 and all("stage" in e for e in p95)


@pytest.mark.parametrize("source", ["dashboard", "alerts"])
def test_every_query_uses_exported_metrics_and_labels(
    source: str, exported: dict[str, set[str]]
) -> None:
    exprs = dashboard_exprs() if source == "dashboard" else rule_exprs()
    assert exprs
    for expr in exprs:
        used = NAME.findall(expr)
        if source == "dashboard":
            assert used, expr
        for name in used:
            assert name in exported, f"{name} (in {expr!r}) is not exported"
        labels = {lab.strip() for m in BY.finditer(expr) for lab in m.group(1).split(",")}
        labels |= {kv.split("=")[0].strip() for m in MATCHER.finditer(expr)
                   for kv in m.group(1).split(",") if "=" in kv}
        labels -= {"", "job", "instance"}
        have = set().union(*(exported[n] for n in used)) if used else set()
        assert labels <= have, f"{expr!r} uses labels {labels - have} the metrics do not have"


@needs_promtool
def test_promtool_checks_rules_config_and_rule_tests() -> None:
    assert PROMTOOL is not None
    for args in (["check", "rules", "jiyi-alerts.yml"], ["check", "config", "prometheus.yml"],
                 ["test", "rules", "jiyi-alerts.test.yml"]):
        done = subprocess.run([PROMTOOL, *args], cwd=PROM, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
    assert "scrape_interval: 30s" in (PROM / "prometheus.yml").read_text()


@needs_promtool
def test_dashboard_queries_are_valid_promql(tmp_path: Path) -> None:
    assert PROMTOOL is not None
    rules = {"groups": [{"name": "dashboard", "rules": [
        {"record": f"jiyi_dashboard:q{i}", "expr": e} for i, e in enumerate(dashboard_exprs())]}]}
    path = tmp_path / "dashboard-rules.yml"
    path.write_text(json.dumps(rules))  # JSON is YAML
    done = subprocess.run([PROMTOOL, "check", "rules", str(path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


@needs_promtool
def test_promtool_accepts_the_real_exposition(
    exported: dict[str, set[str]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    assert PROMTOOL is not None
    text = (tmp_path_factory.getbasetemp() / "metrics.txt").read_text()
    done = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
