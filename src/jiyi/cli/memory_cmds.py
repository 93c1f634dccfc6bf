"""``ingest``, ``recall``, ``show``, ``forget``, ``gc``, ``stats``: the memory itself."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ..clock import iso, utc_now
from ..config import JiyiConfig
from ..errors import ValidationError
from ..validation import check_time, check_user_id, require_session_id
from .common import state
from .ingest_file import IngestProgress, read_turns
from .recall_view import explain_recall, recall_table

STATS_ORDER = ("units_total", "units_valid", "units_expired", "units_superseded",
               "units_forgotten", "units_invalidated")


def _console() -> Console:
    return Console(soft_wrap=True)


def ingest(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(
        help="JSONL file (or - for stdin): {role, text, at?, turn_id?, speaker?} per line")],
    session: Annotated[str, typer.Option("--session", help="Session id (required).")],
    user: Annotated[str | None, typer.Option("--user", help="User id (default: the session).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    batch_size: Annotated[int, typer.Option(
        "--batch-size", min=1, max=10_000, help="Turns per embedder call and transaction.")] = 64,
) -> None:
    """Ingest conversation turns from a JSONL file, all or nothing per batch.

    Every line is checked first: any bad line (each is listed by number) and nothing is
    stored. A turn id already stored for this user and session is skipped, so rerunning the
    same command after Ctrl-C resumes without duplicates. A line without "turn_id" gets a
    stable one from the file's path, the line number and the text."""
    sid = require_session_id(session)
    uid = check_user_id(user, sid)
    if file == "-":
        raw, name, source = sys.stdin.buffer.read(), "<stdin>", "<stdin>"
    else:
        path = Path(file)
        if not path.is_file():
            raise ValidationError(f"no such file: {file}")
        raw, name, source = path.read_bytes(), file, str(path.resolve())
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{name} is not valid UTF-8 (byte {exc.start})") from None
    parsed = read_turns(text, name=name, source=source, session_id=sid, user_id=uid,
                        max_bytes=JiyiConfig().max_turn_bytes, now=utc_now)
    with state(ctx).open(create=True) as mem, IngestProgress(len(parsed.turns),
                                                                  quiet=quiet) as bar:
        try:
            results = mem.ingest_many(parsed.turns, batch_size=batch_size, progress=bar.advance)
        except KeyboardInterrupt:
            bar.stop()
            typer.echo(f"interrupted: {bar.done} of {len(parsed.turns)} turns are stored (the "
                       "batch in flight was rolled back); run the same command again to resume",
                       err=True)
            raise typer.Exit(130) from None
    units = len({u.id for found in results for u in found})
    distinct = parsed.distinct
    typer.echo(f"ingested {distinct} turns ({bar.new} new, {distinct - bar.new} already "
               f"stored) -> {units} units")


def recall(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to recall.")],
    session: Annotated[str, typer.Option("--session", help="Session id (required).")],
    user: Annotated[str | None, typer.Option("--user")] = None,
    k: Annotated[int, typer.Option("-k", help="At most k hits.")] = 5,
    as_of: Annotated[str | None, typer.Option("--as-of", help="ISO-8601 instant.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array.")] = False,
) -> None:
    """Recall the best memories for a query. When none is current, one line says why."""
    with state(ctx).open() as mem:
        hits = mem.recall(query, session_id=session, user_id=user, k=k, as_of=as_of)
        if as_json:
            typer.echo(json.dumps([h.to_public_dict() for h in hits], ensure_ascii=False,
                                  indent=2))
            return
        uid = check_user_id(user, session)
        instant = check_time(as_of, "as_of")
        stats = None if hits else mem.store.stats(user_id=uid, as_of=instant or mem.clock())
    reason = explain_recall(hits, uid, stats, instant)
    if reason is not None:
        typer.echo(reason)
    if hits:
        _console().print(recall_table(hits))


def show(
    ctx: typer.Context,
    unit_id: Annotated[str, typer.Argument(help="Unit id.")],
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Show a unit with its provenance (source turns) and history."""
    with state(ctx).open() as mem:
        h = mem.history(unit_id)
    data = h.unit.to_public_dict()
    data["turns"] = [{"turn_id": t.turn_id, "role": t.role, "at": iso(t.at), "text": t.text}
                     for t in h.turns]
    data["events"] = [{"at": iso(e.at), "event": e.event, "detail": e.detail,
                       "score_after": e.score_after} for e in h.events]
    data["superseded"] = [u.to_public_dict() for u in h.superseded]
    data["superseded_by_chain"] = [u.to_public_dict() for u in h.superseded_by]
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    con = _console()
    con.print(f"[bold]{h.unit.id}[/bold]  {h.unit.type.value}  relevance {h.unit.relevance_score:.2f}")
    con.print(h.unit.content, markup=False)
    con.print(f"created {iso(h.unit.created_at)}  expires {iso(h.unit.expires_at)}"
              f"  valid_until {iso(h.unit.valid_until) if h.unit.valid_until else '-'}")
    if h.unit.invalidated_at:
        con.print(f"invalidated {iso(h.unit.invalidated_at)}: {h.unit.invalidation_reason}",
                  markup=False)
    for t in h.turns:
        con.print(f"  turn {t.turn_id} [{t.role}] {iso(t.at)}: {t.text[:200]}", markup=False)
    for e in h.events:
        con.print(f"  {iso(e.at)} {e.event} {e.detail}", markup=False)
    for u in h.superseded:
        con.print(f"  replaced {u.id}: {u.content}", markup=False)
    for u in h.superseded_by:
        con.print(f"  replaced by {u.id}: {u.content}", markup=False)


def forget(
    ctx: typer.Context,
    unit_id: Annotated[str, typer.Argument(help="Unit id.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept for audit).")],
) -> None:
    """Invalidate a unit: kept for audit, never recalled as current again."""
    with state(ctx).open() as mem:
        unit = mem.forget(unit_id, reason)
    typer.echo(f"forgot {unit.id} at {iso(unit.invalidated_at) if unit.invalidated_at else '?'}")


def gc(
    ctx: typer.Context,
    retention_days: Annotated[float | None, typer.Option(
        "--retention-days", help="Keep expired/invalidated units this long (default 30).")] = None,
) -> None:
    """Purge units expired or invalidated longer ago than the retention period."""
    with state(ctx).open() as mem:
        n = mem.gc(retention_days)
        days = mem.config.retention_days if retention_days is None else retention_days
    typer.echo(f"purged {n} units expired or invalidated more than {days:g} days ago")


def stats(
    ctx: typer.Context,
    user: Annotated[str | None, typer.Option("--user")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Counts of units (valid + expired + superseded + forgotten = total; invalidated =
    superseded + forgotten; by type), turns, users and store size."""
    with state(ctx).open() as mem:
        s = mem.store.stats(user_id=user)
        location = mem.store.location
    data: dict[str, Any] = {"store": location}
    for key in STATS_ORDER:  # the four states that add up to the total come first
        data[key] = getattr(s, key)
    data.update({k: v for k, v in dataclasses.asdict(s).items() if k not in data})
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    table = Table("metric", "value")
    for key, value in data.items():
        table.add_row(key, json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else str(value))
    _console().print(table)


def register(app: typer.Typer) -> None:
    for fn in (ingest, recall, show, forget, gc, stats):
        app.command()(fn)
