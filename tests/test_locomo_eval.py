"""The LoCoMo evaluation on a tiny synthetic LoCoMo-shaped file (never the real dataset)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi import Memory
from jiyi.cli.app import app
from jiyi.config import JiyiConfig
from jiyi.errors import ValidationError
from jiyi.units import MemoryType
from jiyi_bench.locomo import LocomoRun
from jiyi_bench.locomo_calibrate import fit_and_describe
from jiyi_bench.locomo_data import load, parse_session_date
from jiyi_bench.metrics import answer_covered, covered, recall_all, recall_any

SAMPLE = [{
    "sample_id": "syn-1",
    "conversation": {
        "speaker_a": "Lin", "speaker_b": "Ada",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Lin", "dia_id": "D1:1", "text": "I adopted a grey cat named Pepper."},
            {"speaker": "Ada", "dia_id": "D1:2", "text": "Lovely! I started learning the cello."},
            {"speaker": "Lin", "dia_id": "D1:3", "text": "我下周去杭州出差。",
             "blip_caption": "a photo of West Lake"},
        ],
        "session_2_date_time": "9:00 am on 20 June, 2023",
        "session_2": [
            {"speaker": "Ada", "dia_id": "D2:1", "text": "My cello teacher is called Mr. Okafor."},
            {"speaker": "Lin", "dia_id": "D2:2", "text": "Pepper broke a vase yesterday."},
        ],
    },
    "qa": [
        {"question": "What is the name of Lin's cat?", "answer": "Pepper",
         "evidence": ["D1:1"], "category": 4},
        {"question": "Who teaches Ada the cello?", "answer": "Mr. Okafor",
         "evidence": ["D1:2; D2:1"], "category": 1},
        {"question": "Lin 去哪里出差？", "answer": "杭州", "evidence": ["D1:3"], "category": 4},
        {"question": "What did Ada's dog break?", "adversarial_answer": "a vase",
         "evidence": ["D2:2"], "category": 5},
    ],
}]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "syn.json"
    path.write_text(json.dumps(SAMPLE, ensure_ascii=False), encoding="utf-8")
    return path


def test_parse(data: Path) -> None:
    assert parse_session_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56,
                                                                     tzinfo=timezone.utc)
    assert parse_session_date("12:05 am on 1 Jan, 2024").hour == 0
    conv = load(data)[0]
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert conv.turns[0].text == "Lin: I adopted a grey cat named Pepper."
    assert "West Lake" in conv.turns[2].text
    assert conv.turns[1].at > conv.turns[0].at
    assert conv.questions[1].evidence == ("D1:2", "D2:1")  # "a; b" split
    assert conv.questions[3].answer == "a vase"
    with pytest.raises(ValidationError):
        parse_session_date("yesterday")


def test_bad_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValidationError):
        load(bad)
    bad.write_text(json.dumps({"a": 1}), encoding="utf-8")
    with pytest.raises(ValidationError):
        load(bad)


def test_metrics() -> None:
    got = covered([["D1"], ["D2", "D3"], ["D9"]], 2)
    assert got == {"D1", "D2", "D3"}
    assert recall_any(["D3", "D7"], got) == 1.0 and recall_all(["D3", "D7"], got) == 0.0
    assert answer_covered("Mr. Okafor", ["teacher is Mr. Okafor"]) == 1.0
    assert answer_covered("杭州", ["去杭州出差"]) == 1.0
    assert answer_covered("the", ["x"]) is None


def test_run_reports_and_calibrates(data: Path, tmp_path: Path) -> None:
    run = LocomoRun(data=data, db=tmp_path / "l.db", embedder="fake", collect_features=True)
    report = run.run()
    jiyi = report["systems"]["jiyi"]["overall"]
    assert jiyi["questions"] == 3 and report["ingest"]["turns"] == 5
    assert jiyi["any@10"] == 1.0  # five turns: everything fits in the top 10
    assert set(report["systems"]) == {"jiyi", "bm25", "dense", "last50"}
    assert report["systems"]["bm25"]["by_category"]["4"]["any@5"] == 1.0
    assert report["confidence_flag"]["rate_category_5"] is not None
    assert run.features and all(len(x) == 7 for _, _, x, _ in run.features)
    cal = fit_and_describe(run.features)
    assert len(cal["model_weights"]) == 7
    again = LocomoRun(data=data, db=tmp_path / "l.db", embedder="fake", baselines=False).run()
    assert again["ingest"]["reused_store"] is True


def test_cli_writes_outputs(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench"
    result = CliRunner().invoke(app, ["--embedder", "fake", "eval", "locomo", "--data", str(data),
                                      "--out-dir", str(out), "--embedder", "fake"])
    assert result.exit_code == 0, result.output
    assert "jiyi recall" in result.output
    report = json.loads((out / "locomo.json").read_text(encoding="utf-8"))
    assert report["machine"]["nproc"] >= 1
    assert (out / "locomo.png").stat().st_size > 1000
    missing = CliRunner().invoke(app, ["eval", "locomo", "--data", str(tmp_path / "nope.json")])
    assert missing.exit_code != 0 and "Traceback" not in missing.output


def test_defaults_run_uses_dataset_times_and_sessions(data: Path, tmp_path: Path) -> None:
    conv = load(data, session_time=True)[0]
    first = parse_session_date("1:56 pm on 8 May, 2023")
    assert [t.at for t in conv.turns[:3]] == [first] * 3  # the session's date, no offsets
    db = tmp_path / "d.db"
    run = LocomoRun.with_defaults(data, db, embedder="fake")
    assert run.config == JiyiConfig() and run.layout == "dataset"
    report = run.run()
    assert report["session_time"] is True and report["layout"] == "dataset"
    jiyi = report["systems"]["jiyi"]
    assert jiyi["dev_conversations_1_5"]["questions"] == 3
    assert jiyi["held_out_conversations_5_9"]["questions"] == 0
    assert set(report["systems"]) == {"jiyi", "bm25", "dense", "last50"}
    with Memory.open(str(db), embedder="fake") as mem:
        turns = mem.export_user("locomo-0-syn-1")["turns"]
    by_session: dict[str, set[str]] = {}
    for t in turns:
        by_session.setdefault(t["session_id"], set()).add(t["at"])
    # one jiyi session per LoCoMo session, each turn at its session's date; questions were
    # asked in other (new) sessions, which hold no turns
    assert by_session == {"locomo-0-syn-1-s1": {first.isoformat()},
                          "locomo-0-syn-1-s2": {"2023-06-20T09:00:00+00:00"}}


def test_cli_defaults_writes_its_own_report(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench"
    result = CliRunner().invoke(app, ["eval", "locomo", "--data", str(data), "--defaults",
                                      "--out-dir", str(out), "--embedder", "fake"])
    assert result.exit_code == 0, result.output
    assert "dev conv 1-5" in result.output and "held-out conv 6-10" in result.output
    report = json.loads((out / "locomo-defaults.json").read_text(encoding="utf-8"))
    assert report["config"]["lifespans"]["session_state"] == JiyiConfig().lifespans[
        MemoryType.SESSION_STATE]
    md = (out / "locomo-defaults.md").read_text(encoding="utf-8")
    assert "default configuration" in md and "| jiyi recall | overall 1-4 |" in md
    assert not (out / "locomo.json").exists()
