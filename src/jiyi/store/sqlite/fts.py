"""SQLite's keyword-search text (a pure function, no I/O): the FTS5 MATCH expression of a search.
The body the index holds is :func:`..sql.keywords.fts_body`.
"""

from __future__ import annotations

from collections.abc import Sequence


def fts_query(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression that ORs quoted terms: user text can never become FTS syntax."""
    quoted = []
    for term in terms:
        clean = term.replace('"', " ").strip()
        if clean:
            quoted.append('"' + clean + '"')
    return " OR ".join(quoted) if quoted else None
