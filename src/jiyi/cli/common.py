"""What every command shares: the ``--db``/``--embedder``/``--type-embedder`` state and how to
open memory."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from ..embed.routing import parse_type_embedders
from ..memory import Memory


@dataclass
class CliState:
    db: str | None
    embedder: str | None
    #: ``TYPE=NAME`` items of ``--type-embedder`` (per-type embedders); empty:
    #: ``$JIYI_TYPE_EMBEDDERS`` applies.
    type_embedders: tuple[str, ...] = ()

    @property
    def db_location(self) -> str:
        return self.db or str(Memory.default_location())

    def open(self, *, create: bool = False, warm: bool = False) -> Memory:
        """Open the store. Only the commands that write a new store (ingest, serve, proxy, mcp,
        chat) pass ``create=True``; for the others a missing store is a one-line error naming
        the path (a typo'd ``--db`` must not leave an empty store behind). Only the commands
        that stay up and answer many requests (serve, proxy, mcp, chat) pass ``warm=True``: a
        one-shot command would pay the store's warm-up at open and exit before it pays off."""
        routing = parse_type_embedders(self.type_embedders) if self.type_embedders else None
        return Memory.open(self.db_location, embedder=self.embedder, type_embedders=routing,
                           create=create, warm=warm)


def state(ctx: typer.Context) -> CliState:
    obj = ctx.find_root().obj
    assert isinstance(obj, CliState)
    return obj
