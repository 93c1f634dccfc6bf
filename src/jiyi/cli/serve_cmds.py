"""``jiyi serve``: the HTTP service (FastAPI + uvicorn), one or several worker processes."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from ..auth import Auth, check_bind, is_loopback
from ..errors import ConfigError
from .common import state

__all__ = ["check_bind", "is_loopback", "register", "serve"]


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
    """Serve the memory over HTTP (tokens from JIYI_TOKEN / JIYI_TOKENS_FILE; /metrics for
    Prometheus)."""
    auth = Auth.from_env()  # a bad JIYI_TOKEN or JIYI_TOKENS_FILE fails here, in one line
    check_bind(host, auth)
    if log_level not in ("critical", "error", "warning", "info", "debug", "trace"):
        raise ConfigError(f"unknown log level {log_level!r}")
    st = state(ctx)
    # Open once before the workers start: a bad path fails here with a clear message, and the
    # migrations are applied by one process.
    with st.open(create=True):
        pass
    os.environ["JIYI_DB"] = st.db_location
    if st.embedder:
        os.environ["JIYI_EMBEDDER"] = st.embedder
    if st.type_embedders:
        os.environ["JIYI_TYPE_EMBEDDERS"] = ",".join(st.type_embedders)
    os.environ["JIYI_MAX_BODY"] = str(max_body)
    if os.environ.get("JIYI_TOKENS_FILE"):  # the workers may run elsewhere than the cwd
        os.environ["JIYI_TOKENS_FILE"] = str(Path(os.environ["JIYI_TOKENS_FILE"]).resolve())
    from ..service.listen import bind_socket, serve_on, server_config

    sock = bind_socket(host, port)  # a busy port is a one-line error, before "serving"
    mp_dir = None
    if workers > 1:
        mp_dir = tempfile.mkdtemp(prefix="jiyi-prom-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = mp_dir
    bound = sock.getsockname()[1]
    typer.echo(f"jiyi serving {st.db_location} on http://{host}:{bound} "
               f"({workers} worker{'s' if workers > 1 else ''}; {auth.describe()})", err=True)
    try:
        serve_on(sock, server_config("jiyi.service.app:app_from_env", factory=True,
                                     workers=workers, log_level=log_level, access_log=False,
                                     timeout_graceful_shutdown=5))
    finally:
        if mp_dir is not None:
            shutil.rmtree(mp_dir, ignore_errors=True)


def register(app: typer.Typer) -> None:
    app.command()(serve)
