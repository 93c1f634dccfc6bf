"""Store administration commands, one function per command: ``migrate`` (more may follow:
backup, export-user, erase-user)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ..errors import StoreError
from ..memory import Memory


def migrate(
    source: Annotated[str, typer.Option(
        "--from", help="Store to copy from: a SQLite file path or postgresql:// URL.")],
    target: Annotated[str, typer.Option(
        "--to", help="EMPTY store to copy into: a SQLite file path or postgresql:// URL "
                     "(created and migrated if needed).")],
) -> None:
    """Copy a whole memory between backends (SQLite <-> PostgreSQL) and verify it.

    Copies units, turns, provenance, entities, vectors, events, lifespans, invalidations and the
    recall log in one transaction, then compares row counts and a checksum of every table."""
    if source == target:
        raise StoreError("--from and --to name the same store")
    reports = Memory.copy_store(source, target)  # a typo in --from does not create a store
    table = Table("table", "rows (from)", "rows (to)", "checksum", title="jiyi migrate")
    for r in reports:
        table.add_row(r.table, str(r.source_rows), str(r.target_rows),
                      "ok" if r.ok else "MISMATCH")
    Console(soft_wrap=True).print(table)
    bad = [r.table for r in reports if not r.ok]
    if bad:
        raise StoreError(f"copy verification failed for: {', '.join(bad)}")
    units = next((r.source_rows for r in reports if r.table == "units"), 0)
    typer.echo(f"copied {units} units and {len(reports)} tables; counts and checksums match")


def reindex(
    ctx: typer.Context,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Units embedded per call.")] = 64,
) -> None:
    """Embed every unit that has no vector of its type's embedder (after changing the embedder
    or the per-type routing of --type-embedder), and every raw turn without a vector of the
    default embedder (the episodic layer)."""
    from .common import state

    with state(ctx).open() as mem:
        turns = mem.store.count_turns_missing_vectors(mem.embedder.name)
        done = mem.reindex(batch_size=batch_size)
        name = ", ".join(e.name for e in mem.embedder_routing.embedders())
    typer.echo(f"embedded {done - turns} units and {turns} raw turns with {name}")


def register(app: typer.Typer) -> None:
    app.command()(migrate)
    app.command()(reindex)
