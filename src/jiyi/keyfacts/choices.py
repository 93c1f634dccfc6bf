"""A choice of a dish or drink that a later choice replaces.

Two facts of the world, kept here as data (three scripts, folded: Simplified, lower case):

* **An attribute of a dish or drink holds one level at a time.** Sweetness (全糖, 半糖, 微糖,
  无糖; "less sugar", "no sugar"), spice (不辣, 小辣, 中辣, 大辣; "mild", "extra spicy"), ice
  (去冰, 少冰, 正常冰; "no ice"), doneness (五分熟; "medium rare", "well done"), size (大杯;
  "large cup") and the milk of a coffee or tea (燕麦奶; "oat milk"). A new level of an attribute
  said as the user's own choice ("之后饮料都改成微糖", "mild lang po lahat", "以后都小辣") replaces
  an earlier one of the same attribute ("手摇饮都要全糖", "extra spicy po", "我不吃辣"), whatever
  the words around it: the attribute is the link, not the dish.
* **A switch takes back what it replaces.** "Replace X with Y", "switching to Y, X is too
  sweet", "X换成Y", "下午茶改订水果盘": the turn names the new thing after (or, with "instead of",
  before) its switch word, and the thing left behind elsewhere in the turn: the old item itself
  (X) or the thing whose content changes (下午茶). When the old thing is not named, a switch to a
  kind of a group whose members exclude each other in one order (a cuisine: "今年改粤菜" after
  "大家都喜欢川菜") replaces the earlier member of that group.

A question ("半糖会不会太甜？", "can I switch to oat milk?") or a level said with a negator
before it ("不要全糖", "not extra spicy") states no choice. Pure functions; the write path
(:mod:`jiyi.write.choices`) finds the earlier units they replace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..text import fold
from ..text.fastre import gate_all
from ..text.segment import content_words
from .asking import REQUEST
from .schema import spec
from .typing import NOT_OWN, QUESTION, owns

#: Each attribute of a dish or drink: its levels (a key) and the words naming each (folded).
_ATTRIBUTES: dict[str, dict[str, str]] = {
    "sweetness": {
        "full": r"全糖|正常糖|标准糖|多糖|十分糖|10分糖|\b(?:full|regular|normal|100%) sugar\b|"
                r"\bextra sweet\b|\bfully sweet\w*",
        "less": r"少糖|七分糖|7分糖|八分糖|8分糖|\bless sugar\b|\b(?:70|75|80)% sugar\b|"
                r"\bless sweet\b",
        "half": r"半糖|五分糖|5分糖|\bhalf sugar\b|\b50% sugar\b|\bhalf[- ]sweet\b",
        "light": r"微糖|一分糖|1分糖|二分糖|2分糖|三分糖|3分糖|\b(?:light|little|low) sugar\b|"
                 r"\b(?:20|25|30)% sugar\b|\bslightly sweet\b|\blightly sweet\w*",
        "none": r"无糖|不加糖|不要糖|去糖|走糖|零糖|0糖|无甜|\bno sugar\b|\bsugar[- ]free\b|"
                r"\bunsweetened\b|\b0% sugar\b|\bzero sugar\b|\bwithout sugar\b",
    },
    "spice": {
        "none": r"不辣|免辣|走辣|去辣|不要辣|不加辣|不吃辣|不能吃辣|吃不了辣|唔食辣|唔要辣|食唔得辣|"
                r"\bno spice\b|\bnot spicy\b|\bnon[- ]spicy\b|\bno chil(?:l?i|e)s?\b|"
                r"\bwithout (?:any )?(?:spice|chil(?:l?i|e)s?)\b|\bzero spice\b",
        "mild": r"微辣|小辣|少辣|少少辣|\bmild\b|\bless spicy\b|\ba (?:little|bit) spicy\b|"
                r"\bslightly spicy\b",
        "medium": r"中辣|\bmedium[- ](?:spicy|spice|hot|heat)\b",
        "hot": r"大辣|重辣|特辣|超辣|加辣|爆辣|变态辣|多辣|\b(?:extra|very|super|really) (?:spicy|hot)\b|"
               r"\bextra spice\b|\bmaximum spice\b|\bmax spice\b",
    },
    "ice": {
        "none": r"去冰|走冰|不加冰|不要冰|免冰|\bno ice\b|\bwithout ice\b|\bice[- ]free\b",
        "less": r"少冰|微冰|\b(?:less|light|little) ice\b",
        "normal": r"正常冰|多冰|全冰|\b(?:regular|normal|extra|full) ice\b",
        "warm": r"温的|热的|常温|热饮|去冰温|\b(?:served )?warm\b(?= (?:please|pls|drink|tea|milk))|"
                r"\broom temperature\b",
    },
    "doneness": {
        "rare": r"一分熟|三分熟|\b(?:medium[- ])?rare\b(?= (?:steak|please|pls|for))|"
                r"\bmedium[- ]rare\b",
        "medium": r"五分熟|\bmedium\b(?= steak)",
        "well": r"七分熟|八分熟|全熟|\bmedium[- ]well\b|\bwell[- ]done\b",
    },
    "size": {
        "large": r"超大杯|大杯|大份|大碗|\b(?:large|big|venti|grande)\s+(?:iced |hot )?(?:size|cup|one|drink|"
                 r"coffee|latte|tea|fries|pizza|bowl|portion)s?\b",
        "medium": r"中杯|中份|中碗|\b(?:medium|regular|tall)\s+(?:iced |hot )?(?:size|cup|one|drink|coffee|latte|"
                  r"tea|fries|pizza|bowl|portion)s?\b",
        "small": r"小杯|小份|小碗|\b(?:small|short)\s+(?:iced |hot )?(?:size|cup|one|drink|coffee|latte|tea|"
                 r"fries|pizza|bowl|portion)s?\b",
    },
    "milk": {
        "whole": r"全脂|\b(?:whole|full[- ]fat|full[- ]cream) milk\b",
        "low": r"低脂|脱脂|\b(?:skim(?:med)?|low[- ]fat|semi[- ]skimmed|lite) milk\b",
        "oat": r"燕麦奶|\boat (?:milk|latte)\b",
        "soy": r"豆奶|豆浆拿铁|\bsoy (?:milk|latte)\b",
        "almond": r"杏仁奶|\balmond (?:milk|latte)\b",
        "coconut": r"椰奶|\bcoconut milk\b",
    },
}
#: Groups whose members exclude each other in one order, though a user may like several: a
#: switch to one replaces the earlier member ("今年改粤菜" after "大家都喜欢川菜").
_GROUPS: dict[str, dict[str, str]] = {
    "cuisine": {
        "sichuan": r"川菜|川味|\bsichuan(?:ese)? (?:food|cuisine|dishes)\b|\bszechuan\b",
        "cantonese": r"粤菜|广东菜|粤式|\bcantonese (?:food|cuisine|dishes)\b",
        "hunan": r"湘菜|\bhunan(?:ese)? (?:food|cuisine|dishes)\b",
        "shanghai": r"本帮菜|上海菜|沪菜|\bshanghainese\b",
        "dongbei": r"东北菜",
        "taiwanese": r"台菜|台湾菜|\btaiwanese (?:food|cuisine|dishes)\b",
        "hakka": r"客家菜|\bhakka (?:food|cuisine|dishes)\b",
        "western": r"西餐|\bwestern (?:food|cuisine)\b",
        "japanese": r"日料|日本料理|日本菜|\bjapanese (?:food|cuisine|dishes)\b",
        "korean": r"韩料|韩国料理|韩国菜|\bkorean (?:food|cuisine|dishes|bbq)\b",
        "thai": r"泰国菜|泰式|\bthai (?:food|cuisine|dishes)\b",
        "italian": r"意大利菜|意餐|\bitalian (?:food|cuisine|dishes)\b",
        "french": r"法餐|法国菜|\bfrench (?:food|cuisine|dishes)\b",
        "indian": r"印度菜|\bindian (?:food|cuisine|dishes)\b",
        "mexican": r"墨西哥菜|\bmexican (?:food|cuisine|dishes)\b",
        "vietnamese": r"越南菜|\bvietnamese (?:food|cuisine|dishes)\b",
        "chinese": r"中餐|\bchinese (?:food|cuisine|dishes)\b",
    },
}
#: Just before a level, these deny it ("不要全糖", "not extra spicy", "no longer mild").
_DENIED = re.compile(r"(?:不要|不用|别|不是|不再|唔要|唔使|唔好|\bnot|n't|\bno longer|\bnever)\s*"
                     r"(?:\w+\s+){0,2}$")

#: Switch words: the thing after them is the new one ("改成", "换成", "改订", "switching to").
_SWITCH = re.compile(
    r"(?:改|换|转)(?:成|为|做|订|点|喝|吃|食|饮|叫|要|用|买|选)|"
    r"(?<![修更])改(?![天日期善进正动革变装])|(?<![交兑])换(?![货季钱个号])|"
    r"\b(?:switch(?:ed|ing|es)?|chang(?:e|ed|es|ing)|swap(?:ped|ping|s)?|replac(?:e|ed|es|ing)|"
    r"substitut(?:e|ed|ing)|sub(?:bing)?|make (?:it|that|mine|them|the \w+)|go(?:ing)? with|"
    r"opt(?:ing)? for|now (?:into|on))\b")
#: Where the new thing stands, by the switch word: after "with" of "replace X with Y", after
#: "to" of "switch from X to Y", after "for" of "swap X for Y", before "instead of X"; with none
#: of them, right after the switch word ("make it oat milk").
_NEW_AFTER = re.compile(r"\b(?:with|to|for|by|into)\b")
#: "Y instead", "Y instead of X", "Y rather than X": the new thing before it.
_INSTEAD = re.compile(r"\binstead\b|\brather than\b|\bin place of\b|代替|取代")
#: Words of food and drink the food row's statement cues do not hold (a topping, a drink, a
#: platter), to tell a switch of food from a switch of anything else ("change my contact to…").
_FOOD_WORDS = re.compile(
    r"茶|咖啡|奶|饮|菜|饭|面条|拉面|面包|米粉|河粉|汤|糖|辣|蛋|肉|鱼|虾|鸡|猪|羊|牛(?!逼)|水果|果汁|果盘|"
    r"拼盘|饼|包子|粥|酱|加料|小料|配料|餐|便当|甜点|珍珠|椰果|布丁|仙草|芋圆|\b(?:tea|coffee|latte|milk|juice|boba|bubble|topping|toppings|jelly|"
    r"pudding|platter|lunch|dinner|breakfast|brunch|pizza|burger|salad|sandwich|wrap|bowl|curry|"
    r"rice|noodles?|soup|cake|dessert|fries|chicken|beef|pork|fish|salmon|tuna|tofu|cheese|egg|"
    r"eggs|bread|toast|sauce|dressing|syrup|sugar|spicy|spice|ice|vegan|vegetarian|menu|thali|"
    r"biryani|sushi|ramen|pho|taco|burrito|smoothie|shake|cappuccino|espresso|americano|mocha|"
    r"matcha|chai|beer|wine|soda|cola|water|snack|snacks|catering|meal|meals|dish|dishes|food)\b")
_CLAUSE = re.compile(r"[，,;；。.!！?？\n]")
#: Words that name no thing of a dish or order, kept out of the words a switch shares with an
#: earlier unit (the calendar, the letter's frame, the switch itself).
_NOT_THING = re.compile(
    r"^(?:\d+|\w*月|\w*年|今天|明天|以后|之后|从|开始|现在|下次|下个|这次|每次|大家|我们|你们|"
    r"因为|所以|不要|不用|出来|就好|觉得|然后|可以|一下|一点|时候|最近|还是|比较|"
    r"please|pls|thanks|thank|dear|best|regards|team|hi|hello|now|from|next|month|week|year|"
    r"today|tomorrow|onwards|on|ones?|order|orders|ordering|switch\w*|chang\w*|replac\w*|"
    r"instead|swap\w*|going|go|want|would|like|make|sure|also|just|only|all|every|always|"
    r"january|february|march|april|may|june|july|august|september|october|november|december)$")
#: Characters of a draft looked for in its turn to find the clause it was cut from.
CLAUSE_PROBE = 12
#: Words of the new thing an earlier one shares (not all) to be another variant of it.
VARIANT_WORDS = 2
_POSSESSIVE = re.compile(r"['’]s$")
#: A word a switch shares with an earlier unit this short says nothing of a thing.
MIN_SHARED = {"cjk": 2, "latin": 3}


#: Someone named as the one who says or decides ("老板说今年改粤菜", "my boss says we're
#: switching to…"): the choice is the order's, the user's to place, not that person's taste.
_REPORTED = re.compile(r"^\s*(?:说|讲|话|决定|要求|觉得|讲咗|话咗|定咗)|"
                       r"^\s*(?:says?|said|decided|wants? (?:us|me) to)\b")


#: An order said as a question ("can I get my flat white with oat milk", "could I have the
#: curry mild"): a request, as "can you…" is.
_ORDERING = re.compile(r"^\s*(?:can|could|may) (?:i|we) (?:get|have|order|grab|do)\b|"
                       r"^\s*(?:i'?d|we'?d) like\b", re.I)


def asked(clause: str) -> bool:
    """A clause that asks (not a request: "can you make it half sugar from now on?", "can I get
    my flat white with oat milk" choose)."""
    return QUESTION.search(clause) is not None and REQUEST.search(clause.strip()) is None \
        and _ORDERING.search(clause) is None


def food_said(text: str) -> bool:
    """``text`` speaks of food or drink: the food row's statement cues, a level of a dish's
    attribute, a kind of cuisine or a word of food."""
    said = fold(text)
    row = spec("food")
    return (_FOOD_WORDS.search(said) is not None or bool(_named(said))
            or (row is not None and row.statement_cue is not None
                and row.statement_cue.search(said) is not None))


def mine(clause: str) -> bool:
    """A clause (folded) choosing for the user: :func:`jiyi.keyfacts.typing.owns`, someone
    named only as who said or decided it left out."""
    rest = clause
    for m in reversed(list(NOT_OWN.finditer(clause))):
        if _REPORTED.search(clause[m.end():m.end() + 8]):
            rest = rest[:m.start()] + " " + rest[m.end():]
    return owns("food", rest)


@dataclass(frozen=True)
class Level:
    """One level of an attribute (or one member of a group) named in a text."""

    attribute: str
    level: str


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    return tuple((attr, level, re.compile(words))
                 for table in (_ATTRIBUTES, _GROUPS) for attr, levels in table.items()
                 for level, words in levels.items())


def _named(text: str) -> set[Level]:
    """Every level named in folded ``text``, a level inside a longer one's words dropped ("不辣"
    in "不要辣" is one; "spicy" of "not spicy"), and one with a negator just before it."""
    found: list[tuple[int, int, Level]] = []
    for attr, level, rx in _compiled():
        for m in rx.finditer(text):
            if _DENIED.search(text[max(0, m.start() - 12):m.start()]):
                continue
            found.append((m.start(), m.end(), Level(attr, level)))
    return {lv for a, b, lv in found
            if not any((c <= a and b <= d) and (d - c) > (b - a) for c, d, _ in found)}


def levels(text: str) -> set[Level]:
    """The attribute levels (not group members) ``text`` names as chosen."""
    return {lv for lv in _named(fold(text)) if lv.attribute in _ATTRIBUTES}


def members(text: str) -> set[Level]:
    """The members of a group (a cuisine) ``text`` names."""
    return {lv for lv in _named(fold(text)) if lv.attribute in _GROUPS}


def chosen_levels(text: str) -> set[Level]:
    """The levels a statement (not a question) chooses: each read in its clause, a clause that
    asks choosing none ("半糖会不会太甜？")."""
    out: set[Level] = set()
    for clause in _clauses(text):
        if not asked(clause) and mine(fold(clause)):
            out |= levels(clause)
    return out


def chosen_at(turn_text: str, draft: str) -> set[Level]:
    """The levels a draft chooses, read in the clause of its turn where it starts too: a draft
    may lose a word of its level ("Well done from now on" kept as "Done from now on")."""
    said, part = fold(turn_text), fold(draft).strip()
    at = said.find(part[:CLAUSE_PROBE]) if part else -1
    if at < 0:
        return chosen_levels(draft)
    start = max((c.end() for c in _CLAUSE.finditer(said, 0, at)), default=0)
    end = next((c.end() for c in _CLAUSE.finditer(said, at)), len(said))
    return chosen_levels(draft) | chosen_levels(said[start:end])


#: Words of an attribute rather than a dish ("spicy", "甜", "no ice").
_ATTRIBUTE_WORDS = re.compile(r"糖|辣|冰|甜|\b(?:spicy|spice|sugar|sweet|ice|iced|mild|hot|heat)\b")


def of_attribute(item: str) -> bool:
    """A liked item that is an attribute's level, not a dish ("am very spicy", "甜的", "去冰"):
    a new level replaces it; a dish liked with its level ("奶茶，要全糖") stays liked."""
    said = fold(item)
    return bool(levels(said)) or (_ATTRIBUTE_WORDS.search(said) is not None and _FOOD_WORDS.search(
        _ATTRIBUTE_WORDS.sub(" ", said)) is None)


def replaces_level(new: set[Level], old_text: str) -> bool:
    """An earlier text names a level of an attribute ``new`` names, and not the new level: the
    new choice replaces it."""
    attrs = {lv.attribute for lv in new}
    old = {lv for lv in levels(old_text) if lv.attribute in attrs}
    return bool(old) and not old & new and any(
        lv.attribute == n.attribute for lv in old for n in new)


def _clauses(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _CLAUSE.finditer(text):
        out.append(text[start:m.end()])
        start = m.end()
    out.append(text[start:])
    return [c for c in out if c.strip()]


@dataclass(frozen=True)
class Switch:
    """What a switch in a turn replaces: the words of the thing left behind (shared with an
    earlier unit, they name it), the words of the new thing (an earlier unit naming one is not
    replaced) and the group members the new thing names."""

    old_words: frozenset[str]
    new_words: frozenset[str]
    new_members: frozenset[Level]


def _words(text: str) -> set[str]:
    out: set[str] = set()
    for w in content_words(text):
        w = _POSSESSIVE.sub("", w.lower()).strip(".,!?'\"’")
        if _NOT_THING.match(w):
            continue
        if len(w) >= MIN_SHARED["latin" if w.isascii() else "cjk"]:
            out.add(w)
    return out


def switch_in(text: str) -> Switch | None:
    """The switch a statement makes ("replace the salmon platter with the veggie platter",
    "boba's too many calories, switching to grass jelly", "下午茶改订水果盘就好"), None when no
    clause switches, or the one that does asks ("can I switch to oat milk?")."""
    said = fold(text)
    for m in _SWITCH.finditer(said):
        start = max((c.end() for c in _CLAUSE.finditer(said, 0, m.start())), default=0)
        end = next((c.start() for c in _CLAUSE.finditer(said, m.end())), len(said))
        clause = said[start:end + 1]
        if asked(clause) or not mine(clause):
            continue
        instead = _INSTEAD.search(said, m.end(), end)
        if instead is not None:  # "go with Y instead of X"
            new, old_part = said[m.end():instead.start()], said[instead.end():end]
        else:
            after = _NEW_AFTER.search(said, m.end(), end) if m.group(0).isascii() else None
            cut = after.end() if after is not None else m.end()
            new, old_part = said[cut:end], said[start:m.start()] + " " + said[m.end():cut]
        return _switch(said, start, end, new, old_part)
    for m in _INSTEAD.finditer(said):  # "grass jelly instead, boba is too sweet"
        start = max((c.end() for c in _CLAUSE.finditer(said, 0, m.start())), default=0)
        end = next((c.start() for c in _CLAUSE.finditer(said, m.end())), len(said))
        clause = said[start:end + 1]
        if asked(clause) or not mine(clause):
            continue
        return _switch(said, start, end, said[start:m.start()], said[m.end():end])
    return None


def _switch(said: str, start: int, end: int, new: str, old_part: str) -> Switch:
    """The switch of a turn (folded): its new thing's words, the rest of the turn's words."""
    if levels(new):
        # a new level of an attribute ("奶茶改半糖"): the words around it name the dish whose
        # level changes, not a thing left behind (the level replaces the level)
        return Switch(frozenset(), frozenset(), frozenset())
    rest = said[:start] + " " + old_part + " " + said[end + 1:]
    new_words, old_words = _words(new), _words(rest)
    # a word of both ("platter" of "replace the salmon platter with the veggie platter") names
    # neither thing
    return Switch(frozenset(old_words - new_words), frozenset(new_words - old_words),
                  frozenset(members(new)))


def switch_replaces(switch: Switch, old_text: str) -> bool:
    """An earlier text names the thing a switch leaves behind (a word it shares with the turn
    outside the new thing), another variant of the new thing (two of its words, not all), or
    another member of the group of the new thing (a cuisine), and not the new thing."""
    said = fold(old_text)
    words = _words(said)
    shared = words & switch.new_words
    if shared and switch.new_words <= words:
        return False  # the new thing itself ("I also love grass jelly")
    if len(shared) >= VARIANT_WORDS:
        return True  # another variant of it ("chicken katsu curry" for "the tofu katsu curry")
    if words & switch.old_words:
        return True
    groups = {lv.attribute for lv in switch.new_members}
    named = {lv for lv in members(said) if lv.attribute in groups}
    return bool(named) and not named & switch.new_members


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
