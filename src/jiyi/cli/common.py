"""What every command shares: the ``--db``/``--embedder`` state and how to open memory."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from ..memory import Memory
from ..store.registry import default_db_path


@dataclass
class CliState:
    db: str | None
    embedder: str | None

    @property
    def db_location(self) -> str:
        return self.db or str(default_db_path())

    def open(self) -> Memory:
        return Memory.open(self.db_location, embedder=self.embedder)


def state(ctx: typer.Context) -> CliState:
    obj = ctx.find_root().obj
    assert isinstance(obj, CliState)
    return obj
