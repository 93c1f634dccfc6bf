"""A list item the user already holds, taken back however it is said.

The list row's ``negation`` words (``slots.json``) miss many a way of giving an item up ("X就算了
吧最近", "X的話最近吃太多膩了", "X? not anymore, doc's orders"). But when a user's clause names
an item the user's list holds (a current ``food:X`` like), the item is known: the only question
is the clause's polarity toward it (:func:`jiyi.keyfacts.polarity.takes_back`). A clause that
takes it back becomes that item's negation (its slot, so the like is superseded); a clause that
likes it, or only asks about it, stays what it was, and so does a negation of an item the user
never liked (a plain statement: :func:`jiyi.write.meaning.adopt_negation` has its own rules).
"""

from __future__ import annotations

from ..keyfacts.polarity import item_words, may_take_back, names_words, takes_back, unit_takes_back
from ..keyfacts.schema import SlotSpec, base_name, item_slot, negates, schema
from ..store.base import Scope, Store, TurnRecord
from ..text import fold
from ..units import MemoryType, MemoryUnit
from .drafts import UnitDraft
from .meaning import TYPABLE, ProfileRead, profile_units


def take_back_known(store: Store, turn: TurnRecord, draft: UnitDraft,
                    profile: ProfileRead | None = None) -> list[MemoryUnit]:
    """The current likes a user's draft takes back, naming their item in words the row's
    negation misses; the draft is then that item's negation (its slot and type set in place),
    unless it likes an item of its own (it stays that item's like, and replaces the one it takes
    back). None for a draft already typed as a negation or as another slot, or naming no listed
    item."""
    if turn.role != "user" or turn.speaker is not None or draft.about_id \
            or draft.type not in TYPABLE:
        return []
    for row in schema():
        if row.single or row.negation is None or row.value != "item":
            continue
        if draft.slot is not None and (base_name(draft.slot) != row.name
                                       or negates(row, draft.content)):
            continue
        if not may_take_back(row, turn.text):
            continue
        found = _taken_back(store, turn, draft, row, profile)
        if found:
            return found
    return []


def _taken_back(store: Store, turn: TurnRecord, draft: UnitDraft, row: SlotSpec,
                profile: ProfileRead | None = None) -> list[MemoryUnit]:
    prefix = row.name + ":"
    likes: dict[str, list[MemoryUnit]] = {}
    for unit in profile_units(store, Scope(turn.user_id, None), turn, profile):
        if unit.slot is None or not unit.slot.startswith(prefix):
            continue
        item = unit.slot[len(prefix):]
        if not unit_takes_back(row, unit.content, item):
            likes.setdefault(item, []).append(unit)
    said = fold(draft.content)
    typed = item_words(row, draft.slot[len(prefix):]) if draft.slot else []
    for item, units in likes.items():
        words = item_words(row, item)
        if not words or not names_words(words, said):
            continue
        # read in the turn too: the write path may cut a clause in two ("麻辣烫就" + "算了吧最近")
        if not (takes_back(row, draft.content, words) or takes_back(row, turn.text, words)):
            continue
        if typed and not (names_words(words, " ".join(typed)) or names_words(typed, fold(item))):
            return units  # it likes an item of its own ("X吃太多了，Y才是我的最爱"): it stays Y's
        draft.slot = item_slot(row.name, item)
        draft.type = MemoryType.USER_PROFILE
        return units
    return []
