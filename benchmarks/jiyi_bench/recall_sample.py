"""Recall on a fixed LoCoMo sample, written down hit by hit, to compare two versions of the code.

``python -m jiyi_bench.recall_sample build STORE`` ingests the first ``--turns`` turns of the
first ``--conversations`` LoCoMo conversations (one user each, the default embedder);
``python -m jiyi_bench.recall_sample ask STORE OUT.jsonl`` asks the first ``--questions``
questions of each (k=10, ``as_of`` a day after the last turn ingested, nothing logged) and
writes ``{"q", "hits": [[unit id, score, confidence], ...]}`` per line. Run ``ask`` once with
each version on ``PYTHONPATH`` (e.g. an export of the earlier commit's ``src/``) and compare
the two files with ``compare``. ``build --sums`` gives every user running turn sums
(:mod:`jiyi.store.sql.turn_sums`), so the new code reads the z-scale from them.
"""

from __future__ import annotations

import argparse
import json
from datetime import timedelta
from pathlib import Path

from jiyi import Memory

from .locomo_data import load

DATA = "/work/shared/data/locomo/locomo10.json"


def build(store: str, data: str, conversations: int, turns: int, sums: bool) -> None:
    if sums:
        from jiyi.store.sql.writes import SqlWrites
        SqlWrites.turn_sums_min = 1
    with Memory.open(store) as mem:
        for idx, conv in enumerate(load(data)[:conversations]):
            user = f"locomo-{idx}"
            for t in conv.turns[:turns]:
                mem.ingest(t.text, session_id=f"{user}-chat", user_id=user, role="user",
                           at=t.at, turn_id=t.dia_id, speaker=t.speaker or None)


def ask(store: str, out: Path, data: str, conversations: int, turns: int,
        questions: int) -> None:
    lines = []
    with Memory.open(store) as mem:
        for idx, conv in enumerate(load(data)[:conversations]):
            user = f"locomo-{idx}"
            as_of = max(t.at for t in conv.turns[:turns]) + timedelta(days=1)
            for q in conv.questions[:questions]:
                hits = mem.recall(q.question, session_id=f"{user}-chat", user_id=user, k=10,
                                  as_of=as_of, log=False)
                lines.append(json.dumps({"q": q.question, "hits": [
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
    args = ap.parse_args()
    if args.mode == "build":
        build(args.paths[0], args.data, args.conversations, args.turns, args.sums)
    elif args.mode == "ask":
        ask(args.paths[0], Path(args.paths[1]), args.data, args.conversations, args.turns,
            args.questions)
    else:
        print(compare(Path(args.paths[0]), Path(args.paths[1])))


if __name__ == "__main__":
    main()
