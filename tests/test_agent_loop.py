"""The agent loop against a scripted OpenAI-compatible server on 127.0.0.1 (a real HTTP server),
and against the fake Ollama server for ``num_ctx`` from ``/api/show``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from fake_ollama import FakeOllama
from jiyi import Memory
from jiyi.agent import DEFAULT_NUM_CTX, Agent
from jiyi.agent_tools import as_tools, tool
from jiyi.errors import BudgetError, LLMError, ValidationError
from jiyi.llm import make_client
from jiyi.llm.ollama import OllamaClient
from jiyi.units import MemoryType
from live_server import ThreadServer
from scripted_openai import ScriptedOpenAI, text_reply, tool_reply

_OPEN: list[Agent] = []


@pytest.fixture
def scripted() -> Iterator[ScriptedOpenAI]:
    server = ScriptedOpenAI()
    yield server
    while _OPEN:
        _OPEN.pop().close()
    server.close()


def _agent(mem: Memory, server: ScriptedOpenAI, **kwargs: Any) -> Agent:
    agent = Agent(mem, make_client(f"openai:{server.url}", timeout=10.0, retries=0), **kwargs)
    _OPEN.append(agent)
    return agent


def _system(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


def test_turn_sends_a_budgeted_prompt_and_writes_both_turns(
    mem: Memory, scripted: ScriptedOpenAI
) -> None:
    mem.ingest("我叫张伟，订单号是 ABC12345", session_id="s1", user_id="u1")
    scripted.replies = [text_reply("张先生，您的订单 ABC12345 已发货。", prompt_tokens=321)]
    agent = _agent(mem, scripted, max_tokens=64, temperature=0.0)
    reply = agent.turn("我的订单号是多少？", session_id="s1", user_id="u1")

    body = scripted.bodies[-1]
    assert body["model"] == "scripted" and body["stream"] is False
    assert body["max_tokens"] == 64 and body["temperature"] == 0.0
    assert "tools" not in body and "tool_choice" not in body
    assert "<|memory_anchor|>" in _system(body) and "ABC12345" in _system(body)
    assert body["messages"][-1] == {"role": "user", "content": "我的订单号是多少？"}
    # num_ctx came from the server's /models metadata (llama.cpp reports n_ctx)
    assert reply.num_ctx == 4096
    assert reply.prompt_tokens <= 4096 - 64
    assert reply.server_prompt_tokens == 321
    assert reply.text == "张先生，您的订单 ABC12345 已发货。"
    assert any("ABC12345" in h.unit.content for h in reply.hits)

    turns = mem.store.recent_turns(mem_scope("u1", "s1"), 10)
    assert [(t.role, t.text) for t in turns][-2:] == [
        ("user", "我的订单号是多少？"), ("assistant", "张先生，您的订单 ABC12345 已发货。")]
    order_unit = next(h.unit for h in reply.hits if "ABC12345" in h.unit.content)
    assert reply.feedback[order_unit.id] == "used"
    assert mem.get(order_unit.id).relevance_score == pytest.approx(1.1)
    used, judged = mem.store.recall_hit_rate(None)
    assert judged >= 1 and used >= 1


def mem_scope(user: str, session: str) -> Any:
    from jiyi.store import Scope

    return Scope(user_id=user, session_id=session)


def test_tool_round_trip_updates_execution_context_before_the_model_runs_again(
    mem: Memory, scripted: ScriptedOpenAI
) -> None:
    seen_during_tool: list[Any] = []
    seen_at_second_call: list[Any] = []
    agent: Agent

    def get_order_status(order_id: str, verbose: bool = False) -> dict[str, Any]:
        """Look up the shipping status of an order."""
        snap = agent.execution.snapshot()
        seen_during_tool.append((snap.current_tool, snap.tool_args, snap.last_tool_result))
        return {"order_id": order_id, "status": "shipped", "tracking_no": "SF1234567890"}

    def second(body: dict[str, Any]) -> dict[str, Any]:
        snap = agent.execution.snapshot()
        seen_at_second_call.append(snap.last_tool_result)
        return text_reply("Your order ABC12345 has shipped, tracking SF1234567890.")

    scripted.replies = [tool_reply("get_order_status", {"order_id": "ABC12345"}), second]
    agent = _agent(mem, scripted, tools=[get_order_status], max_tokens=32)
    choice = {"type": "function", "function": {"name": "get_order_status"}}
    reply = agent.turn("Where is my order ABC12345?", session_id="s2", tool_choice=choice)

    first, again = scripted.bodies
    assert first["tool_choice"] == choice
    assert first["tools"] == [{"type": "function", "function": {
        "name": "get_order_status", "description": "Look up the shipping status of an order.",
        "parameters": {"type": "object", "required": ["order_id"], "properties": {
            "order_id": {"type": "string"}, "verbose": {"type": "boolean"}}}}}]
    assert "tool_choice" not in again  # forcing applies to the first call only
    # the tool ran with the call recorded and no stale result...
    assert seen_during_tool == [("get_order_status", {"order_id": "ABC12345"}, None)]
    # ...and its result was in the context before the model ran again
    assert seen_at_second_call == [
        {"order_id": "ABC12345", "status": "shipped", "tracking_no": "SF1234567890"}]
    system = _system(again)
    assert "<|execution_context|>" in system
    payload = system.rsplit("<|execution_context|>", 1)[1].split("</|execution_context|>")[0]
    assert json.loads(payload)["last_tool_result"]["tracking_no"] == "SF1234567890"
    assert reply.model_calls == 2 and len(reply.tool_calls) == 1
    assert reply.tool_calls[0].error is None
    tool_units = [u for u in reply.units_written if u.type == MemoryType.TOOL_RESULT]
    assert tool_units and any("SF1234567890" in u.content for u in tool_units)
    assert reply.text.startswith("Your order ABC12345")


def test_failing_and_unknown_tools_are_data_not_crashes(
    mem: Memory, scripted: ScriptedOpenAI
) -> None:
    def lookup(code: str) -> dict[str, str]:
        """Always fails."""
        raise RuntimeError("上游服务 503")

    scripted.replies = [tool_reply("lookup", {"code": "E1042"}),
                        tool_reply("no_such_tool", {}), text_reply("抱歉，查询失败了。")]
    agent = _agent(mem, scripted, tools=[lookup], max_tool_rounds=3)
    reply = agent.turn("查一下错误码 E1042", session_id="s3")
    assert [r.name for r in reply.tool_calls] == ["lookup", "no_such_tool"]
    assert reply.tool_calls[0].error == "RuntimeError: 上游服务 503"
    assert "unknown tool" in (reply.tool_calls[1].error or "")
    assert reply.text == "抱歉，查询失败了。" and reply.model_calls == 3


def test_tool_rounds_are_bounded(mem: Memory, scripted: ScriptedOpenAI) -> None:
    def ping() -> str:
        """Ping."""
        return "pong"

    scripted.replies = [tool_reply("ping", {})]  # repeats forever
    agent = _agent(mem, scripted, tools=[ping], max_tool_rounds=2)
    reply = agent.turn("ping please", session_id="s4")
    assert reply.model_calls == 3 and len(reply.tool_calls) == 2
    assert "tools" not in scripted.bodies[-1]  # the last call may not ask for more tools
    assert reply.text == ""  # the model never answered in text: nothing ingested as a reply


def test_contradicting_reply_counts_as_wrong(mem: Memory, scripted: ScriptedOpenAI) -> None:
    mem.ingest("我的手机号是 13812345678", session_id="s5")
    mem.ingest("我换号了，新号是 13998765432", session_id="s5")
    scripted.replies = [text_reply("您的手機號是 138 1234 5678。")]  # the old, replaced number
    reply = _agent(mem, scripted).turn("我現在的電話是多少？", session_id="s5")
    current = [h.unit for h in reply.hits if "13998765432" in h.unit.content]
    assert current, [h.unit.content for h in reply.hits]
    assert reply.feedback[current[0].id] == "wrong"
    assert mem.get(current[0].id).relevance_score == pytest.approx(0.7)


def test_three_forgetful_turns_with_empty_recall_raise_the_amnesia_alert(
    mem: Memory, scripted: ScriptedOpenAI
) -> None:
    scripted.replies = [text_reply("抱歉，我不太记得了，请再说一遍。")]
    agent = _agent(mem, scripted)
    flags = [agent.turn(text, session_id="s6").amnesia for text in ("嗯", "好的", "ok")]
    assert flags == [False, False, True]
    assert mem.health("s6").amnesia_alert is True
    scripted.replies = [text_reply("Sure, here you go.")]
    assert agent.turn("thanks", session_id="s6").amnesia is False


def test_small_window_trims_and_never_exceeds_num_ctx(
    mem: Memory, scripted: ScriptedOpenAI
) -> None:
    for i in range(12):
        mem.ingest(f"第{i}个订单号是 ORD{i:05d}，地址是上海市浦东新区张江路{i}号", session_id="s7")
    agent = _agent(mem, scripted, num_ctx=420, max_tokens=64)
    reply = agent.turn("我有哪些订单？", session_id="s7")
    assert reply.num_ctx == 420 and reply.prompt_tokens <= 420 - 64
    assert reply.trimmed
    with pytest.raises(BudgetError):
        _agent(mem, scripted, num_ctx=256, max_tokens=200).turn("长" * 400, session_id="s7")


def test_default_window_when_the_server_reports_none(mem: Memory) -> None:
    server = ScriptedOpenAI(n_ctx=None)
    try:
        with _agent(mem, server) as agent:
            assert agent.turn("hello", session_id="s8").num_ctx == DEFAULT_NUM_CTX
    finally:
        server.close()


def test_ollama_num_ctx_comes_from_api_show(mem: Memory) -> None:
    fake = FakeOllama()
    with ThreadServer(fake.app) as srv, Agent(
        mem, OllamaClient("qwen2.5:7b", base_url=srv.url, timeout=10.0)
    ) as agent:
        reply = agent.turn("你好，我叫李雷", session_id="s9")
    chat = fake.bodies("/api/chat")[-1]
    assert fake.bodies("/api/show") == [{"model": "qwen2.5:7b"}]
    assert reply.num_ctx == 8192 and chat["options"]["num_ctx"] == 8192
    assert chat["stream"] is False and reply.text


def test_bad_input_and_dead_server_are_clear_errors(mem: Memory, scripted: ScriptedOpenAI) -> None:
    agent = _agent(mem, scripted)
    with pytest.raises(ValidationError):
        agent.turn("hi", session_id=None)
    with pytest.raises(ValidationError):
        agent.turn("   ", session_id="s10")
    with pytest.raises(ValidationError):
        Agent(mem, agent.llm, num_ctx=10)
    dead = Agent(mem, make_client("openai:m@http://127.0.0.1:9/v1", timeout=2.0, retries=0),
                 num_ctx=4096)
    with dead, pytest.raises(LLMError):
        dead.turn("hi", session_id="s10")
    assert mem.store.recent_turns(mem_scope("s10", "s10"), 5) == []  # nothing half-written


def test_tool_helper_schema_and_errors() -> None:
    def search(query: str, limit: int = 5, tags: list[str] | None = None) -> list[str]:
        """Search things.

        More text."""
        return [query] * limit

    t = tool(search)
    assert t.spec()["function"]["description"] == "Search things."
    assert t.parameters == {"type": "object", "required": ["query"], "properties": {
        "query": {"type": "string"}, "limit": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}}}}
    assert t.run({"query": "耳机", "limit": 2}) == ["耳机", "耳机"]
    assert t.run({}) == {"error": "missing argument(s) for search: query"}
    assert "bad arguments" in t.run({"query": "x", "nope": 1})["error"]
    explicit = tool(lambda **kw: {"ok": True},
                    {"type": "function", "function": {"name": "ok", "parameters": {
                        "type": "object", "properties": {}}}})
    assert explicit.name == "ok" and explicit.run({}) == {"ok": True}
    assert tool(lambda: object(), name="weird").run({})["error"].startswith("weird returned")
    with pytest.raises(ValidationError):
        tool(search, {"type": "array"})
    with pytest.raises(ValidationError):
        tool(lambda *a: None, name="star")
    with pytest.raises(ValidationError):
        as_tools([search, search])


def test_cut_off_tool_arguments_become_a_tool_error(mem: Memory, scripted: ScriptedOpenAI) -> None:
    """A small model stopped by max_tokens mid-arguments must not end the turn."""
    calls: list[str] = []

    def get_order_status(order_id: str) -> dict[str, str]:
        """Look up an order."""
        calls.append(order_id)
        return {"status": "shipped"}

    broken = tool_reply("get_order_status", {})
    broken["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"order_id": "12'
    scripted.replies = [broken, text_reply("请再告诉我一次订单号。")]
    agent = _agent(mem, scripted, tools=[get_order_status])
    reply = agent.turn("我的订单到哪了？", session_id="s-cut")
    assert calls == []  # the tool never ran on half an argument list
    assert "not a JSON object" in (reply.tool_calls[0].error or "")
    assert reply.text == "请再告诉我一次订单号。"
