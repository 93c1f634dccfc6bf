"""Running a jiyi HTTP server (``serve``, ``proxy``, ``mcp --transport http``) under uvicorn.

Why not plain ``uvicorn.run``: it binds the port itself, so a command could only print its
"serving" line before knowing whether the port was free, and a busy port ended in a uvicorn log
line instead of jiyi's one-line error. Here the socket is bound first (:func:`bind_socket`, a
:class:`~jiyi.errors.ConfigError` on failure), the caller prints its line, then uvicorn serves on
that socket. :class:`JsonErrorH11Protocol` makes the requests uvicorn itself rejects (a request
line or headers too long, malformed HTTP) answer jiyi's JSON error instead of plain text.
"""

from __future__ import annotations

import errno
import socket
import sys
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.supervisors import Multiprocess

from ..errors import ConfigError

#: uvicorn's ``http`` setting naming :class:`JsonErrorH11Protocol` (an import string: worker
#: processes import it themselves).
HTTP_PROTOCOL = "jiyi.service.listen:JsonErrorH11Protocol"

#: Largest request line plus headers h11 buffers before rejecting the request.
MAX_HEAD_BYTES = 64 * 1024

_BAD_REQUEST = (b'{"error":{"code":"bad_request","message":"invalid HTTP request: malformed, '
                b'or its URL and headers are longer than 64 KiB"}}')


class JsonErrorH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, answering its own 400s with ``{"error": {"code", "message"}}``."""

    def send_400_response(self, msg: str) -> None:
        headers = [(b"content-type", b"application/json"), (b"connection", b"close"),
                   (b"content-length", str(len(_BAD_REQUEST)).encode())]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                      h11.Data(data=_BAD_REQUEST), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening-ready TCP socket bound to ``host:port``; a one-line error when it cannot be."""
    if not 0 <= port < 65536:
        raise ConfigError(f"the port must be between 0 and 65535, got {port}")
    name = host.strip().strip("[]")
    family = socket.AF_INET6 if ":" in name else socket.AF_INET
    sock = socket.socket(family=family)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((name, port))
    except OSError as exc:
        sock.close()
        reason = "the port is already in use" if exc.errno == errno.EADDRINUSE else (
            exc.strerror or str(exc))
        raise ConfigError(f"cannot listen on {host}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


def server_config(app: Any, *, factory: bool = False, workers: int = 1, log_level: str = "warning",
                  **kwargs: Any) -> uvicorn.Config:
    """A uvicorn config with jiyi's HTTP protocol (host and port come from the bound socket)."""
    return uvicorn.Config(app, factory=factory, workers=workers, log_level=log_level,
                          http=HTTP_PROTOCOL, h11_max_incomplete_event_size=MAX_HEAD_BYTES,
                          **kwargs)


def serve_on(sock: socket.socket, config: uvicorn.Config) -> None:
    """Serve ``config`` on the bound ``sock`` (several worker processes when configured), until
    interrupted. Exits non-zero when the app failed to start."""
    server = uvicorn.Server(config)
    try:
        if config.workers > 1:
            Multiprocess(config, sockets=[sock]).run()
        else:
            server.run(sockets=[sock])
    except KeyboardInterrupt:  # pragma: no cover - interactive
        pass
    finally:
        sock.close()
    if config.workers == 1 and not server.started:
        sys.exit(3)
