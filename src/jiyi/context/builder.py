"""``Memory.build_prompt``: gather the inputs of :func:`assemble_prompt` from memory.

The impure half of prompt assembly (recall, recent turns, topic state); the pure half lives in
:mod:`jiyi.context.prompt` and is snapshot-tested.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache

from ..errors import ValidationError
from ..services import PromptServices
from ..store.base import Scope
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


def recall_for_prompt(
    mem: PromptServices, text: str, *, session_id: str, user_id: str, as_of: datetime,
    k: int = RECALL_K,
) -> list[Hit]:
    """The recall behind a prompt: at most ``max_query_chars`` of the input is the query (the
    input itself is never cut). Logged to ``recall_log`` like any recall."""
    query = text[: mem.config.max_query_chars]
    return mem.recall(query, session_id=session_id, user_id=user_id, k=k, as_of=as_of)


def replaced_values(mem: PromptServices, user_id: str, as_of: datetime, hits: Sequence[Hit]) -> StaleValues:
    """The user's slot values replaced before ``as_of``: read from the profile units of every
    session (newest ``STALE_SCAN``) and the recalled units, then :func:`stale_values`."""
    units = mem.store.find_units(Scope(user_id=user_id, session_id=None), as_of=None,
                                 types=[MemoryType.USER_PROFILE], limit=STALE_SCAN)
    return stale_values([*units, *(h.unit for h in hits)], as_of)


def build_prompt(
    mem: PromptServices,
    text: str,
    *,
    session_id: str,
    user_id: str | None = None,
    execution: ExecutionContext | Mapping[str, object] | None = None,
    num_ctx: int = DEFAULT_NUM_CTX,
    as_of: datetime | str | None = None,
    reserve_for_reply: int = RESERVE_FOR_REPLY,
    k: int = RECALL_K,
    hits: Sequence[Hit] | None = None,
) -> Prompt:
    """Recall (unless ``hits`` are given), then assemble. ``hits``: what
    :func:`recall_for_prompt` already returned for this input, e.g. when the agent rebuilds the
    prompt after a tool call: no second recall, so no second ``recall_log`` row per unit."""
    sid = require_session_id(session_id)
    uid = check_user_id(user_id, sid)
    user_input = check_text(text, what="text", max_bytes=mem.config.max_turn_bytes)
    if isinstance(num_ctx, bool) or not isinstance(num_ctx, int) or num_ctx < 256:
        raise ValidationError(f"num_ctx must be an integer of at least 256; got {num_ctx!r}")
    when: datetime = check_time(as_of, "as_of") or mem.clock()
    if isinstance(execution, Mapping):
        execution = ExecutionContext.model_validate(dict(execution))

    found = (recall_for_prompt(mem, user_input, session_id=sid, user_id=uid, as_of=when, k=k)
             if hits is None else list(hits))
    # what the query does to the session's topics (read, never stored: the same state the
    # recall ranked with; the user's turn itself is stored by the ingest that follows)
    state = mem.topic_state(sid, uid, query=user_input[: mem.config.max_query_chars], as_of=when)
    topic_reset = bool(state is not None and state.switched and not state.returned)
    if topic_reset and state is not None and state.previous is not None:
        left = state.previous
        # At a context reset the session_state of the topic just left leaves the prompt.
        found = [h for h in found
                 if not (h.unit.type == MemoryType.SESSION_STATE and state.topic_of(h.unit) == left)]
    turns = mem.store.recent_turns(Scope(user_id=uid, session_id=sid), SUMMARY_TURNS)
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
        execution=execution,
        summary=summary,
        recent_turns=pairs[-RAW_TURNS:],
        topic_reset=topic_reset,
        num_ctx=num_ctx,
        counter=shared_counter(),
        language=language,
        reserve_for_reply=reserve_for_reply,
        now=when,
        stale=stale,
        locale=locale,
    )

