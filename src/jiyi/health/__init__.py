"""Memory health: freshness, hit rate, the amnesia alert. Pure reads: nothing here deletes on
read; the opt-in retention policy ``JiyiConfig.auto_gc`` runs from the write path (``retention``)."""

from .compute import compute_health, observe_reply
from .model import AmnesiaStatus, CleanupReport, Health, HealthConfig, UserHealth
from .phrases import DEFAULT_FORGETTING_PHRASES, find_forgetting_phrase
from .retention import auto_gc_after_ingest

__all__ = [
    "DEFAULT_FORGETTING_PHRASES",
    "AmnesiaStatus",
    "CleanupReport",
    "Health",
    "HealthConfig",
    "UserHealth",
    "auto_gc_after_ingest",
    "compute_health",
    "find_forgetting_phrase",
    "observe_reply",
]
