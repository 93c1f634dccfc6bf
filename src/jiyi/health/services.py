"""What the health report, the amnesia detector and the retention policy need of the facade."""

from __future__ import annotations

from typing import Protocol

from ..memory_view import MemoryServices
from .model import HealthConfig


class HealthServices(MemoryServices, Protocol):
    """The health report, the amnesia detector and the opt-in retention policy."""

    @property
    def health_config(self) -> HealthConfig | None:
        """Thresholds and forgetting phrases; None means ``HealthConfig()`` defaults."""
        ...

    def gc(self, retention_days: float | None = None) -> int:
        """Hard-delete what expired longer ago than the retention (``auto_gc`` runs it)."""
        ...
