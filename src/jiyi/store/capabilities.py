"""Optional capabilities of a store: what some backends can do beyond the :class:`~.base.Store`
contract, declared as Protocols so callers ask ``isinstance(store, WarmableStore)`` instead of
reading ``store.backend`` or probing attributes.

A backend claims a capability by having its methods (structural typing; nothing to register):

==========================  ================================  ======  ==========
capability                  used by                           SQLite  PostgreSQL
==========================  ================================  ======  ==========
:class:`WarmableStore`      ``Memory`` at open (page cache)   yes     yes
:class:`HealthStateStore`   ``jiyi.health`` (shared streaks)  yes     yes
:class:`BulkTransferStore`  ``jiyi migrate`` (raw table copy) yes     yes
:class:`VectorIndexStore`   ``jiyi migrate`` after a bulk     no      yes
                            load (HNSW built once)
:class:`ResidentTablesStore` recall, while the query is        yes     no
                            embedded (a user's tables in)
==========================  ================================  ======  ==========

A store without one gets the fallback its caller documents (no warm-up; process-local health
state; no copy), never an ``AttributeError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from .health_state import HealthState

#: Rows for :meth:`BulkTransferStore.bulk_insert`: table -> (columns, rows in that column order).
TableRows = Mapping[str, tuple[Sequence[str], Iterable[Sequence[Any]]]]


@runtime_checkable
class WarmableStore(Protocol):
    """A store that can read its recent rows ahead of the first recall."""

    def warm(self, hours: float) -> int:
        """Read the units of the last ``hours`` (and their vectors) into the store's cache;
        how many units were read."""
        ...


@runtime_checkable
class ResidentTablesStore(Protocol):
    """A store that keeps a user's vectors resident in RAM (SQLite's per-user tables): recall
    asks for them while the query is still being embedded, so a user's first search after a
    start (or after their tables were dropped) does not load them after the wait."""

    def load_user_tables(self, user_id: str, embedder: str, dim: int) -> None:
        """Bring the user's resident tables of ``embedder`` in, or up to date, now (what the
        next search would do first; nothing else changes)."""
        ...


@runtime_checkable
class HealthStateStore(Protocol):
    """A store that keeps the health state (amnesia streaks, counters) in its own tables, so
    every worker process sharing the store sees the same state."""

    def health_state(self) -> HealthState: ...


@runtime_checkable
class BulkTransferStore(Protocol):
    """A store whose tables can be copied raw, in the schema's own representation (microsecond
    instants, JSON text lists; vectors as float32 arrays or the backend's own form), by
    :func:`.transfer.copy_store`."""

    def table_columns(self) -> dict[str, list[str]]:
        """Every ordinary table and its columns (index internals excluded)."""
        ...

    def read_table(self, table: str, columns: Sequence[str],
                   order_by: Sequence[str] = ()) -> Iterator[tuple[Any, ...]]:
        """Every row of ``table`` as ``columns``, ordered by ``order_by`` (columns), streamed."""
        ...

    def bulk_insert(self, tables: TableRows) -> int:
        """Insert raw rows into several tables in ONE transaction, all or nothing; the number
        of rows inserted. Derived data the store keeps beside the rows is rebuilt."""
        ...


@runtime_checkable
class VectorIndexStore(Protocol):
    """A store whose vector indexes are built apart from the rows (PostgreSQL's HNSW graphs):
    after a bulk load they are built once, in bulk, instead of row by row."""

    def ensure_vector_index(self, embedder: str, dim: int, *, bulk: bool = False) -> None:
        """Create the index of (embedder, dim) unless it exists; ``bulk``: with the memory and
        workers a build after a large load wants."""
        ...
