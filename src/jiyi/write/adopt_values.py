"""A new phone, e-mail or address said with no word naming it, read by the user's history.

The slot rules (:mod:`.slots`) type a value by its cue words ("my new email is X", "ship to
X"). A user who already has an address, on file from an earlier turn, often gives the new one
with none: "it's 4412 Maple Ave, Apt 21 not 12", "divyakrishnan.k@gmail.com ✅ rediff one I
don't open anymore". Such a clause, stating one value of the kind as the user's own (not asked
about, not supposed, not the value replaced, not someone else's, not for one order only: see
:func:`.slots.stated_as_own`), is that slot's new value when the user has a current one that
differs. The clause itself becomes the slot unit (its words hold the value), so it supersedes
the old one on placement; nothing else changes, and a user with no value on file is left to
the rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..keyfacts.asking import all_supposed, asks_value, one_off, supposes_value
from ..keyfacts.schema import base_name, rendered_value, spec
from ..keyfacts.typing import MAX_TYPED_CHARS
from ..store.base import Scope, Store, TurnRecord
from ..text import fold
from ..units import Entity, MemoryType
from .drafts import UnitDraft
from .meaning import TYPABLE, value_key
from .slots import names_another_slot, names_third_party, stated_as_own

#: The slots whose value is an entity of the same kind, adopted by history.
ENTITY_SLOTS = ("phone", "email", "address")
#: A plan's name: up to four words after the verb, up to a word that ends it ("from March",
#: "instead", "please", a comma).
_EN_VALUE = (r"(?-i:[A-Za-z0-9][\w+&'’-]*)(?: (?!(?:from|instead|please|pls|starting|and|so|as|for|"
             r"because|since|now|today|next|this|same|asap|thanks|thx|ty|if|then|with|but|rite|right)\b)"
             r"[\w+&'’-]+){0,3}")
#: Words every plan's name may hold: sharing one says nothing of being the same family.
_GENERIC_PLAN_WORDS = frozenset({"plan", "membership", "member", "tier", "level", "the", "a",
                                 "package", "subscription", "account", "card"})


def _placed(draft: UnitDraft, e: Entity) -> Entity | None:
    """``e`` with offsets in the draft's content (the draft may be a cut of its turn)."""
    at = draft.content.find(e.text)
    return None if at < 0 else e.model_copy(update={"start": at, "end": at + len(e.text)})


def adopt_entity_values(store: Store, turn: TurnRecord, drafts: Sequence[UnitDraft]) -> None:
    """Type, in place, the user's untyped drafts that state a new value of an entity slot the
    user already has (see the module's text)."""
    if turn.role != "user" or turn.speaker is not None:
        return
    taken = {base_name(d.slot) for d in drafts if d.slot}
    wide = Scope(turn.user_id, None)
    for kind in ENTITY_SLOTS:
        row = spec(kind)
        if kind in taken or row is None:
            continue
        on_file: list[str] | None = None  # the value keys on file, read once per kind
        for draft in drafts:
            if draft.slot is not None or draft.about_id is not None \
                    or draft.type not in TYPABLE or len(draft.content) > MAX_TYPED_CHARS:
                continue
            said = [p for p in (_placed(draft, e) for e in draft.entities if e.kind == kind)
                    if p is not None]
            values = {value_key(row, p.text) for p in said} - {""}
            if len(values) != 1:
                continue  # none, or several: which one is the user's is the rules' to say
            if not stated_as_own(draft.content, said[0], said[1:]):
                continue
            if on_file is None:
                units = store.find_units(wide, as_of=turn.at, slot=kind, limit=1)
                on_file = [value_key(row, x.text) for u in units for x in u.entities
                           if x.kind == kind] + [value_key(row, u.content) for u in units]
            if not on_file or any(v and v in k for v in values for k in on_file):
                continue  # no value on file, or the same one said again
            draft.slot = kind
            draft.type = MemoryType.USER_PROFILE
            draft.expires_in = None  # a profile fact's lifespan, not a request's
            taken.add(kind)
            break


#: A change of plan said as a move to a named one ("upgrade me to a Dedicated Desk", "switch me
#: onto Smile Plus instead", "change to Family plan, 20 jars", "make it Regular 12 jars",
#: "升级成黑金会员", "换成家庭套餐吧"): the verb, then the plan's name (``value``).
_EN_PLAN_MOVE = re.compile(
    r"\b(?:(?P<grade>upgrade|downgrade|bump)|switch|move|change|put|swap|transfer|convert)(?:d|s|ing)?"
    r"(?: me| us| it| my (?:plan|membership|subscription|account|tier|level|package))?"
    r"(?: up| down| over| back)?\s+(?:on|in)?to\s+(?:the |a |an |my )?(?P<value>" + _EN_VALUE + r")"
    r"|\bmake it\s+(?:the |a |an )?(?P<made>" + _EN_VALUE + r")", re.I)
_ZH_PLAN_MOVE = re.compile(
    r"(?:(?P<grade>升级|升級|降级|降級|升)|换|換|改|转|轉|调|調)(?:成|到|为|為|做|去)\s*"
    r"(?P<value>[\u4e00-\u9fffA-Za-z0-9+]{2,8}?)(?=吧|了|啊|呀|啦|嘛|喔|哦|吗|嗎|呢|就|从|從|下个|下個|[\s，,。.！!？?；;]|$)")


def _value_words(text: str) -> set[str]:
    """The words of a plan's name, folded (a Chinese name: its characters pairs)."""
    folded = fold(text)
    words = {w for w in re.findall(r"[a-z0-9]+", folded) if w not in _GENERIC_PLAN_WORDS}
    han = re.sub(r"[^\u4e00-\u9fff]", "", folded)
    return words | {han[i:i + 2] for i in range(len(han) - 1)} | ({han} if len(han) == 1 else set())


def _plan_moved_to(clause: str) -> tuple[str, bool] | None:
    """The plan a clause moves to and whether the verb is a change of grade (upgrade ...); a
    move supposed or asked about is none ("如果我升做 Platinum 要消費幾多？")."""
    for rx in (_EN_PLAN_MOVE, _ZH_PLAN_MOVE):
        m = rx.search(clause)
        if m is None or supposes_value(clause, m.start()) \
                or asks_value(clause, m.start(), m.end()):
            continue
        value = m.groupdict().get("made") or m.group("value")
        if value:
            return value.strip(" ,.!?"), m.group("grade") is not None
    return None


def adopt_level_change(store: Store, turn: TurnRecord, drafts: Sequence[UnitDraft]) -> None:
    """Type, in place, the user's untyped draft that moves their plan or membership to a named
    one, when the user has one on file: the move says so by its verb (upgrade, downgrade, 升级)
    or by a word the name shares with the plan on file ("Smile Basic" -> "switch me onto Smile
    Plus"). A name that is another slot's value ("switch to Saturdays", "改成微信") is none."""
    if turn.role != "user" or turn.speaker is not None or any(
            d.slot and base_name(d.slot) == "membership" for d in drafts):
        return
    row = spec("membership")
    if row is None:
        return
    for draft in drafts:
        if draft.slot is not None or draft.about_id is not None \
                or draft.type not in TYPABLE or len(draft.content) > MAX_TYPED_CHARS \
                or one_off(draft.content) or all_supposed(draft.content):
            continue
        moved = _plan_moved_to(draft.content)
        if moved is None or names_another_slot(moved[0]) or names_third_party(draft.content):
            continue  # "my sister wants to switch to Glow Plus": hers
        on_file = store.find_units(Scope(turn.user_id, None), as_of=turn.at, slot="membership",
                                   limit=1)
        if not on_file:
            return
        old = rendered_value(row, on_file[0].content) or on_file[0].content
        value, graded = moved
        if fold(value) in fold(old) or not (graded or _value_words(value) & _value_words(old)):
            continue  # the plan on file said again, or a move to something else
        draft.slot = "membership"
        draft.type = MemoryType.USER_PROFILE
        draft.expires_in = None  # a profile fact's lifespan, not a request's
        return
