"""Things with a date of their own that the user says have ended: a coupon used up, a voucher
the shop voided, a code that no longer works ("TST50 用咗喇", "門市說 BEAN20 已經作廢了",
"PIZZA5 doesn't work anymore", "spent the rest of GIFT5521, balance now £0").

A dated row of the schema (``slots.json``: ``ended``, ``not_ended``) says how an ending is
worded; :func:`ended_codes` reads which of a text's codes it applies to. Pure functions over
folded text (Simplified, lower case): Traditional and Cantonese wordings fold onto the same
patterns.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from ..text import fold
from ..text.entities import code_like_words
from ..units import MemoryUnit
from .schema import SlotSpec

#: A sentence: up to a full stop, an exclamation or question mark or a line break (a full stop
#: between digits is a decimal point: "£5.50").
_SENTENCE = re.compile(r"(?:[^。！!？?\n.]|(?<=\d)\.(?=\d))+[。！!？?.\n]*")
#: A sub-clause of a sentence ("TW888 已经用掉了，LINE50 先留着": the ending is TW888's).
_CLAUSE = re.compile(r"[^，,;；、:：]+")


def dated_codes(row: SlotSpec, unit: MemoryUnit, known: Collection[str] = ()) -> set[str]:
    """The codes of a dated row a unit holds: its entities of the row's kinds, and code-like
    words the entity reader passed by, in a unit naming the row's thing ("新手券 XS60") or
    among ``known`` codes (the user's other units hold them: "KX30 用了")."""
    kinds = set(row.kinds)
    codes = {e.value for e in unit.entities if e.kind in kinds}
    named = row.thing is not None and row.thing.search(fold(unit.content)) is not None
    codes.update(c for c in code_like_words(unit.content) if named or c in known)
    return codes


def ended_codes(row: SlotSpec, text: str, codes: Iterable[str]) -> set[str]:
    """The codes among ``codes`` (as the entities hold them) that ``text`` says have ended:
    used, redeemed, expired, voided, no longer working. A sentence naming one code ends it when
    any of its sub-clauses says so; naming several, a sub-clause ends the codes it names, else
    the nearest one named before it. A question ends nothing ("有冇得用 SPA300？", "has X
    expired?"), nor a sub-clause saying the thing is unused or kept ("LINE50 先留着", "haven't
    used YOGA20 yet"), nor a restriction ("can't be combined with sale items")."""
    if row.ended is None:
        return set()
    wanted = {fold(c): c for c in codes if c.strip()}
    if not wanted:
        return set()
    out: set[str] = set()
    for sentence in _SENTENCE.findall(fold(text)):
        if sentence.rstrip().endswith(("?", "？")):
            continue
        clauses = _CLAUSE.findall(sentence)
        named = [[k for k in wanted if k in clause] for clause in clauses]
        present = {k for ks in named for k in ks}
        if not present:
            continue
        last: list[str] = []
        for clause, ks in zip(clauses, named, strict=True):
            last = ks or last
            if not _says_ended(row, clause):
                continue
            hit = present if len(present) == 1 else set(ks or last[-1:])
            out.update(wanted[k] for k in hit)
    return out


def _says_ended(row: SlotSpec, clause: str) -> bool:
    return (row.ended is not None and row.ended.search(clause) is not None
            and not (row.not_ended is not None and row.not_ended.search(clause)))
