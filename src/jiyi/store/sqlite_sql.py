"""The keyword index's text (no connection here): the FTS5 MATCH expression and the body both
backends index (SQLite's FTS5 table, PostgreSQL's tsvector). The shared filters are in
:mod:`.sql_filters`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ..text import tokens


def fts_query(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression that ORs quoted terms: user text can never become FTS syntax."""
    quoted = []
    for term in terms:
        clean = term.replace('"', " ").strip()
        if clean:
            quoted.append('"' + clean + '"')
    return " OR ".join(quoted) if quoted else None


def fts_body(content: str, source_text: str) -> str:
    """What the keyword index holds for a unit: segmented content and segmented source turn."""
    return segmented(content) + " \n " + segmented(source_text)


@lru_cache(maxsize=64)
def segmented(text: str) -> str:
    """Space-joined search tokens. Cached: every unit of a turn indexes the same source text."""
    return " ".join(tokens(text))
