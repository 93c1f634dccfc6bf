"""Which recalled memories a reply used, ignored or contradicted, as pure rules (the relevance
feedback of each unit).

* **wrong**: the unit holds a single-valued fact (it has a ``slot``) with an entity of some kind,
  and the reply states a *different* value of that kind without the unit's own value (the memory
  says phone 13998765432, the reply says 13812345678).
* **used**: one of the unit's entity values appears in the reply (spaces, dashes and case do not
  matter), or at least two of its distinctive content words do (one when it has only one).
* **ignored**: everything else.

``wrong`` wins over ``used``. The reply's entities are extracted by the caller, so the rule is a
pure function of (units, reply text, reply entities) and snapshot-testable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from .text import content_words, fold
from .units import Entity, MemoryUnit

Judgement = Literal["used", "ignored", "wrong"]

_NOT_ALNUM = re.compile(r"[\W_]+", re.UNICODE)
#: Entity values shorter than this (after normalising) are too common to count as evidence.
MIN_VALUE_CHARS = 2
#: Words too generic to show that a memory was used.
GENERIC_WORDS = frozenset({
    "用户", "用户的", "客户", "您", "我们", "已经", "可以", "user", "users", "customer", "the",
})


def normalise(text: str) -> str:
    """Folded (NFKC, case, Traditional -> Simplified) with spaces and punctuation removed."""
    return _NOT_ALNUM.sub("", fold(text))


def distinctive_words(content: str) -> list[str]:
    """Content words of a unit that say something: no stopwords, no generic words, CJK words of
    two or more characters, other words of three or more."""
    out: list[str] = []
    for word in content_words(content):
        if word in GENERIC_WORDS:
            continue
        if word.isascii() and len(word) < 3 and not word.isdigit():
            continue
        if not word.isascii() and len(word) < 2:
            continue
        out.append(word)
    return out


def _value_in(entity: Entity, reply_norm: str) -> bool:
    for candidate in (entity.value, entity.text):
        norm = normalise(candidate)
        if len(norm) >= MIN_VALUE_CHARS and norm in reply_norm:
            return True
    return False


def contradicts(unit: MemoryUnit, reply_norm: str, reply_entities: Sequence[Entity]) -> bool:
    """True when a single-valued fact of ``unit`` is replaced by another value in the reply."""
    if not unit.slot:
        return False
    for own in unit.entities:
        if _value_in(own, reply_norm):
            continue
        own_value = normalise(own.value)
        for other in reply_entities:
            if other.kind == own.kind and normalise(other.value) not in ("", own_value):
                return True
    return False


def uses(unit: MemoryUnit, reply_norm: str, reply_words: set[str]) -> bool:
    """True when the reply carries one of the unit's entity values or enough of its words."""
    if any(_value_in(e, reply_norm) for e in unit.entities):
        return True
    words = distinctive_words(unit.content)
    if not words:
        return False
    overlap = sum(1 for w in words if w in reply_words or normalise(w) in reply_norm)
    return overlap >= min(2, len(words))


def judge_reply(
    units: Sequence[MemoryUnit], reply: str, reply_entities: Sequence[Entity] = ()
) -> dict[str, Judgement]:
    """``{unit_id: "used" | "ignored" | "wrong"}`` for each recalled unit (first one wins when a
    unit is listed twice)."""
    reply_norm = normalise(reply)
    reply_words = set(content_words(reply))
    out: dict[str, Judgement] = {}
    for unit in units:
        if unit.id in out:
            continue
        if contradicts(unit, reply_norm, reply_entities):
            out[unit.id] = "wrong"
        elif uses(unit, reply_norm, reply_words):
            out[unit.id] = "used"
        else:
            out[unit.id] = "ignored"
    return out
