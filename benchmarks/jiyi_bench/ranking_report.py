"""Writing a :class:`~jiyi_bench.ranking.RankingResult`: Markdown table, JSON, PNG bar chart."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .locomo_cmd import machine, machine_line
from .ranking import LABELS, SHORT, RankingResult


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def table(result: RankingResult) -> str:
    """One row per (group, system): every metric over all cases, then recall@k per split."""
    splits = result.splits() if len(result.splits()) > 1 else []
    split_cols = [(f"recall@{k}", sp) for k in result.ks for sp in splits]
    head = (["group", "system", "n"] + result.metrics
            + [f"{m} {sp}" for m, sp in split_cols])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for g in result.groups():
        for s in result.systems():
            cells = [g, LABELS.get(s, s), str(result.count(s, g))]
            cells += [_fmt(result.mean(s, m, g)) for m in result.metrics]
            cells += [_fmt(result.mean(s, m, g, sp)) for m, sp in split_cols]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def chart(result: RankingResult, path: Path, title: str) -> None:
    """Grouped bars of recall@k (first k) and nDCG@k per group; ASCII labels only."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = [f"recall@{result.ks[0]}", f"recall@{result.ks[-1]}", f"ndcg@{result.ks[-1]}"]
    metrics = list(dict.fromkeys(metrics))
    groups, systems = result.groups(), result.systems()
    fig, axes = plt.subplots(1, len(metrics), figsize=(4.2 * len(metrics), 4), sharey=True,
                             squeeze=False)
    width = 0.8 / max(1, len(systems))
    for ax, metric in zip(axes[0], metrics, strict=True):
        for i, s in enumerate(systems):
            vals = [result.mean(s, metric, g) or 0.0 for g in groups]
            ax.bar([x + i * width for x in range(len(groups))], vals, width, label=SHORT[s])
        ax.set_xticks([x + width * (len(systems) - 1) / 2 for x in range(len(groups))],
                      [g.encode("ascii", "replace").decode() for g in groups])
        ax.set_title(metric)
        ax.set_ylim(0, 1)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def report_dict(result: RankingResult, name: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {"benchmark": name, "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": " ".join(["jiyi", *sys.argv[1:]]) if sys.argv else "",
            "machine": machine(), "ks": list(result.ks), "ingest": result.ingest,
            "notes": result.notes, "summary": result.summary(), **extra}


def markdown(report: dict[str, Any], table_md: str, title: str, protocol: str) -> str:
    lines = [f"# {title}", "", f"Measured {report['date']} with `{report['command']}`.", "",
             machine_line(report["machine"]), "",
             table_md, "", "## Protocol", "", protocol.strip(), ""]
    if report["notes"]:
        lines += ["## Notes", ""] + [f"- {n}" for n in report["notes"]] + [""]
    lines += ["## Ingest", "", f"`{json.dumps(report['ingest'])}`", ""]
    return "\n".join(lines)


def write_outputs(result: RankingResult, out_dir: Path, name: str, title: str, protocol: str,
                  extra: dict[str, Any] | None = None, png: bool = True) -> dict[str, Any]:
    """``<name>.md`` / ``.json`` (and ``.png``) in ``out_dir``; returns the JSON report."""
    out_dir.mkdir(parents=True, exist_ok=True)
    report = report_dict(result, name, extra or {})
    table_md = table(result)
    (out_dir / f"{name}.json").write_text(json.dumps(report, indent=2, ensure_ascii=False),
                                          encoding="utf-8")
    (out_dir / f"{name}.md").write_text(markdown(report, table_md, title, protocol),
                                        encoding="utf-8")
    if png:
        chart(result, out_dir / f"{name}.png", title)
    return report
