"""``Memory.build_prompt``: gather the inputs of :func:`assemble_prompt` from memory.

The facade checks the request once (:class:`PromptRequest`), recalls once and reads the
session's topics, then :func:`build_prompt` reads the recent turns and the replaced values and
assembles; it never calls back into the facade. The pure half lives in
:mod:`jiyi.context.prompt` and is snapshot-tested.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Protocol

from ..config import JiyiConfig
from ..errors import ValidationError
from ..store.base import Scope, Store
from ..text import detect_language
from ..units import Hit, MemoryType
from ..validation import check_text, check_time, check_user_id, require_session_id
from .execution import ExecutionContext
from .modelfile import DEFAULT_NUM_CTX
from .prompt import RESERVE_FOR_REPLY, Prompt, assemble_prompt
from .stale import StaleValues, annotate_stale, detect_locale, stale_values
from .summary import summarize_turns
from .tokens import TokenCounter, get_counter

RAW_TURNS = 6
SUMMARY_TURNS = 10
RECALL_K = 8
#: How many of the user's profile units (newest first) are read to find replaced slot values.
STALE_SCAN = 1000


@lru_cache(maxsize=1)
def shared_counter() -> TokenCounter:
    """One token counter per process (loading the Qwen vocabulary takes ~0.3 s)."""
    return get_counter()


def choose_anchor(hits: list[Hit], threshold: float) -> Hit | None:
    """The single most important fact for this turn: the best exact (rule-stage) hit, else the
    best-ranked confident hit, else the best user-profile hit (who the user is). Only a current
    hit can be the anchor: history (expired, superseded) is never presented as today's fact."""
    current = [h for h in hits if h.current]
    for pick in (
        [h for h in current if h.stage == "rule" and h.confidence >= threshold],
        [h for h in current if h.confidence >= threshold],
        [h for h in current if h.unit.type == MemoryType.USER_PROFILE],
    ):
        if pick:
            return pick[0]
    return None


def prompt_query(text: str, max_query_chars: int) -> str:
    """The recall query behind a prompt: at most ``max_query_chars`` of the input (the input
    itself is never cut)."""
    return text[:max_query_chars]


@dataclass(frozen=True)
class PromptRequest:
    """A prompt to build, checked once at the facade (:meth:`jiyi.Memory.build_prompt`)."""

    text: str
    session_id: str
    user_id: str
    as_of: datetime
    execution: ExecutionContext | None = None
    num_ctx: int = DEFAULT_NUM_CTX
    reserve_for_reply: int = RESERVE_FOR_REPLY

    @classmethod
    def checked(cls, text: str, *, session_id: str, user_id: str | None,
                execution: ExecutionContext | Mapping[str, object] | None, num_ctx: int,
                as_of: datetime | str | None, reserve_for_reply: int, max_turn_bytes: int,
                now: datetime) -> PromptRequest:
        """Every argument checked (a clear :class:`ValidationError` for a bad one)."""
        sid = require_session_id(session_id)
        uid = check_user_id(user_id, sid)
        user_input = check_text(text, what="text", max_bytes=max_turn_bytes)
        if isinstance(num_ctx, bool) or not isinstance(num_ctx, int) or num_ctx < 256:
            raise ValidationError(f"num_ctx must be an integer of at least 256; got {num_ctx!r}")
        when: datetime = check_time(as_of, "as_of") or now
        if isinstance(execution, Mapping):
            execution = ExecutionContext.model_validate(dict(execution))
        return cls(user_input, sid, uid, when, execution, num_ctx, reserve_for_reply)


class PromptSources(Protocol):
    """What assembling a prompt reads besides the recall: the store and the configuration."""

    @property
    def store(self) -> Store: ...

    @property
    def config(self) -> JiyiConfig: ...


def replaced_values(mem: PromptSources, user_id: str, as_of: datetime, hits: Sequence[Hit]) -> StaleValues:
    """The user's slot values replaced before ``as_of``: read from the profile units of every
    session (newest ``STALE_SCAN``) and the recalled units, then :func:`stale_values`."""
    units = mem.store.find_units(Scope(user_id=user_id, session_id=None), as_of=None,
                                 types=[MemoryType.USER_PROFILE], limit=STALE_SCAN)
    return stale_values([*units, *(h.unit for h in hits)], as_of)


def build_prompt(mem: PromptSources, request: PromptRequest, hits: Sequence[Hit],
                 topic_reset: bool) -> Prompt:
    """Assemble the prompt of ``request`` from the recall's ``hits`` (read by the facade, the
    session state of a topic just left already out) and ``topic_reset`` (the input left the
    session's topic: a ``<|context_reset|>``), the recent turns and the replaced slot values."""
    found = list(hits)
    user_input, uid, when = request.text, request.user_id, request.as_of
    turns = mem.store.recent_turns(Scope(user_id=uid, session_id=request.session_id),
                                   SUMMARY_TURNS)
    language = detect_language(user_input)
    locale = detect_locale(user_input)
    stale = replaced_values(mem, uid, when, found)
    # labelled before summarising, so the summary picks from what the model will read
    pairs = [(t.role, annotate_stale(t.text, stale, locale)) for t in turns]
    summary = summarize_turns(pairs, language=language)
    return assemble_prompt(
        user_input=user_input,
        hits=found,
        anchor=choose_anchor(found, mem.config.recall.confidence_threshold),
        execution=request.execution,
        summary=summary,
        recent_turns=pairs[-RAW_TURNS:],
        topic_reset=topic_reset,
        num_ctx=request.num_ctx,
        counter=shared_counter(),
        language=language,
        reserve_for_reply=request.reserve_for_reply,
        now=when,
        stale=stale,
        locale=locale,
    )
