"""The values of a single-valued slot that any unit holds, read by the slot's schema row: the
entities of its kind (``entity:phone``: phone numbers, ``entity:email``, ``entity:address``) or
the words of its value (``value_words``: a channel, a time of day, a membership level).

Recall compares them with the slot's *current* value: a unit that names another value of the
same kind ("The courier can call 138...", "我更喜欢飞书", "會員等級：銀級會員") and not the
current one speaks of a value the user has since replaced, however it was found (its turn,
a neighbour, a unit the typing missed). Pure functions of the unit and the row.
"""

from __future__ import annotations

import re

from ..keyfacts.schema import SlotSpec, rendered_value, spec
from ..text import content_words, fold
from ..text import slotwords as sw
from ..text.entities import extract_entities, phone_like_runs
from ..text.levels import level_mentions
from ..text.lexicon import CITIES_EN, NOT_NAMES_EN, SURNAME_PATTERN
from ..units import MemoryUnit, unit_date

#: Digits a phone is compared by (its national part; "+86 138..." and "138..." are one number).
PHONE_TAIL = 8
#: Words every value of a level or channel shares ("VIP", "会员", "tier"): they tell no value
#: from another.
GENERIC_WORDS = frozenset({
    "vip", "会员", "member", "members", "membership", "tier", "level", "status", "卡", "card",
    "级", "等级", "级别", "message", "messages", "消息", "讯息",
})
_NOT_KEY = re.compile(r"[\W_]+")
#: Kinds one value of which goes by several names (a full name, a nickname: "陈晓东", "小东"):
#: another name is no other value.
MANY_NAMED = frozenset({"person", "name"})
#: A membership level in folded text: two characters before 会员 / VIP / 卡 ("钻石VIP", "银级会员"),
#: the words before "VIP"/"member"/"tier"/"card", or after "level is" / "I'm" ("Black Card",
#: "one of your Four Star members", "I'm Royal Elite now"). Overlapping reads are all kept.
_LEVEL_RE = re.compile(
    r"(?=([\u4e00-\u9fff]{2})\s*(?:会员|vip|卡(?!号)))|"
    r"\b(?<!['’])([a-z]+(?: [a-z]+)?)\s+(?:vip|members?|tier|card)\b|"
    r"\b(?:level|tier|status|membership)\s*(?:is|:|：)\s*([a-z]+(?: [a-z]+)?)|"
    r"\bi'?m\s+(?:a |an |on )?([a-z]+(?: [a-z]+)?)\s+now\b")
_LEVEL_STOP = frozenset({"is", "my", "i'm", "im", "the", "a", "an", "from", "to", "now", "of",
                         "one", "your", "our", "on", "am", "at", "as", "still", "already",
                         # a verb of reaching before the level belongs to no level ("just hit
                         # Legend tier", "finally made Onyx level")
                         "just", "finally", "hit", "made", "reached", "got", "became", "unlocked",
                         "earned", "achieved", "joined", "went", "moved", "account's", "accounts"})
#: "会员等级是黑钻", "等級：金卡" (the canonical sentence): the level after the label.
_ZH_LEVEL_AFTER = re.compile(r"(?:会员等级|会员级别|等级|级别)\s*(?:是|为|:|：)\s*([\u4e00-\u9fffa-z0-9]{1,6})")
#: Characters no level name holds: what stands before them is not the name ("用户的会员" is no
#: level "户的"; "我是金牌会员" is 金牌).
_ZH_NOT_NAME = re.compile(r".*[的是了我你您户个在为成到从升降变改换咱俺那这]")
#: "Legend level", "Onyx status" (the original case: a capitalised name before the word).
_EN_LEVEL_CASED = re.compile(r"\b((?:[A-Z][A-Za-z]+\s){1,2})(?:level|status)\b")
#: Capitalised words before "status"/"level" that name no level ("Order status", "Shipping
#: status").
_EN_NOT_LEVEL = frozenset({"order", "shipping", "delivery", "payment", "account", "refund",
                           "return", "tracking", "application", "current", "new", "old",
                           "previous", "what", "which", "member", "membership", "vip", "loyalty"})
#: A unit that speaks of the slot's value without a value recall can read ("二星會員可以…" is
#: read; "My membership level: see above" is not): it still names no current value.
UNREAD = "\x00"


def _levels(content: str) -> frozenset[str]:
    out: set[str] = set()
    folded = fold(content)
    found = [g for m in _LEVEL_RE.finditer(folded) for g in m.groups() if g]
    found += [m.group(1) for m in _ZH_LEVEL_AFTER.finditer(folded)]
    found += [" ".join(w for w in m.group(1).lower().split() if w not in _EN_NOT_LEVEL)
              for m in _EN_LEVEL_CASED.finditer(content)]
    for g in found:
        words = [_ZH_NOT_NAME.sub("", w) for w in g.split() if w not in _LEVEL_STOP]
        key = "".join(words)
        if key and key not in GENERIC_WORDS:
            out.add(key)
    for lm in level_mentions(content):  # any name, a numbered level ("Tier 3", "V5", "星耀级")
        key = "".join(w for w in fold(lm.value).split() if w not in GENERIC_WORDS)
        key = _NOT_KEY.sub("", key.removesuffix("会员"))
        if key and key not in GENERIC_WORDS:
            out.add(key)
    return frozenset(out)


def _key(kind: str, value: str) -> str:
    if kind == "phone":
        return re.sub(r"\D", "", value)[-PHONE_TAIL:]
    return _NOT_KEY.sub("", fold(value))


def slot_values(row: SlotSpec, unit: MemoryUnit) -> frozenset[str]:
    """The values of ``row``'s kind ``unit`` holds, as comparable keys (empty: none)."""
    if row.value.startswith("entity:"):
        kind = row.value.split(":", 1)[1]
        if kind in MANY_NAMED:
            return frozenset()
        return frozenset(k for e in unit.entities if e.kind == kind
                         and (k := _key(kind, e.value or e.text)))
    if row.value == "level":
        levels = _levels(unit.content)
        if levels:
            return levels
        speaks = row.spoken_of(unit.content)
        return frozenset({UNREAD}) if speaks else frozenset()
    if row.value_words is None:
        return frozenset()
    words: set[str] = set()
    for m in row.value_words.finditer(unit.content):
        words.update(w for w in content_words(m.group(0)) if w not in GENERIC_WORDS)
    return frozenset(words)


#: A known level word anywhere, with the capitalised or level words beside it ("As a Star Silver
#: flyer…" -> Star Silver, "我係Platinum Elite" -> Platinum Elite; English between non-letters, so
#: "升咗Gold" and "Gold會員" count), a known Chinese level name or a card or metal name before
#: 级/卡/牌 ("金級"), or a numbered level ("Tier 2", "V5", "3级"): read only for units said
#: *before* the current level, where a passing mention speaks of a level the user has since left.
_EN_BESIDE = r"(?:(?-i:[A-Z][A-Za-z'’-]*)|" + "|".join(sw.LEVEL_WEAK_EN) + ")"
_KNOWN_LEVEL_LOOSE = re.compile(
    rf"(?<![A-Za-z])(?:{_EN_BESIDE}[ \t]+){{0,2}}(?:" + "|".join(sw.LEVEL_NAMES_EN)
    + rf")(?:[ \t]+{_EN_BESIDE}){{0,2}}(?![A-Za-z])|"
    + sw.alternation(sw.LEVEL_NAMES_ZH) + "|(?:" + sw.alternation(sw.LEVEL_CARD_ZH) + ")(?:级|級|卡|牌)|"
    r"(?<![A-Za-z0-9])(?:tier|level|lv|lvl|vip|v)\s?\.?\s?\d{1,2}(?![0-9])|"
    r"(?:[0-9]{1,2}|[一二三四五六七八九十]{1,2})\s?(?:级|級)", re.I)


#: Known level words long enough that one letter dropped, added or changed still names them
#: ("siver", "plattinum", "platnum"); shorter ones ("gold", "ruby") would meet ordinary words.
_TYPO_LEVELS = tuple(w for w in sw.LEVEL_NAMES_EN if len(w) >= 6)
_WORD = re.compile(r"[a-z]{5,10}")


def _one_edit(a: str, b: str) -> bool:
    """``a`` and ``b`` differ by one letter dropped, added or changed."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def loose_levels(content: str) -> frozenset[str]:
    """The levels a unit names, read loosely (see :data:`_KNOWN_LEVEL_LOOSE`): the strict
    reading's keys, every known level name or numbered level, and a long known level word
    misspelt by one letter, as keys."""
    out = set(_levels(content))
    out.update(k for m in _KNOWN_LEVEL_LOOSE.finditer(content)
               if (k := _key("level", m.group(0))) and k not in GENERIC_WORDS)
    out.update(w for m in _WORD.finditer(content.casefold())
               for w in _TYPO_LEVELS if _one_edit(m.group(0), w))
    return frozenset(out)


#: A Chinese address said in passing with no cue ("深圳市南山区科技园南区 W1-A 栋，前台代收"): a
#: run of characters ending in an address word, holding a digit or two address words.
_ZH_ADDRESS_LOOSE = re.compile(
    r"[\u4e00-\u9fff][\u4e00-\u9fffA-Za-z0-9\- ]{1,40}"
    r"(?:号|號|栋|棟|楼|樓|座|室|弄|巷|路|街|道|大厦|大廈|园|園|区|區)")
#: Words before an address that are no part of it ("寄到…", "地址是…", "住在…").
_ZH_ADDRESS_LEAD = re.compile(r"^.*(?:寄到|送到|寄去|送去|地址|住址|是|係|在|住|到)[:：]?\s*")
_ZH_ADDRESS_WORD = re.compile(r"省|市|区|區|县|縣|镇|鎮|路|街|道|巷|弄|号|號|栋|棟|楼|樓|室|座")


def loose_values(row: SlotSpec, content: str) -> frozenset[str]:
    """The values of an entity row (a phone, a Chinese address) a unit names read loosely, as
    keys: any run of 7 to 15 digits for a phone, a run ending in an address word for an
    address. Read only of units said *before* the current value, where a value said in passing
    with no cue word (so never typed) speaks of a value the user has since replaced."""
    kind = row.value.split(":", 1)[1] if row.value.startswith("entity:") else ""
    if kind == "phone":
        return frozenset(_key("phone", run) for run in phone_like_runs(content))
    if kind == "address":
        return frozenset(
            k for m in _ZH_ADDRESS_LOOSE.finditer(content)
            if (len(_ZH_ADDRESS_WORD.findall(m.group(0))) >= 2
                or (re.search(r"\d", m.group(0)) and _ZH_ADDRESS_WORD.search(m.group(0))))
            and (k := _key("address", _ZH_ADDRESS_LEAD.sub("", m.group(0)))))
    return frozenset()


def names_other_value(held: frozenset[str], current: frozenset[str]) -> bool:
    """True when a unit holding ``held`` names a value of the slot and not the current one
    (a value inside another counts as the same: "体育西路191号" in the full address)."""
    if not held or not current or current == {UNREAD}:
        return False
    return not any(h in c or c in h for h in held for c in current)


# --- person names, read loosely ---------------------------------------------------------------
#
# A name said in passing is rarely typed ("訂位人是黃小姐", "我是之前留言的劉先生", "Hey it's Bec",
# "si Ma. Theresa Santos po ito"): recall reads the names a unit holds loosely, only to tell a
# name said before the current one (history for a question about the present) from the current
# name, never to type anything.

#: A run of two to four capitalised words, an abbreviated given name allowed ("Ma. Theresa
#: Santos", "Jennifer Walsh", "Anne-Marie O'Neil").
_CAPITALISED_RUN = re.compile(
    r"(?<![A-Za-z])(?:[A-Z][a-z]?\.\s)?[A-Z][a-z]+(?:[-'’][A-Z][a-z]+)?"
    r"(?:\s+(?:[A-Z][a-z]?\.\s)?[A-Z][a-z]+(?:[-'’][A-Z][a-z]+)?){1,3}(?![A-Za-z])")
#: One word after a plain self-introduction, written any case ("Hey it's Bec", "hi it's mia 👋",
#: "this is Tom,"), ending its clause.
_SAID_NAME = re.compile(
    r"(?i:\b(?:it'?s|it’s|it is|this is|here'?s|name'?s|i'?m|i’m|i am))\s+"
    r"([A-Za-z][a-z]{1,14}(?: [A-Za-z][a-z]{1,14})?)"
    r"(?=\s*(?:[,.!;:~]|$|\s(?i:here|again|btw|lol|haha|from|po)\b|\s*[^\w\s]))")
#: A Chinese self-introduction or sign-off read loosely, surname or not ("我是小美啦", "我係
#: Jason 陳", "多謝晒 — 鄭慧敏", "許宏文 敬上"): the name the user went by then.
_ZH_SAID_NAME = re.compile(
    r"(?:我是|我係|我系|我叫|本人)\s*([\u4e00-\u9fff]{2,3}|[A-Z][a-z]+\s?[\u4e00-\u9fff]{1,2})"
    r"(?=[啦呀喔哦啊嘅，,。.！!～~\s]|$)"
    r"|[—–]{1,2}\s*([\u4e00-\u9fff]{2,4}|[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)\s*$"
    r"|([\u4e00-\u9fff]{2,4})\s*敬上"
    # a unit that is only a full name ("许志文", cut from "许志文 敬上")
    r"|^\s*(" + SURNAME_PATTERN +
    r"[\u4e00-\u9fff]{1,2})\s*$")
#: What follows "我是" without being a name ("我是会员", "我是新客", "我是学生").
_ZH_NOT_SAID_NAME = re.compile(r"会员|會員|客|用户|用戶|学生|學生|老师|老師|本人|自己|第一|新手|上次|之前|那个|那個|"
                               r"这个|這個|想|要|问|問|来|來|在|的|了|不|没|沒|有|用|买|買|订|訂")
#: Words that follow "it's" without naming anyone.
_NOT_SAID_NAME = frozenset({
    "me", "my", "mine", "him", "her", "them", "us", "you", "not", "been", "just", "also", "so",
    "too", "very", "really", "still", "fine", "okay", "ok", "good", "great", "bad", "late",
    "broken", "done", "gone", "here", "there", "now", "fixed", "wrong", "right", "true", "time",
    "urgent", "raining", "cold", "hot", "all", "about", "for", "from", "in", "on", "at", "a",
    "an", "the", "that", "this", "what", "working", "missing", "delayed", "damaged",
    "under", "addressed", "sent", "back", "over", "same", "different", "new", "old"})
#: Words of a capitalised run that make it no person's name (a greeting, a title, a day).
_NOT_IN_NAME = frozenset({"Hi", "Hello", "Hey", "Dear", "Sir", "Madam", "Thanks", "Thank",
                          "Please", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                          "Saturday", "Sunday", "January", "February", "March", "April", "May",
                          "June", "July", "August", "September", "October", "November",
                          "December", "Order", "Room", "Street", "Road", "Avenue", "Customer",
                          "Service", "Support", "Team", "Hotel"})
#: Last words of a capitalised run that make it a place ("Lakeshore Drive", "Pacific Place").
_PLACE_WORDS = frozenset({"Drive", "Street", "St", "Road", "Rd", "Avenue", "Ave", "Lane", "Court",
                          "Park", "Plaza", "Place", "Mall", "Centre", "Center", "Building",
                          "Tower", "Station", "Airport", "Hotel", "Bay", "Square", "Way",
                          "Boulevard", "Terrace", "Heights", "Gardens", "Estate", "City"})
_NAME_TOKEN = re.compile(r"\w+")
#: Endings of words that are no name said after "I'm" ("I'm waiting", "I'm annoyed", "I'm
#: really…").
_NOT_A_WORD_OF_NAME = re.compile(r"(?:ing|ed|ly|ful|ous|less|able)$", re.I)


def person_key(name: str) -> str:
    """A person's name as a comparable key: folded (Traditional as Simplified, lower case),
    its words joined by one space ("Santos-Reyes" -> "santos reyes")."""
    return " ".join(_NAME_TOKEN.findall(fold(name)))


def person_keys(unit: MemoryUnit) -> frozenset[str]:
    """The names a name unit states: its person entities, else its canonical sentence's value."""
    keys = {k for e in unit.entities if e.kind == "person" and (k := person_key(e.value or e.text))}
    if not keys and unit.slot is not None and (row := spec(unit.slot)) is not None:
        value = rendered_value(row, unit.content)
        if value:
            keys.add(person_key(value))
    return frozenset(keys)


def people(unit: MemoryUnit) -> frozenset[str]:
    """The people a unit names by the recogniser alone (its person entities, and the persons of
    its text): what a newer unit must name to contest the current name (never a place)."""
    names = [e.value or e.text for e in unit.entities if e.kind == "person"]
    names += [e.value or e.text for e in extract_entities(unit.content, unit_date(unit))
              if e.kind == "person"]
    return frozenset(k for n in names if (k := person_key(n)))


def loose_people(unit: MemoryUnit) -> frozenset[str]:
    """The people a unit names, read loosely: its person entities, the recogniser's persons of
    its text, a run of capitalised words that is no greeting, day or place, and one word after
    a plain self-introduction ("it's Bec")."""
    names = [e.value or e.text for e in unit.entities if e.kind == "person"]
    names += [e.value or e.text for e in extract_entities(unit.content, unit_date(unit))
              if e.kind == "person"]
    for m in _CAPITALISED_RUN.finditer(unit.content):
        words = [w for w in re.split(r"\s+", m.group(0)) if w not in _NOT_IN_NAME]
        while words and (words[0] in NOT_NAMES_EN or len(words[0]) <= 2):
            words.pop(0)  # a sentence's first word ("Si Ma. Theresa…", "So Anna Lee")
        run = " ".join(words)
        if len(words) >= 2 and run not in CITIES_EN and not any(w in CITIES_EN for w in words) \
                and words[-1] not in _PLACE_WORDS:
            names.append(run)
    names += [g for m in _ZH_SAID_NAME.finditer(unit.content)
              if (g := next(x for x in m.groups() if x)) and not _ZH_NOT_SAID_NAME.search(g)]
    names += [m.group(1) for m in _SAID_NAME.finditer(unit.content)
              if not any(w.casefold() in _NOT_SAID_NAME or w.capitalize() in NOT_NAMES_EN
                         or _NOT_A_WORD_OF_NAME.search(w) for w in m.group(1).split())]
    return frozenset(k for n in names if (k := person_key(n)))


def same_person(name: str, current: frozenset[str]) -> bool:
    """A name key is one of the current names: the same, or a part of one that a person goes
    by alone (one word of it, "Jennifer" of "jennifer morales"; a Chinese given name of at most
    two characters inside it, "诗涵"). A longer name that differs ("suresh kumar" beside
    "suresh kumar reddy", "刘先生" beside "刘怡君") is another."""
    words = name.split()
    for c in current:
        if name == c:
            return True
        if " " in name or " " in c or name.isascii() or c.isascii():
            cw = c.split()
            if (len(words) == 1 and words[0] in cw) or (len(cw) == 1 and cw[0] in words):
                return True
        elif len(name) <= 2 and name in c:
            return True
    return False


#: A person the speaker speaks of as someone else: with a title ("Mr. Patel", "Dr. Harrison",
#: "王小姐", "陈经理"), introduced as named or called ("a supervisor named Ravi", "一個叫王小姐的
#: 專員"), or a thing named after someone ("the LeBron James one", "the Steph Curry jersey").
_TITLE_ZH = r"(?:先生|小姐|女士|太太|经理|經理|老师|老師|医生|醫生|主管)"
_SPOKEN_OF = re.compile(
    r"\b(?:Mr|Mrs|Ms|Miss|Dr|Prof|Sir|Madam|Auntie|Uncle)\.?\s+([A-Z][A-Za-z]+(?:\s[A-Z][A-Za-z]+)?)"
    r"|\b(?:named|called)\s+((?:(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+)?[A-Z][A-Za-z]+(?:\s[A-Z][A-Za-z]+)?)"
    r"|\b(?i:the)\s+([A-Z][A-Za-z]+\s[A-Z][A-Za-z]+)(?=\s+(?:one|jersey|shirt|edition|model|version|"
    r"album|book|poster|signature|collection|special|range|set)\b|\s*[,.!?]|$)"
    r"|(" + SURNAME_PATTERN +
    r"[\u4e00-\u9fff]?" + _TITLE_ZH + r")")


def spoken_of(text: str) -> frozenset[str]:
    """Person keys of the people ``text`` speaks of as someone else (:data:`_SPOKEN_OF`): a
    newer mention of them contests nobody's name."""
    out: set[str] = set()
    for m in _SPOKEN_OF.finditer(text):
        name = next(g for g in m.groups() if g)
        for part in (name, re.sub(r"^(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+", "", name),
                     re.sub(_TITLE_ZH + "$", "", name)):
            if (k := person_key(part)):
                out.add(k)
    return frozenset(out)
