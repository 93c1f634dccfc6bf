"""Batch tasks: progress in a batch_operation unit, failures recorded and skipped, resume,
and "how far along?" answered by recall. (The kill -9 test is test_batch_kill.py.)"""

from __future__ import annotations

import pytest

from jiyi import Memory
from jiyi.errors import MissingSessionError, ValidationError
from jiyi.store import Scope
from jiyi.tasks import fold_events, progress_text
from jiyi.units import MemoryType

ITEMS = [f"item-{i}" for i in range(10)]


def test_progress_lives_in_one_unit_updated_in_place(any_mem: Memory) -> None:
    task = any_mem.batch("T1", ITEMS, session_id="s1", user_id="u1", language="zh")
    unit_id = task.unit.id
    assert task.unit.type == MemoryType.BATCH_OPERATION
    assert task.unit.content == "批量任务 T1 进度：已完成 0/10"
    for item in task.pending():
        if item == "item-3":
            task.failed(item, ValueError("库存接口超时"))
        else:
            task.succeeded(item)
        if item == "item-5":
            break
    progress = task.progress()
    assert (progress.completed, progress.total, progress.last_success_id) == (5, 10, "item-5")
    assert [(f.item_id, f.error) for f in progress.failed] == [("item-3", "库存接口超时")]
    assert task.unit.id == unit_id
    assert task.unit.content == "批量任务 T1 进度：已完成 5/10，最后成功 item-5，失败 1 项"
    units = any_mem.store.find_units(Scope(user_id="u1", session_id="s1"), as_of=None,
                                     types=[MemoryType.BATCH_OPERATION])
    assert [u.id for u in units] == [unit_id]  # one current unit per task
    assert any_mem.get(unit_id).content == task.unit.content

    resumed = any_mem.batch("T1", ITEMS, session_id="s1", user_id="u1")
    assert resumed.unit.id == unit_id
    assert resumed.progress().model_dump() == progress.model_dump()
    assert list(resumed.pending()) == [f"item-{i}" for i in range(6, 10)]
    assert next(iter(resumed.pending(retry_failed=True))) == "item-3"


def test_run_records_failures_and_never_stops(mem: Memory) -> None:
    done: list[str] = []

    def work(item: str) -> None:
        if item.endswith("7"):
            raise RuntimeError("boom")
        done.append(item)

    task = mem.batch("import-orders", ITEMS, session_id="s2")
    final = task.run(work)
    assert done == [i for i in ITEMS if i != "item-7"]
    assert final.done and final.completed == 9 and final.remaining == 0
    assert final.failed[0].error == "RuntimeError: boom"
    assert task.unit.content == ("Batch task import-orders progress: 9/10 done, last success "
                                 "item-9, 1 failed, all processed")
    assert task.succeeded("item-9").completed == 9  # idempotent
    retry = task.run(done.append, retry_failed=True)
    assert retry.completed == 10 and retry.failed == [] and done[-1] == "item-7"
    events = [e.event for e in mem.history(task.unit.id).events]
    assert events.count("batch_succeeded") == 10 and events.count("batch_failed") == 1


@pytest.mark.parametrize(("question", "task_id", "language"), [
    ("进度如何？", "导入任务", None),
    ("任務進度如何？", "T2", "zh"),
    ("how far along?", "sync-job", "en"),
    ("How many are done?", "sync-job", "en"),
])
def test_progress_questions_are_answered_by_recall(
    mem: Memory, question: str, task_id: str, language: str | None
) -> None:
    mem.ingest("我叫张伟，订单号是 ABC12345", session_id="s3")
    mem.ingest("I prefer delivery in the evening after 6pm", session_id="s3")
    task = mem.batch(task_id, ITEMS, session_id="s3", language=language)
    for n, item in enumerate(task.pending()):
        if n == 4:
            break
        task.succeeded(item)
    hits = mem.recall(question, session_id="s3", k=3)
    assert hits[0].unit.id == task.unit.id, [h.unit.content for h in hits]
    assert "4/10" in hits[0].unit.content


def test_bad_input_is_a_clear_error(mem: Memory) -> None:
    with pytest.raises(MissingSessionError):
        mem.batch("T1", ITEMS, session_id=None)
    with pytest.raises(ValidationError, match="twice"):
        mem.batch("T1", ["a", "b", "a"], session_id="s4")
    with pytest.raises(ValidationError, match="not one string"):
        mem.batch("T1", "abc", session_id="s4")
    with pytest.raises(ValidationError, match="one word"):
        mem.batch("T 1", ITEMS, session_id="s4")
    with pytest.raises(ValidationError, match="one word"):
        mem.batch("T" * 41, ITEMS, session_id="s4")
    task = mem.batch("T1", ITEMS, session_id="s4")
    with pytest.raises(ValidationError, match="not an item"):
        task.succeeded("item-99")
    task.succeeded("item-0")
    with pytest.raises(ValidationError, match="already succeeded"):
        task.failed("item-0", "late")
    with pytest.raises(ValidationError, match="different item list"):
        mem.batch("T1", [*ITEMS, "item-10"], session_id="s4")
    # the same task id in another session is another task
    assert mem.batch("T1", ["x"], session_id="s5").progress().total == 1


def test_long_ids_never_overflow_the_unit() -> None:
    long_id = "x" * 200
    text = progress_text("T" * 40, 5, 100000, long_id, 3, "zh")
    assert len(text) <= 150 and "最后成功" not in text and "失败 3 项" in text
    assert progress_text("T1", 2, 2, "b", 0, "en").endswith("all processed")
    assert fold_events([]).status == {}
