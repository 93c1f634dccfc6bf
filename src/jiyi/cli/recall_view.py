"""How ``jiyi recall`` shows its answer: a one-line reason when the recall is empty or only
history, and a table that keeps the memory's text readable at 80 columns (the turn-id column
must not squeeze the answer into an ellipsis). Pure functions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from rich import box
from rich.table import Table
from rich.text import Text

from .. import StoreStats
from ..clock import iso
from ..units import Hit


def _memories(n: int) -> str:
    return f"{n} memory" if n == 1 else f"{n} memories"


def explain_recall(hits: Sequence[Hit], user_id: str, stats: StoreStats | None,
                   as_of: datetime | None = None) -> str | None:
    """Why a recall shows no current memory, in one line; None when some hit is current.

    ``stats``: the user's counts at the recall's instant, needed only when ``hits`` is empty."""
    if hits:
        history = [h for h in hits if not h.current]
        if len(history) < len(hits):
            return None
        by_status = Counter(h.status for h in history)
        n = len(history)
        verb = "matches but is" if n == 1 else "match but are"
        what: str = next(iter(by_status))
        if len(by_status) > 1:
            what = "history (" + ", ".join(f"{c} {s}" for s, c in sorted(by_status.items())) + ")"
        return f"{_memories(n)} {verb} {what}: showing history"
    when = f" as of {iso(as_of)}" if as_of is not None else ""
    if stats is None or stats.units_total == 0:
        return f"no memories for user {user_id} in this store"
    stale = stats.units_total - stats.units_valid
    why = f" ({stale} of {stats.units_total} are expired or invalidated)" if stale else ""
    return f"no memories for user {user_id} match this query{when}{why}"


def recall_table(hits: Sequence[Hit]) -> Table:
    """score, when (the unit's date and its status), type, content. The content column takes
    the rest of the width and folds (never an ellipsis); provenance and stages are in
    ``recall --json`` and ``jiyi show``."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("score", no_wrap=True, justify="right")
    table.add_column("when", no_wrap=True)
    table.add_column("type", no_wrap=True)
    table.add_column("content", overflow="fold", ratio=1, min_width=20)
    for h in hits:
        when = Text(h.date.strftime("%Y-%m-%d"))
        when.append("\n" + h.status, style="" if h.current else "yellow")
        table.add_row(f"{h.score:.3f}", when, h.unit.type.value, Text(h.unit.content))
    return table
