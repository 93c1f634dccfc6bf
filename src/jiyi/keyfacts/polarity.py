"""A clause's polarity toward a list item the user already holds.

Said of a thing the user's list names ("X就算了吧最近", "X的話最近吃太多膩了", "honestly done
with X", "X? not anymore, doc's orders"), the only question is whether the words around the item
take it back: the list row's own ``negation`` (``slots.json``) first; then, because the item is
known, weaker words (:mod:`jiyi.text.slotwords`: a negator with a verb of wanting, aversion,
stopping, "enough of it"), unless the clause likes it ("就是爱", "I love"). Idioms that sound
negative and praise ("不要太好吃", "没有比X更好吃", "never say no to X") and connectives ("不过")
are taken out first. A question takes nothing back ("X还有货吗", "no X today?").

The same reading serves the write path (a clause naming a listed item takes it back, however it
is said: :mod:`jiyi.write.knownitems`) and recall (such a clause's unit is a negation, not a like).
Pure functions.
"""

from __future__ import annotations

import re
from itertools import pairwise

from ..text import fold
from ..text import slotwords as sw
from .schema import SlotSpec, negates, without_cues
from .typing import QUESTION, owns

#: A clause that retires a value ("别再用微信了", "don't phone", "not the old time"; a time nobody
#: is in, "家里白天没人", "evenings I'm busy") does not state the slot's new value.
RETIRES = re.compile(
    r"别再|別再|不再|不要再|不用|不常看|不怎么看|不怎麼看|卸载|卸載|删了|刪了|删掉|刪掉|停用|别用|別用|"
    r"不能用|用不了|不能再用|不再用|"
    r"别发|別發|不要发|不要發|(?<![\d点點时時午晚早])(?:之前|以前)|原来|原來|老地方|舊的|旧的|别|別|不要|"
    r"不行|不方便|没人|沒人|冇人|无人|無人|不在|唔喺|没空|沒空|冇空|不得闲|不得閒|唔得闲|唔得閒|"
    # the same in Cantonese (唔 is 不, 冇 is 没, 唔好 is 别, 睇 is 看, 咗 is 了) and a value
    # seldom read or answered ("好少睇email", "很少看LINE", "唔聽電話")
    r"唔再|冇再|唔好|唔用|唔使用|唔常睇|好少睇|好少用|很少看|很少用|很少接|好少覆|唔睇|冇睇|唔聽|唔接|不接|"
    r"刪咗|删咗|停咗用|用唔到|用唔倒|唔得|唔掂|唔方便|已經唔|已经唔|"
    r"\b(?:don't|do not|stop|no longer|anymore|old|previous|used to|deleted|not|"
    r"doesn't|isn't|won't|nobody|no one|busy|"
    # chat English drops the apostrophe ("dont whatsapp me liao")
    r"dont|doesnt|isnt|wont|no more|never)\b", re.I)
#: How close to a value word a retiring word must stand to retire it.
RETIRE_WINDOW = 6


#: Said right after a value, these retire it ("QQ基本不登了", "LINE已經刪咗", "email 好少睇",
#: "Telegram is dead for me"): the user no longer uses it.
RETIRED_AFTER = re.compile(
    r"^\s*(?:我|我都|都|基本|基本上|已经|已經|早就|好少|很少|几乎|幾乎|平时|平時)?\s*"
    r"(?:不登|唔登|冇登|不上|唔上|不用|唔用|冇用|不看|唔睇|冇睇|不开|唔開|不開|删|刪|停用|停咗|卸载|卸載|"
    r"登不上|上不了|用不了|用唔到|睇|看)(?:了|咗|喇|啦|嘞|掉|咗喇)?|"
    r"^\s*(?:is|'s)\s+(?:dead|gone|deleted|closed)\b|^\s*(?:doesn't|does not|no longer) work", re.I)


def retired_after(text: str, at: int) -> bool:
    """A retiring phrase (:data:`RETIRED_AFTER`) follows ``text[:at]`` at once ("QQ基本不登了"):
    the value before it is taken back, not stated. A bare "看"/"睇" retires only after 好少/很少."""
    m = RETIRED_AFTER.search(text[at:at + RETIRE_WINDOW * 2])
    return m is not None and not (m.group(0).strip()[-1:] in "看睇" and not re.search(
        r"好少|很少|几乎|幾乎", m.group(0)))


def retired_before(text: str, at: int) -> bool:
    """A retiring word (:data:`RETIRES`) stands right before ``text[at:]`` ("别微信了", "dont
    whatsapp me", "唔好WhatsApp喇"): the value there is taken back, not stated."""
    return RETIRES.search(text[max(0, at - RETIRE_WINDOW):at]) is not None

#: A word of a list item this short says nothing of the item ("吃", "it").
MIN_ITEM_WORD = {"cjk": 2, "latin": 3}
#: Clauses read after the item's own when it holds no word either way ("X? not anymore").
FOLLOWING_CLAUSES = 2

_NEGATED_WANT = re.compile(
    "(?:" + sw.alternation(sw.NEGATOR_ZH) + r")[再太很想会會能用敢]{0,2}(?:"
    + sw.alternation(sw.WANTING_ZH) + "|" + sw.WANTING_NOT_DETAIL_ZH + ")|"
    + r"\b(?:" + sw.alternation(sw.NEGATOR_EN) + r")\s+(?:\w+\s+){0,2}?"
    + sw.en_words(sw.WANTING_EN), re.I)
_AVERSION = re.compile(sw.alternation(sw.AVERSION_ZH) + "|" + sw.en_words(sw.AVERSION_EN), re.I)
_UNNEGATED = re.compile(sw.alternation(sw.UNNEGATED_ZH) + "|" + sw.en_words(sw.UNNEGATED_EN),
                        re.I)
_STILL = re.compile(sw.alternation(sw.STILL_LIKED_ZH) + "|" + sw.en_words(sw.STILL_LIKED_EN),
                    re.I)
#: Where a clause ends, and where a contrast opens a new one ("X还行，但Y就算了", "X is fine but").
_CLAUSE = re.compile(r"[，,;；。.!！?？\n]+|\s*(?:但是|但|可是|不过|不過|只是)|"
                     r"\s+(?:but|though|although|however)\b", re.I)
_WORD = re.compile(r"[\w'-]+")


def item_words(row: SlotSpec, text: str) -> list[str]:
    """The words of a list item left once the row's cue words are removed ("我口味偏爱芝士" ->
    ["口味偏", "芝士"] after folding); none when only cue words were said ("我不吃了")."""
    words = fold(without_cues(row, text)).split()
    return [w.strip(".,!?'\"") for w in words
            if len(w.strip(".,!?'\"")) >= MIN_ITEM_WORD["latin" if w.isascii() else "cjk"]]


def names_words(words: list[str], text: str) -> bool:
    """``text`` (folded) names the item of ``words``: one of its Chinese words, its one English
    word, or two of its English words in a row ("grilled eel"; "masala" alone does not name
    "chicken tikka masala" in "big fan of masala dosa")."""
    latin = [w for w in words if w.isascii()]
    spaced = " " + " ".join(_WORD.findall(text)) + " "
    if len(latin) == 1 and f" {latin[0]} " in spaced:
        return True
    if any(f" {a} {b} " in spaced for a, b in pairwise(latin)):
        return True
    return any(w in text for w in words if not w.isascii())


def _clauses(text: str) -> list[tuple[str, bool]]:
    """The clauses of ``text``, each with whether it is asked (its closing mark kept to tell)."""
    out: list[tuple[str, bool]] = []
    start = 0
    for m in _CLAUSE.finditer(text):
        part = text[start:m.end()]
        if part.strip():
            out.append((text[start:m.start()], QUESTION.search(part) is not None))
        start = m.end()
    if text[start:].strip():
        out.append((text[start:], QUESTION.search(text[start:]) is not None))
    return out


def _reading(row: SlotSpec, clause: str) -> bool | None:
    """True: the clause takes an item back; False: it likes it; None: neither."""
    rest = _UNNEGATED.sub(" ", clause)
    if negates(row, rest):
        return True
    if _STILL.search(rest) or (row.strong_cue is not None and row.strong_cue.search(rest)):
        return False
    if _AVERSION.search(rest) or _NEGATED_WANT.search(rest):
        return True
    return False if rest != clause else None


def _names_another(row: SlotSpec, clause: str) -> bool:
    """A clause after the item's names a thing of its own ("X还是爱，但Y就算了": Y), once its
    words of polarity and the row's cue words are gone ("not anymore", "最近吃太多了" name none)."""
    rest = _AVERSION.sub(" ", _UNNEGATED.sub(" ", clause))
    return bool(without_cues(row, _NEGATED_WANT.sub(" ", rest)).split())


def _echo(row: SlotSpec, clause: str, words: list[str]) -> bool:
    """The clause is the item and nothing else ("falafel?", "麻辣烫？")."""
    rest = fold(clause)
    for w in words:
        rest = rest.replace(w, " ")
    return not without_cues(row, rest).split()


def takes_back(row: SlotSpec, text: str, words: list[str]) -> bool:
    """The clause of ``text`` naming the item of ``words`` (its last mention) takes the item
    back: read in that clause, else in the next ones that name it no more (up to
    :data:`FOLLOWING_CLAUSES`: "X? not anymore, doc's orders"; not past one naming another thing:
    "X还是爱，但Y就算了"); a question or someone else's words ("我妈不吃X了") take nothing back."""
    if not words or row.negation is None:
        return False
    clauses = _clauses(text)
    named = [i for i, (c, _) in enumerate(clauses) if names_words(words, fold(c))]
    if not named:
        return False
    at = named[-1]
    for i, (clause, asked) in enumerate(clauses[at:at + 1 + FOLLOWING_CLAUSES]):
        if asked and not i and _echo(row, clause, words):
            continue  # the item said back with a question mark ("falafel? not anymore")
        if asked or (i and _names_another(row, clause)):
            return False
        found = _reading(row, clause)
        if found is not None:
            return found and owns(row.name, clause)
    return False


def unit_takes_back(row: SlotSpec, content: str, item: str) -> bool:
    """A list unit of ``item`` (``food:X``) whose words take the item back: the row's negation,
    or the clause naming the item read as above."""
    return negates(row, content) or takes_back(row, content, item_words(row, item))


def may_take_back(row: SlotSpec, text: str) -> bool:
    """Some word of ``text`` could take an item back (a cheap test before any item is read)."""
    return row.negation is not None and (
        negates(row, text) or _AVERSION.search(text) is not None
        or _NEGATED_WANT.search(text) is not None)
