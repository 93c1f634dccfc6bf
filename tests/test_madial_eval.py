"""The MADial evaluation on a tiny synthetic MADial-shaped folder (no MADial text: the lines
below are written for this test; only the file layout follows MADial-Bench, MIT)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi.cli.app import app
from jiyi.errors import ValidationError
from jiyi_bench.baselines import BM25, reference_bm25, rrf
from jiyi_bench.madial import run_madial, to_cases, to_turns
from jiyi_bench.madial_cmd import parse_ks
from jiyi_bench.madial_data import load_madial, query_of, strip_speaker
from jiyi_bench.metrics import gold_recall, ndcg

ZH_MEMORIES = [
    {"1": {"time": "2023-05-01", "event": "小林在海边放风筝，风很大，玩得很开心。", "user-id": 1}},
    {"2": {"time": "2023-05-01", "event": "小林的狗豆豆第一次学会了握手。", "user-id": 1}},
    {"3": {"time": "2023-07-09", "event": "小林去北京爬了长城，累但是值得。", "user-id": 1}},
    {"4": {"time": "2023-02-14", "event": "阿梅烤了一个草莓蛋糕送给奶奶。", "user-id": 2}},
    {"5": {"time": "2023-03-20", "event": "阿梅在游泳比赛拿了第二名。", "user-id": 2}},
]
EN_MEMORIES = [  # like MADial's en file: no user-id, the zh file's is used
    {"1": {"time": "2023-05-01", "event": "Lin flew a kite at the beach on a windy day."}},
    {"2": {"time": "2023-05-01", "event": "Lin's dog Doudou learned to shake hands."}},
    {"3": {"time": "2023-07-09", "event": "Lin climbed the Great Wall in Beijing."}},
    {"4": {"time": "2023-02-14", "event": "Mei baked a strawberry cake for her grandmother."}},
    {"5": {"time": "2023-03-20", "event": "Mei came second in a swimming race."}},
]


def _dialogue(name: str, lines: list[str], test: list[int], gold: list[int], user: int,
              did: int | None) -> dict[str, object]:
    body = ["<BOD>\n"] + [f'<{name if i % 2 == 0 else "Assistant"}>:"{x}"\n'
                          for i, x in enumerate(lines)] + ["<EOD>\n"]
    out: dict[str, object] = {"dialogue": body, "test-turn": test, "relevant-id": gold,
                              "user-id": user}
    if did is not None:
        out["id"] = did
    return out


ZH_DIALOGUES = [
    _dialogue("小林", ["今天风好大", "是啊，适合户外", "我想去放风筝", "你记得上次在海边放风筝吗",
                     "记得", "豆豆也去了"], [4, 6], [1], 1, 0),
    _dialogue("阿梅", ["周末我想做甜点", "好主意", "做蛋糕给奶奶吃", "上次的草莓蛋糕很成功",
                     "对"], [4], [4], 2, 1),
]
EN_DIALOGUES = [
    _dialogue("Lin", ["It is so windy today", "Great for being outside", "I want to fly a kite",
                      "Remember the kite at the beach?", "Yes", "Doudou came too"], [4, 6], [1],
              1, None),
    _dialogue("Mei", ["I want to bake this weekend", "Nice idea", "A cake for grandma",
                      "The strawberry cake went well", "Yes"], [4], [4], 2, None),
]


def _write(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for lang, mem, dia in (("zh", ZH_MEMORIES, ZH_DIALOGUES), ("en", EN_MEMORIES, EN_DIALOGUES)):
        (folder / f"MADial-Bench-{lang}-memory.json").write_text(
            "\n".join(json.dumps(m, ensure_ascii=False) for m in mem) + "\n", encoding="utf-8")
        (folder / f"MADial-Bench-{lang}-dialogue.json").write_text(
            "\n".join(json.dumps(d, ensure_ascii=False) for d in dia) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return _write(tmp_path / "madial")


def test_load_and_protocol(data: Path) -> None:
    zh = load_madial(data, "zh")
    assert [m.id for m in zh.memories] == ["4", "5", "1", "2", "3"]  # time order
    assert strip_speaker('<小林>:"今天风好大"\n') == "今天风好大"
    assert strip_speaker('<Assistant>: "Yes, of course"') == "Yes, of course"
    # the FIRST test turn (4): the three speech lines before it, markers and quotes stripped
    assert query_of(zh.dialogues[0]) == "今天风好大 是啊，适合户外 我想去放风筝"
    en = load_madial(data, "en")
    assert {m.id: m.user for m in en.memories} == {"1": "1", "2": "1", "3": "1", "4": "2", "5": "2"}
    assert any("user-id of the same memory id in the zh file" in n for n in en.notes)
    assert [d.id for d in en.dialogues] == [0, 1]  # no id in en: the line number
    turns = to_turns(zh)
    assert turns[2].session_id == turns[3].session_id  # same user, same day: one session
    assert turns[0].at.isoformat() == "2023-02-14T00:00:00+00:00"
    cases = to_cases(zh, turns)
    assert [c.split for c in cases] == ["dev", "held-out"]
    lin = cases[0]
    assert lin.as_of.isoformat() == "2023-07-10T00:00:00+00:00"  # a day after Lin's last
    assert lin.session_id not in {t.session_id for t in turns}  # a new session
    assert lin.gold == ("1",)


def test_bad_folders(tmp_path: Path, data: Path) -> None:
    with pytest.raises(ValidationError):
        load_madial(tmp_path / "nothing", "zh")
    with pytest.raises(ValidationError):
        load_madial(data, "fr")
    (data / "MADial-Bench-zh-memory.json").write_text("{oops\n", encoding="utf-8")
    with pytest.raises(ValidationError, match="line 1"):
        load_madial(data, "zh")


def test_metrics_and_fusion() -> None:
    ranked = [["a"], ["x", "b"], ["a"], ["c"]]
    assert gold_recall(["a", "b", "z"], ranked, 2) == pytest.approx(2 / 3)
    assert gold_recall([], ranked, 2) == 0.0
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    # relevant at ranks 1 and 2 (rank 3 repeats "a": not counted again), ideal has 3
    assert ndcg(["a", "b", "c"], ranked, 3) == pytest.approx((1 + 1 / math.log2(3)) / ideal)
    assert ndcg(["a"], [["a", "b"]], 5) == 1.0
    assert ndcg(["q"], ranked, 4) == 0.0
    # 0 and 2 tie (1/61 + 1/63, above 1's 2/62): the lower index first
    assert rrf([[0, 1, 2], [2, 1, 0]]) == [0, 2, 1]
    assert rrf([[1, 0], [1, 2]])[0] == 1


def test_reference_bm25() -> None:
    docs = ["猫 猫 狗", "狗 鱼", "狗 鸟", "狗"]
    bm = reference_bm25(docs)
    # "狗" is in every document: its raw idf is negative, floored at 0.25 x the mean idf
    raw = {t: math.log((4 - f + 0.5) / (f + 0.5)) for t, f in
           {"猫": 1, "狗": 4, "鱼": 1, "鸟": 1}.items()}
    assert bm.idf["狗"] == pytest.approx(0.25 * sum(raw.values()) / 4)
    assert bm.top("猫", 1) == [0]
    assert bm.docs[0]["猫"] == 2  # repeats counted (the content-word BM25 counts once)
    assert BM25(docs).docs[0]["猫"] == 1


def test_run_madial(data: Path, tmp_path: Path) -> None:
    result = run_madial(data, ["zh", "en"], store_path=tmp_path / "m.db", embedder="fake")
    assert result.groups() == ["zh", "en"]
    assert result.systems() == ["jiyi", "bm25", "bm25_cw", "dense", "rrf"]
    assert result.count("jiyi", "zh") == 2 and result.count("dense", "en", "held-out") == 1
    # a keyword query: BM25 over the user's own memories finds the cake at rank 1
    mei = next(r for r in result.rows if r.system == "bm25" and r.case.case_id == "zh-1")
    assert mei.covered[0] == ["4"] and mei.scores["recall@5"] == 1.0
    # never another user's memory, for any system
    owner = {"1": "1", "2": "1", "3": "1", "4": "2", "5": "2"}
    for row in result.rows:
        user = row.case.user_id.rsplit("u", 1)[1]
        assert all(owner[i] == user for ids in row.covered for i in ids if i in owner)
    summary = result.summary()
    assert summary["all"]["dense"]["all"]["cases"] == 4
    assert set(summary["zh"]["jiyi"]) == {"all", "dev", "held-out"}
    again = run_madial(data, "zh", store_path=tmp_path / "m.db", embedder="fake",
                       baselines=False)
    assert again.ingest["reused"] == 5 and again.ingest["ingested"] == 0
    assert again.systems() == ["jiyi"]


def test_cli_writes_outputs(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench"
    result = CliRunner().invoke(app, ["eval", "madial", "--data", str(data), "--lang", "both",
                                      "--out-dir", str(out), "--embedder", "fake", "--k", "3,5"])
    assert result.exit_code == 0, result.output
    assert "RRF(BM25, dense) raw" in result.output and "recall@3 held-out" in result.output
    report = json.loads((out / "madial.json").read_text(encoding="utf-8"))
    assert report["ks"] == [3, 5] and report["machine"]["nproc"] >= 1
    assert "eval madial" in report["command"] or report["command"].startswith("jiyi")
    md = (out / "madial.md").read_text(encoding="utf-8")
    assert "| zh | jiyi recall | 2 |" in md and "## Protocol" in md
    assert (out / "madial.png").stat().st_size > 1000
    for bad in (["--lang", "fr"], ["--k", "five"], ["--k", "0"]):
        res = CliRunner().invoke(app, ["eval", "madial", "--data", str(data), *bad,
                                       "--out-dir", str(out), "--embedder", "fake"])
        assert res.exit_code != 0 and "Traceback" not in res.output
    missing = CliRunner().invoke(app, ["eval", "madial", "--data", str(tmp_path / "nope")])
    assert missing.exit_code != 0 and "Traceback" not in missing.output
    assert parse_ks("10, 5,5") == (5, 10)
