"""The narrow view of :class:`jiyi.Memory` that every helper around it reads.

The health report, the retention policy, batch tasks and the write path each need a few of the
facade's services (the store, the clock, the configuration, the embedder of a memory type, the
write lock), not the whole facade. Each depends on a Protocol in its own package instead of
``Memory`` (``health/services.py``, ``write/services.py``), built on :class:`MemoryServices`
here; that keeps them free of an import cycle through the facade, lets a test hand them a small
fake, and says in one place what each may touch. ``Memory`` satisfies every one of them.
"""

from __future__ import annotations

from typing import Protocol

from .clock import Clock
from .config import JiyiConfig
from .store.base import Store


class MemoryServices(Protocol):
    """What every helper of the facade reads: the store, the clock and the configuration."""

    @property
    def store(self) -> Store: ...

    @property
    def config(self) -> JiyiConfig: ...

    @property
    def clock(self) -> Clock: ...
