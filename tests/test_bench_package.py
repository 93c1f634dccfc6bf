"""The benchmark harnesses live in ``jiyi_bench`` (benchmarks/, the ``eval`` extra): the CLI says how
to install them when they are missing, and reports go where ``--out`` / $JIYI_BENCH_OUT / the
checkout's docs/benchmarks say, never silently into the working directory."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from jiyi.cli import bench_cmds
from jiyi_bench import paths

DATA = Path(__file__).parent / "data" / "eval"


@pytest.mark.parametrize("argv", [["bench", "recall", "--sizes", "40"], ["eval", "madial"],
                                  ["eval"]])
def test_missing_harnesses_say_how_to_install(monkeypatch: pytest.MonkeyPatch,
                                              argv: list[str]) -> None:
    monkeypatch.setattr(bench_cmds, "harnesses_installed", lambda: False)
    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """A bare root, so the stand-ins are subcommands as under ``jiyi``."""

    bench_cmds.register(app)
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'jiyi[eval]'" in lines[0], result.output
    assert "Traceback" not in result.output


def test_installed_harnesses_register_the_commands() -> None:
    assert bench_cmds.harnesses_installed()
    app = typer.Typer()
    bench_cmds.register(app)
    names = {group.name for group in app.registered_groups}
    assert names == {"bench", "eval"}


def test_report_dir_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(paths.OUT_ENV, raising=False)
    assert paths.report_dir(tmp_path / "x") == tmp_path / "x"  # the option wins
    default = paths.report_dir(None)  # this test runs from a checkout
    assert default == paths.CHECKOUT_ROOT / "docs" / "benchmarks" and default.is_absolute()
    monkeypatch.setenv(paths.OUT_ENV, str(tmp_path / "env"))
    assert paths.report_dir(None) == tmp_path / "env"
    monkeypatch.delenv(paths.OUT_ENV)
    monkeypatch.setattr(paths, "CHECKOUT_ROOT", tmp_path)  # an installed wheel: no checkout
    with pytest.raises(typer.BadParameter, match="--out"):
        paths.report_dir(None)


def test_eval_without_out_uses_the_env_not_the_cwd(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    from jiyi.cli.app import app

    cwd, out = tmp_path / "cwd", tmp_path / "reports"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv(paths.OUT_ENV, str(out))
    result = CliRunner().invoke(app, ["eval", "scenarios", "--data", str(DATA),
                                      "--embedder", "fake", "--k", "5"])
    assert result.exit_code == 0, result.output
    assert (out / "scenarios.md").is_file() and not any(cwd.iterdir())
