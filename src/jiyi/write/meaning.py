"""Typing by meaning on the write path, and contradictions in lists.

The rules (:mod:`.slots`) type the clauses they recognise exactly. A user's draft they leave
without a slot is typed by its nearest statement prototypes (:mod:`jiyi.keyfacts`) with the
vector the write path computed for it anyway:

* a single-valued slot (address, name, membership, delivery time, contact channel ...): the
  draft becomes that slot's value, the clause itself being the value ("以后寄公司吧，地址是…"),
  so it supersedes the slot's old value however the change was said;
* a list (liked food ...): the draft becomes one item (``food:牛肉``); a negation of an item
  ("我现在不吃牛肉了", "no longer vegetarian") supersedes only the units of that item.

A draft no prototype claims by its margin stays what it was: nothing is lost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from ..embed.routing import EmbedderRouting
from ..keyfacts.asking import all_supposed, asks, is_request, of_the_past, one_off, run_on_parts
from ..keyfacts.diets import holds_a_diet
from ..keyfacts.polarity import RETIRE_WINDOW, RETIRES, item_words, names_words
from ..keyfacts.prototypes import index
from ..keyfacts.schema import (
    SlotSpec,
    base_name,
    is_single,
    item_slot,
    list_item,
    names_item,
    negates,
    one_item,
    rendered_value,
    schema,
    spec,
)
from ..keyfacts.typing import MAX_TYPED_CHARS, QUESTION, cued_slot, owns, statement_slot
from ..store.base import IngestBatch, Scope, Store, TurnRecord, UnitEvent, Vector
from ..text import fold
from ..text import slotwords as sw
from ..text.levels import speaks_of_a_name
from ..text.segment import has_cjk
from ..text.timeofday import CALENDAR_DAY, EN_WEEKDAY, ZH_WEEKDAY
from ..units import MemoryType, MemoryUnit
from .answers import type_answers
from .buried import buried_item
from .drafts import DATED_KINDS, UnitDraft
from .filler import content_left

#: Draft types a clause typed by meaning may come from (a tool result or a batch report never).
TYPABLE = frozenset({MemoryType.FACT_REFERENCE, MemoryType.USER_PROFILE,
                     MemoryType.SESSION_STATE})
#: Clauses of a draft ("周日全天不行了，改午饭后": the first retires a value, the second states one).
_CLAUSES = re.compile(r"[，,;；。.!！]\s*")
#: Entities a list item's negation never holds: a clause giving one takes back a contact.
_CONTACT_KINDS = frozenset({"phone", "email", "address"})
#: Current profile units read to find the items a negation contradicts.
LIST_ITEMS_READ = 500
#: The user's current units of any type read once per turn (:meth:`ProfileRead.recent`): the
#: choices, lifts and plans said in words that a turn's drafts may replace.
RECENT_READ = 300


class ProfileRead:
    """The user's current profile units as of a turn (at most :data:`LIST_ITEMS_READ`), read
    from the store at most once. The drafts of one turn are placed against one stored state
    (the turn is written after its last draft), so every list-item check of the turn
    (:func:`adopt_negation`, :func:`contradicted_items`,
    :func:`jiyi.write.knownitems.take_back_known`) shares this one read instead of reading up
    to 500 units per draft."""

    def __init__(self, store: Store, turn: TurnRecord) -> None:
        self._store = store
        self._turn = turn
        self._units: list[MemoryUnit] | None = None
        self._recent: list[MemoryUnit] | None = None

    def covers(self, scope: Scope, turn: TurnRecord) -> bool:
        """The read answers the query of ``scope`` at ``turn`` (the user's whole memory)."""
        return turn is self._turn and scope == Scope(turn.user_id, None)

    def units(self) -> list[MemoryUnit]:
        if self._units is None:
            self._units = profile_units(self._store, Scope(self._turn.user_id, None), self._turn)
        return self._units

    def recent(self) -> list[MemoryUnit]:
        """The user's current units of any type as of the turn (at most :data:`RECENT_READ`),
        read once per turn."""
        if self._recent is None:
            self._recent = self._store.find_units(Scope(self._turn.user_id, None),
                                                  as_of=self._turn.at, limit=RECENT_READ)
        return self._recent


def recent_units(store: Store, turn: TurnRecord, profile: ProfileRead | None) -> list[MemoryUnit]:
    """The user's current units of any type as of ``turn``: ``profile``'s one read of the turn
    when it is the turn's, else a read of the store."""
    if profile is not None and profile.covers(Scope(turn.user_id, None), turn):
        return profile.recent()
    return store.find_units(Scope(turn.user_id, None), as_of=turn.at, limit=RECENT_READ)


def profile_units(store: Store, scope: Scope, turn: TurnRecord,
                  profile: ProfileRead | None = None) -> list[MemoryUnit]:
    """The profile units of ``scope`` current at the turn (the list rows' items live there):
    ``profile``'s one read of the turn when it covers the query, else a read of the store."""
    if profile is not None and profile.covers(scope, turn):
        return profile.units()
    return store.find_units(scope, as_of=turn.at, types=[MemoryType.USER_PROFILE],
                            limit=LIST_ITEMS_READ)


def keep_dated(drafts: Sequence[UnitDraft]) -> None:
    """A user's code with an expiry of its own ("HAPPY98X … lasts until May 3") is a durable
    fact until that day, not session state that is gone in hours; the expiry said in another
    clause of the turn ("帮我记一下优惠码X，4月5日之前有效") is the code's (in place)."""
    # an end said with a code of its own is that code's, not the others' ("LUCK88 到3月10号，
    # HOME66 到6月底"); an end said with none is the turn's code's
    coded = {e.value for d in drafts for e in d.entities if e.kind in DATED_KINDS}
    ends = {d.valid_until for d in drafts if d.valid_until is not None and (
        len(coded) <= 1 or not any(e.kind in DATED_KINDS for e in d.entities))}
    if len(ends) == 1:
        end = next(iter(ends))
        for draft in drafts:
            if draft.valid_until is None and any(e.kind in DATED_KINDS for e in draft.entities):
                draft.valid_until = end
    for draft in drafts:
        if draft.type is MemoryType.SESSION_STATE and draft.valid_until is not None \
                and any(e.kind in DATED_KINDS for e in draft.entities):
            draft.type = MemoryType.FACT_REFERENCE


def type_by_meaning(drafts: Sequence[UnitDraft], vectors: Sequence[tuple[str, Vector]],
                    routing: EmbedderRouting, speaker: str | None) -> None:
    """Give the user's untyped drafts the slot their meaning states (in place)."""
    embedder = routing.default
    profile_space = routing.for_type(MemoryType.USER_PROFILE).name
    idx = index()
    taken = _with_entity_slots({base_name(d.slot) for d in drafts if d.slot}, drafts)
    _type_by_rule(drafts, taken, speaker)
    echoes = type_answers(drafts, TYPABLE, taken, speaker)  # "u asked what food i like, X"
    for i, (draft, (space, vector)) in enumerate(zip(drafts, vectors, strict=True)):
        if draft.slot or draft.about_id or draft.type not in TYPABLE or i in echoes \
                or space != embedder.name or profile_space != space:
            continue
        typed = statement_slot(idx, embedder, draft.content, vector) \
            or cued_slot(idx, embedder, draft.content, vector)
        row = spec(typed.slot) if typed is not None else None
        if row is None and _states_own_diet(draft):
            row = spec("food")  # a diet no prototype claims ("I'm lactose intolerant")
        if row is None or (row.single and row.name in taken) or _event_only(row, draft.content) \
                or (row.value in ("level", "item") and speaks_of_a_name(draft.content)) \
                or (row.single and (of_the_past(draft.content) or one_off(draft.content) or draft.once
                                    or all_supposed(draft.content)
                                    or _either_or(row, draft.content))) \
                or _gives_entity(row, draft) or (not row.single and not names_item(row, draft.content)) \
                or (not row.single and not row.recurring and _a_time(list_item(row, draft.content))):
            continue
        if row.single:
            draft.slot = f"{row.name}@{speaker.casefold()}" if speaker else row.name
            taken.add(row.name)
        else:
            draft.slot = item_slot(row.name, list_item(row, draft.content))
        draft.type = MemoryType.USER_PROFILE
    _type_buried(drafts, echoes)


#: A weekday: what a standing time is made of, no item of a list of things ("the Tuesday thing
#: no longer works for me" names no food; "晚上不吃辣了" still does, and "一週五天" counts days).
_TIME_ITEM = re.compile(f"(?<![一每几幾两兩]){ZH_WEEKDAY}(?!\\s*[天日次餐晚])|{EN_WEEKDAY}", re.I)


def _a_time(item: str) -> bool:
    return _TIME_ITEM.search(item) is not None


def _states_own_diet(draft: UnitDraft) -> bool:
    """The user states a diet or a food restriction of their own (:func:`.diets.holds_a_diet`:
    "I'm lactose intolerant", "no pork please"), not asked, supposed or someone else's (no one
    named: "Sam in accounts has a peanut allergy")."""
    text = draft.content
    return holds_a_diet(text) and QUESTION.search(text) is None and owns("food", text) \
        and not all_supposed(text) and not one_off(text) \
        and not any(e.kind == "person" for e in draft.entities) \
        and (has_cjk(text) or _MY_DIET_EN.search(text) is not None)


#: An English diet said as the user's: in the first person, or as a request ("no pork please",
#: "nothing with nuts"); "Sam in accounts has a peanut allergy" is Sam's.
_MY_DIET_EN = re.compile(r"\b(?:i|i'm|i’m|im|i've|my|me|we|we're|our|us)\b|^\W*(?:no|not|nothing|none|"
                         r"please|pls|plz|don't|do not|avoid|without|hold the|skip|zero|strictly|"
                         r"only)\b", re.I)


def _type_buried(drafts: Sequence[UnitDraft], echoes: set[int]) -> None:
    """A like buried in a run-on draft the typing left alone ("…能开发票不我好爱酸辣粉的说退货
    咋弄啊…"): the draft, kept whole, is that item's unit (see :mod:`.buried`)."""
    rows = [r for r in schema() if r.value == "item" and r.negation is not None]
    for i, draft in enumerate(drafts):
        if draft.slot or draft.about_id or draft.type not in TYPABLE or i in echoes:
            continue
        for row in rows:
            item = buried_item(row, draft.content)
            if item and not negates(row, _around(draft.content, item)):
                draft.slot = item_slot(row.name, item)
                draft.type = MemoryType.USER_PROFILE
                break


def _with_entity_slots(taken: set[str], drafts: Sequence[UnitDraft]) -> set[str]:
    """The slots a turn's typed drafts hold, plus each clause-valued slot answered by one of
    them: a turn giving a new e-mail or phone ("改一下信箱，新的是…") states no contact channel
    in its other clauses ("改一下信箱" names the e-mail being changed), unless one of them names
    another medium ("以后有事发短信 手机 137…": SMS, and the number)."""
    return taken | {row.name for row in schema()
                    if row.value == "clause" and set(row.also) & taken
                    and not any(d.slot is None and not _gives_entity(row, d)
                                and (row.names_other_medium(d.content) or _reach_by(row, d.content))
                                for d in drafts)}


def _reach_by(row: SlotSpec, clause: str) -> bool:
    """A clause naming how to reach the user, in the row's words of its activity and a value
    word ("Contact me by email", "通知发我邮箱"): a channel, beside the address the turn gives."""
    return row.context is not None and row.value_words is not None \
        and row.context.search(clause) is not None and row.value_words.search(clause) is not None \
        and _EDITS_VALUE.search(clause) is None


#: Words editing a value ("Update my email please", "改一下信箱"): the clause names the entity
#: the turn gives, not a way to be reached.
_EDITS_VALUE = re.compile(r"\b(?:update|updated|change|changed|correct|fix|edit|amend)\b|改|换|換|更新|修改|更正",
                          re.I)


def _type_by_rule(drafts: Sequence[UnitDraft], taken: set[str], speaker: str | None) -> None:
    """Clause-valued slots stated by their rule (a value word and a cue word, see
    :meth:`jiyi.keyfacts.schema.SlotSpec.states`): the last such clause of the turn that does
    not retire a value ("别再用微信语音了" does) is the slot's value."""
    for row in schema():
        if not row.single or row.name in taken or row.value_words is None:
            continue
        # a request ("请安排在周末配送") states a preference; a level in session state was asked
        # about ("I'm a Silver member, right?"), not stated
        types = TYPABLE if row.value == "clause" else TYPABLE - {MemoryType.SESSION_STATE}
        found = [d for d in drafts if d.slot is None and d.about_id is None
                 and d.type in types and len(d.content) <= MAX_TYPED_CHARS
                 and not _asked(row, d.content) and row.states(d.content)
                 and not _event_only(row, d.content) and not _gives_entity(row, d)
                 and owns(row.name, _said(row, d.content))
                 and _fresh_value(row.value_words, d.content, row.recurring)]
        found = found or _pointed(row, drafts) or _in_context(row, drafts, types) \
            or _suited(row, drafts, types) or [
            d for d in drafts if d.slot is None and d.about_id is None and d.type in types
            and not _gives_entity(row, d) and _states_in_window(row, d.content)]
        if found and not one_off(found[-1].content) and not found[-1].once \
                and not all_supposed(found[-1].content) and not of_the_past(found[-1].content) \
                and not _either_or(row, found[-1].content) \
                and not (row.value == "level" and speaks_of_a_name(found[-1].content)):
            # "这单能不能下午三点送": this order's; "如果我搬去…": supposed
            draft = found[-1]
            draft.slot = f"{row.name}@{speaker.casefold()}" if speaker else row.name
            draft.type = MemoryType.USER_PROFILE
            taken.add(row.name)


#: Words pointing back at a value just said ("我周末下午有空，挑这个时间送", "home by 6, come then").
_POINTER = re.compile(r"这个时间|這個時間|那个时间|那個時間|这个点|這個點|那个点|那個點|那会儿|那會兒|那时候|"
                      r"那時候|这时候|這時候|这个时段|這個時段|那个时段|那個時段|\b(?:then|that time|those times|"
                      r"at that time)\b", re.I)


def _pointed(row: SlotSpec, drafts: Sequence[UnitDraft]) -> list[UnitDraft]:
    """The draft holding a value that the next draft points back to with the slot's cue
    ("我一般周末下午有空" + "挑这个时间送"): that draft states the slot."""
    words = row.value_words
    if words is None or row.statement_cue is None:
        return []
    return [prev for prev, nxt in pairwise(drafts)
            if prev.slot is None and prev.about_id is None and prev.type in TYPABLE
            and nxt.slot is None and _POINTER.search(nxt.content)
            and row.statement_cue.search(nxt.content) and not words.search(nxt.content)
            and not QUESTION.search(nxt.content) and len(prev.content) <= MAX_TYPED_CHARS
            and not QUESTION.search(prev.content)
            and _fresh_value(words, prev.content, row.recurring)
            and owns(row.name, prev.content) and not _gives_entity(row, prev)]


def _in_context(row: SlotSpec, drafts: Sequence[UnitDraft], types: frozenset[MemoryType]
                ) -> list[UnitDraft]:
    """Drafts holding a fresh value word of the slot with no cue word of their own, in a turn
    whose other words name the slot's activity (:meth:`SlotSpec.states_in_turn`: "关于配送：
    工作日晚上七点以后", "有事的话：LINE", "About drop-offs: Sunday afternoons from now on"):
    not asked, not an event's time, not someone else's, little more than the value."""
    words = row.value_words
    if words is None:
        return []
    told = [p for d in drafts for m in _SUB_CLAUSE.finditer(d.content)
            for p in run_on_parts(m.group(0)) if not QUESTION.search(p)]
    turn = "，".join(told)  # the activity named in a statement ("快递到哪了？" names none)
    return [d for d in drafts if d.slot is None and d.about_id is None and d.type in types
            and len(d.content) <= MAX_TYPED_CHARS and row.states_in_turn(d.content, turn)
            and _bare(row, d.content) and not _asked(row, d.content)
            and not _event_only(row, d.content) and not _gives_entity(row, d)
            and owns(row.name, _said(row, d.content))
            and _fresh_value(words, d.content, row.recurring)]


#: Words of how often or how many, and a clock time's rest, that leave a value bare ("I'm free
#: *most* weekday evenings", "after 6*pm* is fine").
_HABIT = re.compile(r"\b(?:most|mostly|usually|always|generally|normally|typically|any|every|all|"
                    r"pretty much|basically|a\.?m\.?|p\.?m\.?|o'?clock|ish)(?![\w'])|一般|通常|平时|平時|基本上|多数|多數", re.I)


def _suited(row: SlotSpec, drafts: Sequence[UnitDraft], types: frozenset[MemoryType]
            ) -> list[UnitDraft]:
    """Drafts with a sub-clause that is nothing but a fresh value of the slot and words taking
    it as the user's wish (the row's ``suits``: "weekday mornings suit me", "I'm free after
    6pm", "週末先得閒", "平日晚上OK", "LINE就好", "email is fine"), not asked, no event's time,
    not someone else's. A word left beside them ("the evening *news* is great", "晚上可以*吃火锅*")
    says the value is something else's."""
    words, suits = row.value_words, row.suits
    if words is None or suits is None:
        return []

    def suited(part: str) -> bool:
        part = part.strip()
        if not (words.search(part) and suits.search(part)):
            return False
        rest = part
        for rx in (words, row.statement_cue, suits, _HABIT):
            rest = rx.sub(" ", rest) if rx is not None else rest
        if has_cjk(rest):
            return len(content_left(rest)) <= BARE_CJK_CHARS
        return not any(content_left(w) for w in rest.split())

    return [d for d in drafts if d.slot is None and d.about_id is None and d.type in types
            and len(d.content) <= MAX_TYPED_CHARS
            and any(suited(p) for m in _SUB_CLAUSE.finditer(d.content)
                    for p in run_on_parts(m.group(0)) if not QUESTION.search(p))
            and not _asked(row, d.content) and not _event_only(row, d.content)
            and not _gives_entity(row, d) and owns(row.name, _said(row, d.content))
            and _fresh_value(words, d.content, row.recurring)]


#: What a clause stating a value with no cue of its own may hold besides its value words and
#: cue words (after the stop-list and glue words are gone): this many Chinese characters
#: ("以后", "比較") or Latin words ("from", "work best"); "我周末要去爬山" (去爬山) tells of
#: something else.
BARE_CJK_CHARS = 2
BARE_LATIN_WORDS = 2


def _bare(row: SlotSpec, clause: str) -> bool:
    """The clause is little more than a value of the slot ("工作日晚上七点以后", "最好礼拜六下午",
    "Sunday afternoons from now on"): what is left once its value words and cue words are gone
    is within :data:`BARE_CJK_CHARS` / :data:`BARE_LATIN_WORDS`."""
    rest = clause
    for words in (row.value_words, row.statement_cue):
        rest = words.sub(" ", rest) if words is not None else rest
    if has_cjk(rest):
        return len(content_left(rest)) <= BARE_CJK_CHARS
    return sum(1 for w in rest.split() if content_left(w)) <= BARE_LATIN_WORDS


#: In a run-on, the characters this close to a value word are read with it (Chinese; twice as
#: many in a Latin script, whose words are longer).
VALUE_WINDOW = 14


def _states_in_window(row: SlotSpec, text: str) -> bool:
    """A run-on draft (chat fragments glued together, questions among them) stating the slot in
    one of its fragments: a value word with the slot's cue word close by, no retiring word right
    by it, not asked ("…仓库在哪个城市发货啊收货时间更新成晚上七点到九点行那就酱紫吧…", "… between
    7 and 9pm works best for drop-offs can I get an invoice …")."""
    words, cue = row.value_words, row.statement_cue
    if words is None or cue is None:
        return False
    for m in words.finditer(text):
        span = VALUE_WINDOW * (1 if has_cjk(m.group(0) + text[m.end():m.end() + 2]) else 2)
        near = text[max(0, m.start() - span):m.end() + span]
        if cue.search(near) and not QUESTION.search(text[m.start():m.end() + span // 2]) \
                and _fresh_value(words, text[max(0, m.start() - RETIRE_WINDOW):
                                             m.end() + RETIRE_WINDOW], row.recurring) \
                and owns(row.name, near) and not (row.recurring and CALENDAR_DAY.search(near)) \
                and not (row.event is not None and row.event.search(near)):
            return True
    return False


#: A sub-clause with its closing marks ("有小龙虾吗？", "can you adjust the delivery time?").
_SUB_CLAUSE = re.compile(r"[^，,;；。.!！?？]+[，,;；。.!！?？]*")


def _asked(row: SlotSpec, draft: str) -> bool:
    """The draft only asks about the slot: every sub-clause naming a value of it is a question
    that is no request ("你们周末送货吗？" asks; "我周末才有空，送货时间能帮我调一下吗？" and
    "Can you tell the courier to come after 4 pm?" state a wish)."""
    parts, valued = _valued_parts(row, draft)
    if not valued:
        return asks(draft)
    # the second half of an either-or question asks too ("那邊也會回嗎 還是只有LINE")
    return all((asks(parts[i]) or _or_half(parts, i)) and not is_request(parts[i])
               for i in valued)


def _either_or(row: SlotSpec, draft: str) -> bool:
    """Every value of the slot the draft names is in the second half of an either-or question
    ("那邊也會回嗎 還是只有LINE"): asked, not stated."""
    parts, valued = _valued_parts(row, draft)
    return bool(valued) and all(_or_half(parts, i) for i in valued)


def _valued_parts(row: SlotSpec, draft: str) -> tuple[list[str], list[int]]:
    """The draft's parts (:func:`_parts`) and the indexes of those naming a value of the slot."""
    parts = _parts(draft)
    return parts, [i for i, p in enumerate(parts)
                   if row.value_words is not None and row.value_words.search(p)]


def _or_half(parts: list[str], i: int) -> bool:
    """Part ``i`` opens the second half of an either-or question whose first half asks."""
    return i > 0 and _OR_ELSE.match(parts[i]) is not None and asks(parts[i - 1])


def _parts(draft: str) -> list[str]:
    return [q for m in _SUB_CLAUSE.finditer(draft) for p in run_on_parts(m.group(0))
            for q in _ZH_SPACED.split(p) if q.strip()]


#: A space between Chinese words: typed without stops, it ends a sentence.
_ZH_SPACED = re.compile(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")
#: The opening of an either-or question's second half.
_OR_ELSE = re.compile(r"\s*(?:还是|還是|抑或|定系|定係|\bor\b)", re.I)


def _gives_entity(row: SlotSpec, draft: UnitDraft) -> bool:
    """A clause-valued slot's clause that holds an entity its row names as another answer (a
    phone number, an e-mail: "有通知寄X@Y就好", "call (401) 334-8381 during office hours") states
    that value, not a new preference: the phone and e-mail slots change by their own."""
    return row.value == "clause" and any(e.kind in row.kinds for e in draft.entities)


def _said(row: SlotSpec, draft: str) -> str:
    """The sub-clauses of a draft that speak of the slot (a value word or a cue word): whose
    value it is is read there, not in a remark glued to it ("我朋友推荐你们家的，以后下午三点
    到五点送": the friend recommended the shop; the delivery time is the user's)."""
    parts = [p for p in _CLAUSES.split(draft)
             if (row.value_words is not None and row.value_words.search(p))
             or (row.statement_cue is not None and row.statement_cue.search(p))]
    return "，".join(parts) or draft


def _event_only(row: SlotSpec, draft: str) -> bool:
    """Every sub-clause of the draft naming a value of a standing-time slot names a day of the
    calendar too, or words of an event (the row's ``event``: "周五下午三点我有个会", "the parcel
    arrived at 3pm"): the draft tells of an event ("It poured on the night of 13 March 2026, I
    was worried the parcel would get soaked"), whatever prototype or cue word is near."""
    if not row.recurring:
        return False
    parts = _CLAUSES.split(draft)
    valued = [p for p in parts if row.value_words is None or row.value_words.search(p)]

    def event(p: str) -> bool:
        return CALENDAR_DAY.search(p) is not None or (
            row.event is not None and row.event.search(p) is not None)

    if not valued:
        return any(CALENDAR_DAY.search(p) for p in parts)
    return all(event(p) for p in valued)


def _fresh_value(words: re.Pattern[str], clause: str, recurring: bool = False) -> bool:
    """A value word of the clause that no retiring word of its own sub-clause stands right
    before or after ("改站内信", "周日不行了，改午饭后" yes; "别再用微信语音了", "微信我不常看了"
    no; "九点之前" is a time, not a retirement). ``recurring``: the slot's value is a standing
    time; one in a sub-clause naming a day of the calendar is an event ("2026年3月20日晚上下了
    好大的雨")."""
    for part in _CLAUSES.split(clause):
        if recurring and CALENDAR_DAY.search(part):
            continue
        for m in words.finditer(part):
            after = part[m.end():m.end() + RETIRE_WINDOW]
            r = RETIRES.search(after)
            if r is not None and words.match(part, m.end() + r.end() + _lead_space(
                    part, m.end() + r.end())):
                after = after[:r.start()]  # "tues not thurs": the "not" is the next value's
            near = part[max(0, m.start() - RETIRE_WINDOW):m.start()] + " " + after
            if not RETIRES.search(near):
                return True
    return False


def _lead_space(text: str, at: int) -> int:
    """The number of blanks at ``text[at:]``."""
    return len(text[at:]) - len(text[at:].lstrip())


#: In a run-on, the words this close to a negation are the ones it may take back.
NEGATION_WINDOW = 12


def _around(text: str, item: str) -> str:
    """The words of ``text`` within :data:`NEGATION_WINDOW` of ``item`` (folded case)."""
    at = text.casefold().find(item)
    if at < 0:
        return text
    return text[max(0, at - NEGATION_WINDOW):at + len(item) + NEGATION_WINDOW]


def _negation_windows(row: SlotSpec, text: str) -> str:
    """The words right around each negation of a run-on ("…赠品还有吗猪脚先不要 我现在不喜欢了
    澳门可以寄吗…"): what else the run-on says takes nothing back."""
    if row.negation is None:
        return text
    return "，".join(text[max(0, m.start() - NEGATION_WINDOW):m.end() + NEGATION_WINDOW]
                    for m in row.negation.finditer(text))


def contradicted_items(store: Store, scope: Scope, turn: TurnRecord, draft: UnitDraft,
                       profile: ProfileRead | None = None) -> list[MemoryUnit]:
    """The current items of a list that a negating draft contradicts: units of the same list
    that share a word of the item with the negation ("牛肉" in "我现在不吃牛肉了" contradicts
    "有牛肉的我都喜欢"; "医生让我别吃芝士" contradicts "我口味偏爱芝士"). A negation naming no item
    of its own ("我不吃了") names the one of its turn ("以后别推荐牛肉了，我不吃了")."""
    row = spec(draft.slot) if draft.slot else None
    if row is None or row.single or draft.slot is None or not negates(row, draft.content):
        return []
    prefix = row.name + ":"
    text = negating_part(row, draft.content)
    run_on = len(text) > MAX_TYPED_CHARS or QUESTION.search(text) is not None
    if run_on:  # only a listed item named right by a negation is taken back
        text = _negation_windows(row, text)
    negated = [] if run_on else item_words(row, text)
    said = fold(text if negated or run_on else turn.text)
    out: list[MemoryUnit] = []
    for unit in profile_units(store, scope, turn, profile):
        if unit.slot is None or not unit.slot.startswith(prefix) or negates(row, unit.content):
            continue
        content = fold(unit.content)
        if names_words(item_words(row, unit.slot[len(prefix):]), said) \
                or names_words(negated, content):
            out.append(unit)
    return out


def negating_part(row: SlotSpec, content: str) -> str:
    """The sub-clauses of a draft that take an item of the list back (a negation word in them);
    the whole draft when none does."""
    parts = [p for p in _CLAUSES.split(content) if p.strip()]
    keep = [i for i, p in enumerate(parts) if negates(row, p)]
    if not keep:
        return content
    return "，".join(p for i, p in enumerate(parts) if i in keep)


#: Words of sending, shipping or calling, and of eating or drinking: a negation with the
#: first and none of the second takes back where or how, never a food.
_SENDING = re.compile(r"寄|送到|送去|打电话|打電話|发到|發到|發去|发去|\b(?:send|sent|ship|deliver|call|"
                      r"text|e-?mail|mail|post)\b", re.I)
_EATING = re.compile(r"吃|喝|食|饮|飲|\b(?:eat|eating|drink|drinking|food|diet)\b", re.I)


def adopt_negation(store: Store, turn: TurnRecord, draft: UnitDraft,
                   profile: ProfileRead | None = None) -> None:
    """A user's untyped clause that negates an item the user's list holds ("I've given up
    chocolate" after "I love chocolate") is that list's negation (in place): typing by meaning
    may miss a negation, the item it contradicts is evidence enough."""
    if draft.slot or draft.about_id or turn.role != "user" or draft.type not in TYPABLE \
            or any(e.kind in _CONTACT_KINDS for e in draft.entities):
        return  # "X ✅ the hotmail one I don't check anymore" takes back a contact, no item
    for row in schema():
        if row.single or row.negation is None:
            continue
        # the sub-clauses that take the item back, not the chit-chat packed with them in a
        # compound turn ("我朋友推荐你们家的，我先去吃饭，我最近戒掉羊肉了")
        text = negating_part(row, draft.content)
        if (len(text) > MAX_TYPED_CHARS or QUESTION.search(text)) and negates(row, text):
            _adopt_buried_negation(store, turn, draft, row, profile)
            if draft.slot:
                return
            continue
        if not negates(row, text) or QUESTION.search(text) or not owns(row.name, text) \
                or (row.name == "food" and _SENDING.search(text) and not _EATING.search(text)) \
                or speaks_of_a_name(text):
            continue  # "账单以后寄这儿，别再寄东湖大郡了" takes back an address, no food; "I've
            # stopped going by Maggie" a name
        if item_words(row, text):
            item = list_item(row, text)
        elif len(turn.text) <= MAX_TYPED_CHARS and names_item(row, turn.text) \
                and one_item(item := list_item(row, turn.text)):
            pass  # "sushi? nah, done with that": the item is the one the turn names plainly
        else:
            continue
        if not row.recurring and _a_time(item):
            continue  # "the Tuesday thing no longer works for me": a standing time, no item
        draft.slot = item_slot(row.name, item)
        if contradicted_items(store, Scope(turn.user_id, None), turn, draft, profile) \
                or one_item(item):
            # an item the list holds, or one plainly named ("羊肉串我戒了哈"): the like it takes
            # back may never have been typed, its words still must not read as a current like
            draft.type = MemoryType.USER_PROFILE
            return
        draft.slot = None


def _adopt_buried_negation(store: Store, turn: TurnRecord, draft: UnitDraft, row: SlotSpec,
                           profile: ProfileRead | None = None) -> None:
    """A run-on draft (too long to type, or with questions glued on) that takes back, right by
    one of its negations, an item the user's list holds ("…澳门可以寄吗猪脚先不要 我现在不喜欢了退货…"): the negation of that item (in place)."""
    draft.slot = item_slot(row.name, "")
    found = contradicted_items(store, Scope(turn.user_id, None), turn, draft, profile)
    prefix = row.name + ":"
    items = [u.slot[len(prefix):] for u in found if u.slot and u.slot.startswith(prefix)]
    if items:
        draft.slot = item_slot(row.name, items[0])
        draft.type = MemoryType.USER_PROFILE
    else:
        draft.slot = None


#: Words that say a value is wanted instead of another ("改成…", "…不行了，改…", "make it …
#: instead", "… works best now") or correct the one said ("I meant tues not thurs", "說錯了，
#: 是禮拜五"): with a value word of a slot the user already has a value of,
#: a clause naming no slot is that slot's new value.
CHANGE_TO = re.compile(sw.alternation(sw.INSTEAD_ZH, sw.VALUE_CORRECTED_ZH) + "|"
                       + sw.en_words(sw.INSTEAD_EN, sw.VALUE_CORRECTED_EN), re.I)


def adopt_changes(store: Store, turn: TurnRecord, drafts: Sequence[UnitDraft]) -> None:
    """A user's untyped clause naming a fresh value of a clause-valued slot the user already
    has, in words that want it instead ("最近换了班，改成上午九点到十一点吧" after a delivery
    time; "{old} doesn't work anymore, make it weekday evenings"), is that slot's new value (in
    place): the change names no slot word, the slot the user has is evidence enough."""
    if turn.role != "user" or turn.speaker is not None:
        return
    taken = _with_entity_slots({base_name(d.slot) for d in drafts if d.slot}, drafts)
    wide = Scope(turn.user_id, None)
    # the change may be said in another clause of the message ("以后别给我打电话了，我换了工作…
    # 有事发微信"): the message's words count for each of its drafts
    message_changes = CHANGE_TO.search(turn.text) is not None
    retired: dict[str, bool] = {}  # per slot: the message retires one of its values (read once)

    def retires(row: SlotSpec) -> bool:
        if row.name not in retired:
            retired[row.name] = message_changes and _retires_in(row, turn.text)
        return retired[row.name]

    for row in schema():
        if not row.single or row.value != "clause" or row.value_words is None \
                or row.name in taken:
            continue
        found = [d for d in drafts if d.slot is None and d.about_id is None
                 and d.type in TYPABLE and len(d.content) <= MAX_TYPED_CHARS
                 and (CHANGE_TO.search(d.content) or retires(row))
                 and not _asked(row, d.content)
                 and _fresh_value(row.value_words, d.content, row.recurring)
                 and not _event_only(row, d.content)
                 and owns(row.name, d.content)
                 and not _gives_entity(row, d) and not one_off(d.content) and not d.once
                 and not all_supposed(d.content)]
        if found and store.find_units(wide, as_of=turn.at, slot=row.name, limit=1):
            draft = found[-1]
            draft.slot = row.name
            draft.type = MemoryType.USER_PROFILE
            taken.add(row.name)


def _retires_in(row: SlotSpec, text: str) -> bool:
    """The message retires a value of the slot in a clause of its own ("以后别给我打电话了"): a
    value word with a retiring word beside it."""
    assert row.value_words is not None
    for part in _CLAUSES.split(text):
        for m in row.value_words.finditer(part):
            near = part[max(0, m.start() - RETIRE_WINDOW):m.end() + RETIRE_WINDOW]
            if RETIRES.search(near):
                return True
    return False


#: Current units of the user read to find the ones that still hold a replaced value.
COMPANIONS_READ = 500
#: A phone number is compared by its last digits (the national part: "+86 138…" = "138…").
PHONE_KEY_DIGITS = 8
_DIGIT_RUN = re.compile(r"\+?\d[\d\s().\-]*\d")


def value_key(row: SlotSpec, value: str) -> str:
    """What a unit must contain to hold ``value`` (folded letters and digits; a phone's last
    digits); empty when too short to tell."""
    if row.name == "phone":
        digits = re.sub(r"\D", "", value)
        return digits[-PHONE_KEY_DIGITS:] if len(digits) >= PHONE_KEY_DIGITS - 1 else ""
    key = "".join(ch for ch in fold(value) if ch.isalnum())
    return key if len(key) >= 2 else ""


def _holds(row: SlotSpec, key: str, content: str) -> bool:
    if row.name == "phone":
        return any(key in re.sub(r"\D", "", m.group(0)) for m in _DIGIT_RUN.finditer(content))
    return key in "".join(ch for ch in fold(content) if ch.isalnum())


def _slot_values(row: SlotSpec, unit: MemoryUnit) -> list[str]:
    """The value keys a slot unit holds: its canonical sentence's value, or its entities of
    the slot's kinds (a clause typed by meaning holds no separable value: none)."""
    values = [e.text for e in unit.entities if e.kind in row.kinds]
    said = rendered_value(row, unit.content)
    if said is not None:
        values.append(said)
    return [k for k in dict.fromkeys(value_key(row, v) for v in values) if k]


def retire_companions(store: Store, turn: TurnRecord, batch: IngestBatch) -> None:
    """A replaced value is history everywhere, not only in its slot unit: the user's other
    current units that still hold it without the new value ("有事打我手机X" beside the slot fact,
    "旧号码X停用了" in the change turn itself) are superseded by the new value too (in place,
    on ``batch``). They stay stored and are recalled, labelled, for questions about the past."""
    pairs = [(old, by) for old, _, reason, by in batch.invalidations
             if reason == "superseded" and by is not None]
    if not pairs:
        return
    new_units = {u.id: u for u in batch.upserts}
    olds = {u.id: u for u in store.get_units([old for old, _ in pairs])}
    retire: list[tuple[SlotSpec, list[str], list[str], str]] = []
    for old_id, by in pairs:
        old, new = olds.get(old_id), new_units.get(by)
        row = spec(old.slot) if old is not None and old.slot else None
        if old is None or new is None or row is None or not row.single \
                or base_name(new.slot or "") != row.name:
            continue
        keys = _slot_values(row, old)
        if keys:
            retire.append((row, keys, _slot_values(row, new), new.id))
    if not retire:
        return
    done = {old for old, _, _, _ in batch.invalidations}
    stored = store.find_units(Scope(turn.user_id, None), as_of=turn.at, limit=COMPANIONS_READ)
    for unit in [*stored, *batch.upserts]:
        if unit.id in done or (unit.id in new_units and unit.slot):
            continue
        for row, keys, new_keys, by in retire:
            if (unit.slot and base_name(unit.slot) == row.name) or unit.id == by:
                continue
            if row.value == "clause" and unit.slot and is_single(unit.slot):
                continue  # a new contact channel is no new e-mail: that slot changes by its own
            if any(_holds(row, k, unit.content) for k in keys) \
                    and not any(_holds(row, k, unit.content) for k in new_keys):
                batch.invalidations.append((unit.id, turn.at, "superseded", by))
                batch.events.append(UnitEvent(unit.id, turn.at, "superseded", by))
                done.add(unit.id)
                break
