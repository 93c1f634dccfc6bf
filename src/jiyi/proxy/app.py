"""The proxy app factory: an ASGI app in front of one Ollama or OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response

from ..auth import Auth, RequireToken
from ..memory import Memory
from .forward import ProxyContext
from .ollama import ollama_router
from .openai import openai_router
from .upstream import ProxySettings, error_response, new_client


def create_proxy_app(memory: Memory | None, settings: ProxySettings,
                     auth: Auth | None = None) -> FastAPI:
    """An app that relays to ``settings.upstream`` and gives chat requests that name a session
    jiyi's memory. ``memory=None`` relays everything untouched (``X-Jiyi-Memory: bypass``).
    The caller owns ``memory`` (opens and closes it). ``auth``: the tokens (:mod:`jiyi.auth`);
    ``None``: no token, loopback clients only. With tokens, every path but ``/healthz`` needs
    one, a chat with memory needs read and write on its user, and the client's Authorization
    header (jiyi's token) is never relayed upstream."""
    auth = auth or Auth()
    ctx = ProxyContext(settings=settings, client=new_client(settings), memory=memory)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await ctx.client.aclose()

    app = FastAPI(title="jiyi proxy", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.proxy = ctx
    if settings.flavor == "ollama":
        app.include_router(ollama_router(ctx))
    app.include_router(openai_router(ctx))  # Ollama serves /v1 too

    @app.get("/")
    async def root() -> dict[str, str]:
        return {"service": "jiyi proxy", "upstream": settings.upstream, "flavor": settings.flavor,
                "memory": "on" if memory is not None else "off"}

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.exception_handler(404)
    async def not_found(request: Request, exc: Exception) -> Response:
        hint = " (the upstream is OpenAI-compatible: use /v1/...)" \
            if settings.flavor == "openai" and request.url.path.startswith("/api/") else ""
        return error_response(404, "not_found", f"no route {request.url.path}{hint}")

    app.add_middleware(RequireToken, auth=auth, open_paths=("/healthz",),
                       strip_authorization=auth.required)
    return app
