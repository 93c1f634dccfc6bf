"""A retrieval evaluation through jiyi's public API, beside baselines over the same raw turns.

The MADial and scenario evaluations share it: a data set becomes a list of :class:`RawTurn`
(ingested with :meth:`jiyi.Memory.ingest`, in the given order) and a list of :class:`Case`
(asked with :meth:`jiyi.Memory.recall`), each with the gold turn ids it should bring back.
A jiyi hit covers the turn ids in its ``source_turn_ids``; a baseline result covers its own
turn. The baselines rank the raw turns of the case's user only (jiyi never crosses users):

- ``bm25``: :func:`~jiyi_bench.baselines.reference_bm25` (rank_bm25's Okapi over jieba tokens);
- ``bm25_cw``: the LoCoMo report's BM25 over content words (stopwords dropped);
- ``dense``: cosine over the embedder's passage vectors, query through ``embed_query``;
- ``rrf``: reciprocal-rank fusion (k=60) of ``bm25`` and ``dense`` over all the user's turns.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from jiyi.embed.base import Embedder
from jiyi.memory import Memory
from jiyi.validation import check_role

from .baselines import BM25, Dense, reference_bm25, rrf
from .metrics import gold_recall, ndcg

SYSTEMS = ("jiyi", "bm25", "bm25_cw", "dense", "rrf")
LABELS = {"jiyi": "jiyi recall", "bm25": "BM25 raw", "bm25_cw": "BM25 content words raw",
          "dense": "dense raw", "rrf": "RRF(BM25, dense) raw"}
#: Short ASCII labels for charts (a CJK font may be missing).
SHORT = {"jiyi": "jiyi", "bm25": "BM25", "bm25_cw": "BM25-cw", "dense": "dense", "rrf": "RRF"}


@dataclass(frozen=True)
class RawTurn:
    """One turn as ingested: who said it, in which session, when, with which caller id."""

    user_id: str
    session_id: str
    turn_id: str
    text: str
    at: datetime
    role: str = "user"


@dataclass(frozen=True)
class Case:
    """One query: asked by ``user_id`` in ``session_id`` at ``as_of``; ``gold`` turn ids."""

    case_id: str
    group: str  # a table block, e.g. the language
    split: str  # "dev" / "held-out" (or any label)
    user_id: str
    session_id: str
    query: str
    as_of: datetime
    gold: tuple[str, ...]


@dataclass
class CaseScore:
    case: Case
    system: str
    covered: list[list[str]]  # per result, best first: the turn ids it covers
    scores: dict[str, float] = field(default_factory=dict)


@dataclass
class RankingResult:
    """Every case's score for every system; :meth:`summary` averages them (macro over cases)."""

    ks: tuple[int, ...]
    rows: list[CaseScore] = field(default_factory=list)
    ingest: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def metrics(self) -> list[str]:
        return [f"recall@{k}" for k in self.ks] + [f"ndcg@{k}" for k in self.ks]

    def systems(self) -> list[str]:
        present = {r.system for r in self.rows}
        return [s for s in SYSTEMS if s in present]

    def groups(self) -> list[str]:
        return list(dict.fromkeys(r.case.group for r in self.rows))

    def splits(self) -> list[str]:
        return list(dict.fromkeys(r.case.split for r in self.rows))

    def mean(self, system: str, metric: str, group: str | None = None,
             split: str | None = None) -> float | None:
        vals = [r.scores[metric] for r in self.rows if r.system == system
                and (group is None or r.case.group == group)
                and (split is None or r.case.split == split)]
        return sum(vals) / len(vals) if vals else None

    def count(self, system: str, group: str | None = None, split: str | None = None) -> int:
        return sum(1 for r in self.rows if r.system == system
                   and (group is None or r.case.group == group)
                   and (split is None or r.case.split == split))

    def summary(self) -> dict[str, Any]:
        """``{group: {system: {scope: {"cases": n, metric: mean}}}}``; scope ``all`` or a split;
        group ``all`` when there is more than one group."""
        groups: list[str | None] = [*self.groups()]
        if len(groups) > 1:
            groups.append(None)
        out: dict[str, Any] = {}
        for g in groups:
            block: dict[str, Any] = {}
            for s in self.systems():
                scopes: dict[str, Any] = {}
                for sp in [None, *self.splits()]:
                    n = self.count(s, g, sp)
                    if not n:
                        continue
                    vals = {m: round(v, 4) for m in self.metrics
                            if (v := self.mean(s, m, g, sp)) is not None}
                    scopes["all" if sp is None else sp] = {"cases": n, **vals}
                block[s] = scopes
            out["all" if g is None else g] = block
        return out


def _score(case: Case, system: str, ranked: list[list[str]], ks: Sequence[int]) -> CaseScore:
    scores = {f"recall@{k}": gold_recall(case.gold, ranked, k) for k in ks}
    scores.update({f"ndcg@{k}": ndcg(case.gold, ranked, k) for k in ks})
    return CaseScore(case, system, ranked, scores)


def ingest_turns(mem: Memory, turns: Sequence[RawTurn]) -> dict[str, Any]:
    """Ingest the turns in order through :meth:`Memory.ingest`, skipping turn ids a user
    already holds (a reused store: ``export_user`` lists them). Returns counts and seconds."""
    known: dict[str, set[str]] = {}
    t0 = time.perf_counter()
    done = 0
    for turn in turns:
        if turn.user_id not in known:
            exported = mem.export_user(turn.user_id)
            known[turn.user_id] = {str(t.get("turn_id")) for t in exported.get("turns", [])}
        if turn.turn_id in known[turn.user_id]:
            continue
        mem.ingest(turn.text, session_id=turn.session_id, user_id=turn.user_id,
                   role=check_role(turn.role),
                   at=turn.at, turn_id=turn.turn_id)
        known[turn.user_id].add(turn.turn_id)
        done += 1
    seconds = time.perf_counter() - t0
    return {"turns": len(turns), "ingested": done, "reused": len(turns) - done,
            "seconds": round(seconds, 2)}


def ask_jiyi(mem: Memory, cases: Sequence[Case], ks: Sequence[int]) -> list[CaseScore]:
    """Each case through :meth:`Memory.recall` (``log=False``: cases stay independent)."""
    rows = []
    for case in cases:
        hits = mem.recall(case.query, session_id=case.session_id, user_id=case.user_id,
                          k=max(ks), as_of=case.as_of, log=False)
        rows.append(_score(case, "jiyi", [list(h.unit.source_turn_ids) for h in hits], ks))
    return rows


def ask_baselines(turns: Sequence[RawTurn], cases: Sequence[Case], embedder: Embedder,
                  ks: Sequence[int]) -> list[CaseScore]:
    """BM25, content-word BM25, dense and their RRF over the raw turns of each case's user."""
    by_user: dict[str, list[RawTurn]] = {}
    for t in turns:
        by_user.setdefault(t.user_id, []).append(t)
    rankers: dict[str, tuple[list[str], BM25, BM25, Dense]] = {}
    rows: list[CaseScore] = []
    for case in cases:
        if case.user_id not in rankers:
            own = by_user.get(case.user_id, [])
            texts = [t.text for t in own]
            rankers[case.user_id] = ([t.turn_id for t in own], reference_bm25(texts),
                                     BM25(texts), Dense(embedder, texts))
        ids, bm25, bm25_cw, dense = rankers[case.user_id]
        n = len(ids)
        ranked = {"bm25": bm25.top(case.query, n), "bm25_cw": bm25_cw.top(case.query, n),
                  "dense": dense.top(case.query, n) if n else []}
        ranked["rrf"] = rrf([ranked["bm25"], ranked["dense"]])
        for system in ("bm25", "bm25_cw", "dense", "rrf"):
            top = ranked[system][: max(ks)]
            rows.append(_score(case, system, [[ids[i]] for i in top], ks))
    return rows


def evaluate(mem: Memory, turns: Sequence[RawTurn], cases: Sequence[Case], embedder: Embedder,
             ks: Sequence[int] = (5, 10), baselines: bool = True) -> RankingResult:
    """Ingest, ask jiyi, ask the baselines: one :class:`RankingResult`."""
    result = RankingResult(ks=tuple(sorted(set(ks))))
    result.ingest = ingest_turns(mem, turns)
    t0 = time.perf_counter()
    result.rows.extend(ask_jiyi(mem, cases, result.ks))
    result.ingest["recall_seconds"] = round(time.perf_counter() - t0, 2)
    if baselines:
        result.rows.extend(ask_baselines(turns, cases, embedder, result.ks))
    return result
