"""A batch task survives ``kill -9`` mid-run; a new process resumes with nothing done twice.

A real child process (tests/batch_child.py) runs the task and acks each recorded success on
stdout; the parent SIGKILLs it after some acks, checks what the store says, then runs a new
child to the end. The child's "work" appends to a side file, so an item done twice is visible.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from jiyi import Memory

CHILD = Path(__file__).with_name("batch_child.py")
N_ITEMS = 60
KILL_AFTER = 20


def _spawn(db: str, side: Path, pause: float) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, str(CHILD), db, str(side), str(N_ITEMS), str(pause)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _run_until_acks(proc: subprocess.Popen[str], n: int) -> list[str]:
    assert proc.stdout is not None
    acked: list[str] = []
    for line in proc.stdout:
        if line.startswith("ack "):
            acked.append(line.split()[1])
            if len(acked) >= n:
                proc.send_signal(signal.SIGKILL)
                break
    proc.communicate(timeout=60)  # drains and closes the pipes
    return acked


@pytest.mark.timeout(180)
@pytest.mark.parametrize("pause", [0.0, 0.02])
def test_kill_9_then_resume_does_every_item_exactly_once(tmp_path: Path, pause: float) -> None:
    db = str(tmp_path / "memory.db")
    side = tmp_path / "work.log"
    side.write_text("")

    first = _spawn(db, side, pause)
    acked_first = _run_until_acks(first, KILL_AFTER)
    assert first.returncode == -signal.SIGKILL
    assert len(acked_first) == KILL_AFTER

    # What a fresh process sees right after the kill: every ack is durable, at most the one
    # item in flight is in doubt, nothing was done twice.
    items = [f"item-{i}" for i in range(N_ITEMS)]
    with Memory.open(db, embedder="fake") as mem:
        task = mem.batch("T1", items, session_id="batch-s", user_id="u1", language="zh")
        progress = task.progress()
        assert progress.completed >= KILL_AFTER - 1  # item-13 failed, it is not "completed"
        assert set(acked_first) <= {i for i in items if task.status(i) == "succeeded"}
        assert len(task.in_doubt) <= 1
        assert progress.failed and progress.failed[0].item_id == "item-13"
        assert "供应商接口返回 503" in progress.failed[0].error
        assert f"已完成 {progress.completed}/{N_ITEMS}" in task.unit.content
    counts = Counter(side.read_text().split())
    assert max(counts.values()) == 1

    second = _spawn(db, side, 0.0)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    acked_second = [line.split()[1] for line in out.splitlines() if line.startswith("ack ")]
    assert not set(acked_first) & set(acked_second), "a recorded success was done again"

    counts = Counter(side.read_text().split())
    expected = [i for i in items if i != "item-13"]
    assert sorted(counts) == sorted(expected)
    assert set(counts.values()) == {1}, {k: v for k, v in counts.items() if v > 1}

    with Memory.open(db, embedder="fake") as mem:
        task = mem.batch("T1", items, session_id="batch-s", user_id="u1", language="zh")
        final = task.progress()
        assert (final.completed, final.total, final.done) == (N_ITEMS - 1, N_ITEMS, True)
        assert final.last_success_id == f"item-{N_ITEMS - 1}"
        assert final.in_doubt == []
        assert list(task.pending()) == []  # the failed item is skipped, not retried
        events = Counter(e.event for e in mem.history(task.unit.id).events)
        assert events["batch_succeeded"] == N_ITEMS - 1
        assert events["batch_failed"] == 1
        hits = mem.recall("进度如何？", session_id="batch-s", user_id="u1", k=3)
        assert hits and hits[0].unit.id == task.unit.id
        assert f"已完成 {N_ITEMS - 1}/{N_ITEMS}" in hits[0].unit.content
