"""Identifier groups: which clauses of a sentence each key identifier's fact is worded from
(:func:`id_pieces`, the durable id facts of :mod:`.idfacts`), and which clauses those facts
take over from the sentence's other units (:func:`id_claims`, :func:`ids_worded`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..text.entities import ID_KINDS, ID_LABELS
from ..text.fastre import gate_all
from ..units import Entity, MemoryType
from . import idfacts
from .classify import classify
from .clauses import ASKS, clause_spans, shift
from .compress import compress_sentence
from .drafts import DATED_KINDS, Piece
from .filler import content_left, filler_kind
from .idfacts import find_ids, script_of
from .slots import validity_end
from .timeparse import TimeMatch
from .timerewrite import rewrite_times

#: Entity kinds a clause may carry and still be worded into an identifier's fact beside it
#: ("订单PO-10023，金额¥199"); a name, phone, email, city or address is the user's own slot.
_ATTACHABLE_KINDS = frozenset({"amount", "date", "time", "product", "error_code", "code", "url",
                               "order_id", "tracking_no", "ticket_id"})
_REQUEST = re.compile(
    r"帮我|幫我|麻烦|麻煩|请|請|查一下|看一下|记着|記著|记一下|記一下|\b(?:please|can you|could you|"
    r"would you|help me|check|look up|keep|remember|note)\b", re.I)
#: Words that only introduce a value ("我的手机号是", "my email is"): no content of their own.
CUE_WORDS = re.compile(
    r"手机号码|手機號碼|手机号|手機號|手机|手機|电话号码|電話號碼|电话|電話|号码|號碼|联系方式|聯繫方式|"
    r"聯絡方式|邮箱地址|郵箱地址|邮箱|郵箱|电邮|電郵|地址|住址|名字|姓名|会员|會員|等级|等級|生日|"
    r"\b(?:phone|number|cell|mobile|e-?mail|address|name|member(?:ship)?|tier|level|status|birthday|"
    r"is|my|new|call|reach|text|at|me|on|speaking|here|this)\b", re.I)
ID_LABEL_WORDS = re.compile("|".join(ID_LABELS.values()) + r"|号|號|编号|編號|\bid\b|#", re.I)


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
        elif _REQUEST.search(clause) or ASKS.search(clause):
            joins.append(False)
        elif ents:
            # a code with a date of its own ("…，HOME66 到6月底") is a thing of its own, not an
            # attribute of the code before it: one code's expiry must not end the other's
            joins.append(all(e.kind in _ATTACHABLE_KINDS for e in ents) and not (
                any(e.kind in DATED_KINDS for e in ents) and any(e.kind == "date" for e in ents)))
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


def id_claims(sent_text: str, start: int, entities: list[Entity]) -> frozenset[tuple[int, int]]:
    """The clauses of a sentence its identifier facts hold (see :func:`_id_groups`)."""
    if not any(e.kind in ID_KINDS for e in entities):
        return frozenset()
    return _sentence_groups(sent_text, start, tuple(entities))[1]


@lru_cache(maxsize=64)
def _sentence_groups(sent_text: str, start: int, entities: tuple[Entity, ...]
                     ) -> tuple[list[_IdGroup], frozenset[tuple[int, int]]]:
    """:func:`_id_groups` of one sentence, computed once for its id facts and its other units
    (a pure function of the sentence and its entities)."""
    local = [shift(e, start) for e in entities]
    ids = find_ids(sent_text, local)
    if not ids:
        return [], frozenset()
    groups, claims = _id_groups(sent_text, local, ids, clause_spans(sent_text, local))
    return groups, frozenset(claims)


def ids_worded(sent_text: str, start: int, entities: list[Entity],
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


def id_pieces(sent_text: str, local: list[Entity], ids: list[idfacts.IdMention],
              spans: list[tuple[int, int]], entities: list[Entity], times: list[TimeMatch],
              start: int, lang: str) -> list[Piece]:
    """Durable identifier facts of one sentence, whoever said it (see :mod:`.idfacts`): the id
    once, with its label, in the clauses that speak of it."""
    if not ids:
        return []
    script = script_of(sent_text, lang == "zh")
    key_ids = idfacts.keys(ids)
    groups, _ = _sentence_groups(sent_text, start, tuple(entities))
    valid_until = validity_end(sent_text, times, start)
    # several dated codes in one sentence: each fact's expiry is the one of its own clauses
    several = sum(1 for e in local if e.kind in DATED_KINDS) > 1
    joiner = "，" if lang == "zh" else ", "
    out: list[Piece] = []
    for group in groups:
        mention = group.mention
        value = mention.entity.value
        parts: list[str] = []
        for a, b in group.spans:
            inside = [t for t in times if start + a <= t.start and t.end <= start + b]
            text, _ = rewrite_times(sent_text[a:b], start + a, inside, lang)
            parts.append(text.strip())
        ctx = joiner.join(p for p in parts if p)
        ents = [e for e in entities if any(start + a <= e.start and e.end <= start + b
                                           for a, b in group.spans)] or [entities[
                                               local.index(mention.entity)]]
        rest = ctx
        for m in key_ids:
            rest = rest.replace(m.entity.text, " ")
        says = any(m not in key_ids for m in ids) or len(
            content_left(CUE_WORDS.sub(" ", ID_LABEL_WORDS.sub(" ", rest)))) >= 2
        status = idfacts.STATUS_WORDS.search(ctx) is not None
        if group.anchor_kept and mention.entity.text in ctx:
            content = idfacts.labelled(mention.category, mention.entity.text, ctx, script)
        else:
            content = idfacts.word_fact(mention.category, mention.entity.text,
                                        ctx if says else "", script)
        content = compress_sentence(content, [e.text for e in ents])
        own_end = valid_until
        if several and group.spans:
            a0, b0 = group.spans[0][0], group.spans[-1][1]
            own_end = validity_end(sent_text[a0:b0], [
                t for t in times if any(start + a <= t.start and t.end <= start + b
                                        for a, b in group.spans)], start + a0)
        out.append(Piece(content, MemoryType.FACT_REFERENCE, ents,
                          slot=f"id:{value}" if says and status else None,
                          valid_until=own_end,
                          keep=[e.text for e in ents], standalone=True, about_id=value))
    return out


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
