"""What ``PRAGMA synchronous`` costs on ingest: NORMAL (the default) vs FULL (vs OFF, reference).

Two measures per setting, each on a fresh SQLite file in WAL mode:
  * store commits/s: ``SQLiteStore.commit_ingest`` of a ready batch (one turn, 3 units with
    vectors, FTS rows, events) - the storage cost alone;
  * ``Memory.ingest`` turns/s with the fake embedder - the whole write path (a real embedder adds
    ~10 ms per unit on top, which hides the difference further).

Run:  .venv/bin/python benchmarks/sync_cost.py [--commits 2000] [--turns 300]
Writes docs/benchmarks/durability-sync.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sqlite3
import subprocess
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from jiyi import Memory
from jiyi.store.base import IngestBatch, TurnRecord, UnitEvent
from jiyi.store.sqlite import SQLiteStore
from jiyi.units import Lifespan, MemoryType, MemoryUnit, content_hash, new_unit_id

T0 = datetime(2026, 5, 1, tzinfo=UTC)
TEXTS = ["我叫张伟，电话13812345678，订单号 AB{n}", "我的訂單 TW{n} 已經寄到臺北",
         "Please ship order EN{n} to Berlin on Friday"]


def _batch(n: int, rng: np.random.Generator) -> IngestBatch:
    at = T0 + timedelta(seconds=n)
    turn = TurnRecord(key=f"k{n}", turn_id=f"t{n}", session_id=f"s{n % 10}", user_id=f"u{n % 5}",
                      role="user", text=TEXTS[n % 3].format(n=n), at=at)
    batch = IngestBatch(turn=turn, embedder="fake-64")
    for j in range(3):
        content = f"{turn.text} part {j}"
        unit = MemoryUnit(id=new_unit_id(), content=content, type=MemoryType.FACT_REFERENCE,
                          lifespan=Lifespan(created_at=at, expires_in=86400), session_id=turn.session_id,
                          user_id=turn.user_id, source_turn_ids=[turn.turn_id],
                          content_hash=content_hash(turn.user_id, content))
        batch.upserts.append(unit)
        vec = rng.normal(size=64).astype(np.float32)
        batch.vectors[unit.id] = vec / np.linalg.norm(vec)
        batch.events.append(UnitEvent(unit.id, at, "created", turn.turn_id, 1.0))
    return batch


def bare_commits(sync: str, commits: int, workdir: Path) -> float:
    """Commits/s of a one-row transaction: the cost of the sync setting itself."""
    conn = sqlite3.connect(workdir / f"bare-{sync}.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {sync}")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    start = time.perf_counter()
    for n in range(commits):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (v) VALUES (?)", (f"row {n}",))
        conn.execute("COMMIT")
    rate = commits / (time.perf_counter() - start)
    conn.close()
    return rate


def measure(sync: str, commits: int, turns: int, workdir: Path) -> tuple[float, float, float]:
    bare = bare_commits(sync, commits, workdir)
    rng = np.random.default_rng(1)
    batches = [_batch(n, rng) for n in range(commits)]
    store = SQLiteStore(str(workdir / f"commit-{sync}.db"), synchronous=sync)
    start = time.perf_counter()
    for b in batches:
        store.commit_ingest(b)
    commit_rate = commits / (time.perf_counter() - start)
    store.close()
    mem = Memory(SQLiteStore(str(workdir / f"ingest-{sync}.db"), synchronous=sync), embedder="fake")
    mem.ingest("warm up 预热", session_id="w")
    start = time.perf_counter()
    for n in range(turns):
        mem.ingest(TEXTS[n % 3].format(n=n), session_id=f"s{n % 10}", user_id=f"u{n % 5}")
    ingest_rate = turns / (time.perf_counter() - start)
    mem.close()
    return bare, commit_rate, ingest_rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default="docs/benchmarks/durability-sync.md")
    parser.add_argument("--dir", default=None, help="where the test files go (the disk measured)")
    args = parser.parse_args()
    best: dict[str, tuple[float, float, float]] = {}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        (Path(tmp) / "warm").mkdir()
        measure("OFF", 20, 5, Path(tmp) / "warm")  # warm-up: segmenter, write path
        for round_ in range(args.rounds):  # interleaved rounds; the best of each is kept
            for sync in ("OFF", "NORMAL", "FULL"):
                work = Path(tmp) / f"r{round_}"
                work.mkdir(exist_ok=True)
                got = measure(sync, args.commits, args.turns, work)
                old = best.get(sync, (0.0, 0.0, 0.0))
                best[sync] = (max(old[0], got[0]), max(old[1], got[1]), max(old[2], got[2]))
                print(f"round {round_} {sync:6s} bare commits/s {got[0]:8.0f}  store commits/s "
                      f"{got[1]:8.0f}  Memory.ingest turns/s {got[2]:6.1f}")
    rows = [(sync, *rates) for sync, rates in best.items()]
    base = {r[0]: r for r in rows}["NORMAL"]
    free = subprocess.run(["free", "-h"], capture_output=True, text=True).stdout.strip()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        "# Durability setting: cost of `synchronous` on ingest (SQLite, WAL)",
        "",
        f"Generated {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `python benchmarks/sync_cost.py "
        f"--commits {args.commits} --turns {args.turns} --rounds {args.rounds}` (best of the "
        f"interleaved rounds). Machine: nproc {os.cpu_count()}, "
        f"Python {platform.python_version()}, load average {load} (shared machine), "
        f"SQLite {sqlite3.sqlite_version}.",
        "",
        f"```\n{free}\n```",
        "",
        "| synchronous | bare commits/s (1-row txn) | vs NORMAL | store commits/s (1 turn + 3 "
        "units each) | vs NORMAL | Memory.ingest turns/s (fake embedder) | vs NORMAL |",
        "|---|---|---|---|---|---|---|",
    ]
    for sync, b, c, i in rows:
        lines.append(f"| {sync} | {b:.0f} | {b / base[1]:.2f}x | {c:.0f} | {c / base[2]:.2f}x | "
                     f"{i:.1f} | {i / base[3]:.2f}x |")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
