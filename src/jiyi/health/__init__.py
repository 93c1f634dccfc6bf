"""Memory health (S9): freshness, hit rate, the amnesia alert, cleanup when stale."""

from .compute import compute_health, observe_reply
from .hooks import MemoryObserver, instrumented, recall_stage
from .model import AmnesiaStatus, CleanupReport, Health, HealthConfig, UserHealth
from .phrases import DEFAULT_FORGETTING_PHRASES, find_forgetting_phrase

__all__ = [
    "DEFAULT_FORGETTING_PHRASES",
    "AmnesiaStatus",
    "CleanupReport",
    "Health",
    "HealthConfig",
    "MemoryObserver",
    "UserHealth",
    "compute_health",
    "find_forgetting_phrase",
    "instrumented",
    "observe_reply",
    "recall_stage",
]
