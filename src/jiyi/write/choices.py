"""The earlier choices of a dish or drink that a user's new choice replaces.

A user's clause choosing a level of an attribute ("之后饮料都改成微糖", "mild na lang po") or
switching ("replace the salmon platter with the veggie platter", "下午茶改订水果盘")
supersedes the user's earlier units that chose another level of that attribute, or that name
the thing the switch leaves behind (:mod:`jiyi.keyfacts.choices`). Those earlier units are often
untyped remarks ("手摇饮都要全糖", "always boba"): no list item holds them, so nothing else would
stop them being presented as current. They are superseded, never deleted: a question about the
past or an earlier ``as_of`` still finds them.

Only the user's own words choose (not an agent's, not a named speaker's, not a question, not
someone else's: :func:`jiyi.keyfacts.typing.owns`); only units that can hold a choice of food
are replaced (untyped or ``food:*`` units with a word of food or an attribute level, holding no
phone, e-mail or address), so another slot's value never goes with a food choice.
"""

from __future__ import annotations

from ..keyfacts.choices import (
    asked,
    chosen_at,
    chosen_levels,
    food_said,
    of_attribute,
    replaces_level,
    switch_in,
    switch_replaces,
)
from ..keyfacts.diets import diet_excludes, takes_up_diet
from ..keyfacts.typing import owns
from ..store.base import Store, TurnRecord
from ..units import MemoryType, MemoryUnit
from .drafts import UnitDraft
from .meaning import TYPABLE, ProfileRead, recent_units

#: Entity kinds of another slot's value: a unit holding one is no food choice.
OTHER_VALUE_KINDS = frozenset({"phone", "email", "address", "url"})


def _food_unit(unit: MemoryUnit) -> bool:
    """A unit that may state a choice of food: untyped or a food item speaking of food, no
    other slot's value or look-alike of food (a delivery, an app), not a question."""
    if unit.slot is not None and not unit.slot.startswith("food:"):
        return False
    if any(e.kind in OTHER_VALUE_KINDS for e in unit.entities) or asked(unit.content):
        return False
    return owns("food", unit.content) and food_said(unit.content)


def replaced_choices(store: Store, turn: TurnRecord, draft: UnitDraft,
                     profile: ProfileRead | None = None) -> list[MemoryUnit]:
    """The user's current units (said in earlier turns) that ``draft``'s choice replaces: another
    level of an attribute it chooses, the thing its switch leaves behind, or a dish the diet it
    takes up excludes. Empty for a draft that chooses nothing, is not the user's own statement
    or states another slot. ``profile``: the turn's shared read."""
    if turn.role != "user" or turn.speaker is not None or draft.about_id \
            or draft.type not in TYPABLE:
        return []
    if draft.slot is not None and not draft.slot.startswith("food:"):
        return []
    if any(e.kind in OTHER_VALUE_KINDS for e in draft.entities):
        return []
    chosen = chosen_at(turn.text, draft.content)
    switch = switch_in(draft.content)
    if switch is not None and not ((switch.old_words or switch.new_members)
                                   and food_said(draft.content)):
        switch = None  # a switch of anything but food ("change my contact to LINE")
    diet = takes_up_diet(draft.content)
    if not chosen and switch is None and not diet:
        return []
    units = recent_units(store, turn, profile)
    out: list[MemoryUnit] = []
    for unit in units:
        if unit.created_at >= turn.at or turn.turn_id in unit.source_turn_ids:
            continue
        if unit.type not in TYPABLE:
            continue
        # a like of a dish said with its level ("我鍾意食奶茶，要全糖") still likes the dish:
        # a new level replaces a remark or an item that is a level, never a liked dish
        level = bool(chosen) and replaces_level(chosen, unit.content) \
            and not asked(unit.content) \
            and (unit.slot is None or of_attribute(unit.slot.split(":", 1)[1]))
        if level or (_food_unit(unit) and (
                (switch is not None and switch_replaces(switch, unit.content))
                # a diet taken up: the dishes it excludes ("going halal" after "the
                # pepperoni pizza"; keyfacts/diets.py)
                # (a liked item is recall's to take back: recall/slotlists.said_off_since)
                or (diet and unit.slot is None and diet_excludes(draft.content, unit.content)))):
            out.append(unit)
    return out


def chooses(content: str) -> bool:
    """A user's clause choosing a level or switching to another dish or drink."""
    if chosen_levels(content):
        return True
    switch = switch_in(content)
    return switch is not None and bool(switch.new_words) and food_said(content)


def keep_choice(turn: TurnRecord, draft: UnitDraft, replaced: list[MemoryUnit]) -> None:
    """A user's choice of a dish or drink (a level, a switch; one that replaces an earlier one
    above all), or a diet the user keeps, is a lasting fact about the user even said as a request ("please replace the salmon platter with…", "gone
    vegetarian, no meat in my box please"): not session state gone in hours (in place)."""
    if turn.role == "user" and draft.type is MemoryType.SESSION_STATE and draft.slot is None \
            and (replaced or takes_up_diet(draft.content) or chooses(draft.content)):
        draft.type = MemoryType.FACT_REFERENCE
