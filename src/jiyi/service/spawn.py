"""Start ``jiyi serve`` in a child process on a free 127.0.0.1 port (tests and ``bench serve``)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from ..errors import JiyiError

_MAIN = "from jiyi.cli.app import main; main()"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


@dataclass
class ServerProcess:
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")


def serve_command(db: str, port: int, *, workers: int = 1, host: str = "127.0.0.1",
                  extra: tuple[str, ...] = ()) -> list[str]:
    return [sys.executable, "-c", _MAIN, "--db", db, "serve", "--host", host, "--port",
            str(port), "--workers", str(workers), *extra]


@contextmanager
def running_server(
    db: str,
    *,
    workers: int = 1,
    env: Mapping[str, str] | None = None,
    extra: tuple[str, ...] = (),
    unset: tuple[str, ...] = ("JIYI_TOKEN", "JIYI_TOKENS_FILE", "JIYI_DB",
                              "PROMETHEUS_MULTIPROC_DIR"),
    log_path: Path | None = None,
    ready_timeout: float = 60.0,
    host: str = "127.0.0.1",
) -> Iterator[ServerProcess]:
    """Run ``jiyi --db DB serve`` on ``host`` until the block ends; ready when ``/healthz``
    answers 200. The child inherits the environment minus ``unset``, plus ``env``."""
    port = free_port(host)
    child_env = {k: v for k, v in os.environ.items() if k not in unset}
    child_env.update(env or {})
    log_file = log_path or Path(db).with_suffix(f".serve-{port}.log")
    with open(log_file, "wb") as out:
        proc = subprocess.Popen(serve_command(db, port, workers=workers, host=host, extra=extra),
                                stdout=out, stderr=subprocess.STDOUT, env=child_env)
    server = ServerProcess(f"http://{host}:{port}", proc, log_file)
    try:
        _wait_ready(server, ready_timeout)
        yield server
    finally:
        stop(proc)


def _wait_ready(server: ServerProcess, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise JiyiError(f"jiyi serve exited with {server.process.returncode}:\n"
                            f"{server.log()[-2000:]}")
        try:
            if httpx.get(server.url + "/healthz", timeout=1.0,
                         trust_env=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise JiyiError(f"jiyi serve not ready after {timeout:.0f} s:\n{server.log()[-2000:]}")


def stop(proc: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    """SIGTERM (uvicorn shuts its workers down gracefully), then SIGKILL if it hangs."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
