"""The storage interface every backend implements (SQLite, PostgreSQL), and its records.

The store is narrow on purpose: the decisions (what to extract, what supersedes what, how to
rank) live above it in :mod:`jiyi.memory`, :mod:`jiyi.write` and :mod:`jiyi.recall`; a backend
only keeps rows and answers filtered queries *inside* its query language (scope, type and
``as_of`` are WHERE clauses, never post-filters).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from ..units import USER_LEVEL_TYPES, Entity, MemoryType, MemoryUnit

Vector = NDArray[np.float32]

#: The commands that create a missing store; every other command only opens an existing one.
CREATING_COMMANDS = ("ingest", "serve", "proxy", "mcp", "chat", "restore", "migrate")


def missing_store_message(location: str) -> str:
    """The one-line error of opening a store that does not exist without ``create``."""
    return (f"no jiyi store at {location}: check --db / JIYI_DB (only "
            f"{', '.join(CREATING_COMMANDS)} create one)")


@dataclass(frozen=True)
class Scope:
    """Whose memory a query may see (session isolation): the session's units plus the same user's user-level
    units from any session. ``session_id=None`` means every session of the user (admin views)."""

    user_id: str
    session_id: str | None
    user_level_types: frozenset[MemoryType] = USER_LEVEL_TYPES


@dataclass(frozen=True)
class TurnRecord:
    """One raw conversation turn as stored (already redacted): the provenance of units."""

    key: str  # internal primary key, unique
    turn_id: str  # the caller's id (e.g. LoCoMo "D1:3"), or the key when none was given
    session_id: str
    user_id: str
    role: str
    text: str
    at: datetime
    speaker: str | None = None
    #: Order of ingestion (increasing across the store; 0 before the turn is stored). "The next
    #: turn" of a session is the one with the next ``seq``, never read from ``at``.
    seq: int = 0


@dataclass(frozen=True)
class UnitEvent:
    """Something that happened to a unit: created, updated, feedback, invalidated."""

    unit_id: str
    at: datetime
    event: str
    detail: str = ""
    score_after: float | None = None


@dataclass
class IngestBatch:
    """Everything one ingest call writes, committed in one transaction or not at all."""

    turn: TurnRecord
    upserts: list[MemoryUnit] = field(default_factory=list)
    vectors: dict[str, Vector] = field(default_factory=dict)  # unit id -> vector of `embedder`
    embedder: str = ""
    invalidations: list[tuple[str, datetime, str, str | None]] = field(default_factory=list)
    # (unit_id, at, reason, superseded_by)
    events: list[UnitEvent] = field(default_factory=list)
    #: Vectors of other embedders (per-type embedders): embedder name -> unit id -> vector.
    more_vectors: dict[str, dict[str, Vector]] = field(default_factory=dict)
    #: The raw turn's own vector (the episodic layer) in ``embedder``'s space; None: not embedded.
    turn_vector: Vector | None = None
    #: The turn's session's topic state after this turn (a user turn), as the document
    #: :mod:`jiyi.recall.topic_codec` writes; None: the stored state stays as it is.
    topic_state: str | None = None

    def add_vector(self, embedder: str, unit_id: str, vector: Vector) -> None:
        """Add a unit's vector in ``embedder``'s space (any embedder, one batch)."""
        if embedder == self.embedder:
            self.vectors[unit_id] = vector
        else:
            self.more_vectors.setdefault(embedder, {})[unit_id] = vector

    def vectors_by_embedder(self) -> dict[str, dict[str, Vector]]:
        """Every vector of the batch grouped by embedder name (what the backend writes)."""
        out: dict[str, dict[str, Vector]] = {}
        if self.vectors:
            out[self.embedder] = dict(self.vectors)
        for name, vecs in self.more_vectors.items():
            if vecs:
                out.setdefault(name, {}).update(vecs)
        return out


@dataclass(frozen=True)
class Scored:
    """A search's best hits, with the distribution of its scores over everything it searched
    (``n`` documents; an unmatched document scores 0): scores of different searches are put on
    one scale as ``(score - mean) / std`` (:func:`jiyi.recall.rerank.zscore`)."""

    hits: list[tuple[str, float]]
    mean: float = 0.0
    std: float = 0.0
    n: int = 0

    @staticmethod
    def of(hits: list[tuple[str, float]], n: int) -> Scored:
        """``hits`` with mean and spread over ``n`` documents, the rest scoring 0 (a keyword
        search: only the listed documents matched)."""
        total = max(n, len(hits), 1)
        s1 = sum(s for _, s in hits)
        s2 = sum(s * s for _, s in hits)
        mean = s1 / total
        return Scored(hits, mean, max(0.0, s2 / total - mean * mean) ** 0.5, total)


@dataclass(frozen=True)
class StoreStats:
    """Counts at one instant. The four unit states are disjoint and add up:
    ``units_valid + units_expired + units_superseded + units_forgotten == units_total``
    (definitions in :mod:`.sql.stats`; a unit not yet in its validity window counts as
    valid). ``units_invalidated`` is ``units_superseded + units_forgotten``."""

    units_total: int
    units_valid: int
    units_expired: int
    units_invalidated: int
    by_type: dict[str, int]
    turns: int
    users: int
    sessions: int
    size_bytes: int
    units_superseded: int
    units_forgotten: int

    @classmethod
    def from_counts(cls, *, total: int, expired: int, superseded: int, forgotten: int,
                    by_type: dict[str, int], turns: int, users: int, sessions: int,
                    size_bytes: int) -> StoreStats:
        """Valid is what is left of the total once the other three states are counted."""
        return cls(units_total=total, units_valid=total - expired - superseded - forgotten,
                   units_expired=expired, units_invalidated=superseded + forgotten,
                   by_type=by_type, turns=turns, users=users, sessions=sessions,
                   size_bytes=size_bytes, units_superseded=superseded, units_forgotten=forgotten)


@dataclass(frozen=True)
class RecallLogEntry:
    recall_id: str
    at: datetime
    session_id: str
    user_id: str
    unit_id: str
    stage: str
    rank: int


@runtime_checkable
class Store(Protocol):
    """What a backend must do. One contract test-suite runs against every implementation."""

    backend: str
    location: str

    def close(self) -> None: ...

    # ---- writes (each one transaction)
    def placement_lock(self, user_id: str) -> AbstractContextManager[None]:
        """Serialise ingest decisions for ``user_id`` across threads and processes (the checks
        for a repeated or superseded fact and the commit that follows them)."""
        ...
    def commit_ingest(self, batch: IngestBatch) -> None: ...
    def set_relevance(self, unit_id: str, score: float, event: UnitEvent) -> None: ...
    def invalidate(self, unit_id: str, at: datetime, reason: str,
                   superseded_by: str | None = None) -> None: ...
    def put_vectors(self, embedder: str, vectors: dict[str, Vector]) -> None: ...
    def log_recall(self, entries: Sequence[RecallLogEntry]) -> None: ...
    def mark_recall_used(self, unit_id: str, used: bool) -> None: ...
    def purge_expired(self, older_than: datetime) -> int: ...
    def erase_user(self, user_id: str) -> int: ...

    # ---- reads
    def get_units(self, ids: Sequence[str]) -> list[MemoryUnit]: ...
    def get_turns(self, keys: Sequence[str]) -> list[TurnRecord]: ...
    def unit_turn_keys(self, unit_id: str) -> list[str]: ...
    def unit_events(self, unit_id: str) -> list[UnitEvent]: ...
    def recent_turns(self, scope: Scope, limit: int) -> list[TurnRecord]: ...
    def find_turns(self, user_id: str, session_id: str,
                   turn_ids: Sequence[str]) -> dict[str, str]:
        """``{turn_id: key}`` of the given caller turn ids already stored for this user and
        session (the oldest when a store from before m007 holds repeats). Inside
        :meth:`placement_lock` it sees the lock's own uncommitted turns: that is how a repeated
        ``turn_id`` becomes a no-op (:meth:`jiyi.Memory.ingest`)."""
        ...
    def find_units(
        self,
        scope: Scope,
        *,
        as_of: datetime | None,
        types: Sequence[MemoryType] | None = None,
        slot: str | None = None,
        content_hash: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 1000,
    ) -> list[MemoryUnit]: ...
    # The unit searches return units *current* at ``as_of`` by default; with ``history=True``
    # every unit *known* at ``as_of`` (learned by then, validity begun, not forgotten on
    # request): expired and superseded ones too, whose status recall decides
    # (:func:`jiyi.units.unit_status`). Either way the filter is inside the SQL.
    def entity_search(
        self, scope: Scope, as_of: datetime, entities: Sequence[Entity], limit: int,
        history: bool = False,
    ) -> list[tuple[str, float]]: ...
    def keyword_search(
        self, scope: Scope, as_of: datetime, terms: Sequence[str], limit: int,
        since: datetime | None = None, until: datetime | None = None, history: bool = False,
    ) -> list[tuple[str, float]]: ...
    def vector_search(
        self, scope: Scope, as_of: datetime, embedder: str, query: Vector, limit: int,
        since: datetime | None = None, until: datetime | None = None,
        types: Sequence[MemoryType] | None = None, history: bool = False,
    ) -> list[tuple[str, float]]:
        """Cosine search in ``embedder``'s space; ``types`` restricts it to the unit types
        routed to that embedder (per-type embedders) inside the SQL (None: every type;
        empty: nothing). The same ``types`` rule holds for the two missing-vector queries."""
        ...
    # -- the episodic layer: every raw turn of a user, from any session
    def keyword_scored(
        self, scope: Scope, as_of: datetime, terms: Sequence[str], limit: int,
        since: datetime | None = None, until: datetime | None = None, history: bool = False,
    ) -> Scored:
        """:meth:`keyword_search` with the number of documents searched (for the score scale)."""
        ...
    def turn_vector_search(
        self, user_id: str, as_of: datetime, embedder: str, query: Vector, limit: int,
        since: datetime | None = None, until: datetime | None = None,
    ) -> Scored:
        """``(turn key, cosine)`` of the user's turns said by ``as_of`` (any session), best
        first, in ``embedder``'s space, with the cosines' mean and spread over all those turns;
        ``since``/``until`` bound the turn's ``at``."""
        ...
    def turn_units(self, turn_keys: Sequence[str]) -> dict[str, list[str]]:
        """The ids of the units cut from each turn (whatever their status)."""
        ...
    def next_turns(self, turn_keys: Sequence[str]) -> dict[str, str]:
        """For each turn key, the key of the next turn of the same session (by ``seq``)."""
        ...
    def put_turn_vectors(self, embedder: str, turns: Sequence[TurnRecord],
                         vectors: Sequence[Vector]) -> None: ...
    def turns_missing_vectors(self, embedder: str, limit: int) -> list[TurnRecord]: ...
    def count_turns_missing_vectors(self, embedder: str) -> int: ...
    def units_missing_vectors(
        self, embedder: str, limit: int, types: Sequence[MemoryType] | None = None
    ) -> list[MemoryUnit]: ...
    # -- the read path's searches
    def entity_kind_search(
        self, scope: Scope, as_of: datetime, kinds: Sequence[str], limit: int,
        history: bool = False,
    ) -> list[tuple[str, float]]:
        """Units valid at ``as_of`` in ``scope`` holding an entity of one of ``kinds``, newest
        first, as ``(unit_id, 1.0)``."""
        ...

    def session_topics(self, user_id: str, session_id: str) -> str | None:
        """The session's topic state document (written by :meth:`commit_ingest` with a user
        turn), None before the session's first user turn. A pure read."""
        ...

    def source_turns(self, unit_ids: Sequence[str]) -> dict[str, list[TurnRecord]]:
        """The turns each unit was built from (oldest first), keyed by unit id."""
        ...
    def units_with_sources(
        self, ids: Sequence[str]
    ) -> tuple[list[MemoryUnit], dict[str, list[TurnRecord]]]:
        """``(get_units(ids), source_turns(ids))`` read together (one query on the SQL stores:
        the read path's candidates)."""
        ...
    def count_units_missing_vectors(
        self, embedder: str, types: Sequence[MemoryType] | None = None
    ) -> int:
        """How many units (of ``types``, None: all) have no vector of ``embedder`` (what
        ``jiyi reindex`` would embed)."""
        ...
    def stats(self, user_id: str | None = None, as_of: datetime | None = None) -> StoreStats: ...
    def recall_hit_rate(self, since: datetime | None) -> tuple[int, int]: ...
    def users(self) -> list[str]: ...
    def sessions(self, user_id: str) -> list[str]: ...
    def export_user(self, user_id: str) -> dict[str, Any]: ...
