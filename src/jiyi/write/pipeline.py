"""Turn -> drafts: the write path :class:`jiyi.memory.Memory` relies on. No model needed.

1. redact secrets into typed placeholders (the turn text itself is stored redacted);
2. a tool turn that is JSON is summarised as facts; any other turn is cut into sentences;
3. a pure confirmation yields no unit but ``is_confirmation``; filler sentences are dropped;
4. entities are found first and every one of them is kept in some unit;
5. relative dates are rewritten as absolute ones (resolved against the turn's ``at``), the
   speaker's name replaces "I"/"我" when the speaker is known;
6. single-valued facts (phone, city...) become slot units; validity phrases give ``valid_until``;
7. what remains is compressed and packed into units of at most 150 characters, never cut.

This module keeps the order of those steps; the steps live beside it: :mod:`.clauses` (sentence
merges, clause spans), :mod:`.plan` (one sentence's clauses -> pieces), :mod:`.idgroups`
(identifier facts and the clauses they take), :mod:`.timerewrite` (relative times made
absolute), :mod:`.packing` (pieces -> unit drafts) and :mod:`.drafts` (the data types).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Protocol

from ..keyfacts.asking import declared_with_mark
from ..text.entities import extract_entities, extract_entities_and_times
from ..text.secrets import redact
from ..text.segment import detect_language
from ..units import MAX_CONTENT_CHARS, Entity, MemoryType
from . import idfacts
from .classify import is_confirmation
from .clauses import (
    CLAUSE_MARK,
    TAG_QUESTION,
    merge_asked_cue,
    merge_code_validity,
    merge_split_entities,
)
from .compress import (
    is_filler,
    is_open_question,
    normalise_long_tokens,
    split_long,
    split_sentences,
)
from .drafts import LANGUAGE_SNIFF_CHARS, Extraction, Piece, TurnInput, UnitDraft
from .packing import MAX_PIECES_PER_FACT, MAX_UNITS_PER_TURN, dedupe, limit, pack_pieces, said_once
from .plan import pieces_for_sentence
from .residue import held_text, residue_pieces
from .slots import CUE_WINDOW_CHARS, wants_a_change
from .toolsum import ToolFact, summarise_tool

__all__ = ["MAX_UNITS_PER_TURN", "Extraction", "Refiner", "TurnInput", "UnitDraft", "extract_turn",
           "rule_extract"]


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
        for content in split_long(fact.text, MAX_CONTENT_CHARS, keep, MAX_PIECES_PER_FACT):
            drafts.append(UnitDraft(content=content, type=unit_type, slot=slot,
                                    entities=[e for e in ents if e.text in content]))
        drafts.extend(_tool_id_drafts(fact, ents, keep))
    return drafts, dedupe(all_entities)


def _tool_id_drafts(fact: ToolFact, ents: list[Entity], keep: list[str]) -> list[UnitDraft]:
    """The durable identifier facts of one tool record (the tool_result itself lives a day)."""
    main = [fact.ids[i] for i in idfacts.key_categories([c for c, _, _ in fact.ids])]
    out: list[UnitDraft] = []
    for category, value, words in main:
        detail = fact.about(words)
        content = idfacts.word_fact(category, value, detail, "hans")
        content = split_long(content, MAX_CONTENT_CHARS, keep, 1)[0]
        out.append(UnitDraft(content=content, type=MemoryType.FACT_REFERENCE,
                             slot=f"id:{value.upper()}" if detail else None,
                             entities=[e for e in ents if e.text in content],
                             about_id=value.upper()))
    return out


def rule_extract(turn: TurnInput) -> Extraction:
    """The rule-based write path (no model)."""
    red = redact(turn.text)
    text = red.text
    language = detect_language(text[:LANGUAGE_SNIFF_CHARS])
    if turn.role == "tool":
        tool = _tool_drafts(text, turn)
        if tool is not None:
            drafts, entities = tool
            return Extraction(text, drafts[:MAX_UNITS_PER_TURN], entities, red.secrets,
                              language=language)
    if turn.role != "tool" and is_confirmation(text):
        return Extraction(text, [], [], red.secrets, is_confirmation=True, language=language)
    work = _blank_speaker_tag(normalise_long_tokens(text), turn.speaker)
    entities, times = extract_entities_and_times(work, turn.at)
    sentences = [(s.text, s.start, s.end) for s in split_sentences(work)]
    sentences = merge_split_entities(sentences, entities, work)
    sentences = merge_code_validity(sentences, entities, times, work)
    if turn.role == "user":
        sentences = merge_asked_cue(sentences, work)
    pieces: list[Piece] = []
    starts = [e.start for e in entities]
    tstarts = [t.start for t in times]
    asked: list[tuple[str, int, int]] = []  # open questions left out (see below)
    # (pieces before it, sentence, start, its entities, its time spans): what residue reads
    said: list[tuple[int, str, int, list[Entity], list[tuple[int, int]]]] = []
    for sent_text, start, end in sentences:
        lo, hi = bisect_left(starts, start), bisect_left(starts, end)
        ents = [e for e in entities[lo:hi] if e.end <= end]
        if not ents and is_filler(sent_text):
            continue
        # compression: in a turn of several sentences a one-clause question without an entity
        # is no unit (the raw turn keeps it); a turn that is one question stays, the prompt of
        # the answer that follows ("那张优惠券还能用吗？" -> "已于5月3日过期"). A request for a
        # change ("Could you switch my notifications to SMS?", "可以改成短信通知吗？") is no
        # open question: it says what the user wants from now on; nor is a statement typed
        # with a question mark ("我被降成普卡了？")
        if not ents and len(sentences) > 1 and turn.role != "tool" \
                and is_open_question(sent_text) and not TAG_QUESTION.search(sent_text) \
                and not CLAUSE_MARK.search(sent_text) and not wants_a_change(sent_text) \
                and not declared_with_mark(sent_text.strip()):
            asked.append((sent_text, start, end))
            said.append((len(pieces), sent_text, start, ents, []))
            continue
        tlo, thi = bisect_left(tstarts, start), bisect_left(tstarts, end)
        tms = [t for t in times[tlo:thi] if t.end <= end]
        said.append((len(pieces), sent_text, start, ents, [(t.start, t.end) for t in tms]))
        pieces.extend(pieces_for_sentence(sent_text, start, ents, tms, turn,
                                          work[max(0, start - CUE_WINDOW_CHARS):start],
                                          work[:start], work[end:]))
    if asked and not pieces:
        # the other sentences were filler ("Wow! 你去过吗？"): the turn is one question and
        # keeps it, or recall (which answers with units, never raw turns) could not find it
        for sent_text, start, _ in asked:
            pieces.extend(pieces_for_sentence(sent_text, start, [], [], turn))
    if turn.role == "user" and said:
        pieces = _with_residue(pieces, said)
    if turn.role == "tool":
        for p in pieces:
            if not p.standalone:  # identifier facts outlive the tool result that carried them
                p.type = MemoryType.TOOL_RESULT
                p.slot = None if p.slot and not p.slot.startswith("task:") else p.slot
    drafts = pack_pieces(said_once(pieces), turn.speaker)
    return Extraction(text, limit(drafts), entities, red.secrets, language=language)


def _with_residue(pieces: list[Piece],
                  said: list[tuple[int, str, int, list[Entity], list[tuple[int, int]]]]
                  ) -> list[Piece]:
    """``pieces`` with the user's clauses no piece holds put back in their place, in the
    user's words (:mod:`.residue`): the planner's rules may leave out a clause they were not
    written for, and a user's words are never silently lost."""
    held = held_text(pieces)
    # a sentence's own pieces end where the next sentence's begin
    ends = [before for before, *_ in said[1:]] + [len(pieces)]
    out: list[Piece] = []
    done = 0
    for (_, sent_text, start, ents, rewritten), end in zip(said, ends, strict=True):
        extra = residue_pieces(sent_text, start, ents, held, rewritten)
        if extra:
            out.extend(pieces[done:end])
            done = end
            out.extend(extra)
    out.extend(pieces[done:])
    return out


def _blank_speaker_tag(text: str, speaker: str | None) -> str:
    """A transcript line of a known speaker ("Caroline: I went…") is cut into units without its
    tag: every unit names the speaker anyway (the turn text keeps the tag). The tag becomes
    spaces, so offsets into the text stay valid."""
    if not speaker or not speaker.strip():
        return text
    name = speaker.strip()
    for sep in (":", "："):
        if text.startswith(name + sep):
            n = len(name) + len(sep)
            return " " * n + text[n:]
    return text


class Refiner(Protocol):
    """An extractor that works beside the rules: given the turn and what the rules found, it
    returns the turn's extraction (the rules' own when it fails). The optional model extractor
    (:class:`jiyi.write.llm_extract.LLMExtractor`) is one; the rule pipeline never imports it."""

    def refine(self, turn: TurnInput, rules: Extraction) -> Extraction: ...


def extract_turn(turn: TurnInput, *, llm: Refiner | None = None) -> Extraction:
    """Turn one conversation turn (or tool result) into redacted, typed, compressed drafts.

    With ``llm`` (off by default) a language model proposes the facts; any failure, timeout or
    malformed answer falls back to the rules, and every rule entity stays in some unit."""
    rules = rule_extract(turn)
    if llm is None or turn.role == "tool" or rules.is_confirmation:
        return _without_nul(rules)
    return _without_nul(llm.refine(turn, rules))


def _without_nul(extraction: Extraction) -> Extraction:
    """No unit holds a NUL character (a tool's JSON may decode one from ``\\u0000``): SQLite's
    ``length()`` stops at it and PostgreSQL refuses it in text, so each becomes a space and a
    unit left blank is dropped (the turn itself is stored as it came)."""
    if not any("\x00" in d.content for d in extraction.drafts):
        return extraction
    kept = []
    for draft in extraction.drafts:
        if "\x00" in draft.content:
            draft.content = " ".join(draft.content.replace("\x00", " ").split())
        if draft.content:
            kept.append(draft)
    extraction.drafts = kept
    return extraction
