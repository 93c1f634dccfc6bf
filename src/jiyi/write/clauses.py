"""Cutting a turn into sentences and a sentence into clauses, never inside an entity: the
sentence merges (an entity across a boundary, a value answering the user's own question) and
the clause spans the clause planning (:mod:`.plan`) and the identifier groups (:mod:`.idgroups`)
read.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..keyfacts.schema import SlotSpec, schema
from ..text.fastre import gate_all
from ..text.timebase import TimeMatch
from ..units import Entity
from .compress import CACHED_TEXT_CHARS
from .drafts import DATED_KINDS
from .slots import validity_end

CLAUSE_MARK = re.compile(r"[，,;；]")
_CLAUSE = re.compile(
    r"[，;；]|,(?!\d{3})|：|:(?!\d)|"
    r"\s*,?\s+(?:and|but|plus|also)\s+(?=(?:I|I'm|I've|I'd|my|we|our|me)\b)|"
    r"\s*,?\s+(?:and|but|plus|while|whereas)\s+(?=(?:the\s+)?[A-Z]{1,10}[0-9]{1,8}[A-Z0-9]*\b)|"
    r"(?:还有|還有|而且|并且|並且|另外|同时|同時)(?=我)")
TAG_QUESTION = re.compile(
    r"[，,]\s*(?:right|correct|isn't it|aren't I|don't I|is that right|yes|no|ok|okay|yeah|"
    r"对吧|對吧|是吧|是不是|对不对|對不對|没错吧|沒錯吧|对吗|對嗎|是吗|是嗎|吧)\s*[？?]\s*$", re.I)
#: A sentence that asks something ("收货时段可以选吗？", "Can I pick a delivery slot?"): it
#: states nothing about an id ("明天能到吗？") and stays apart from the id's fact.
ASKS = re.compile(r"[?？]\s*$|[吗嗎么麼呢]\s*[。.]?\s*$")


def clause_spans(text: str, entities: list[Entity]) -> list[tuple[int, int]]:
    """Clauses: cut at commas, semicolons, colons and the conjunctions that open a new
    statement ("… and I love sushi", "…还有我…"), never inside an entity."""
    kept = _clause_spans_of if len(text) <= CACHED_TEXT_CHARS else _clause_spans_of.__wrapped__
    return list(kept(text, tuple((e.start, e.end) for e in entities)))


@lru_cache(maxsize=4096)
def _clause_spans_of(text: str, entity_spans: tuple[tuple[int, int], ...]
                     ) -> tuple[tuple[int, int], ...]:
    """:func:`clause_spans` on the entities' spans (a sentence is cut several times per turn,
    for its pieces, its id facts and its whole-sentence unit: the answer is kept)."""
    inside = bytearray(len(text) + 1)
    for start, end in entity_spans:
        inside[start:end] = b"\x01" * max(0, end - start)
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _CLAUSE.finditer(text):
        if inside[m.start()] or m.start() <= pos:
            continue
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, len(text)))
    return tuple((a, b) for a, b in spans if text[a:b].strip()) or ((0, len(text)),)


def shift(e: Entity, offset: int) -> Entity:
    """``e`` with its span made relative to ``offset`` (a sentence or clause start)."""
    # the validating constructor is cheaper than ``model_construct`` for five plain fields
    return Entity(kind=e.kind, text=e.text, value=e.value, start=e.start - offset,
                  end=e.end - offset)


def merge_split_entities(sentences: list[tuple[str, int, int]], entities: list[Entity],
                         text: str) -> list[tuple[str, int, int]]:
    """Join sentences when an entity straddles their boundary (never split an entity)."""
    inside = bytearray(len(text) + 1)  # inside[i]: index i is strictly inside an entity
    for e in entities:
        inside[e.start + 1:e.end] = b"\x01" * max(0, e.end - e.start - 1)
    merged: list[tuple[str, int, int]] = []
    for sent in sentences:
        if merged and any(inside[i] for i in range(merged[-1][2], sent[1] + 1)):
            prev = merged.pop()
            merged.append((text[prev[1]:sent[2]], prev[1], sent[2]))
        else:
            merged.append(sent)
    return merged


#: A sentence this short after a code's, holding a date and no identifier, is the code's validity
#: when it says so ("领了个券哈 BDAY20FZ 8折 | 有效期到3月31日", "我領到SAVE15GA了 | 說是4月24日前能用",
#: "Got code TAKE10. | Good till May 30."): one sentence, so the unit holds the code with its date.
VALIDITY_SENTENCE_CHARS = 24


def merge_code_validity(sentences: list[tuple[str, int, int]], entities: list[Entity],
                        times: list[TimeMatch], text: str) -> list[tuple[str, int, int]]:
    """Join a sentence naming a code (no date) with the short sentence after it that says until
    when it is valid (a date, no identifier of its own; read with the code's sentence, so "到5月6
    日" after "我有BDAY8VT 折200元" is the code's end)."""
    if not times or not any(e.kind in DATED_KINDS for e in entities):
        return sentences
    out: list[tuple[str, int, int]] = []
    for sent in sentences:
        if out and _holds_code_only(out[-1], entities, times) \
                and _validity_only(out[-1], sent, entities, times, text):
            prev = out.pop()
            out.append((text[prev[1]:sent[2]], prev[1], sent[2]))
        else:
            out.append(sent)
    return out


def _inside(sent: tuple[str, int, int], start: int, end: int) -> bool:
    return sent[1] <= start and end <= sent[2]


def _holds_code_only(sent: tuple[str, int, int], entities: list[Entity],
                     times: list[TimeMatch]) -> bool:
    return any(e.kind in DATED_KINDS and _inside(sent, e.start, e.end) for e in entities) \
        and not any(_inside(sent, t.start, t.end) for t in times)


def _validity_only(prev: tuple[str, int, int], sent: tuple[str, int, int],
                   entities: list[Entity], times: list[TimeMatch], text: str) -> bool:
    """The sentence, or its first clause, says only until when the code before is valid (the
    clauses after it may name codes of their own: "那張 FP30 | 這個禮拜天就到期了，不過 FP50 還
    可以用到六月底": the joined sentence is then cut code by code, :func:`.plan.dated_groups`)."""
    first = CLAUSE_MARK.split(sent[0], maxsplit=1)[0]
    sent = (first, sent[1], sent[1] + len(first))
    if len(sent[0]) > VALIDITY_SENTENCE_CHARS:
        return False
    if any(e.kind not in ("date", "time") and _inside(sent, e.start, e.end) for e in entities):
        return False
    mine = [t for t in times if _inside(sent, t.start, t.end)]
    return bool(mine) and validity_end(text[prev[1]:sent[2]], mine, prev[1]) is not None


def merge_asked_cue(sentences: list[tuple[str, int, int]], text: str
                    ) -> list[tuple[str, int, int]]:
    """A value answering the user's own question about its slot ("收货时段可以选吗？选周六上午，
    谢谢", "Can I pick a delivery slot? Saturday mornings, thanks") is read with the question:
    the two sentences are one, so the slot's cue word is beside its value."""
    out: list[tuple[str, int, int]] = []
    for sent in sentences:
        if out and ASKS.search(out[-1][0]) and not states_a_clause_slot(sent[0]) \
                and not states_a_clause_slot(out[-1][0]) and any(
                    row.value == "clause" and row.value_words is not None
                    and row.value_words.search(sent[0]) for row in schema()) \
                and states_a_clause_slot(out[-1][0] + " " + sent[0]):
            prev = out.pop()
            out.append((text[prev[1]:sent[2]], prev[1], sent[2]))
        else:
            out.append(sent)
    return out


def states_a_clause_slot(sentence: str) -> bool:
    """The sentence states a clause-valued key fact by rule (a value word and a cue word of
    one schema row: a delivery time, a contact channel)."""
    if len(sentence) > CACHED_TEXT_CHARS:
        return _states_a_clause_slot.__wrapped__(sentence)
    return _states_a_clause_slot(sentence)


@lru_cache(maxsize=4096)
def _states_a_clause_slot(sentence: str) -> bool:
    """:func:`states_a_clause_slot` (a pure function of the sentence: a sentence is read for it
    by its plan and by the merge of an asked cue, and common sentences recur: kept)."""
    return any(row.states(sentence) for row in _clause_rows())


@lru_cache(maxsize=1)
def _clause_rows() -> tuple[SlotSpec, ...]:
    """The schema's clause-valued rows, in schema order."""
    return tuple(row for row in schema() if row.value == "clause")


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
