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
from functools import lru_cache
from typing import Protocol

from ..keyfacts.asking import is_request
from ..keyfacts.schema import schema
from ..text.entities import ID_KINDS, ID_LABELS, extract_entities, extract_entities_and_times
from ..text.secrets import redact
from ..text.segment import detect_language, has_cjk, script_of_text
from ..units import MAX_CONTENT_CHARS, Entity, MemoryType
from . import idfacts
from .classify import classify, is_confirmation
from .compress import (
    CACHED_TEXT_CHARS,
    compress_sentence,
    is_filler,
    is_open_question,
    join_pieces,
    normalise_long_tokens,
    said_key,
    split_long,
    split_sentences,
)
from .filler import content_left, filler_kind
from .idfacts import find_ids, script_of
from .slots import (
    CHANGE_WORDS,
    CUE_WINDOW_CHARS,
    SlotFact,
    current_between,
    find_slots,
    validity_end,
)
from .speaker import attribute_once
from .timeparse import TimeMatch
from .toolsum import ToolFact, summarise_tool

#: At most this many units from one turn (a 1 MB paste must not become 7,000 units); the turn
#: text itself is stored whole, so nothing is lost from provenance.
MAX_UNITS_PER_TURN = 64
#: A long fact is cut into pieces of at most ``MAX_CONTENT_CHARS``; more pieces than this are
#: never kept (see ``MAX_UNITS_PER_TURN``), so the splitter stops early.
MAX_PIECES_PER_FACT = 4 * MAX_UNITS_PER_TURN
#: A clause with fewer content characters than this (stop-list and glue words removed: "就这样",
#: "ok so") is too little to be a durable fact; it stays session state.
MIN_FACT_CONTENT_CHARS = 3
#: A clause of at most this many content characters after a profile clause (", Mia and Zoe")
#: is a fragment that belongs to the clause before it.
MAX_FRAGMENT_CONTENT_CHARS = 5
#: A turn's language is judged on its opening: a long paste does not change the answer.
LANGUAGE_SNIFF_CHARS = 4000


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
    about_id: str | None = None  # an identifier fact: the id it is about ("PO-10023")


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
    standalone: bool = False  # an identifier fact: never packed with other pieces
    about_id: str | None = None




def _rewrite_times(sentence: str, offset: int, times: list[TimeMatch], lang: str,
                   context: str | None = None) -> tuple[str, list[str]]:
    """Replace relative time expressions by absolute ones; return the text and the renderings.
    ``context``: the whole sentence a clause of it is read in ("我周一到周五下午四点后才有空，
    送货时间帮我调一下": the habit word is in another clause)."""
    shown: list[str] = []
    out = sentence
    if not any(tm.relative for tm in times):
        return out, shown  # nothing to rewrite (most sentences): the habit test is not needed
    habit = _HABIT.search(sentence if context is None else context) is not None
    for tm in sorted(times, key=lambda t: t.start, reverse=True):
        if not tm.relative or (habit and _WEEKDAY.fullmatch(tm.text.strip())):
            continue  # "周六上午送", "Saturday mornings work": a recurring time, not a date
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
    """One sentence -> pieces, clause by clause (a compound turn holds several facts).

    Each clause is filler (dropped), an emotional aside (session state), a slot statement
    (a slot piece, plus the clause itself when it says more than its value), an identifier
    mention (an id fact, plus the clause when it says more) or content typed on its own.
    Consecutive clauses of one type stay one piece, so a plain sentence is one unit as before."""
    lang = "zh" if has_cjk(sent_text) else "en"
    local = [_shift(e, start) for e in entities]
    ids = find_ids(sent_text, local)
    spans = _clause_spans(sent_text, local)
    pieces = _id_pieces(sent_text, local, ids, spans, entities, times, start, lang)
    covered = _ids_worded(sent_text, start, entities, ids)
    asked = _TAG_QUESTION.search(sent_text) is not None  # "I'm a Silver member, right?"
    # a slot fact in a clause of neither script ("寄kevin@…") is written in its sentence's, or
    # when that has neither either, in the turn's
    slot_lang = "hant" if lang == "zh" and (script_of_text(sent_text) or script_of_text(
        turn.text[:LANGUAGE_SNIFF_CHARS])) == "hant" else lang
    plans: list[MemoryType | None] = []
    slot_seen: dict[str, Entity | None] = {}  # slot -> its value (in the sentence)
    states_pref = turn.role == "user" and _states_a_clause_slot(sent_text)
    said_clauses = sum(1 for a, b in spans if not _TAG_ONLY.fullmatch(sent_text[a:b]))
    any_split = False
    for a, b in spans:
        clause = sent_text[a:b]
        c_local = [_shift(e, a) for e in local if a <= e.start and e.end <= b]
        kind = filler_kind(clause, known_not_filler=len(spans) == 1 and not entities) \
            if all(e.kind in ("date", "time") for e in c_local) else None
        if kind == "filler":
            plans.append(None)
            any_split = True
            continue
        if kind == "aside":
            plans.append(MemoryType.SESSION_STATE)
            any_split = True
            continue
        # a tag question asks about its own clause; an earlier clause saying a change states it
        # ("Got bumped up last week, Diamond VIP, so shipping is free, right?")
        told = asked and (a, b) != spans[-1] \
            and CHANGE_WORDS.search(sent_text[max(0, a - CUE_WINDOW_CHARS):b]) is not None
        facts = [] if asked and not told else [
            f for f in (_slot_facts if b <= CACHED_TEXT_CHARS else _slot_facts.__wrapped__)(
                clause, tuple(c_local), turn.role, slot_lang, turn.speaker, sent_text[:a])
            if f.slot not in slot_seen or current_between(
                sent_text, slot_seen[f.slot], f.entity and _shift(f.entity, -a))]
        for fact in facts:
            # a later value the words say is current ("X，不对，是Y") is written after the first:
            # placing the turn, it supersedes it (the first stays, as history)
            slot_seen[fact.slot] = fact.entity and _shift(fact.entity, -a)
            ent = next((entities[i] for i, e in enumerate(local)
                        if fact.entity is not None and e.start == fact.entity.start + a), None)
            slot_name = f"{fact.slot}@{turn.speaker.casefold()}" if turn.speaker else fact.slot
            pieces.append(_Piece(fact.content, MemoryType.USER_PROFILE,
                                 [ent] if ent else [], slot=slot_name))
        if facts and not _says_more(clause, [f.value for f in facts]) and not any(
                e.kind not in ("date", "time") and all(e.text not in f.content for f in facts)
                for e in c_local):
            plans.append(None)  # the slot fact holds all the clause said (every entity too)
            any_split = True
            continue
        if not c_local and said_clauses > 1 and turn.role == "user" and not states_pref \
                and is_open_question(clause) and not is_request(clause):
            # compression: a question asked among other clauses ("这个保修是一年还是两年吗，
            # 我先看看别的") states nothing and holds no value; the raw turn keeps its words
            plans.append(None)
            any_split = True
            continue
        unit_type: MemoryType | None = classify(clause.strip(), turn.role, c_local, None)
        if asked and unit_type in (MemoryType.FACT_REFERENCE, MemoryType.USER_PROFILE):
            unit_type = MemoryType.SESSION_STATE
        prev = next((p for p in reversed(plans) if p is not None), None)
        if unit_type is MemoryType.FACT_REFERENCE and prev is MemoryType.USER_PROFILE \
                and not c_local \
                and not _SUBJECT.search(clause) and (
                    _FRAGMENT.search(clause) or len(content_left(clause)) <= MAX_FRAGMENT_CONTENT_CHARS):
            unit_type = prev  # ", Mia and Zoe": a fragment belongs to the clause before it
        elif unit_type is MemoryType.FACT_REFERENCE and not c_local \
                and len(content_left(clause)) < MIN_FACT_CONTENT_CHARS:
            # too little to be a durable fact, unless it continues the durable clause before
            # it ("联系偏好更新：飞书", "Delivery time update: early afternoon, 1 to 3")
            unit_type = prev if prev in _DURABLE and plans and plans[-1] is prev \
                else MemoryType.SESSION_STATE
        named = [e for e in c_local if e.kind not in ("date", "time")]
        if unit_type in (MemoryType.FACT_REFERENCE, MemoryType.USER_PROFILE) and named and all(
                e.value in covered for e in named) and not (
                unit_type is MemoryType.USER_PROFILE
                and _says_more(clause, [e.text for e in c_local])):
            unit_type = None  # the identifier fact already holds this clause, durably
            any_split = True
        plans.append(unit_type)
    for i, (a, b) in enumerate(spans[:-1]):  # a speaker's tag goes with what they say
        if _TAG_ONLY.fullmatch(sent_text[a:b]):
            plans[i] = plans[i + 1]
    if slot_seen:  # "手机号变了哈", "舊的停機了": the supersession itself records the change
        for i, (a, b) in enumerate(spans):
            if plans[i] is not None and not any(a <= e.start and e.end <= b for e in local) \
                    and not _says_more(sent_text[a:b], []):
                plans[i] = None
                any_split = True
    alone = states_pref
    if alone:
        # a sentence stating a preference by its words (a value word in one clause, its cue in
        # another: "我周一到周五下午四点后才有空，送货时间帮我调一下") is one unit of its own:
        # typing reads it whole, never packed with the other sentences of a compound turn
        one = MemoryType.USER_PROFILE if MemoryType.USER_PROFILE in plans \
            else MemoryType.FACT_REFERENCE
        plans = [None if t is None else one for t in plans]
    kept = [(span, t) for span, t in zip(spans, plans, strict=True) if t is not None]
    if not kept:
        return pieces
    if not any_split and len({t for _, t in kept}) == 1 and not pieces:
        whole = _whole_sentence(sent_text, start, entities, times, turn, lang,
                                kept[0][1] if len(spans) == 1 or alone else None)
        whole.standalone = whole.standalone or alone
        return [whole]
    runs: list[tuple[list[tuple[int, int]], MemoryType]] = []
    for span, t in kept:
        if runs and runs[-1][1] is t:
            runs[-1][0].append(span)
        else:
            runs.append(([span], t))
    for run_spans, t in runs:
        piece = _run_piece(sent_text, start, run_spans, t, entities, times, turn)
        piece.standalone = piece.standalone or alone
        pieces.append(piece)
    return pieces


def _merge_asked_cue(sentences: list[tuple[str, int, int]], text: str
                     ) -> list[tuple[str, int, int]]:
    """A value answering the user's own question about its slot ("收货时段可以选吗？选周六上午，
    谢谢", "Can I pick a delivery slot? Saturday mornings, thanks") is read with the question:
    the two sentences are one, so the slot's cue word is beside its value."""
    out: list[tuple[str, int, int]] = []
    for sent in sentences:
        if out and _ASKS.search(out[-1][0]) and not _states_a_clause_slot(sent[0]) \
                and not _states_a_clause_slot(out[-1][0]) and any(
                    row.value == "clause" and row.value_words is not None
                    and row.value_words.search(sent[0]) for row in schema()) \
                and _states_a_clause_slot(out[-1][0] + " " + sent[0]):
            prev = out.pop()
            out.append((text[prev[1]:sent[2]], prev[1], sent[2]))
        else:
            out.append(sent)
    return out


def _states_a_clause_slot(sentence: str) -> bool:
    """The sentence states a clause-valued key fact by rule (a value word and a cue word of
    one schema row: a delivery time, a contact channel)."""
    return any(row.value == "clause" and row.states(sentence) for row in schema())


@lru_cache(maxsize=4096)
def _slot_facts(clause: str, entities: tuple[Entity, ...], role: str, lang: str,
                speaker: str | None, before: str) -> tuple[SlotFact, ...]:
    """:func:`find_slots` of one clause (a pure function of its arguments; common clauses recur
    across turns, so the answer is kept)."""
    return tuple(find_slots(clause, list(entities), role, lang, speaker, before=before))


def _whole_sentence(sent_text: str, start: int, entities: list[Entity],
                    times: list[TimeMatch], turn: TurnInput, lang: str,
                    typed: MemoryType | None = None) -> _Piece:
    parts = [p.strip(" 。.!！?？") for p in _CLAUSE_MARK.split(sent_text)]
    if len(parts) > 1 and len(set(parts)) < len(parts):
        local = [_shift(e, start) for e in entities]
        spans = _clause_spans(sent_text, local)
        said = [content_left(sent_text[a:b]) for a, b in spans]
        if len(set(said)) < len(said):  # a clause said twice: keep it once
            return _run_piece(sent_text, start, spans, typed or classify(
                sent_text, turn.role, entities, None), entities, times, turn)
    rewritten, shown = _rewrite_times(sent_text, start, times, lang)
    keep = [e.text for e in entities if not (e.kind == "date" and any(
        t.relative and t.start == e.start for t in times))] + shown
    content = compress_sentence(rewritten, keep)
    if turn.speaker:
        content = attribute_once(content, turn.speaker, lang)
    unit_type = typed or classify(sent_text, turn.role, entities, None)
    if typed is None and unit_type is MemoryType.FACT_REFERENCE and not entities \
            and len(content_left(sent_text)) < MIN_FACT_CONTENT_CHARS:
        unit_type = MemoryType.SESSION_STATE
    slot = None
    if unit_type is MemoryType.BATCH_OPERATION:
        m = _TASK_ID.search(sent_text)
        slot = f"task:{m.group(1).upper()}" if m else None
    valid_until = validity_end(sent_text, times, start)
    return _Piece(content, unit_type, list(entities), slot=slot, valid_until=valid_until,
                  keep=keep)


def _says_more(clause: str, consumed: list[str]) -> bool:
    """Does the clause hold content beyond its values, their cue words and change words?"""
    kept = _says_more_of if len(clause) <= CACHED_TEXT_CHARS else _says_more_of.__wrapped__
    return kept(clause, tuple(consumed))


@lru_cache(maxsize=4096)
def _says_more_of(clause: str, consumed: tuple[str, ...]) -> bool:
    """:func:`_says_more` (a pure function of the clause and the values: kept)."""
    rest = clause
    for v in consumed:
        rest = rest.replace(v, " ")
    rest = _CUE_WORDS.sub(" ", rest)
    rest = _ID_LABEL_WORDS.sub(" ", rest)
    rest = CHANGE_WORDS.sub(" ", rest)
    return len(content_left(rest)) >= 2


def _clause_spans(text: str, entities: list[Entity]) -> list[tuple[int, int]]:
    """Clauses: cut at commas, semicolons, colons and the conjunctions that open a new
    statement ("… and I love sushi", "…还有我…"), never inside an entity."""
    kept = _clause_spans_of if len(text) <= CACHED_TEXT_CHARS else _clause_spans_of.__wrapped__
    return list(kept(text, tuple((e.start, e.end) for e in entities)))


@lru_cache(maxsize=4096)
def _clause_spans_of(text: str, entity_spans: tuple[tuple[int, int], ...]
                     ) -> tuple[tuple[int, int], ...]:
    """:func:`_clause_spans` on the entities' spans (a sentence is cut several times per turn,
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


def _run_piece(sent_text: str, start: int, run: list[tuple[int, int]], unit_type: MemoryType,
               entities: list[Entity], times: list[TimeMatch], turn: TurnInput) -> _Piece:
    """Consecutive kept clauses of one type, as one piece. A clause said again ("真的非常重要，
    真的非常重要") is kept once; a clause an identifier fact of the sentence already holds (see
    :func:`_id_claims`) is left to it."""
    lang = "zh" if has_cjk(sent_text) else "en"
    clauses: list[str] = []
    shown: list[str] = []
    ents: list[Entity] = []
    seen: set[str] = set()
    claimed = _id_claims(sent_text, start, entities)
    for a, b in run:
        said = sent_text[a:b].strip(" 。.!！?？~～").casefold()
        if (a, b) in claimed or (said and said in seen):
            continue
        seen.add(said)
        inside = [t for t in times if start + a <= t.start and t.end <= start + b]
        text, rendered = _rewrite_times(sent_text[a:b], start + a, inside, lang, sent_text)
        clauses.append(text.strip())
        shown += rendered
        ents += [e for e in entities if start + a <= e.start and e.end <= start + b]
    if not clauses:
        return _Piece("", unit_type, [])
    content = ("，" if lang == "zh" else ", ").join(clauses)
    keep = [e.text for e in ents if not (e.kind == "date" and any(
        t.relative and t.start == e.start for t in times))] + shown
    content = compress_sentence(content, keep)
    if turn.speaker:
        content = attribute_once(content, turn.speaker, lang)
    slot = None
    if unit_type is MemoryType.BATCH_OPERATION:
        m = _TASK_ID.search(content)
        slot = f"task:{m.group(1).upper()}" if m else None
    a0, b0 = run[0][0], run[-1][1]
    valid_until = validity_end(sent_text[a0:b0], [t for t in times if start + a0 <= t.start],
                               start + a0)
    return _Piece(content, unit_type, ents, slot=slot, valid_until=valid_until, keep=keep)


def _shift(e: Entity, offset: int) -> Entity:
    """``e`` with its span made relative to ``offset`` (a sentence or clause start)."""
    # the validating constructor is cheaper than ``model_construct`` for five plain fields
    return Entity(kind=e.kind, text=e.text, value=e.value, start=e.start - offset,
                  end=e.end - offset)


#: Entity kinds a clause may carry and still be worded into an identifier's fact beside it
#: ("订单PO-10023，金额¥199"); a name, phone, email, city or address is the user's own slot.
_ATTACHABLE_KINDS = frozenset({"amount", "date", "time", "product", "error_code", "code", "url",
                               "order_id", "tracking_no", "ticket_id"})
#: A sentence that asks something ("收货时段可以选吗？", "Can I pick a delivery slot?"): it
#: states nothing about an id ("明天能到吗？") and stays apart from the id's fact.
_ASKS = re.compile(r"[?？]\s*$|[吗嗎么麼呢]\s*[。.]?\s*$")


@dataclass(frozen=True)
class _IdGroup:
    """The clauses one identifier fact of a sentence is worded from."""

    mention: idfacts.IdMention
    spans: tuple[tuple[int, int], ...]  # in sentence order
    anchor_kept: bool  # its own clause is worded in (it is not a request)


def _id_groups(sent_text: str, local: list[Entity], ids: list[idfacts.IdMention],
               spans: list[tuple[int, int]]) -> tuple[list[_IdGroup], set[tuple[int, int]]]:
    """Which clauses each key identifier of a sentence is worded from, and the clauses its fact
    takes over from the rest of the sentence (they are not repeated in another unit).

    A clause with a key id is its anchor. The clauses next to it that say something about it
    join it (a chain of plain clauses, or clauses whose only entities are amounts, dates, codes
    or other ids: "上周买的空气净化器，订单号是PO-10023，到现在还没发货"); a clause with a slot
    value (a name, phone...), a request, filler or a profile statement stops the chain. A
    clause between two anchors goes to the one before it."""
    key_ids = idfacts.keys(ids)
    anchors: dict[int, list[idfacts.IdMention]] = {}
    kept: dict[int, bool] = {}
    joins: list[bool] = []
    for i, (a, b) in enumerate(spans):
        clause = sent_text[a:b]
        inside = [m for m in ids if a <= m.entity.start and m.entity.end <= b]
        keys_here = [m for m in inside if m in key_ids]
        ents = [e for e in local if a <= e.start and e.end <= b]
        if keys_here:
            anchors[i] = keys_here
            # a request ("帮我查一下订单ABC123") stays the session's own unit, the id fact is bare
            kept[i] = not (_REQUEST.search(clause) and classify(
                clause.strip(), "user", ents, None) is MemoryType.SESSION_STATE)
            joins.append(False)
        elif _REQUEST.search(clause) or _ASKS.search(clause):
            joins.append(False)
        elif ents:
            joins.append(all(e.kind in _ATTACHABLE_KINDS for e in ents))
        else:
            joins.append(filler_kind(clause) is None and classify(
                clause.strip(), "user", [], None) is not MemoryType.USER_PROFILE)
    owner: dict[int, int] = {}
    for i in anchors:
        j = i - 1
        while j >= 0 and joins[j] and j not in owner and j not in anchors:
            owner[j] = i
            j -= 1
        j = i + 1
        while j < len(spans) and joins[j] and j not in anchors:
            owner[j] = i
            j += 1
    for i in anchors:
        near = [j for j, o in owner.items() if o == i]
        if any(idfacts.STATUS_WORDS.search(sent_text[spans[j][0]:spans[j][1]])
               for j in [*near, i]):
            # a status ("还没发货") makes the fact one a later status replaces: what the user
            # said beside it in plain words ("上周买了一台加湿器") must outlive that, so it
            # stays its own unit; an attribute of the id (a tracking number, an amount) joins
            for j in near:
                a, b = spans[j]
                if not idfacts.STATUS_WORDS.search(sent_text[a:b]) and not any(
                        a <= e.start and e.end <= b and e.kind not in ("date", "time")
                        for e in local):  # a tracking number or an amount stays
                    del owner[j]
    groups: list[_IdGroup] = []
    for i, mentions in anchors.items():
        members = sorted([j for j, o in owner.items() if o == i] + ([i] if kept[i] else []))
        for m in mentions:
            groups.append(_IdGroup(m, tuple(spans[j] for j in members), kept[i]))
    return groups, {spans[j] for j in owner}


def _id_claims(sent_text: str, start: int, entities: list[Entity]) -> frozenset[tuple[int, int]]:
    """The clauses of a sentence its identifier facts hold (see :func:`_id_groups`)."""
    if not any(e.kind in ID_KINDS for e in entities):
        return frozenset()
    return _sentence_groups(sent_text, start, tuple(entities))[1]


@lru_cache(maxsize=64)
def _sentence_groups(sent_text: str, start: int, entities: tuple[Entity, ...]
                     ) -> tuple[list[_IdGroup], frozenset[tuple[int, int]]]:
    """:func:`_id_groups` of one sentence, computed once for its id facts and its other units
    (a pure function of the sentence and its entities)."""
    local = [_shift(e, start) for e in entities]
    ids = find_ids(sent_text, local)
    if not ids:
        return [], frozenset()
    groups, claims = _id_groups(sent_text, local, ids, _clause_spans(sent_text, local))
    return groups, frozenset(claims)


def _ids_worded(sent_text: str, start: int, entities: list[Entity],
                idm: list[idfacts.IdMention]) -> set[str]:
    """The values the sentence's identifier facts word: each fact's own id and every entity in
    the clauses it takes. A clause whose entities are all among them says nothing the id facts
    do not hold; an entity outside every fact's clauses ("运单SF123456789请稍后重试" after
    "订单号是ABC123，": a request stops the order's chain) is not held, so its clause stays."""
    if not idm:
        return set()
    groups, _ = _sentence_groups(sent_text, start, tuple(entities))
    spans = {span for g in groups for span in g.spans}
    return {g.mention.entity.value for g in groups} | {
        e.value for e in entities
        if any(start + a <= e.start and e.end <= start + b for a, b in spans)}


def _id_pieces(sent_text: str, local: list[Entity], ids: list[idfacts.IdMention],
               spans: list[tuple[int, int]], entities: list[Entity], times: list[TimeMatch],
               start: int, lang: str) -> list[_Piece]:
    """Durable identifier facts of one sentence, whoever said it (see :mod:`.idfacts`): the id
    once, with its label, in the clauses that speak of it."""
    if not ids:
        return []
    script = script_of(sent_text, lang == "zh")
    key_ids = idfacts.keys(ids)
    groups, _ = _sentence_groups(sent_text, start, tuple(entities))
    valid_until = validity_end(sent_text, times, start)
    joiner = "，" if lang == "zh" else ", "
    out: list[_Piece] = []
    for group in groups:
        mention = group.mention
        value = mention.entity.value
        parts: list[str] = []
        for a, b in group.spans:
            inside = [t for t in times if start + a <= t.start and t.end <= start + b]
            text, _ = _rewrite_times(sent_text[a:b], start + a, inside, lang)
            parts.append(text.strip())
        ctx = joiner.join(p for p in parts if p)
        ents = [e for e in entities if any(start + a <= e.start and e.end <= start + b
                                           for a, b in group.spans)] or [entities[
                                               local.index(mention.entity)]]
        rest = ctx
        for m in key_ids:
            rest = rest.replace(m.entity.text, " ")
        says = any(m not in key_ids for m in ids) or len(
            content_left(_CUE_WORDS.sub(" ", _ID_LABEL_WORDS.sub(" ", rest)))) >= 2
        status = idfacts.STATUS_WORDS.search(ctx) is not None
        if group.anchor_kept and mention.entity.text in ctx:
            content = idfacts.labelled(mention.category, mention.entity.text, ctx, script)
        else:
            content = idfacts.word_fact(mention.category, mention.entity.text,
                                        ctx if says else "", script)
        content = compress_sentence(content, [e.text for e in ents])
        out.append(_Piece(content, MemoryType.FACT_REFERENCE, ents,
                          slot=f"id:{value}" if says and status else None,
                          valid_until=valid_until,
                          keep=[e.text for e in ents], standalone=True, about_id=value))
    return out


_CLAUSE_MARK = re.compile(r"[，,;；]")
#: A clause that is only a speaker's tag ("<Bart>:"): it says nothing of its own.
_TAG_ONLY = re.compile(r"\s*<[^<>]{1,60}>\s*[:：]?\s*[\"“”「」]?\s*")
_DURABLE = (MemoryType.FACT_REFERENCE, MemoryType.USER_PROFILE)
_TASK_ID = re.compile(r"(?:任务|任務|批次|task|job|batch)\s*(?:id|ID|号|號)?\s*[#:：]?\s*([A-Za-z0-9][A-Za-z0-9_\-]{1,31})", re.I)
_CLAUSE = re.compile(
    r"[，;；]|,(?!\d{3})|：|:(?!\d)|"
    r"\s*,?\s+(?:and|but|plus|also)\s+(?=(?:I|I'm|I've|I'd|my|we|our|me)\b)|"
    r"(?:还有|還有|而且|并且|並且|另外|同时|同時)(?=我)")
#: A weekday said as a habit or a preference ("以后周六上午送", "I'm home Saturday mornings")
#: names every such day, not the next one: it is not rewritten as a date.
_HABIT = re.compile(
    r"以后|以後|往后|往後|每|平时|平時|一般|通常|都|最好|方便|送货|送貨|配送|收货|收貨|收件|派送|在家|时间|時間|时段|時段|"
    r"全天|整天|成日|全日|尽量|盡量|只有|快递|快遞|速递|速遞|就得|(?<![发發])送(?:来|來|嚟|过来|過來|啦|吧|就|到)|"
    r"改成|改到|改为|改為|换成|換成|到周|到週|"
    r"\b(?:deliver\w*|usually|always|every|prefer\w*|best|from now on|going forward|home|slot|window|"
    r"all day|drop\w*|pls|please)\b",
    re.I)
_WEEKDAY = re.compile(
    r"(?:周|週|星期|礼拜|禮拜)[一二三四五六日天](?:上午|下午|晚上|早上|中午|傍晚)?"
    r"(?:[0-9一二三四五六七八九十两兩]{1,3}\s*[点點:：](?:[0-9一二三四五六七八九十半]{1,3}分?)?)?|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?(?:\s+(?:mornings?|afternoons?|evenings?|nights?))?",
    re.I)
_PREPOSITION = re.compile(r"\b(?:on|in|since|until|till|by|from|before|after|during|of|at|for)\s*$", re.I)
#: Words that only introduce a value ("我的手机号是", "my email is"): no content of their own.
_CUE_WORDS = re.compile(
    r"手机号码|手機號碼|手机号|手機號|手机|手機|电话号码|電話號碼|电话|電話|号码|號碼|联系方式|聯繫方式|"
    r"聯絡方式|邮箱地址|郵箱地址|邮箱|郵箱|电邮|電郵|地址|住址|名字|姓名|会员|會員|等级|等級|生日|"
    r"\b(?:phone|number|cell|mobile|e-?mail|address|name|member(?:ship)?|tier|level|status|birthday|"
    r"is|my|new|call|reach|text|at|me|on|speaking|here|this)\b", re.I)
_ID_LABEL_WORDS = re.compile("|".join(ID_LABELS.values()) + r"|号|號|编号|編號|\bid\b|#", re.I)
_TAG_QUESTION = re.compile(
    r"[，,]\s*(?:right|correct|isn't it|aren't I|don't I|is that right|yes|no|ok|okay|yeah|"
    r"对吧|對吧|是吧|是不是|对不对|對不對|没错吧|沒錯吧|对吗|對嗎|是吗|是嗎|吧)\s*[？?]\s*$", re.I)
#: A clause that is a bare list or apposition ("Mia and Zoe", "一个叫麻糬") and has no subject of
#: its own: it continues the clause before it.
_FRAGMENT = re.compile(r"^\s*(?:[A-Z][a-z]+(?:\s+(?:and|&)\s+[A-Z][a-z]+)?|一[个個隻只位][叫是].{1,6}|"
                       r"[\u4e00-\u9fff]{1,4}和[\u4e00-\u9fff]{1,4})\s*[.!。！]?\s*$")
_SUBJECT = re.compile(r"\b(?:I|we|he|she|they|it|my|our)\b|我|他|她|它", re.I)
_REQUEST = re.compile(
    r"帮我|幫我|麻烦|麻煩|请|請|查一下|看一下|记着|記著|记一下|記一下|\b(?:please|can you|could you|"
    r"would you|help me|check|look up|keep|remember|note)\b", re.I)


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
            chunks = (split_long(p.content, MAX_CONTENT_CHARS, keep, MAX_PIECES_PER_FACT)
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
        if speaker:
            content = _name_once(content, speaker)
        ents = [e for c, p in parts for e in p.entities
                if e.text in c or (e.kind == "date" and e.text not in p.content)]
        first = parts[0][1]
        drafts.append(UnitDraft(content=content, type=first.type, entities=_dedupe(ents),
                                slot=first.slot, valid_until=first.valid_until,
                                about_id=first.about_id))

    for piece in pieces:
        if not piece.content:
            continue  # every clause of it is held by another unit (an identifier fact)
        alone = piece.slot is not None or piece.standalone
        if alone or (group and (
                group[0].type != piece.type or group[0].valid_until != piece.valid_until
                or group[0].slot is not None or group[0].standalone)):
            flush()
        group.append(piece)
        if alone:
            flush()
    flush()
    return drafts


def _name_once(content: str, speaker: str) -> str:
    """A unit names its speaker once: "Caroline: X Caroline: Y" -> "Caroline: X Y", and the
    transcript prefix goes when the name is in the sentence itself ("Caroline: Caroline's art
    is…" -> "Caroline's art is…")."""
    name = speaker.strip()
    if not name:
        return content
    for sep in (": ", "："):
        tag = name + sep
        head = tag if content.startswith(tag) else ""
        body = content[len(head):]
        if tag in body:
            body = body.replace(" " + tag, " ").replace(tag, "")
        if head and name not in body:
            body = head + body
        content = body
    return content


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
        for content in split_long(fact.text, MAX_CONTENT_CHARS, keep, MAX_PIECES_PER_FACT):
            drafts.append(UnitDraft(content=content, type=unit_type, slot=slot,
                                    entities=[e for e in ents if e.text in content]))
        drafts.extend(_tool_id_drafts(fact, ents, keep))
    return drafts, _dedupe(all_entities)


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
    sentences = _merge_split_entities(sentences, entities, work)
    if turn.role == "user":
        sentences = _merge_asked_cue(sentences, work)
    pieces: list[_Piece] = []
    starts = [e.start for e in entities]
    tstarts = [t.start for t in times]
    asked: list[tuple[str, int, int]] = []  # open questions left out (see below)
    for sent_text, start, end in sentences:
        lo, hi = bisect_left(starts, start), bisect_left(starts, end)
        ents = [e for e in entities[lo:hi] if e.end <= end]
        if not ents and is_filler(sent_text):
            continue
        # compression: in a turn of several sentences a one-clause question without an entity
        # is no unit (the raw turn keeps it); a turn that is one question stays, the prompt of
        # the answer that follows ("那张优惠券还能用吗？" -> "已于5月3日过期")
        if not ents and len(sentences) > 1 and turn.role != "tool" \
                and is_open_question(sent_text) and not _TAG_QUESTION.search(sent_text) \
                and not _CLAUSE_MARK.search(sent_text):
            asked.append((sent_text, start, end))
            continue
        tlo, thi = bisect_left(tstarts, start), bisect_left(tstarts, end)
        tms = [t for t in times[tlo:thi] if t.end <= end]
        pieces.extend(_pieces_for_sentence(sent_text, start, ents, tms, turn))
    if asked and not pieces:
        # the other sentences were filler ("Wow! 你去过吗？"): the turn is one question and
        # keeps it, or recall (which answers with units, never raw turns) could not find it
        for sent_text, start, _ in asked:
            pieces.extend(_pieces_for_sentence(sent_text, start, [], [], turn))
    if turn.role == "tool":
        for p in pieces:
            if not p.standalone:  # identifier facts outlive the tool result that carried them
                p.type = MemoryType.TOOL_RESULT
                p.slot = None if p.slot and not p.slot.startswith("task:") else p.slot
    drafts = _pack_pieces(_said_once(pieces), turn.speaker)
    return Extraction(text, _limit(drafts), entities, red.secrets, language=language)


def _said_once(pieces: list[_Piece]) -> list[_Piece]:
    """compression: a piece that says what an earlier piece of the turn said (a sentence
    repeated, a question an identifier fact already holds) is kept once, the first time."""
    seen: set[str] = set()
    out: list[_Piece] = []
    for p in pieces:
        key = said_key(p.content)
        if key and key in seen:
            continue
        seen.add(key)
        out.append(p)
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


def _limit(drafts: list[UnitDraft]) -> list[UnitDraft]:
    if len(drafts) <= MAX_UNITS_PER_TURN:
        return drafts
    ranked = sorted(range(len(drafts)), key=lambda i: (-len(drafts[i].entities), i))
    keep = sorted(ranked[:MAX_UNITS_PER_TURN])
    return [drafts[i] for i in keep]


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
