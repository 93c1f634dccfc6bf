"""The slot schema: one row per kind of key fact a user has, read from ``slots.json``.

The write path (``write/slots.py``: canonical sentences; ``write/placement.py``: typing by
meaning, supersession, negations) and recall (``recall/rules.py``: which slot a question asks
for; ``recall/funnel.py``: the slot's current value first) read the same rows, so adding a slot
is a row in the data file (and, for typing by meaning, its prototypes in ``prototypes.json``).

A row says:

* ``cardinality``: ``single`` (one current value: a new one supersedes the old, however it is
  said) or ``multi`` (a list: coupons, orders, liked food; a negation invalidates only the item
  it names);
* ``value``: how the value is read (``entity:KIND``, ``level``, ``clause``: the clause itself,
  ``item``: a list item, ``id``: an identifier fact);
* ``templates``: the canonical sentence per script (``zh``, ``hant``, ``en``);
* ``question``: cue words of a question asking for it (over folded text), ``own``: only when the
  question is about the user's own fact, ``also``/``kinds``: the other slot names and entity
  kinds that answer it, ``not_with``: words that make the cue mean another thing;
* ``value_hint``: a clause typed to the slot by meaning holds a value only if it matches;
* ``dated``: the thing carries an expiry of its own (``valid_until`` from the sentence);
  ``thing``: the words that name such a thing ("券", "voucher", "gift card"): the one date said
  with one is when it ends (:func:`dated_thing`); ``ended``, ``not_ended``: the words saying
  the thing has ended before its date (used up, voided, no longer working) and the words that
  say it has not (:mod:`jiyi.keyfacts.ended`);
* ``value_words``, ``statement_cue`` (clause-valued slots): a clause with both states the slot
  by rule, before any prototype is asked; ``value_grammar``: a grammar whose words are value
  words too (``time_of_day``: the time grammar's parts of the day and weekdays,
  :mod:`jiyi.text.timeofday`);
* ``context`` (clause-valued slots): the words of the slot's activity (delivering: "送",
  "上门", "courier"; contacting: "联系", "敲我", "text me"): cue words in the clause, and said
  anywhere in the turn they make a clause holding a value word a statement of the slot
  ("关于配送：工作日晚上七点以后") unless its time is an event's (``event``: the user busy with
  something else, "下午三点我有个会", or a delivery that came, "下午三点送到了"); ``as_verb``: the words after a value word that make it a verb, a cue of
  its own ("微信我", "LINE我", "WhatsApp me"); ``suits``: words that take a value as the
  user's wish ("suit me", "works for me", "得閒", "就好", "is fine"), stating the slot only in a
  clause that is nothing but the value and them ("weekday mornings suit me", "週末先得閒",
  "LINE就好"; not "the evening news is great");
* ``not_value``: look-alikes: a clause holding one states no value of the slot (a payment
  method is no contact channel, a courier's call no delivery time, a colour no food);
* ``recurring``: the value is a standing time (a delivery window): a clause naming one day of
  the calendar ("2026年3月20日晚上下了好大的雨") states an event, not the slot;
* ``negation``, ``item_cues`` (lists): what says an item no longer holds, and the words around
  an item ("我喜欢吃", "I love") that are not the item.

Pure data and pure functions; loaded once per process.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Literal

from ..text import slotwords as sw
from ..text.fastre import gated
from ..text.segment import fold
from ..text.timeofday import TIME_OF_DAY

Cardinality = Literal["single", "multi"]
Script = Literal["zh", "hant", "en"]

#: A slot name may carry who it belongs to ("phone@caroline") or the item of a list
#: ("food:寿司"); the schema row is the part before either.
_SUFFIX = re.compile(r"[@:].*$")


@dataclass(frozen=True)
class SlotSpec:
    """One row of the schema (see the module docstring)."""

    name: str
    cardinality: Cardinality
    value: str
    templates: dict[str, str]
    negated: dict[str, str]
    question: re.Pattern[str] | None
    own: bool
    also: tuple[str, ...]
    kinds: tuple[str, ...]
    not_with: re.Pattern[str] | None
    value_hint: re.Pattern[str] | None
    dated: bool
    lifespan_days: float | None
    negation: re.Pattern[str] | None = None
    item_cues: re.Pattern[str] | None = None
    value_words: re.Pattern[str] | None = None
    statement_cue: re.Pattern[str] | None = None
    not_value: re.Pattern[str] | None = None
    #: the value is a standing, repeating time (a delivery window): a time on one day of the
    #: calendar is an event, not a value
    recurring: bool = False
    #: words that say the clause is about the slot ("就是爱", "I adore"): such a clause is
    #: typed to the slot when its nearest prototype is the slot's, whatever the lead
    strong_cue: re.Pattern[str] | None = None
    #: a dated row: the words naming the thing (a coupon, a voucher, a gift card)
    thing: re.Pattern[str] | None = None
    #: a clause-valued row: the words of the slot's activity ("送", "courier"; "联系", "text me"),
    #: anywhere in the turn the context of a bare value (they are cue words too:
    #: ``statement_cue`` holds them)
    context: re.Pattern[str] | None = None
    #: a standing-time row: words that make a clause's time an event's, not a window (the user
    #: busy with something else, "下午三点我有个会", "dentist at 3pm"; a delivery that came,
    #: "下午三点送到了", "it arrived at 3pm")
    event: re.Pattern[str] | None = None
    #: a clause-valued row: words that take a value as the user's wish ("suit me", "得閒",
    #: "就好"); they state the slot only in a clause that is nothing but the value and them
    suits: re.Pattern[str] | None = None
    #: a dated row: words saying the thing has ended (used up, redeemed, expired, voided, no
    #: longer working), and words that take that back in a sub-clause (unused, kept, a
    #: restriction): :mod:`jiyi.keyfacts.ended`
    ended: re.Pattern[str] | None = None
    not_ended: re.Pattern[str] | None = None
    #: a clause-valued row with entity ``kinds``: its value words that name such an entity's
    #: medium ("邮箱", "电话", "email"): a turn giving the entity answers them; other value
    #: words ("短信", "WeChat") state the slot beside it ("以后有事发短信 手机 137…")
    entity_words: re.Pattern[str] | None = None
    #: the name slot: the canonical sentence per role of a thing a name is given for
    #: (``name:recipient``: "收件人的名字是X"), per script
    roles: dict[str, dict[str, str]] = field(default_factory=dict)

    def states(self, clause: str) -> bool:
        """The rule for a clause-valued slot: a value word and a cue word in one clause
        ("飞书消息找我", "deliver on Saturday mornings")."""
        return (self.value_words is not None and self.statement_cue is not None
                and self.value_words.search(clause) is not None
                and self.statement_cue.search(clause) is not None)

    def states_in_turn(self, clause: str, turn: str) -> bool:
        """A clause holding a value word, in a turn that names the slot's activity elsewhere
        ("关于配送：工作日晚上七点以后", "有事的话：LINE", "About drop-offs: Sunday afternoons"),
        its time no event's ("周五下午三点我有个会，快递到哪了？" is no delivery time)."""
        return (self.value_words is not None and self.context is not None
                and self.value_words.search(clause) is not None
                and self.context.search(turn) is not None
                and not (self.event is not None and self.event.search(clause)))

    def spoken_of(self, text: str) -> bool:
        """``text`` speaks of the slot: its question's words, folded ("the mail address for the
        invoice" of the e-mail; "订单号是 ABC123" does not speak of a name)."""
        return self.question is not None and self.question.search(fold(text)) is not None

    def names_other_medium(self, clause: str) -> bool:
        """The clause holds a value word that names no entity of the row's ``kinds``
        (:attr:`entity_words`): "发短信" beside a phone number states a channel of its own."""
        if self.value_words is None:
            return False
        rest = clause if self.entity_words is None else self.entity_words.sub(" ", clause)
        return self.value_words.search(rest) is not None

    def looks_alike(self, clause: str) -> bool:
        """The clause holds a look-alike, not a value ("用LINE Pay付款" is no contact channel,
        "the courier called me at 6pm" no delivery time, "红色的那款" no food)."""
        return self.not_value is not None and self.not_value.search(clause) is not None

    @property
    def single(self) -> bool:
        return self.cardinality == "single"

    def render(self, value: str, script: str, subject: str | None = None,
               negated: bool = False, role: str | None = None) -> str:
        """The canonical sentence of ``value`` in ``script`` (``zh``, ``hant`` or ``en``);
        ``subject``: the speaker's name, else "the user" in the script; ``role``: the role of a
        thing the value is given for (the row's ``roles``)."""
        table = self.negated if negated and self.negated else self.templates
        if role is not None and role in self.roles:
            table = self.roles[role]
        text = table.get(script) or table["en"]
        subj = subject or {"zh": "用户", "hant": "用戶"}.get(script, "The user")
        poss = f"{subj}'s" if subject else "The user's"
        return text.format(subj=subj, poss=poss, value=value)


#: A word boundary of the Latin script: Hong Kong and Taiwan write English words into Chinese
#: with no space ("改用Email通知", "我嘅phone number係…"), where ``\b`` (which counts 用 and 通
#: as letters) would see no word. The schema's ``\b`` is read so.
LATIN_BOUNDARY = r"(?:(?<![A-Za-z0-9_])(?=[A-Za-z0-9_])|(?<=[A-Za-z0-9_])(?![A-Za-z0-9_]))"


def _rx(text: object) -> re.Pattern[str] | None:
    if not isinstance(text, str) or not text:
        return None
    return gated(re.compile(text.replace("\\b", LATIN_BOUNDARY), re.I))


#: Grammars a row's ``value_grammar`` may name: their words are value words of the row.
_GRAMMARS = {"time_of_day": TIME_OF_DAY}


def _cue_words(raw: dict[str, object], values: re.Pattern[str] | None) -> re.Pattern[str] | None:
    """The row's ``statement_cue``, its ``context`` (the words of the slot's activity are cue
    words in the clause too) and a value word used as a verb (``as_verb``: the words after it,
    "微信我", "WhatsApp me") in one pattern."""
    words = [w for w in (raw.get("statement_cue"), raw.get("context")) if isinstance(w, str) and w]
    verb = raw.get("as_verb")
    if isinstance(verb, str) and verb and values is not None:
        words.append(f"(?:{values.pattern})(?:{verb})")
    return _rx("|".join(f"(?:{w})" for w in words)) if words else None


def _value_words(raw: dict[str, object]) -> re.Pattern[str] | None:
    """The row's ``value_words`` and the words of its ``value_grammar`` in one pattern."""
    own, grammar = raw.get("value_words"), raw.get("value_grammar")
    if grammar is None:
        return _rx(own)
    if grammar not in _GRAMMARS:
        raise ValueError(f"slot {raw.get('name')!r}: unknown value_grammar {grammar!r}")
    words = _GRAMMARS[str(grammar)]
    return _rx(f"(?:{own})|(?:{words})" if isinstance(own, str) and own else words)


def _row(raw: dict[str, object]) -> SlotSpec:
    card = raw.get("cardinality")
    if card not in ("single", "multi"):
        raise ValueError(f"slot {raw.get('name')!r}: cardinality must be single or multi")
    templates = raw.get("templates")
    if not isinstance(templates, dict) or not {"zh", "hant", "en"} <= templates.keys():
        raise ValueError(f"slot {raw.get('name')!r}: templates need zh, hant and en")
    negated = raw.get("negated") or {}
    life = raw.get("lifespan_days")
    values = _value_words(raw)
    return SlotSpec(
        name=str(raw["name"]), cardinality=card, value=str(raw.get("value", "clause")),
        templates={str(k): str(v) for k, v in templates.items()},
        negated={str(k): str(v) for k, v in dict(negated).items()},  # type: ignore[call-overload]
        question=_rx(raw.get("question")), own=bool(raw.get("own", True)),
        also=tuple(str(s) for s in raw.get("also", ()) or ()),  # type: ignore[attr-defined]
        kinds=tuple(str(s) for s in raw.get("kinds", ()) or ()),  # type: ignore[attr-defined]
        not_with=_rx(raw.get("not_with")), value_hint=_rx(raw.get("value_hint")),
        dated=bool(raw.get("dated", False)),
        lifespan_days=float(life) if isinstance(life, int | float) else None,
        negation=_rx(raw.get("negation")), item_cues=_rx(raw.get("item_cues")),
        value_words=values, statement_cue=_cue_words(raw, values),
        not_value=_rx(raw.get("not_value")), recurring=bool(raw.get("recurring", False)),
        strong_cue=_rx(raw.get("strong_cue")), thing=_rx(raw.get("thing")),
        context=_rx(raw.get("context")), event=_rx(raw.get("event")),
        suits=_rx(raw.get("suits")), ended=_rx(raw.get("ended")),
        not_ended=_rx(raw.get("not_ended")), entity_words=_rx(raw.get("entity_words")),
        roles=_roles(raw))


def _roles(raw: dict[str, object]) -> dict[str, dict[str, str]]:
    roles = raw.get("roles") or {}
    if not isinstance(roles, dict):
        raise ValueError(f"slot {raw.get('name')!r}: roles must map a role to its templates")
    out: dict[str, dict[str, str]] = {}
    for role, table in roles.items():
        if not isinstance(table, dict) or not {"zh", "hant", "en"} <= table.keys():
            raise ValueError(f"slot {raw.get('name')!r}: role {role!r} needs zh, hant and en")
        out[str(role)] = {str(k): str(v) for k, v in table.items()}
    return out


def load_schema(text: str) -> tuple[SlotSpec, ...]:
    """Parse a schema document (the format of ``slots.json``); a clear error on a bad row."""
    data = json.loads(text)
    rows = data.get("slots") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ValueError("a slot schema is an object with a non-empty 'slots' list")
    specs = tuple(_row(r) for r in rows)
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise ValueError("slot names must be unique")
    return specs


@lru_cache(maxsize=1)
def schema() -> tuple[SlotSpec, ...]:
    """The shipped schema, in question-matching order."""
    text = resources.files("jiyi.keyfacts").joinpath("slots.json").read_text("utf-8")
    return load_schema(text)


@lru_cache(maxsize=1)
def third_party() -> re.Pattern[str]:
    """Words naming someone other than the user ("我妈妈", "my colleague", "the courier"): the
    schema's ``third_party`` list (a value said of them is theirs, not the user's)."""
    text = resources.files("jiyi.keyfacts").joinpath("slots.json").read_text("utf-8")
    words = json.loads(text).get("third_party")
    if not isinstance(words, str) or not words:
        raise ValueError("slots.json needs a non-empty 'third_party' pattern")
    return re.compile(words, re.I)


@lru_cache(maxsize=1)
def dated_thing() -> re.Pattern[str]:
    """Words naming a thing with an expiry of its own: the ``thing`` cues of the schema's dated
    rows in one pattern ("优惠券", "兌換碼", "voucher", "20% off")."""
    cues = [row.thing.pattern for row in schema() if row.dated and row.thing is not None]
    if not cues:
        raise ValueError("slots.json needs a dated row with a 'thing' pattern")
    return re.compile("|".join(f"(?:{c})" for c in cues), re.I)


@lru_cache(maxsize=1)
def _by_name() -> dict[str, SlotSpec]:
    return {s.name: s for s in schema()}


def base_name(slot: str) -> str:
    """``phone@caroline`` -> ``phone``; ``food:寿司`` -> ``food``."""
    return _SUFFIX.sub("", slot)


def spec(slot: str) -> SlotSpec | None:
    """The schema row of a slot name (with or without its owner or item), None if unknown."""
    return _by_name().get(base_name(slot))


def is_single(slot: str) -> bool:
    row = spec(slot)
    return row is not None and row.single


#: Where a clause's sub-clauses meet ("不对不对，我说的是X，那个才是我最爱", "X is the go, love it").
_SUB_CLAUSE = re.compile(r"[，,;；。.!！?？]+")


_WORD = re.compile(r"\w")


def list_item(row: SlotSpec, clause: str) -> str:
    """The item a clause of a list slot names: the clause without its negation and cue words
    ("我现在不吃牛肉了" -> "牛肉", "I love durian" -> "durian"), folded to lower case; the whole
    clause when nothing is left. In a clause of several sub-clauses, the ones naming something
    (a sub-clause of cue words and fillers only, "那个才是我最爱", "love it", names nothing), and
    of those the ones with a like or negation cue ("ramen is the best, put that in my prefs")."""
    parts = [p for p in _SUB_CLAUSE.split(clause) if p.strip()]
    # a sub-clause left with marks only (")" of "(not religious, I just don't like it)") names
    # nothing
    named = [(p, rest) for p in parts if (rest := " ".join(without_cues(row, p).split()))
             and _WORD.search(rest)]
    cued = [rest for p, rest in named if negates(row, p)
            or (row.strong_cue is not None and row.strong_cue.search(p))]
    rest = " ".join(_object(r) for r in (cued or [r for _, r in named]))
    return rest.casefold() or clause.casefold()


#: The words before an English item that belong to its verb, and where its noun phrase ends.
_ITEM_LEAD = re.compile(r"^(?:(?:" + sw.alternation(sw.ITEM_LEAD_EN) + r")\s+)+", re.I)
#: A verb of eating or ordering: the item is its object ("who orders lamb curry").
_EATING = re.compile(sw.en_words(sw.EATING_EN), re.I)
_ITEM_BREAK = re.compile(r"\s+(?:" + sw.alternation(sw.ITEM_BREAK_EN) + r")\b.*$", re.I | re.S)


def _object(words: str) -> str:
    """The object of a verb of liking or aversion, once the verb's words are gone: without a
    preposition or article before it ("to peanuts", "into Korean fried chicken") and ending
    where a preposition or a time word opens another phrase ("oat milk in coffee", "soda last
    month"); the words as they were when nothing would be left."""
    verb = list(_EATING.finditer(words))
    rest = words[verb[-1].end():] if verb else words  # "person who orders lamb curry"
    return _ITEM_BREAK.sub("", _ITEM_LEAD.sub("", rest.strip())).strip() or words


def names_item(row: SlotSpec, clause: str) -> bool:
    """Something is left of the clause once its cue words, negation and fillers are gone
    ("那个才是我最爱", "love it", "你问我爱吃啥" name nothing)."""
    return bool(without_cues(row, clause).split())


#: An item named plainly: one Chinese word of 2-8 characters, or 1-3 Latin words.
_ONE_ITEM = re.compile(r"[\u4e00-\u9fff]{2,8}|[a-z][a-z'-]*(?: [a-z][a-z'-]*){0,2}")


#: Words that name no thing: what is left of "cannot eat already", "I don't eat it again",
#: "which I enjoy daily", "not eating it anymore", "我不吃这个了" is no item.
_NO_THING = frozenset({
    "already", "again", "anymore", "any", "more", "daily", "now", "lately", "nowadays",
    "today", "still", "ever", "never", "often", "always", "either", "too", "so", "very",
    "really", "much", "it", "them", "that", "this", "those", "these", "one", "ones", "some",
    "stuff", "things", "thing", "all", "everything", "anything", "nothing", "one's", "it's",
    "这个", "那个", "这些", "那些", "东西", "一点", "一下", "而已", "已经", "再也", "现在", "以后",
    "呢个", "嗰个", "啲嘢", "嘢", "這個", "那個", "東西", "一點", "已經", "現在", "以後", "呢個", "嗰個",
})


#: One English verb in -ing is a pastime ("I love hiking", "hate cooking"), no thing; the foods
#: that end so are named.
_GERUND = re.compile(r"[a-z]{2,}ing")
_FOOD_IN_ING = frozenset({"pudding", "puddings", "dumpling", "dumplings", "stuffing", "icing",
                          "frosting", "filling", "dressing", "seasoning", "topping", "toppings",
                          "herring", "whiting"})


def one_item(item: str) -> bool:
    """The text (a :func:`list_item`) names one item and nothing else ("羊肉串", "pad thai";
    not "显示缺货 生蚝", not a word that names no thing: "already", "again", "这个", nor a
    pastime: "hiking")."""
    text = item.strip().casefold()
    if _ONE_ITEM.fullmatch(text) is None:
        return False
    if _GERUND.fullmatch(text) and text not in _FOOD_IN_ING:
        return False
    return not all(w in _NO_THING for w in text.split())


def without_cues(row: SlotSpec, clause: str) -> str:
    """The clause without the words around a list item: its negation words first ("戒掉",
    "gave up": "我最近戒掉羊肉了" names 羊肉, as "有羊肉的我都喜欢" does), then its cue words."""
    rest = row.negation.sub(" ", clause) if row.negation is not None else clause
    return row.item_cues.sub(" ", rest) if row.item_cues is not None else rest


def negates(row: SlotSpec, clause: str) -> bool:
    """The clause says an item of the list no longer holds ("不吃辣了", "no longer vegetarian")."""
    return row.negation is not None and row.negation.search(clause) is not None


@lru_cache(maxsize=64)
def _template_rx(template: str) -> re.Pattern[str]:
    rx = re.escape(template)
    for key, part in (("subj", ".+?"), ("poss", ".+?"), ("value", "(?P<value>.+)")):
        rx = rx.replace(re.escape("{" + key + "}"), part)
    return re.compile(rx, re.S)


def rendered_value(row: SlotSpec, content: str) -> str | None:
    """The value a canonical sentence of ``row`` holds ("用户的会员等级是金卡" -> "金卡"); None
    when ``content`` is not one of its templates (a clause typed by meaning is its own value)."""
    for template in [*row.templates.values(),
                     *(t for table in row.roles.values() for t in table.values())]:
        m = _template_rx(template).fullmatch(content)
        if m:
            return m.group("value")
    return None


def item_slot(name: str, item: str) -> str:
    """The slot of one item of a list (``food:寿司``): each item supersedes only itself."""
    return f"{name}:{item}"
