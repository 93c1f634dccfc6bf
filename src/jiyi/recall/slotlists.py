"""The list and dated slots of a key-fact question: a list's current items and the ones the
user has taken back or lifted since (food likes, diets, allergies), the user's newest orders,
and the codes said to be used up. Read by :func:`jiyi.recall.keyslots.slot_view`."""

from __future__ import annotations

import re
from datetime import datetime

from ..keyfacts.diets import diet_excludes, diet_lifted, eats_anything, holds_a_diet, states_diet
from ..keyfacts.ended import dated_codes, ended_codes
from ..keyfacts.polarity import item_words, may_take_back, names_words, takes_back
from ..keyfacts.schema import SlotSpec, list_item, negates, one_item
from ..store.base import Scope, Store
from ..text import fold
from ..units import MemoryType, MemoryUnit, unit_date, unit_status

#: Units read to list a multi-valued slot's current items.
LIST_UNITS_READ = 300
#: Current items of a list given as rule hits (a list question wants them all).
LIST_ITEMS = 8
#: An item taken back shorter than this ("鱼") is not looked for in other units' text.
MIN_ITEM_CHARS = 2


#: Units read, newest first, to find the codes the user has said are used up or void.
ENDED_UNITS_READ = 300


def ended_since(store: Store, scope: Scope, as_of: datetime, row: SlotSpec) -> set[str]:
    """The units (any type) holding only codes of a dated row that the user said by ``as_of``
    have ended ("TST50 用咗喇", "PIZZA5 doesn't work anymore": :mod:`jiyi.keyfacts.ended`),
    the saying included: history for a question about what can still be used, never listed
    as usable. A code said to have ended after ``as_of`` still counts as valid then."""
    if row.ended is None:
        return set()
    units = store.find_units(scope, as_of=as_of, limit=ENDED_UNITS_READ)
    known = set().union(*(dated_codes(row, u) for u in units)) if units else set()
    said = [(u, dated_codes(row, u, known)) for u in units]
    ended: set[str] = set()
    for u, codes in said:
        # a unit of one code and a date, an expiry still ahead when said, speaks of that date
        # ("SPRING10JM這張4月11日就過期了", "can be used up to May 12"): its date decides, not its
        # words (of several codes, each clause speaks of its own: "把 MJ300 用掉了，剩下那張
        # SPRING15 到4/10")
        if codes and not (len(codes) == 1 and u.valid_until is not None
                          and u.valid_until > unit_date(u)
                          and any(e.kind == "date" for e in u.entities)):
            ended |= ended_codes(row, u.content, codes)
    return {u.id for u, codes in said if codes and codes <= ended} if ended else set()


_CLAUSE_CUT = re.compile(r"[，,;；。.!！?？]")


def negations(store: Store, row: SlotSpec, items: list[MemoryUnit]) -> set[str]:
    """The ids of the list units that take their item back: the row's negation words, or (a
    unit that replaced an earlier one of the list: the item was known) the polarity toward its
    item of the user turn it was cut from (a cut may leave "麻辣烫就" of "麻辣烫就算了吧最近")."""
    out = {u.id for u in items if u.slot is not None and negates(row, u.content)}
    known = [u for u in items if u.id not in out and u.slot is not None and u.supersedes]
    turns = store.source_turns([u.id for u in known]) if known else {}
    for u in known:
        words = item_words(row, (u.slot or "").split(":", 1)[1])
        if any(takes_back(row, text, words)
               for text in [u.content, *(t.text for t in turns.get(u.id, []) if t.role == "user")]):
            out.add(u.id)
    return out


#: Units read, said since a like, to find a later clause taking its item back.
LATER_UNITS_READ = 200


def said_off_since(store: Store, scope: Scope, as_of: datetime, row: SlotSpec,
                    items: list[MemoryUnit], negations: set[str]) -> list[MemoryUnit]:
    """The current likes of a list that a later clause of the user takes back, in words the
    write path did not type as the item's negation ("X就算了吧最近" kept as a remark): the
    item's newest mention is negative, so the like is not presented as current."""
    likes = [u for u in items if u.slot is not None and u.id not in negations]
    if not likes:
        return []
    # said after the like, by when it was said: a diet taken up "as of this month" speaks of
    # a day before the like it takes back, and is still said after it
    since = min(u.created_at for u in likes)
    diet = row.name == "food"
    later = [u for u in store.find_units(scope, as_of=as_of, limit=LATER_UNITS_READ)
             if (u.id not in negations or (diet and states_diet(u.content)))
             and u.created_at >= since
             and (may_take_back(row, u.content)
                                           or (diet and states_diet(u.content)))]
    found: dict[str, list[MemoryUnit]] = {}  # like id -> the later units taking it back
    for like in likes:
        item = (like.slot or "").split(":", 1)[1]
        words = item_words(row, item)
        # the item taken back by name, or by a diet taken up since ("我开始吃素了" after a beef
        # dish: keyfacts/diets.py)
        said = [u for u in later if u.created_at > like.created_at and u.slot != like.slot
                and ((names_words(words, fold(u.content)) and takes_back(row, u.content, words))
                     or (diet and diet_excludes(u.content, item)))]
        if said:
            found[like.id] = said
    if not found:
        return []
    turns = store.source_turns([u.id for said in found.values() for u in said])
    return [like for like in likes if any(
        turns.get(u.id) and all(t.role == "user" for t in turns[u.id])
        for u in found.get(like.id, []))]


def openness_ended(store: Store, scope: Scope, as_of: datetime, row: SlotSpec,
                   items: list[MemoryUnit]) -> list[MemoryUnit]:
    """The user's "no restrictions" ("我没什么忌口", "啥都吃", "I eat everything"), typed to the
    list or said in words no rule typed, that a diet or an allergy of the user's own said after
    it ends ("…说是花生过敏"): history, no longer the list's state."""
    if row.name != "food":
        return []
    said = store.find_units(scope, as_of=as_of, limit=LATER_UNITS_READ)
    known = {u.id for u in items}
    open_ = [u for u in [*items, *(u for u in said if u.slot is None and u.id not in known
                                   and u.type in (MemoryType.USER_PROFILE,
                                                  MemoryType.FACT_REFERENCE))]
             if eats_anything(u.content)]
    if not open_:
        return []
    diets = [u for u in [*items, *said] if holds_a_diet(u.content) and not eats_anything(u.content)]
    return [o for o in open_ if any(d.created_at > o.created_at for d in diets)]


def restrictions_lifted(store: Store, scope: Scope, as_of: datetime, row: SlotSpec,
                         items: list[MemoryUnit]) -> tuple[list[MemoryUnit], list[MemoryUnit]]:
    """The diets and food restrictions of a list ("我吃全素", "我不吃辣", "no pork for me") that a
    later clause of the user's own ends: eating what they exclude ("又开始吃辣了"), the diet over
    ("恢复正常饮食"), another diet of the family or a corrected allergy (:func:`diet_lifted`);
    and the user's newest word lifting each, the list's state now (a rule hit beside the
    items)."""
    if row.name != "food":
        return [], []
    said = store.find_units(scope, as_of=as_of, limit=LATER_UNITS_READ)
    # the list's diets, and diets said in words no rule typed ("I'm doing low-carb at the
    # moment", "我乳糖不耐，拿铁换成豆奶吧")
    held = [u for u in items if u.slot is not None and holds_a_diet(u.content)]
    known = {u.id for u in held}
    held += [u for u in said if u.slot is None and u.id not in known
             and u.type in (MemoryType.USER_PROFILE, MemoryType.FACT_REFERENCE)
             and holds_a_diet(u.content)]
    if not held:
        return [], []
    since = min(u.created_at for u in held)
    # what the user said since, expired or not: "現在可以吃牛，備註幫我拿掉吧" is a request (short-
    # lived session state), and still the user's word that the restriction is over
    later = [u for u in store.find_units(scope, as_of=None, since=since, until=as_of,
                                         limit=LATER_UNITS_READ)
             if u.created_at > since and unit_status(u, as_of) in ("current", "expired")
             and states_diet(u.content)]
    found = {r.id: [u for u in later if u.created_at > r.created_at
                    and diet_lifted(u.content, r.content)] for r in held}
    if not any(found.values()):
        return [], []
    turns = store.source_turns([u.id for said in found.values() for u in said])

    def users(u: MemoryUnit) -> bool:
        return bool(turns.get(u.id)) and all(t.role == "user" for t in turns[u.id])

    lifted = [r for r in held if any(users(u) for u in found[r.id])]
    # the user's newest word lifting each: the list's state now ("医生说海鲜可以吃了")
    lifters = [max((u for u in found[r.id] if users(u)), key=lambda u: u.created_at)
               for r in lifted]
    return lifted, list({u.id: u for u in lifters}.values())


def taken_back(store: Store, row: SlotSpec, negations: list[MemoryUnit]) -> list[str]:
    """The items (folded) the user took back: the item each negation names, and the items of
    the units it replaced ("对臭豆腐没兴趣了，上次吃完拉肚子" replaced "food:臭豆腐": the item is
    臭豆腐, whatever else the negation's own words hold)."""
    names = [u.slot.split(":", 1)[1] for u in negations if u.slot is not None]
    # the item of each clause that takes it back ("no more pad thai for me, doctor's orders":
    # pad thai), when it is plainly one
    names += [item for u in negations for clause in _CLAUSE_CUT.split(u.content)
              if negates(row, clause) and one_item(item := list_item(row, clause))]
    replaced = store.get_units([u.supersedes for u in negations if u.supersedes])
    names += [u.slot.split(":", 1)[1] for u in replaced
              if u.slot is not None and u.slot.startswith(row.name + ":")]
    return list(dict.fromkeys(fold(n) for n in names if len(n) >= MIN_ITEM_CHARS))


#: Words that make an unlabelled code in a unit an order's ("HK2627281855這筆怎麼還在處理中",
#: "我下的单是…", "my order …").
_ORDER_WORDS = re.compile(r"单|笔|订|下单|\b(?:order\w*|purchase\w*|parcel|package|shipment)\b")
#: Identifier kinds read besides the row's own: a code said with an order word, and a tracking
#: number whatever words come with it ("JD2026…这单啥时候到", "查一下JD2026…": the user names
#: the shipment asked about by the id they have).
_ORDER_LIKE = ("code", "tracking_no")
#: Identifiers of a list given as rule hits, newest first ("which order did I ask about?").
ID_ITEMS = 3
#: Units holding an identifier read to find them.
IDS_READ = 40


def identifiers(store: Store, scope: Scope, as_of: datetime, row: SlotSpec
                 ) -> list[MemoryUnit]:
    """The user's newest units naming an identifier of the row's kinds (an order id), a tracking
    number, or an unlabelled code said with an order word; none with one of the row's look-alikes (a coupon
    code is no order). An order asked about in a question that has since expired is history,
    and still the user's order."""
    kinds = set(row.kinds)
    found = store.entity_kind_search(scope, as_of, [*row.kinds, *_ORDER_LIKE], IDS_READ,
                                     history=True)
    out: list[MemoryUnit] = []
    seen: set[str] = set()
    units = {u.id: u for u in store.get_units([uid for uid, _ in found])}
    # newest first; of units said together, one current at ``as_of`` before a tool result
    # that has expired (the store breaks their tie by id, which says nothing)
    rank = {uid: i for i, (uid, _) in enumerate(found)}
    said = sorted((u for u in units.values() if u.id in rank),
                  key=lambda u: (-u.created_at.timestamp(),
                                 unit_status(u, as_of) != "current", rank[u.id]))
    for u in said:
        text = fold(u.content)
        if row.not_with is not None and row.not_with.search(text):
            continue
        ids = [e.value for e in u.entities if e.kind in kinds or e.kind == "tracking_no"
               or (e.kind == "code" and _ORDER_WORDS.search(text))]
        if ids and not set(ids) <= seen:
            seen.update(ids)
            out.append(u)
        if len(out) >= ID_ITEMS:
            break
    return out


def items_of(store: Store, scope: Scope, as_of: datetime, name: str) -> list[MemoryUnit]:
    prefix = name + ":"
    units = store.find_units(scope, as_of=as_of, types=[MemoryType.USER_PROFILE],
                             limit=LIST_UNITS_READ)
    return [u for u in units if u.slot is not None and u.slot.startswith(prefix)][:LIST_ITEMS]
