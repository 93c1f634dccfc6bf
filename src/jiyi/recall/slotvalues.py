"""The values of a single-valued slot that any unit holds, read by the slot's schema row: the
entities of its kind (``entity:phone``: phone numbers, ``entity:email``, ``entity:address``) or
the words of its value (``value_words``: a channel, a time of day, a membership level).

Recall compares them with the slot's *current* value: a unit that names another value of the
same kind ("The courier can call 138...", "我更喜欢飞书", "會員等級：銀級會員") and not the
current one speaks of a value the user has since replaced, however it was found (its turn,
a neighbour, a unit the typing missed). Pure functions of the unit and the row.
"""

from __future__ import annotations

import re

from ..keyfacts.schema import SlotSpec
from ..text import content_words, fold
from ..units import MemoryUnit

#: Digits a phone is compared by (its national part; "+86 138..." and "138..." are one number).
PHONE_TAIL = 8
#: Words every value of a level or channel shares ("VIP", "会员", "tier"): they tell no value
#: from another.
GENERIC_WORDS = frozenset({
    "vip", "会员", "member", "members", "membership", "tier", "level", "status", "卡", "card",
    "级", "等级", "级别", "message", "messages", "消息", "讯息",
})
_NOT_KEY = re.compile(r"[\W_]+")


def _key(kind: str, value: str) -> str:
    if kind == "phone":
        return re.sub(r"\D", "", value)[-PHONE_TAIL:]
    return _NOT_KEY.sub("", fold(value))


def slot_values(row: SlotSpec, unit: MemoryUnit) -> frozenset[str]:
    """The values of ``row``'s kind ``unit`` holds, as comparable keys (empty: none)."""
    if row.value.startswith("entity:"):
        kind = row.value.split(":", 1)[1]
        return frozenset(k for e in unit.entities if e.kind == kind
                         and (k := _key(kind, e.value or e.text)))
    if row.value_words is None:
        return frozenset()
    words: set[str] = set()
    for m in row.value_words.finditer(unit.content):
        words.update(w for w in content_words(m.group(0)) if w not in GENERIC_WORDS)
    return frozenset(words)


def names_other_value(held: frozenset[str], current: frozenset[str]) -> bool:
    """True when a unit holding ``held`` names a value of the slot and not the current one
    (a value inside another counts as the same: "体育西路191号" in the full address)."""
    if not held or not current:
        return False
    return not any(h in c or c in h for h in held for c in current)
