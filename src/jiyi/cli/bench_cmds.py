"""``jiyi bench ...`` and ``jiyi eval ...``: measurement commands, each from its own module.

A module listed in :data:`BENCH_MODULES` / :data:`EVAL_MODULES` exposes ``register(group)`` and
adds its subcommand to the ``bench`` or ``eval`` group.
"""

from __future__ import annotations

import importlib

import typer

bench_app = typer.Typer(help="Measure speed and memory use; results go to docs/benchmarks/.",
                        no_args_is_help=True)
eval_app = typer.Typer(help="Measure recall quality on public benchmarks.", no_args_is_help=True)

BENCH_MODULES: tuple[str, ...] = (
    "jiyi.eval.bench_write",
    "jiyi.eval.bench_recall",
    "jiyi.eval.bench_serve",
    "jiyi.eval.bench_prompt",
    "jiyi.eval.bench_scale",
    "jiyi.eval.bench_pg",
)
EVAL_MODULES: tuple[str, ...] = ("jiyi.eval.locomo_cmd", "jiyi.eval.madial_cmd",
                                 "jiyi.eval.scenarios_cmd")


def _load(modules: tuple[str, ...], group: typer.Typer) -> None:
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(group)


def register(app: typer.Typer) -> None:
    _load(BENCH_MODULES, bench_app)
    _load(EVAL_MODULES, eval_app)
    app.add_typer(bench_app, name="bench")
    app.add_typer(eval_app, name="eval")
