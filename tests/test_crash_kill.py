"""Crash safety: ingest is ``kill -9``-ed at random points, >= 200 times, then checked.

A warm "zygote" process (jiyi imported, jieba loaded) forks one short-lived child per trial; the
child opens the store and ingests turns in a loop, appending ``turn_id`` and unit ids to an ack
file with an unbuffered ``os.write`` after each ``ingest`` call RETURNS (kernel-side, so it
survives the kill). The test kills the child with SIGKILL 50-400 ms after it starts. Afterwards:
``PRAGMA integrity_check`` is ok; every acknowledged turn is there with all its units, vectors,
FTS rows and provenance; and no record in the store is half there.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jiyi import Memory

KILLS = int(os.environ.get("JIYI_CRASH_KILLS", "200"))

ZYGOTE = r"""
import os, signal, sys, json
from datetime import datetime, timedelta, timezone
from jiyi import Memory
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped automatically
TEXTS = [
    "我叫王{n}，手机号是138{n:08d}，订单号 ORD{n}X",
    "我搬到台北了，新地址是信義路{n}號，電話 0912{n:06d}",
    "Please remember my order AB{n}CD ships to Berlin, phone +49 151 {n:07d}",
    '{{"order_id": "ZX{n}", "status": "shipped", "eta_days": {n}}}',
    "预算大约{n}元，想买蓝牙耳机。我不喜欢红色的。",
]
with Memory.open(":memory:", embedder="fake") as warm:  # load every lazy part once, pre-fork
    for k, text in enumerate(TEXTS):
        warm.ingest(text.format(n=k), session_id="w", role="tool" if k == 3 else "user")
    warm.recall("手机号 phone", session_id="w")
print("READY", flush=True)
for line in sys.stdin:
    db, ack, seed = line.split()
    pid = os.fork()
    if pid:
        print(pid, flush=True)
        continue
    # ---- child: ingest until killed
    fd = os.open(ack, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    mem = Memory.open(db, embedder="fake")
    i = 0
    while True:
        n = int(seed) * 1000 + i
        k = n % len(TEXTS)
        role = "tool" if k == 3 else "user"
        tid = f"k{seed}-{i}"
        units = mem.ingest(TEXTS[k].format(n=n), session_id=f"s{int(seed) % 7}",
                           user_id=f"u{int(seed) % 3}", role=role, turn_id=tid)
        os.write(fd, (tid + "\t" + ",".join(u.id for u in units) + "\n").encode())
        i += 1
"""


@pytest.fixture
def zygote() -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen([sys.executable, "-c", ZYGOTE], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env={**os.environ})
    assert proc.stdout is not None and proc.stdout.readline().strip() == "READY"
    yield proc
    proc.kill()
    proc.wait(timeout=10)
    proc.stdin.close()  # type: ignore[union-attr]
    proc.stdout.close()


def _run_trials(zygote: subprocess.Popen[str], db: Path, ack: Path, kills: int,
                rng: random.Random) -> int:
    assert zygote.stdin is not None and zygote.stdout is not None
    done = 0
    for trial in range(kills):
        zygote.stdin.write(f"{db} {ack} {trial}\n")
        zygote.stdin.flush()
        pid = int(zygote.stdout.readline())
        time.sleep(rng.uniform(0.05, 0.4))
        os.kill(pid, signal.SIGKILL)
        for _ in range(200):  # wait until the child is gone (auto-reaped by the zygote)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.005)
        done += 1
    return done


def _acks(ack: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in ack.read_text().splitlines():
        tid, _, ids = line.partition("\t")
        out[tid] = [i for i in ids.split(",") if i]
    return out


def _check_store(db: Path, acked: dict[str, list[str]]) -> None:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        turns = dict(conn.execute("SELECT turn_id, key FROM turns").fetchall())
        units = {r[0] for r in conn.execute("SELECT id FROM units")}
        vectors = {r[0] for r in conn.execute("SELECT unit_id FROM unit_vectors")}
        fts: dict[str, int] = {}
        for (uid,) in conn.execute("SELECT unit_id FROM units_fts"):
            fts[uid] = fts.get(uid, 0) + 1
        links = set(conn.execute("SELECT unit_id, turn_key FROM unit_turns").fetchall())
        turn_keys = set(turns.values())
        # every acknowledged ingest is fully there
        missing = []
        for tid, ids in acked.items():
            if tid not in turns:
                missing.append(f"turn {tid}")
                continue
            for uid in ids:
                if uid not in units or uid not in vectors or fts.get(uid) != 1:
                    missing.append(f"unit {uid} of {tid}")
                elif (uid, turns[tid]) not in links:
                    missing.append(f"provenance {uid} <- {tid}")
        assert missing == []
        # nothing is half there, acknowledged or not
        linked_units = {u for u, _ in links}
        assert units <= vectors and units <= set(fts) and units <= linked_units
        assert all(n == 1 for n in fts.values())
        assert vectors <= units and set(fts) <= units
        assert linked_units <= units and {t for _, t in links} <= turn_keys
        events = {r[0] for r in conn.execute("SELECT DISTINCT unit_id FROM unit_events")}
        assert units <= events
    finally:
        conn.close()


def test_kill_minus_nine_during_ingest(zygote: subprocess.Popen[str], tmp_path: Path) -> None:
    seed = int(os.environ.get("JIYI_CRASH_SEED", str(random.randrange(10**6))))
    rng = random.Random(seed)
    db, ack = tmp_path / "crash.db", tmp_path / "acks.txt"
    ack.touch()
    started = time.monotonic()
    kills = _run_trials(zygote, db, ack, KILLS, rng)
    acked = _acks(ack)
    assert kills >= KILLS and len(acked) > KILLS, f"seed {seed}: too few acks ({len(acked)})"
    _check_store(db, acked)
    # and the store opens and answers after all that
    with Memory.open(str(db), embedder="fake") as mem:
        hits = mem.recall("我的手机号是多少", session_id="s1", user_id="u1", k=5)
        assert all(h.unit.user_id == "u1" for h in hits)
        mem.ingest("最后一条 after the crashes", session_id="s1", user_id="u1", turn_id="final")
    _check_store(db, {**acked, "final": []})
    print(f"seed {seed}: {kills} kills, {len(acked)} acknowledged ingests, "
          f"{time.monotonic() - started:.1f} s")
