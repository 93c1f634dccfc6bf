"""Packing: a turn's pieces -> unit drafts. A piece said twice is kept once, pieces of one type
are joined into units of at most ``MAX_CONTENT_CHARS`` (a long one is cut, never inside an
entity), a unit names its speaker once, and a turn yields at most ``MAX_UNITS_PER_TURN`` units.
"""

from __future__ import annotations

from ..units import MAX_CONTENT_CHARS, Entity
from .compress import join_pieces, said_key, split_long
from .drafts import Piece, UnitDraft

#: At most this many units from one turn (a 1 MB paste must not become 7,000 units); the turn
#: text itself is stored whole, so nothing is lost from provenance.
MAX_UNITS_PER_TURN = 64
#: A long fact is cut into pieces of at most ``MAX_CONTENT_CHARS``; more pieces than this are
#: never kept (see ``MAX_UNITS_PER_TURN``), so the splitter stops early.
MAX_PIECES_PER_FACT = 4 * MAX_UNITS_PER_TURN


def pack_pieces(pieces: list[Piece], speaker: str | None) -> list[UnitDraft]:
    drafts: list[UnitDraft] = []
    group: list[Piece] = []

    def flush() -> None:
        if not group:
            return
        keep = [e.text for p in group for e in p.entities] + [k for p in group for k in p.keep]
        parts: list[tuple[str, Piece]] = []
        for p in group:
            chunks = (split_long(p.content, MAX_CONTENT_CHARS, keep, MAX_PIECES_PER_FACT)
                      if len(p.content) > MAX_CONTENT_CHARS else [p.content])
            parts.extend((c, p) for c in chunks)
        current: list[tuple[str, Piece]] = []
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

    def emit(content: str, parts: list[tuple[str, Piece]]) -> None:
        if speaker:
            content = _name_once(content, speaker)
        ents = [e for c, p in parts for e in p.entities
                if e.text in c or (e.kind == "date" and e.text not in p.content)]
        first = parts[0][1]
        drafts.append(UnitDraft(content=content, type=first.type, entities=dedupe(ents),
                                slot=first.slot, valid_until=first.valid_until,
                                about_id=first.about_id,
                                once=all(p.once for _, p in parts)))

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


def dedupe(entities: list[Entity]) -> list[Entity]:
    seen: set[tuple[str, str]] = set()
    out: list[Entity] = []
    for e in entities:
        if (e.kind, e.value) not in seen:
            seen.add((e.kind, e.value))
            out.append(e)
    return out


def said_once(pieces: list[Piece]) -> list[Piece]:
    """compression: a piece that says what an earlier piece of the turn said (a sentence
    repeated, a question an identifier fact already holds) is kept once, the first time."""
    seen: set[str] = set()
    out: list[Piece] = []
    for p in pieces:
        key = said_key(p.content)
        if key and key in seen:
            continue
        seen.add(key)
        out.append(p)
    return out


def limit(drafts: list[UnitDraft]) -> list[UnitDraft]:
    if len(drafts) <= MAX_UNITS_PER_TURN:
        return drafts
    ranked = sorted(range(len(drafts)), key=lambda i: (-len(drafts[i].entities), i))
    keep = sorted(ranked[:MAX_UNITS_PER_TURN])
    return [drafts[i] for i in keep]
