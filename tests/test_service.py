"""The HTTP service against a real ``jiyi serve`` subprocess on 127.0.0.1, driven with httpx."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from jiyi.cli.serve_cmds import is_loopback
from jiyi.service.spawn import ServerProcess, running_server, serve_command

FAKE = {"JIYI_EMBEDDER": "fake"}
TOKEN = "test-token-0123456789"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("serve") / "memory.db"
    with running_server(str(db), env=FAKE) as srv:
        yield srv


@pytest.fixture
def client(server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def metric(text: str, name: str, **labels: str) -> float:
    total = 0.0
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                total += s.value
    return total


def assert_error(resp: httpx.Response, status: int, code: str | None = None) -> None:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/json")
    body = resp.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code
    assert "Traceback" not in resp.text and 'File "' not in resp.text


UNIT_FIELDS = {"id", "content", "type", "source_turn_ids", "session_id", "user_id",
               "created_at", "valid_until", "relevance_score"}


@pytest.mark.parametrize(("text", "query"), [
    ("我叫张伟，订单号是 ABC123", "我的订单号是多少？"),
    ("我叫陳美玲，訂單編號是 XYZ789", "我的訂單編號是多少？"),
    ("My name is Alice and my order number is QWE456", "what is my order number?"),
])
def test_turns_in_recall_out(client: httpx.Client, text: str, query: str) -> None:
    sid = f"s-{abs(hash(text))}"
    r = client.post("/v1/turns", json={"session_id": sid, "user_id": "u-http", "role": "user",
                                       "text": text, "turn_id": "D1:3",
                                       "at": "2026-05-01T09:30:00Z"})
    assert r.status_code == 200, r.text
    units = r.json()["units"]
    assert units and set(units[0]) >= UNIT_FIELDS
    assert units[0]["source_turn_ids"] == ["D1:3"] and units[0]["session_id"] == sid
    r = client.get("/v1/recall", params={"q": query, "session_id": sid, "user_id": "u-http",
                                         "k": 3})
    assert r.status_code == 200, r.text
    hits = r.json()["hits"]
    assert hits and hits[0]["unit"]["id"] in {u["id"] for u in units}
    assert {"score", "stage", "unit"} <= set(hits[0])
    other = client.get("/v1/recall", params={"q": query, "session_id": sid, "user_id": "u-else"})
    assert other.status_code == 200 and other.json()["hits"] == []


def test_errors_are_json_and_4xx(client: httpx.Client) -> None:
    json_h = {"content-type": "application/json"}
    assert_error(client.post("/v1/turns", content=b'{"session_id": "s", "text": ', headers=json_h),
                 400, "malformed_json")
    assert_error(client.post("/v1/turns", content=b'{"session_id":"s","text":"\xff\xfe"}',
                             headers=json_h), 400)
    assert_error(client.post("/v1/turns", json={"session_id": 1, "text": "x"}), 422)
    assert_error(client.post("/v1/turns", json={"text": "没有会话"}), 422)
    assert_error(client.post("/v1/turns", json={"session_id": "s", "text": "x", "role": "bot"}),
                 422)
    assert_error(client.post("/v1/turns", content=b'{"session_id": "s", "text": "\\ud800"}',
                             headers=json_h), 422, "invalid_input")
    assert_error(client.post("/v1/turns", json={"session_id": "s", "text": "   "}), 422)
    assert_error(client.post("/v1/turns", json={"session_id": "s\x00", "text": "x"}), 422)
    assert_error(client.post("/v1/turns", json={"session_id": "s", "text": "x",
                                                "at": "9999-12-31T23:59:59Z"}), 422)
    assert_error(client.post("/v1/turns", json=["not", "an", "object"]), 422)
    assert_error(client.post("/v1/turns", content=b"session_id=s&text=x"), 422)
    assert_error(client.get("/v1/recall", params={"q": "x", "session_id": "s", "k": 0}), 422)
    assert_error(client.get("/v1/recall", params={"q": "x", "session_id": "s", "k": "many"}), 422)
    assert_error(client.get("/v1/recall", params={"q": "x"}), 422)
    assert_error(client.get("/v1/recall", params={"q": "x", "session_id": "s",
                                                  "as_of": "yesterday"}), 422)
    assert_error(client.post("/v1/feedback", json={"unit_id": "m_nope", "event": "used"}), 404,
                 "not_found")
    assert_error(client.post("/v1/feedback", json={"unit_id": "m_nope", "event": "liked"}), 422)
    assert_error(client.get("/v1/nothing-here"), 404)
    assert_error(client.delete("/v1/turns"), 405)


def test_request_size_limit(client: httpx.Client) -> None:
    big = b'{"session_id": "s", "text": "' + b"x" * 1_000_001 + b'"}'
    assert_error(client.post("/v1/turns", content=big,
                             headers={"content-type": "application/json"}), 413,
                 "payload_too_large")

    def chunks() -> Iterator[bytes]:
        yield b'{"session_id": "s", "text": "'
        for _ in range(20):
            yield "记".encode() * 20_000
        yield b'"}'

    assert_error(client.post("/v1/turns", content=chunks(),
                             headers={"content-type": "application/json"}), 413)
    assert client.get("/healthz").status_code == 200


def test_openapi_and_probes(client: httpx.Client) -> None:
    doc = client.get("/openapi.json").json()
    for path in ("/v1/turns", "/v1/recall", "/v1/feedback", "/v1/prompt", "/memory/health",
                 "/metrics", "/healthz"):
        assert path in doc["paths"]
    assert client.get("/healthz").json() == {"status": "ok"}
    health = client.get("/memory/health").json()
    for key in ("freshness_ratio", "hit_rate", "amnesia_alert", "amnesia_sessions",
                "units_total", "units_valid"):
        assert key in health


def test_prompt_route_answers_json(client: httpx.Client) -> None:
    r = client.post("/v1/prompt", json={"text": "我的订单到哪了？", "session_id": "s-prompt",
                                        "execution": {"current_tool": "get_order_status",
                                                      "tool_args": {"order_id": "ABC123"}},
                                        "num_ctx": 32768})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["messages"][-1] == {"role": "user", "content": "我的订单到哪了？"}
    assert body["tokens"] > 0 and isinstance(body["trimmed"], list)
    assert '"current_tool":"get_order_status"' in body["messages"][0]["content"]
    assert_error(client.post("/v1/prompt", json={"text": "x", "session_id": "s",
                                                 "execution": {"bogus": 1}}), 422)


def test_health_story_feedback_and_amnesia(tmp_path: Path) -> None:
    """Feedback moves hit_rate; three forgetful turns raise the alert and bump the counter."""
    with running_server(str(tmp_path / "m.db"), env=FAKE) as srv, \
            httpx.Client(base_url=srv.url, timeout=30) as c:
        assert c.get("/memory/health").json()["hit_rate"] is None
        c.post("/v1/turns", json={"session_id": "s1", "user_id": "u1",
                                  "text": "我的手机号是 13812345678，订单 ABC123"}).raise_for_status()
        hits = c.get("/v1/recall", params={"q": "订单 ABC123", "session_id": "s1",
                                           "user_id": "u1"}).json()["hits"]
        assert hits
        c.post("/v1/feedback", json={"unit_id": hits[0]["unit"]["id"], "event": "used"}
               ).raise_for_status()
        assert c.get("/memory/health").json()["hit_rate"] == 1.0
        hits = c.get("/v1/recall", params={"q": "手机号", "session_id": "s1",
                                           "user_id": "u1"}).json()["hits"]
        r = c.post("/v1/feedback", json={"unit_id": hits[0]["unit"]["id"], "event": "wrong"})
        assert r.json()["unit"]["relevance_score"] < 1.0
        assert c.get("/memory/health").json()["hit_rate"] == 0.5

        replies = ["抱歉，我不太记得您的订单号。", "不好意思，請再說一遍。",
                   "Sorry, I don't recall that. Could you repeat it?"]
        # turn 1 takes "recall was empty" from the session's last recall; the replies are
        # stored as turns too, so later recalls of this session find them: the agent then says
        # what its own rule + vector recall returned
        assert c.get("/v1/recall", params={"q": "我的订单号？", "session_id": "lost"}
                     ).json()["hits"] == []
        for i, reply in enumerate(replies):
            turn: dict[str, object] = {"session_id": "lost", "role": "assistant", "text": reply}
            if i:
                turn["recall_empty"] = True
            r = c.post("/v1/turns", json=turn)
            assert r.status_code == 200, r.text
            assert r.json()["amnesia"]["streak"] == i + 1
        assert r.json()["amnesia"]["raised"] is True
        health = c.get("/memory/health", params={"session_id": "lost"}).json()
        assert health["amnesia_alert"] is True and health["amnesia_sessions"] == ["lost"]
        assert c.get("/memory/health", params={"session_id": "s1"}).json()["amnesia_alert"] is False
        text = c.get("/metrics").text
        assert metric(text, "jiyi_amnesia_alerts_total") == 1.0
        assert metric(text, "jiyi_amnesia_sessions") == 1.0
        assert metric(text, "jiyi_recall_empty_total") == 1.0
        assert metric(text, "jiyi_memory_hit_rate") == 0.5
        assert metric(text, "jiyi_recall_seconds_count", stage="total") == 3.0
        assert "lost" not in text and "u1" not in text
        # explicit recall_empty overrides; a normal reply clears the alert
        r = c.post("/v1/turns", json={"session_id": "lost", "role": "assistant",
                                      "text": "您的订单 ABC123 已发货。", "recall_empty": False})
        assert r.json()["amnesia"]["alerting"] is False
        assert c.get("/memory/health").json()["amnesia_alert"] is False


def test_token_guards_every_route_but_healthz(tmp_path: Path) -> None:
    with running_server(str(tmp_path / "m.db"), env={**FAKE, "JIYI_TOKEN": TOKEN}) as srv, \
            httpx.Client(base_url=srv.url, timeout=30) as c:
        assert c.get("/healthz").status_code == 200
        assert c.get("/metrics", headers={"authorization": f"bearer {TOKEN}"}).status_code == 200
        for path in ("/v1/recall?q=x&session_id=s", "/memory/health", "/openapi.json",
                     "/metrics"):
            assert_error(c.get(path), 401, "unauthorized")
            assert_error(c.get(path, headers={"authorization": "Bearer wrong"}), 401)
            assert_error(c.get(path, headers={"authorization": TOKEN}), 401)
        assert_error(c.post("/v1/turns", json={"session_id": "s", "text": "x"}), 401)
        ok = {"authorization": f"Bearer {TOKEN}"}
        assert c.post("/v1/turns", json={"session_id": "s", "text": "我叫王芳"},
                      headers=ok).status_code == 200
        assert c.get("/memory/health", headers=ok).json()["units_total"] >= 1


def test_refuses_a_public_bind_without_a_token(tmp_path: Path) -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("10.1.2.3")
    env = {"JIYI_EMBEDDER": "fake", "PATH": "/usr/bin:/bin"}
    cmd = serve_command(str(tmp_path / "m.db"), 0, host="0.0.0.0")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode != 0
    assert "refusing to listen on 0.0.0.0 without a token" in done.stderr
    assert "Traceback" not in done.stderr
    blank = subprocess.run(serve_command(str(tmp_path / "m.db"), 0), capture_output=True,
                           text=True, env={**env, "JIYI_TOKEN": " "}, timeout=60)
    assert blank.returncode != 0 and "JIYI_TOKEN is set but blank" in blank.stderr
    assert sys.executable == cmd[0]


def test_two_workers_share_one_sqlite_file(tmp_path: Path) -> None:
    with running_server(str(tmp_path / "m.db"), env=FAKE, workers=2) as srv:
        texts = ["我叫张伟，订单号是 ORD{:04d}", "我叫陳美玲，訂單編號是 TW{:04d}",
                 "My order number is EN{:04d}"]

        def write(i: int) -> int:
            with httpx.Client(base_url=srv.url, timeout=60) as c:
                r = c.post("/v1/turns", json={"session_id": f"s{i % 8}", "user_id": f"u{i % 8}",
                                              "text": texts[i % 3].format(i)})
                return r.status_code

        with ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(write, range(40)))
        assert codes == [200] * 40
        with httpx.Client(base_url=srv.url, timeout=30) as c:
            health = c.get("/memory/health").json()
            assert health["turns"] == 40 and health["units_total"] >= 40
            hits = c.get("/v1/recall", params={"q": "ORD0003", "session_id": "s3",
                                               "user_id": "u3"}).json()["hits"]
            assert any("ORD0003" in h["unit"]["content"] for h in hits)
            for _ in range(3):  # forgetful turns land on either worker: one alert, counted once
                c.post("/v1/turns", json={"session_id": "gone", "role": "assistant",
                                          "text": "我不太记得了", "recall_empty": True}
                       ).raise_for_status()
            text = c.get("/metrics").text
            health = c.get("/memory/health").json()
        assert metric(text, "jiyi_http_requests_total", route="/v1/turns", status="200") == 43
        assert metric(text, "jiyi_ingest_seconds_count") == 43
        assert metric(text, "jiyi_amnesia_alerts_total") == 1
        fresh = health["units_valid"] / health["units_total"]
        assert metric(text, "jiyi_memory_freshness_ratio") == pytest.approx(fresh)


def test_bench_serve_drives_the_service(server: ServerProcess, tmp_path: Path) -> None:
    import asyncio

    from jiyi_bench.bench_serve import drive, percentile, summarize, write_report

    assert percentile([], 95) == 0.0
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50) == 3.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0
    load, seconds = asyncio.run(drive(server.url, duration=1.5, users=5, concurrency=4,
                                      recall_share=0.5, seed_turns=1, headers={}))
    summary = summarize(load, seconds)
    assert summary["requests"] > 4 and summary["errors"] == 0
    assert set(summary["ops"]) == {"ingest", "recall"}
    report = write_report({"command": "test", "date": "now", "summary": summary,
                           "config": {"embedder": "fake", "workers": 1, "users": 5,
                                      "concurrency": 4, "recall_share": 0.5},
                           "machine": {"nproc": "2", "python": "3.11", "platform": "x",
                                       "free_h": ""}}, tmp_path, "serve-test")
    assert "| recall |" in report.read_text() and (tmp_path / "serve-test.json").exists()
