"""The episodic layer: every raw turn stays findable, whatever its units became.

A typed unit can expire, belong to another session, or be cut short by the write path; the turn
it came from is still what the user said. Each stored turn therefore has its own vector (and its
text is in the keyword body of every unit cut from it), and recall searches the user's turns
across all sessions. A turn found this way is answered with the units cut from it (never the
raw text, which may be 1 MB): the best of them by the query's similarity. This makes dense
retrieval over the raw turns the floor of recall: whatever that plain search would find, the
funnel sees too, and only re-ranks it.
"""

from __future__ import annotations

#: How much of a turn its vector reads (the embedders read ~512 tokens; a longer paste is
#: represented by its beginning, while its units cover the rest).
EPISODE_CHARS = 1000

#: At most this many units of one found turn join the candidates (a long paste may have been
#: cut into 64 units; the unit-level vector and keyword searches find its best ones anyway).
EPISODE_UNITS_PER_TURN = 8


def episode_text(text: str) -> str:
    """What the turn's vector is computed from: the (redacted) text, stripped, bounded."""
    return text.strip()[:EPISODE_CHARS]
