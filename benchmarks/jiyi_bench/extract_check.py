"""Identical-output check for speed work on ``extract_turn``.

Runs ``extract_turn`` over the write benchmark's generated turns (``jiyi bench write``'s
conversation, seed 7) and over every turn of a key-facts corpus generated from the *dev*
phrasing banks only (a, b, d, e, f: the held-out banks are never loaded), and writes one
canonical JSON line per turn (redacted text, every draft with its content, type, slot,
entities, validity, lifespan override, topic and id, the turn's entities, secrets,
confirmation flag and language). A change meant only to make extraction faster must leave
this file byte-identical::

    PYTHONPATH=src:benchmarks python -m jiyi_bench.extract_check --out /tmp/before.jsonl
    # ... change ...
    PYTHONPATH=src:benchmarks python -m jiyi_bench.extract_check --out /tmp/after.jsonl \\
        --compare /tmp/before.jsonl

``--profile N`` prints the top N cProfile entries (cumulative and own time) of the run
instead of only timing it. Not a timed test: run by hand.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import pstats
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from jiyi.write import TurnInput, extract_turn
from jiyi.write.drafts import Extraction

from .keyfacts_bank import load_banks
from .keyfacts_corpus import generate as generate_corpus
from .write_workload import generate as generate_write

DEV_BANKS = ("a", "b", "d", "e", "f")


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def canonical(ex: Extraction) -> dict[str, Any]:
    """Everything ``extract_turn`` decided about one turn, as plain JSON values."""
    return {
        "text": ex.redacted_text,
        "language": ex.language,
        "confirmation": ex.is_confirmation,
        "extractor": ex.extractor,
        "secrets": sorted(ex.secrets.items()),
        "entities": [e.model_dump() for e in ex.entities],
        "drafts": [{"content": d.content, "type": d.type.value, "slot": d.slot,
                    "entities": [e.model_dump() for e in d.entities],
                    "valid_at": _when(d.valid_at), "valid_until": _when(d.valid_until),
                    "expires_in": d.expires_in, "topic": d.topic, "about_id": d.about_id}
                   for d in ex.drafts],
    }


def turns(write_turns: int = 10_000, users: int = 200) -> Iterator[TurnInput]:
    """The benchmark's turns, then the dev-bank corpus's turns."""
    for i, t in enumerate(generate_write(write_turns)):
        yield TurnInput(t.text, t.role, t.at, "bench", "u1", f"t{i}", t.speaker)
    corpus = generate_corpus(load_banks(only=DEV_BANKS), users=users)
    for r in corpus.turns:
        yield TurnInput(r.text, r.role, r.at, r.session_id, r.user_id, r.turn_id)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="JSONL of every turn's extraction")
    ap.add_argument("--compare", type=Path, help="a previous --out: fail unless identical")
    ap.add_argument("--write-turns", type=int, default=10_000)
    ap.add_argument("--users", type=int, default=200, help="dev-bank corpus users")
    ap.add_argument("--profile", type=int, default=0, help="print the top N profile entries")
    args = ap.parse_args(argv)
    inputs = list(turns(args.write_turns, args.users))
    extract_turn(TurnInput("预热 warm-up 订单ABC123", "user", inputs[0].at, "s", "u", "w"))
    prof = cProfile.Profile() if args.profile else None
    t0 = time.perf_counter()
    if prof is not None:
        prof.enable()
    results = [extract_turn(t) for t in inputs]
    if prof is not None:
        prof.disable()
    took = time.perf_counter() - t0
    lines = [json.dumps(canonical(ex), ensure_ascii=False, sort_keys=True) for ex in results]
    body = "\n".join(lines) + "\n"
    args.out.write_text(body, encoding="utf-8")
    digest = hashlib.sha256(body.encode()).hexdigest()
    print(f"{len(inputs)} turns in {took:.2f} s ({len(inputs) / took:.0f} turns/s); "
          f"sha256 {digest}")
    if prof is not None:
        for key in ("cumulative", "tottime"):
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats(key).print_stats(args.profile)
            print(buf.getvalue())
    if args.compare is not None:
        before = args.compare.read_text(encoding="utf-8").split("\n")
        after = body.split("\n")
        if before == after:
            print("identical to", args.compare)
            return 0
        diff = [i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b]
        print(f"DIFFERENT from {args.compare}: {len(diff)} lines differ "
              f"(lengths {len(before)} / {len(after)}); first: {diff[:10]}")
        for i in diff[:3]:
            print("-", before[i][:600])
            print("+", after[i][:600])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
