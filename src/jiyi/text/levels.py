"""Membership levels named any way: the level recogniser.

A level name is

* a known level word (:data:`~jiyi.text.slotwords.LEVEL_NAMES_EN`, ``LEVEL_NAMES_ZH``: "Gold",
  "Prestige", "鑽石", "黑卡") where a level is said: after an up/down verb ("downgraded to
  Silver", "升咗做鑽石"), after "status is" / "account says" / "I'm" ("my account says
  Prestige"), or before a word for a level;
* any short capitalised or Chinese name directly before a word for a level (tier, status, level,
  member, card, club, rank, 会员, 级, VIP, 段位: "Executive Club", "Founders Club", "星耀级",
  "PLUS会员"), or a capitalised name after an up/down verb in a clause about membership;
* a numbered level: "Tier 3", "Level 5", "V5", "VIP3", "Lv.4", "3级会员".

A plain word that is also a level word names none by itself ("Gold Coast", "the Pro Max", "a
black shirt", "top tier service", "a credit card", "level with you", a shirt size "L"). Pure
functions of the text; the words are :mod:`jiyi.text.slotwords`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import slotwords as sw
from .fastre import gate_all


@dataclass(frozen=True)
class LevelMention:
    """A level named in a text: where, the name as said, and whether an up/down verb
    introduced it (the level reached)."""

    start: int
    end: int
    value: str
    moved: bool = False


_KNOWN_EN = sw.en_words(sw.LEVEL_NAMES_EN)
_WEAK_EN = sw.en_words(sw.LEVEL_WEAK_EN)
_KNOWN_EN_RE = re.compile(_KNOWN_EN, re.I)
_WEAK_EN_RE = re.compile(_WEAK_EN, re.I)
_NOT_EN = re.compile(sw.en_words(sw.NOT_LEVEL_EN) + "$", re.I)
_CAP = r"(?-i:[A-Z][A-Za-z]*[a-z][A-Za-z]*(?:['’]s)?|[A-Z]{2,})"
#: One word of an English level name: a capitalised word or a (weak) level word.
_EN_WORD = rf"(?:{_CAP}|{_KNOWN_EN}|{_WEAK_EN})"
_NUM_EN = (r"(?:(?<![A-Za-z0-9])(?i:tier|level|lvl|rank|class)\s?\.?\s?(?:\d{1,2}|(?-i:[IVX]{1,4}))"
           r"(?![A-Za-z0-9])"
           r"|(?<![A-Za-z0-9])(?:(?i:s?vip|lv|lvl)\s?\.?\s?|(?-i:V))\d{1,2}(?![A-Za-z0-9]))")
_NUM_ZH = r"(?:[0-9]{1,2}|[一二三四五六七八九十]{1,2})\s?(?:级|級|星)"
_ZH_NAME_CHARS = r"[\u4e00-\u9fff]"
_ZH_KNOWN = sw.alternation(sw.LEVEL_NAMES_ZH)
_ZH_CARD = "(?:" + sw.alternation(sw.LEVEL_CARD_ZH) + ")卡(?![号號片])"
_ZH_NOUN_AFTER = "会员|會員|VIP|等级|等級|段位|会籍|會籍"
#: A Chinese name before 级/級 or a membership word, cut after characters no name holds.
_ZH_CUT = re.compile(r".*(?:[是係喺咗嘅到成为為了的我你您们們店从從升降在就还還也这這那张張位名"
                     r"办辦开開买買当當做加入现現新旧舊老原本说說讲講叫称稱于於与與和跟对對给給被把将將"
                     r"帮幫让讓请請有没沒不算变變换換改调調掉跌而家咩乜什么麼哪几幾啥等返翻續续去]"
                     # a measure word, but not of a personal card ("个人卡", "個人會員")
                     r"|[个個](?!人))")
_NOT_ZH = re.compile(sw.alternation(sw.NOT_LEVEL_ZH))
#: What is left of a head that names nothing ("我的等级会员": 级).
_NO_NAME_ZH = frozenset({"会", "會", "等", "级", "級", "卡"})
#: Words of a sentence, not of a level's name, found right before 会员 ("所以會員跟機票的名字",
#: "我想改一下會員資料", "然后会员那边"): the head ends in one of them.
NOT_NAME_HEAD_ZH = frozenset({
    "所以", "一下", "因为", "因為", "但是", "然后", "然後", "还是", "還是", "就是", "也是", "都是", "可以",
    "已经", "已經", "现在", "現在", "以后", "以後", "不是", "成为", "成為", "加入", "注册", "註冊", "申请",
    "申請", "开通", "開通", "我们", "我們", "你们", "你們", "这个", "這個", "那个", "那個", "一个", "一個",
    "什么", "什麼", "哪个", "哪個", "想要", "需要", "办理", "辦理", "续费", "續費", "取消", "关于", "關於",
    "有关", "有關", "如果", "还有", "還有", "顺便", "順便", "请问", "請問", "帮我", "幫我", "给我", "給我",
    "改", "跟", "和", "同", "及", "的", "嘅", "个", "個", "些", "了", "在", "是", "係", "把", "将", "將"})
_NOT_NOUN_FOLLOWS = re.compile(
    r"\s*(?:service|support|quality|product|price|pricing|plan|phone|model|shirt|size|"
    r"update|check|page|report|number|no\.?|#)\b", re.I)

#: The level nouns that say a text is about membership: not "plan" (a phone or data plan; it
#: names a level only right after a level word, "Premium plan").
_MEMBERSHIP_NOUNS_EN = tuple(w for w in sw.LEVEL_NOUNS_EN if w != "plan")
#: A word for a level other than 级 itself, or an up/down verb: a bare Chinese name before 级
#: ("星耀级", "3级") is a level only in a text with one.
_LEVEL_CONTEXT = re.compile(
    sw.alternation(tuple(w for w in sw.LEVEL_NOUNS_ZH if w not in ("级", "級")), sw.LEVEL_UP_ZH,
                   ("升", "降")) + "|"
    + sw.en_words(_MEMBERSHIP_NOUNS_EN) + r"|\b(?:upgrad\w*|downgrad\w*)", re.I)
#: An English clause about membership (a capitalised name after an up/down verb is a level).
_ABOUT_MEMBERSHIP = re.compile(
    sw.en_words(_MEMBERSHIP_NOUNS_EN) + r"|\b(?:account|loyalty|perks|benefits|points|bumped|promoted|"
    r"demoted|subscription)\b|(?<!boarding )\bpass\b|" + sw.alternation(sw.LEVEL_NOUNS_ZH), re.I)
#: A plan, pass or membership named in a statement ("I've got the Anytime delivery pass", "I am
#: subscribing Autoship Essentials plan", "我订了猫粮订阅的基础版"): the user's level then, read
#: loosely (the name may be no known level word).
NAMED_PLAN = re.compile(
    r"\b[A-Z][\w+'’-]*(?:\s+[\w+'’-]+){0,2}\s+(?:plan|pass|tier|membership|package|subscription|"
    r"status|level|club|card)\b|[\u4e00-\u9fffA-Za-z0-9]{1,6}?(?:会员|會員|套餐|方案|版|计划|計劃|等级|等級)"
    # a line's speed ("家里宽带是1000M的", "家裡網路是你們 300M 的方案")
    r"|(?:宽带|寬頻|寬帶|宽频|网络|網路|網絡)[^，,。？?]{0,6}?\d+\s?(?:M|G|兆)")

#: The membership itself named ("membership", "tier", "status", "会员"): not "card" (a credit
#: card) nor "club".
_MEMBERSHIP_NOUN = re.compile(r"\b(?:membership|member|tier|status|level|rank)\b|会员|會員|等级|等級|会籍|會籍",
                              re.I)
#: An English up/down verb ("upgraded", "bumped").
_UP_DOWN = re.compile(r"\b(?:(?:na|nag|ma|mag)-?)?(?:upgrad\w*|downgrad\w*|bumped|promoted|demoted)\b",
                      re.I)
_EN_NOUN = r"\b(?:" + sw.alternation(sw.LEVEL_NOUNS_EN) + r")"
#: "Gold Elite tier", "Executive Club", "Black card holder", "Founders Club"; the noun may end
#: against Chinese ("換成Premium plan了").
_EN_NAME_NOUN = re.compile(
    rf"(?<![A-Za-z'’])((?:{_EN_WORD}\s+){{0,2}}{_EN_WORD})\s+({_EN_NOUN})s?(?![A-Za-z0-9_])", re.I)
_EN_UP = "(?:" + "|".join(sw.LEVEL_UP_EN) + ")"
#: The level after an up/down verb ("got bumped to Platinum Plus", "upgraded to the top tier
#: (Diamond)", "downgraded to Silver", "moved up to Tier 3").
_EN_AFTER_UP = re.compile(
    rf"\b{_EN_UP}\s+(?:the\s+|a\s+|an\s+)?(?:(?:top|highest|next|lowest|bottom)\s+"
    rf"(?:tier|level|status|rank)\s*[(（,:-]?\s*)?"
    rf"({_NUM_EN}|(?:{_EN_WORD}\s+){{0,2}}{_EN_WORD})", re.I)
#: "my status is Executive Club", "my account says Prestige", "tier: Gold", "I'm Premier".
_EN_STATED = re.compile(
    r"\b(?:(?:status|level|tier|membership|rank|account|card|app|system|profile|website|site"
    r"|portal)(?:'s|\s+is|\s+says|\s+shows|\s+reads|\s+is\s+showing|\s+showing|\s+lists"
    r"|\s+is\s+now|\s+now\s+says|\s+now\s+shows|\s+=|\s*[:：])|i'?m|i\s+am)\s+(?:now\s+)?"
    r"(?:(?:on|at|a|an)\s+)?(?:the\s+)?"
    rf"({_NUM_EN}|(?:{_EN_WORD}\s+){{0,2}}{_EN_WORD})", re.I)
_NUM_EN_RE = re.compile(_NUM_EN)
#: "my plan is Basic", "個plan係Premium": the plan named after it (known or weak level words only).
_PLAN_IS = re.compile(
    r"(?<![A-Za-z])plan\s*(?:is|'s|係|系|是|:|：)\s*(?:now\s+|the\s+)?"
    rf"((?:{_EN_WORD}\s+)?{_EN_WORD})(?![A-Za-z])", re.I)
#: An English level name inside Chinese text: capitalised words with a known level word among
#: them ("跌咗去Silver", "我係Platinum Elite", "揀咗Club Pearl" is not: no known word).
_EN_IN_ZH = (r"(?<![A-Za-z])(?:(?-i:[A-Z][A-Za-z]+)\s?){0,2}(?i:"
             + sw.alternation(sw.LEVEL_NAMES_EN)
             + r")(?![a-z])(?:\s?(?-i:[A-Z][A-Za-z]+)){0,2}(?![A-Za-z])")
#: Chinese: a level after an up/down verb ("升咗做鑽石", "卡升级成白金卡", "降到普卡",
#: "升到V5").
_ZH_AFTER_UP = re.compile(
    # back to a level: Cantonese 返 / 翻, 回 ("轉咗返金卡", "跌返銀卡", "降回普卡")
    "(?:" + sw.alternation(sw.LEVEL_UP_ZH) + r")\s*(?:了|咗)?\s*(?:返|翻|回)?\s*(?:做|成|到|为|為)?\s*"
    rf"({_NUM_EN}|{_ZH_CARD}|(?:{_ZH_KNOWN})(?:{_ZH_NOUN_AFTER}|卡|级|級)?|{_NUM_ZH}(?:会员|會員)?"
    rf"|[A-Za-z]{{2,10}}\s?(?:{_ZH_NOUN_AFTER}|卡)|{_ZH_NAME_CHARS}{{1,3}}(?:级|級|卡|{_ZH_NOUN_AFTER})"
    rf"|{_EN_IN_ZH})")
#: Chinese: a name before a word for a level ("星耀级", "PLUS会员", "钻石VIP", "白金卡").
_ZH_NAME_NOUN = re.compile(
    rf"({_ZH_NAME_CHARS}{{1,4}}|(?<![A-Za-z])[A-Za-z]{{2,10}}\s?)({_ZH_NOUN_AFTER}|(?:级|級)(?![别別数數]))")
_ZH_STANDALONE = re.compile(rf"{_ZH_CARD}|(?:{_ZH_KNOWN})")
#: A plan subscribed to, named before 方案 / 计划 / 套餐 ("標準方案", "靈活計劃", "家庭套餐"): a level
#: in a text about subscribing, upgrading or paying for it (:data:`_SUBSCRIBED_ZH`), never a plan
#: of treatment or travel said elsewhere.
_ZH_PLAN = re.compile(rf"({_ZH_NAME_CHARS}{{2,4}}|(?<![A-Za-z])[A-Za-z]{{2,10}}\s?)(?:方案|计划|計劃|套餐)")
#: A grade of a plan, a level by itself ("標準計劃" said alone after "我買咗你哋自願醫保").
_PLAN_GRADE_ZH = re.compile(r"(?:标准|標準|基本|基础|基礎|进阶|進階|高级|高級|尊享|豪华|豪華|旗舰|旗艦|专业|"
                            r"專業|入门|入門|灵活|靈活|经济|經濟|至尊|白金|黄金|黃金|家庭|个人|個人|企业|企業)$")
_SUBSCRIBED_ZH = re.compile(r"订阅|訂閱|订了|訂了|订咗|訂咗|买了|買了|买咗|買咗|购买|購買|开通|開通|办了|辦了|"
                            r"升级|升級|升到|升去|降级|降級|转去|轉去|转做|轉做|改成|换成|換成|续订|續訂|"
                            r"月费|月費|年费|年費|月付|年付|\b(?i:upgrade|downgrade|plan|subscri\w*)\b")
#: A known Chinese level word said of oneself ("我係鑽石", "我现在是白金").
_ZH_IS = re.compile(r"(?:我|本人)(?:的|嘅|個|个)?(?:status|level|tier|等级|等級|会籍|會籍|级别|級別)?"
                    r"(?:而家|依家|现在|現在|目前|已经|已經|宜家)?(?:是|係|系)\s*"
                    rf"({_ZH_CARD}|(?:{_ZH_KNOWN})|{_EN_IN_ZH})", re.I)
_ZH_NUMBERED = re.compile(rf"{_NUM_ZH}(?:会员|會員)?")
#: Right before a number of levels, these make it a step ("升了一级", "降咗两級").
_ZH_STEP = re.compile(r"(?:升|降|跳|连升|連升)(?:了|咗|左)?\s*$")


def _en_name(text: str) -> str:
    """The name of an English level: leading words that name none dropped ("the", "my",
    "top", "credit"); empty when no word is left or nothing in it names a level by itself
    (lower-case words that are neither known level words nor capitalised: "free")."""
    words = text.split()
    while words and (_NOT_EN.match(words[0]) or _STOP_EN.match(words[0])):
        words.pop(0)
    return " ".join(words)


_STOP_EN = re.compile(
    r"^(?:January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|I|I'm|Dear|Hi|Hey|It|It's|Please|"
    r"Now|So|And|But|Oh|Ok|Okay|Yes|No|Just|Been|From|Since|Until|Till|Right|Only|Even|Also|"
    r"Then|Starting|Finally|Made|Hit|Reached|Got|Became|Unlocked|Earned|Achieved|Joined|Went|"
    r"Moved|Still|Already|Currently|Is|Was|Are|Were|Be|Do|Does|Did|Have|Has|Had|Get|Gets|With|"
    r"For|At|On|In|To|Of|As|Am|Btw|Lol|Thanks|Thank|Wait|Hello)$", re.I)


def _strong(name: str) -> bool:
    """An English name that names a level by itself: a known level word or a capitalised
    word that is no weak level word ("Gold", "Founders"); "Pro Max", "black" are not."""
    for w in name.split():
        if _KNOWN_EN_RE.fullmatch(w) or _NUM_EN_RE.fullmatch(w):
            return True
        if re.fullmatch(_CAP, w) and not _WEAK_EN_RE.fullmatch(w):
            return True
    return False


def _nameish(name: str) -> bool:
    """Every word of an English name can be part of a level's name: capitalised or a level
    word ("gold", "premium"; not "free", "shipping")."""
    return bool(name) and all(re.fullmatch(_CAP, w) or _KNOWN_EN_RE.fullmatch(w)
                              or _WEAK_EN_RE.fullmatch(w) for w in name.split())


def level_worded(name: str) -> bool:
    """Some word of an English name is a level word, known or weak ("Gold", "Plus", "Tier 3"):
    "I'm Rowan now" names no level, "I'm Infinite now" may."""
    return any(_KNOWN_EN_RE.fullmatch(w) or _WEAK_EN_RE.fullmatch(w) or _NUM_EN_RE.fullmatch(w)
               for w in name.split())


#: A text about a person's name (a new surname, a passport, a deed poll): capitalised words
#: that name no level there are the person's ("so it's Christopher Hale now").
_NAME_TALK = re.compile(r"\b(?:names?|named|surname|maiden|married|marriage|wedding|divorced?|"
                        r"passport|deed poll|legally|spel(?:t|led|ling|l)|"
                        r"(?:go|goes|going|gone|went) by|known as)\b", re.I)


def speaks_of_a_name(text: str) -> bool:
    """The text speaks of a person's name (:data:`_NAME_TALK`: a surname, a passport, a deed
    poll) and names no level: it states no membership, whatever it resembles."""
    return _NAME_TALK.search(text) is not None and not level_mentions(text)


def plausible_en_name(name: str, text: str) -> bool:
    """An English name read after "to" / "from" / "I'm … now" names a level: not only weak
    level words ("Pro Max"); made of known level words ("Gold Elite", "Royal Elite"), or said
    in a text about membership (a word for a level, an account, "bumped": "bumped up to Four
    Star"); never a known word with a place or product word after it outside such a text
    ("the Gold Coast", "Windows 11")."""
    words = name.split()
    if not words:
        return False
    if _NAME_TALK.search(text) is not None and not level_worded(name):
        return False  # "I got married … so I'm Priya Castellano now": a person's name
    if all(_WEAK_EN_RE.fullmatch(w) for w in words):
        # weak words only ("Classic Plus", "Pro Max"): a level where the text names the
        # membership itself ("my membership has been changed to Classic Plus")
        return _MEMBERSHIP_NOUN.search(text) is not None
    if all(_KNOWN_EN_RE.fullmatch(w) or _WEAK_EN_RE.fullmatch(w) or _NUM_EN_RE.fullmatch(w)
           for w in words):
        return True
    if any(_KNOWN_EN_RE.fullmatch(w) for w in words) and _UP_DOWN.search(text):
        return True  # "upgraded to Royal Crown"
    return _ABOUT_MEMBERSHIP.search(text) is not None


def _zh_name(head: str) -> str:
    return _ZH_CUT.sub("", head)


#: Texts up to this long have their level mentions kept (a clause is read for them by the slot
#: rules several times per turn, and common clauses recur): a pure function of the text.
CACHED_TEXT_CHARS = 1000


def level_mentions(text: str) -> list[LevelMention]:
    """Every level named in ``text`` (overlapping reads kept), in the order they start."""
    if len(text) > CACHED_TEXT_CHARS:
        return list(_level_mentions.__wrapped__(text))
    return list(_level_mentions(text))


@lru_cache(maxsize=4096)
def _level_mentions(text: str) -> tuple[LevelMention, ...]:
    """:func:`level_mentions`, kept (see :data:`CACHED_TEXT_CHARS`)."""
    out: list[LevelMention] = []

    def add(start: int, value: str, moved: bool = False) -> None:
        value = value.strip()
        bare = value.removesuffix("会员").removesuffix("會員").strip()
        value = bare if bare and bare not in _NO_NAME_ZH else value  # "翡翠会员" is 翡翠
        if value:
            out.append(LevelMention(start, start + len(value), value, moved))

    for m in _NUM_EN_RE.finditer(text):
        add(m.start(), m.group(0))
    context = _LEVEL_CONTEXT.search(text) is not None
    for m in _ZH_NUMBERED.finditer(text):
        if _ZH_STEP.search(text, 0, m.start()):
            continue  # "升了一级": a step up, no level
        if m.group(0).endswith(("会员", "會員")) or context:
            add(m.start(), m.group(0))
    for m in _EN_NAME_NOUN.finditer(text):
        name = _en_name(m.group(1))
        if not name or not _nameish(name) or _NOT_NOUN_FOLLOWS.match(text, m.end()):
            continue
        noun = m.group(2).lower()
        if not _strong(name) and noun in ("card", "cardholder", "card holder", "club") \
                and not _KNOWN_EN_RE.search(name) and not _WEAK_EN_RE.search(name):
            continue
        if noun == "plan" and not (_KNOWN_EN_RE.search(name) or _WEAK_EN_RE.search(name)):
            continue  # "Data plan", "Family plan": a plan, no level
        if not _strong(name) and not _WEAK_EN_RE.fullmatch(name.split()[-1]):
            continue
        keep = noun.startswith("card") or noun == "club"
        whole = name + " " + m.group(2).split()[0] if keep else name
        start = m.end(1) - len(name)
        add(start, text[start:start + len(whole)] if keep else whole)
    for m in _EN_AFTER_UP.finditer(text):
        name = _en_name(m.group(1))
        if not name:
            continue
        if _NUM_EN_RE.fullmatch(name) or plausible_en_name(name, text):
            add(m.end(1) - len(name), name, moved=True)
    for m in _PLAN_IS.finditer(text):  # "my plan is Basic", "個plan係Premium"
        name = _en_name(m.group(1))
        if name and all(_KNOWN_EN_RE.fullmatch(w) or _WEAK_EN_RE.fullmatch(w)
                        for w in name.split()):
            add(m.end(1) - len(name), name)
    for m in _EN_STATED.finditer(text):
        name = _en_name(m.group(1))
        if name and (_NUM_EN_RE.fullmatch(name) or (_KNOWN_EN_RE.search(name)
                                                      and plausible_en_name(name, text))):
            add(m.end(1) - len(name), name)
    for m in _ZH_AFTER_UP.finditer(text):
        name = m.group(1)
        if _ZH_STEP.search(text, 0, m.start(1)) and re.fullmatch(_NUM_ZH, name):
            continue  # "升咗一級": a step up
        if not _NOT_ZH.fullmatch(name):
            add(m.start(1), name, moved=True)
    for m in _ZH_NAME_NOUN.finditer(text):
        head, noun = m.group(1), m.group(2)
        name = head.strip() if head[0].isascii() else _zh_name(head)
        if not name or _NOT_ZH.search(name + noun) or name in _NO_NAME_ZH \
                or (not head[0].isascii() and (name[-2:] in NOT_NAME_HEAD_ZH
                                               or name[-1:] in NOT_NAME_HEAD_ZH)):
            continue
        if noun == "VIP" and (head[0].isascii() or re.match(r"[A-Za-z0-9]", text[m.end():])):
            continue  # "coupon VIP20MJ": English, or a code
        if noun in ("级", "級") and not (context and len(name) >= 2) \
                and not _ZH_STANDALONE.fullmatch(name):
            continue
        start = m.end(1) - len(name) if not head[0].isascii() else m.start(1)
        keep = noun in ("级", "級", "VIP") or name.isascii()
        add(start, text[start:m.end()] if keep else name)
    for m in _ZH_STANDALONE.finditer(text):  # "黑卡" always; "钻石" in "等级：钻石"
        if context or m.group(0).endswith("卡"):
            add(m.start(), m.group(0))
    for m in _ZH_IS.finditer(text):
        add(m.start(1), m.group(1))
    subscribed = _SUBSCRIBED_ZH.search(text) is not None
    for m in _ZH_PLAN.finditer(text):  # "我訂閱的是標準方案", "upgrade 去靈活計劃"
        if subscribed or _PLAN_GRADE_ZH.search(m.group(1)):
            name = _zh_name(m.group(1)) if not m.group(1)[0].isascii() else m.group(1).strip()
            if len(name) >= 2 and not _NOT_ZH.search(name) and name[-2:] not in NOT_NAME_HEAD_ZH:
                start = m.end(1) - len(name) if not m.group(1)[0].isascii() else m.start(1)
                add(start, text[start:m.end()])
    out.sort(key=lambda x: (x.start, -len(x.value)))
    return tuple(dict.fromkeys(out))


def mentions_level(text: str) -> bool:
    """True when ``text`` names a level."""
    return bool(level_mentions(text))


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
