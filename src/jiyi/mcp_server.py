"""``jiyi mcp``: jiyi's memory as a Model Context Protocol server (official ``mcp`` SDK).

Four tools, each scoped by explicit ``session_id`` / ``user_id`` arguments (never a default
session): ``remember`` (store a turn), ``recall`` (best memories for a query), ``forget``
(invalidate a unit of that user; kept for audit) and ``memory_health`` (freshness, hit rate,
amnesia alerts). A jiyi error (bad input, unknown unit) comes back as a tool error result, never
a crash.

Over streamable HTTP (:func:`mcp_http_app`) the app sits behind :class:`jiyi.auth.RequireToken`
like ``serve`` and ``proxy``: a missing or wrong token is an HTTP 401, and each tool checks the
token's grant for the user it touches (``remember``/``forget``: write; ``recall``: read;
``memory_health``: metrics), answering a ``forbidden: ...`` tool error outside it. Over stdio the
client launched the process and may do everything.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server import MCPServer  # optional extra: pip install 'jiyi[mcp]'
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .auth import LOCAL, Auth, Grant, Operation, RequireToken, authorize, grant_of
from .errors import JiyiError, NotFoundError
from .memory import Memory
from .validation import MAX_ID_CHARS, check_user_id, require_session_id

INSTRUCTIONS = (
    "Long-term memory for this conversation (jiyi, 记忆). Call `recall` with the user's question "
    "before answering anything that may depend on earlier conversations; call `remember` with "
    "each user turn (and your reply) worth keeping; `forget` a memory the user retracts. Always "
    "pass the same session_id for one conversation and the user's user_id across conversations."
)

Session = Annotated[str, Field(description="Conversation id (required; jiyi never infers one).",
                               min_length=1, max_length=MAX_ID_CHARS)]
User = Annotated[str | None, Field(
    default=None, description="User id; memories of this user are shared across their sessions. "
                              "Defaults to the session id.", max_length=MAX_ID_CHARS)]
Instant = Annotated[str | None, Field(
    default=None, description="ISO-8601 instant, e.g. 2026-05-01T09:30:00Z (default: now).")]


def _fail(exc: JiyiError) -> ToolError:
    return ToolError(f"{exc.code}: {exc}")


def _grant(ctx: Context) -> Grant:
    """The token's grant of an HTTP request (set by :class:`RequireToken`); stdio: everything."""
    request = ctx.request_context.request
    if request is None:
        return LOCAL
    return grant_of(request.scope)


def _need(ctx: Context | None) -> Context:
    if ctx is None:  # the SDK always injects it; a direct call without one gets nothing
        raise JiyiError("no request context")
    return ctx


def _allow(ctx: Context, operation: Operation, session_id: str | None = None,
           user_id: str | None = None) -> None:
    """Check the grant for ``operation`` on the user the memory will use (as it derives it)."""
    user = (check_user_id(user_id, require_session_id(session_id))
            if session_id is not None else None)
    authorize(_grant(ctx), operation, user)


def create_mcp_server(memory: Memory) -> MCPServer:
    """An MCP server whose tools read and write ``memory`` (the caller owns and closes it)."""
    server = MCPServer("jiyi", instructions=INSTRUCTIONS, title="jiyi memory")

    @server.tool(description="Store one conversation turn (or a tool result as JSON text) and "
                             "the memory units it yields. Returns the units written or updated.")
    def remember(
        text: Annotated[str, Field(description="The turn's text, Chinese or English.",
                                   min_length=1)],
        session_id: Session,
        user_id: User = None,
        role: Annotated[Literal["user", "assistant", "tool", "system"], Field(
            description="Who said it.")] = "user",
        at: Instant = None,
        turn_id: Annotated[str | None, Field(
            default=None, description="Your id of the turn, kept as provenance.")] = None,
        ctx: Context | None = None,
    ) -> dict[str, Any]:
        try:
            _allow(_need(ctx), "write", session_id, user_id)
            units = memory.ingest(text, session_id=session_id, user_id=user_id, role=role, at=at,
                                  turn_id=turn_id)
        except JiyiError as exc:
            raise _fail(exc) from exc
        return {"units": [u.to_public_dict() for u in units]}

    @server.tool(description="Recall the memories that best answer a query, valid at `as_of` "
                             "(default now), best first, with score and the recall stage.")
    def recall(
        query: Annotated[str, Field(description="What to recall.", min_length=1)],
        session_id: Session,
        user_id: User = None,
        k: Annotated[int, Field(description="At most k hits.", ge=1, le=100)] = 5,
        as_of: Instant = None,
        ctx: Context | None = None,
    ) -> dict[str, Any]:
        try:
            _allow(_need(ctx), "read", session_id, user_id)
            hits = memory.recall(query, session_id=session_id, user_id=user_id, k=k, as_of=as_of)
        except JiyiError as exc:
            raise _fail(exc) from exc
        return {"hits": [h.to_public_dict() for h in hits]}

    @server.tool(description="Forget a memory unit of this user: it is invalidated now (kept for "
                             "audit and for past `as_of` queries) and never recalled as current.")
    def forget(
        unit_id: Annotated[str, Field(description="The unit's id (from recall).", min_length=1)],
        session_id: Session,
        user_id: User = None,
        reason: Annotated[str, Field(description="Why (kept for audit).",
                                     min_length=1)] = "forgotten on request",
        ctx: Context | None = None,
    ) -> dict[str, Any]:
        try:
            sid = require_session_id(session_id)
            uid = check_user_id(user_id, sid)
            authorize(_grant(_need(ctx)), "write", uid)
            unit = memory.get(unit_id)
            if unit.user_id != uid:  # another user's unit: as if it did not exist
                raise NotFoundError(f"no memory unit {unit_id!r} for user {uid!r}")
            forgotten = memory.forget(unit.id, reason)
        except JiyiError as exc:
            raise _fail(exc) from exc
        return {"unit": forgotten.to_public_dict()}

    @server.tool(description="Memory health: freshness ratio, hit rate, amnesia alerts and "
                             "unit counts (valid + expired + superseded + forgotten = total), "
                             "for the whole store or one session. Read-only: it never deletes.")
    def memory_health(
        session_id: Annotated[str | None, Field(
            default=None, description="Only this session's amnesia status.")] = None,
        user_id: User = None,
        ctx: Context | None = None,
    ) -> dict[str, Any]:
        try:
            authorize(_grant(_need(ctx)), "metrics")  # store-wide figures
            health = memory.health(session_id, user_id=user_id)
        except JiyiError as exc:
            raise _fail(exc) from exc
        data: dict[str, Any] = health.model_dump(mode="json")
        return data

    return server


def mcp_http_app(server: MCPServer, auth: Auth, *, host: str = "127.0.0.1") -> Any:
    """The streamable-HTTP ASGI app of ``server`` (MCP at ``/mcp``, liveness at ``/healthz``)
    behind jiyi's token check."""
    app = server.streamable_http_app(host=host)
    app.router.routes.append(Route("/healthz", _healthz, methods=["GET"]))
    return RequireToken(app, auth, open_paths=("/healthz",))


async def _healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})
