"""A liked item buried in a run-on turn.

Chat typed in a hurry glues a dozen fragments together with no punctuation ("…能开发票不我好爱
酸辣粉的说退货咋弄啊…", "… the app keeps freezing big fan of falafel ngl when does the sale
end …"). Such a draft is too long to be typed by meaning, and the cue words of a list item do
not say where the item ends. Here the item is read next to a like cue: in Chinese the nouns
right after "(我)超爱 / 好喜欢 / 偏好 / 每周都要吃" or right before "是我的最爱 / 是我的命"
(word boundaries and parts of speech from jieba, over the Simplified text); in English the
words right after "big fan of / obsessed with / I love" up to a filler or a function word.

Pure functions; used by :func:`jiyi.write.meaning.type_by_meaning`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..keyfacts.schema import SlotSpec, one_item, third_party
from ..text.segment import to_simplified

#: A like said before its item ("我超爱X", "俺好喜欢吃X", "偏好X", "每周都要吃一次X"), with no
#: negation right before it (read over the Simplified text).
_ZH_BEFORE = re.compile(
    r"(?<![不没别])(?:(?:我|俺|咱)(?:好|很|超|贼|最|真|特别|蛮|挺|超级)?|(?:好|很|超|贼|最|超级))"
    r"(?:爱|喜欢)(?:吃|喝)?|偏好|每(?:周|天|个?(?:礼拜|星期))都?要?(?:吃|喝)[一1]?[次回顿]?")
#: A like said after its item ("X是我的最爱", "X是我的命").
_ZH_AFTER = re.compile(r"是我的(?:最爱|命)")
#: A like said before its item in English.
_EN_BEFORE = re.compile(
    r"\b(?:(?:big|huge) fan of|obsessed w(?:ith|/)|crazy about|can't get enough of|"
    r"i(?:'m| am)? (?:really |just |absolutely )?(?:love|adore|enjoy)|could eat)\s+", re.I)
#: Words that end an English item: fillers, function words, the start of another fragment.
_EN_STOP_WORDS = (
    "lol lmao ngl tbh tbf btw fr rn imo pls plz tho omg idk fyi nvm brb hmm k ok okay thx thanks "
    "ty sorry ugh so and but or also when what where how why who which do does did is are was "
    "can could would will should i i'm im u ur you your my me the a an this that it it's its "
    "these those there here to for at on in of with from any every every day now today too "
    "haha hahaha yeah yep nah mate honestly anyway ps though all lots much very really "
    "again hey hi")
_EN_STOP = frozenset(_EN_STOP_WORDS.split())
#: Parts of speech (jieba) a Chinese item is made of: nouns and their kin.
_NOUN_FLAGS = ("n", "g", "eng")
#: How far around a like cue its holder is read ("我妈超爱X" is the mother's).
HOLDER_WINDOW = 6
#: A run-on too long to be read at all.
MAX_RUN_ON_CHARS = 600


@lru_cache(maxsize=1)
def _posseg() -> Any:
    import jieba.posseg

    return jieba.posseg


def buried_item(row: SlotSpec, text: str) -> str | None:
    """The one item a run-on draft names with a like cue, or None (no cue; an item not plainly
    one; someone else's like; a negation in the draft: "不想再吃" is no like)."""
    if row.value != "item" or len(text) > MAX_RUN_ON_CHARS:
        return None
    simple = to_simplified(text)
    if len(simple) != len(text):
        return None
    items = [*_zh_items(simple), *_en_items(text)]
    found = [text[a:b] for a, b in items
             if not third_party().search(text[max(0, a - HOLDER_WINDOW - 4):a])
             and not _look_alike(row, text[max(0, a - HOLDER_WINDOW):b + HOLDER_WINDOW])]
    found = [f for f in dict.fromkeys(found) if one_item(f.casefold())]
    return found[0].casefold() if len(found) == 1 else None


#: Characters that never belong to a Chinese item named in a run-on: particles, pronouns,
#: question words and the common verbs and adverbs chat glues after or before one.
_ZH_STOP = frozenset(
    "的了吧啊呀嘛喔哦欸诶啦耶噢哈呵嗯呗么呢吗着过得地你我他她俺咱们是在有要想能会可不没还就都也很太"
    "好多少几哪谁什怎啥咋弄买寄送退换发到给把被让跟和与对又再才先后这那个些里说讲问谢请帮等算行")
#: The longest item read in a run-on.
MAX_ZH_ITEM = 6


def _zh_items(simple: str) -> list[tuple[int, int]]:
    """Items right after a like cue ("我超爱X…") or right before one ("…X是我的最爱"): the
    characters up to a stop character, cut before a word of two or more characters that jieba
    reads as no noun ("冰淇淋包装…" -> 冰淇淋)."""
    out: list[tuple[int, int]] = []
    for m in _ZH_BEFORE.finditer(simple):
        end = m.end()
        while end < len(simple) and end - m.end() < MAX_ZH_ITEM and _zh_char(simple[end]):
            end += 1
        out.append(_cut(simple, m.end(), end, keep="left"))
    for m in _ZH_AFTER.finditer(simple):
        start = m.start()
        while start > 0 and m.start() - start < MAX_ZH_ITEM and _zh_char(simple[start - 1]):
            start -= 1
        out.append(_cut(simple, start, m.start(), keep="right"))
    return [(a, b) for a, b in out if 2 <= b - a <= MAX_ZH_ITEM]


def _zh_char(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" and ch not in _ZH_STOP


def _cut(simple: str, start: int, end: int, keep: str) -> tuple[int, int]:
    """The part of ``simple[start:end]`` on the ``keep`` side of its first (``left``) or last
    (``right``) word of two or more characters that is no noun."""
    if end - start < 3:
        return start, end
    pos = start
    words: list[tuple[int, int, str]] = []
    for w in _posseg().cut(simple[start:end]):
        words.append((pos, pos + len(w.word), w.flag))
        pos += len(w.word)
    bad = [(a, b) for a, b, flag in words if b - a >= 2 and not flag.startswith(_NOUN_FLAGS)]
    if not bad:
        return start, end
    if keep == "left":
        return start, bad[0][0] if bad[0][0] > start else end
    return (bad[-1][1], end) if bad[-1][1] < end else (start, end)


_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _en_items(text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for m in _EN_BEFORE.finditer(text):
        end = m.end()
        got = 0
        for w in _EN_WORD.finditer(text, m.end()):
            if (w.start() != end and text[end:w.start()].strip()) \
                    or w.group(0).lower() in _EN_STOP:
                break
            end, got = w.end(), got + 1
            if got == 3:
                break
        if got:
            out.append((m.end(), end))
    return out


def _look_alike(row: SlotSpec, near: str) -> bool:
    """The words around the item say it is something else (clothes, a colour, the shop)."""
    return (row.not_with is not None and row.not_with.search(near) is not None) \
        or row.looks_alike(near)
