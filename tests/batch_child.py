"""Child process of test_batch_kill.py: runs a batch task, acks each success on stdout.

    python batch_child.py DB SIDE_FILE N_ITEMS [SLEEP_S]

The "work" for an item appends its id to SIDE_FILE (flushed and fsynced), so an item done twice
shows up twice. An item the previous run started but never finished (``task.in_doubt``) is checked
against SIDE_FILE first: that is how work that is not idempotent resumes safely. ``item-13``
always fails (recorded and skipped, never fatal).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from jiyi import Memory


def main() -> int:
    db, side, n = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    pause = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    items = [f"item-{i}" for i in range(n)]
    with Memory.open(db, embedder="fake") as mem:
        task = mem.batch("T1", items, session_id="batch-s", user_id="u1", language="zh")
        print("in_doubt", " ".join(sorted(task.in_doubt)) or "-", flush=True)
        for item in task.pending():
            if item == "item-13":
                task.failed(item, "供应商接口返回 503")
                print("failed", item, flush=True)
                continue
            done_before = item in task.in_doubt and item in side.read_text().split()
            if not done_before:
                with side.open("a") as fh:
                    fh.write(item + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
            if pause:
                time.sleep(pause)
            task.succeeded(item)
            print("ack", item, flush=True)
        print("done", task.progress().completed, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
