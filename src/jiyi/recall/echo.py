"""The question asked, said back: a hit cut from the very turn that asked the recall's query.

An agent ingests the user's turn and then recalls with it. The unit that turn just became
("what plan am I on and when does it renew?") matches the query best of all, and is ranked
first as a unit of the session being spoken in, yet it tells the agent nothing the prompt
does not already hold. Such a hit goes after every other hit: it is still returned when
nothing else is found, and it is never deleted (a later, different question finds it as any
other memory). A typed value said in the asking turn ("I moved to 5 Oak St, can you confirm
my address?") is no echo: it keeps its rank; a unit typed from the question's own words ("last
kit is shipping monday - what diet is it set up for?" read as a delivery time) still asks, and
is one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..keyfacts.asking import asks
from ..store.base import TurnRecord
from ..text.segment import fold
from ..units import Hit

__all__ = ["echoes_last"]


def _folded(text: str) -> str:
    return "".join(ch for ch in fold(text) if ch.isalnum())


def _all_asking(turns: list[TurnRecord], asked: str) -> bool:
    return bool(turns) and all(t.role == "user" and _folded(t.text) == asked for t in turns)


def echoes_last(hits: Sequence[Hit], query: str,
                sources: Mapping[str, list[TurnRecord]]) -> list[Hit]:
    """``hits`` with every echo of ``query`` (an untyped unit, or one whose words ask, all of whose
    source turns are user turns saying exactly the query, folded: case, script, spacing and
    punctuation aside) scored
    below the lowest other hit, in its former order."""
    asked = _folded(query)
    if not asked or not hits:
        return list(hits)
    echo = [(hit.unit.slot is None or asks(hit.unit.content))
            and _all_asking(sources.get(hit.unit.id, []), asked) for hit in hits]
    if not any(echo) or all(echo):
        return list(hits)
    floor = min(h.score for h, e in zip(hits, echo, strict=True) if not e)
    out: list[Hit] = []
    order = sorted((h for h, e in zip(hits, echo, strict=True) if e), key=lambda h: -h.score)
    for rank, hit in enumerate(order, 1):
        out.append(hit.model_copy(update={"score": floor - rank * 1e-3}))
    return [h for h, e in zip(hits, echo, strict=True) if not e] + out
