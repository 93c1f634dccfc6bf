"""``jiyi bench recall --profile``: where a recall's milliseconds go, stage by stage.

The stage times are the recall's own timers (:func:`jiyi.timing.recall_stage`, the ones
that feed ``jiyi_recall_seconds{stage}``): the measurement installs a :class:`StageRecorder` as
the memory's observer, exactly where the HTTP service installs its Prometheus metrics, so what
is printed here is what a running service exports, per recall instead of per histogram bucket.

The store is the scale benchmark's generated zh-Hans/zh-Hant/en corpus
(:func:`jiyi_bench.bench_scale.build_store`: users of a heavy-tailed size, a raw turn with its own
vector per unit, the FTS body of content + source turn), built once into ``--workdir`` and
reused. Recalls are measured in steady state: each sampled user is recalled once before the
timing starts (that loads the user's resident vector tables, as a busy server has them). The
default embedder's single-query time is measured in the same process, on the same query text,
right before each recall, so the ratio recall / embedding is taken under the same load.

``--baseline-src DIR`` runs the same measurement with the sources in ``DIR`` (e.g. an export of
an earlier commit) in alternating subprocesses on the same store: the before/after table of
one run, whose ratios survive a shared, loaded machine.
"""

from __future__ import annotations

import cProfile
import io
import json
import os
import platform
import pstats
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from .metrics import percentile

#: The recall's stages in the order they run (labels of ``jiyi_recall_seconds``).
STAGES: tuple[str, ...] = ("rule", "query", "keyword", "prefetch", "embed", "vector",
                           "turn_vector", "topic", "read", "rerank", "multihop", "post")
STAGE_MEANING: dict[str, str] = {
    "rule": "stage 1: exact entities and slot questions (store lookups)",
    "query": "query enhancement: vague-reference expansion, time window, keyword terms",
    "keyword": "keyword search of units (BM25, with its score scale)",
    "prefetch": "reading the rule and keyword candidates (units, source turns) while the"
                " query is embedded",
    "embed": "query embedding (the default embedder); with the embedding on a worker thread,"
             " the wait for it after the stages above",
    "vector": "vector search of units",
    "turn_vector": "vector search of the raw turns (episodic layer, with its z scale)",
    "topic": "topic tracking (topic switches)",
    "read": "candidate reads: units, source turns, units of found turns, replaced slots"
            " (after the vector searches: what the prefetch did not read)",
    "rerank": "scoring and sorting the candidates (no store access)",
    "multihop": "replies after questions / second hop (store lookups)",
    "post": "prompt-independent post-processing: diversity, cut to k",
}
TARGET_RATIO = 1.3


class StageRecorder:
    """A :class:`jiyi.health.MemoryObserver` keeping every recall's stage times (seconds)."""

    def __init__(self) -> None:
        self._current: dict[str, float] = {}
        self.records: list[dict[str, float]] = []

    def observe_stage(self, stage: str, seconds: float) -> None:
        self._current[stage] = self._current.get(stage, 0.0) + seconds

    def observe_recall(self, seconds: float, hit_stages: Sequence[str]) -> None:
        record = dict(self._current)
        record["total"] = seconds
        self.records.append(record)
        self._current = {}

    def observe_ingest(self, seconds: float, units: int) -> None:
        """Not measured here."""


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def ensure_store(workdir: Path, units: int, embedder: str) -> tuple[Path, dict[str, Any]]:
    """The generated store of ``units`` units in ``workdir`` (built on first use) and its
    description (``sizes``: units per user)."""
    from .bench_scale import build_store

    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"recall-{units}.db"
    meta_path = workdir / f"recall-{units}.json"
    if path.exists() and meta_path.exists():
        meta: dict[str, Any] = json.loads(meta_path.read_text())
        return path, meta
    distinct = min(3000, max(50, units // 10))
    meta = build_store(path, units, distinct=distinct, big_share=0.0, embedder=embedder,
                       vectors_cache=workdir / f"vectors-{embedder.replace(':', '_')}"
                                               f"-{distinct}.npy")
    meta_path.write_text(json.dumps(meta))
    return path, meta


def measure(store_path: str, sizes: Sequence[int], embedder: str, queries: int, users: int,
            seed: int = 5, cprofile_out: str | None = None) -> dict[str, Any]:
    """Time ``queries`` recalls of ``users`` sampled users (steady state) with their stages,
    and the embedder's single query on the same text before each."""
    from jiyi.config import JiyiConfig
    from jiyi.embed import get_embedder
    from jiyi.memory import Memory
    from jiyi.store import open_store

    from .bench_scale import _session_of
    from .scale_corpus import QUERIES

    rng = random.Random(seed)
    emb = get_embedder(embedder)
    owners = [u for u, n in enumerate(sizes) if n > 0]
    sample = rng.sample(owners, min(users, len(owners)))
    recorder = StageRecorder()
    profiler = cProfile.Profile() if cprofile_out else None
    embed_ms: list[float] = []
    wall_ms: list[float] = []
    with Memory(open_store(store_path), embedder=emb, config=JiyiConfig()) as mem:
        mem.metrics = recorder
        for u in sample:  # steady state: every sampled user's tables resident
            mem.recall("warm up 预热", session_id=_session_of(u, 0), user_id=f"u{u}", log=False)
        recorder.records.clear()
        for _ in range(queries):
            u = rng.choice(sample)
            text = rng.choice(QUERIES)
            t = time.perf_counter()
            emb.embed_query(text)
            embed_ms.append((time.perf_counter() - t) * 1000)
            if profiler is not None:
                profiler.enable()
            t = time.perf_counter()
            hits = mem.recall(text, session_id=_session_of(u, 0), user_id=f"u{u}", k=10,
                              log=False)
            wall_ms.append((time.perf_counter() - t) * 1000)
            if profiler is not None:
                profiler.disable()
            if any(h.unit.user_id != f"u{u}" for h in hits):
                raise AssertionError("recall returned another user's unit")
    if profiler is not None and cprofile_out:
        buf = io.StringIO()
        pstats.Stats(profiler, stream=buf).sort_stats("cumulative").print_stats(45)
        Path(cprofile_out).write_text(buf.getvalue(), encoding="utf-8")
    stage_ms = {s: [r.get(s, 0.0) * 1000 for r in recorder.records] for s in (*STAGES, "total")}
    other = [r["total"] * 1000 - sum(r.get(s, 0.0) * 1000 for s in STAGES)
             for r in recorder.records]
    without_embed = [t - e for t, e in zip(stage_ms["total"], stage_ms["embed"], strict=True)]
    return {
        "queries": queries, "users": len(sample), "embedder": emb.name,
        "stages_ms": {s: summary(v) for s, v in stage_ms.items()},
        "unattributed_ms": summary(other),
        "without_embed_ms": summary(without_embed),
        "wall_ms": summary(wall_ms),
        "embed_single_ms": summary(embed_ms),
        "ratio_p50": round(percentile(stage_ms["total"], 50) / max(1e-9,
                                                                    percentile(embed_ms, 50)), 2),
        "samples": {"total": [round(x, 3) for x in stage_ms["total"]],
                    "embed_single": [round(x, 3) for x in embed_ms]},
    }


def summary(values: Sequence[float]) -> dict[str, float]:
    return {"p50": round(percentile(values, 50), 3), "p95": round(percentile(values, 95), 3),
            "mean": round(float(np.mean(values)) if len(values) else 0.0, 3)}


def measure_in_subprocess(src: Path | None, store_path: Path, sizes_path: Path, embedder: str,
                          queries: int, users: int, seed: int) -> dict[str, Any]:
    """:func:`measure` in a fresh interpreter whose ``jiyi`` comes from ``src`` (None: this
    one's), so an earlier version of the recall code is measured on the same store."""
    import jiyi

    env = dict(os.environ)
    here = str(Path(jiyi.__file__).resolve().parents[1])  # the sources of this interpreter's jiyi
    harness = str(Path(__file__).resolve().parents[1])  # this harness package, for both variants
    env["PYTHONPATH"] = os.pathsep.join([str(src) if src is not None else here, harness])
    cmd = [sys.executable, "-m", "jiyi_bench.bench_recall_profile", str(store_path),
           str(sizes_path), embedder, str(queries), str(users), str(seed)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"measurement with {src or here} failed: {done.stderr.strip()[-800:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def merge_runs(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Rounds of the same variant as one: percentiles recomputed over all recalls."""
    if len(runs) == 1:
        return dict(runs[0])
    total = [x for r in runs for x in r["samples"]["total"]]
    embed = [x for r in runs for x in r["samples"]["embed_single"]]
    out = dict(runs[-1])
    out["rounds"] = len(runs)
    out["queries"] = sum(int(r["queries"]) for r in runs)
    def mean_of(stats: Sequence[dict[str, float]]) -> dict[str, float]:
        return {k: round(float(np.mean([x[k] for x in stats])), 3) for k in ("p50", "p95", "mean")}

    nil = {"p50": 0.0, "p95": 0.0, "mean": 0.0}
    out["stages_ms"] = {s: mean_of([r["stages_ms"].get(s, nil) for r in runs])
                        for s in dict.fromkeys(k for r in runs for k in r["stages_ms"])}
    for key in ("unattributed_ms", "without_embed_ms", "wall_ms"):
        out[key] = mean_of([r[key] for r in runs])
    out["stages_ms"]["total"] = summary(total)
    out["embed_single_ms"] = summary(embed)
    out["ratio_p50"] = round(percentile(total, 50) / max(1e-9, percentile(embed, 50)), 2)
    out["samples"] = {"total": total, "embed_single": embed}
    return out


def run_profile(*, units: int, queries: int, users: int, embedder: str, workdir: Path,
                baseline_src: Path | None, rounds: int, cprofile_out: Path | None,
                seed: int = 5) -> dict[str, Any]:
    """Build or reuse the store, then measure (and the baseline, alternating, when given)."""
    from .locomo_cmd import machine

    started = time.time()
    load_start = load_average()
    path, meta = ensure_store(workdir, units, embedder)
    sizes_path = workdir / f"recall-{units}.sizes.json"
    sizes_path.write_text(json.dumps(meta["sizes"]))
    after: list[dict[str, Any]] = []
    before: list[dict[str, Any]] = []
    for r in range(rounds):
        if baseline_src is not None:
            before.append(measure_in_subprocess(baseline_src, path, sizes_path, embedder,
                                                queries, users, seed + r))
        if cprofile_out is not None and r == rounds - 1:
            after.append(measure(str(path), meta["sizes"], embedder, queries, users, seed + r,
                                 str(cprofile_out)))
        else:
            after.append(measure_in_subprocess(None, path, sizes_path, embedder, queries,
                                               users, seed + r))
    m = machine()
    m["cpu_model"] = cpu_model()
    result: dict[str, Any] = {
        "units": units, "store": {k: v for k, v in meta.items() if k != "sizes"},
        "started": datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
        "elapsed_s": round(time.time() - started, 1), "machine": m,
        "load_start": load_start, "load_end": load_average(), "target_ratio": TARGET_RATIO,
        "rounds": rounds, "after": merge_runs(after),
        "before": merge_runs(before) if before else None,
        "baseline_src": str(baseline_src) if baseline_src is not None else None,
    }
    return result


def _row(name: str, stats: dict[str, Any], base: dict[str, Any] | None, meaning: str) -> str:
    if base is None:
        return f"| {name} | {stats['p50']} | {stats['p95']} | {stats['mean']} | {meaning} |"
    return (f"| {name} | {base['p50']} → **{stats['p50']}** | {base['p95']} → **{stats['p95']}**"
            f" | {base['mean']} → **{stats['mean']}** | {meaning} |")


def write_report(result: dict[str, Any], out_dir: Path, command: str,
                 stem: str = "recall-profile") -> tuple[Path, Path]:
    """``<stem>.json`` and ``<stem>.md`` in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    result = dict(result, command=command)
    json_path, md_path = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
    slim = json.loads(json.dumps(result))
    for side in ("after", "before"):
        if slim.get(side):
            slim[side].pop("samples", None)
    json_path.write_text(json.dumps(slim, indent=2, ensure_ascii=False), encoding="utf-8")
    a, b = result["after"], result.get("before")
    m = result["machine"]
    store = result["store"]
    head = "before → **after**" if b else "ms"
    lines = [
        "# Where a recall's milliseconds go (`jiyi bench recall --profile`)", "",
        f"{result['units']:,} units, {store.get('users', '?')} users (median"
        f" {store.get('user_units_median', '?')} units per user); {a['queries']} recalls"
        f" (k=10) of {a['users']} sampled users in steady state (each recalled once before"
        f" timing); query embedding with `{a['embedder']}` included. Stage times come from the"
        " recall's own timers (`jiyi_recall_seconds{stage}`); each stage is timed on its own, so"
        " they add up to at most the total. Times in ms.", "",
        f"| stage | p50 ({head}) | p95 | mean | what |", "|---|---:|---:|---:|---|",
    ]
    nil = {"p50": 0.0, "p95": 0.0, "mean": 0.0}  # a stage an older version did not time
    for s in STAGES:
        lines.append(_row(s, a["stages_ms"].get(s, nil),
                          b["stages_ms"].get(s, nil) if b else None, STAGE_MEANING[s]))
    lines.append(_row("unattributed", a["unattributed_ms"], b["unattributed_ms"] if b else None,
                      "outside the stages: argument checks, the call's own overhead"))
    lines.append(_row("**total**", a["stages_ms"]["total"], b["stages_ms"]["total"] if b else None,
                      "`Memory.recall`, as `jiyi_recall_seconds{stage=\"total\"}`"))
    lines.append(_row("total − embed", a["without_embed_ms"],
                      b["without_embed_ms"] if b else None, "what is not the query embedding"))
    lines.append(_row("embedder alone", a["embed_single_ms"],
                      b["embed_single_ms"] if b else None,
                      "`embed_query` on the same text just before each recall"))
    verdict = "met" if a["ratio_p50"] <= result["target_ratio"] else "missed"
    lines += ["", f"**Recall p50 / embedder single-query p50: {a['ratio_p50']}×"
                  + (f" (before: {b['ratio_p50']}×)" if b else "")
                  + f"; target ≤ {result['target_ratio']}×: {verdict}.**", ""]
    if b:
        lines += [f"Before = the sources in `{result['baseline_src']}`, measured in alternating"
                  f" subprocesses with the after code on the same store ({result['rounds']}"
                  " round(s) each); percentiles of a stage are averaged over rounds, the total's"
                  " and the embedder's are taken over all recalls.", ""]
    lines += [
        "## Machine", "",
        f"- {m['cpu_model']}, nproc {m['nproc']}; Python {m['python']}; {m['platform']}",
        f"- load average (1, 5, 15 min) at start: {result['load_start']}, at end:"
        f" {result['load_end']} (the cores are shared with other work: read the ratios)",
        f"- started {result['started']}, {result['elapsed_s']} s wall", "",
        "```", m["free_h"], "```", "", f"Command: `{command}`", "",
    ]
    md_path.write_text("\n".join(lines), encoding="utf-8")
    return json_path, md_path


def _main(argv: Sequence[str]) -> None:
    """``python -m jiyi_bench.bench_recall_profile STORE SIZES_JSON EMBEDDER Q USERS SEED``:
    one measurement as a JSON line (what :func:`measure_in_subprocess` runs)."""
    store, sizes_json, embedder, queries, users, seed = argv
    sizes = json.loads(Path(sizes_json).read_text())
    print(json.dumps(measure(store, sizes, embedder, int(queries), int(users), int(seed))))


if __name__ == "__main__":
    _main(sys.argv[1:])
