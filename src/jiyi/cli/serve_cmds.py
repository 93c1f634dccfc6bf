"""``jiyi serve``: the HTTP service (FastAPI + uvicorn), one or several worker processes."""

from __future__ import annotations

import ipaddress
import os
import shutil
import tempfile
from typing import Annotated

import typer

from ..errors import ConfigError
from .common import state

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost; False for 0.0.0.0, :: and anything else."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond loopback without a bearer token."""
    if not is_loopback(host) and token is None:
        raise ConfigError(
            f"refusing to listen on {host} without a token: set JIYI_TOKEN "
            "(every route but /metrics and /healthz will require it) or bind 127.0.0.1")


def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option("--host", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="TCP port.")] = 8765,
    workers: Annotated[int, typer.Option("--workers", min=1, max=64,
                                         help="Worker processes (one SQLite file, WAL).")] = 1,
    max_body: Annotated[int, typer.Option("--max-body", min=1,
                                          help="Largest request body in bytes (413 above).")
                        ] = 1_000_000,
    log_level: Annotated[str, typer.Option("--log-level", help="uvicorn log level.")] = "warning",
) -> None:
    """Serve the memory over HTTP (token from JIYI_TOKEN; /metrics for Prometheus)."""
    raw_token = os.environ.get("JIYI_TOKEN")
    if raw_token is not None and not raw_token.strip():
        raise ConfigError("JIYI_TOKEN is set but blank")
    token = raw_token.strip() if raw_token else None
    check_bind(host, token)
    if log_level not in ("critical", "error", "warning", "info", "debug", "trace"):
        raise ConfigError(f"unknown log level {log_level!r}")
    st = state(ctx)
    # Open once before the workers start: a bad path fails here with a clear message, and the
    # migrations are applied by one process.
    with st.open():
        pass
    os.environ["JIYI_DB"] = st.db_location
    if st.embedder:
        os.environ["JIYI_EMBEDDER"] = st.embedder
    if st.type_embedders:
        os.environ["JIYI_TYPE_EMBEDDERS"] = ",".join(st.type_embedders)
    os.environ["JIYI_MAX_BODY"] = str(max_body)
    if token is not None:
        os.environ["JIYI_TOKEN"] = token
    mp_dir = None
    if workers > 1:
        mp_dir = tempfile.mkdtemp(prefix="jiyi-prom-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = mp_dir
    import uvicorn

    typer.echo(f"jiyi serving {st.db_location} on http://{host}:{port} "
               f"({workers} worker{'s' if workers > 1 else ''}"
               f"{', token required' if token else ''})", err=True)
    try:
        uvicorn.run("jiyi.service.app:app_from_env", factory=True, host=host, port=port,
                    workers=workers, log_level=log_level, access_log=False,
                    timeout_graceful_shutdown=5)
    finally:
        if mp_dir is not None:
            shutil.rmtree(mp_dir, ignore_errors=True)


def register(app: typer.Typer) -> None:
    app.command()(serve)
