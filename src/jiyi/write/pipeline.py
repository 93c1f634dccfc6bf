"""Turn -> drafts: the write path :class:`jiyi.memory.Memory` relies on. No model needed.

1. redact secrets into typed placeholders (the turn text itself is stored redacted);
2. a tool turn that is JSON is summarised as facts; any other turn is cut into sentences;
3. a pure confirmation yields no unit but ``is_confirmation``; filler sentences are dropped;
4. entities are found first and every one of them is kept in some unit;
5. relative dates are rewritten as absolute ones (resolved against the turn's ``at``), the
   speaker's name replaces "I"/"我" when the speaker is known;
6. single-valued facts (phone, city...) become slot units; validity phrases give ``valid_until``;
7. what remains is compressed and packed into units of at most 150 characters, never cut.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from ..text.segment import has_cjk
from ..units import MAX_CONTENT_CHARS, Entity, MemoryType
from .classify import classify, is_confirmation
from .compress import (
    compress_sentence,
    is_filler,
    join_pieces,
    normalise_long_tokens,
    split_long,
    split_sentences,
)
from .entities import extract_entities, extract_entities_and_times
from .redact import redact
from .slots import find_slots, validity_end
from .speaker import attribute
from .timeparse import TimeMatch
from .toolsum import summarise_tool

if TYPE_CHECKING:
    from .llm_extract import LLMExtractor

#: At most this many units from one turn (a 1 MB paste must not become 7,000 units); the turn
#: text itself is stored whole, so nothing is lost from provenance.
MAX_UNITS_PER_TURN = 64


@dataclass(frozen=True)
class TurnInput:
    text: str
    role: str
    at: datetime
    session_id: str
    user_id: str
    turn_id: str
    speaker: str | None = None


@dataclass
class UnitDraft:
    """A unit before it has an id, a lifespan or a store: what the write path decided."""

    content: str
    type: MemoryType
    entities: list[Entity] = field(default_factory=list)
    slot: str | None = None  # a single-valued fact of the user ("phone", "city"): supersedes
    valid_at: datetime | None = None
    valid_until: datetime | None = None
    expires_in: int | None = None  # override of the type's default lifespan
    topic: str | None = None


@dataclass
class Extraction:
    redacted_text: str
    drafts: list[UnitDraft]
    entities: list[Entity] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)  # placeholder -> secret (never stored)
    is_confirmation: bool = False
    language: str = "en"
    extractor: str = "rules"  # "rules" or "llm:<model>"


@dataclass
class _Piece:
    content: str
    type: MemoryType
    entities: list[Entity]
    slot: str | None = None
    valid_until: datetime | None = None
    keep: list[str] = field(default_factory=list)  # strings a split must not cut


_TASK_ID = re.compile(r"(?:任务|任務|批次|task|job|batch)\s*(?:id|ID|号|號)?\s*[#:：]?\s*([A-Za-z0-9][A-Za-z0-9_\-]{1,31})", re.I)
_CLAUSE = re.compile(r"[，,;；]")
_PREPOSITION = re.compile(r"\b(?:on|in|since|until|till|by|from|before|after|during|of|at|for)\s*$", re.I)


def _rewrite_times(sentence: str, offset: int, times: list[TimeMatch], lang: str) -> tuple[str, list[str]]:
    """Replace relative time expressions by absolute ones; return the text and the renderings."""
    shown: list[str] = []
    out = sentence
    for tm in sorted(times, key=lambda t: t.start, reverse=True):
        if not tm.relative:
            continue
        s, e = tm.start - offset, tm.end - offset
        if s < 0 or e > len(out):
            continue
        text = tm.render(lang)
        if lang == "en" and _PREPOSITION.search(out[:s]) and text.startswith(("on ", "in ")):
            text = text[3:]
        shown.append(text)
        if e < len(out) and out[e].isascii() and out[e].isalnum() and text[-1:].isalnum():
            text += " "
        if s > 0 and out[s - 1].isascii() and out[s - 1].isalnum() and text[:1].isalnum():
            text = " " + text
        out = out[:s] + text + out[e:]
    return out, shown


def _pieces_for_sentence(
    sent_text: str, start: int, entities: list[Entity], times: list[TimeMatch],
    turn: TurnInput,
) -> list[_Piece]:
    lang = "zh" if has_cjk(sent_text) else "en"
    local = [e.model_copy(update={"start": e.start - start, "end": e.end - start}) for e in entities]
    pieces: list[_Piece] = []
    slots = find_slots(sent_text, local, turn.role, lang, turn.speaker)
    slot_entities = {id(s.entity) for s in slots if s.entity is not None}
    for fact in slots:
        ents = [entities[local.index(fact.entity)]] if fact.entity in local else []
        slot_name = f"{fact.slot}@{turn.speaker.casefold()}" if turn.speaker else fact.slot
        pieces.append(_Piece(fact.content, MemoryType.USER_PROFILE, ents, slot=slot_name))
    if slots:
        slot_texts = [f.value for f in slots]
        others = [e.text for e, loc in zip(entities, local, strict=True)
                  if id(loc) not in slot_entities]
        spans = _clause_spans(sent_text)
        kept = [(a, b) for a, b in spans if sent_text[a:b].strip() and (
            not any(v in sent_text[a:b] for v in slot_texts)
            or any(o in sent_text[a:b] for o in others))]
        if not kept:
            return pieces  # the sentence said nothing beyond its slot facts
        if len(kept) < len(spans):
            clauses = [sent_text[a:b].strip() for a, b in kept]
            remainder = ("，" if lang == "zh" else ", ").join(clauses)
            if all(is_filler(c) for c in clauses) or (
                    len(remainder) <= 12 and not any(o in remainder for o in others)):
                return pieces  # e.g. "我换号了": the supersession itself records the change
            return pieces + _remainder_pieces(sent_text, start, kept, entities, times, turn)
    rewritten, shown = _rewrite_times(sent_text, start, times, lang)
    keep = [e.text for e in entities if not (e.kind == "date" and any(
        t.relative and t.start == e.start for t in times))] + shown
    content = compress_sentence(rewritten, keep)
    if turn.speaker:
        content = attribute(content, turn.speaker, lang)
    unit_type = classify(sent_text, turn.role, entities, None)
    slot = None
    if unit_type is MemoryType.BATCH_OPERATION:
        m = _TASK_ID.search(sent_text)
        slot = f"task:{m.group(1).upper()}" if m else None
    valid_until = validity_end(sent_text, times, start)
    pieces.append(_Piece(content, unit_type, list(entities), slot=slot, valid_until=valid_until,
                         keep=keep))
    return pieces


def _clause_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _CLAUSE.finditer(text):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, len(text)))
    return spans


def _remainder_pieces(sent_text: str, start: int, kept: list[tuple[int, int]],
                      entities: list[Entity], times: list[TimeMatch],
                      turn: TurnInput) -> list[_Piece]:
    """What is left of a sentence once its slot clauses became slot units."""
    lang = "zh" if has_cjk(sent_text) else "en"
    clauses: list[str] = []
    shown: list[str] = []
    ents: list[Entity] = []
    for a, b in kept:
        inside = [t for t in times if start + a <= t.start and t.end <= start + b]
        text, rendered = _rewrite_times(sent_text[a:b], start + a, inside, lang)
        clauses.append(text.strip())
        shown += rendered
        ents += [e for e in entities if start + a <= e.start and e.end <= start + b]
    content = ("，" if lang == "zh" else ", ").join(clauses)
    keep = [e.text for e in ents if not (e.kind == "date" and any(
        t.relative and t.start == e.start for t in times))] + shown
    content = compress_sentence(content, keep)
    if turn.speaker:
        content = attribute(content, turn.speaker, lang)
    return [_Piece(content, classify(content, turn.role, ents, None), ents, keep=keep)]


def _merge_split_entities(sentences: list[tuple[str, int, int]], entities: list[Entity],
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


def _pack_pieces(pieces: list[_Piece], speaker: str | None) -> list[UnitDraft]:
    drafts: list[UnitDraft] = []
    group: list[_Piece] = []

    def flush() -> None:
        if not group:
            return
        keep = [e.text for p in group for e in p.entities] + [k for p in group for k in p.keep]
        parts: list[tuple[str, _Piece]] = []
        for p in group:
            chunks = (split_long(p.content, MAX_CONTENT_CHARS, keep, 4 * MAX_UNITS_PER_TURN)
                      if len(p.content) > MAX_CONTENT_CHARS else [p.content])
            parts.extend((c, p) for c in chunks)
        current: list[tuple[str, _Piece]] = []
        text = ""
        for chunk, p in parts:
            candidate = join_pieces(text, chunk)
            if current and len(candidate) > MAX_CONTENT_CHARS:
                emit(text, current)
                current, text = [(chunk, p)], chunk
            else:
                current.append((chunk, p))
                text = candidate
        if current:
            emit(text, current)
        group.clear()

    def emit(content: str, parts: list[tuple[str, _Piece]]) -> None:
        ents = [e for c, p in parts for e in p.entities
                if e.text in c or (e.kind == "date" and e.text not in p.content)]
        first = parts[0][1]
        drafts.append(UnitDraft(content=content, type=first.type, entities=_dedupe(ents),
                                slot=first.slot, valid_until=first.valid_until))

    for piece in pieces:
        if piece.slot is not None or (group and (
                group[0].type != piece.type or group[0].valid_until != piece.valid_until
                or group[0].slot is not None)):
            flush()
        group.append(piece)
        if piece.slot is not None:
            flush()
    flush()
    return drafts


def _dedupe(entities: list[Entity]) -> list[Entity]:
    seen: set[tuple[str, str]] = set()
    out: list[Entity] = []
    for e in entities:
        if (e.kind, e.value) not in seen:
            seen.add((e.kind, e.value))
            out.append(e)
    return out


def _tool_drafts(text: str, turn: TurnInput) -> tuple[list[UnitDraft], list[Entity]] | None:
    facts = summarise_tool(text)
    if facts is None:
        return None
    drafts: list[UnitDraft] = []
    all_entities: list[Entity] = []
    for fact in facts:
        ents = extract_entities(fact.text, turn.at)
        all_entities.extend(ents)
        unit_type = MemoryType.BATCH_OPERATION if fact.batch else MemoryType.TOOL_RESULT
        slot = f"task:{fact.batch[0].upper()}" if fact.batch else None
        keep = [e.text for e in ents]
        for content in split_long(fact.text, MAX_CONTENT_CHARS, keep, 4 * MAX_UNITS_PER_TURN):
            drafts.append(UnitDraft(content=content, type=unit_type, slot=slot,
                                    entities=[e for e in ents if e.text in content]))
    return drafts, _dedupe(all_entities)


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")


def _language(text: str) -> str:
    """"zh" when CJK ideographs are a fair share of the text (same rule as text.detect_language)."""
    cjk = len(_CJK.findall(text))
    return "zh" if cjk and cjk * 2 >= len(_LATIN.findall(text)) // 4 else "en"


def rule_extract(turn: TurnInput) -> Extraction:
    """The rule-based write path (no model)."""
    red = redact(turn.text)
    text = red.text
    language = _language(text[:4000])
    if turn.role == "tool":
        tool = _tool_drafts(text, turn)
        if tool is not None:
            drafts, entities = tool
            return Extraction(text, drafts[:MAX_UNITS_PER_TURN], entities, red.secrets,
                              language=language)
    if turn.role != "tool" and is_confirmation(text):
        return Extraction(text, [], [], red.secrets, is_confirmation=True, language=language)
    work = normalise_long_tokens(text)
    entities, times = extract_entities_and_times(work, turn.at)
    sentences = [(s.text, s.start, s.end) for s in split_sentences(work)]
    sentences = _merge_split_entities(sentences, entities, work)
    pieces: list[_Piece] = []
    starts = [e.start for e in entities]
    tstarts = [t.start for t in times]
    for sent_text, start, end in sentences:
        lo, hi = bisect_left(starts, start), bisect_left(starts, end)
        ents = [e for e in entities[lo:hi] if e.end <= end]
        if not ents and is_filler(sent_text):
            continue
        tlo, thi = bisect_left(tstarts, start), bisect_left(tstarts, end)
        tms = [t for t in times[tlo:thi] if t.end <= end]
        pieces.extend(_pieces_for_sentence(sent_text, start, ents, tms, turn))
    drafts = _pack_pieces(pieces, turn.speaker)
    if turn.role == "tool":
        for d in drafts:
            d.type = MemoryType.TOOL_RESULT
    return Extraction(text, _limit(drafts), entities, red.secrets, language=language)


def _limit(drafts: list[UnitDraft]) -> list[UnitDraft]:
    if len(drafts) <= MAX_UNITS_PER_TURN:
        return drafts
    ranked = sorted(range(len(drafts)), key=lambda i: (-len(drafts[i].entities), i))
    keep = sorted(ranked[:MAX_UNITS_PER_TURN])
    return [drafts[i] for i in keep]


def extract_turn(turn: TurnInput, *, llm: LLMExtractor | None = None) -> Extraction:
    """Turn one conversation turn (or tool result) into redacted, typed, compressed drafts.

    With ``llm`` (off by default) a language model proposes the facts; any failure, timeout or
    malformed answer falls back to the rules, and every rule entity stays in some unit."""
    rules = rule_extract(turn)
    if llm is None or turn.role == "tool" or rules.is_confirmation:
        return rules
    return llm.refine(turn, rules)
