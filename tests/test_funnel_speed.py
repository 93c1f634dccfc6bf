"""The cheap funnel: the shortcuts give exactly what the long way gives, the
stage timers feed the metrics, and ``jiyi bench recall --profile`` reports where time goes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from jiyi import Memory
from jiyi.cli.app import app
from jiyi.config import JiyiConfig
from jiyi.embed.fake import FakeEmbedder
from jiyi.metrics import JiyiMetrics
from jiyi.recall import funnel
from jiyi.recall.funnel import RecallRequest, run_recall
from jiyi.recall.multihop import neighbours
from jiyi.store.base import IngestBatch, Scope, TurnRecord
from jiyi.units import Hit, Lifespan, MemoryType, MemoryUnit
from jiyi_bench.bench_recall_profile import STAGES, ensure_store, measure

T0 = datetime(2026, 3, 1, 9, tzinfo=timezone.utc)

CHAT = [  # (text, speaker): questions followed by their replies, zh-Hans / zh-Hant / en
    ("你上周去哪里徒步了？", "小李"),
    ("我们开车去了黄山，住在山顶的酒店。", "小王"),
    ("師傅什麼時候上門修冰箱？", "小李"),
    ("下週三上午，他說會帶新的壓縮機。", "小王"),
    ("Where did you buy the blue kettle?", "Ann"),
    ("At the market on Elm Street, it cost 30 dollars.", "Ben"),
    ("我的手机号是13800138000，订单号AB12345。", "小李"),
    ("The kettle leaks a little when it is full.", "Ann"),
]
QUERIES = ["上周徒步去哪了", "師傅什麼時候來", "where did Ann get the kettle", "我的订单号是多少",
           "黄山的酒店", "kettle leaks"]


def _fill(mem: Memory) -> None:
    """The chat as one turn per line (each with its own vector: the episodic layer) and one
    unit per turn, questions included, as the LoCoMo import keeps them."""
    for i, (text, speaker) in enumerate(CHAT):
        at = T0 + timedelta(minutes=i)
        key = f"t{i}"
        turn = TurnRecord(key=key, turn_id=key, session_id="s1", user_id="u1", role="user",
                          text=f"{speaker}: {text}", at=at, speaker=speaker)
        unit = MemoryUnit(content=text, type=MemoryType.FACT_REFERENCE,
                          lifespan=Lifespan(created_at=at, expires_in=10**8), session_id="s1",
                          user_id="u1", source_turn_ids=[key])
        vec = mem.embedder.embed_passages([text, turn.text])
        mem.store.commit_ingest(IngestBatch(turn=turn, embedder=mem.embedder.name,
                                            upserts=[unit], vectors={unit.id: vec[0]},
                                            turn_vector=vec[1]))
    mem.ingest("另一个用户的黄山酒店", session_id="s9", user_id="u2", at=T0)


def _key(ranked: Sequence[tuple[Hit, float]]) -> list[tuple[object, ...]]:
    return [(h.unit.id, h.score, h.confidence, h.status, tuple(h.stages), z) for h, z in ranked]


def test_second_pass_equals_a_fresh_ranking(mem: Memory) -> None:
    """The second ranking pass (after replies joined) reuses the first pass's candidates: it
    must give exactly what a context that never ranked before gives for the same floors."""
    _fill(mem)
    captured: list[funnel._Context] = []
    original = funnel._Context.rank

    def spy(self: funnel._Context, extra: dict[str, float] | None = None
            ) -> list[tuple[Hit, float]]:
        captured.append(self)
        return original(self, extra)

    config = JiyiConfig()
    followed = 0
    for query in QUERIES:
        captured.clear()
        request = RecallRequest(query, Scope("u1", "s1"), T0 + timedelta(days=1), 5)
        funnel._Context.rank = spy  # type: ignore[method-assign]
        try:
            hits = run_recall(mem.store, mem.embedder_routing, request, config)
        finally:
            funnel._Context.rank = original  # type: ignore[method-assign]
        assert hits and all(h.unit.user_id == "u1" for h in hits)
        ctx = captured[0]
        first = original(ctx)
        extra = neighbours(mem.store, first, config.recall)
        followed += bool(extra)
        # the floors of the replies, and one raised on a unit already ranked
        extra[first[-1][0].unit.id] = first[0][1] + 1.0
        again = original(ctx, extra)
        fresh = funnel._Context(ctx.store, ctx.request, ctx.config, ctx.rule_ids, ctx.q,
                                ctx.found, ctx.topic_state, ctx.past)
        fresh.view = ctx.view  # a key-fact question's view is made before any ranking
        assert _key(again) == _key(original(fresh, extra))
        assert [c.unit.id for c in ctx.candidates] == [c.unit.id for c in fresh.candidates]
        assert again[0][0].unit.id == first[-1][0].unit.id  # the raised floor counted
    assert followed >= 2  # replies were followed (zh and en questions)


def test_replies_from_the_turns_already_read_equal_the_store_path(mem: Memory) -> None:
    _fill(mem)
    units = [u for u in mem.store.find_units(Scope("u1", None), as_of=T0 + timedelta(days=1))]
    ranked = [(Hit(unit=u, score=1.0 - i / 100, stage="semantic"), 2.0 - i / 10)
              for i, u in enumerate(sorted(units, key=lambda u: u.created_at))]
    weights = JiyiConfig().recall.model_copy(update={"neighbour_seeds": len(ranked)})
    from_store = neighbours(mem.store, ranked, weights)
    read = mem.store.source_turns([h.unit.id for h, _ in ranked])
    assert from_store  # zh-Hans, zh-Hant and en questions are followed to their replies
    assert neighbours(mem.store, ranked, weights, read) == from_store
    texts = {u.id: u.content for u in units}
    assert any("黄山" in texts[u] for u in from_store)
    assert any("壓縮機" in texts[u] for u in from_store)
    assert any("Elm Street" in texts[u] for u in from_store)


class _Broken(FakeEmbedder):
    def embed_query(self, text: str) -> np.ndarray:  # type: ignore[override]
        raise RuntimeError("embedder down")


def test_a_failing_query_embedding_fails_the_recall(db_path: str) -> None:
    """The query is embedded on a worker thread: its error still reaches the caller."""
    with Memory.open(db_path, embedder=_Broken()) as m:
        m.ingest("我住在上海", session_id="s1", user_id="u1", at=T0)
        with pytest.raises(RuntimeError, match="embedder down"):
            m.recall("我住在哪里", session_id="s1", user_id="u1")


def test_every_stage_reaches_the_recall_histogram(mem: Memory) -> None:
    _fill(mem)
    metrics = JiyiMetrics()
    mem.metrics = metrics
    for query in QUERIES:
        mem.recall(query, session_id="s1", user_id="u1", log=False)
    text = metrics.render()[0].decode()
    counts: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("jiyi_recall_seconds_count{"):
            stage = line.split('stage="')[1].split('"')[0]
            counts[stage] = float(line.rsplit(" ", 1)[1])
    assert "other" not in counts
    for stage in ("total", *STAGES):
        if stage == "multihop":
            continue  # timed only when a first ranking found something to follow
        assert counts.get(stage, 0) >= len(QUERIES), (stage, counts)


def test_profile_stages_add_up_to_at_most_the_total(tmp_path: Path) -> None:
    path, meta = ensure_store(tmp_path / "work", 300, "fake")
    result = measure(str(path), meta["sizes"], "fake", queries=12, users=3)
    stages = result["stages_ms"]
    assert set(STAGES) <= set(stages)
    totals = result["samples"]["total"]
    assert len(totals) == 12 and min(totals) > 0
    # what the stages measure lies inside the total of each recall
    assert result["unattributed_ms"]["p50"] >= 0 and result["unattributed_ms"]["mean"] >= 0
    assert sum(stages[s]["mean"] for s in STAGES) <= stages["total"]["mean"] + 1e-6
    for s in ("keyword", "vector", "turn_vector", "read", "rerank"):
        assert stages[s]["p50"] > 0, s
    assert result["embed_single_ms"]["p50"] > 0 and result["ratio_p50"] > 0


def test_bench_recall_profile_writes_the_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [
        "bench", "recall", "--profile", "--units", "200", "--queries", "10",
        "--profile-users", "2", "--embedder", "fake", "--workdir", str(tmp_path / "w"),
        "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "recall-profile.json").read_text(encoding="utf-8"))
    assert data["units"] == 200 and data["before"] is None
    assert len(data["load_start"]) == 3 and len(data["load_end"]) == 3
    assert data["machine"]["cpu_model"] and data["machine"]["nproc"]
    md = (out / "recall-profile.md").read_text(encoding="utf-8")
    for stage in STAGES:
        assert f"| {stage} |" in md
    assert "embedder alone" in md and "target ≤ 1.3×" in md and "load average" in md
    bad = CliRunner().invoke(app, ["bench", "recall", "--profile", "--units", "200",
                                   "--embedder", "fake", "--baseline-src", str(tmp_path),
                                   "--workdir", str(tmp_path / "w"), "--out", str(out)])
    assert bad.exit_code != 0 and "Traceback" not in bad.output


def test_profile_against_a_baseline_source_tree(tmp_path: Path) -> None:
    """--baseline-src measures another jiyi (here: this one) in alternating subprocesses on
    the same store; the report shows both columns, and a stage the baseline did not time
    reads as 0 instead of failing."""
    src = Path(__file__).resolve().parents[1] / "src"
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [
        "bench", "recall", "--profile", "--units", "200", "--queries", "10",
        "--profile-users", "2", "--embedder", "fake", "--workdir", str(tmp_path / "w"),
        "--baseline-src", str(src), "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "recall-profile.json").read_text(encoding="utf-8"))
    assert data["before"]["queries"] == data["after"]["queries"] == 10
    md = (out / "recall-profile.md").read_text(encoding="utf-8")
    assert "(before →" in md and "before:" in md
    from jiyi_bench.bench_recall_profile import write_report

    data["before"]["stages_ms"].pop("prefetch")
    _, md_path = write_report(data, tmp_path / "again", "cmd")
    assert "| prefetch | 0.0 → **" in md_path.read_text(encoding="utf-8")
