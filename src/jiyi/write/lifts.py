"""The user's diets and food restrictions that a new word of theirs lifts, superseded when it
is said.

"I've started eating fish again, so pescatarian now" after "I'm vegetarian", "我现在不吃素了" after
"我吃素", "医生说宝宝耐受了，可以转普通奶粉了" after "宝宝牛奶蛋白过敏", "戒糖 challenge 完咗喇" after
"我戒緊糖": the restriction said before is history from that turn on. Recall already reads such
lifts for a question about food (:func:`jiyi.recall.slotlists.restrictions_lifted`), but a
question asked another way ("is the April box decaf or regular?", "any dietary stuff on my
profile?") reaches the old restriction through the search, and it would come back as current.
So the write path supersedes it: the restriction stays findable as history (a question about
the past, an earlier ``as_of``), and is never presented as current once lifted.

What counts as a lift is :func:`jiyi.keyfacts.diets.diet_lifted` (eating again what the diet
excludes, the diet denied or over, another diet of its family, an allergy corrected or
outgrown). Only the user's own statement lifts (not an agent's, not a named speaker's, not a
question, not someone else's meal); only units that hold a diet of the user's own are lifted,
never another slot's value.
"""

from __future__ import annotations

from ..keyfacts.diets import diet_lifted, eats_anything, holds_a_diet, states_diet
from ..store.base import Store, TurnRecord
from ..units import MemoryType, MemoryUnit
from .choices import OTHER_VALUE_KINDS
from .drafts import UnitDraft
from .meaning import TYPABLE, ProfileRead, recent_units


def _may_lift(turn: TurnRecord, draft: UnitDraft) -> bool:
    return turn.role == "user" and turn.speaker is None and draft.about_id is None \
        and draft.type in TYPABLE \
        and (draft.slot is None or draft.slot.startswith("food:")) \
        and not any(e.kind in OTHER_VALUE_KINDS for e in draft.entities) \
        and states_diet(draft.content)


def _holds_restriction(unit: MemoryUnit) -> bool:
    return unit.type in TYPABLE and (unit.slot is None or unit.slot.startswith("food:")) \
        and not any(e.kind in OTHER_VALUE_KINDS for e in unit.entities) \
        and holds_a_diet(unit.content) and not eats_anything(unit.content)


def lifted_restrictions(store: Store, turn: TurnRecord, draft: UnitDraft,
                        profile: ProfileRead | None = None) -> list[MemoryUnit]:
    """The user's current diets and restrictions, said in earlier turns, that ``draft`` lifts
    (see the module's text); empty for a draft that lifts nothing. ``profile``: the turn's
    shared read (one read for all its drafts)."""
    if not _may_lift(turn, draft):
        return []
    units = recent_units(store, turn, profile)
    return [u for u in units
            if u.created_at < turn.at and turn.turn_id not in u.source_turn_ids
            and _holds_restriction(u) and diet_lifted(draft.content, u.content)]


def keep_lift(draft: UnitDraft, lifted: list[MemoryUnit]) -> None:
    """A lift is a lasting fact about the user (in place), said as a request or not ("back on
    full caffeine from the next box please"); a lift of a typed list item takes that item's
    slot, so the list's state now is the lift, not a gap."""
    if not lifted:
        return
    if draft.type is MemoryType.SESSION_STATE:
        draft.type = MemoryType.FACT_REFERENCE
    typed = next((u.slot for u in lifted if u.slot is not None), None)
    if draft.slot is None and typed is not None:
        draft.slot = typed
        draft.type = MemoryType.USER_PROFILE
        draft.expires_in = None
