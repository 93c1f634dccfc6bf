"""One place that lists the storage backends; each is imported only when selected."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ConfigError
from .base import Store


def default_db_path() -> Path:
    """``$JIYI_DB``, else ``$XDG_DATA_HOME/jiyi/memory.db`` (``~/.local/share/jiyi/memory.db``)."""
    env = os.environ.get("JIYI_DB")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "jiyi" / "memory.db"


def open_store(url: str | os.PathLike[str] | None, *, create: bool = True) -> Store:
    """``postgresql://...`` -> PostgreSQL; ``sqlite:///path``, a path or ``:memory:`` -> SQLite.
    ``create=False``: a store that does not exist yet is a :class:`~jiyi.errors.StoreError`
    naming it, instead of a new empty one (what read commands want)."""
    target = str(url) if url is not None else str(default_db_path())
    if target.startswith(("postgresql://", "postgres://")):
        try:
            from .postgres import PostgresStore
        except ImportError as exc:  # pragma: no cover - depends on the installed extra
            raise ConfigError(
                "PostgreSQL needs the extra: pip install 'jiyi[postgres]'"
            ) from exc
        return PostgresStore(target, create=create)
    if target.startswith("sqlite:///"):
        target = target[len("sqlite:///"):]
    elif "://" in target:
        raise ConfigError(f"unknown store URL {target!r}; use a file path or postgresql://")
    from .sqlite import SQLiteStore

    return SQLiteStore(target, create=create)
