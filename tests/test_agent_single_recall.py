"""One agent turn recalls once: the prompt rebuilt after a tool call reuses the turn's hits, so
each recalled unit gets one ``recall_log`` row (the hit rate of S9 counts it once) and the
rebuilt prompt still carries the memories. Against the scripted OpenAI-compatible server."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from jiyi import Memory
from jiyi.agent import Agent
from jiyi.context.builder import RECALL_K
from jiyi.llm import make_client
from scripted_openai import ScriptedOpenAI, text_reply, tool_reply

MEMORIES = ["我的订单号是 ABC12345，寄到上海", "我的電話號碼是 13998765432",
            "I prefer deliveries after 6 pm"]


@pytest.fixture
def scripted() -> Iterator[ScriptedOpenAI]:
    server = ScriptedOpenAI()
    yield server
    server.close()


def order_status(order_id: str) -> dict[str, Any]:
    """Look up the shipping status of an order."""
    return {"order_id": order_id, "status": "shipped", "tracking_no": "SF1234567890"}


@pytest.mark.parametrize("question", [
    "我的订单 ABC12345 到哪了？",
    "我的訂單 ABC12345 到哪了？",
    "Where is my order ABC12345?",
])
def test_a_tool_round_logs_each_recalled_unit_once(
    any_mem: Memory, scripted: ScriptedOpenAI, question: str
) -> None:
    for text in MEMORIES:
        any_mem.ingest(text, session_id="s", user_id="amy")
    before = len(any_mem.store.export_user("amy")["recalls"])
    scripted.replies = [tool_reply("order_status", {"order_id": "ABC12345"}),
                        text_reply("订单 ABC12345 已发货 / shipped, SF1234567890.")]
    with Agent(any_mem, make_client(f"openai:{scripted.url}", timeout=10.0, retries=0),
               tools=[order_status]) as agent:
        reply = agent.turn(question, session_id="s", user_id="amy")
    assert reply.model_calls == 2 and len(reply.tool_calls) == 1  # the prompt was rebuilt
    assert reply.tool_calls[0].error is None

    logged = any_mem.store.export_user("amy")["recalls"][before:]
    assert logged, "the turn's recall is logged"
    assert len({r["recall_id"] for r in logged}) == 1  # one recall for the whole turn
    per_unit = Counter(r["unit_id"] for r in logged)
    assert per_unit and max(per_unit.values()) == 1, per_unit
    assert {h.unit.id for h in reply.hits} <= set(per_unit)

    # the rebuilt prompt carries the same memories, plus the tool's result
    first, again = (b["messages"][0]["content"] for b in scripted.bodies)
    order = next(h.unit for h in reply.hits if "ABC12345" in h.unit.content)
    assert order.content in first and order.content in again
    assert "SF1234567890" in again and "SF1234567890" not in first


def test_build_prompt_with_given_hits_does_not_recall(mem: Memory) -> None:
    mem.ingest("我的電話號碼是 13998765432", session_id="s", user_id="u")
    hits = mem.recall("我的电话是多少？", session_id="s", user_id="u", k=RECALL_K)
    logged = len(mem.store.export_user("u")["recalls"])
    assert hits and logged == len(hits)
    prompt = mem.build_prompt("我的电话是多少？", session_id="s", user_id="u", hits=hits)
    assert len(mem.store.export_user("u")["recalls"]) == logged  # no second recall
    assert "13998765432" in prompt.messages[0]["content"]
    assert [h.unit.id for h in prompt.hits] == [h.unit.id for h in hits][:len(prompt.hits)]
    # another session (no recent turns to summarise): given no hits, no memory
    other = mem.build_prompt("What is my phone number?", session_id="s2", user_id="u")
    empty = mem.build_prompt("What is my phone number?", session_id="s2", user_id="u", hits=[])
    assert "13998765432" in other.messages[0]["content"]
    assert "13998765432" not in empty.messages[0]["content"]
