"""``jiyi bench write --batch-compare``: bulk import at the embedder's pace.

On the same generated turns (``jiyi bench write``'s mixed zh-Hans, zh-Hant and en conversation)
and in one run, so machine noise hits all three alike, it times: the embedder's own batch rate
on the raw turn texts (one ``embed_passages`` call, the ceiling), ``Memory.ingest`` one turn at
a time, and ``Memory.ingest_many`` (each on a fresh SQLite file). Rounds alternate the three.
The target is ingest_many >= 0.8x the embedder's batch rate, in turns per second.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from jiyi.embed import Embedder
from jiyi.embed.registry import get_embedder
from jiyi.memory import Memory

from .report import report_head
from .write_workload import START, GenTurn, generate, machine

TARGET_RATIO = 0.8


class CountingEmbedder:
    """Wraps an embedder and counts its calls and texts (what ingest asked it to embed)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.calls = 0
        self.texts = 0
        self.seen: list[str] = []

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray[Any, Any]:
        self.calls += 1
        self.texts += len(texts)
        self.seen.extend(texts)
        out: np.ndarray[Any, Any] = self.inner.embed_passages(texts)
        return out

    def embed_query(self, text: str) -> np.ndarray[Any, Any]:
        out: np.ndarray[Any, Any] = self.inner.embed_query(text)
        return out


def _turn_dicts(conv: Sequence[GenTurn]) -> list[dict[str, Any]]:
    return [{"text": t.text, "session_id": "bench", "user_id": "u1", "role": t.role, "at": t.at,
             "turn_id": f"t{i}", "speaker": t.speaker} for i, t in enumerate(conv)]


def time_embedder(emb: Embedder, conv: Sequence[GenTurn]) -> dict[str, Any]:
    texts = [t.text for t in conv]
    t0 = time.perf_counter()
    emb.embed_passages(texts)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "turns_per_s": len(texts) / seconds}


def time_ingest(emb: Embedder, conv: Sequence[GenTurn], *, batched: bool,
                batch_size: int) -> dict[str, Any]:
    counting = CountingEmbedder(emb)
    with tempfile.TemporaryDirectory() as tmp, \
            Memory.open(str(Path(tmp) / "bench.db"), embedder=counting) as mem:
        mem.ingest("预热 warm-up 订单ABC123", session_id="warm", at=START)
        counting.calls = counting.texts = 0
        counting.seen.clear()
        turns = _turn_dicts(conv)
        t0 = time.perf_counter()
        if batched:
            results = mem.ingest_many(turns, batch_size=batch_size)
        else:
            results = [mem.ingest(t["text"], session_id=t["session_id"], user_id=t["user_id"],
                                  role=t["role"], at=t["at"], turn_id=t["turn_id"],
                                  speaker=t["speaker"]) for t in turns]
        seconds = time.perf_counter() - t0
        units = mem.store.stats().units_total
    out = {"seconds": seconds, "turns_per_s": len(conv) / seconds,
           "embedder_calls": counting.calls, "texts_embedded": counting.texts,
           "units": units, "returned": sum(len(r) for r in results)}
    if batched:  # the embedder alone on exactly the texts this ingest embedded, in one call
        t0 = time.perf_counter()
        emb.embed_passages(counting.seen)
        out["embedding_only_seconds"] = time.perf_counter() - t0
    return out


def run(turns: int, seed: int, embedder: str, rounds: int, batch_size: int) -> dict[str, Any]:
    conv = generate(turns, seed)
    emb = get_embedder(embedder)
    emb.embed_passages(["预热 warm-up"])  # load the model before any timing
    rows: list[dict[str, Any]] = []
    for r in range(rounds):
        row = {"round": r + 1,
               "embedder": time_embedder(emb, conv),
               "ingest": time_ingest(emb, conv, batched=False, batch_size=batch_size),
               "ingest_many": time_ingest(emb, conv, batched=True, batch_size=batch_size)}
        rows.append(row)

    def med(key: str) -> float:
        return float(statistics.median(float(r[key]["turns_per_s"]) for r in rows))

    summary = {"embedder_turns_per_s": med("embedder"), "ingest_turns_per_s": med("ingest"),
               "ingest_many_turns_per_s": med("ingest_many")}
    summary["ingest_many_vs_embedder"] = summary["ingest_many_turns_per_s"] / summary[
        "embedder_turns_per_s"]
    summary["ingest_vs_embedder"] = summary["ingest_turns_per_s"] / summary[
        "embedder_turns_per_s"]
    summary["ingest_many_vs_ingest"] = summary["ingest_many_turns_per_s"] / summary[
        "ingest_turns_per_s"]
    summary["target_met"] = summary["ingest_many_vs_embedder"] >= TARGET_RATIO
    return {"command": f"jiyi bench write --batch-compare --turns {turns} --embedders "
                       f"{embedder} --rounds {rounds} --batch-size {batch_size}",
            "date": datetime.now(UTC).isoformat(timespec="seconds"), "turns": turns,
            "seed": seed, "embedder": emb.name, "batch_size": batch_size,
            "machine": machine(), "rounds": rows, "summary": summary}


def render_md(result: dict[str, Any]) -> str:
    m, s = result["machine"], result["summary"]
    lines = [
        *report_head("Bulk ingest at the embedder's pace (`jiyi bench write --batch-compare`)", result),
        f"Turns: {result['turns']} generated turns of `jiyi bench write` (zh-Hans, zh-Hant, en; "
        f"user, assistant, tool; long turns; seed {result['seed']})  ",
        f"Embedder: {result['embedder']}; ingest_many batch size {result['batch_size']}  ",
        f"Machine: nproc {m['nproc']}, Python {m['python']}, {m['platform']}, "
        f"load {m['loadavg']} (shared with other jobs)", "", "```", m["free_h"], "```", "",
        "Each round times the three on the same texts, one after the other; the table's rates "
        "are per round, the summary takes the median over rounds.", "",
        "| round | embedder batch (turn texts/s) | ingest one by one (turns/s) | ingest_many "
        "(turns/s) | ingest_many / embedder | texts embedded per turn (many) | embedder "
        "calls (one by one / many) | share of ingest_many spent embedding |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    n = result["turns"]
    for r in result["rounds"]:
        e, one, many = r["embedder"], r["ingest"], r["ingest_many"]
        lines.append(
            f"| {r['round']} | {e['turns_per_s']:.1f} | {one['turns_per_s']:.1f} | "
            f"{many['turns_per_s']:.1f} | {many['turns_per_s'] / e['turns_per_s']:.2f}x | "
            f"{many['texts_embedded'] / n:.2f} | {one['embedder_calls']} / "
            f"{many['embedder_calls']} | "
            f"{many['embedding_only_seconds'] / many['seconds']:.0%} |")
    verdict = "MET" if s["target_met"] else "MISSED"
    lines += [
        "", "## Summary (medians)", "",
        f"- embedder's own batch rate: {s['embedder_turns_per_s']:.1f} turn texts/s",
        f"- `Memory.ingest` one by one: {s['ingest_turns_per_s']:.1f} turns/s "
        f"({s['ingest_vs_embedder']:.2f}x the embedder)",
        f"- `Memory.ingest_many`: {s['ingest_many_turns_per_s']:.1f} turns/s "
        f"({s['ingest_many_vs_embedder']:.2f}x the embedder, "
        f"{s['ingest_many_vs_ingest']:.2f}x one by one)",
        f"- Target: ingest_many >= {TARGET_RATIO}x the embedder's batch rate: "
        f"**{verdict}** ({s['ingest_many_vs_embedder']:.2f}x).", "",
        "The embedder's rate embeds each turn's text once. The write path embeds more than "
        "that: every unit's content and the raw turn (the episodic layer), each distinct text "
        "once per batch (a unit whose content is the whole turn shares the turn's vector), so "
        "`texts embedded per turn` above 1 is work the ceiling does not do. The last column "
        "times the embedder alone on exactly the texts ingest_many embedded (one call) and "
        "divides by ingest_many's time: what is left is the write path itself (extraction, "
        "placement, SQLite).", ""]
    return "\n".join(lines)


def bench_batch_compare(turns: int, seed: int, embedder: str, rounds: int, batch_size: int,
                        out: Path, name: str) -> dict[str, Any]:
    result = run(turns, seed, embedder, rounds, batch_size)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{name}.json").write_text(
        json.dumps(result, ensure_ascii=False, indent=2) + "\n", "utf-8")
    (out_dir / f"{name}.md").write_text(render_md(result), "utf-8")
    return result
