"""Ollama and OpenAI-compatible embedders against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from jiyi import Memory
from jiyi.embed import get_embedder
from jiyi.errors import ConfigError, LLMError


def _vec(text: str) -> list[float]:
    d = hashlib.sha256(text.encode()).digest()
    return [b / 255.0 for b in d[:8]]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        texts = body["input"]
        if body.get("model") == "broken":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"model exploded")
            return
        if self.path == "/api/embed":
            out = {"model": body["model"], "embeddings": [_vec(t) for t in texts]}
        elif self.path == "/v1/embeddings":
            items = [{"object": "embedding", "index": i, "embedding": _vec(t)}
                     for i, t in enumerate(texts)]
            out = {"object": "list", "data": list(reversed(items))}  # order by index, not position
        else:
            self.send_response(404)
            self.end_headers()
            return
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_ollama_embed(server: str) -> None:
    emb = get_embedder(f"ollama:bge-m3@{server}")
    mat = emb.embed_passages(["订单号ABC", "order number", "訂單號"])
    assert mat.shape == (3, 8) and emb.dim == 8 and emb.name == "ollama-bge-m3"
    expected = np.asarray(_vec("order number"), dtype=np.float32)
    assert np.allclose(mat[1], expected / np.linalg.norm(expected), atol=1e-6)


def test_openai_embed_orders_by_index(server: str) -> None:
    emb = get_embedder(f"openai:text-embedding@{server}/v1")
    mat = emb.embed_passages(["a", "b", "c"])
    expected = np.asarray(_vec("a"), dtype=np.float32)
    assert np.allclose(mat[0], expected / np.linalg.norm(expected), atol=1e-6)
    assert emb.embed_query("a").shape == (8,)


def test_memory_with_http_embedder(server: str, db_path: str) -> None:
    with Memory.open(db_path, embedder=f"ollama:bge-m3@{server}") as mem:
        mem.ingest("我的快递单号是SF123456789", session_id="s1", user_id="u1")
        assert mem.recall("快递单号", session_id="s1", user_id="u1")


def test_errors_are_clear(server: str) -> None:
    with pytest.raises(LLMError, match="500"):
        get_embedder(f"ollama:broken@{server}").embed_passages(["x"])
    with pytest.raises(LLMError, match="failed"):
        get_embedder("ollama:bge-m3@http://127.0.0.1:9").embed_passages(["x"])
    with pytest.raises(ConfigError):
        get_embedder("openai:m")
    with pytest.raises(ConfigError):
        get_embedder("ollama:bge-m3@ftp://x")
    with pytest.raises(ConfigError):
        get_embedder("nope")
