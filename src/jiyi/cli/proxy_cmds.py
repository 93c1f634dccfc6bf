"""``jiyi proxy``: a memory proxy in front of Ollama or an OpenAI-compatible server."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import ConfigError
from .common import state


def proxy(
    ctx: typer.Context,
    upstream: Annotated[str, typer.Option(
        "--upstream", envvar="JIYI_UPSTREAM",
        help="Ollama base (http://127.0.0.1:11434) or OpenAI-compatible base ending in /v1.")],
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 11435,
    num_ctx: Annotated[int, typer.Option(
        "--num-ctx", help="Model window when the request and the upstream do not say "
                          "(always used on the OpenAI side).")] = 4096,
    timeout: Annotated[float, typer.Option(
        "--timeout", help="Seconds to wait for the upstream's next bytes.")] = 300.0,
    connect_timeout: Annotated[float, typer.Option(
        "--connect-timeout", help="Seconds to wait for a connection to the upstream.")] = 5.0,
    upstream_key: Annotated[str | None, typer.Option(
        "--upstream-key", envvar="JIYI_UPSTREAM_KEY", show_default=False,
        help="API key sent upstream as a bearer token (needed when the proxy itself requires "
             "jiyi tokens: clients' Authorization headers are then never relayed).")] = None,
) -> None:
    """Relay an agent's model calls, recalling and storing memory for chat requests that carry
    an X-Jiyi-Session header (or an OpenAI "user" field). Tokens: JIYI_TOKEN / JIYI_TOKENS_FILE
    (required to listen beyond loopback)."""
    from ..auth import Auth, check_bind
    from ..proxy import ProxySettings, create_proxy_app
    from ..service.listen import bind_socket, serve_on, server_config

    if not 0 < port < 65536:
        raise ConfigError(f"--port must be between 1 and 65535, got {port}")
    auth = Auth.from_env()
    check_bind(host, auth)
    settings = ProxySettings.for_upstream(upstream, default_num_ctx=num_ctx,
                                          read_timeout=timeout, connect_timeout=connect_timeout,
                                          upstream_key=upstream_key or None)
    with state(ctx).open(create=True, warm=True) as mem:
        app = create_proxy_app(mem, settings, auth)
        sock = bind_socket(host, port)
        typer.echo(f"jiyi proxy on http://{host}:{port} -> {settings.upstream} "
                   f"({settings.flavor}; {auth.describe()}); store {mem.store.location}",
                   err=True)
        serve_on(sock, server_config(app))


def register(app: typer.Typer) -> None:
    app.command()(proxy)
