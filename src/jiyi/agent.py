"""The agent loop: recall -> prompt -> model (-> tools -> model) -> reply -> memory -> feedback.

One :meth:`Agent.turn`:

1. Recall for the user's text (once per turn), then ``build_prompt`` assembles a budgeted prompt
   with the execution channel, within the token budget. ``num_ctx`` is the caller's, else the
   model's own (Ollama ``/api/show``, llama.cpp ``/models``), else :data:`DEFAULT_NUM_CTX`.
2. The model answers. When it calls tools, each call is run, and the execution context is updated
   atomically after the tool returns and before the model runs again; the result (JSON) is
   ingested as a ``role="tool"`` turn (a ``tool_result`` unit). The prompt is rebuilt with the new
   execution context and the same hits (no second recall, no second ``recall_log`` row) and the
   model is asked again, at most ``max_tool_rounds`` times.
3. The user turn and the reply are ingested, in that order (the user turn keeps its start time).
4. Each injected memory gets feedback from :func:`jiyi.agent_feedback.judge_reply`.
5. The reply goes to the amnesia detector (``Memory.observe_reply``); whether the turn's
   recall came back empty is :func:`jiyi.units.recall_came_back_empty` of its hits,
   the same rule (on the same hits) the recall hook applies.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .agent_feedback import Judgement, judge_reply
from .agent_tools import Tool, as_tools
from .context.builder import RECALL_K, prompt_query
from .context.execution import ExecutionContext, ExecutionState, dumps
from .context.prompt import MIN_NUM_CTX, Prompt
from .errors import ValidationError
from .llm.base import ChatClient, ChatReply, ToolCall
from .memory import Memory
from .text.entities import extract_entities
from .units import Hit, MemoryUnit, recall_came_back_empty
from .validation import check_text, check_user_id, require_session_id

log = logging.getLogger("jiyi.agent")

#: The window assumed when neither the caller nor the server says (llama.cpp's usual n_ctx).
DEFAULT_NUM_CTX = 4096
DEFAULT_REPLY_TOKENS = 512


class ToolRun(BaseModel):
    """One tool call of a turn: what the model asked for and what came back."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = None
    seconds: float = 0.0


class AgentReply(BaseModel):
    """What one :meth:`Agent.turn` did."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    text: str
    hits: list[Hit] = Field(default_factory=list)
    prompt_tokens: int = Field(description="tokens of the last prompt sent (jiyi's count)")
    server_prompt_tokens: int | None = Field(default=None,
                                             description="the server's count of that prompt")
    num_ctx: int
    trimmed: list[str] = Field(default_factory=list)
    tool_calls: list[ToolRun] = Field(default_factory=list)
    feedback: dict[str, Judgement] = Field(default_factory=dict)
    amnesia: bool = False
    amnesia_streak: int = 0
    units_written: list[MemoryUnit] = Field(default_factory=list)
    model_calls: int = 0
    seconds: float = 0.0


class Agent:
    """A chat agent with jiyi memory. Not thread-safe per session: one turn at a time."""

    def __init__(
        self,
        memory: Memory,
        llm: ChatClient,
        *,
        tools: Sequence[Tool | Callable[..., Any]] | None = None,
        num_ctx: int | None = None,
        execution: ExecutionState | ExecutionContext | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        max_tool_rounds: int = 3,
        feedback: bool = True,
    ) -> None:
        if num_ctx is not None and (isinstance(num_ctx, bool) or not isinstance(num_ctx, int)
                                    or num_ctx < MIN_NUM_CTX):
            raise ValidationError(
                f"num_ctx must be an integer of at least {MIN_NUM_CTX}; got {num_ctx!r}")
        if max_tokens is not None and max_tokens < 1:
            raise ValidationError("max_tokens must be at least 1")
        if max_tool_rounds < 0:
            raise ValidationError("max_tool_rounds must not be negative")
        self.memory = memory
        self.llm = llm
        self.tools = as_tools(tools)
        self.execution = (execution if isinstance(execution, ExecutionState)
                          else ExecutionState(execution))
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.max_tool_rounds = max_tool_rounds
        self.give_feedback = feedback
        self._num_ctx = num_ctx

    def close(self) -> None:
        """Close the LLM client (the memory stays open: its owner closes it)."""
        self.llm.close()

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ context window
    @property
    def num_ctx(self) -> int:
        """The window prompts are budgeted against (asked from the server once when not given)."""
        if self._num_ctx is None:
            reported = self.llm.context_length()
            self._num_ctx = int(reported) if reported else DEFAULT_NUM_CTX
            log.info("num_ctx %d (%s)", self._num_ctx,
                     "from the server" if reported else "default: the server reports none")
        return self._num_ctx

    # ------------------------------------------------------------------ the turn
    def turn(
        self,
        text: Any,
        *,
        session_id: Any,
        user_id: Any = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> AgentReply:
        """Answer one user message. ``tool_choice`` ("auto", "none", "required" or
        ``{"type": "function", "function": {"name": ...}}``) applies to the first model call;
        ``max_tokens`` overrides the agent's reply limit for this turn."""
        sid = require_session_id(session_id)
        uid = check_user_id(user_id, sid)
        body = check_text(text, what="text", max_bytes=self.memory.config.max_turn_bytes)
        started, t0 = self.memory.clock(), time.perf_counter()
        num_ctx = self.num_ctx
        if max_tokens is not None and (isinstance(max_tokens, bool) or max_tokens < 1):
            raise ValidationError("max_tokens must be at least 1")
        limit = max_tokens if max_tokens is not None else self.max_tokens

        # One recall per turn: the prompt rebuilt after a tool call reuses these hits.
        recalled = self.memory.recall(
            prompt_query(body, self.memory.config.max_query_chars), session_id=sid,
            user_id=uid, k=RECALL_K, as_of=started)
        prompt = self._prompt(body, sid, uid, num_ctx, limit, recalled)
        first_hits = list(prompt.hits)
        injected: dict[str, MemoryUnit] = {h.unit.id: h.unit for h in prompt.hits}
        runs: list[ToolRun] = []
        written: list[MemoryUnit] = []
        reply = self._call(prompt, num_ctx, limit, tool_choice=tool_choice, with_tools=True)
        calls = 1
        rounds = 0
        while reply.tool_calls and self.tools and rounds < self.max_tool_rounds:
            rounds += 1
            for call in reply.tool_calls:
                run, units = self._run_tool(call, sid, uid)
                runs.append(run)
                written.extend(units)
            prompt = self._prompt(body, sid, uid, num_ctx, limit, recalled)
            injected.update({h.unit.id: h.unit for h in prompt.hits})
            reply = self._call(prompt, num_ctx, limit, tool_choice=None,
                               with_tools=rounds < self.max_tool_rounds)
            calls += 1

        answer = reply.content.strip()
        written.extend(self.memory.ingest(body, session_id=sid, user_id=uid, role="user",
                                          at=started))
        judged: dict[str, Judgement] = {}
        amnesia = False
        streak = 0
        if answer:
            written.extend(self.memory.ingest(answer, session_id=sid, user_id=uid,
                                              role="assistant"))
            if self.give_feedback:
                judged = self._feedback(list(injected.values()), answer)
            threshold = self.memory.config.recall.confidence_threshold
            status = self.memory.observe_reply(answer, session_id=sid, user_id=uid,
                                               recall_empty=recall_came_back_empty(
                                                   recalled, threshold))
            amnesia, streak = status.alerting, status.streak
        return AgentReply(
            text=answer, hits=first_hits, prompt_tokens=prompt.tokens,
            server_prompt_tokens=reply.prompt_tokens, num_ctx=num_ctx,
            trimmed=list(prompt.trimmed), tool_calls=runs, feedback=judged, amnesia=amnesia,
            amnesia_streak=streak, units_written=written, model_calls=calls,
            seconds=time.perf_counter() - t0,
        )

    # ------------------------------------------------------------------ steps
    def _prompt(self, body: str, sid: str, uid: str, num_ctx: int, limit: int | None,
                hits: list[Hit]) -> Prompt:
        reserve = limit if limit is not None else DEFAULT_REPLY_TOKENS
        return self.memory.build_prompt(body, session_id=sid, user_id=uid,
                                        execution=self.execution.snapshot(), num_ctx=num_ctx,
                                        reserve_for_reply=reserve, hits=hits)

    def _call(self, prompt: Prompt, num_ctx: int, limit: int | None, *, tool_choice: Any,
              with_tools: bool) -> ChatReply:
        specs = [t.spec() for t in self.tools.values()] if with_tools and self.tools else None
        options: dict[str, Any] = {}
        if specs and tool_choice is not None:
            options["tool_choice"] = tool_choice
        return self.llm.chat(prompt.messages, tools=specs, num_ctx=num_ctx,
                             max_tokens=limit, temperature=self.temperature,
                             options=options or None)

    def _run_tool(self, call: ToolCall, sid: str, uid: str) -> tuple[ToolRun, list[MemoryUnit]]:
        t0 = time.perf_counter()
        found = self.tools.get(call.name)
        self.execution.set_tool_call(call.name, call.arguments)
        if call.arguments_error is not None:
            # The model's arguments were not a JSON object (often cut off by max_tokens): the
            # tool does not run; the model hears why and may try again.
            result: Any = {"error": f"arguments were not a JSON object: {call.arguments_error}"}
        elif found is None:
            result = {"error": f"unknown tool {call.name!r}; known: {sorted(self.tools)}"}
        else:
            result = found.run(call.arguments)
        # Atomic execution context: it changes after the tool returned, before the model runs again.
        self.execution.set_tool_result(result)
        error = result.get("error") if isinstance(result, dict) else None
        record: dict[str, Any] = {"tool": call.name, **call.arguments}
        if isinstance(result, dict):
            record.update(result)
        else:
            record["result"] = result
        units = self.memory.ingest(dumps(record), session_id=sid, user_id=uid, role="tool")
        run = ToolRun(name=call.name, arguments=dict(call.arguments), result=result,
                      error=str(error) if error is not None else None,
                      seconds=time.perf_counter() - t0)
        return run, units

    def _feedback(self, units: list[MemoryUnit], answer: str) -> dict[str, Judgement]:
        entities = extract_entities(answer, self.memory.clock())
        judged = judge_reply(units, answer, entities)
        for unit_id, event in judged.items():
            self.memory.feedback(unit_id, event)
        return judged
