"""Prometheus metrics (memory health, observability), every name prefixed ``jiyi_``; labels never carry user text,
session ids or user ids.

Two kinds:

* **timings and event counters** measured in the process (``jiyi_recall_seconds``,
  ``jiyi_ingest_seconds``, ``jiyi_recall_empty_total``, ``jiyi_http_*``). With several worker
  processes they use prometheus-client's *multiprocess mode*: ``jiyi serve --workers N`` sets
  ``PROMETHEUS_MULTIPROC_DIR`` before the workers start and every scrape sums all workers' files.
* **memory state** computed from the store at scrape time (``jiyi_memory_*``, ``jiyi_amnesia_*``,
  ``jiyi_cleanup_*``): every worker reads the same database, so any worker answers the same.
  A scrape is a pure read (``Memory.health()``): it never purges anything, however stale.

Each :class:`JiyiMetrics` owns its own ``CollectorRegistry`` (never the global default).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.multiprocess import MultiProcessCollector

from . import Health

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

#: Every metric name the service exports (families; histograms add _bucket/_sum/_count and
#: counters _total). The README and the Grafana/alert tests use this list.
EXPORTED: dict[str, str] = {
    "jiyi_recall_seconds": "histogram",
    "jiyi_ingest_seconds": "histogram",
    "jiyi_recall_empty": "counter",
    "jiyi_recall_hits": "counter",
    "jiyi_ingest_units": "counter",
    "jiyi_http_requests": "counter",
    "jiyi_http_request_seconds": "histogram",
    "jiyi_memory_units": "gauge",
    "jiyi_memory_freshness_ratio": "gauge",
    "jiyi_memory_hit_rate": "gauge",
    "jiyi_memory_recalls_judged": "gauge",
    "jiyi_memory_store_bytes": "gauge",
    "jiyi_memory_healthy": "gauge",
    "jiyi_amnesia_sessions": "gauge",
    "jiyi_amnesia_alerts": "counter",
    "jiyi_cleanup_runs": "counter",
    "jiyi_cleanup_purged_units": "counter",
}


def multiprocess_dir() -> str | None:
    """The prometheus-client multiprocess directory, when this process runs in that mode."""
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


class HealthCollector:
    """Memory-state metrics computed at scrape time from ``Memory.health()``."""

    def __init__(self, health: Callable[[], Health]) -> None:
        self._health = health

    def collect(self) -> Iterable[Metric]:
        h = self._health()
        units = GaugeMetricFamily("jiyi_memory_units", "Memory units by type and state",
                                  labels=["type", "state"])
        for unit_type, states in sorted(h.units_by_type_state.items()):
            for state, n in sorted(states.items()):
                units.add_metric([unit_type, state], n)
        yield units
        yield GaugeMetricFamily("jiyi_memory_freshness_ratio",
                                "Units valid now / all units (healthy >= 0.85)",
                                value=h.freshness_ratio)
        hit = GaugeMetricFamily("jiyi_memory_hit_rate",
                                "Recalled units marked used / judged, sliding window "
                                "(healthy >= 0.70); absent before any feedback")
        if h.hit_rate is not None:
            hit.add_metric([], h.hit_rate)
        yield hit
        yield GaugeMetricFamily("jiyi_memory_recalls_judged",
                                "Recalled units judged by feedback in the hit-rate window",
                                value=h.recalls_judged)
        yield GaugeMetricFamily("jiyi_memory_store_bytes", "Size of the store on disk",
                                value=h.store_size_bytes)
        yield GaugeMetricFamily("jiyi_memory_healthy", "1 when every health check passes",
                                value=1 if h.healthy else 0)
        yield GaugeMetricFamily("jiyi_amnesia_sessions", "Sessions currently in amnesia alert",
                                value=h.amnesia_sessions_count)
        yield CounterMetricFamily("jiyi_amnesia_alerts", "Amnesia alerts raised",
                                  value=h.amnesia_alerts_total)
        yield CounterMetricFamily("jiyi_cleanup_runs",
                                  "Retention cleanups run after ingest (JiyiConfig.auto_gc)",
                                  value=h.cleanup_runs_total)
        yield CounterMetricFamily("jiyi_cleanup_purged_units", "Units purged by those cleanups",
                                  value=h.cleanup_purged_units_total)


class JiyiMetrics:
    """The metrics of one process. Implements :class:`jiyi.timing.MemoryObserver`."""

    def __init__(self, health: Callable[[], Health] | None = None) -> None:
        disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series
        self.registry = CollectorRegistry()
        self.multiprocess_dir = multiprocess_dir()
        reg = None if self.multiprocess_dir else self.registry
        self.recall_seconds = Histogram(
            "jiyi_recall_seconds", "Recall latency by stage (total = the whole call)",
            ["stage"], buckets=LATENCY_BUCKETS, registry=reg)
        self.ingest_seconds = Histogram(
            "jiyi_ingest_seconds", "Ingest latency of one turn", buckets=LATENCY_BUCKETS,
            registry=reg)
        self.recall_empty = Counter(
            "jiyi_recall_empty", "Recalls that found nothing", registry=reg)
        self.recall_hits = Counter(
            "jiyi_recall_hits", "Recalled units by the stage that found them", ["stage"],
            registry=reg)
        self.ingest_units = Counter(
            "jiyi_ingest_units", "Memory units written or updated by ingest", registry=reg)
        self.http_requests = Counter(
            "jiyi_http_requests", "HTTP requests by route template and status",
            ["method", "route", "status"], registry=reg)
        self.http_seconds = Histogram(
            "jiyi_http_request_seconds", "HTTP request latency by route template",
            ["method", "route"], buckets=LATENCY_BUCKETS, registry=reg)
        self._health = health
        if health is not None and reg is not None:
            self.registry.register(HealthCollector(health))

    # ---- MemoryObserver
    def observe_recall(self, seconds: float, hit_stages: Sequence[str]) -> None:
        self.recall_seconds.labels(stage="total").observe(seconds)
        if not hit_stages:
            self.recall_empty.inc()
        for stage in hit_stages:
            self.recall_hits.labels(stage=_safe_label(stage)).inc()

    def observe_stage(self, stage: str, seconds: float) -> None:
        self.recall_seconds.labels(stage=_safe_label(stage)).observe(seconds)

    def observe_ingest(self, seconds: float, units: int) -> None:
        self.ingest_seconds.observe(seconds)
        if units:
            self.ingest_units.inc(units)

    def observe_http(self, method: str, route: str, status: int, seconds: float) -> None:
        self.http_requests.labels(method=method, route=route, status=str(status)).inc()
        self.http_seconds.labels(method=method, route=route).observe(seconds)

    # ---- exposition
    def render(self) -> tuple[bytes, str]:
        """The Prometheus text exposition of this process (or of all workers) and its type."""
        if self.multiprocess_dir is None:
            return generate_latest(self.registry), CONTENT_TYPE_LATEST
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=self.multiprocess_dir)  # type: ignore[no-untyped-call]
        if self._health is not None:
            registry.register(HealthCollector(self._health))
        return generate_latest(registry), CONTENT_TYPE_LATEST


#: ``total`` is the whole call; the others are the recall's own stages, each timed on its own
#: (never nested, so they add up to at most the total): see :func:`jiyi.recall.funnel.run_recall`.
_STAGES = frozenset({"total", "rule", "query", "keyword", "embed", "vector", "turn_vector",
                     "topic", "prefetch", "read", "rerank", "multihop", "post",
                     # labels of earlier versions, kept so old dashboards keep their series
                     "semantic", "filter", "expand", "fusion", "recent"})


def _safe_label(stage: str) -> str:
    """Stage labels come from code, but never let an unexpected value grow cardinality."""
    return stage if stage in _STAGES else "other"
