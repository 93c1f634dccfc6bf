"""Typed memory-health objects: configuration, the health report, amnesia status, auto_gc report."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from .phrases import DEFAULT_FORGETTING_PHRASES


class HealthConfig(BaseModel):
    """Health thresholds and the amnesia detector. Frozen: change with ``model_copy(update=...)``."""

    model_config = ConfigDict(frozen=True)

    freshness_threshold: float = Field(default=0.85, ge=0.0, le=1.0)
    hit_rate_threshold: float = Field(default=0.70, ge=0.0, le=1.0)
    hit_rate_window_hours: float = Field(default=168.0, gt=0.0)
    amnesia_turns: int = Field(default=3, ge=1, le=1000)
    forgetting_phrases: dict[str, tuple[str, ...]] = Field(
        default_factory=lambda: dict(DEFAULT_FORGETTING_PHRASES))
    #: At most one ``JiyiConfig.auto_gc`` run per this many seconds, across all processes.
    #: (Health itself never purges: reading is never a reason to delete.)
    cleanup_interval_seconds: float = Field(default=3600.0, ge=0.0)
    max_listed_sessions: int = Field(default=100, ge=0)


class CleanupReport(BaseModel):
    """What one ``auto_gc`` run after an ingest did (see :mod:`jiyi.health.retention`)."""

    at: datetime
    purged_units: int
    retention_days: float


class UserHealth(BaseModel):
    user_id: str
    freshness_ratio: float
    freshness_healthy: bool
    units_total: int
    units_valid: int


class Thresholds(BaseModel):
    freshness: float
    hit_rate: float
    amnesia_turns: int


class Health(BaseModel):
    """``Memory.health()``: is the memory fresh, used and not forgetting? Also ``GET /memory/health``."""

    as_of: datetime
    healthy: bool = Field(description="freshness healthy, hit rate healthy or unknown, no amnesia")
    freshness_ratio: float = Field(description="units valid now / all units (1.0 when empty)")
    freshness_healthy: bool
    hit_rate: float | None = Field(
        description="recalled units marked used / recalled units judged, in the window; "
                    "null before any feedback")
    hit_rate_healthy: bool | None
    hit_rate_window_hours: float
    recalls_judged: int
    recalls_used: int
    amnesia_alert: bool = Field(description="a session (the one asked for, if any) is alerting")
    amnesia_sessions: list[str]
    amnesia_sessions_count: int
    amnesia_alerts_total: int
    units_total: int = Field(description="valid + expired + superseded + forgotten")
    units_valid: int = Field(description="neither expired nor invalidated now (includes units "
                                         "whose validity window has not begun)")
    units_expired: int = Field(description="past their lifespan or valid_until, not invalidated")
    units_invalidated: int = Field(description="superseded + forgotten")
    units_superseded: int = Field(description="replaced by a newer unit (kept as history)")
    units_forgotten: int = Field(description="invalidated on request (kept for audit)")
    units_by_type: dict[str, int]
    units_by_type_state: dict[str, dict[str, int]]
    store_size_bytes: int
    turns: int
    users: int
    sessions: int
    cleanup: CleanupReport | None = Field(
        default=None, description="always null: reading health never deletes anything (kept so "
                                  "older clients still parse the answer); purges are counted in "
                                  "cleanup_runs_total / cleanup_purged_units_total")
    cleanup_runs_total: int = Field(description="auto_gc runs after ingest (JiyiConfig.auto_gc)")
    cleanup_purged_units_total: int = Field(description="units purged by those runs")
    thresholds: Thresholds
    user: UserHealth | None = None


class AmnesiaStatus(BaseModel):
    """The amnesia detector after one assistant reply (``Memory.observe_reply``)."""

    session_id: str
    recall_empty: bool
    phrase: str | None = Field(description="the forgetting phrase found in the reply, if any")
    forgetful: bool = Field(description="empty recall AND a forgetting phrase")
    streak: int = Field(description="consecutive forgetful turns of this session")
    alerting: bool
    raised: bool = Field(description="this reply raised the alert")
