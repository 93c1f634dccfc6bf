"""What differs between the SQL backends, as data: the store's SQL is written once.

Every query of the shared store (:mod:`.rows`, :mod:`.filters`, :mod:`.reads`,
:mod:`.writes`) is written in ONE neutral form, SQLite's own: ``:name`` and ``?``
placeholders, ``INSERT ... ON CONFLICT`` upserts (both engines accept them), instants as
integer microseconds and JSON as text (both schemas store them so). A :class:`Dialect` turns
that form into its driver's, and holds the few things the two engines spell differently:

* placeholders: ``:name`` / ``?`` stay for sqlite3, become ``%(name)s`` / ``%s`` for psycopg;
* list membership: ``col IN (:k0, :k1, ...)`` in chunks under SQLite's variable limit, or
  ``col = ANY(:k)`` with one array parameter;
* row locks: ``FOR UPDATE [SKIP LOCKED]`` where the engine has them (SQLite's write lock is
  the whole database already);
* vectors: a float32 BLOB or a pgvector value.

Backend-only SQL (FTS5 and its row map, tsvector and trigram search, HNSW plans, pragmas)
stays in the backend's module; everything else goes through here, so a new column or query
is written once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")

_NAMED = re.compile(r"(?<!:):([A-Za-z_][A-Za-z0-9_]*)")


@lru_cache(maxsize=2048)
def _pyformat(query: str) -> str:
    """The neutral query in psycopg's style (``%(name)s``, ``%s``). ``::`` casts are left
    alone; a ``%`` in the neutral text would be read as a placeholder, so it is refused."""
    if "%" in query.replace("%(", "").replace("%s", ""):
        raise ValueError(f"neutral SQL must not contain '%': {query!r}")
    return _NAMED.sub(r"%(\1)s", query).replace("?", "%s")


@dataclass(frozen=True)
class Dialect:
    """One SQL engine's spelling of the shared store's queries."""

    name: str
    #: At most this many list items per ``IN (...)`` query; None: one array parameter.
    list_chunk: int | None
    #: Appended to a SELECT whose rows the transaction goes on to change.
    for_update: str
    #: Appended inside a one-row subquery picking a row to change (skips rows another
    #: transaction holds, so concurrent writers do not queue).
    skip_locked: str
    #: A float32 vector as the driver binds it.
    encode_vector: Callable[[np.ndarray], Any]
    #: Whether queries keep the neutral placeholders (else: psycopg's pyformat).
    neutral_placeholders: bool

    def sql(self, query: str) -> str:
        """The neutral ``query`` in this driver's placeholder style (cached)."""
        return query if self.neutral_placeholders else _pyformat(query)

    def any_of(self, column: str, key: str, values: Sequence[Any], params: dict[str, Any]) -> str:
        """``column`` is one of ``values``: a WHERE fragment; fills ``params`` under ``key``
        (SQLite: one parameter per value, so keep ``values`` within :attr:`list_chunk`)."""
        if self.list_chunk is None:
            params[key] = list(values)
            return f"{column} = ANY(:{key})"
        names = []
        for i, value in enumerate(values):
            params[f"{key}{i}"] = value
            names.append(f":{key}{i}")
        return f"{column} IN ({', '.join(names)})"

    def chunks(self, values: Sequence[T]) -> Iterator[list[T]]:
        """``values`` in pieces :meth:`any_of` can take (one piece when arrays bind whole);
        nothing for no values."""
        step = self.list_chunk or max(1, len(values))
        for start in range(0, len(values), step):
            yield list(values[start:start + step])


def _blob(vec: np.ndarray) -> bytes:
    return vec.tobytes()


def _array(vec: np.ndarray) -> np.ndarray:
    return vec


#: SQLite: 500 values per IN list (well under its 999/32766 variable limit), no row locks.
SQLITE = Dialect(name="sqlite", list_chunk=500, for_update="", skip_locked="",
                 encode_vector=_blob, neutral_placeholders=True)

#: PostgreSQL + pgvector (vectors bound through ``pgvector.psycopg.register_vector``).
POSTGRES = Dialect(name="postgresql", list_chunk=None, for_update=" FOR UPDATE",
                   skip_locked=" FOR UPDATE SKIP LOCKED", encode_vector=_array,
                   neutral_placeholders=False)
