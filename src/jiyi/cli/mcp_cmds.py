"""``jiyi mcp``: the memory as an MCP server over stdio or streamable HTTP."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from ..errors import ConfigError
from .common import state


def mcp(
    ctx: typer.Context,
    transport: Annotated[Literal["stdio", "http"], typer.Option(
        "--transport", help="stdio (for a client that launches jiyi) or http (streamable HTTP "
                            "at /mcp).")] = "stdio",
    host: Annotated[str, typer.Option("--host", help="HTTP address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="HTTP port.")] = 8766,
) -> None:
    """Serve the tools remember, recall, forget and memory_health over MCP (over HTTP: tokens
    from JIYI_TOKEN / JIYI_TOKENS_FILE, required to listen beyond loopback)."""
    try:
        from ..mcp_server import create_mcp_server
    except ImportError as exc:
        raise ConfigError(f"jiyi mcp needs the `mcp` package (pip install 'jiyi[mcp]'): {exc}") \
            from None
    if not 0 < port < 65536:
        raise ConfigError(f"--port must be between 1 and 65535, got {port}")
    auth = None
    if transport == "http":
        from ..auth import Auth, check_bind

        auth = Auth.from_env()
        check_bind(host, auth)
    with state(ctx).open(create=True, warm=True) as mem:
        server = create_mcp_server(mem)
        if auth is None:
            server.run("stdio")
            return
        from ..mcp_server import mcp_http_app
        from ..service.listen import bind_socket, serve_on, server_config

        app = mcp_http_app(server, auth, host=host)
        sock = bind_socket(host, port)
        typer.echo(f"jiyi MCP on http://{host}:{port}/mcp ({auth.describe()}); "
                   f"store {mem.store.location}", err=True)
        serve_on(sock, server_config(app))


def register(app: typer.Typer) -> None:
    app.command()(mcp)
