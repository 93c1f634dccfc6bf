"""The user's words no unit holds: kept, in the user's own words.

The clause planner (:mod:`.plan`) leaves clauses out on purpose: a question asked among other
clauses, a clause a slot fact already holds, a change its supersession records. Its rules are
written against phrasings; on a phrasing they were not written against, a clause that holds a
value ("Could I go down to the 150 Mbps plan?", "APP上我变成铂金会员了？？", "升上金卡了？") was left
out too, and recall, which answers with units, could never find it again.

So after the planner, a user's clause whose content words no unit of the turn holds becomes a
unit of its own, verbatim (compressed, never reworded), typed as any clause is. A clause is
"held" when every one of its content words (:func:`~jiyi.text.keyword_terms`, folded) is in some
unit of the turn, which also covers a slot template that rewords it ("用户的会员等级是黄金" holds
"我是你们黄金会员"). Filler, laughter and a bare confirmation stay out; so does a clause with a
single content word ("What would that cost?"), and an open question that holds no value
(:func:`counts`): compression still compresses.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ..text import fold, keyword_terms
from ..text.levels import mentions_level
from ..text.segment import has_cjk
from ..units import Entity, MemoryType
from .classify import classify, is_confirmation
from .clauses import clause_spans, shift
from .compress import CACHED_TEXT_CHARS, compress_sentence, is_filler, is_open_question
from .drafts import Piece
from .filler import content_left, filler_kind
from .idgroups import CUE_WORDS, ID_LABEL_WORDS
from .plan import MIN_FACT_CONTENT_CHARS
from .slots import CHANGE_WORDS

#: A clause left out by the planner comes back when at least this many of its content words
#: are held by no unit of the turn (a word with a digit counts for this many alone).
MIN_UNHELD_WORDS = 2


def _weighty(term: str) -> bool:
    """A content word that can carry a value: a number, a word of two CJK characters or more,
    a Latin word of three letters or more (single Cantonese particles, "咁", "咗", are not)."""
    if any(ch.isdigit() for ch in term):
        return True
    if has_cjk(term):
        return len(term) >= 2
    return len(term) >= 3


def unheld_words(clause: str, held: str) -> list[str]:
    """The clause's content words that the folded text ``held`` does not contain. A value's cue
    and change words are no content of their own: a slot fact says them in its own words
    ("我的手機號碼是 09…" -> "用戶的手機號是09…")."""
    words = _weighty_words if len(clause) <= CACHED_TEXT_CHARS else _weighty_words.__wrapped__
    return [t for t in words(clause) if t not in held]


@lru_cache(maxsize=4096)
def _weighty_words(clause: str) -> tuple[str, ...]:
    """The clause's content words that can carry a value, cue and change words left out (a
    pure function of the clause, segmented once: common clauses recur across turns)."""
    bare = CHANGE_WORDS.sub(" ", ID_LABEL_WORDS.sub(" ", CUE_WORDS.sub(" ", clause)))
    return tuple(t for t in keyword_terms(bare) if _weighty(t))


def counts(words: list[str], clause: str) -> bool:
    """Enough unheld words for the clause to be kept. An open question is left out on purpose
    by the planner ("有没有别的口味推荐"): it comes back only when it holds something a value is
    made of: a number, a level, a Latin word in a Chinese clause ("APP上我变成铂金会员了？？",
    "So am I on the Platinum tier now?")."""
    if any(any(ch.isdigit() for ch in w) for w in words):
        return True
    if not is_open_question(clause):
        return len(words) >= MIN_UNHELD_WORDS
    if not words:
        return False
    return (has_cjk(clause) and any(w.isascii() for w in words)) or mentions_level(clause)


def residue_pieces(sent_text: str, start: int, entities: list[Entity], held: str,
                   rewritten: Sequence[tuple[int, int]] = ()) -> list[Piece]:
    """The clauses of one sentence of a user's turn that no piece of the turn holds (``held``:
    the folded contents of the turn's pieces), as pieces in the user's words, consecutive
    clauses joined.
    ``rewritten``: the spans (in the turn) of times the pieces hold rewritten as dates ("last
    year" -> "2025"): held, in other words."""
    if is_filler(sent_text) or is_confirmation(sent_text):
        return []
    local = [shift(e, start) for e in entities]
    runs: list[tuple[int, int]] = []
    for a, b in clause_spans(sent_text, local):
        clause = sent_text[a:b]
        c_local = [e for e in local if a <= e.start and e.end <= b]
        if all(e.kind in ("date", "time") for e in c_local) and filler_kind(
                clause, known_not_filler=False) is not None:
            continue
        for lo, hi in rewritten:  # blanked, offsets kept
            lo, hi = max(lo - start, a), min(hi - start, b)
            if lo < hi:
                clause = clause[:lo - a] + " " * (hi - lo) + clause[hi - a:]
        if not counts(unheld_words(clause, held), clause):
            continue
        if runs and runs[-1][1] >= a - 2:  # the clause right after the last kept one
            runs[-1] = (runs[-1][0], b)
        else:
            runs.append((a, b))
    pieces: list[Piece] = []
    for a, b in runs:
        text = sent_text[a:b].strip(" ,，、;；")
        ents = [e for e in entities if start + a <= e.start and e.end <= start + b]
        keep = [e.text for e in ents]
        unit_type = classify(text, "user", [], None)
        if unit_type is MemoryType.FACT_REFERENCE and not ents \
                and len(content_left(text)) < MIN_FACT_CONTENT_CHARS:
            unit_type = MemoryType.SESSION_STATE
        # a unit of its own: packed with a neighbour, it would be typed by the neighbour's words
        pieces.append(Piece(compress_sentence(text, keep), unit_type, ents, keep=keep,
                            standalone=True))
    return pieces


def held_text(pieces: list[Piece]) -> str:
    """The folded contents of ``pieces``: what :func:`residue_pieces` checks words against."""
    return fold(" ".join(p.content for p in pieces))
