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

A move of plan ("switch me onto Smile Plus", "直接換成美容半年卡") is the plan's new value when
the user has a plan on file, typed or only said in words no rule typed ("先辦洗澡月卡好了",
"30-minute weekly lessons to start then"): those words are superseded with it
(:attr:`.drafts.UnitDraft.replaces`), or they would stay current beside the new plan.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..keyfacts.asking import all_supposed, asks_value, one_off, supposes_value
from ..keyfacts.schema import base_name, rendered_value, spec
from ..keyfacts.typing import MAX_TYPED_CHARS, QUESTION
from ..store.base import Scope, Store, TurnRecord
from ..text import fold
from ..units import Entity, MemoryType, MemoryUnit
from .choices import OTHER_VALUE_KINDS
from .drafts import UnitDraft
from .filler import content_left
from .meaning import TYPABLE, ProfileRead, recent_units, value_key
from .plan import last_sentences
from .slots import HOLDER_WINDOW_CHARS, names_another_slot, names_third_party, stated_as_own

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


def _after_a_one_off(text: str, content: str) -> bool:
    """The draft follows, in its message, a request for one order only ("can you courier it to my
    dad's place for this one? I'm staying with him. 4 Banksia St"): the value is that order's."""
    at = text.find(content[:SEEK_CHARS])
    return at > 0 and one_off(last_sentences(text[:at]))


#: How much of a draft's opening is sought in its turn's text.
SEEK_CHARS = 24


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
            if not stated_as_own(draft.content, said[0], said[1:]) or draft.once \
                    or _after_a_one_off(turn.text, draft.content):
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
    r"\b(?:(?P<grade>upgrade|downgrade|bump|(?:drop|step)(?=\w* (?:down|up|to)\b))|switch|move|change|put|swap|"
    r"transfer|convert)"
    r"(?:d|ed|s|es|ing|ped|ping|red|ring)?"
    r"(?: me| us| it| him| her| them| my (?:plan|membership|subscription|account|tier|level|package))?"
    r"(?: up| down| over| back)?\s+(?:on|in)?to\s+(?:the |a |an |my )?(?P<value>" + _EN_VALUE + r")"
    r"|\b(?:go|goes|going|went|opt|opted|opting|settle|settled)\s+for\s+(?:the |a |an )?"
    r"(?P<chosen>" + _EN_VALUE + r")"
    r"|\bmake it\s+(?:the |a |an )?(?P<made>" + _EN_VALUE + r")"
    # "let's do the Seasonal Box instead of the monthly one"
    r"|\b(?:let'?s|let us|we'?ll|i'?ll|we will|i will)\s+(?:do|take|go with|try|get)\s+(?:the |a |an )?"
    r"(?P<instead>" + _EN_VALUE + r")\s+instead\b", re.I)
_ZH_PLAN_MOVE = re.compile(
    r"(?:(?P<grade>升级|升級|降级|降級|升|降)|换|換|改|转|轉|调|調)(?:成|到|为|為|做|去)\s*"
    r"(?P<value>[\u4e00-\u9fffA-Za-z0-9+]{2,8}?)(?=吧|了|啊|呀|啦|嘛|喔|哦|吗|嗎|呢|就|从|從|下个|下個|[\s，,。.！!？?；;]|$)")


#: A move said up or down ("move me down to ReelPass Lite", "put us up to the Family plan"):
#: a change of grade, whatever the verb.
_MOVED_UP_DOWN = re.compile(r"\b(?:up|down)\s+(?:on|in)?to\b", re.I)


def _value_words(text: str) -> set[str]:
    """The words of a plan's name, folded (a Chinese name: its characters pairs)."""
    folded = fold(text)
    words = {w for w in re.findall(r"[a-z0-9]+", folded) if w not in _GENERIC_PLAN_WORDS}
    han = re.sub(r"[^\u4e00-\u9fff]", "", folded)
    return words | {han[i:i + 2] for i in range(len(han) - 1)} | ({han} if len(han) == 1 else set())


def _plan_moved_to(clause: str) -> tuple[str, bool, int] | None:
    """The plan a clause moves to and whether the verb is a change of grade (upgrade ...); a
    move supposed or asked about is none ("如果我升做 Platinum 要消費幾多？")."""
    for rx in (_EN_PLAN_MOVE, _ZH_PLAN_MOVE):
        m = rx.search(clause)
        if m is None or supposes_value(clause, m.start()) \
                or asks_value(clause, m.start(), m.end()):
            continue
        groups = m.groupdict()
        value = groups.get("made") or groups.get("chosen") or groups.get("instead") \
            or m.group("value")
        if value:
            graded = m.group("grade") is not None or _MOVED_UP_DOWN.search(m.group(0)) is not None
            return value.strip(" ,.!?"), graded, m.start()
    return None


#: Nouns of a plan, a package or a membership ("洗澡月卡", "月度套餐", "企业版", "入门款", "24节钢琴课",
#: "Family Paws plan", "30-minute weekly lessons"), folded.
_PLAN_NOUN = re.compile(r"卡(?!号|片|住|顿)|套餐|方案|计划|(?<![再出])版(?!本)|(?<![付退货现借存贷])款(?!式|项|号)|"
                        r"(?<![上下旷逃])课|包月|包年|订阅|会员|\b(?:plan|membership|package|subscription|"
                        r"pass|club|tier|bundle|lessons?|classes|program(?:me)?|edition|box)s?\b")
#: The plan named as what a move changes ("套餐换成企业版了", "switch my plan to …"): the move is
#: the plan's, whatever its new name (folded).
_PLAN_SUBJECT = re.compile(r"套餐|方案|订阅|\b(?:plan|membership|subscription|package)\b"
                           r"(?=.{0,24}(?:换|改|转|调|升|降|\b(?:to|into|for)\b))")


def _plan_nouns(text: str) -> set[str]:
    return {m.group(0).rstrip("s") for m in _PLAN_NOUN.finditer(fold(text))}


def _names_the_plan(content: str, nouns: set[str], words: set[str], graded: bool) -> bool:
    """``content`` names a plan the move to a plan of ``nouns`` and ``words`` replaces: one of a
    plan noun it shares, or any plan when the move grades ("降成"), or a word of the new name
    ("ReelPass Unlimited" -> "ReelPass Lite"; a Chinese pair of characters only beside a plan
    noun: pairs are shared by chance)."""
    said = _plan_nouns(content)
    if said & nouns or (graded and said):
        return True
    if not (said or _SUBSCRIBED.search(content)):
        return False  # "I also love grass jelly" shares words with "switching to grass jelly"
    shared = _value_words(content) & words
    return any((w.isascii() and len(w) >= MIN_SHARED_WORD) or said for w in shared)


#: Words of holding a plan ("Just renewed my ReelPass Unlimited", "办了", "signed up for").
_SUBSCRIBED = re.compile(r"续|續|办|辦|订|訂|开通|開通|报名|報名|加入|\b(?:renew\w*|subscri\w*|sign(?:ed|ing)? "
                         r"up|join\w*|enrol\w*|member\w*)\b", re.I)


#: Split of a unit into its clauses ("The router is a Netgear R7000 and I'm on the 500 Mbps plan").
_UNIT_CLAUSES = re.compile(r"[，,;；。.!！?？]|\s+(?:and|but|also)\s+|[\u4e00-\u9fff]\s+(?=[\u4e00-\u9fff])", re.I)
#: The most a clause beside the plan's may say (characters of content) for the unit to be
#: superseded with the plan: more, and the unit holds another fact that must stay current.
ASIDE_CHARS = 8


def _only_the_plan(unit: MemoryUnit) -> bool:
    """The unit says little besides its plan ("We'll do the Pamper Club Monthly for Biscotti",
    "先辦洗澡月卡好了，我家馬爾濟斯"): superseding it takes no other fact out of the present. "The router is
    a Netgear Nighthawk R7000 and I'm on the 500 Mbps plan" holds the router too: left to recall,
    which labels it history for a question about the plan (``spoke_of_before``)."""
    if any(e.kind not in ("date", "time") for e in unit.entities):
        return False
    clauses = [c for c in _UNIT_CLAUSES.split(unit.content) if c.strip()]
    if len(clauses) <= 1:
        return True  # one clause: its plan ("Just renewed my ReelPass Unlimited")
    asides = [c for c in clauses if not _plan_nouns(c)]
    return all(len(content_left(c)) <= ASIDE_CHARS for c in asides)


#: The shortest English word a plan's old and new names share to be one family.
MIN_SHARED_WORD = 4


def _named_as_plan(value: str, texts: Sequence[str]) -> set[str]:
    """The plan nouns the user's recent turns (theirs and the agent's) name ``value`` with ("The
    Duo plan is £16.99 for 2 accounts" makes "switch me to Duo" a move of plan): a noun right
    after or before it."""
    key = fold(value)
    if len(key) < MIN_NAMED_CHARS:
        return set()
    nouns: set[str] = set()
    for said in texts:
        text = fold(said)
        at = text.find(key)
        while at >= 0:
            near = text[max(0, at - NAMED_WINDOW):at] + " " + text[at + len(key):at + len(key)
                                                                  + NAMED_WINDOW]
            nouns |= {m.group(0).rstrip("s") for m in _PLAN_NOUN.finditer(near)}
            at = text.find(key, at + 1)
    return nouns


#: The shortest plan name read in the user's recent turns, how near a plan noun stands to it,
#: and how many of the user's latest turns are read.
MIN_NAMED_CHARS = 2
NAMED_WINDOW = 8
NAMED_TURNS = 40


def _plan_statements(store: Store, turn: TurnRecord, clause: str, value: str, graded: bool,
                     profile: ProfileRead | None = None,
                     named: set[str] | None = None) -> list[MemoryUnit]:
    """The user's earlier untyped statements of a plan that a move to ``value`` replaces: a
    clause of the user's own naming a plan (no question, nothing supposed, no other slot's
    value) that shares a plan noun or a word with ``value`` ("洗澡月卡" -> "美容半年卡",
    "30-minute weekly lessons" -> "45 min lessons"), or any such statement when the move
    grades the plan (downgrade, 降成) or names the plan as what it moves ("套餐换成企业版").
    ``named``: plan nouns the user's memory says the new value with (:func:`_named_as_plan`)."""
    nouns, words = _plan_nouns(value) | (named or set()), _value_words(value)
    graded = graded or _PLAN_SUBJECT.search(fold(clause)) is not None
    units = [u for u in recent_units(store, turn, profile)
             if u.slot is None and u.type in TYPABLE and u.created_at < turn.at
             and turn.turn_id not in u.source_turn_ids
             and not any(e.kind in OTHER_VALUE_KINDS for e in u.entities)
             and not QUESTION.search(u.content) and not all_supposed(u.content)
             and _names_the_plan(u.content, nouns, words, graded) and _only_the_plan(u)]
    if not units:
        return []
    turns = store.source_turns([u.id for u in units])
    return [u for u in units
            if turns.get(u.id) and all(t.role == "user" and t.speaker is None for t in turns[u.id])]


def adopt_level_change(store: Store, turn: TurnRecord, drafts: Sequence[UnitDraft],
                       profile: ProfileRead | None = None) -> None:
    """Type, in place, the user's untyped draft that moves their plan or membership to a named
    one, when the user has one on file: the move says so by its verb (upgrade, downgrade, 升级)
    or by a word the name shares with the plan on file ("Smile Basic" -> "switch me onto Smile
    Plus"). With no plan typed, the user's earlier words naming one are the plan on file
    (:func:`_plan_statements`), superseded with the move; with none, a move that grades ("upgrade
    me to 500 Mbps", "降到300M吧") or names a plan (its own noun, or one the user's memory says
    it with: "switch me to Duo" after "the Duo plan is £16.99") is the first plan on file. A
    name that is another slot's value ("switch to Saturdays", "改成微信") is none."""
    if turn.role != "user" or turn.speaker is not None or any(
            d.slot and base_name(d.slot) == "membership" for d in drafts):
        return
    row = spec("membership")
    if row is None:
        return
    for draft in drafts:
        if draft.slot is not None or draft.about_id is not None \
                or draft.type not in TYPABLE or len(draft.content) > MAX_TYPED_CHARS \
                or one_off(draft.content) or draft.once or all_supposed(draft.content) \
                or any(e.kind in OTHER_VALUE_KINDS for e in draft.entities):
            continue  # "我的email改成 X": a new e-mail, no plan
        moved = _plan_moved_to(draft.content)
        if moved is None or names_another_slot(moved[0]) \
                or names_third_party(draft.content[:moved[2]][-HOLDER_WINDOW_CHARS:]):
            continue  # "my sister wants to switch to Glow Plus": hers
        if row.looks_alike(draft.content) or (row.not_with is not None
                                              and row.not_with.search(draft.content)):
            continue  # "换成信用卡支付": a way to pay
        value, graded, _ = moved
        on_file = store.find_units(Scope(turn.user_id, None), as_of=turn.at, slot="membership",
                                   limit=1)
        if on_file:
            old = rendered_value(row, on_file[0].content) or on_file[0].content
            if fold(value) in fold(old) or not (graded or _value_words(value) & _value_words(old)):
                continue  # the plan on file said again, or a move to something else
        else:
            # no plan typed: the user's own earlier words naming one ("先辦洗澡月卡好了") are
            # the plan on file, superseded by the move
            said = [t.text for t in store.recent_turns(Scope(turn.user_id, None), NAMED_TURNS)
                    if t.at <= turn.at and t.key != turn.key]
            named = _named_as_plan(value, said)
            stated = _plan_statements(store, turn, draft.content, value, graded, profile, named)
            if not stated and not (graded or named or _plan_nouns(value)):
                continue  # a move to something no word here makes a plan ("switch to oat milk")
            draft.replaces = stated
        draft.slot = "membership"
        draft.type = MemoryType.USER_PROFILE
        draft.expires_in = None  # a profile fact's lifespan, not a request's
        return
