"""The narrow views of :class:`jiyi.Memory` that the parts around it depend on.

The prompt builder, the health report, the retention policy and batch tasks each need a few of
the facade's services (the store, the clock, the configuration, the embedder of a memory type,
the write lock), not the whole facade. Depending on these Protocols instead of ``Memory`` keeps
those modules free of an import cycle through the facade, lets a test hand them a small fake,
and says in one place what each of them may touch. ``Memory`` satisfies every one of them.

Imports here are leaf modules only (no package ``__init__`` that pulls the facade back in).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from .clock import Clock
from .config import JiyiConfig
from .embed.base import Embedder
from .embed.routing import EmbedderRouting
from .health.model import HealthConfig
from .store.base import Store
from .units import FeedbackEvent, MemoryType, MemoryUnit
from .write.llm_extract import LLMExtractor


class MemoryServices(Protocol):
    """What every helper of the facade reads: the store, the clock and the configuration."""

    @property
    def store(self) -> Store: ...

    @property
    def config(self) -> JiyiConfig: ...

    @property
    def clock(self) -> Clock: ...


class HealthServices(MemoryServices, Protocol):
    """The health report, the amnesia detector and the opt-in retention policy."""

    @property
    def health_config(self) -> HealthConfig | None:
        """Thresholds and forgetting phrases; None means ``HealthConfig()`` defaults."""
        ...

    def gc(self, retention_days: float | None = None) -> int:
        """Hard-delete what expired longer ago than the retention (``auto_gc`` runs it)."""
        ...


class WriteServices(MemoryServices, Protocol):
    """Writers outside the ingest path (batch tasks): the one write lock and type routing."""

    def embedder_for(self, unit_type: MemoryType | str) -> Embedder:
        """The embedder whose space indexes units of ``unit_type``."""
        ...

    def placement_lock(self, user_id: str) -> AbstractContextManager[None]:
        """The write lock every change to a user's units is decided and committed under: the
        same lock :meth:`jiyi.Memory.ingest` holds, so no ingest interleaves."""
        ...


class IngestServices(WriteServices, Protocol):
    """The ingest write path (:class:`jiyi.write.placement.WritePath`): every embedder space,
    and feedback (a bare confirmation reinforces the previous turns' facts)."""

    @property
    def embedder_routing(self) -> EmbedderRouting:
        """The default embedder and the memory types routed to other ones."""
        ...

    @property
    def llm_extractor(self) -> LLMExtractor | None:
        """The model that refines the rules' drafts (None: rules only)."""
        ...

    def feedback(self, unit_id: str, event: FeedbackEvent) -> MemoryUnit: ...
