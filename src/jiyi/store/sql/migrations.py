"""The one migration runner of every backend: named migrations, applied in order, each in its
own transaction, each recorded in ``jiyi_migrations (name, applied_at)``.

The backends differ only in how a schema transaction is opened (SQLite: ``BEGIN IMMEDIATE``,
which already excludes every other writer; PostgreSQL: a transaction holding an advisory lock)
and how a migration's text splits into statements (SQLite triggers, PostgreSQL ``$$`` bodies).
Each backend's migration module passes those in as a :class:`MigrationDb`; the order, the
re-check under the lock (another process may have applied a migration while we waited) and the
bookkeeping are written here once.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from ...clock import to_micros, utc_now


class MigrationDb(Protocol):
    """A backend's connection, as the runner needs it."""

    def prepare(self) -> set[str]:
        """Create ``jiyi_migrations`` if missing; the names it already records."""
        ...

    def schema_transaction(self) -> AbstractContextManager[None]:
        """One transaction that no other process's schema change runs beside."""
        ...

    def execute(self, statement: str, params: dict[str, Any] | None = None) -> list[Any]:
        """Run one statement (``:name`` placeholders) inside the open transaction; its rows."""
        ...

    def split(self, body: str) -> list[str]:
        """The statements of one migration's text."""
        ...


def run_migrations(db: MigrationDb, migrations: Sequence[tuple[str, str]]) -> list[str]:
    """Apply every migration of ``migrations`` not yet recorded, in order. Returns the names
    applied now (an empty body is recorded too: a migration the other backend needs)."""
    done = db.prepare()
    applied: list[str] = []
    for name, body in migrations:
        if name in done:
            continue
        with db.schema_transaction():
            if db.execute("SELECT 1 FROM jiyi_migrations WHERE name = :name", {"name": name}):
                continue  # another process applied it while we waited for the lock
            for statement in db.split(body):
                db.execute(statement)
            db.execute("INSERT INTO jiyi_migrations (name, applied_at) VALUES (:name, :at)",
                       {"name": name, "at": to_micros(utc_now())})
        applied.append(name)
    return applied
