"""Micro-batched query embedding: the same vectors, fewer model calls under
concurrency, queries before passages, errors to every caller, and the service wired to it."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import pytest

from jiyi.embed.base import Matrix
from jiyi.embed.batching import MIN_PASSAGE_CHUNK, PASSAGE_CHUNK, BatchingEmbedder
from jiyi.embed.fake import FakeEmbedder
from jiyi.errors import ConfigError
from jiyi.service.spawn import running_server

TEXTS = ["我的订单号是多少？", "訂單編號是什麼？", "what is my order number?", "coupon SAVE10",
         "我住在哪里？", "Where do I live?", "我喜歡吃芒果", "budget 300 dollars"]


class Gated(FakeEmbedder):
    """The fake embedder whose calls are logged and can be held at a gate."""

    def __init__(self) -> None:
        super().__init__(32)
        self.log: list[tuple[str, int]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()
        self.fail = False

    def _call(self, kind: str, n: int) -> None:
        self.log.append((kind, n))
        self.entered.set()
        self.gate.wait(10)
        if self.fail:
            raise RuntimeError("model crashed")

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        self._call("queries", len(texts))
        return super().embed_queries(texts)

    def embed_query(self, text: str) -> Matrix:
        self._call("query", 1)
        return super().embed_query(text)

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        self._call("passages", len(texts))
        return super().embed_passages(texts)


@pytest.fixture
def gated() -> Iterator[tuple[Gated, BatchingEmbedder]]:
    inner = Gated()
    outer = BatchingEmbedder(inner, window_s=0.0)
    yield inner, outer
    inner.gate.set()
    outer.close()


def test_same_vectors_as_the_inner_embedder(gated: tuple[Gated, BatchingEmbedder]) -> None:
    inner, outer = gated
    assert (outer.name, outer.dim) == (inner.name, inner.dim)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(outer.embed_query, TEXTS * 3))
    for text, vec in zip(TEXTS * 3, got, strict=True):
        assert vec.shape == (32,)
        assert np.array_equal(vec, FakeEmbedder(32).embed_query(text))
    many = [f"第{i}条 passage {i}" for i in range(PASSAGE_CHUNK * 2 + 5)]
    assert np.array_equal(outer.embed_passages(many), FakeEmbedder(32).embed_passages(many))
    assert outer.embed_passages([]).shape == (0, 32)


def test_queries_waiting_on_a_busy_model_share_one_call(
        gated: tuple[Gated, BatchingEmbedder]) -> None:
    inner, outer = gated
    inner.gate.clear()
    with ThreadPoolExecutor(20) as pool:
        first = pool.submit(outer.embed_query, "first")
        assert inner.entered.wait(10)  # the model is busy with "first"
        rest = [pool.submit(outer.embed_query, t) for t in TEXTS * 2]
        while len(outer._queries) < len(rest):  # all queued behind the busy model
            threading.Event().wait(0.005)
        inner.gate.set()
        first.result(10)
        vectors = [f.result(10) for f in rest]
    assert inner.log == [("query", 1), ("queries", len(rest))]
    assert outer.calls == 2 and outer.queries == len(rest) + 1
    assert all(np.array_equal(v, FakeEmbedder(32).embed_query(t))
               for v, t in zip(vectors, TEXTS * 2, strict=True))


def test_queries_go_before_the_rest_of_a_long_passage_job(
        gated: tuple[Gated, BatchingEmbedder]) -> None:
    inner, outer = gated
    inner.gate.clear()
    texts = [f"passage {i} 段落" for i in range(PASSAGE_CHUNK * 3)]
    with ThreadPoolExecutor(4) as pool:
        passages = pool.submit(outer.embed_passages, texts)
        assert inner.entered.wait(10)  # first chunk running
        query = pool.submit(outer.embed_query, "我的订单号是多少？")
        while not outer._queries:
            threading.Event().wait(0.005)
        inner.gate.set()
        assert query.result(10).shape == (32,)
        assert passages.result(10).shape == (len(texts), 32)
    # the query waited behind the first chunk: the next is half as long, then they grow back
    half = PASSAGE_CHUNK // 2
    assert inner.log == [("passages", PASSAGE_CHUNK), ("query", 1), ("passages", half),
                         ("passages", PASSAGE_CHUNK), ("passages", half)]


def test_a_stream_of_queries_cannot_starve_an_ingest(
        gated: tuple[Gated, BatchingEmbedder]) -> None:
    """Queries keep arriving while every call runs: passage chunks still get every other call."""
    inner, outer = gated
    outer.passage_wait_s = 0.0  # overdue at once: the alternation shows deterministically
    inner.gate.clear()
    texts = [f"passage {i}" for i in range(PASSAGE_CHUNK * 2)]
    with ThreadPoolExecutor(8) as pool:
        first = pool.submit(outer.embed_query, "q0")
        assert inner.entered.wait(10)
        passages = pool.submit(outer.embed_passages, texts)
        more = [pool.submit(outer.embed_query, f"q{i}") for i in range(1, 4)]
        while len(outer._queries) < 3 or not outer._passages:
            threading.Event().wait(0.005)
        inner.gate.set()
        first.result(10)
        assert passages.result(10).shape == (len(texts), 32)
        assert all(f.result(10).shape == (32,) for f in more)
    assert inner.log[:3] == [("query", 1), ("passages", PASSAGE_CHUNK), ("queries", 3)]


def test_a_model_error_reaches_every_caller_of_the_batch(
        gated: tuple[Gated, BatchingEmbedder]) -> None:
    inner, outer = gated
    inner.fail = True
    with pytest.raises(RuntimeError, match="model crashed"):
        outer.embed_query("x")
    with pytest.raises(RuntimeError, match="model crashed"):
        outer.embed_passages(["y"])
    inner.fail = False
    assert outer.embed_query("still works").shape == (32,)  # the thread survived
    outer.close()
    with pytest.raises(RuntimeError, match="closed"):
        outer.embed_query("after close")


def test_the_service_reads_its_batch_window(monkeypatch: pytest.MonkeyPatch) -> None:
    from jiyi.service.app import app_from_env, create_app

    monkeypatch.setenv("JIYI_QUERY_BATCH_MS", "lots")
    with pytest.raises(ConfigError, match="JIYI_QUERY_BATCH_MS"):
        app_from_env()
    monkeypatch.setenv("JIYI_QUERY_BATCH_MS", "off")
    app_from_env()
    with pytest.raises(ConfigError, match="query_batch_ms"):
        create_app(db=":memory:", query_batch_ms=-1)


def test_concurrent_recalls_over_http_answer_like_sequential_ones(tmp_path: Path) -> None:
    """A real server: 16 recalls at once (zh-Hans, zh-Hant, en) give the hits one at a time
    gives, each user only their own."""
    with running_server(str(tmp_path / "b.db"), env={"JIYI_EMBEDDER": "fake"}) as srv, \
            httpx.Client(base_url=srv.url, timeout=60) as client:
        for user, text in (("amy", "我的订单号是 ORD123456，住在上海"),
                           ("ben", "我的訂單編號是 TW654321，住在臺北"),
                           ("cat", "My order number is EN777888 and I live in Berlin")):
            client.post("/v1/turns", json={"session_id": f"s-{user}", "user_id": user,
                                           "text": text}).raise_for_status()
        asks = [(user, q) for user in ("amy", "ben", "cat")
                for q in ("我的订单号是多少？", "訂單編號是什麼？", "what is my order number?",
                          "where do I live?", "我住在哪里？")]

        def recall(ask: tuple[str, str]) -> list[str]:
            r = client.get("/v1/recall", params={"q": ask[1], "session_id": f"s-{ask[0]}",
                                                 "user_id": ask[0], "k": 3})
            r.raise_for_status()
            hits = r.json()["hits"]
            assert all(h["unit"]["user_id"] == ask[0] for h in hits)
            return [h["unit"]["id"] for h in hits]

        sequential = [recall(a) for a in asks]
        with ThreadPoolExecutor(16) as pool:
            concurrent = list(pool.map(recall, asks))
        assert concurrent == sequential
        assert any(sequential)


class Stepped(Gated):
    """The gated fake embedder whose calls are let through one at a time."""

    def __init__(self) -> None:
        super().__init__()
        self.turns = threading.Semaphore(0)
        self.cv = threading.Condition()

    def _call(self, kind: str, n: int) -> None:
        with self.cv:
            self.log.append((kind, n))
            self.cv.notify_all()
        assert self.turns.acquire(timeout=10)

    def step_to(self, calls: int) -> None:
        """Let the running call finish; return once call number ``calls`` has started."""
        self.turns.release()
        with self.cv:
            assert self.cv.wait_for(lambda: len(self.log) >= calls, 10)


def test_a_query_waits_behind_shorter_passage_calls_while_queries_keep_coming() -> None:
    """Each query that waited behind a passage call halves the next one (down to the
    minimum); passage calls with no query waiting double it back (up to the full chunk)."""
    inner = Stepped()
    outer = BatchingEmbedder(inner, window_s=0.0)
    texts = [f"第{i}段 passage {i}" for i in range(PASSAGE_CHUNK * 4)]
    try:
        with ThreadPoolExecutor(4) as pool:
            passages = pool.submit(outer.embed_passages, texts)
            with inner.cv:
                assert inner.cv.wait_for(lambda: len(inner.log) >= 1, 10)
            queries = []
            for n, text in enumerate(["我的订单号是多少？", "訂單編號是什麼？", "my order?"]):
                queries.append(pool.submit(outer.embed_query, text))
                while not outer._queries:  # queued behind the running passage call
                    threading.Event().wait(0.002)
                inner.step_to(2 + 2 * n)  # the passage call ends: the query goes next
                inner.step_to(3 + 2 * n)  # then the next, shorter, passage call
            while not passages.done():
                inner.turns.release()
                threading.Event().wait(0.002)
            assert passages.result(10).shape == (len(texts), 32)
            assert all(q.result(10).shape == (32,) for q in queries)
    finally:
        for _ in range(20):
            inner.turns.release()
        outer.close()
    c = PASSAGE_CHUNK
    assert c // 8 == MIN_PASSAGE_CHUNK
    sizes = [c, c // 2, c // 4, c // 8, c // 4, c // 2, c]
    assert inner.log == [
        ("passages", c), ("query", 1), ("passages", c // 2), ("query", 1),
        ("passages", c // 4), ("query", 1), ("passages", c // 8),
        ("passages", c // 4), ("passages", c // 2), ("passages", c),
        ("passages", 4 * c - sum(sizes))]
    assert np.array_equal(passages.result(), FakeEmbedder(32).embed_passages(texts))
