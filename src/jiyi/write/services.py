"""What the write paths need of the facade: the write lock and type routing (batch tasks), and
for ingest every embedder space, the optional model extractor and feedback."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from ..embed.base import Embedder
from ..embed.routing import EmbedderRouting
from ..memory_view import MemoryServices
from ..units import FeedbackEvent, MemoryType, MemoryUnit
from .llm_extract import LLMExtractor


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
