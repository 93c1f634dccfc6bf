"""``jiyi serve --db postgresql://... --workers 2``: real worker processes on 127.0.0.1 sharing
one PostgreSQL; what one worker writes, the other recalls; users stay apart."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx
import pytest

from live_server import free_port

pytestmark = pytest.mark.postgres


def test_two_serve_workers_share_one_postgres(pg_url: str) -> None:
    port = free_port()
    env = {**os.environ, "JIYI_EMBEDDER": "fake"}
    env.pop("JIYI_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "jiyi", "--db", pg_url, "serve", "--host", "127.0.0.1",
         "--port", str(port), "--workers", "2"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                out = proc.stdout.read() if proc.stdout else ""
                raise AssertionError(f"server did not start: {out}")
            time.sleep(0.3)
        with httpx.Client(base_url=base, timeout=30) as client:
            texts = {"amy": "我的订单号是 SRV0001A，明天到", "bob": "My order number is SRV0002B"}
            for i in range(10):  # new connections: uvicorn spreads them over both workers
                user = "amy" if i % 2 == 0 else "bob"
                r = client.post("/v1/turns", json={"session_id": f"s-{user}", "user_id": user,
                                                   "text": texts[user]},
                                headers={"Connection": "close"})
                assert r.status_code == 200, r.text
            for user, code in (("amy", "SRV0001A"), ("bob", "SRV0002B")):
                for _ in range(4):
                    r = client.get("/v1/recall", params={"q": code, "session_id": f"s-{user}",
                                                         "user_id": user},
                                   headers={"Connection": "close"})
                    assert r.status_code == 200, r.text
                    hits = r.json()["hits"]
                    assert hits and code in hits[0]["unit"]["content"]
                    assert all(h["unit"]["user_id"] == user for h in hits)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()
