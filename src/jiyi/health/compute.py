"""``Memory.health()`` and ``Memory.observe_reply()``: memory health computed from the store."""

from __future__ import annotations

import logging
from datetime import timedelta

from ..errors import ValidationError
from ..validation import check_identifier, check_text, check_user_id, require_session_id
from .model import AmnesiaStatus, Health, HealthConfig, Thresholds, UserHealth
from .phrases import find_forgetting_phrase
from .services import HealthServices
from .state import health_state_for

log = logging.getLogger("jiyi.health")


def ratio(part: int, whole: int) -> float:
    """``part / whole``; an empty store is perfectly fresh (nothing stale in it)."""
    return 1.0 if whole <= 0 else part / whole


def config_of(mem: HealthServices) -> HealthConfig:
    cfg = mem.health_config
    return cfg if isinstance(cfg, HealthConfig) else HealthConfig()


def compute_health(mem: HealthServices, *, session_id: str | None = None,
                   user_id: str | None = None) -> Health:
    """A pure read of the store and the health state: it measures (freshness, hit rate, amnesia,
    counts) and never acts. Purging is ``Memory.gc()`` or the opt-in ``JiyiConfig.auto_gc``."""
    cfg = config_of(mem)
    sid = check_identifier(session_id, "session_id") if session_id is not None else None
    uid = check_identifier(user_id, "user_id") if user_id is not None else None
    state = health_state_for(mem.store)
    now = mem.clock()
    stats = mem.store.stats(as_of=now)
    freshness = ratio(stats.units_valid, stats.units_total)
    used, judged = mem.store.recall_hit_rate(now - timedelta(hours=cfg.hit_rate_window_hours))
    hit_rate = used / judged if judged else None
    sessions, alerting_count = state.alerting_sessions(sid, cfg.max_listed_sessions)
    counters = state.counters()
    fresh_ok = freshness >= cfg.freshness_threshold
    hit_ok = None if hit_rate is None else hit_rate >= cfg.hit_rate_threshold
    user: UserHealth | None = None
    if uid is not None:
        us = mem.store.stats(user_id=uid, as_of=now)
        uf = ratio(us.units_valid, us.units_total)
        user = UserHealth(user_id=uid, freshness_ratio=uf,
                          freshness_healthy=uf >= cfg.freshness_threshold,
                          units_total=us.units_total, units_valid=us.units_valid)
    return Health(
        as_of=now,
        healthy=fresh_ok and hit_ok is not False and alerting_count == 0,
        freshness_ratio=freshness, freshness_healthy=fresh_ok,
        hit_rate=hit_rate, hit_rate_healthy=hit_ok,
        hit_rate_window_hours=cfg.hit_rate_window_hours,
        recalls_judged=judged, recalls_used=used,
        amnesia_alert=alerting_count > 0, amnesia_sessions=sessions,
        amnesia_sessions_count=alerting_count,
        amnesia_alerts_total=counters["amnesia_alerts"],
        units_total=stats.units_total, units_valid=stats.units_valid,
        units_expired=stats.units_expired, units_invalidated=stats.units_invalidated,
        units_superseded=stats.units_superseded, units_forgotten=stats.units_forgotten,
        units_by_type=dict(stats.by_type), units_by_type_state=state.unit_counts(now),
        store_size_bytes=stats.size_bytes, turns=stats.turns, users=stats.users,
        sessions=stats.sessions,
        cleanup_runs_total=counters["cleanup_runs"],
        cleanup_purged_units_total=counters["cleanup_purged_units"],
        thresholds=Thresholds(freshness=cfg.freshness_threshold,
                              hit_rate=cfg.hit_rate_threshold, amnesia_turns=cfg.amnesia_turns),
        user=user,
    )


def observe_reply(mem: HealthServices, reply: str, *, session_id: str,
                  user_id: str | None = None, recall_empty: bool | None = None) -> AmnesiaStatus:
    """Feed one assistant reply to the amnesia detector. ``recall_empty`` says whether this turn's
    rule + vector recall found nothing; ``None`` takes it from the session's last logged recall."""
    sid = require_session_id(session_id)
    uid = check_user_id(user_id, sid)
    text = check_text(reply, what="reply", max_bytes=mem.config.max_turn_bytes)
    if recall_empty is not None and not isinstance(recall_empty, bool):
        raise ValidationError(f"recall_empty must be a boolean, got {type(recall_empty).__name__}")
    cfg = config_of(mem)
    state = health_state_for(mem.store)
    empty = state.last_recall_empty(uid, sid) if recall_empty is None else recall_empty
    phrase = find_forgetting_phrase(text, cfg.forgetting_phrases)
    forgetful = empty and phrase is not None
    update = state.record_reply(uid, sid, forgetful, cfg.amnesia_turns, mem.clock())
    if update.raised:
        log.warning("amnesia alert: session %s had %d turns in a row with empty recall and a "
                    "forgetting phrase", sid, update.streak)
    return AmnesiaStatus(session_id=sid, recall_empty=empty, phrase=phrase, forgetful=forgetful,
                         streak=update.streak, alerting=update.alerting, raised=update.raised)
