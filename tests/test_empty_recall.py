"""One definition of an "empty recall" (S9): no rule-stage hit and nothing at the confidence
threshold. The vector stage always returns neighbours, so "no hits at all" is not the test. The
recall hook (``observe_reply(recall_empty=None)``) and the agent loop decide the same way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from jiyi import Memory
from jiyi.agent import Agent
from jiyi.health.state import health_state_for
from jiyi.llm import make_client
from jiyi.recall.outcome import recall_came_back_empty
from jiyi.service.app import create_app
from jiyi.units import Hit
from live_server import ThreadServer
from scripted_openai import ScriptedOpenAI, text_reply

FACTS = ["我的订单号是 ABC12345", "我的電話號碼是 13998765432",
         "I live in Berlin and like green tea", "我喜欢喝乌龙茶"]
FORGETFUL = "抱歉，我不太记得了，请再说一遍。"
#: (query, recall comes back empty?): off-topic questions get only low-confidence neighbours.
CASES = [
    ("今天天气怎么样", True),
    ("今天天氣怎麼樣", True),
    ("Will it rain tomorrow?", True),
    ("我的订单号是多少", False),
    ("我的電話是多少？", False),
    ("where do I live", False),
]


@pytest.fixture
def filled(mem: Memory) -> Memory:
    for fact in FACTS:
        mem.ingest(fact, session_id="base", user_id="u")
    return mem


@pytest.fixture
def scripted() -> Iterator[ScriptedOpenAI]:
    server = ScriptedOpenAI([text_reply(FORGETFUL)])
    yield server
    server.close()


def _threshold(mem: Memory) -> float:
    return mem.config.recall.confidence_threshold


def test_the_rule(filled: Memory) -> None:
    hits = filled.recall("今天天气怎么样", session_id="base", user_id="u", log=False)
    assert hits and all(h.stage != "rule" for h in hits)  # neighbours come back anyway
    t = _threshold(filled)
    assert recall_came_back_empty([], t)
    assert recall_came_back_empty(hits, t)
    assert not recall_came_back_empty(
        [*hits, hits[-1].model_copy(update={"confidence": t})], t)
    low_rule: Hit = hits[0].model_copy(update={"stage": "rule", "confidence": 0.01})
    assert not recall_came_back_empty([low_rule], t)  # an exact match counts at any score
    assert recall_came_back_empty([hits[0].model_copy(update={"confidence": t - 1e-9})], t)


@pytest.mark.parametrize(("query", "empty"), CASES)
def test_recall_hook_uses_the_shared_rule(filled: Memory, query: str, empty: bool) -> None:
    sid = f"hook-{CASES.index((query, empty))}"
    hits = filled.recall(query, session_id=sid, user_id="u")
    assert hits, "the vector stage always returns neighbours"
    assert recall_came_back_empty(hits, _threshold(filled)) is empty
    status = filled.observe_reply(FORGETFUL, session_id=sid, user_id="u")  # recall_empty=None
    assert status.recall_empty is empty and status.forgetful is empty
    assert status.streak == (1 if empty else 0)


@pytest.mark.parametrize(("query", "empty"), CASES)
def test_agent_and_recall_hook_agree(
    filled: Memory, scripted: ScriptedOpenAI, query: str, empty: bool
) -> None:
    sid = f"agent-{CASES.index((query, empty))}"
    with Agent(filled, make_client(f"openai:{scripted.url}", timeout=10.0, retries=0),
               feedback=False) as agent:
        reply = agent.turn(query, session_id=sid, user_id="u")
    # the agent's decision (a forgetful reply counts only after an empty recall) ...
    agent_says_empty = reply.amnesia_streak == 1
    # ... and the one the recall hook noted for the same turn's recall
    hook_says_empty = health_state_for(filled.store).last_recall_empty("u", sid)
    assert agent_says_empty is hook_says_empty is empty
    assert reply.hits  # something was injected even when the recall counts as empty


def test_three_off_topic_turns_alert_through_the_default_path(filled: Memory) -> None:
    """Before: ``recall_empty=None`` meant "no hits at all", which the vector stage never
    allows once the user has memories, so the alert could not fire on this path."""
    for i, query in enumerate(("今天天气怎么样", "今天天氣怎麼樣", "Will it rain tomorrow?")):
        assert filled.recall(query, session_id="weather", user_id="u")
        status = filled.observe_reply(FORGETFUL, session_id="weather", user_id="u")
        assert status.streak == i + 1
    assert status.raised and filled.health("weather").amnesia_alert


def test_inspector_over_http_asks_to_confirm_by_the_same_rule(tmp_path: Path) -> None:
    """The inspector's ``ask_to_confirm`` is the shared rule: True on an empty store (no hits at
    all) and for an off-topic question, False for a question its memories answer."""
    db = tmp_path / "inspect.db"
    app = create_app(db=str(db), embedder="fake")
    with ThreadServer(app) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        def ask(q: str) -> dict[str, Any]:
            resp = c.get("/inspector/api/recall", params={"q": q, "session_id": "s", "user_id": "u"})
            assert resp.status_code == 200, resp.text
            return resp.json()  # type: ignore[no-any-return]

        empty = ask("我的订单号是多少")
        assert empty["hits"] == [] and empty["ask_to_confirm"] is True
        for fact in FACTS:
            assert c.post("/v1/turns", json={"session_id": "base", "user_id": "u",
                                             "text": fact}).status_code == 200
        with Memory.open(str(db), embedder="fake") as mem:
            for query, _ in CASES:
                got = ask(query)
                hits = mem.recall(query, session_id="s", user_id="u", log=False)
                assert got["ask_to_confirm"] is recall_came_back_empty(hits, _threshold(mem))
