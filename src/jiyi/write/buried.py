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
    r"(?:爱|喜欢)(?:吃|喝)?|偏好|每(?:周|天|礼拜|星期)都?要?(?:吃|喝)[一1]?[次回顿]?")
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


def _zh_items(simple: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    if not (_ZH_BEFORE.search(simple) or _ZH_AFTER.search(simple)):
        return out
    words = [(w.word, w.flag) for w in _posseg().cut(simple)]
    starts: list[int] = []
    pos = 0
    for word, _ in words:
        starts.append(pos)
        pos += len(word)
    for m in _ZH_BEFORE.finditer(simple):
        i = next((k for k, s in enumerate(starts) if s >= m.end()), len(words))
        j = i
        while j < len(words) and words[j][1].startswith(_NOUN_FLAGS) and words[j][0].strip():
            j += 1
        if j > i and starts[i] == m.end():
            out.append((starts[i], starts[j - 1] + len(words[j - 1][0])))
    for m in _ZH_AFTER.finditer(simple):
        j = next((k for k, s in enumerate(starts) if s >= m.start()), len(words))
        i = j
        while i > 0 and words[i - 1][1].startswith(_NOUN_FLAGS) and words[i - 1][0].strip():
            i -= 1
        if j > i and j <= len(words) and starts[j - 1] + len(words[j - 1][0]) == m.start():
            out.append((starts[i], m.start()))
    return [(a, b) for a, b in out if 2 <= b - a <= 8]


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
