"""jiyi (记忆): a local-first long-term memory layer for LLM agents."""

from .context.execution import ExecutionContext
from .errors import JiyiError, MissingSessionError, NotFoundError, ValidationError
from .health import Health, HealthConfig
from .memory import Memory
from .recall import RecallTrace
from .store import StoreStats
from .units import Entity, Hit, Lifespan, MemoryType, MemoryUnit

__all__ = [
    "Entity",
    "ExecutionContext",
    "Health",
    "HealthConfig",
    "Hit",
    "JiyiError",
    "Lifespan",
    "Memory",
    "MemoryType",
    "MemoryUnit",
    "MissingSessionError",
    "NotFoundError",
    "RecallTrace",
    "StoreStats",
    "ValidationError",
]

__version__ = "0.1.0"
