"""A Chinese name spelled out: how one of its characters is written, said beside it.

Callers spell a name they fear will be mistyped by its characters' parts ("李振骅 马字旁一个华",
"是草字头的薇 周薇薇", "宸是宝盖头下面一个辰") or by a word the character is in ("何思语 语言的语",
"郑东宸 东西的东", "不是海洋的洋"). Only a name is spelled like that, so the description marks the
name beside it as a name being given (a correction of a typo, a new registration).

Pure functions over plain text; read by :mod:`jiyi.text.entities` (to find the name) and by
:mod:`jiyi.write.slots` (to type it as the speaker's name).
"""

from __future__ import annotations

import re

from .fastre import gate_all

#: A character's part named ("马字旁", "提手旁", "草字头", "宝盖头", "三点水"), perhaps followed by
#: the character it makes ("马字旁一个华", "草字头的薇").
_PART = (r"(?:[\u4e00-\u9fff](?:字旁|字头|字頭|字底)|提手旁|提土旁|单人旁|單人旁|双人旁|雙人旁|绞丝旁|絞絲旁|"
         r"竖心旁|豎心旁|三点水|三點水|两点水|兩點水|宝盖头|寶蓋頭|宝盖|寶蓋|草头|草頭)")
#: The part said right after the name, perhaps as "X是…" or "那个…".
_PART_AFTER = re.compile(r"[ \u3000，,、]*(?:[\u4e00-\u9fff]是|那个|那個|是)?" + _PART)
#: A word holding the character, then the character ("语言的语", "东西的东", "海洋的洋").
_WORD_OF_AFTER = re.compile(r"[ \u3000，,、]*(?:[\u4e00-\u9fff]是)?([\u4e00-\u9fff]{2,3})的([\u4e00-\u9fff])"
                            r"(?=[\s，,。.！!？?、；;]|$)")
#: The same said right before the name ("是草字头的薇 周薇薇", "东西的东 郑东宸").
_PART_BEFORE = re.compile(_PART + r"(?:的|那个|那個|一个|一個)?[\u4e00-\u9fff]?[ \u3000，,、]+$")
_WORD_OF_BEFORE = re.compile(r"([\u4e00-\u9fff]{2,3})的([\u4e00-\u9fff])[ \u3000，,、]+$")


def spelled_after(text: str) -> bool:
    """``text`` (what follows a name) opens by telling how a character is written."""
    if _PART_AFTER.match(text):
        return True
    m = _WORD_OF_AFTER.match(text)
    return m is not None and m.group(2) in m.group(1)


def spelled_before(text: str) -> bool:
    """``text`` (what precedes a name) ends by telling how a character is written."""
    if _PART_BEFORE.search(text):
        return True
    m = _WORD_OF_BEFORE.search(text)
    return m is not None and m.group(2) in m.group(1)


def spelled_beside(before: str, after: str) -> bool:
    """A name between ``before`` and ``after`` is spelled out beside it."""
    return spelled_after(after) or spelled_before(before)


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
