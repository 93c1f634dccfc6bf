"""A user's answer to the agent's earlier question, said with the question named.

Chat users often repeat what they were asked before the answer: "u asked what food i like,
sushi", "嗯 就是那个 煎饼果子，你问我爱吃啥", "你剛問我喜歡吃什麼齁 蘿蔔糕", "you asked how to
reach me, Signal". The clause naming the question states no value (its words are the question's:
"what food", "爱吃啥"); the value is the rest of the draft, or, when the question stands alone in
its draft, the draft right after it (else right before it). The question names the slot: a row's
question cue words ("爱吃", "contact me") or, failing those, its statement cue words ("when to
deliver").

Pure of the store; used by :func:`jiyi.write.meaning.type_by_meaning` (in place on the drafts).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..keyfacts.schema import SlotSpec, item_slot, list_item, names_item, one_item, schema
from ..keyfacts.typing import QUESTION, owns
from ..text import fold
from ..units import MemoryType
from .drafts import UnitDraft

#: "你问我…", "你剛問…", "您之前问…", "u asked…", "you were asking…", "to answer your question".
ECHO = re.compile(
    r"(?:你|您)(?:们|們)?(?:刚才|剛才|刚刚|剛剛|刚|剛|之前|前面|上次|不是)?(?:问|問)|"
    r"\b(?:u|you|ya)\s+(?:just\s+|earlier\s+)?(?:asked|were asking|was asking|wanted to know)\b|"
    r"\b(?:to answer|as for|re) (?:ur|your) (?:question|q)\b", re.I)
#: What closes the question named: its question word, particles and spaces ("…吃啥齁 ").
_QUESTION_END = re.compile(r"[^，,;；。.!！?？\s]{0,6}?(?:啥|什么|什麼|哪些|哪个|哪個|吗|嗎|呢)?"
                           r"[齁喔啊呀呢吧啦嘛哦噢欸]*[\s，,;；。.!！?？:：]*")
#: An answer this long is a paragraph, not one value.
MAX_ANSWER_CHARS = 60


def asked_row(text: str) -> tuple[SlotSpec, int, int] | None:
    """The list or clause-valued row whose question ``text`` names as the agent's, and the
    span of that question in ``text`` (from 你问 / u asked to its closing word)."""
    m = ECHO.search(text)
    if m is None:
        return None
    after = fold(text[m.end():m.end() + 40])
    rows = [r for r in schema() if r.value in ("item", "clause")]
    for attr in ("question", "statement_cue"):
        for row in rows:
            rx = getattr(row, attr)
            cue = rx.search(after) if rx is not None else None
            if cue is None or (row.not_with is not None and row.not_with.search(after)):
                continue
            if attr == "statement_cue" and len(after[:cue.start()].split()) > 3:
                continue  # "you asked about returns, also deliver…": not the question's word
            end = m.end() + cue.end()
            if row.value == "clause" or attr == "question":
                # an English question runs to the comma ("u asked what food i like, sushi")
                comma = re.search(r"[，,;；:：]", text[end:])
                if comma is not None and text[m.start():end].isascii() \
                        and len(text[end:end + comma.start()].split()) <= 3:
                    end += comma.start()
            tail = _QUESTION_END.match(text, end)
            return row, m.start(), tail.end() if tail else end
    return None


def _answer(row: SlotSpec, text: str) -> bool:
    """``text`` answers the row's question with one value: one plain item of a list, a value
    word of a clause-valued slot; never a question of its own."""
    text = text.strip(" ，,;；。.!！")
    if not text or len(text) > MAX_ANSWER_CHARS or QUESTION.search(text):
        return False
    if row.value == "item":
        return names_item(row, text) and one_item(list_item(row, text)) \
            and owns(row.name, text)
    words = row.value_words or row.value_hint
    return words is not None and words.search(text) is not None and owns(row.name, text)


def type_answers(drafts: Sequence[UnitDraft], types: frozenset[MemoryType],
                 taken: set[str], speaker: str | None) -> set[int]:
    """Type the drafts that answer a question the user names (in place; a single-valued slot
    only when no draft of the turn holds it yet: ``taken``, updated); returns the indexes of the
    drafts naming the question and holding no answer, which are typed by nothing else (their
    words are the question's: "你问我爱吃啥" is no liked item)."""
    echoes: set[int] = set()
    for i, draft in enumerate(drafts):
        if draft.slot or draft.about_id or draft.type not in types:
            continue
        found = asked_row(draft.content)
        if found is None:
            continue
        row, start, end = found
        if row.single and row.name in taken:
            continue
        rest = draft.content[:start] + " " + draft.content[end:]
        if _answer(row, rest):
            _give(row, draft, rest, taken, speaker)
            continue
        echoes.add(i)  # the question's words are no value, whatever else the draft says
        if names_item(row, rest) if row.value == "item" else rest.strip(" ，,;；。.!！"):
            continue  # something else is said beside the question: no answer beside it
        for j in (i + 1, i - 1):
            other = drafts[j] if 0 <= j < len(drafts) else None
            if other is not None and not other.slot and other.about_id is None \
                    and other.type in types and _answer(row, other.content):
                _give(row, other, other.content, taken, speaker)
                break
    return echoes


def _give(row: SlotSpec, draft: UnitDraft, answer: str, taken: set[str],
          speaker: str | None) -> None:
    if row.single:
        taken.add(row.name)
    if row.value == "item":
        draft.slot = item_slot(row.name, list_item(row, answer))
    else:
        draft.slot = f"{row.name}@{speaker.casefold()}" if speaker else row.name
    draft.type = MemoryType.USER_PROFILE
