"""The body both backends' keyword indexes hold (SQLite's FTS5 table, PostgreSQL's tsvector), no
connection here. Each engine's query text is its own: :mod:`..sqlite.fts`,
:mod:`..postgres.fts`.
"""

from __future__ import annotations

from functools import lru_cache

from ...text import tokens


def fts_body(content: str, source_text: str) -> str:
    """What the keyword index holds for a unit: segmented content and segmented source turn."""
    return segmented(content) + " \n " + segmented(source_text)


@lru_cache(maxsize=64)
def segmented(text: str) -> str:
    """Space-joined search tokens. Cached: every unit of a turn indexes the same source text."""
    return " ".join(tokens(text))
