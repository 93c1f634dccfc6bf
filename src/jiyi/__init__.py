"""jiyi (记忆): a local-first long-term memory layer for LLM agents."""

from .context.execution import ExecutionContext
from .errors import JiyiError, MissingSessionError, NotFoundError, ValidationError
from .memory import Memory
from .units import Entity, Hit, Lifespan, MemoryType, MemoryUnit

__all__ = [
    "Entity",
    "ExecutionContext",
    "Hit",
    "JiyiError",
    "Lifespan",
    "Memory",
    "MemoryType",
    "MemoryUnit",
    "MissingSessionError",
    "NotFoundError",
    "ValidationError",
]

__version__ = "0.1.0"
