"""What a recall's hits mean to the layers above it: the one definition of an *empty* recall.

The amnesia alert (memory health) counts turns where "nothing came back from rule and vector recall". The
vector stage always returns its nearest units, relevant or not, so "no hits at all" almost never
happens; a recall is empty when no hit came from the rule stage and none reached the confidence
threshold (0.7 by default, ``config.recall.confidence_threshold``). The agent loop and the recall hook
that feeds the amnesia detector both decide with :func:`recall_came_back_empty`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..units import Hit


def recall_came_back_empty(hits: Sequence[Hit], threshold: float) -> bool:
    """True when ``hits`` hold nothing usable: no rule-stage hit and no hit whose confidence
    reaches ``threshold``. The one "ask the user to confirm instead of guessing" rule: the agent
    loop, the amnesia hook and the inspector's ``ask_to_confirm`` all use it (an empty recall:
    True everywhere)."""
    return not any(h.stage == "rule" or h.confidence >= threshold for h in hits)
