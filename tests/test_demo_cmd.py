"""``jiyi demo`` presents what memory holds honestly: a bare confirmation is shown as confirming
earlier units (not as having said them), and every hit says whether it is current or history."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from jiyi.cli.app import app


def test_demo_labels_confirmations_and_hit_status(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["--embedder", "fake", "demo", "--demo-db",
                                      str(tmp_path / "demo.db")], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.output
    # T27 "嗯嗯" and T31 "对，就是这个号" say nothing themselves; they confirm the turns before
    t27 = next(line for line in out.splitlines() if re.match(r"\s*T27 ", line))
    assert "confirms" in t27 and "RT778899" in t27 and "session_state" not in t27
    # every hit's detail line names its status: current, or history with its date
    details = [line for line in out.splitlines() if line.strip().startswith("score ")]
    assert details, out
    assert all(re.search(r"· (current|expired \d{4}-\d\d-\d\d|superseded \d{4}-\d\d-\d\d) ·", d)
               for d in details), details
    assert any("· current ·" in d for d in details)


def test_demo_shows_each_answer_whole_at_a_narrow_terminal(tmp_path: Path) -> None:
    """A table cut answers at 80 columns ("The user's email is zhang.wei@e…"); each hit's
    content is printed whole on its own line, whatever the width."""
    result = CliRunner().invoke(app, ["--embedder", "fake", "demo", "--demo-db",
                                      str(tmp_path / "demo.db")], env={"COLUMNS": "60"})
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    assert "The user's email is zhang.wei@example.com" in result.output
