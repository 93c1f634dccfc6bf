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
    """Serve the tools remember, recall, forget and memory_health over MCP."""
    try:
        from ..mcp_server import create_mcp_server
    except ImportError as exc:
        raise ConfigError(f"jiyi mcp needs the `mcp` package (pip install 'jiyi[mcp]'): {exc}") \
            from None
    if not 0 < port < 65536:
        raise ConfigError(f"--port must be between 1 and 65535, got {port}")
    with state(ctx).open() as mem:
        server = create_mcp_server(mem)
        if transport == "stdio":
            server.run("stdio")
        else:
            typer.echo(f"jiyi MCP on http://{host}:{port}/mcp; store {mem.store.location}",
                       err=True)
            server.run("streamable-http", host=host, port=port)


def register(app: typer.Typer) -> None:
    app.command()(mcp)
