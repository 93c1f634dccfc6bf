"""Recall on a fixed LoCoMo sample, written down hit by hit, to compare two versions of the code.

``python -m jiyi_bench.recall_sample build STORE`` ingests the first ``--turns`` turns of the
first ``--conversations`` LoCoMo conversations (one user each, the default embedder);
``python -m jiyi_bench.recall_sample ask STORE OUT.jsonl`` asks the first ``--questions``
questions of each (k=10, ``as_of`` a day after the last turn ingested, nothing logged) and
writes ``{"q", "hits": [[unit id, score, confidence], ...]}`` per line. Run ``ask`` once with
each version on ``PYTHONPATH`` (e.g. an export of the earlier commit's ``src/``) and compare
the two files with ``compare``. ``--source bilingual`` uses instead the seeded conversation of
``jiyi bench write`` (:func:`.write_workload.generate`: zh-Hans, zh-Hant and en turns of every
role, one seed per user) and the fixed zh/en questions of :data:`.scale_corpus.QUERIES`.
``build --sums`` gives every user running turn sums
(:mod:`jiyi.store.sql.turn_sums`), so the new code reads the z-scale from them.
"""

from __future__ import annotations

import argparse
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from jiyi import Memory

from .locomo_data import load
from .scale_corpus import QUERIES
from .write_workload import generate

DATA = "/work/shared/data/locomo/locomo10.json"


def _conversations(source: str, data: str, conversations: int,
                   turns: int) -> list[tuple[str, list[Any], list[str]]]:
    """``(user, turns, questions)`` per conversation; a turn has text, role, at, speaker and
    (LoCoMo) dia_id."""
    if source == "bilingual":
        return [(f"bilingual-{idx}", generate(turns, seed=7 + idx), list(QUERIES))
                for idx in range(conversations)]
    return [(f"locomo-{idx}", conv.turns[:turns], [q.question for q in conv.questions])
            for idx, conv in enumerate(load(data)[:conversations])]


def build(store: str, data: str, conversations: int, turns: int, sums: bool,
          source: str = "locomo") -> None:
    if sums:
        from jiyi.store.sql.writes import SqlWrites
        SqlWrites.turn_sums_min = 1
    with Memory.open(store) as mem:
        for user, said, _ in _conversations(source, data, conversations, turns):
            for t in said:
                mem.ingest(t.text, session_id=f"{user}-chat", user_id=user,
                           role=getattr(t, "role", "user"), at=t.at,
                           turn_id=getattr(t, "dia_id", None), speaker=t.speaker or None)


def ask(store: str, out: Path, data: str, conversations: int, turns: int,
        questions: int, source: str = "locomo") -> None:
    lines = []
    with Memory.open(store) as mem:
        for user, said, asked in _conversations(source, data, conversations, turns):
            as_of = max(t.at for t in said) + timedelta(days=1)
            for q in asked[:questions]:
                hits = mem.recall(q, session_id=f"{user}-chat", user_id=user, k=10,
                                  as_of=as_of, log=False)
                lines.append(json.dumps({"q": q, "hits": [
                    [h.unit.id, h.score, h.confidence] for h in hits]}, ensure_ascii=False))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def compare(before: Path, after: Path) -> str:
    a = [json.loads(x) for x in before.read_text(encoding="utf-8").splitlines()]
    b = [json.loads(x) for x in after.read_text(encoding="utf-8").splitlines()]
    if len(a) != len(b):
        return f"different question counts: {len(a)} vs {len(b)}"
    ids = sum([h[0] for h in x["hits"]] == [h[0] for h in y["hits"]] for x, y in zip(a, b, strict=True))
    same = sum(x == y for x, y in zip(a, b, strict=True))
    pairs = [(h, g) for x, y in zip(a, b, strict=True)
             for h, g in zip(x["hits"], y["hits"], strict=False)]
    score = max((abs(h[1] - g[1]) for h, g in pairs), default=0.0)
    conf = max((abs(h[2] - g[2]) for h, g in pairs), default=0.0)
    return (f"{len(a)} questions: same ids and order {ids}; byte-identical hits {same};"
            f" max |score diff| {score:.3g}; max |confidence diff| {conf:.3g}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["build", "ask", "compare"])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--conversations", type=int, default=2)
    ap.add_argument("--turns", type=int, default=150)
    ap.add_argument("--questions", type=int, default=60)
    ap.add_argument("--sums", action="store_true")
    ap.add_argument("--source", choices=["locomo", "bilingual"], default="locomo")
    args = ap.parse_args()
    if args.mode == "build":
        build(args.paths[0], args.data, args.conversations, args.turns, args.sums, args.source)
    elif args.mode == "ask":
        ask(args.paths[0], Path(args.paths[1]), args.data, args.conversations, args.turns,
            args.questions, args.source)
    else:
        print(compare(Path(args.paths[0]), Path(args.paths[1])))


if __name__ == "__main__":
    main()
