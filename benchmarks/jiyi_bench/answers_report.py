"""The ``jiyi eval answers`` report: aggregates per plan, data set, category and language (pure),
its Markdown page and its chart."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .answers_score import JUDGE_SYSTEM
from .metrics import percentile
from .report import report_head

SCORE_KEYS = ("f1", "bleu1", "entities", "evidence_in_prompt")


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def aggregate(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Means of the scores (a failed answer was scored as the empty answer: 0), judge accuracy
    (CORRECT over all questions: a failed or unlabelled answer is not correct), prompt tokens,
    and latency percentiles over the answered questions."""
    ok = [r for r in rows if not r.get("error")]
    out: dict[str, Any] = {"questions": len(rows), "answered": len(ok),
                           "errors": len(rows) - len(ok)}
    for key in SCORE_KEYS:  # None: not applicable (no key entity, no gold evidence)
        out[key] = _mean([float(r[key]) for r in rows if r.get(key) is not None])
    judged = any("judge" in r for r in rows)
    out["judge_accuracy"] = (round(sum(1 for r in rows if r.get("judge") == "CORRECT")
                                   / len(rows), 4) if judged and rows else None)
    out["judge_unparsed"] = sum(1 for r in ok if "judge" in r and r["judge"] is None)
    for key in ("qwen_tokens", "server_tokens"):
        vals = [float(r[key]) for r in rows if r.get(key) is not None]
        out[f"{key}_mean"] = round(sum(vals) / len(vals), 1) if vals else None
        out[f"{key}_p95"] = percentile(vals, 95) if vals else None
    for key in ("first_token_s", "total_s"):
        vals = [float(r[key]) for r in ok if r.get(key) is not None]
        out[f"{key}_p50"] = round(percentile(vals, 50), 3) if vals else None
        out[f"{key}_p95"] = round(percentile(vals, 95), 3) if vals else None
    kept = [r for r in ok if r.get("turns_total")]
    if kept:
        out["history_share_shown"] = round(
            sum(r["turns_kept"] / r["turns_total"] for r in kept) / len(kept), 4)
    return out


def summarise(rows: Sequence[dict[str, Any]], plans: Sequence[str]) -> dict[str, Any]:
    """``{"overall": {plan: agg}, "by_dataset": {ds: {plan: agg}}, "by_category": ...,
    "by_language": ...}``."""
    def grouped(key: str) -> dict[str, dict[str, Any]]:
        groups: dict[str, dict[str, Any]] = {}
        names = sorted({str(r[key]) if key != "category" else f"{r['dataset']} {r['category']}"
                        for r in rows})
        for name in names:
            sel = [r for r in rows
                   if (f"{r['dataset']} {r['category']}" if key == "category" else str(r[key]))
                   == name]
            groups[name] = {p: aggregate([r for r in sel if r["plan"] == p]) for p in plans}
        return groups

    return {"overall": {p: aggregate([r for r in rows if r["plan"] == p]) for p in plans},
            "by_dataset": grouped("dataset"), "by_category": grouped("category"),
            "by_language": grouped("language")}


PLAN_LABELS = {"A": "A raw history", "B": "B jiyi build_prompt", "C": "C top-k recall"}


def _f(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table(groups: dict[str, dict[str, Any]], scope: str, judge: bool) -> list[str]:
    head = (f"| {scope} | plan | n | errors | F1 | BLEU-1 | entities |"
            + (" judge |" if judge else "")
            + " evidence shown | Qwen tok | server tok | first token p50/p95 s |"
              " total p50/p95 s |")
    cols = head.count("|") - 1
    lines = [head, "|" + "---|" * cols]
    for name, plans in groups.items():
        for plan, a in plans.items():
            if not a["questions"]:
                continue
            lines.append(
                f"| {name} | {PLAN_LABELS.get(plan, plan)} | {a['questions']} | {a['errors']} |"
                f" {_f(a['f1'])} | {_f(a['bleu1'])} | {_f(a['entities'])} |"
                + (f" {_f(a['judge_accuracy'])} |" if judge else "")
                + f" {_f(a['evidence_in_prompt'])} | {_f(a['qwen_tokens_mean'], 0)} |"
                  f" {_f(a['server_tokens_mean'], 0)} |"
                  f" {_f(a['first_token_s_p50'])} / {_f(a['first_token_s_p95'])} |"
                  f" {_f(a['total_s_p50'])} / {_f(a['total_s_p95'])} |")
    return lines


def _window_line(overall: dict[str, Any]) -> list[str]:
    a = overall.get("A") or {}
    if a.get("history_share_shown") is None:
        return []
    return [f"Plan A showed {a['history_share_shown']:.1%} of a user's history turns on average "
            "(the newest ones that fit the window).", ""]


def markdown(report: dict[str, Any], protocol: str, instructions: dict[str, str]) -> str:
    s, judge = report["summary"], report["judge"] is not None
    m = report["machine"]
    lines = [*report_head(f"Answers on {report['model']} (`jiyi eval answers`)", report)]
    if report.get("note"):
        lines += ["", f"**{report['note']}**"]
    lines += [
        "", f"Reader: `{report['reader']}` (model `{report['model']}`), window (num_ctx) "
        f"{report['num_ctx']} tokens, answers capped at {report['max_tokens']} tokens, "
        "temperature 0, streamed.  ",
        f"Judge: {'`' + report['judge'] + '`, temperature 0' if judge else 'none (no --judge)'}."
        "  ",
        f"Machine: {m['nproc']} cores, Python {m['python']}, {m['platform']}, load "
        f"{m.get('loadavg', '?')}.  ",
        f"Embedder: {report['embedder']}; token counter: {report['token_counter']}; plan C "
        f"shows the top {report['k']} units.  ",
        f"Questions: {report['questions']} ({', '.join(report['data'])}); "
        f"selection: {report['selection']}.", "",
        "## Overall", "", *table({"all": s["overall"]}, "scope", judge), "",
        *_window_line(s["overall"]),
        *([f"Judge: {sum(a['judge_unparsed'] for a in s['overall'].values())} answered "
           "questions got no label (the judge's reply named neither or both of CORRECT and "
           "WRONG); they count as not correct.", ""] if judge else []),
        "## Per data set", "", *table(s["by_dataset"], "data set", judge), "",
        "## Per category", "", *table(s["by_category"], "category", judge), "",
        "## Per language", "", *table(s["by_language"], "language", judge), "",
        "Columns: F1 and BLEU-1 against the gold answer (jiyi's segmentation: jieba for "
        "Chinese, words otherwise, after folding Traditional to Simplified); entities = share "
        "of the gold answer's content words found in the answer; judge = share of questions "
        "labelled CORRECT; evidence shown = share of the gold evidence turns the prompt "
        "contained (plan A: the turns kept in the window; B and C: the source turns of the "
        "recalled units); Qwen tok = the prompt counted with the Qwen2.5 vocabulary; server "
        "tok = the server's own count. A failed answer scores 0.", "",
        "## Protocol", "", protocol.strip(), "",
        "## Prompts", "",
        "Answer instruction (system message; the same in every plan):", "",
        *[f"- {key}: {text}" for key, text in instructions.items()], "",
        "Judge prompt (system message; then `Question: ... / Gold answer: ... / Generated "
        "answer: ... / Label:`):", "", f"> {JUDGE_SYSTEM}", "",
    ]
    if report.get("notes"):
        lines += ["## Notes", "", *[f"- {n}" for n in report["notes"]], ""]
    return "\n".join(lines)


def chart(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = report["summary"]
    plans = list(s["overall"])
    metrics = ["f1", "entities"] + (["judge_accuracy"] if report["judge"] else [])
    datasets = list(s["by_dataset"])
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.8 / max(1, len(plans))
    ax = axes[0]
    short = {"f1": "F1", "entities": "entities", "judge_accuracy": "judge"}
    groups = [f"{d}\n{short[m]}" for d in datasets for m in metrics]
    for i, plan in enumerate(plans):
        vals = [s["by_dataset"][d][plan].get(m) or 0.0 for d in datasets for m in metrics]
        ax.bar([g + i * width for g in range(len(groups))], vals, width,
               label=PLAN_LABELS.get(plan, plan))
    ax.set_xticks([g + width * (len(plans) - 1) / 2 for g in range(len(groups))], groups,
                  fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_title(f"Answer quality, {report['model']}")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax = axes[1]
    toks = [s["overall"][p].get("qwen_tokens_mean") or 0.0 for p in plans]
    ax.bar([PLAN_LABELS.get(p, p) for p in plans], toks, color="tab:gray")
    ax.set_title("Prompt tokens (Qwen2.5, mean)")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
