"""Clause planning: one sentence -> its pieces. Each clause is typed (filler, aside, slot fact,
identifier mention or content), consecutive clauses of one type become one piece, with
relative times rewritten and the speaker named; a plain sentence stays one piece.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..keyfacts.asking import is_request, keeps_the_standing_value, one_off
from ..text.fastre import gate_all
from ..text.segment import has_cjk, script_of_text
from ..units import Entity, MemoryType
from .classify import classify
from .clauses import CLAUSE_MARK, TAG_QUESTION, clause_spans, shift, states_a_clause_slot
from .compress import CACHED_TEXT_CHARS, compress_sentence, is_open_question
from .drafts import DATED_KINDS, LANGUAGE_SNIFF_CHARS, Piece, TurnInput
from .filler import content_left, filler_kind
from .idfacts import find_ids
from .idgroups import CUE_WORDS, ID_LABEL_WORDS, id_claims, id_pieces, ids_worded
from .slots import (
    CHANGE_WORDS,
    CUE_WINDOW_CHARS,
    SlotFact,
    current_between,
    dated_thing_said,
    find_slots,
    validity_end,
)
from .speaker import attribute_once
from .timeparse import TimeMatch
from .timerewrite import rewrite_times

#: A clause with fewer content characters than this (stop-list and glue words removed: "就这样",
#: "ok so") is too little to be a durable fact; it stays session state.
MIN_FACT_CONTENT_CHARS = 3
#: A clause of at most this many content characters after a profile clause (", Mia and Zoe")
#: is a fragment that belongs to the clause before it.
MAX_FRAGMENT_CONTENT_CHARS = 5
#: How much of the turn after a clause its slot rules see (a name spelled out right after it:
#: "是何思语 语言的语").
SPELLED_AFTER_CHARS = 12
#: A clause that is only a speaker's tag ("<Bart>:"): it says nothing of its own.
_TAG_ONLY = re.compile(r"\s*<[^<>]{1,60}>\s*[:：]?\s*[\"“”「」]?\s*")
_DURABLE = (MemoryType.FACT_REFERENCE, MemoryType.USER_PROFILE)
_TASK_ID = re.compile(r"(?:任务|任務|批次|task|job|batch)\s*(?:id|ID|号|號)?\s*[#:：]?\s*([A-Za-z0-9][A-Za-z0-9_\-]{1,31})", re.I)
#: A clause that is a bare list or apposition ("Mia and Zoe", "一个叫麻糬") and has no subject of
#: its own: it continues the clause before it.
_FRAGMENT = re.compile(r"^\s*(?:[A-Z][a-z]+(?:\s+(?:and|&)\s+[A-Z][a-z]+)?|一[个個隻只位][叫是].{1,6}|"
                       r"[\u4e00-\u9fff]{1,4}和[\u4e00-\u9fff]{1,4})\s*[.!。！]?\s*$")
_SUBJECT = re.compile(r"\b(?:I|we|he|she|they|it|my|our)\b|我|他|她|它", re.I)


#: How many sentences before a bare value a one-off request is read.
ONE_OFF_SENTENCES = 2
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")


def last_sentences(text: str) -> str:
    parts = [p for p in _SENTENCE_END.split(text) if p.strip()]
    return " ".join(parts[-ONE_OFF_SENTENCES:])


#: The longest sentence right after a value read as a one-off marker ("就这一次", "just this
#: once"), in characters.
ONE_OFF_AFTER_CHARS = 16
_NEXT_SENTENCE = re.compile(r"[^.!?。！？\s]+(?:\s+[^.!?。！？\s]+)*?(?=[.!?。！？]|\s{1}(?=[\u4e00-\u9fff])|$)")


def _one_off_after(text: str) -> bool:
    """The message goes on with a short one-off marker ("…这次改周日送吧 就这一次 下周还是周六")."""
    m = _NEXT_SENTENCE.match(text.lstrip(" ，,。.!！?？"))
    if m is None:
        return False
    # its first clause is enough ("Just that one, she's doing my VAT return.")
    first = _FIRST_CLAUSE.match(m.group(0))
    return any(len(t) <= ONE_OFF_AFTER_CHARS and one_off(t)
               for t in (m.group(0), first.group(0) if first else ""))


_FIRST_CLAUSE = re.compile(r"[^,，;；]+")


def _bare_values(sentence: str, entities: list[Entity]) -> bool:
    """The sentence gives a phone, e-mail or address and little besides ("12 Wattle St, Orange
    NSW 2800"): what it is for was said before it."""
    values = [e for e in entities if e.kind in ("phone", "email", "address")]
    if not values:
        return False
    rest = sentence
    for e in sorted(values, key=lambda e: -e.start):
        rest = rest[:e.start] + " " + rest[e.end:]
    return len(content_left(rest)) <= BARE_REST_CHARS


#: What a bare value's sentence may hold besides the value (characters left of content).
BARE_REST_CHARS = 12


def pieces_for_sentence(
    sent_text: str, start: int, entities: list[Entity], times: list[TimeMatch],
    turn: TurnInput, earlier: str = "", message_before: str = "", message_after: str = "",
) -> list[Piece]:
    """:func:`_sentence_pieces`, each piece marked ``once`` when the sentence, or a one-off
    said beside it in the message, makes its value one order's (the typing at placement reads
    only the draft's own words). ``message_before``: the message before the sentence (a one-off
    said sentences before a bare value: "can you courier it to my mum's place for this one? I'm
    staying with her. 12 Wattle St"); ``message_after``: the rest (a one-off said right after:
    "这次改周日送吧 就这一次 下周还是周六")."""
    local = [shift(e, start) for e in entities]
    # "寄到X，就这单": no standing value; nor a bare value after a one-off request in the
    # message, nor one a one-off follows ("这次改周日送吧 就这一次"), nor one of a message saying
    # the standing value stays, unless its sentence says a change ("我搬家了，新地址是X，其他照旧")
    once = turn.role == "user" and (one_off(sent_text) or (
        bool(message_before) and _bare_values(sent_text, local)
        and one_off(last_sentences(message_before))) or _one_off_after(message_after)
        or (keeps_the_standing_value(message_before + sent_text + message_after, sent_text)
            and CHANGE_WORDS.search(sent_text) is None))
    pieces = _sentence_pieces(sent_text, start, entities, times, turn, earlier, once)
    if once:
        for piece in pieces:
            piece.once = True
    return pieces


def _sentence_pieces(
    sent_text: str, start: int, entities: list[Entity], times: list[TimeMatch],
    turn: TurnInput, earlier: str, once: bool,
) -> list[Piece]:
    """One sentence -> pieces, clause by clause (a compound turn holds several facts).

    Each clause is filler (dropped), an emotional aside (session state), a slot statement
    (a slot piece, plus the clause itself when it says more than its value), an identifier
    mention (an id fact, plus the clause when it says more) or content typed on its own.
    Consecutive clauses of one type stay one piece, so a plain sentence is one unit as before.
    ``earlier``: the end of the message before this sentence (a value's cue word said there);
    ``once``: the sentence's value is one order's (:func:`pieces_for_sentence`)."""
    lang = "zh" if has_cjk(sent_text) else "en"
    local = [shift(e, start) for e in entities]
    ids = find_ids(sent_text, local)
    spans = clause_spans(sent_text, local)
    pieces = id_pieces(sent_text, local, ids, spans, entities, times, start, lang)
    covered = ids_worded(sent_text, start, entities, ids)
    asked = TAG_QUESTION.search(sent_text) is not None  # "I'm a Silver member, right?"
    # a slot fact in a clause of neither script ("寄kevin@…") is written in its sentence's, or
    # when that has neither either, in the turn's
    slot_lang = "hant" if lang == "zh" and (script_of_text(sent_text) or script_of_text(
        turn.text[:LANGUAGE_SNIFF_CHARS])) == "hant" else lang
    plans: list[MemoryType | None] = []
    slot_seen: dict[str, Entity | None] = {}  # slot -> its value (in the sentence)
    states_pref = turn.role == "user" and states_a_clause_slot(sent_text)
    said_clauses = sum(1 for a, b in spans if not _TAG_ONLY.fullmatch(sent_text[a:b]))
    any_split = False
    for a, b in spans:
        clause = sent_text[a:b]
        c_local = [shift(e, a) for e in local if a <= e.start and e.end <= b]
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
        facts = [] if (asked and not told) or once else [
            f for f in (_slot_facts if b <= CACHED_TEXT_CHARS else _slot_facts.__wrapped__)(
                clause, tuple(c_local), turn.role, slot_lang, turn.speaker, sent_text[:a],
                earlier if a == 0 else "", turn.text[start + b:start + b + SPELLED_AFTER_CHARS])
            if f.slot not in slot_seen or current_between(
                sent_text, slot_seen[f.slot], f.entity and shift(f.entity, -a))]
        for fact in facts:
            # a later value the words say is current ("X，不对，是Y") is written after the first:
            # placing the turn, it supersedes it (the first stays, as history)
            slot_seen[fact.slot] = fact.entity and shift(fact.entity, -a)
            ent = next((entities[i] for i, e in enumerate(local)
                        if fact.entity is not None and e.start == fact.entity.start + a), None)
            slot_name = f"{fact.slot}@{turn.speaker.casefold()}" if turn.speaker else fact.slot
            pieces.append(Piece(fact.content, MemoryType.USER_PROFILE,
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
    dated_list = len(dated_groups([span for span, _ in kept], local, times, start)) > 1
    if not any_split and len({t for _, t in kept}) == 1 and not pieces and not dated_list:
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
        for group in dated_groups(run_spans, local, times, start):
            piece = _run_piece(sent_text, start, group, t, entities, times, turn)
            piece.standalone = piece.standalone or alone
            pieces.append(piece)
    return pieces


def dated_groups(spans: list[tuple[int, int]], local: list[Entity], times: list[TimeMatch],
                 start: int) -> list[list[tuple[int, int]]]:
    """Consecutive clauses cut so that each dated thing keeps its own date: a list of codes,
    each with its expiry ("我有两张券：LUCK88 到3月10号，HOME66 到6月底", "KITCHEN15 (exp 3/9),
    SPRING25 (exp 4/15)") becomes one group per code (a clause naming none goes with the code
    before it, the clauses before the first code with the first), so that one code's early
    date does not end the others. One group (the clauses unchanged) unless two or more codes,
    each in a clause of its own, have dates of their own, or one has and every date is in a
    code's clause; codes sharing one date ("GOLD300、SILVER100，全部到六月底") stay together."""
    codes = [e for e in local if e.kind in DATED_KINDS]
    if len(codes) < 2 or not times:
        return [spans]
    groups: list[list[tuple[int, int]]] = []
    for a, b in spans:
        held = sum(1 for e in codes if a <= e.start and e.end <= b)
        if held > 1:
            return [spans]
        if not groups or (held and _has_code(groups[-1], codes)):
            groups.append([(a, b)])
        else:
            groups[-1].append((a, b))
    dated = sum(1 for g in groups if _has_code(g, codes) and any(
        g[0][0] <= t.start - start and t.end - start <= g[-1][1] for t in times))
    if dated > 1:
        return groups
    # one code with its date in its own clause, the others with none ("BDAY10 expires on the
    # 5th, GIFT77 has no expiry"): the date is that code's alone, unless a date stands in a
    # clause naming no code ("GOLD300，SILVER100，全部到六月底": the date is all of theirs)
    in_code_clause = [any(a <= t.start - start and t.end - start <= b for a, b in spans
                          if _has_code([(a, b)], codes)) for t in times]
    return groups if dated == 1 and len(groups) > 1 and all(in_code_clause) else [spans]


def _has_code(group: list[tuple[int, int]], codes: list[Entity]) -> bool:
    return any(a <= e.start and e.end <= b for a, b in group for e in codes)


@lru_cache(maxsize=4096)
def _slot_facts(clause: str, entities: tuple[Entity, ...], role: str, lang: str,
                speaker: str | None, before: str, earlier: str = "",
                after: str = "") -> tuple[SlotFact, ...]:
    """:func:`find_slots` of one clause (a pure function of its arguments; common clauses recur
    across turns, so the answer is kept)."""
    return tuple(find_slots(clause, list(entities), role, lang, speaker, before=before,
                            earlier=earlier, after=after))


def _whole_sentence(sent_text: str, start: int, entities: list[Entity],
                    times: list[TimeMatch], turn: TurnInput, lang: str,
                    typed: MemoryType | None = None) -> Piece:
    parts = [p.strip(" 。.!！?？") for p in CLAUSE_MARK.split(sent_text)]
    if len(parts) > 1 and len(set(parts)) < len(parts):
        local = [shift(e, start) for e in entities]
        spans = clause_spans(sent_text, local)
        said = [content_left(sent_text[a:b]) for a, b in spans]
        if len(set(said)) < len(said):  # a clause said twice: keep it once
            return _run_piece(sent_text, start, spans, typed or classify(
                sent_text, turn.role, entities, None), entities, times, turn)
    rewritten, shown = rewrite_times(sent_text, start, times, lang)
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
    return Piece(content, unit_type, list(entities), slot=slot, valid_until=valid_until,
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
    rest = CUE_WORDS.sub(" ", rest)
    rest = ID_LABEL_WORDS.sub(" ", rest)
    rest = CHANGE_WORDS.sub(" ", rest)
    return len(content_left(rest)) >= 2


def _run_piece(sent_text: str, start: int, run: list[tuple[int, int]], unit_type: MemoryType,
               entities: list[Entity], times: list[TimeMatch], turn: TurnInput) -> Piece:
    """Consecutive kept clauses of one type, as one piece. A clause said again ("真的非常重要，
    真的非常重要") is kept once; a clause an identifier fact of the sentence already holds (see
    :func:`id_claims`) is left to it."""
    lang = "zh" if has_cjk(sent_text) else "en"
    clauses: list[str] = []
    shown: list[str] = []
    ents: list[Entity] = []
    seen: set[str] = set()
    claimed = id_claims(sent_text, start, entities)
    used: list[tuple[int, int]] = []
    for a, b in run:
        said = sent_text[a:b].strip(" 。.!！?？~～").casefold()
        if (a, b) in claimed or (said and said in seen):
            continue
        seen.add(said)
        used.append((a, b))
        inside = [t for t in times if start + a <= t.start and t.end <= start + b]
        text, rendered = rewrite_times(sent_text[a:b], start + a, inside, lang, sent_text)
        clauses.append(text.strip())
        shown += rendered
        ents += [e for e in entities if start + a <= e.start and e.end <= start + b]
    if not clauses:
        return Piece("", unit_type, [])
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
    if any(e.kind in DATED_KINDS for e in ents) and dated_thing_said(sent_text):
        # an item of a list of dated things: its own clauses' date, the sentence's words
        # saying what it is ("我有两张券：…，HOME66 到6月底")
        a0, b0 = used[0][0], used[-1][1]
        valid_until = validity_end(sent_text[a0:b0], [
            t for t in times if any(start + a <= t.start and t.end <= start + b
                                    for a, b in used)], start + a0, thing_said=True)
    else:
        valid_until = validity_end(sent_text[a0:b0], [t for t in times if start + a0 <= t.start],
                                   start + a0)
    return Piece(content, unit_type, ents, slot=slot, valid_until=valid_until, keep=keep)


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
