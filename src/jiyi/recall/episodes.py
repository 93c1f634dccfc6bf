"""The episodic layer: every raw turn stays findable, whatever its units became.

A typed unit can expire, belong to another session, or be cut short by the write path; the turn
it came from is still what the user said. Each stored turn therefore has its own vector (and its
text is in the keyword body of every unit cut from it), and recall searches the user's turns
across all sessions. A turn found this way is answered with the units cut from it (never the
raw text, which may be 1 MB): the best of them by the query's similarity. This makes dense
retrieval over the raw turns the floor of recall: whatever that plain search would find, the
funnel sees too, and only re-ranks it. What a turn's vector reads is
:func:`jiyi.text.episode.episode_text` (the write path embeds the turns with it).
"""

from __future__ import annotations

#: At most this many units of one found turn join the candidates (a long paste may have been
#: cut into 64 units; the unit-level vector and keyword searches find its best ones anyway).
EPISODE_UNITS_PER_TURN = 8
