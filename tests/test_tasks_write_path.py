"""Batch tasks write through the one write path (``Memory.placement_lock``), like ``ingest``.

Two checks that fail when a task commits around the lock: an instrumented store records whether
each commit ran inside the user's placement lock, and two writers opening the same task at once
(each embedding after finding no unit) leave one task unit, not two.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

from jiyi import Memory
from jiyi.store import IngestBatch, Scope
from jiyi.tasks import BatchTask
from jiyi.units import MemoryType

ITEMS = ["a-1", "a-2", "a-3"]


class LockRecorder:
    """Wraps a store's ``placement_lock`` and ``commit_ingest``: for every commit, was the lock
    of the batch's user held by the committing thread?"""

    def __init__(self, mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
        self.commits: list[tuple[str, bool]] = []
        self._held = threading.local()
        store = mem.store
        real_lock = store.placement_lock
        real_commit = store.commit_ingest

        @contextmanager
        def placement_lock(user_id: str) -> Iterator[None]:
            with real_lock(user_id):
                self._held.users = {*self._users(), user_id}
                try:
                    yield
                finally:
                    self._held.users = self._users() - {user_id}

        def commit_ingest(batch: IngestBatch) -> None:
            self.commits.append((batch.turn.user_id, batch.turn.user_id in self._users()))
            real_commit(batch)

        monkeypatch.setattr(store, "placement_lock", placement_lock)
        monkeypatch.setattr(store, "commit_ingest", commit_ingest)

    def _users(self) -> set[str]:
        users: set[str] = getattr(self._held, "users", set())
        return users


def test_every_task_commit_holds_the_users_placement_lock(
    any_mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = LockRecorder(any_mem, monkeypatch)
    any_mem.ingest("我叫王芳，订单号是 XY789", session_id="s1", user_id="u1")
    assert recorder.commits == [("u1", True)]  # the instrument sees the ingest path's lock

    task = any_mem.batch("T1", ITEMS, session_id="s1", user_id="u1")
    for item in task.pending():
        if item == "a-2":
            task.failed(item, "库存接口超时")
        else:
            task.succeeded(item)
    assert task.progress().completed == 2
    task_commits = recorder.commits[1:]
    # created, then per item: started + (succeeded | failed)
    assert len(task_commits) == 1 + 2 * len(ITEMS)
    assert task_commits == [("u1", True)] * len(task_commits)


class _WaitingEmbedder:
    """Delegates to a real embedder, but ``embed_passages`` waits until ``parties`` threads
    are embedding: each has already looked for the task's unit and found none."""

    def __init__(self, inner: Any, barrier: threading.Barrier) -> None:
        self._inner = inner
        self._barrier = barrier

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def embed_passages(self, texts: Sequence[str]) -> Any:
        self._barrier.wait(timeout=30)
        return self._inner.embed_passages(texts)


def test_two_writers_opening_one_task_make_one_unit(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    barrier = threading.Barrier(2)
    with Memory.open(store_url, embedder="fake") as first, \
            Memory.open(store_url, embedder="fake") as second:
        for mem in (first, second):
            inner = mem.embedder_for(MemoryType.BATCH_OPERATION)
            monkeypatch.setattr(mem, "embedder_for",
                                lambda _t, inner=inner: _WaitingEmbedder(inner, barrier))
        opened: list[BatchTask] = []
        errors: list[BaseException] = []

        def open_task(mem: Memory) -> None:
            try:
                opened.append(mem.batch("导入订单", ITEMS, session_id="s2", user_id="u2"))
            except BaseException as exc:  # reported below, not lost in the thread
                errors.append(exc)

        threads = [threading.Thread(target=open_task, args=(m,)) for m in (first, second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not errors, errors
        assert len(opened) == 2
        units = first.store.find_units(Scope(user_id="u2", session_id="s2"), as_of=None,
                                       types=[MemoryType.BATCH_OPERATION])
        assert len(units) == 1, [u.id for u in units]
        assert {t.unit.id for t in opened} == {units[0].id}
        monkeypatch.undo()  # embed without waiting from here on
        # both runners see the same task: one resumes what the other recorded
        task_a, task_b = opened
        task_a.succeeded("a-1")
        assert first.batch("导入订单", ITEMS, session_id="s2", user_id="u2"
                           ).progress().completed == 1
        assert task_b.unit.content == "批量任务 导入订单 进度：已完成 0/3"
