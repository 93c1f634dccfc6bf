"""Isolation under concurrency: 16 threads + 4 processes, 500 users, mixed operations.

Each worker owns 25 users (it alone writes and erases them) and recalls ANY user. Every recalled
unit's user is checked (and the user marker inside its content); every acknowledged write must be
in the store at the end unless its user was erased after it (then it must be gone); no error
reaches a caller, "database is locked" least of all. ``JIYI_SOAK_SECONDS`` sets the duration per
backend (default 15 s in CI; the 2-minute run is ``JIYI_SOAK_SECONDS=120``).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from jiyi import Memory
from jiyi.errors import NotFoundError
from jiyi.store import Scope

SECONDS = float(os.environ.get("JIYI_SOAK_SECONDS", "15"))
N_USERS = 500
THREADS = 16
PROCESSES = 4
MARK = re.compile(r"QK(\d{3})")

TEXTS = [
    "我是用户QK{u:03d}，我的订单号是 ZD{u:03d}X{n}，电话 139{u:03d}{n:05d}",
    "QK{u:03d} 的訂單 TW{u:03d}Y{n} 已經寄到臺北",
    "User QK{u:03d} prefers delivery on weekends, order EN{u:03d}Z{n}",
    '{{"user": "QK{u:03d}", "order_id": "JS{u:03d}W{n}", "status": "shipped"}}',
]
QUERIES = ["我的订单号是多少", "訂單寄到哪裡", "when do I want delivery", "order status", "电话"]


def worker(mem: Memory, wid: int, seconds: float, seed: int) -> dict[str, Any]:
    """Mixed ingest / recall / feedback / erase until the time is up."""
    rng = random.Random(seed)
    own = list(range(wid * (N_USERS // (THREADS + PROCESSES)),
                     (wid + 1) * (N_USERS // (THREADS + PROCESSES))))
    acked: dict[str, list[str]] = {}
    unit_ids: dict[str, list[str]] = {}
    erased: dict[str, list[str]] = {}
    problems: list[str] = []
    counts = {"ingest": 0, "recall": 0, "feedback": 0, "erase": 0, "hits": 0}
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        op = rng.random()
        try:
            if op < 0.45:
                u = rng.choice(own)
                user, tid = f"user{u:03d}", f"w{wid}-{n}"
                k = n % len(TEXTS)
                units = mem.ingest(TEXTS[k].format(u=u, n=n), session_id=f"{user}-s{n % 3}",
                                   user_id=user, role="tool" if k == 3 else "user", turn_id=tid)
                acked.setdefault(user, []).append(tid)
                unit_ids.setdefault(user, []).extend(x.id for x in units)
                counts["ingest"] += 1
            elif op < 0.95:
                mine = op < 0.7
                u = rng.choice(own) if mine else rng.randrange(N_USERS)
                user = f"user{u:03d}"
                hits = mem.recall(rng.choice(QUERIES) + f" QK{u:03d}",
                                  session_id=f"{user}-s{n % 3}", user_id=user, k=5)
                counts["recall"] += 1
                counts["hits"] += len(hits)
                for h in hits:
                    marks = set(MARK.findall(h.unit.content))
                    if h.unit.user_id != user or marks - {f"{u:03d}"}:
                        problems.append(f"cross-user: {user} got {h.unit.user_id} "
                                        f"{h.unit.content!r}")
                if mine and hits and op < 0.55:
                    mem.feedback(rng.choice(hits).unit.id, rng.choice(["used", "ignored", "wrong"]))
                    counts["feedback"] += 1
            else:
                u = rng.choice(own)
                user = f"user{u:03d}"
                if op > 0.99 and acked.get(user):
                    mem.erase_user(user)
                    erased.setdefault(user, []).extend(acked.pop(user))
                    unit_ids.pop(user, None)
                    counts["erase"] += 1
        except NotFoundError:
            pass  # a feedback target superseded away: a documented answer, not a failure
        except Exception as exc:  # anything else reaching the caller is a failure
            problems.append(f"{type(exc).__name__}: {exc}")
        n += 1
    return {"acked": acked, "units": unit_ids, "erased": erased, "problems": problems,
            "counts": counts}


def child_main(url: str, wid: int, seconds: float, seed: int, out: str) -> None:
    """Entry point of a worker process: warm up, say READY, wait for GO, work."""
    with Memory.open(":memory:", embedder="fake") as warm:  # lazy parts loaded off the clock
        warm.ingest(TEXTS[0].format(u=0, n=0), session_id="warm")
        warm.recall("订单", session_id="warm")
    with Memory.open(url, embedder="fake") as mem:
        print("READY", flush=True)
        sys.stdin.readline()
        result = worker(mem, wid, seconds, seed)
    Path(out).write_text(json.dumps(result))


def _check(mem: Memory, results: list[dict[str, Any]]) -> dict[str, int]:
    problems = [p for r in results for p in r["problems"]]
    assert problems == [], problems[:10]
    lost: list[str] = []
    resurrected: list[str] = []
    for r in results:
        for user, tids in r["acked"].items():
            present = {t.turn_id for t in mem.store.recent_turns(Scope(user, None), 10**6)}
            lost += [f"{user}:{t}" for t in tids if t not in present]
            ids = list(dict.fromkeys(r["units"].get(user, [])))
            found = {x.id for x in mem.store.get_units(ids)}
            lost += [f"{user}:unit {i}" for i in ids if i not in found]
        for user, tids in r["erased"].items():
            present = {t.turn_id for t in mem.store.recent_turns(Scope(user, None), 10**6)}
            resurrected += [t for t in tids if t in present]
    assert lost == [], lost[:10]
    assert resurrected == []
    totals = {k: sum(r["counts"][k] for r in results) for k in results[0]["counts"]}
    assert totals["ingest"] > 0 and totals["recall"] > 0 and totals["hits"] > 0
    return totals


def test_mixed_soak_16_threads_4_processes(store_url: str, tmp_path: Path) -> None:
    seed = int(os.environ.get("JIYI_SOAK_SEED", str(random.randrange(10**6))))
    with Memory.open(store_url, embedder="fake") as warm:  # schema, and lazy parts loaded
        warm.ingest("预热 warm-up", session_id="warm")
        warm.erase_user("warm")
    here = str(Path(__file__).parent)
    procs = []
    for p in range(PROCESSES):
        wid = THREADS + p
        out = tmp_path / f"proc-{p}.json"
        code = (f"import sys; sys.path.insert(0, {here!r}); "
                f"from test_concurrency_mixed import child_main; "
                f"child_main({store_url!r}, {wid}, {SECONDS}, {seed + wid}, {str(out)!r})")
        procs.append((subprocess.Popen([sys.executable, "-c", code], env={**os.environ},
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True), out))
    for proc, _ in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "READY"
    for proc, _ in procs:
        assert proc.stdin is not None
        proc.stdin.write("GO\n")
        proc.stdin.flush()
    results: list[dict[str, Any]] = [{} for _ in range(THREADS)]
    mems = [Memory.open(store_url, embedder="fake") for _ in range(2)]
    try:
        def run(i: int) -> None:
            results[i] = worker(mems[i % 2], i, SECONDS, seed + i)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=SECONDS + 120)
        for proc, out in procs:
            _, err = proc.communicate(timeout=SECONDS + 120)
            assert proc.stdout is not None and proc.stdin is not None
            assert proc.returncode == 0, err[-2000:]
            results.append(json.loads(out.read_text()))
    finally:
        for m in mems:
            m.close()
    assert all(results), f"seed {seed}: a worker thread did not finish"
    with Memory.open(store_url, embedder="fake") as mem:
        totals = _check(mem, results)
    backend = "postgresql" if "://" in store_url else "sqlite"
    print(f"seed {seed} {backend}: {totals} in {SECONDS:.0f} s")
