"""``jiyi mcp`` driven by the official MCP SDK client: over stdio against ``python -m jiyi --db TMP
mcp`` in a subprocess, and once over streamable HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from live_server import free_port

ROOT = Path(__file__).resolve().parents[1]


def _env(tmp_path: Path) -> dict[str, str]:
    return {"JIYI_EMBEDDER": "fake", "XDG_DATA_HOME": str(tmp_path / "xdg"),
            "PYTHONPATH": str(ROOT / "src"), "PYTHONWARNINGS": "ignore"}


def stdio_params(db: str, tmp_path: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "jiyi", "--db", db, "mcp"],
                                 env=_env(tmp_path), cwd=str(tmp_path))


def data(result: CallToolResult) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


def run(fn: Callable[[], Awaitable[None]]) -> None:
    anyio.run(fn)


def test_tools_over_stdio(db_path: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with Client(stdio_params(db_path, tmp_path), read_timeout_seconds=60) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == {"remember", "recall", "forget", "memory_health"}
            for name in ("remember", "recall", "forget"):
                schema = tools[name].input_schema
                assert schema["type"] == "object"
                assert "session_id" in schema["required"] and "user_id" in schema["properties"]
                assert tools[name].description
            assert "text" in tools["remember"].input_schema["required"]

            written = data(await client.call_tool("remember", {
                "text": "我叫张伟，订单号是 ABC12345", "session_id": "s-zh", "user_id": "u-7",
                "turn_id": "D1:1"}))
            assert written["units"] and all(u["user_id"] == "u-7" for u in written["units"])
            data(await client.call_tool("remember", {
                "text": "My favourite colour is teal and my locker code is QX7781.",
                "session_id": "s-en", "user_id": "u-8"}))
            data(await client.call_tool("remember", {
                "text": "我的電話號碼是 13912345678", "session_id": "s-tw", "user_id": "u-9"}))

            hits = data(await client.call_tool("recall", {
                "query": "我的订单号是多少？", "session_id": "s-zh", "user_id": "u-7"}))["hits"]
            assert any("ABC12345" in h["content"] for h in hits)
            assert all(h["user_id"] == "u-7" for h in hits)
            assert "D1:1" in hits[0]["source_turn_ids"]
            en = data(await client.call_tool("recall", {
                "query": "What is my locker code?", "session_id": "s-en", "user_id": "u-8"}))
            assert any("QX7781" in h["content"] for h in en["hits"])
            tw = data(await client.call_tool("recall", {
                "query": "我的電話號碼", "session_id": "s-tw", "user_id": "u-9"}))
            assert any("13912345678" in h["content"] for h in tw["hits"])
            # scoped: another user sees none of u-7's memories
            other = data(await client.call_tool("recall", {
                "query": "订单号 ABC12345", "session_id": "s-x", "user_id": "u-other"}))
            assert other["hits"] == []

            target = next(h for h in hits if "ABC12345" in h["content"])
            denied = await client.call_tool("forget", {
                "unit_id": target["id"], "session_id": "s-x", "user_id": "u-other"})
            assert "not_found" in error_text(denied)
            gone = data(await client.call_tool("forget", {
                "unit_id": target["id"], "session_id": "s-zh", "user_id": "u-7",
                "reason": "用户要求删除"}))
            assert gone["unit"]["invalidated_at"]
            again = data(await client.call_tool("recall", {
                "query": "我的订单号是多少？", "session_id": "s-zh", "user_id": "u-7"}))
            assert target["id"] not in [h["id"] for h in again["hits"]]

            health = data(await client.call_tool("memory_health", {}))
            assert health["units_total"] >= 3
            assert 0.0 <= health["freshness_ratio"] <= 1.0
            assert health["amnesia_alert"] is False
            scoped = data(await client.call_tool("memory_health", {"session_id": "s-zh"}))
            assert "amnesia_sessions" in scoped

            # bad calls are tool errors, and the server keeps serving
            missing = await client.call_tool("remember", {"text": "没有会话"})
            assert "session_id" in error_text(missing)
            assert (await client.call_tool("recall", {"session_id": "s"})).is_error
            blank = await client.call_tool("remember", {"text": "x", "session_id": "   "})
            assert "missing_session_id" in error_text(blank)
            bad_k = await client.call_tool("recall", {"query": "q", "session_id": "s", "k": 0})
            assert bad_k.is_error
            unknown = await client.call_tool("forget", {"unit_id": "m_nope", "session_id": "s"})
            assert "not_found" in error_text(unknown)
            bad_time = await client.call_tool("remember", {
                "text": "hello", "session_id": "s", "at": "yesterday-ish"})
            assert "invalid_input" in error_text(bad_time)
            assert data(await client.call_tool("memory_health", {}))["units_total"] >= 3

    run(main)


def test_tools_over_streamable_http(db_path: str, tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, **_env(tmp_path)}
    log = open(tmp_path / "mcp-http.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "jiyi", "--db", db_path, "mcp", "--transport",
                             "http", "--port", str(port)], env=env, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "mcp-http.log").read_text()
            try:
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "the MCP HTTP server did not start"
                time.sleep(0.2)

        async def main() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=60) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                assert names == {"remember", "recall", "forget", "memory_health"}
                data(await client.call_tool("remember", {
                    "text": "我住在杭州西湖区", "session_id": "h-1"}))
                hits = data(await client.call_tool("recall", {
                    "query": "我住在哪里", "session_id": "h-1"}))["hits"]
                assert any("杭州" in h["content"] for h in hits)

        run(main)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.mark.parametrize("args", [["mcp", "--port", "0", "--transport", "http"],
                                  ["mcp", "--transport", "carrier-pigeon"]])
def test_mcp_cli_rejects_bad_options(db_path: str, tmp_path: Path, args: list[str]) -> None:
    out = subprocess.run([sys.executable, "-m", "jiyi", "--db", db_path, *args],
                         env={**os.environ, **_env(tmp_path)}, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
