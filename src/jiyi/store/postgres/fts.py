"""PostgreSQL's keyword-search text (pure functions, no I/O): the tsquery of a search and the
trigram fallback's patterns. The shared rows and filters are in :mod:`..sql.rows` and
:mod:`..sql.filters`.
"""

from __future__ import annotations

from collections.abc import Sequence


def tsquery_text(terms: Sequence[str]) -> str | None:
    """A ``to_tsquery('simple', ...)`` input that ORs quoted terms.

    Each term is a quoted lexeme (quotes and backslashes escaped), so user text can never become
    tsquery syntax (``&``, ``|``, ``!``, ``<->``, ``:*``)."""
    quoted = []
    for term in terms:
        clean = term.strip()
        if clean:
            quoted.append("'" + clean.replace("\\", "\\\\").replace("'", "''") + "'")
    return " | ".join(quoted) if quoted else None


def like_patterns(terms: Sequence[str], min_chars: int = 3) -> list[str]:
    """``ILIKE`` patterns (``%term%``, wildcards escaped) for the trigram fallback."""
    out = []
    for term in terms:
        clean = term.strip()
        if len(clean) >= min_chars:
            esc = clean.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            out.append(f"%{esc}%")
    return out
