"""``jiyi bench write`` runs end to end on a small generated conversation."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from jiyi.cli.app import app
from jiyi.text.segment import has_cjk, to_simplified
from jiyi_bench.bench_write import percentile
from jiyi_bench.write_workload import generate


def test_generated_conversation_is_bilingual_and_deterministic() -> None:
    conv = generate(400, seed=3)
    assert conv == generate(400, seed=3)
    roles = {t.role for t in conv}
    assert roles == {"user", "assistant", "tool"}
    zh = [t for t in conv if has_cjk(t.text)]
    assert zh and any(to_simplified(t.text) != t.text for t in zh)
    assert any(not has_cjk(t.text) for t in conv)


def test_percentile() -> None:
    assert percentile([], 95) == 0.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0


def test_bench_write_command(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    result = CliRunner().invoke(app, ["bench", "write", "--turns", "150", "--embedders", "fake",
                                      "--out", str(out), "--name", "w"])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "w.json").read_text("utf-8"))
    assert [r["turns"] for r in data["runs"]] == [150, 150]
    assert data["runs"][0]["units"] > 50 and data["runs"][1]["embedder"] == "fake"
    assert data["runs"][0]["units_by_type"].get("tool_result")
    assert data["machine"]["nproc"]
    md = (out / "w.md").read_text("utf-8")
    assert "turns/s" in md and "p95" in md


def test_bench_write_quality(tmp_path: Path) -> None:
    """``--quality`` replays the annotated corpus and writes per-language measures."""
    out = tmp_path / "q"
    result = CliRunner().invoke(app, ["bench", "write", "--quality", "--turns", "200",
                                      "--quality-embedder", "fake", "--out", str(out),
                                      "--name", "w"])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "w-quality.json").read_text("utf-8"))
    assert set(data["languages"]) == {"zh-Hans", "zh-Hant", "en"} and data["turns"] >= 300
    for summary in data["languages"].values():
        assert summary["filler_stored_durable"] == 0
        assert summary["slot_exact"] >= 0.95 and summary["agent_ids_durable_fact"] >= 0.98
        assert summary["false_supersession_rate"] <= 0.01
    assert "slot value exact" in (out / "w-quality.md").read_text("utf-8")


def test_quality_corpus_is_bilingual_and_annotated() -> None:
    from jiyi_bench.write_quality import default_corpus, load_corpus

    rows = load_corpus(default_corpus())
    assert len(rows) >= 300
    for lang in ("zh-Hans", "zh-Hant", "en"):
        mine = [r for r in rows if r["lang"] == lang]
        assert {r["role"] for r in mine} == {"user", "assistant", "tool"}
        assert sum(bool(r.get("supersedes")) for r in mine) >= 5
        assert sum(bool(r.get("filler")) for r in mine) >= 20
