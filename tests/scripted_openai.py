"""A scripted OpenAI-compatible server on 127.0.0.1 (a real HTTP server in a thread) for the
agent-loop tests: ``/v1/models`` reports ``n_ctx``, ``/v1/chat/completions`` answers from a queue
of scripted replies (text or tool calls) and records every request body."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any]], dict[str, Any]]


def text_reply(content: str, prompt_tokens: int = 100) -> dict[str, Any]:
    return {"id": "c", "object": "chat.completion", "model": "scripted",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 5,
                      "total_tokens": prompt_tokens + 5}}


def tool_reply(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    call = {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}
    return {"id": "c", "object": "chat.completion", "model": "scripted",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": "assistant", "content": None, "tool_calls": [call]}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}}


class ScriptedOpenAI:
    """Answers chat requests with ``replies`` in order (the last one repeats); a reply may be a
    callable of the request body; a reply with an ``error`` key is sent with HTTP 400. ``n_ctx`` is reported in ``/v1/models`` metadata."""

    def __init__(self, replies: list[dict[str, Any] | Script] | None = None,
                 n_ctx: int | None = 4096) -> None:
        self.replies: list[dict[str, Any] | Script] = list(replies or [text_reply("OK.")])
        self.bodies: list[dict[str, Any]] = []
        self.n_ctx = n_ctx
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path != "/v1/models":
                    self._send(404, {"detail": "Not Found"})
                    return
                entry: dict[str, Any] = {"id": "scripted", "object": "model"}
                if fake.n_ctx is not None:
                    entry["meta"] = {"n_ctx": fake.n_ctx}
                self._send(200, {"object": "list", "data": [entry]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                if self.path != "/v1/chat/completions":
                    self._send(404, {"detail": "Not Found"})
                    return
                reply = fake.next_reply(body)
                if "error" in reply:  # a refusal, the way llama.cpp answers an oversized prompt
                    self._send(400, reply)
                elif body.get("stream"):
                    self._stream(reply)
                else:
                    self._send(200, reply)

            def _stream(self, reply: dict[str, Any]) -> None:
                choice = reply["choices"][0]
                chunks = [{"choices": [{"index": 0, "delta": {"content": part},
                                        "finish_reason": None}]}
                          for part in (choice["message"].get("content") or "").split(" ")]
                chunks.append({"choices": [{"index": 0, "delta": {},
                                            "finish_reason": choice["finish_reason"]}]})
                data = b"".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n".encode()
                                for c in chunks) + b"data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def next_reply(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.bodies.append(body)
            reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        return reply(body) if callable(reply) else reply

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
