"""The episodic search of one big user with and without the running sums (issue 21, item 2).

``python -m jiyi_bench.bench_turn_sums URL --turns 40000 --queries 60``: one user with
``--turns`` random unit vectors (384 dimensions) in a new store at ``URL`` (a SQLite path or a
PostgreSQL URL), then, alternating per query: the search as recall runs it (the z-scale from
the sums) and the same search through the scan (a window from 1970: the path every search took
before the sums), timed; then the write cost: a one-turn commit with and without the user's
sums row. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from datetime import UTC, datetime, timedelta

import numpy as np

from jiyi.clock import utc_now
from jiyi.store import open_store
from jiyi.store.base import TurnRecord

EPOCH = datetime(1970, 1, 2, tzinfo=UTC)
EMBEDDER = "bench-384"
DIM = 384


def _unit_rows(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal((n, DIM)).astype(np.float32) + 0.3  # cosines around 0.08, like text
    out: np.ndarray = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    return out


def _turns(start: int, n: int, user: str) -> list[TurnRecord]:
    t0 = utc_now() - timedelta(days=400)
    return [TurnRecord(key=f"{user}-t{i}", turn_id=f"t{i}", session_id="s", user_id=user,
                       role="user", text="x", at=t0 + timedelta(minutes=i))
            for i in range(start, start + n)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--turns", type=int, default=40_000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--writes", type=int, default=40)
    args = ap.parse_args()
    rng = np.random.default_rng(5)
    store = open_store(args.url)
    try:
        t = time.perf_counter()
        step = 2000
        for start in range(0, args.turns, step):
            n = min(step, args.turns - start)
            store.put_turn_vectors(EMBEDDER, _turns(start, n, "big"), list(_unit_rows(rng, n)))
        build = time.perf_counter() - t
        queries = _unit_rows(rng, args.queries)
        fast: list[float] = []
        scan: list[float] = []
        gap = 0.0
        for q in queries:
            for path in ("fast", "scan"):
                t = time.perf_counter()
                since = EPOCH if path == "scan" else None
                res = store.turn_vector_search("big", utc_now(), EMBEDDER, q, 10, since=since)
                (fast if path == "fast" else scan).append((time.perf_counter() - t) * 1000)
                if path == "fast":
                    a = res
                else:
                    gap = max(gap, abs(a.mean - res.mean), abs(a.std - res.std))
                    assert [k for k, _ in a.hits] == [k for k, _ in res.hits] and a.n == res.n
        # write cost: one-turn commits for the big user (sums row) and a small one (none)
        writes: dict[str, list[float]] = {"big": [], "small": []}
        for i in range(args.writes):
            for user in ("big", "small"):
                turn = _turns(args.turns + i, 1, user)
                vec = list(_unit_rows(rng, 1))
                t = time.perf_counter()
                store.put_turn_vectors(EMBEDDER, turn, vec)
                writes[user].append((time.perf_counter() - t) * 1000)
    finally:
        store.close()

    def p(v: list[float], q: int) -> float:
        return round(float(np.percentile(v, q)), 2)

    print(f"{store.backend}, one user with {args.turns} turn vectors ({DIM} dimensions),"
          f" {args.queries} searches each way, alternating; built in {build:.1f} s;"
          f" {platform.node()} {platform.python_version()}")
    print()
    print("| path | p50 ms | p95 ms | mean ms |")
    print("|---|---:|---:|---:|")
    print(f"| search, z-scale from the sums | {p(fast, 50)} | {p(fast, 95)} |"
          f" {round(statistics.mean(fast), 2)} |")
    print(f"| search, z-scale by the scan (before) | {p(scan, 50)} | {p(scan, 95)} |"
          f" {round(statistics.mean(scan), 2)} |")
    print(f"| one-turn write, user with sums | {p(writes['big'], 50)} | {p(writes['big'], 95)} |"
          f" {round(statistics.mean(writes['big']), 2)} |")
    print(f"| one-turn write, user without | {p(writes['small'], 50)} |"
          f" {p(writes['small'], 95)} | {round(statistics.mean(writes['small']), 2)} |")
    print()
    print(f"largest |difference| of mean or std between the two: {gap:.2e}; same top 10 ids")


if __name__ == "__main__":
    main()
