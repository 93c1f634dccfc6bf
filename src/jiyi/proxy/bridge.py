"""Where the proxy meets memory: who is talking, the rewritten messages, and the ingest.

Pure decisions (:func:`chat_scope`, :func:`last_user_text`, :func:`client_system_text`) are kept
apart from the two calls into :class:`~jiyi.Memory` (:func:`rewrite_messages`, :func:`ingest_turns`),
which are synchronous and run in a worker thread by the routes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from ..auth import Grant, authorize
from ..context.tokens import get_counter
from ..errors import ValidationError
from ..memory import Memory
from ..validation import MAX_ID_CHARS, check_identifier, check_user_id, require_session_id

SESSION_HEADER = "x-jiyi-session"
USER_HEADER = "x-jiyi-user"
#: Optional: the client's id for this exchange. The user turn is stored under it and the reply
#: under ``<id>:reply``, so a retried request (same session) stores nothing twice.
TURN_HEADER = "x-jiyi-turn-id"
MEMORY_HEADER = "X-Jiyi-Memory"
REASON_HEADER = "X-Jiyi-Memory-Reason"

#: Tokens kept free beside jiyi's own budget for the client's system prompt and template quirks.
SYSTEM_MARGIN = 32


@dataclass(frozen=True)
class ChatScope:
    session_id: str
    user_id: str
    turn_id: str | None = None  # X-Jiyi-Turn-Id: the exchange's id (None: every request new)


@dataclass
class Rewrite:
    """The messages to send upstream, and what to report in headers."""

    messages: list[dict[str, Any]]
    user_text: str
    scope: ChatScope
    tokens: int = 0
    recalled: int = 0
    trimmed: list[str] = field(default_factory=list)


def header_text(value: str | None) -> str | None:
    """A header value as text: raw UTF-8 bytes (read as latin-1 by the server) are recovered,
    and percent-encoding is decoded, so ``X-Jiyi-Session: %E4%BC%9A%E8%AF%9D`` means 会话."""
    if value is None:
        return None
    with contextlib.suppress(UnicodeEncodeError, UnicodeDecodeError):
        value = value.encode("latin-1").decode("utf-8")
    return unquote(value, errors="strict") if "%" in value else value


def chat_scope(headers: Mapping[str, str], body: Mapping[str, Any]) -> ChatScope | None:
    """Session and user of a chat request: the ``X-Jiyi-Session``/``X-Jiyi-User`` headers, else
    the OpenAI ``user`` field (then one session per user). ``None`` when there is neither.
    A blank or malformed id raises :class:`ValidationError`."""
    try:
        session = header_text(headers.get(SESSION_HEADER))
        user = header_text(headers.get(USER_HEADER))
        turn = header_text(headers.get(TURN_HEADER))
    except UnicodeDecodeError:
        raise ValidationError("X-Jiyi-Session/X-Jiyi-User/X-Jiyi-Turn-Id: percent-encoding is "
                              "not UTF-8") from None
    body_user = body.get("user")
    if session is None and isinstance(body_user, str) and body_user.strip():
        session = body_user
        user = user or body_user
    if session is None:
        if user is not None:
            raise ValidationError("X-Jiyi-User needs X-Jiyi-Session (jiyi never infers a session)")
        return None
    sid = require_session_id(session)
    uid = check_user_id(user, sid)
    tid = check_identifier(turn, "X-Jiyi-Turn-Id") if turn is not None else None
    if tid is not None and len(tid) > MAX_ID_CHARS - len(REPLY_SUFFIX):
        raise ValidationError(
            f"X-Jiyi-Turn-Id is longer than {MAX_ID_CHARS - len(REPLY_SUFFIX)} characters")
    return ChatScope(session_id=sid, user_id=uid, turn_id=tid)


def check_access(grant: Grant, scope: ChatScope) -> None:
    """A chat with memory reads (recall) and writes (ingest) the scope's user: the token must
    allow both on that user (:class:`~jiyi.auth.ForbiddenError` otherwise)."""
    authorize(grant, "read", scope.user_id)
    authorize(grant, "write", scope.user_id)


def _text_of(content: Any) -> str | None:
    """Plain text of a message ``content``: a string, or a list of ``{"type": "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for part in content:
            if not isinstance(part, Mapping):
                return None
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                return None  # images, audio...: not for jiyi to rewrite
        return "\n".join(parts)
    return None


def last_user_text(messages: Any) -> str | None:
    """The text of the final message when it is a plain-text user turn, else ``None``."""
    if not isinstance(messages, list) or not messages:
        return None
    last = messages[-1]
    if not isinstance(last, Mapping) or last.get("role") != "user" or last.get("images"):
        return None
    text = _text_of(last.get("content"))
    return text if text and text.strip() else None


def client_system_text(messages: Sequence[Any]) -> str:
    """The client's own system instructions (kept: they are the agent's persona and rules)."""
    parts = []
    for msg in messages:
        if isinstance(msg, Mapping) and msg.get("role") == "system":
            text = _text_of(msg.get("content"))
            if text and text.strip():
                parts.append(text.strip())
    return "\n\n".join(parts)


def rewrite_messages(
    memory: Memory, scope: ChatScope, messages: Sequence[Any], user_text: str, num_ctx: int
) -> Rewrite:
    """jiyi's prompt for this turn: the client's system instructions first, then jiyi's system
    message (anchor, recalled memories, channels), recent turns from memory, the user input.
    The client's raw history is replaced by memory (that is the point of the proxy)."""
    system = client_system_text(messages)
    reserve = get_counter().count(system) + SYSTEM_MARGIN if system else 0
    prompt = memory.build_prompt(
        user_text, session_id=scope.session_id, user_id=scope.user_id,
        num_ctx=max(1, num_ctx - reserve),
    )
    out: list[dict[str, Any]] = [dict(m) for m in prompt.messages]
    if system:
        if out and out[0].get("role") == "system":
            out[0]["content"] = f"{system}\n\n{out[0]['content']}"
        else:
            out.insert(0, {"role": "system", "content": system})
    return Rewrite(messages=out, user_text=user_text, scope=scope, tokens=prompt.tokens + reserve,
                   recalled=len(prompt.hits), trimmed=list(prompt.trimmed))


#: The reply of exchange ``X`` is stored as turn ``X:reply``.
REPLY_SUFFIX = ":reply"


def ingest_turns(memory: Memory, scope: ChatScope, user_text: str, reply: str) -> int:
    """Store the user turn and the assistant's complete reply, both or neither (one batch, one
    transaction, one embedder call); returns units written. With ``X-Jiyi-Turn-Id`` the pair is
    idempotent: a retried exchange is a no-op for memory."""
    turns: list[dict[str, Any]] = [
        {"text": user_text, "session_id": scope.session_id, "user_id": scope.user_id,
         "role": "user", "turn_id": scope.turn_id}]
    if reply.strip():
        turns.append({"text": reply, "session_id": scope.session_id, "user_id": scope.user_id,
                      "role": "assistant",
                      "turn_id": None if scope.turn_id is None else scope.turn_id + REPLY_SUFFIX})
    return sum(len(units) for units in memory.ingest_many(turns))


def memory_headers(rewrite: Rewrite | None, reason: str = "") -> dict[str, str]:
    """Response headers telling the client what jiyi did with this request."""
    if rewrite is None:
        headers = {MEMORY_HEADER: "bypass"}
        if reason:
            headers[REASON_HEADER] = reason
        return headers
    return {
        MEMORY_HEADER: "on",
        "X-Jiyi-Session": quote(rewrite.scope.session_id, safe=""),
        "X-Jiyi-Recalled": str(rewrite.recalled),
        "X-Jiyi-Prompt-Tokens": str(rewrite.tokens),
        "X-Jiyi-Trimmed": ",".join(rewrite.trimmed)[:500],
    }
