"""``jiyi bench ...`` and ``jiyi eval ...``: measurement commands from the ``jiyi_bench`` package.

The harnesses are a separate distribution (``benchmarks/`` in the repository, installed by the
``eval`` extra) so the library does not ship them. Each module listed in :data:`BENCH_MODULES` /
:data:`EVAL_MODULES` exposes ``register(group)`` and adds its subcommand to the ``bench`` or
``eval`` group. Without the package both commands stay visible and say in one line how to get it.
"""

from __future__ import annotations

import importlib
import importlib.util

import typer

BENCH_PACKAGE = "jiyi_bench"
INSTALL_HINT = ("needs the benchmark harnesses: pip install 'jiyi[eval]' "
                "(from a checkout: pip install -e ./benchmarks)")

BENCH_MODULES: tuple[str, ...] = (
    "jiyi_bench.bench_write",
    "jiyi_bench.bench_recall",
    "jiyi_bench.bench_serve",
    "jiyi_bench.bench_prompt",
    "jiyi_bench.bench_scale",
    "jiyi_bench.bench_pg",
)
EVAL_MODULES: tuple[str, ...] = ("jiyi_bench.locomo_cmd", "jiyi_bench.madial_cmd",
                                 "jiyi_bench.scenarios_cmd", "jiyi_bench.keyfacts_cmd",
                                 "jiyi_bench.answers_cmd", "jiyi_bench.conversations_cmd")

BENCH_HELP = "Measure speed and memory use; reports go to docs/benchmarks/ (see --out)."
EVAL_HELP = "Measure recall and answer quality on public benchmarks."


def harnesses_installed() -> bool:
    """True when ``jiyi_bench`` can be imported (the ``eval`` extra is installed)."""
    return importlib.util.find_spec(BENCH_PACKAGE) is not None


def _group(help_text: str, modules: tuple[str, ...]) -> typer.Typer:
    group = typer.Typer(help=help_text, no_args_is_help=True)
    for name in modules:
        importlib.import_module(name).register(group)
    return group


def _missing(app: typer.Typer, name: str, help_text: str) -> None:
    """A stand-in ``jiyi NAME ...`` that accepts any arguments and prints the install hint."""

    @app.command(name=name, help=f"{help_text} [not installed: pip install 'jiyi[eval]']",
                 add_help_option=False,
                 context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
    def missing() -> None:
        typer.echo(f"Error: jiyi {name} {INSTALL_HINT}", err=True)
        raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    if not harnesses_installed():
        _missing(app, "bench", BENCH_HELP)
        _missing(app, "eval", EVAL_HELP)
        return
    app.add_typer(_group(BENCH_HELP, BENCH_MODULES), name="bench")
    app.add_typer(_group(EVAL_HELP, EVAL_MODULES), name="eval")
