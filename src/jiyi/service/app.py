"""The FastAPI application of ``jiyi serve``: one :class:`~jiyi.Memory` per worker process."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI

from .. import Health, HealthConfig, __version__
from ..auth import Auth, RequireToken
from ..embed.batching import BatchingEmbedder
from ..errors import ConfigError
from ..memory import Memory
from ..metrics import JiyiMetrics
from .errors import install_error_handlers
from .inspector import inspector_router
from .middleware import BodyLimit, HttpMetrics
from .routes import router

DEFAULT_MAX_BODY = 1_000_000
#: How long a query may wait for concurrent ones to share a model call (``JIYI_QUERY_BATCH_MS``).
DEFAULT_QUERY_BATCH_MS = 2.0

#: Answered without a token: liveness, and the inspector's page and static files, which hold no
#: data (a browser cannot send a bearer token when it opens a page; the page's data calls to
#: /inspector/api/* carry it).
OPEN_PATHS = frozenset({"/healthz", "/"})
OPEN_PREFIXES = ("/inspector/static/",)


def create_app(
    memory_factory: Callable[[], Memory] | None = None,
    *,
    db: str | None = None,
    token: str | None = None,
    auth: Auth | None = None,
    max_body: int = DEFAULT_MAX_BODY,
    embedder: str | None = None,
    health_config: HealthConfig | None = None,
    query_batch_ms: float | None = DEFAULT_QUERY_BATCH_MS,
) -> FastAPI:
    """Build the app. ``memory_factory`` (or ``db``, a path or URL) opens the memory when the
    app starts; ``auth``: the tokens (see :mod:`jiyi.auth`), or ``token``, an admin token
    (``JIYI_TOKEN``); with neither, only loopback clients are answered. With a token every route
    but /healthz and the inspector's static page needs it as a bearer token. Bodies over
    ``max_body`` bytes get 413. ``query_batch_ms``: the model runs on a thread of its own and
    concurrent recalls' queries are embedded in one call, waiting at most this long for each
    other under load (:class:`~jiyi.embed.batching.BatchingEmbedder`); None: no batching."""
    if query_batch_ms is not None and not 0 <= query_batch_ms <= 1000:
        raise ConfigError("query_batch_ms must be between 0 and 1000")
    if max_body < 1:
        raise ConfigError("max_body must be at least 1 byte")
    if auth is None:
        auth = Auth.build(token)
    elif token is not None:
        raise ConfigError("give either auth or token, not both")

    def open_memory() -> Memory:
        if memory_factory is not None:
            return memory_factory()
        return Memory.open(db, embedder=embedder)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        mem = open_memory()
        batching = None
        if query_batch_ms is not None:
            batching = BatchingEmbedder(mem.embedder, window_s=query_batch_ms / 1000)
            mem.embedder = batching
        if health_config is not None:
            mem.health_config = health_config
        metrics = JiyiMetrics(health=lambda: _scrape_health(mem))
        mem.metrics = metrics
        app.state.memory = mem
        app.state.metrics = metrics
        try:
            yield
        finally:
            mem.close()
            if batching is not None:
                batching.close()

    app = FastAPI(
        title="jiyi", version=__version__, lifespan=lifespan,
        description="jiyi (记忆): long-term memory for LLM agents. Errors answer "
                    '{"error": {"code", "message"}}.',
    )
    install_error_handlers(app)
    app.include_router(router)
    app.include_router(inspector_router)
    app.add_middleware(BodyLimit, max_body=max_body)
    app.add_middleware(RequireToken, auth=auth, open_paths=OPEN_PATHS,
                       open_prefixes=OPEN_PREFIXES)
    app.add_middleware(HttpMetrics, observe=_observe_http(app))
    return app


def _scrape_health(mem: Memory) -> Health:
    return mem.health()


def _observe_http(app: FastAPI) -> Callable[[str, str, int, float], None]:
    def observe(method: str, route: str, status: int, seconds: float) -> None:
        metrics = getattr(app.state, "metrics", None)
        if isinstance(metrics, JiyiMetrics):
            metrics.observe_http(method, route, status, seconds)

    return observe


def app_from_env() -> FastAPI:
    """The uvicorn factory of ``jiyi serve``: settings from ``JIYI_DB``, ``JIYI_EMBEDDER``,
    ``JIYI_TOKEN``, ``JIYI_TOKENS_FILE``, ``JIYI_MAX_BODY`` and ``JIYI_QUERY_BATCH_MS``
    (``off``: no batching) (each worker process calls it)."""
    raw_max = os.environ.get("JIYI_MAX_BODY") or str(DEFAULT_MAX_BODY)
    try:
        max_body = int(raw_max)
    except ValueError as exc:
        raise ConfigError(f"JIYI_MAX_BODY must be an integer, got {raw_max!r}") from exc
    raw_batch = (os.environ.get("JIYI_QUERY_BATCH_MS") or str(DEFAULT_QUERY_BATCH_MS)).strip()
    try:
        batch_ms = None if raw_batch.lower() == "off" else float(raw_batch)
    except ValueError as exc:
        raise ConfigError("JIYI_QUERY_BATCH_MS must be a number of milliseconds or 'off', "
                          f"got {raw_batch!r}") from exc
    return create_app(db=os.environ.get("JIYI_DB") or None,
                      auth=Auth.from_env(), max_body=max_body,
                      embedder=os.environ.get("JIYI_EMBEDDER") or None, query_batch_ms=batch_ms)
