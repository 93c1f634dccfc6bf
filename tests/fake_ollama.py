"""A small fake Ollama server following Ollama's documented HTTP API (docs/api.md): ``/api/chat``
and ``/api/generate`` stream NDJSON by default (``"stream": false`` gives one object), ``/api/tags``
and ``/api/show``. Ollama itself cannot be installed here. It records every request it gets.

Model names pick a misbehaviour: ``slow`` streams about 40 chunks 30 ms apart, ``garbage`` answers HTML,
``half-garbage`` breaks its stream after two lines, ``cut`` ends the stream without ``done``,
``hang`` never answers.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

CREATED = "2026-05-01T09:30:00.000000Z"
MODELS = ("qwen2.5:7b", "slow", "garbage", "half-garbage", "cut", "hang")


def reply_for(messages: list[dict[str, Any]]) -> str:
    last = str(messages[-1].get("content", "")) if messages else ""
    if any("\u4e00" <= ch <= "\u9fff" for ch in last):
        return "好的，我记住了。"
    return "Noted, I will remember that."


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode() + b"\n"


def chunk_lines(model: str, pieces: list[str], key: str,
                prompt_eval_count: int | None = None) -> list[bytes]:
    lines = []
    for piece in pieces:
        body: dict[str, Any] = {"model": model, "created_at": CREATED, "done": False}
        if key == "message":
            body["message"] = {"role": "assistant", "content": piece}
        else:
            body["response"] = piece
        lines.append(_line(body))
    final: dict[str, Any] = {"model": model, "created_at": CREATED, "done": True,
                             "done_reason": "stop", "total_duration": 1000, "eval_count": 5}
    if prompt_eval_count is not None:
        final["prompt_eval_count"] = prompt_eval_count
    if key == "message":
        final["message"] = {"role": "assistant", "content": ""}
    else:
        final["response"] = ""
    lines.append(_line(final))
    return lines


def expected_stream(model: str, text: str, key: str = "message") -> bytes:
    return b"".join(chunk_lines(model, list(text), key))


class FakeOllama:
    """``reply``: the chat answer for the request's messages (default :func:`reply_for`);
    ``on_chat``: called with each chat body before it is answered; ``count_prompt``: the final
    chunk of a stream reports ``prompt_eval_count`` (characters of the messages / 4)."""

    def __init__(self, reply: Callable[[list[dict[str, Any]]], str] | None = None,
                 on_chat: Callable[[dict[str, Any]], None] | None = None,
                 count_prompt: bool = False) -> None:
        self.reply = reply or reply_for
        self.on_chat = on_chat
        self.count_prompt = count_prompt
        self.requests: list[tuple[str, dict[str, Any]]] = []
        #: The Authorization header of every chat/generate request (None when absent).
        self.authorizations: list[str | None] = []
        self.app = Starlette(routes=[
            Route("/api/chat", self.chat, methods=["POST"]),
            Route("/api/generate", self.generate, methods=["POST"]),
            Route("/api/tags", self.tags, methods=["GET"]),
            Route("/api/show", self.show, methods=["POST"]),
            Route("/api/version", self.version, methods=["GET"]),
        ])

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [b for p, b in self.requests if p == path]

    async def _answer(self, request: Request, key: str) -> Response:
        body = json.loads(await request.body())
        self.requests.append((request.url.path, body))
        self.authorizations.append(request.headers.get("authorization"))
        model = body.get("model")
        if model not in MODELS:
            return JSONResponse({"error": f"model '{model}' not found"}, status_code=404)
        messages = body.get("messages") or []
        if key == "message" and self.on_chat is not None:
            self.on_chat(body)
        text = self.reply(messages) if key == "message" else "Hello from generate."
        stream = body.get("stream", True) is not False
        if model == "hang":
            await asyncio.sleep(30)
        if model == "garbage":
            return Response("<html><body>502 Bad Gateway</body></html>", media_type="text/html")
        if not stream:
            obj: dict[str, Any] = {"model": model, "created_at": CREATED, "done": True,
                                   "done_reason": "stop"}
            obj[key] = {"role": "assistant", "content": text} if key == "message" else text
            if self.count_prompt:
                obj["prompt_eval_count"] = (sum(len(str(m.get("content") or ""))
                                                for m in messages) // 4 + 1)
            return Response(_line(obj)[:-1], media_type="application/json; charset=utf-8")
        counted = (sum(len(str(m.get("content") or "")) for m in messages) // 4 + 1
                   if self.count_prompt else None)
        lines = chunk_lines(model, list(text) * (5 if model == "slow" else 1), key, counted)
        if model == "half-garbage":
            lines = [*lines[:2], b"this is not json\n", *lines[2:]]
        if model == "cut":
            lines = lines[:2]

        async def gen() -> AsyncIterator[bytes]:
            for line in lines:
                yield line
                await asyncio.sleep(0.03 if model == "slow" else 0)

        return StreamingResponse(gen(), media_type="application/x-ndjson")

    async def chat(self, request: Request) -> Response:
        return await self._answer(request, "message")

    async def generate(self, request: Request) -> Response:
        return await self._answer(request, "response")

    async def tags(self, request: Request) -> Response:
        models = [{"name": m, "model": m, "modified_at": CREATED, "size": 4_700_000_000,
                   "digest": "sha256:" + "0" * 64,
                   "details": {"format": "gguf", "family": "qwen2", "parameter_size": "7.6B",
                               "quantization_level": "Q4_K_M"}} for m in MODELS]
        return JSONResponse({"models": models})

    async def show(self, request: Request) -> Response:
        body = json.loads(await request.body())
        self.requests.append(("/api/show", body))
        model = body.get("model") or body.get("name")
        if model not in MODELS:
            return JSONResponse({"error": f"model '{model}' not found"}, status_code=404)
        return JSONResponse({
            "modelfile": f"FROM {model}\nPARAMETER num_ctx 8192\n",
            "parameters": "num_ctx                        8192\nrope_freq_base                 1000000",
            "template": "{{ .Prompt }}",
            "details": {"format": "gguf", "family": "qwen2"},
            "model_info": {"qwen2.context_length": 32768},
        })

    async def version(self, request: Request) -> Response:
        return JSONResponse({"version": "0.12.0"})


def garbage_app() -> Starlette:
    """An 'upstream' that answers HTML to everything."""

    async def anything(request: Request) -> Response:
        return Response("<html>not an LLM server</html>", media_type="text/html")

    paths = ["/api/chat", "/api/tags", "/api/show", "/api/generate"]
    return Starlette(routes=[Route(p, anything, methods=["GET", "POST"]) for p in paths])
