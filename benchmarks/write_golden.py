"""Golden check of the rule write path: every field of ``extract_turn``'s answer on a fixed set
of turns, one JSON line per turn, and the SHA-256 of them all.

A speed change to the write path must leave the hash unchanged (or explain each differing line:
``diff`` two outputs). The turns: ``jiyi bench write``'s 10,000 generated turns (seed 7), the
key-facts corpus on the dev banks A and B (200 users; the held-out bank C is never read), 3,000
LoCoMo turns and 3,000 MADial dialogue lines (seeded samples) with the MADial memories, and the
test corpora (tests/data/write, tests/data/eval).

Run from the repository root, with ``src`` and ``benchmarks`` on ``PYTHONPATH``:
  python benchmarks/write_golden.py OUT.jsonl [--locomo FILE] [--madial DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jiyi.write import Extraction, TurnInput, extract_turn
from jiyi_bench import keyfacts_corpus, locomo_data
from jiyi_bench.keyfacts_bank import load_banks
from jiyi_bench.write_workload import generate

SAMPLE = 3000
AT = datetime(2024, 3, 1, tzinfo=UTC)


def _madial(folder: Path, rng: random.Random) -> list[TurnInput]:
    out: list[TurnInput] = []
    for lang in ("zh", "en"):
        lines: list[str] = []
        for row in (folder / f"MADial-Bench-{lang}-dialogue.json").read_text("utf-8").splitlines():
            if row.strip():
                lines.extend(json.loads(row).get("dialogue", []))
        for i, line in enumerate(rng.sample(lines, min(SAMPLE // 2, len(lines)))):
            out.append(TurnInput(line.strip(), "user", AT, "m", "m", f"m{lang}{i}"))
        memory = (folder / f"MADial-Bench-{lang}-memory.json").read_text("utf-8").splitlines()
        for i, row in enumerate(r for r in memory if r.strip()):
            d = json.loads(row)
            d = next(iter(d.values())) if len(d) == 1 else d
            out.append(TurnInput(str(d.get("event") or json.dumps(d, ensure_ascii=False)),
                                 "user", AT, "mm", "mm", f"mm{lang}{i}"))
    return out


def turns(locomo: Path | None, madial: Path | None) -> list[TurnInput]:
    out = [TurnInput(t.text, t.role, t.at, "bench", "u1", f"w{i}", t.speaker)
           for i, t in enumerate(generate(10000, 7))]
    corpus = keyfacts_corpus.generate(load_banks(only=("a", "b")), users=200)
    out += [TurnInput(t.text, t.role, t.at, t.session_id, t.user_id, t.turn_id)
            for t in corpus.turns]
    rng = random.Random(5)
    if locomo is not None:
        pairs = [(c, t) for c in locomo_data.load(locomo) for t in c.turns]
        out += [TurnInput(t.text, "user", t.at, c.sample_id, "lo", t.dia_id, t.speaker)
                for c, t in rng.sample(pairs, min(SAMPLE, len(pairs)))]
    if madial is not None:
        out += _madial(madial, rng)
    for path in sorted(Path("tests/data/write").glob("*.jsonl")):
        for i, row in enumerate(r for r in path.read_text("utf-8").splitlines() if r.strip()):
            d = json.loads(row)
            out.append(TurnInput(d["text"], d.get("role", "user"), AT, "d", "d", f"d{i}"))
    for path in sorted(Path("tests/data/eval").glob("*.json")):
        for s in json.loads(path.read_text("utf-8"))["sessions"]:
            out += [TurnInput(t["text"], t["role"], datetime.fromisoformat(s["at"]), s["id"], "e",
                              t["id"], t.get("speaker")) for t in s["turns"]]
    return out


def dump(ex: Extraction) -> dict[str, Any]:
    return {"red": ex.redacted_text, "lang": ex.language, "conf": ex.is_confirmation,
            "secrets": ex.secrets, "extractor": ex.extractor,
            "entities": [e.model_dump() for e in ex.entities],
            "drafts": [{"content": d.content, "type": d.type.value, "slot": d.slot,
                        "entities": [e.model_dump() for e in d.entities],
                        "valid_at": str(d.valid_at), "valid_until": str(d.valid_until),
                        "expires_in": d.expires_in, "topic": d.topic, "about": d.about_id}
                       for d in ex.drafts]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--locomo", type=Path, default=Path("/work/shared/data/locomo/locomo10.json"))
    ap.add_argument("--madial", type=Path, default=Path("/work/shared/data/madial"))
    args = ap.parse_args()
    todo = turns(args.locomo if args.locomo.exists() else None,
                 args.madial if args.madial.is_dir() else None)
    digest = hashlib.sha256()
    with open(args.out, "w", encoding="utf-8") as fh:
        for t in todo:
            line = json.dumps({"turn": t.turn_id, "text": t.text[:200], **dump(extract_turn(t))},
                              ensure_ascii=False, sort_keys=True)
            fh.write(line + "\n")
            digest.update(line.encode())
    print(len(todo), digest.hexdigest())


if __name__ == "__main__":
    main()
