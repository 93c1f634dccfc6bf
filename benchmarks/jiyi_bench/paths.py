"""Where reports go and where the repository's test corpora are, resolved once and documented.

Report directory (every ``--out`` / ``--out-dir`` of ``jiyi bench`` and ``jiyi eval``), first hit:

1. the option itself, when given;
2. ``$JIYI_BENCH_OUT``, when set;
3. ``docs/benchmarks/`` of the jiyi checkout this package runs from (``benchmarks/jiyi_bench`` is
   installed editable by ``make setup``, so that is the repository's report folder whatever the
   working directory is);
4. otherwise (an installed wheel, no checkout) the command stops with a one-line error asking for
   ``--out``: reports are never written into the current directory by surprise.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

#: The repository root when this package runs from a checkout (``<root>/benchmarks/jiyi_bench``).
CHECKOUT_ROOT = Path(__file__).resolve().parents[2]
OUT_ENV = "JIYI_BENCH_OUT"
#: Help text shared by every report-directory option.
OUT_HELP = ("Report directory (default: $JIYI_BENCH_OUT, else docs/benchmarks/ of the jiyi "
            "checkout).")


def checkout_docs() -> Path | None:
    """``docs/benchmarks`` of the checkout holding this package, or ``None`` outside one."""
    docs = CHECKOUT_ROOT / "docs" / "benchmarks"
    return docs if (CHECKOUT_ROOT / "pyproject.toml").is_file() and docs.is_dir() else None


def report_dir(out: Path | str | None) -> Path:
    """The report directory for an ``--out`` value (``None`` = not given), by the rules above."""
    if out is not None and str(out) != "":
        return Path(out)
    env = os.environ.get(OUT_ENV, "").strip()
    if env:
        return Path(env)
    docs = checkout_docs()
    if docs is None:
        raise typer.BadParameter(f"no default report directory outside a jiyi checkout: pass "
                                 f"--out DIR or set ${OUT_ENV}")
    return docs


def repo_file(*parts: str) -> Path:
    """A file of the jiyi checkout (test corpora under ``tests/data``)."""
    return CHECKOUT_ROOT.joinpath(*parts)
