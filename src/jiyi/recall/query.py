"""Query enhancement (the funnel's second stage): make a vague query explicit before searching.

* A vague reference ("那个产品", "上次那个", "它", "the thing I mentioned", "that one") is
  expanded with the session's recent entities (newest first), which the caller reads from
  the store: the query "那个产品还有货吗" also searches the keyword "X1 Pro" when the user
  just talked about the X1 Pro. The vector side embeds the query as said.
* A time expression becomes a window (:mod:`jiyi.recall.timewin`).
* Keyword terms are the query's content words (segmented, folded), plus the expansion.

Pure: ``(query, as_of, recent entities) -> EnhancedQuery``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..text import fold, keyword_terms
from .timewin import TimeWindow, time_window

_VAGUE_RE = re.compile(
    r"那个|那件|那款|那家|那位|那次|这个|这件|这款|上次|之前(?:说|提|问)|刚才|刚刚|它|他们家|"
    r"\bthat (?:one|thing|product|item|place|order)\b|\bthe (?:thing|one|product|item|order)"
    r" (?:i|we) (?:mentioned|talked about|asked about|said)\b|\bthe same\b|\blast time\b|"
    r"\bthat\b\s*\??$|\bit\b"
)
MAX_EXPANSION = 3

#: A question about a value the user had before ("我以前的手机号", "my old address", "what was my
#: previous number"): only such a question recalls a superseded value (as history).
_PAST_RE = re.compile(
    r"以前|从前|從前|原来|原來|原先|之前的|过去|過去|曾经|曾經|旧的|舊的|旧号|舊號|旧地址|舊地址|"
    r"老号|老號|换之前|換之前|改之前|上一个|上一個|前一个|前一個|"
    r"\bused to\b|\bprevious(?:ly)?\b|\bformer(?:ly)?\b|\bold (?:number|phone|address|email|"
    r"name|one)\b|\bbefore (?:i|we|it) (?:changed|moved|switched|updated)\b|\bwhat was my\b",
    re.I)


#: An old value named only to be ruled out or worried about ("不要又寄到旧地址", "我怕还是老的",
#: "please not the old place again", "hope it's not still the old one"): the question wants
#: the current value.
_NOT_EARLIER = re.compile(
    r"(?:不要|别|別|不想|不能|怕|担心|擔心|千万别|千萬別|可别|可別|不会|不會|希望不是|别再|別再|不要再)"
    r"[^，,。.？?！!]{0,8}?(?:旧|舊|老|原来|原來|原先|以前|之前)[^，,。.？?！!]{0,6}|"
    r"\b(?:not|no|don't|dont|never|afraid|worried|hope|hopefully|still)\b[^,.?!]{0,24}?"
    r"\b(?:old|previous|former)\b(?: \w+)?",
    re.I)


def without_ruled_out_past(folded: str) -> str:
    """A folded question without the old values it only rules out (see ``_NOT_EARLIER``)."""
    return _NOT_EARLIER.sub(" ", folded)


def asks_about_past(query: str) -> bool:
    """True when the query asks about an earlier value, not the current one."""
    return bool(_PAST_RE.search(without_ruled_out_past(fold(query))))


@dataclass(frozen=True)
class EnhancedQuery:
    """What stage 2 searches with."""

    text: str  # the original query
    search_text: str  # what the vector side embeds: the user's own words (never expanded)
    terms: list[str]  # keyword terms (original content words + expansion)
    window: TimeWindow | None = None
    vague: bool = False
    expansion: list[str] = field(default_factory=list)


#: A query with more content words than this names its subject itself and is not expanded.
MAX_VAGUE_CONTENT_WORDS = 3


def is_vague(query: str, terms: Sequence[str] | None = None) -> bool:
    """True when the query points at something without naming it: a pointing word and at most
    :data:`MAX_VAGUE_CONTENT_WORDS` content words besides it. ``terms``: the query's
    :func:`~jiyi.text.keyword_terms` when the caller has them (segmenting once per recall)."""
    if not _VAGUE_RE.search(fold(query)):
        return False
    return len(keyword_terms(query) if terms is None else terms) <= MAX_VAGUE_CONTENT_WORDS


def enhance(query: str, as_of: datetime, recent_entities: Sequence[str] = (),
            terms: Sequence[str] | None = None) -> EnhancedQuery:
    """Expand a vague query with the session's recent entities; read its time window.
    ``terms``: the query's :func:`~jiyi.text.keyword_terms` when the caller has them."""
    terms = keyword_terms(query) if terms is None else list(terms)
    vague = is_vague(query, terms)
    expansion: list[str] = []
    if vague:
        folded_query = fold(query)
        for value in recent_entities:
            v = value.strip()
            if v and fold(v) not in folded_query and v not in expansion:
                expansion.append(v)
            if len(expansion) >= MAX_EXPANSION:
                break
    extra_terms = [t for v in expansion for t in keyword_terms(v)]
    all_terms = list(dict.fromkeys([*terms, *extra_terms]))
    # The expansion is keyword evidence only: the dense side (the floor) embeds what the user
    # said; a guess at what "那个" points to must not move the query's vector.
    search_text = query
    return EnhancedQuery(
        text=query, search_text=search_text, terms=all_terms,
        window=time_window(query, as_of), vague=vague, expansion=expansion,
    )
