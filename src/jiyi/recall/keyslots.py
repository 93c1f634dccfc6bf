"""A question about a key fact: the slot's current value first, what it replaced kept out.

A question finds its slot by the schema's cue words (:func:`.rules.slot_intent`), else by its
nearest question prototypes (:mod:`jiyi.keyfacts`) over the query vector recall computes anyway.
Then:

* **single-valued** slot: its current unit(s) are rule hits (ranked first); the units it replaced
  (the ``supersedes`` chain) and every unit cut from the turns that stated them are *stale*: a
  question about the present does not get them; a question about the past does, the replaced
  units as rule hits, all of them labelled superseded (nothing is deleted; an earlier ``as_of``
  sees the old value as the current one);
* **list** slot (food ...): the current items (``food:*`` units) are rule hits; a negated item was
  superseded at write time;
* **dated** things (coupons): the identifier facts of that kind current at ``as_of`` are the rule
  hits; an expired one is history (``hit.current`` False), never listed as usable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from ..embed.base import Embedder
from ..keyfacts.asking import (
    all_supposed,
    asks,
    is_request,
    of_the_past,
    one_off,
    without_suppositions,
)
from ..keyfacts.polarity import (
    item_words,
    retired_after,
    retired_before,
    takes_back,
)
from ..keyfacts.prototypes import index
from ..keyfacts.roles import OWN_NAME_SAID, name_role, names_someone_else
from ..keyfacts.schema import SlotSpec, base_name, negates, spec
from ..keyfacts.typing import QUESTION, owns, question_slot
from ..store.base import Scope, Store, Vector
from ..text import content_words, fold
from ..text import slotwords as sw
from ..text.levels import NAMED_PLAN
from ..text.timeofday import CALENDAR_DAY
from ..units import MemoryType, MemoryUnit, unit_date
from . import slotlists as sl
from .query import without_ruled_out_past
from .rules import OTHERS_RE, SlotIntent
from .slotvalues import (
    GENERIC_WORDS,
    UNREAD,
    loose_levels,
    loose_people,
    loose_values,
    names_other_value,
    people,
    person_keys,
    same_person,
    slot_values,
    spoken_of,
)

#: Older values followed back through ``supersedes`` (A -> B -> C ... ).
REPLACED_DEPTH = 5


#: The sub-clauses of a unit ("…2026年3月13日講的時間不行了，現在週末早上才有人…": the date is
#: the telling's, the window is another sub-clause's).
_PARTS = re.compile(r"[，,;；。.!！?？]\s*")


def _not_of_clause_slot(row: SlotSpec, unit: MemoryUnit) -> bool:
    """A unit that cannot state a clause-valued slot's new value whatever words it holds: one
    typed to another slot (the canonical "用户的邮箱是X", an order's status "订单 X：已签收，
    updated: 2026-03-19" state their own slot, not a channel or a window), one holding an
    entity the row names as another answer ("got a new phone, call 415 555 0134": the phone
    changes, as on the write path), or, for a standing time, one whose every sub-clause naming
    a time is an event's (a day of the calendar, "2026年3月23日晚上雨好大"; the row's ``event``
    words, "the parcel arrived at 3pm")."""
    if row.value != "clause":
        return False
    if unit.slot and base_name(unit.slot) != row.name:
        return True
    if any(e.kind in row.kinds for e in unit.entities):
        return True  # it gives a number or an e-mail: that slot changes by its own
    if not row.recurring or row.value_words is None:
        return False
    valued = [p for p in _PARTS.split(unit.content) if row.value_words.search(p)]
    return bool(valued) and all(
        CALENDAR_DAY.search(p) is not None or (row.event is not None and row.event.search(p))
        for p in valued)


#: A question asking for a change ("可以改成每週四到嗎？", "could you switch it to evenings?"):
#: a request, which may be the change the write path did not read.
_ASKS_A_CHANGE = re.compile(r"改|换|換|变|變|调|調|转|轉|以后|以後|往后|往後|今后|今後|"
                            r"\b(?:change|switch|move|swap|instead|update|rather|make it|"
                            r"from now on|going forward|from next)\b", re.I)


def _takes_back_value(row: SlotSpec, text: str, value: frozenset[str]) -> bool:
    """A clause-valued slot's current value said with a word taking it back right before it."""
    if row.value_words is None:
        return False
    for m in row.value_words.finditer(text):
        words = frozenset(w for w in content_words(m.group(0)) if w not in GENERIC_WORDS)
        if words and not names_other_value(words, value) and (
                retired_before(text, m.start()) or retired_after(text, m.end())):
            return True
    return False


#: Words saying a value is changed, new, or wanted from now on ("换了", "改成", "新地址", "from now
#: on", "update", "switch").
_CHANGE_SAID = re.compile(
    sw.alternation(sw.CHANGED_ZH, sw.CHANGED_TO_ZH, sw.USING_NOW_ZH, sw.NEW_ZH, sw.MOVED_ZH,
                   sw.FROM_NOW_ON_ZH, sw.FROM_NOW_ON_LEAD_ZH, ("改一下", "更改", "变更", "變更", "更新"))
    + "|" + sw.en_words(sw.CHANGED_EN, sw.NEW_EN, sw.MOVED_EN, sw.FROM_NOW_ON_EN,
                        ("update", "updated", "change", "switch", "replace", "correct")), re.I)


#: Words saying how things are now, or no longer ("现在", "而家", "不再", "now", "anymore",
#: "these days"): a clause speaking of a slot with one says what holds since.
_NOW_SAID = re.compile(sw.alternation(sw.CURRENT_ZH, ("不再", "唔再", "别再", "別再", "目前", "不用了", "唔用"))
                       + "|" + sw.en_words(sw.CURRENT_EN, ("anymore", "any more", "no longer",
                                                           "these days", "better", "only")), re.I)


def _speaks_of_a_change(row: SlotSpec, text: str) -> bool:
    """The user's own clause speaks of the slot (its question's words) and of a change of it,
    stated or asked for, or of how it is now ("email 現在很少看", "Saturdays are dead for me
    now"): not said of the past, not a supposition, not a one-off."""
    if not row.spoken_of(text) \
            or (_CHANGE_SAID.search(text) is None and _NOW_SAID.search(text) is None) \
            or of_the_past(text) or one_off(text):
        return False
    stated = without_suppositions(text)
    return (_CHANGE_SAID.search(stated) is not None or _NOW_SAID.search(stated) is not None) \
        and owns(row.name, stated) and not OTHERS_RE.search(stated)


_MEMBERSHIP_ENDED = re.compile(sw.alternation(sw.MEMBERSHIP_ENDED_ZH) + "|"
                               + sw.en_words(sw.MEMBERSHIP_ENDED_EN), re.I)
_MEMBERSHIP_WORD = re.compile(sw.alternation(sw.MEMBERSHIP_WORDS_ZH) + "|"
                              + sw.en_words(sw.MEMBERSHIP_WORDS_EN), re.I)


def _ends_level(text: str, value: frozenset[str]) -> bool:
    """The text says the membership ended ("Plus退了", "88VIP到期了没续", "I let my membership
    lapse"): an ending word with the current level or a word for a membership."""
    if _MEMBERSHIP_ENDED.search(text) is None:
        return False
    folded = fold(text).casefold()
    return any(v and v in folded for v in value) or _MEMBERSHIP_WORD.search(text) is not None


def _holds_name(text: str, keys: frozenset[str]) -> bool:
    """The text holds one of the names ``keys`` (person keys: folded, lower case) whole."""
    said = fold(text).casefold()
    return any(all(w in said for w in key.split()) for key in keys)


def _states_a_plan(text: str) -> bool:
    """A clause of ``text`` names a plan, a pass or a membership as held, not asked about nor
    someone else's ("I've got the Anytime delivery pass, can I book a Saturday slot on it?")."""
    return any(NAMED_PLAN.search(c) is not None and not QUESTION.search(c)
               and not OTHERS_RE.search(fold(c)) for c in _PARTS.split(text))


#: A name pointed back at, not given ("以后取蛋糕报这个名字", "use that name from now on", "新名字"):
#: the current one, said before.
_REFERS_BACK = re.compile(r"(?:这个|這個|呢个|呢個|嗰个|嗰個|该|該|新)(?:名字|名|姓名)|\b(?:this|that|the new|my new|"
                          r"the same|same) name\b", re.I)


@dataclass
class SlotView:
    """What a key-fact question changes in the ranking."""

    rule_ids: list[str] = field(default_factory=list)
    stale_turns: set[str] = field(default_factory=set)  # turns that stated a replaced value
    current_turns: set[str] = field(default_factory=set)  # turns that state the current one
    stale_units: set[str] = field(default_factory=set)
    #: each single-valued slot asked about whose current value is known, with that value
    current_values: list[tuple[SlotSpec, frozenset[str], datetime]] = field(default_factory=list)
    #: each plan asked about whose current unit holds no value a reader reads, with its date
    unread_since: list[tuple[SlotSpec, datetime]] = field(default_factory=list)
    #: items of a list the user has taken back ("不吃海鲜了"), folded, with the list's row
    negated_items: list[tuple[SlotSpec, str]] = field(default_factory=list)
    #: the list units that take their item back (the taking back, not a mention of the item)
    negation_units: set[str] = field(default_factory=set)
    #: each single-valued slot's current unit ids (by slot name)
    current_ids: dict[str, set[str]] = field(default_factory=dict)
    #: slots a unit said after their current value names another value of (the write path
    #: may have missed a change): their current unit is then not presented as current
    contested: set[str] = field(default_factory=set)
    #: the units that contest a slot (unit id -> whether it states the new value as the
    #: user's): ranked with the rule hits, never hidden; shown as current only when it states it
    newer: dict[str, bool] = field(default_factory=dict)
    #: the values each single-valued slot held before (its replaced units' values)
    earlier_values: dict[str, frozenset[str]] = field(default_factory=dict)
    #: a name question: the current name's keys, when it was said, and whether it is a role's
    #: (the recipient's, the guest's ...) rather than the user's own
    current_person: tuple[frozenset[str], datetime, bool] | None = None
    #: a name question about a role no name was given for (the user's own name answers it)
    unnamed_role: str | None = None
    #: single-valued slots asked about that hold no current value (nothing typed one): the
    #: newest mention of a value among the candidates stands for it (:meth:`settle`)
    unvalued: list[SlotSpec] = field(default_factory=list)
    #: units naming another value than the newest mention of an unvalued slot, said before it
    earlier_mentions: set[str] = field(default_factory=set)
    #: the single-valued slots the question asks about (:meth:`states_no_value`)
    asked_single: list[str] = field(default_factory=list)
    #: the listed values on file (folded): a valid coupon's code (:meth:`on_file`)
    listed_keys: set[str] = field(default_factory=set)
    #: a dated list the question asks about has members on file (valid coupons)
    listed: bool = False
    #: the lists of items the question asks about (likes, restrictions: :meth:`not_the_users`)
    asked_items: list[str] = field(default_factory=list)
    #: the units of the newest telling of each unvalued slot (:meth:`settle`)
    settled_ids: set[str] = field(default_factory=set)

    def on_file(self) -> bool:
        """The question's slot holds a value on file: a single-valued slot's current unit, or
        a list's valid members (:meth:`holds_current` then decides what is current)."""
        return self.listed or any(self.current_ids.get(n) for n in self.asked_single)

    def claims_nothing(self, unit: MemoryUnit) -> bool:
        """A single-valued slot asked about holds no value on file, and the untyped ``unit``
        is not its newest telling (:meth:`settle`, which read one): what it says is shown with
        its date, since nothing says it is the value now ("家里宽带300M的" when no plan was ever
        typed)."""
        if not self.unvalued or self.on_file() or unit.id in self.settled_ids:
            return False
        # a name is read from any clause naming a person: with none read, none is claimed
        return bool(self.settled_ids) or any(row.value != "entity:person" for row in self.unvalued)

    def not_the_users(self, unit: MemoryUnit) -> bool:
        """For a question about a list of items (likes, restrictions), an untyped hit that
        states no item of the user's own: someone else's ("新来的同事小刘海鲜过敏"), supposed or
        one order's. Another item said by the user is a member no rule typed, and stays."""
        if unit.slot is not None or not self.asked_items:
            return False
        text = unit.content
        return all_supposed(text) or one_off(text) \
            or any(not owns(name, text) for name in self.asked_items)

    def holds_current(self, unit: MemoryUnit) -> bool:
        """An untyped hit holds the value on file: it names the current value of a
        single-valued slot asked about (read as the slot reads it), a listed member, or it
        states a newer value than the one on file (:attr:`newer`). Any other untyped hit of a
        key-fact question is context, shown with its date: presented as current, a passing
        "用那张满200减30的" or "I'm on the 20GB plan" would read as the value on file."""
        if self.newer.get(unit.id):
            return True
        for row, value, _ in self.current_values:
            if (slot_values(row, unit) - {UNREAD}) & value:
                return True
        text = fold(unit.content)
        return any(k in text for k in self.listed_keys)

    def names_other_person(self, unit: MemoryUnit, turn_keys: list[str], rule: bool) -> bool:
        """A unit (not the current name, not cut from the turn that gave it) that names
        a person other than the current name, read loosely (a name said in passing: "訂位人是黃
        小姐", "我是之前留言的劉先生", "Hey it's Bec"): said before the current name, it speaks
        of a name since replaced; for a role's name ("收件人"), any other name is not the
        role's (the user's own included). Shown, ranked after, never as current."""
        if self.current_person is None \
                or any(unit.id in ids for ids in self.current_ids.values()):
            return False  # the current name itself
        keys, since, role = self.current_person
        # said with the current name, a clause naming only another ("my name was X, it's Y
        # now", "not X any more"): the name it replaced
        with_current = bool(set(turn_keys) & self.current_turns)
        if not keys or not (role or with_current or unit_date(unit) <= since):
            return False
        named = loose_people(unit)
        return bool(named) and not any(same_person(n, keys) for n in named)

    def newer_other(self, unit: MemoryUnit) -> tuple[str, bool] | None:
        """The slot whose current value a unit said after it contradicts, and whether the unit
        states the new value: it names another value of the slot (an exact one for a phone,
        e-mail or address, else a value word) as the user's own (not a question, not a
        look-alike, not someone else's, not a value the slot held before). A clause-valued slot
        is contradicted only by a statement of the slot ("以后下午三点到五点送吧", not "下午三点我
        有个会"); a level named in the row's value words (a name with its membership word)
        contradicts the current level even without a statement cue ("Legend tier perks are
        nice, finally"; not "用信用卡付的"): then neither level is presented as current. None
        when it contradicts none."""
        if unit.id in self.stale_units:
            return None
        asked = QUESTION.search(unit.content) is not None
        if asked and not _ASKS_A_CHANGE.search(unit.content):
            return None  # "你们礼拜六下午上门吗？" asks, it changes nothing
        stated = without_suppositions(unit.content)
        if stated != unit.content:  # "假如我开了年费黑卡": what is supposed changes nothing
            unit = unit.model_copy(update={
                "content": stated, "entities": [e for e in unit.entities if e.text in stated]})
        for row, value, since in self.current_values:
            if unit.id in self.current_ids.get(row.name, set()) or unit_date(unit) <= since:
                continue
            held = slot_values(row, unit)
            if row.value == "clause" and not asked and _takes_back_value(row, unit.content, value) \
                    and owns(row.name, unit.content):
                return row.name, False  # "dont telegram liao", "别再打电话了": no longer current
            if row.value == "level" and not asked and _ends_level(unit.content, value) \
                    and not OTHERS_RE.search(unit.content):
                return row.name, False  # "plus退了", "let my membership lapse": ended
            if not held and row.value != "level" and unit.slot is None \
                    and _speaks_of_a_change(row, unit.content):
                # a change of the slot said in words no reader holds a value of ("pwede po bang
                # palitan yung address ko…", "新地址發咗俾你哋喇"): neither is presented as current
                return row.name, False
            if not names_other_value(held, value) or of_the_past(unit.content) \
                    or one_off(unit.content):
                continue  # the same value, one the user had ("我以前用X登記過"), or one
                # for this order only ("这一次改周四送就好")
            earlier = self.earlier_values.get(row.name, frozenset())
            if earlier and not names_other_value(held, earlier):
                continue  # a value the slot held before ("my old number X is dead")
            if _not_of_clause_slot(row, unit):
                continue
            if not owns(row.name, unit.content):
                if row.value.startswith("entity:") and _CHANGE_SAID.search(unit.content):
                    # someone named beside a new value ("My son has made new one X"): it may
                    # be the user's new value made by them, or the other's: neither is current
                    return row.name, False
                continue
            states = row.value_words is None or row.states(unit.content)
            if not states and row.value != "clause" and not (
                    row.value == "level" and row.value_words is not None
                    and row.value_words.search(unit.content)):
                continue  # a credit card is no level
            # a question or a remark naming another value after the current one ("可以改成每週
            # 四到嗎？", "evenings are better now, someone's home after 5 PM") may be the change
            # the write path did not read: neither is presented as current
            return row.name, states and not asked
        return None

    def newer_person(self, unit: MemoryUnit, turns: list[str] | None = None) -> bool | None:
        """A unit said after the current name that names another person as the user's own name
        ("Please note I now use the name X", "I've gone back to my maiden name, X", "我而家叫X")
        or as the role's ("寄给我妹妹X"), in words the write path did not type: it contests the
        current name (shown, not as current) and is ranked with the rule hits: True. A person
        the recogniser finds in a statement of the user's own said after the current name, typed
        to no other slot, no relation of the user's named ("This is Laura Okafor again" after
        "Laura Mensah"), or the user speaking of their name without the current one in the unit
        or its turn ("名字写错了，应该是王小明"): False (it may be the new name in words no rule here reads: neither
        is presented as current). None for any other unit."""
        if self.current_person is None or QUESTION.search(unit.content) \
                or any(unit.id in ids for ids in self.current_ids.values()):
            return None
        keys, since, role = self.current_person
        if not keys or unit_date(unit) <= since:
            return None
        said = (name_role(unit.content) is not None) if role else (
            (any(OWN_NAME_SAID.search(t) is not None for t in [unit.content, *(turns or [])])
             and not names_someone_else(unit.content))
            or (self.unnamed_role is not None and name_role(unit.content) == self.unnamed_role))
        # a role's name said after a verb of sending may be a place ("send it to 2750
        # Lakeshore Drive"): only the recogniser's persons contest it
        named = (people(unit) if role else loose_people(unit)) if said else frozenset()
        if named and not any(same_person(n, keys) for n in named):
            return True
        if role or not turns or (unit.slot is not None and base_name(unit.slot) != "name"):
            return None  # another slot's fact ("The user's address is 88 Harbor View Dr")
        # the user speaks of their name (a relation may be named: "I took my husband's
        # surname, Okafor") and neither the unit nor its turn holds the current name
        if not any(_holds_name(t, keys) for t in [unit.content, *turns]) and any(
                OWN_NAME_SAID.search(t) is not None for t in [unit.content, *turns]) \
                and not _REFERS_BACK.search(unit.content):
            return False
        if said or names_someone_else(unit.content):
            return None
        # the recogniser's persons only: a capitalised run read loosely is as often a product,
        # an app or a place ("Google Chat", "Founders Club", "San Diego")
        named = people(unit) - spoken_of(unit.content)
        return False if named and not any(same_person(n, keys) for n in named) else None

    def contest(self, units: list[MemoryUnit],
                turns: dict[str, list[str]] | None = None) -> bool:
        """Mark the slots whose current value a newer unit among ``units`` contradicts, and
        the units that do; True when a unit was marked now. ``turns``: the user's turns each
        unit was cut from (a name change said in another sentence of the turn: "Just got
        married! Please update: Laura Okafor")."""
        marked = False
        for unit in units:
            if unit.id in self.newer:
                continue
            found = self.newer_other(unit)
            if found is None:
                person = self.newer_person(unit, (turns or {}).get(unit.id, []))
                found = ("name", person) if person is not None else None
            if found is not None:
                self.contested.add(found[0])
                self.newer[unit.id] = found[1]
                marked = True
        return marked

    def newer_value(self, unit: MemoryUnit) -> bool | None:
        """For a unit that contradicts a slot's current value (:meth:`contest`): True when it
        states the new value (shown as current), False when it only names it (shown, not as
        current); None for any other unit."""
        return self.newer.get(unit.id)

    def contested_current(self, unit: MemoryUnit) -> bool:
        """The unit is a contested slot's current value: shown, not as current."""
        return any(unit.id in self.current_ids.get(name, set()) for name in self.contested)

    def names_contested(self, unit: MemoryUnit) -> bool:
        """A unit said no later than a contested slot's current value that names that value
        ("my membership係Gold tier啊" before "plus退了"): the value is no longer claimed current,
        nor is this mention of it."""
        for row, value, since in self.current_values:
            if row.name in self.contested and unit_date(unit) <= since \
                    and not QUESTION.search(unit.content) and slot_values(row, unit) & value:
                return True
        return False

    def spoke_of_before(self, unit: MemoryUnit) -> bool:
        """An untyped unit said before a slot's current value that speaks of the slot (its
        question's words: "my membership", "送货地址", "contact me") without holding the current
        value: whatever value it gave, the current one was said since, so it is history ("As a
        Titanium member I get free returns, right?" before "they moved me down to Bronze"), not
        current, even when its own value is one the readers cannot read."""
        if unit.slot is not None:
            return False
        if self.current_person is not None and not self.current_person[2]:
            # the user's own name: a word on it said before the current one ("会员名就写 Jason
            # 吧" before "改成真名 何俊熙") without that name is history
            keys, since, _ = self.current_person
            row = spec("name")
            if keys and row is not None and unit_date(unit) < since \
                    and row.spoken_of(unit.content) and not QUESTION.search(unit.content) \
                    and not _holds_name(unit.content, keys):
                return True
        for row, value, since in self.current_values:
            if unit_date(unit) < since \
                    and (row.spoken_of(unit.content)
                         or (row.value == "level" and _states_a_plan(unit.content))) \
                    and not (self._held_before(row, unit) & value):
                return True
        # a plan said before the current one, whose words no reader holds ("I'm on the 150 Mbps
        # fibre plan" before "Upgrade me to 500 Mbps"): the plan said since is the current one
        return any(unit_date(unit) < since and not QUESTION.search(unit.content)
                   and (row.spoken_of(unit.content) or _states_a_plan(unit.content))
                   for row, since in self.unread_since)

    def states_no_value(self, unit: MemoryUnit) -> bool:
        """An untyped unit that states no standing value of the user's, for a question about a
        slot: a question that asks for nothing to be done ("What's the difference between
        mine and the Black Card?"), a value weighed or supposed ("我在考慮要不要升到 1G"), one
        order's value ("这单先寄公司…就这一单") or someone else's ("订单联系人写张磊"). It is
        shown as said then, never as the slot's current value."""
        if unit.slot is not None or not self.asked_single:
            return False
        text = unit.content
        return (asks(text) and not is_request(text)) or all_supposed(text) or one_off(text) \
            or any(not owns(name, text) for name in self.asked_single)

    def names_other(self, unit: MemoryUnit, rule: bool = False) -> datetime | None:
        """When a unit (not a rule hit) names another channel, time or level than the slot's
        current one (read from words, not exact): the instant that current value was said,
        else None. Said before it, the unit speaks of a replaced value; said after it, it may
        be a new value the write path did not type: ranked after, labelled not current."""
        if rule:
            return None
        for row, value, since in self.current_values:
            if names_other_value(slot_values(row, unit), value):
                return since
        return None

    @staticmethod
    def _held_before(row: SlotSpec, unit: MemoryUnit) -> frozenset[str]:
        """The slot's values a unit said before the current value holds: a level read loosely
        too (any known level word or numbered level: a passing "As a Gold Plus customer…")."""
        held = slot_values(row, unit)
        if row.value == "level":
            held = (held - {UNREAD}) | loose_levels(unit.content) or held
        elif row.value.startswith("entity:"):
            held = held | loose_values(row, unit.content)
        return held

    def _only_earlier(self, row: SlotSpec, unit: MemoryUnit, value: frozenset[str]) -> bool:
        """A unit names only a value the slot held before, not the current one: of the turn
        that stated the current value, a clause about the value replaced ("Your emails go
        straight to my spam" beside "use live chat in the app"; "old one 9123 4567 stop
        using" beside the new number) is history."""
        earlier = self.earlier_values.get(row.name, frozenset())
        held = self._held_before(row, unit) - {UNREAD}
        return bool(earlier and held) and names_other_value(held, value) \
            and not names_other_value(held, earlier)

    @staticmethod
    def _mentions(row: SlotSpec, unit: MemoryUnit) -> frozenset[str]:
        """The values of a single-valued slot a unit names, read loosely (a name's people too)."""
        if row.value == "entity:person":
            return loose_people(unit)
        held = SlotView._held_before(row, unit) - {UNREAD}
        # the most specific words only ("礼拜" of "礼拜三" names no value of its own)
        return frozenset(v for v in held if not any(v != w and v in w for w in held))

    def settle(self, units: list[MemoryUnit], turns: dict[str, list[str]]) -> bool:
        """For each single-valued slot asked about that holds no current value: the newest
        candidate naming a value of it (read loosely, whoever's, asked or told: "蔬菜箱可以改成
        每週四到嗎？") stands for its current value, and the candidates said before it naming
        another value are history (:attr:`earlier_mentions`: shown with their date, ranked
        as found). Nothing typed the slot, so nothing here is hidden: which value is current
        is only not claimed for an older one. True when the marked units changed."""
        before, self.earlier_mentions = self.earlier_mentions, set()
        settled_before, self.settled_ids = self.settled_ids, set()
        for row in self.unvalued:
            said = [(u, v) for u in units if (v := self._mentions(row, u))]
            if not said:
                continue
            newest = max(said, key=lambda uv: (unit_date(uv[0]), uv[0].created_at))[0]
            keys = set(turns.get(newest.id, []))
            # the newest telling: every unit said with the newest mention (a change names the
            # old value beside the new: "禮拜三臨時要出差，改成禮拜五好了"); its new values are
            # the ones no earlier unit named
            told_ids = {u.id for u, _ in said if u.id == newest.id
                        or keys & set(turns.get(u.id, [])) or unit_date(u) >= unit_date(newest)}
            self.settled_ids.update(told_ids)
            if len(said) < 2:
                continue
            told = [(u, held) for u, held in said if u.id in told_ids]
            older = [(u, held) for u, held in said if u.id not in told_ids]
            earlier = frozenset().union(*(held for _, held in older)) if older else frozenset()
            now = frozenset().union(*(held for _, held in told))
            person = row.value == "entity:person"
            novel = frozenset(v for v in now if not (
                same_person(v, earlier) if person else not names_other_value(frozenset({v}), earlier)))
            if not novel:
                continue  # the newest telling names no value not said before
            for u, held in older:
                if not any(same_person(n, novel) for n in held) if person \
                        else names_other_value(held, novel):
                    self.earlier_mentions.add(u.id)
        return self.earlier_mentions != before or self.settled_ids != settled_before

    def is_stale(self, unit: MemoryUnit, turn_keys: list[str], rule: bool = False) -> bool:
        """A unit the question about the present must not get: a replaced value, a unit cut
        from a turn that stated one (and not also the current value), or (not a rule hit) a
        unit naming another number, e-mail, address or level than the current one (said before
        it), or mentioning a
        list item the user took back."""
        if unit.id in self.stale_units:
            return True
        keys = set(turn_keys)
        if keys & self.current_turns:
            # a clause of the turn that stated the current level, naming only another one ("I
            # was Sugar Rush before."): history, not the current value
            return not rule and any(
                (row.value == "level" and names_other_value(self._held_before(row, unit), value))
                or self._only_earlier(row, unit, value)
                for row, value, _ in self.current_values)
        if keys & self.stale_turns:
            return True
        if rule:
            return False
        if any((row.value.startswith("entity:") or row.value == "level")
               and unit_date(unit) <= since
               and names_other_value(self._held_before(row, unit), value)
               for row, value, since in self.current_values):
            return True  # another number, e-mail, address or level said before the current one
        if unit.id in self.negation_units:
            return False  # the taking back itself
        text = fold(unit.content)  # a passing mention of an item taken back, not the taking back
        return any(item in text and not negates(row, unit.content)
                   and not takes_back(row, unit.content, item_words(row, item))
                   for row, item in self.negated_items)


#: A key-fact question about an earlier value ("换号之前那个号码", "搬家前的地址", "the number I
#: gave you first"): read only once the question names a slot, so general recall is unchanged.
_EARLIER = re.compile(
    r"之前|以前|原来|原本|旧|最早|最初|上一|老的|搬家前|换号前|改号前|换之前|改之前|"
    r"(?:改|换|变|搬)[^，,。？?!！\s]{0,4}前(?![天日])|"
    r"\b(?:before|first|originally|original|old|previous|previously|prior|used to|earlier|former)\b")


#: "之前" / "before" said of the telling, not of the value ("我之前跟你们说的收货时间", "what
#: delivery time did I tell you before?"): the value told, the current one.
_TOLD_BEFORE = re.compile(
    r"(?:之前|以前|早前)(?:跟|和|对|给)?(?:你|您)(?:们)?(?:说|讲|提|告诉|交代)|"
    r"我(?:之前|以前|早前)(?:有)?(?:说|讲|提|告诉|交代|设|定|选)|"
    r"\b(?:told|tell|gave|give|said to|mentioned to|asked) you (?:before|earlier|previously)\b|"
    r"\b(?:told|gave|mentioned) (?:it )?(?:to you )?before\b")


def asks_earlier(query: str) -> bool:
    """The key-fact question asks for a value that has since been replaced."""
    return _EARLIER.search(_TOLD_BEFORE.sub(" ", without_ruled_out_past(fold(query)))) is not None


def prototype_intent(embedder: Embedder, query: str, vector: Vector | None) -> SlotIntent | None:
    """The slot a question asks for by meaning (no cue word said it)."""
    if vector is None or OTHERS_RE.search(fold(query)):
        return None  # "where is my sister getting married?": someone else's fact
    typed = question_slot(index(), embedder, query, vector)
    row = spec(typed.slot) if typed is not None else None
    if row is None or (row.not_with is not None and row.not_with.search(fold(query))):
        return None  # "换货的新品寄到哪了": the address of another thing's shipment
    return SlotIntent((row.name, *row.also), (), False)


def slot_view(store: Store, scope: Scope, as_of: datetime, intent: SlotIntent, past: bool,
              names_id: bool = False) -> SlotView:
    """The rule hits and stale units of a key-fact question (see the module docstring).
    ``names_id``: the question names an identifier itself ("订单 A123456 发货了吗"): the rule
    stage finds it exactly, and the user's other orders are no answer."""
    # a fact with one value (a phone, a plan, a delivery time); not a list (a coupon asked about,
    # "can I use SAVE20 on this order?", still says the user holds it) nor an order asked about
    # by its number (a question naming it is the evidence)
    view = SlotView(asked_single=list(dict.fromkeys(
        base_name(n) for n in intent.slots if (row := spec(n)) is not None and row.single)))
    wide = Scope(scope.user_id, None)
    role_named = False  # a name was given for the role a name question asks about
    for name in intent.slots:
        row = spec(name)
        if row is None:
            continue
        if row.single:
            person = row.value == "entity:person"
            if person and name == row.name and role_named:
                continue  # the role has a name: the user's own is no answer (ranked as found)
            current = store.find_units(scope, as_of=as_of, slot=name, limit=REPLACED_DEPTH)
            if person and name != row.name:
                if not current:
                    view.unnamed_role = name.split(":", 1)[1]
                    continue  # no name given for the role: the user's own answers
                role_named = True
            _single(store, view, row, current, past)
            if not current:
                view.unvalued.append(row)
            if person and current and view.current_person is None:
                view.current_person = (person_keys(current[0]) or loose_people(current[0]),
                                       unit_date(current[0]), name != row.name)
        elif row.value == "item":
            items = sl.items_of(store, wide, as_of, name)
            negations = sl.negations(store, row, items)
            view.negation_units.update(negations)
            gone = sl.said_off_since(store, wide, as_of, row, items, negations)
            # a restriction the user has since broken ("又开始吃辣了" after "我不吃辣") is history;
            # its item is not taken back (the user eats it again)
            lifted, lifters = sl.restrictions_lifted(store, wide, as_of, row, items)
            ended = sl.openness_ended(store, wide, as_of, row, items)  # "没什么忌口", then an allergy
            lifted = [*lifted, *ended]
            view.rule_ids.extend(u.id for u in lifters)  # the newest word on the diet
            # a list of likes or restrictions: an item said in words no rule typed is a missed
            # member, not a replaced value (only a dated list, below, is all there is)
            view.rule_ids.extend(u.id for u in items if u not in gone and u not in lifted)
            view.asked_items.append(row.name)
            view.stale_units.update(u.id for u in [*gone, *lifted])
            view.negated_items.extend((row, item) for item in sl.taken_back(
                store, row, [u for u in items if u.id in negations]))
            view.negated_items.extend((row, fold(u.slot.split(":", 1)[1])) for u in gone
                                      if u.slot is not None)
        elif row.value == "id" and not row.dated:  # orders; coupons are listed by date below
            if names_id:
                continue
            view.rule_ids.extend(u.id for u in sl.identifiers(store, wide, as_of, row))
        elif row.dated and row.question is not None:
            rx = row.question
            units = store.find_units(wide, as_of=as_of,
                                     types=[MemoryType.FACT_REFERENCE, MemoryType.USER_PROFILE],
                                     limit=sl.LIST_UNITS_READ)
            kinds = set(row.kinds)
            thing = row.thing or rx
            used_up = sl.ended_since(store, wide, as_of, row)
            view.stale_units.update(used_up)
            # a code with an expiry or said to be one ("券", "coupon"); a thing with an expiry of
            # its own named by the row's thing words even when its code was not read as a code
            # ("WELCOME", "a $10 off code, TENOFF, good until April 30")
            listed = [u for u in units if u.id not in used_up and (
                (any(e.kind in kinds for e in u.entities)
                 and (u.valid_until is not None or rx.search(fold(u.content))))
                or (u.valid_until is not None and (rx.search(fold(u.content))
                                                   or thing.search(fold(u.content)))))]
            view.rule_ids.extend(u.id for u in listed)
            view.listed = view.listed or bool(listed)
            view.listed_keys.update(fold(e.text) for u in listed for e in u.entities
                                    if e.kind in kinds and len(fold(e.text)) >= 3)
    view.rule_ids = list(dict.fromkeys(view.rule_ids))
    return view


def _single(store: Store, view: SlotView, row: SlotSpec, current: list[MemoryUnit], past: bool
            ) -> None:
    """The current value (the newest, when the write path left two of one slot current), the
    values it replaced (its ``supersedes`` chain, and an older current unit naming another
    value) and the turns that stated them."""
    newest = slot_values(row, current[0]) if current else frozenset()
    older = [u for u in current[1:] if names_other_value(slot_values(row, u), newest)]
    current = [u for u in current if u not in older]
    if newest and newest != {UNREAD}:
        view.current_values.append((row, newest, unit_date(current[0])))
    elif current and row.value == "level":
        # a plan typed in words no level reader holds ("Upgrade me to 500 Mbps")
        view.unread_since.append((row, unit_date(current[0])))
    view.rule_ids.extend(u.id for u in current)
    view.current_ids.setdefault(row.name, set()).update(u.id for u in current)
    replaced: list[MemoryUnit] = list(older)
    frontier = [u.supersedes for u in current if u.supersedes]
    seen = {u.id for u in current} | {u.id for u in older}
    for _ in range(REPLACED_DEPTH):
        ids = [i for i in frontier if i and i not in seen]
        if not ids:
            break
        older = store.get_units(ids)
        seen.update(ids)
        replaced.extend(older)
        frontier = [u.supersedes for u in older if u.supersedes]
    if not replaced:
        return
    view.earlier_values[row.name] = frozenset().union(*(slot_values(row, u) for u in replaced))
    if past:
        view.rule_ids.extend(u.id for u in replaced)
    turns = store.source_turns([u.id for u in [*current, *replaced]])
    for u in current:
        view.current_turns.update(t.key for t in turns.get(u.id, []))
    for u in replaced:
        view.stale_units.add(u.id)
        view.stale_turns.update(t.key for t in turns.get(u.id, []))
    view.stale_turns -= view.current_turns
