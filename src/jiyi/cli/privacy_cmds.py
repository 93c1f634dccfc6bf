"""``export-user``, ``erase-user``, ``backup``, ``restore``: the user's data and the store's safety."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..errors import NotFoundError, ValidationError
from ..memory import Memory
from ..validation import check_identifier
from .common import state

AllowMissing = Annotated[bool, typer.Option(
    "--allow-missing", help="Succeed (with nothing to do) when the store does not know the user.")]


def require_known_user(mem: Memory, user_id: str, allow_missing: bool) -> str:
    """The checked user id; a user with no unit and no turn is an error unless ``allow_missing``
    (a typo'd id must not look like a successful export or erase)."""
    uid = check_identifier(user_id, "user_id")
    if allow_missing or mem.store.sessions(uid) or mem.store.stats(user_id=uid).units_total:
        return uid
    raise NotFoundError(f"no user {uid!r} in {mem.store.location} (pass --allow-missing to "
                        "accept an unknown user)")


def export_user(
    ctx: typer.Context,
    user_id: Annotated[str, typer.Argument(help="The user whose data to export.")],
    out: Annotated[str | None, typer.Option("--out", help="Write JSON here (default: stdout).")] = None,
    allow_missing: AllowMissing = False,
) -> None:
    """Write everything held about a user (units, turns, provenance, events, recalls) as JSON."""
    with state(ctx).open() as mem:
        data = mem.export_user(require_known_user(mem, user_id, allow_missing))
    text = json.dumps(data, ensure_ascii=False, indent=2)
    if out is None:
        typer.echo(text)
        return
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")
    typer.echo(f"exported {len(data['units'])} units and {len(data['turns'])} turns of "
               f"{user_id} to {path}")


def erase_user(
    ctx: typer.Context,
    user_id: Annotated[str, typer.Argument(help="The user to forget.")],
    yes: Annotated[bool, typer.Option("--yes", help="Confirm: this cannot be undone.")] = False,
    allow_missing: AllowMissing = False,
) -> None:
    """Hard-delete every unit, turn, vector, index entry and trace of a user (export first)."""
    if not yes:
        raise ValidationError("erase-user deletes a user's data for good; pass --yes to confirm")
    with state(ctx).open() as mem:
        n = mem.erase_user(require_known_user(mem, user_id, allow_missing))
    typer.echo(f"erased user {user_id}: {n} units and all their turns and traces")


def backup(
    ctx: typer.Context,
    dest_file: Annotated[str, typer.Argument(help="Where to write the backup (a SQLite file).")],
    force: Annotated[bool, typer.Option("--force", help="Replace an existing DEST_FILE.")] = False,
) -> None:
    """Copy the store consistently while it is in use (SQLite online backup API)."""
    if Path(dest_file).exists() and not force:
        raise ValidationError(f"{dest_file} already exists; pass --force to replace it")
    report = Memory.backup(state(ctx).db_location, dest_file)
    typer.echo(f"backed up {report.units} units ({report.bytes} bytes) to {report.dest} "
               f"in {report.seconds:.2f} s")


def restore(
    ctx: typer.Context,
    src_file: Annotated[str, typer.Argument(help="A backup written by `jiyi backup`.")],
    force: Annotated[bool, typer.Option("--force", help="Replace a store that holds units.")] = False,
) -> None:
    """Replace the store (--db) by a checked backup."""
    report = Memory.restore(src_file, state(ctx).db_location, force=force)
    typer.echo(f"restored {report.units} units from {report.source} into {report.dest}")


def register(app: typer.Typer) -> None:
    app.command("export-user")(export_user)
    app.command("erase-user")(erase_user)
    app.command()(backup)
    app.command()(restore)
