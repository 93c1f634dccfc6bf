"""The inspector's "recall taken apart" is the recall users get: its final hits are exactly
``Memory.recall``'s for the same query, session, user and ``k`` (the user's whole scope, history
included), and its stages are the funnel's own trace of that recall. Over real HTTP."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from jiyi import Memory
from jiyi.service.app import create_app
from live_server import ThreadServer

TURNS = [
    ("old", "我的手机号是 13812345678，以后打这个"),
    ("old", "我住在杭州市西湖区文三路 90 号"),
    ("old", "I prefer deliveries after 6pm on weekdays"),
    ("mid", "我的訂單號是 HK20260501，麻煩幫我查一下"),
    ("mid", "My email is li.na@example.com"),
]
QUESTIONS = ["我的手机号是多少？", "我的電話是多少", "where do I live", "訂單 HK20260501 到哪了",
             "what's my email", "今天天气怎么样"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Any:
    db = tmp_path_factory.mktemp("inspect") / "m.db"
    with Memory.open(str(db), embedder="fake") as mem:
        for sid, text in TURNS:
            mem.ingest(text, session_id=sid, user_id="u")
    with ThreadServer(create_app(db=str(db), embedder="fake")) as srv, \
            httpx.Client(base_url=srv.url, timeout=30) as client:
        yield client, db


@pytest.mark.parametrize("question", QUESTIONS)
def test_inspector_hits_are_memory_recall_hits(served: Any, question: str) -> None:
    client, db = served
    resp = client.get("/inspector/api/recall",
                      params={"q": question, "session_id": "new", "user_id": "u", "k": 5})
    assert resp.status_code == 200, resp.text
    got = resp.json()
    with Memory.open(str(db), embedder="fake") as mem:
        hits = mem.recall(question, session_id="new", user_id="u", k=5, log=False)
    assert [h["id"] for h in got["hits"]] == [
        h.unit.id for h in hits]
    # the stages are the trace of that recall: every unit they list is one of its candidates,
    # and a rule hit of the final list is in the rule stage
    staged = {s["id"] for stage in got["stages"].values() for s in stage}
    rule_hits = {h.unit.id for h in hits if h.stage == "rule"}
    assert rule_hits <= {s["id"] for s in got["stages"]["rule"]}
    assert staged or not hits


def test_a_phone_question_finds_the_phone_in_the_rule_stage(served: Any) -> None:
    client, _ = served
    got = client.get("/inspector/api/recall", params={
        "q": "我的手机号是多少？", "session_id": "new", "user_id": "u"}).json()
    assert any("13812345678" in s["content"] for s in got["stages"]["rule"])
    assert any("13812345678" in h["content"] for h in got["hits"])


def test_recall_taken_apart_shows_each_stage_time(served: Any) -> None:
    """The funnel's own stage timers, per stage, in the order the stages first ran; and the
    entities the rule stage looked up are the trace's (the one recogniser read as a query)."""
    client, _ = served
    got = client.get("/inspector/api/recall", params={
        "q": "訂單 HK20260501 到哪了", "session_id": "new", "user_id": "u"}).json()
    stages = [t["stage"] for t in got["timings"]]
    assert len(stages) == len(set(stages))
    assert stages[0] == "rule"
    assert {"rule", "query", "keyword", "vector", "rerank"} <= set(stages)
    assert all(isinstance(t["ms"], float) and t["ms"] >= 0.0 for t in got["timings"])
    assert {"kind": "order_id", "value": "HK20260501"} in got["entities"]
