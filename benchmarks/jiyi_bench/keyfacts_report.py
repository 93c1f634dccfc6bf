"""The key-facts report: cells per split x bank x language x kind x system, Markdown, JSON, PNG.

A cell averages each measure over the questions where it is defined (``None`` left out) and
keeps that count. ``kind`` ``all`` is every question about a current value (past questions are
their own kinds), ``lang`` / ``bank`` ``all`` pool the languages / the split's banks. A cell's
``split`` is ``dev`` (the development banks a and b, pooled), ``dev <bank>`` (a development
bank that was held out before, d, e and f: each apart) or ``held-out <bank>``: each held-out
bank (c, g) is a split of its own, never pooled with the development banks nor with another
held-out bank.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .keyfacts import LABELS, LONG_TURN, SYSTEMS, KeyfactsRun, Row, latency
from .keyfacts_bank import DEV as DEV_BANKS
from .keyfacts_bank import FORMER_HELD_OUT, HELD_OUT, LANGS
from .keyfacts_corpus import SLOTS, VERSION
from .locomo_cmd import machine, machine_line

MEASURES = ("found", "found_current", "replaced", "as_current", "valid_as_current", "expired_listed",
            "expired_as_current", "past_labelled")
KINDS = (*SLOTS, "all", "phone_past", "address_past")
DEV = "dev"


def split_key(split: str, bank: str) -> str:
    """The report's split of a question: ``dev`` for the development banks a and b,
    ``dev <bank>`` for a development bank held out before (apart), ``held-out <bank>`` for a
    held-out one (each apart)."""
    if split == DEV:
        return f"{DEV} {bank}" if bank in FORMER_HELD_OUT else DEV
    return f"held-out {bank}"


def split_title(split: str, banks: Sequence[str] = ()) -> str:
    """``dev A+B`` (the pooled development banks: ``banks``, or every one not reported apart),
    ``dev D (held out until stop 30)``, ``dev E (held out until stop 31)``, ``Held-out bank
    C``."""
    if split == DEV:
        names = banks or [b for b in DEV_BANKS if b not in FORMER_HELD_OUT]
        return f"{DEV} " + "+".join(b.upper() for b in names)
    if split.startswith(f"{DEV} "):
        bank = split.removeprefix(f"{DEV} ")
        until = FORMER_HELD_OUT.get(bank)
        return f"{DEV} {bank.upper()}" + (f" (held out until stop {until})" if until else "")
    return f"Held-out bank {split.removeprefix('held-out ').upper()}"


def _banks_of(idx: dict[tuple[str, str, str, str, str], dict[str, Any]], split: str
              ) -> list[str]:
    return sorted({k[1] for k in idx if k[0] == split and k[1] != "all"})


def splits_of(keys: Any) -> list[str]:
    """The splits among cell keys (or cells' split names): ``dev`` first, then ``dev <bank>``,
    then the held-out banks by name."""
    names = {k[0] if isinstance(k, tuple) else k for k in keys}
    return sorted(names, key=lambda s: (s != DEV, not s.startswith(DEV), s))


def cells(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Every (split, bank, lang, kind, system) cell, with ``all`` pooling banks / languages /
    current-value kinds within a split (see :func:`split_key`)."""
    buckets: dict[tuple[str, str, str, str, str], list[Row]] = {}
    for r in rows:
        q = r.question
        split = split_key(q.split, q.bank)
        kinds = (q.kind,) if q.past else (q.kind, "all")
        for bank in (q.bank, "all"):
            for lang in (q.lang, "all"):
                for kind in kinds:
                    buckets.setdefault((split, bank, lang, kind, r.system), []).append(r)
    out = []
    for (split, bank, lang, kind, system), rs in buckets.items():
        cell: dict[str, Any] = {"split": split, "bank": bank, "lang": lang, "kind": kind,
                                "system": system, "questions": len(rs)}
        counts: dict[str, int] = {}
        for m in MEASURES:
            vals = [v for r in rs if (v := r.score.get(m)) is not None]
            if vals:
                cell[m] = round(sum(vals) / len(vals), 4)
                counts[m] = len(vals)
        cell["counts"] = counts
        out.append(cell)
    order = {k: i for i, k in enumerate(KINDS)}
    langs = {k: i for i, k in enumerate((*LANGS, "all"))}
    out.sort(key=lambda c: (c["split"] != DEV, not c["split"].startswith(DEV), c["split"],
                            c["bank"] == "all", c["bank"],
                            order.get(c["kind"], 99), langs.get(c["lang"], 9),
                            SYSTEMS.index(c["system"])))
    return out


def _index(cs: Sequence[dict[str, Any]]) -> dict[tuple[str, str, str, str, str], dict[str, Any]]:
    return {(c["split"], c["bank"], c["lang"], c["kind"], c["system"]): c for c in cs}


def _f(cell: dict[str, Any] | None, m: str) -> str:
    if cell is None or m not in cell:
        return "-"
    return f"{cell[m]:.2f}"


def _kinds_table(idx: dict[tuple[str, str, str, str, str], dict[str, Any]], split: str,
                 bank: str, per_lang: bool) -> list[str]:
    head = ["kind", "lang", "n", "found jiyi", "found dense", "found BM25",
            "found as current jiyi", "replaced jiyi", "replaced dense", "replaced BM25",
            "as current jiyi"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    langs = [*LANGS, "all"] if per_lang else ["all"]
    for kind in KINDS:
        if kind.endswith("_past"):
            continue
        for lang in langs:
            j = idx.get((split, bank, lang, kind, "jiyi"))
            if j is None:
                continue
            d = idx.get((split, bank, lang, kind, "dense"))
            b = idx.get((split, bank, lang, kind, "bm25"))
            name = "**all key facts**" if kind == "all" else kind
            lines.append("| " + " | ".join([
                name, lang, str(j["questions"]), _f(j, "found"), _f(d, "found"), _f(b, "found"),
                _f(j, "found_current"), _f(j, "replaced"), _f(d, "replaced"), _f(b, "replaced"),
                _f(j, "as_current")]) + " |")
    return lines


def _coupon_table(idx: dict[tuple[str, str, str, str, str], dict[str, Any]],
                  split: str) -> list[str]:
    head = ["lang", "n", "valid listed jiyi", "dense", "BM25", "valid as current jiyi",
            "expired listed jiyi", "dense", "BM25", "expired as current jiyi"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lang in (*LANGS, "all"):
        j = idx.get((split, "all", lang, "coupon", "jiyi"))
        if j is None:
            continue
        d = idx.get((split, "all", lang, "coupon", "dense"))
        b = idx.get((split, "all", lang, "coupon", "bm25"))
        lines.append("| " + " | ".join([
            lang, str(j["questions"]), _f(j, "found"), _f(d, "found"), _f(b, "found"),
            _f(j, "valid_as_current"), _f(j, "expired_listed"), _f(d, "expired_listed"),
            _f(b, "expired_listed"), _f(j, "expired_as_current")]) + " |")
    return lines


def _past_table(idx: dict[tuple[str, str, str, str, str], dict[str, Any]],
                split: str) -> list[str]:
    head = ["kind", "lang", "n", "old value found jiyi", "dense", "BM25",
            "labelled history jiyi"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for kind in ("phone_past", "address_past"):
        for lang in (*LANGS, "all"):
            j = idx.get((split, "all", lang, kind, "jiyi"))
            if j is None:
                continue
            d = idx.get((split, "all", lang, kind, "dense"))
            b = idx.get((split, "all", lang, kind, "bm25"))
            lines.append("| " + " | ".join([kind, lang, str(j["questions"]), _f(j, "found"),
                                            _f(d, "found"), _f(b, "found"),
                                            _f(j, "past_labelled")]) + " |")
    return lines


def _overview(idx: dict[tuple[str, str, str, str, str], dict[str, Any]]) -> list[str]:
    """One row per split and language: all key facts, replaced, coupons, past questions."""
    head = ["split", "lang", "n", "found jiyi", "found dense", "found BM25",
            "found as current jiyi", "replaced jiyi", "replaced dense", "replaced BM25",
            "as current jiyi", "valid coupons listed jiyi", "expired coupons as current jiyi",
            "past value found jiyi"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for split in splits_of(idx):
        for lang in (*LANGS, "all"):
            j = idx.get((split, "all", lang, "all", "jiyi"))
            if j is None:
                continue
            d = idx.get((split, "all", lang, "all", "dense"))
            b = idx.get((split, "all", lang, "all", "bm25"))
            c = idx.get((split, "all", lang, "coupon", "jiyi"))
            past = [idx.get((split, "all", lang, k, "jiyi")) for k in ("phone_past",
                                                                       "address_past")]
            pn = sum((p or {}).get("counts", {}).get("found", 0) for p in past)
            pv = (sum((p or {}).get("found", 0.0) * (p or {}).get("counts", {}).get("found", 0)
                      for p in past) / pn) if pn else None
            lines.append("| " + " | ".join([
                split_title(split, _banks_of(idx, split)), lang, str(j["questions"]), _f(j, "found"), _f(d, "found"),
                _f(b, "found"), _f(j, "found_current"), _f(j, "replaced"), _f(d, "replaced"),
                _f(b, "replaced"), _f(j, "as_current"), _f(c, "found"), _f(c, "expired_as_current"),
                "-" if pv is None else f"{pv:.2f}"]) + " |")
    return lines


PROTOCOL = """\
- **Corpus** (seeded, `--users`, `--seed`): each user gets one phrasing bank and one language
  (round-robin: every bank x language cell has the same number of users, within one; banks d,
  e, f and g, added later, each get a block of their own after them, in that order, as many
  users as the most a round-robin bank gets, each from its own random stream, so the users of
  a, b and c are those a run without d-g has, and an added bank's users are the same whichever
  other banks run), 3-5
  sessions 2-9 days apart, and a random subset (at least four) of the ten slots. A statement
  comes in an early session; a change (phone, email, address, membership upgrade, delivery
  time, contact channel) in a later one; one of two or three liked foods may be negated later;
  2-4 coupons carry an expiry date written in the language ("5月3日", "May 3, 2026"), some
  before the question time, some after; an order id comes with a tool turn (an order lookup).
  Between the facts: the bank's noise turns (chit-chat, other topics), assistant replies, tool
  calls (role `tool`, JSON); 30% of the facts are buried in a compound turn with other noise
  sentences around them, 60-280 characters long. Every turn has its role, text, `at`, session id and turn id.
- **Run**: every turn through `Memory.ingest_many` with the default configuration; each
  question (the bank's `ask` / `ask_past`) in a new session after the user's last, through
  `Memory.recall(question, session_id=<that session>, user_id=..., k=5, as_of=<question
  time>, log=False)`.
- **Baselines**, same run, same raw turns of the same user, same question, top 5: BM25
  (rank_bm25's Okapi over jieba tokens) and dense (cosine over the embedder's passage vectors
  of the raw turns).
- **Matching**: texts are folded (NFKC, case-fold, Traditional -> Simplified with
  `jiyi.text.fold`, spaces, punctuation and symbols removed); phones are compared by their
  national digits inside a digit run of the result.
- **found**: share of the wanted values some top-5 result contains (single-valued slots: the
  current value; food: every item still liked; coupons: every code valid at the question time;
  a past question: the replaced value). For coupons "found" is "valid listed", over the same
  top 5 (no larger k for listing questions). **found as current** (jiyi only): the same, counting
  only results with `hit.current` True: the other side of "as current" (a memory that never
  says what is current would score 0 on both).
- **replaced**: a top-5 result contains a replaced value (old phone / email / address /
  level / delivery time / channel, or the negated food item) and no current value; the
  negation turn itself does not count. **as current**: such a result has `hit.current` True,
  or an expired coupon code is in a current result (jiyi only).
- **Coupons**: valid listed; valid as current (in a result with `current` True); expired
  listed (in any result); expired as current.
- **Past questions** (`ask_past`, asked only after a change): the old value found, and
  labelled history: a result holding the old value (and not the new one) has `current`
  False.
- **Compression**: over every ingested turn longer than 150 characters, the characters of the
  units `ingest_many` returned for it over the turn's characters.
- Development banks (a, b; d, held out until stop 30; e, until stop 31; f, until stop 32) may
  be tuned on; d, e and f are each reported apart from a and b ("dev D", "dev E", "dev F"). The
  held-out banks (c; g, written before stop 33's tuning) are each written separately and only
  ever reported, each apart (never pooled with a development bank nor with each other), their
  templates never printed.
"""


def report_dict(run: KeyfactsRun, command: str | None = None) -> dict[str, Any]:
    held = [b.name for b in run.banks if b.name in HELD_OUT]
    return {
        "benchmark": "keyfacts",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": command if command is not None else " ".join(["jiyi", *sys.argv[1:]]),
        "machine": machine(),
        "embedder": run.embedder,
        "k": run.k,
        "corpus": {"fingerprint": run.corpus.fingerprint, "generator_version": VERSION,
                   "seed": run.corpus.seed,
                   "users": run.corpus.users, "turns": len(run.corpus.turns),
                   "questions": len(run.corpus.questions),
                   "round_robin_users": len(run.corpus.profiles) - sum(
                       n for _, n in run.corpus.blocks),
                   "appended_blocks": dict(run.corpus.blocks)},
        "banks": {b.name: {"split": b.split, "sha256": b.digest} for b in run.banks},
        "held_out": held,
        "held_out_missing": [h for h in HELD_OUT if h not in held],
        "ingest": run.ingest,
        "recall_latency": latency(run.recall_ms),
        "seconds": run.seconds,
        "compression": run.compression,
        "measures": list(MEASURES),
        "cells": cells(run.rows),
    }


def _held_out_line(held: list[str], missing: list[str]) -> str:
    """The header's word on the held-out banks: which ran (each apart), which are absent."""
    parts = []
    if held:
        parts.append(f"Held out: bank {', '.join(held)}, each reported apart and never tuned on.")
    if missing:
        parts.append(f"Held-out bank {', '.join(missing)} **absent** from this run"
                     + ("." if held else ": only the development banks are reported."))
    return " ".join(parts)


def markdown(report: dict[str, Any]) -> str:
    idx = _index(report["cells"])
    held = report["held_out"]
    lat = report["recall_latency"]
    comp = report["compression"]
    missing = report["held_out_missing"]
    blocks = report["corpus"].get("appended_blocks", {})
    users = str(report["corpus"]["users"])
    if blocks:
        robin = report["corpus"]["round_robin_users"]
        users = f"{robin + sum(blocks.values())} (" + ", ".join(
            ([f"{robin} round-robin"] if robin else [])
            + [f"{n} for bank {b.upper()} in its own block" for b, n in blocks.items()]) + ")"
    lines = ["# Key facts in any phrasing (default config)", "",
             f"Measured {report['date']} with `{report['command']}`.", "",
             machine_line(report["machine"]), "",
             f"Embedder `{report['embedder']}`; {users} users, "
             f"{report['corpus']['turns']} turns, {report['corpus']['questions']} questions "
             f"(seed {report['corpus']['seed']}, corpus fingerprint "
             f"`{report['corpus']['fingerprint'][:12]}`); top {report['k']}.", "",
             "Banks: " + ", ".join(
                 f"{n} ({b['split']}" + (f", held out until stop {FORMER_HELD_OUT[n]}, apart"
                                         if n in FORMER_HELD_OUT else "") + ")"
                 for n, b in report["banks"].items())
             + ". " + _held_out_line(held, missing), "",
             f"Recall latency: p50 {lat['p50_ms']} ms, p95 {lat['p95_ms']} ms over "
             f"{lat['questions']} questions. Run time: "
             + ", ".join(f"{k} {v:.0f} s" for k, v in report["seconds"].items()) + ".", "",
             f"Compression: units / source characters over the {comp.get('turns', 0)} turns "
             f"longer than {LONG_TURN} characters: **{comp.get('ratio')}** "
             f"(per language: " + ", ".join(f"{g} {b['ratio']}" for g, b in
                                            comp.get("by_language", {}).items()) + ").", "",
             "## Overview", "", *_overview(idx), ""]
    for split in splits_of(idx):
        banks = _banks_of(idx, split)
        title = split_title(split, banks)
        if not split.startswith(DEV):
            title += f" ({'+'.join(b.upper() for b in banks)})"
        lines += [f"## {title}", "",
                  "### Per kind and language", ""]
        lines += _kinds_table(idx, split, "all", per_lang=True)
        lines += ["", "### Coupons", "", *_coupon_table(idx, split)]
        lines += ["", "### Past questions", "", *_past_table(idx, split)]
        for bank in banks if len(banks) > 1 else []:
            lines += ["", f"### Bank {bank.upper()} per kind and language", ""]
            lines += _kinds_table(idx, split, bank, per_lang=True)
        lines.append("")
    lines += ["## Protocol", "", PROTOCOL, "## Ingest", "", f"`{json.dumps(report['ingest'])}`",
              ""]
    return "\n".join(lines)


def chart(report: dict[str, Any], path: Path) -> None:
    """Found@5 per kind (jiyi, dense, BM25) for each split, and replaced / as current."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    idx = _index(report["cells"])
    splits = splits_of(idx)
    kinds = [k for k in KINDS if not k.endswith("_past")]
    fig, axes = plt.subplots(len(splits), 2, figsize=(15, 4 * len(splits)), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 1]})
    width = 0.27
    for row, split in zip(axes, splits, strict=True):
        ax = row[0]
        for i, system in enumerate(SYSTEMS):
            vals = [(idx.get((split, "all", "all", k, system)) or {}).get("found", 0.0)
                    for k in kinds]
            ax.bar([x + i * width for x in range(len(kinds))], vals, width,
                   label=LABELS[system])
        ax.set_xticks([x + width for x in range(len(kinds))], kinds, rotation=30, ha="right")
        ax.set_ylim(0, 1)
        ax.set_title(f"{split_title(split, _banks_of(idx, split))}: key fact found in top "
                     f"{report['k']}")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
        ax2 = row[1]
        labels = ["replaced jiyi", "replaced dense", "replaced BM25", "as current jiyi"]
        cellsel = [("jiyi", "replaced"), ("dense", "replaced"), ("bm25", "replaced"),
                   ("jiyi", "as_current")]
        vals = [(idx.get((split, "all", "all", "all", s)) or {}).get(m, 0.0) for s, m in cellsel]
        ax2.bar(range(len(vals)), vals, color=["C0", "C1", "C2", "C3"])
        ax2.set_xticks(range(len(vals)), labels, rotation=30, ha="right")
        ax2.set_ylim(0, 1)
        ax2.set_title("replaced value in top 5")
        ax2.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_outputs(run: KeyfactsRun, out_dir: Path, name: str = "keyfacts",
                  png: bool = True) -> dict[str, Any]:
    """``<name>.md`` / ``.json`` (and ``.png``) in ``out_dir``; returns the JSON report."""
    out_dir.mkdir(parents=True, exist_ok=True)
    report = report_dict(run)
    (out_dir / f"{name}.json").write_text(json.dumps(report, indent=2, ensure_ascii=False),
                                          encoding="utf-8")
    (out_dir / f"{name}.md").write_text(markdown(report), encoding="utf-8")
    if png:
        chart(report, out_dir / f"{name}.png")
    return report


def summary_lines(report: dict[str, Any]) -> list[str]:
    """The overall rows for the terminal: per split and language, found / replaced."""
    idx = _index(report["cells"])
    out = []
    for split in splits_of(idx):
        for lang in (*LANGS, "all"):
            j = idx.get((split, "all", lang, "all", "jiyi"))
            if j is None:
                continue
            d = idx.get((split, "all", lang, "all", "dense"))
            b = idx.get((split, "all", lang, "all", "bm25"))
            out.append(f"{split:10} {lang:7} n={j['questions']:4} found jiyi {_f(j, 'found')} "
                       f"dense {_f(d, 'found')} BM25 {_f(b, 'found')} | replaced jiyi "
                       f"{_f(j, 'replaced')} as current {_f(j, 'as_current')}")
    return out
