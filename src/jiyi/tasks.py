"""Resumable batch operations: progress kept as one ``batch_operation`` memory unit.

``mem.batch("T1", items, session_id=...)`` opens (or resumes) a task over item ids. Its state
lives in the store, in the same transaction as each step, so it survives ``kill -9``:

* the task's unit (slot ``batch:<task id>``, updated in place) holds the progress as text
  (``批量任务 T1 进度：已完成 37/100，最后成功 item-37`` / ``Batch task T1 progress: 37/100 done,
  last success item-37``), so "进度如何？" / "how far along?" is answered by ordinary recall;
* the unit's events hold the history: ``batch_created`` (total and a digest of the item list),
  then per item ``batch_started``, ``batch_succeeded`` or ``batch_failed`` (with the error).

:meth:`BatchTask.pending` yields the items not yet done and records each as started before
yielding it. A success or failure is recorded with the new progress text in one transaction, so a
new process never redoes an item whose success was recorded. The one item a crash interrupted
(started, no outcome) is yielded again and listed in :attr:`BatchTask.in_doubt`, so work that is
not idempotent can check whether it already happened. A failure is recorded and skipped, never
fatal. One runner per task at a time.

Every write goes through the one write path of the facade (:meth:`jiyi.Memory.placement_lock`,
the lock :meth:`jiyi.Memory.ingest` decides and commits under): opening a task checks for its unit
again under that lock before creating it, so two processes opening the same task make one unit,
and no step commits while an ingest of the same user is deciding.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from .errors import ValidationError
from .store.base import IngestBatch, Scope, TurnRecord, UnitEvent
from .text import detect_language, is_cjk
from .units import MAX_CONTENT_CHARS, Entity, Lifespan, MemoryType, MemoryUnit, new_unit_id
from .validation import check_identifier, check_user_id, require_session_id
from .write.services import WriteServices

MAX_TASK_ID_CHARS = 40
MAX_ERROR_CHARS = 500
#: Recent turns read to guess the language of a task's progress note when its id says nothing.
LANGUAGE_SNIFF_TURNS = 6
SLOT_PREFIX = "batch:"
Status = Literal["pending", "started", "succeeded", "failed"]


class FailedItem(BaseModel):
    item_id: str
    error: str


class BatchProgress(BaseModel):
    """Where a task stands: {task_id, completed, total, last_success_id, failed, ...}."""

    task_id: str
    completed: int
    total: int
    last_success_id: str | None = None
    failed: list[FailedItem] = Field(default_factory=list)
    in_doubt: list[str] = Field(default_factory=list,
                                description="started in an earlier run, outcome never recorded")
    remaining: int = 0
    done: bool = False
    content: str = Field(default="", description="the batch_operation unit's text")


def progress_text(task_id: str, completed: int, total: int, last: str | None, failed: int,
                  language: str) -> str:
    """The unit's content (at most 150 characters; the last-success clause goes first if not)."""
    finished = completed + failed >= total
    if language == "zh":
        head = f"批量任务 {task_id} 进度：已完成 {completed}/{total}"
        tail = (f"，失败 {failed} 项" if failed else "") + ("，已全部处理" if finished else "")
        last_part = f"，最后成功 {last}" if last else ""
    else:
        head = f"Batch task {task_id} progress: {completed}/{total} done"
        tail = (f", {failed} failed" if failed else "") + (", all processed" if finished else "")
        last_part = f", last success {last}" if last else ""
    text = head + last_part + tail
    return text if len(text) <= MAX_CONTENT_CHARS else head + tail


def start_text(task_id: str, total: int, language: str) -> str:
    """The text of the task's provenance turn: what the unit is for, in words a progress
    question uses (the keyword index reads a unit's source turns too)."""
    if language == "zh":
        return (f"批量任务 {task_id} 开始，共 {total} 项。任务进度（做到哪了、完成了多少、"
                "还剩多少、哪些失败）记在这条记忆里。")
    return (f"Batch task {task_id} started with {total} items. Its progress (how far along it "
            "is, how many are done, what is left, which failed) is kept in this memory.")


def items_digest(items: Iterable[str]) -> str:
    h = hashlib.sha256()
    for item in items:
        h.update(item.encode())
        h.update(b"\x1f")
    return h.hexdigest()[:32]


@dataclass
class _State:
    status: dict[str, Status] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # succeeded items in order of success
    in_doubt: set[str] = field(default_factory=set)


def fold_events(events: Iterable[UnitEvent]) -> _State:
    """The per-item state after replaying a task's events (pure)."""
    st = _State()
    for ev in events:
        item = ev.detail
        if ev.event == "batch_started":
            if st.status.get(item) != "succeeded":
                st.status[item] = "started"
        elif ev.event == "batch_succeeded":
            if st.status.get(item) != "succeeded":
                st.order.append(item)
            st.status[item] = "succeeded"
            st.errors.pop(item, None)
        elif ev.event == "batch_failed":
            data = json.loads(item)
            st.status[data["item"]] = "failed"
            st.errors[data["item"]] = str(data.get("error", ""))
    st.in_doubt = {i for i, s in st.status.items() if s == "started"}
    return st


def _check_task_id(task_id: object) -> str:
    tid = check_identifier(task_id, "task_id")
    if len(tid) > MAX_TASK_ID_CHARS or any(ch.isspace() for ch in tid):
        raise ValidationError(f"task_id must be one word of at most {MAX_TASK_ID_CHARS} "
                              f"characters, got {tid!r}")
    return tid


def _check_items(items: Iterable[object]) -> list[str]:
    if isinstance(items, (str, bytes)):
        raise ValidationError("items must be a list of item ids, not one string")
    out: list[str] = []
    seen: set[str] = set()
    for raw in items:
        item = check_identifier(raw, "item id")
        if item in seen:
            raise ValidationError(f"item id {item!r} appears twice in the batch")
        seen.add(item)
        out.append(item)
    return out


class BatchTask:
    """A resumable task over item ids; open it with :meth:`jiyi.Memory.batch`."""

    def __init__(self, mem: WriteServices, task_id: str, items: Iterable[str], *,
                 session_id: str, user_id: str | None = None,
                 language: Literal["zh", "en"] | None = None) -> None:
        self.session_id = require_session_id(session_id)
        self.user_id = check_user_id(user_id, self.session_id)
        self.task_id = _check_task_id(task_id)
        self.items = _check_items(items)
        if language not in (None, "zh", "en"):
            raise ValidationError(f"language must be zh or en, got {language!r}")
        self._mem = mem
        self._store = mem.store
        self._digest = items_digest(self.items)
        self._known = set(self.items)
        key = hashlib.sha256(f"{self.user_id}\x1f{self.session_id}\x1f{self.task_id}"
                             .encode()).hexdigest()[:32]
        self._turn_key = "tb_" + key
        self.language = language or self._language()
        unit = self._find_unit() or self._create()
        self._state = self._load(unit)
        self._unit = unit

    # ------------------------------------------------------------------ opening
    @property
    def total(self) -> int:
        return len(self.items)

    @property
    def unit(self) -> MemoryUnit:
        """The task's ``batch_operation`` unit as last written."""
        return self._unit

    @property
    def in_doubt(self) -> frozenset[str]:
        """Items an earlier run started without recording an outcome (it was killed mid-item)."""
        return frozenset(self._state.in_doubt)

    def _language(self) -> str:
        if any(is_cjk(ch) for ch in self.task_id):
            return "zh"
        turns = self._store.recent_turns(Scope(self.user_id, self.session_id), LANGUAGE_SNIFF_TURNS)
        text = " ".join(t.text for t in turns if t.role in ("user", "assistant"))
        return detect_language(text) if text else "en"

    def _find_unit(self) -> MemoryUnit | None:
        found = self._store.find_units(Scope(self.user_id, self.session_id), as_of=None,
                                       types=[MemoryType.BATCH_OPERATION],
                                       slot=SLOT_PREFIX + self.task_id, limit=1)
        return found[0] if found else None

    def _load(self, unit: MemoryUnit) -> _State:
        events = self._store.unit_events(unit.id)
        for ev in events:
            if ev.event == "batch_created":
                meta = json.loads(ev.detail)
                if meta.get("digest") != self._digest:
                    raise ValidationError(
                        f"batch task {self.task_id!r} already exists with a different item list "
                        f"({meta.get('total')} items); use another task_id")
                break
        return fold_events(events)

    def _create(self) -> MemoryUnit:
        """Create the task's unit, unless another writer created it since :meth:`_find_unit`
        looked: the check is repeated under the write lock, and the embedding (slow) is done
        before taking it."""
        now = self._mem.clock()
        turn = TurnRecord(
            key=self._turn_key, turn_id=f"batch:{self.task_id}", session_id=self.session_id,
            user_id=self.user_id, role="tool", at=now,
            text=start_text(self.task_id, self.total, self.language))
        content = progress_text(self.task_id, 0, self.total, None, 0, self.language)
        unit = MemoryUnit(
            id=new_unit_id(), content=content, type=MemoryType.BATCH_OPERATION,
            lifespan=Lifespan(created_at=now, expires_in=self._lifespan()),
            session_id=self.session_id, user_id=self.user_id, source_turn_ids=[turn.turn_id],
            entities=[Entity(kind="task_id", text=self.task_id, value=self.task_id.upper())],
            slot=SLOT_PREFIX + self.task_id, topic=None)
        meta = json.dumps({"total": self.total, "digest": self._digest}, separators=(",", ":"))
        emb = self._mem.embedder_for(MemoryType.BATCH_OPERATION)  # its type's embedder (per-type embedders)
        batch = IngestBatch(turn=turn, upserts=[unit], embedder=emb.name,
                            vectors={unit.id: emb.embed_passages([content])[0]},
                            events=[UnitEvent(unit.id, now, "created", turn.turn_id, 1.0),
                                    UnitEvent(unit.id, now, "batch_created", meta)])
        with self._mem.placement_lock(self.user_id):
            existing = self._find_unit()
            if existing is not None:
                return existing
            self._store.commit_ingest(batch)
        return unit

    def _lifespan(self, since: datetime | None = None) -> int:
        base = int(self._mem.config.lifespan_of(MemoryType.BATCH_OPERATION))
        if since is None:
            return base
        return base + max(0, int((self._mem.clock() - since).total_seconds()))

    def _turn(self) -> TurnRecord:
        # the same key every time: the store keeps the first row and ignores the repeats
        return TurnRecord(key=self._turn_key, turn_id=f"batch:{self.task_id}",
                          session_id=self.session_id, user_id=self.user_id, role="tool",
                          text="", at=self._unit.created_at)

    # ------------------------------------------------------------------ running
    def status(self, item_id: str) -> Status:
        self._check_known(item_id)
        return self._state.status.get(item_id, "pending")

    def pending(self, *, retry_failed: bool = False) -> Iterator[str]:
        """The items not yet done, in order; each is recorded as started before it is yielded.
        Failed items are skipped unless ``retry_failed``."""
        for item in self.items:
            current = self._state.status.get(item, "pending")
            if current == "succeeded" or (current == "failed" and not retry_failed):
                continue
            self._commit([UnitEvent(self._unit.id, self._mem.clock(), "batch_started", item)],
                         update_unit=False)
            self._state.status[item] = "started"
            yield item

    def succeeded(self, item_id: str) -> BatchProgress:
        """Record a success (idempotent: a second call changes nothing)."""
        self._check_known(item_id)
        if self._state.status.get(item_id) == "succeeded":
            return self.progress()
        with self._rollback_on_error():
            self._state.status[item_id] = "succeeded"
            self._state.errors.pop(item_id, None)
            self._state.order.append(item_id)
            self._state.in_doubt.discard(item_id)
            self._commit([UnitEvent(self._unit.id, self._mem.clock(), "batch_succeeded",
                                    item_id)])
        return self.progress()

    def failed(self, item_id: str, error: object) -> BatchProgress:
        """Record a failure; the item is skipped from now on (``pending(retry_failed=True)``
        offers it again). Never raises for the failure itself."""
        self._check_known(item_id)
        if self._state.status.get(item_id) == "succeeded":
            raise ValidationError(f"item {item_id!r} already succeeded; it cannot fail now")
        message = (str(error) or type(error).__name__)[:MAX_ERROR_CHARS]
        detail = json.dumps({"item": item_id, "error": message}, ensure_ascii=False,
                            separators=(",", ":"))
        with self._rollback_on_error():
            self._state.status[item_id] = "failed"
            self._state.errors[item_id] = message
            self._state.in_doubt.discard(item_id)
            self._commit([UnitEvent(self._unit.id, self._mem.clock(), "batch_failed", detail)])
        return self.progress()

    def run(self, work: Callable[[str], object], *, retry_failed: bool = False) -> BatchProgress:
        """Call ``work(item)`` for every pending item; an exception marks the item failed."""
        for item in self.pending(retry_failed=retry_failed):
            try:
                work(item)
            except Exception as exc:  # a failing item is recorded and skipped
                self.failed(item, f"{type(exc).__name__}: {exc}")
            else:
                self.succeeded(item)
        return self.progress()

    def progress(self) -> BatchProgress:
        st = self._state
        failed = [FailedItem(item_id=i, error=st.errors.get(i, "")) for i in self.items
                  if st.status.get(i) == "failed"]
        completed = len(st.order)
        return BatchProgress(
            task_id=self.task_id, completed=completed, total=self.total,
            last_success_id=st.order[-1] if st.order else None, failed=failed,
            in_doubt=[i for i in self.items if i in st.in_doubt],
            remaining=self.total - completed - len(failed),
            done=completed + len(failed) >= self.total, content=self._unit.content)

    # ------------------------------------------------------------------ persistence
    def _check_known(self, item_id: str) -> None:
        if item_id not in self._known:
            raise ValidationError(f"{item_id!r} is not an item of batch task {self.task_id!r}")

    @contextmanager
    def _rollback_on_error(self) -> Iterator[None]:
        """Keep the in-memory state equal to the store's when a write fails."""
        saved = copy.deepcopy(self._state)
        try:
            yield
        except BaseException:
            self._state = saved
            raise

    def _commit(self, events: list[UnitEvent], *, update_unit: bool = True) -> None:
        emb = self._mem.embedder_for(MemoryType.BATCH_OPERATION)  # its type's embedder (per-type embedders)
        batch = IngestBatch(turn=self._turn(), events=events, embedder=emb.name)
        if update_unit:
            st = self._state
            failed = sum(1 for s in st.status.values() if s == "failed")
            content = progress_text(self.task_id, len(st.order), self.total,
                                    st.order[-1] if st.order else None, failed, self.language)
            data = self._unit.model_dump()
            data.update(content=content, content_hash="")
            data["lifespan"]["expires_in"] = self._lifespan(since=self._unit.created_at)
            unit = MemoryUnit.model_validate(data)
            batch.upserts.append(unit)
            if content != self._unit.content:
                batch.vectors[unit.id] = emb.embed_passages([content])[0]
            with self._mem.placement_lock(self.user_id):
                self._store.commit_ingest(batch)
            self._unit = unit
        else:
            with self._mem.placement_lock(self.user_id):
                self._store.commit_ingest(batch)
