"""``jiyi bench recall`` runs end to end (fake embedder, tiny sizes) and writes JSON + Markdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi.cli.app import app

runner = CliRunner()


def test_bench_recall_writes_json_and_markdown(tmp_path: Path) -> None:
    out = tmp_path / "recall.json"
    result = runner.invoke(app, ["bench", "recall", "--sizes", "40,80", "--users", "4",
                                 "--queries", "10", "--embedder", "fake", "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [r["units"] for r in data["runs"]] == [40, 80]
    for run in data["runs"]:
        assert 0 < run["p50_ms"] <= run["p95_ms"] <= run["p99_ms"]
        assert run["max_rss_mb"] > 0
        assert run["embed_query_p50_ms"] > 0
        # the ratio of the unrounded p50s: within the rounding of the printed ones
        assert run["ratio_p50"] == pytest.approx(run["p50_ms"] / run["embed_query_p50_ms"],
                                                 rel=0.05)
    assert len(data["load_start"]) == 3 and len(data["load_end"]) == 3
    md = out.with_suffix(".md").read_text(encoding="utf-8")
    assert "| 80 | 10 |" in md and "load average" in md and "nproc" in md
    assert "ratio p50" in md and "same process" in md


def test_bench_recall_rejects_bad_sizes(tmp_path: Path) -> None:
    for sizes in ("ten", "2"):
        result = runner.invoke(app, ["bench", "recall", "--sizes", sizes, "--users", "4",
                                     "--embedder", "fake", "--out", str(tmp_path / "r.json")])
        assert result.exit_code != 0 and "Traceback" not in result.output
        assert not (tmp_path / "r.json").exists()
