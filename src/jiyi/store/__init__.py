"""Storage backends behind one :class:`Store` protocol, chosen by URL."""

from __future__ import annotations

from .base import IngestBatch, RecallLogEntry, Scope, Store, StoreStats, TurnRecord, UnitEvent
from .registry import open_store

__all__ = [
    "IngestBatch", "RecallLogEntry", "Scope", "Store", "StoreStats", "TurnRecord", "UnitEvent",
    "open_store",
]
