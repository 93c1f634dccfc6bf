"""Helpers shared by the key-facts bank tests (banks d, e, f and g): stand-ins for the banks that
are or were held out, made from the development banks a and b, so their phrasings are never
read by a corpus test; the part of a corpus that belongs to some banks; and a check that a real
bank keeps the format and that its gold values can be matched, which reports a count only
(nothing of a held-out bank's text is shown)."""

from __future__ import annotations

import json
from pathlib import Path

from jiyi_bench.keyfacts_bank import BANK_DIR, NEEDS, SLOT_KEYS, Bank
from jiyi_bench.keyfacts_corpus import Corpus
from jiyi_bench.keyfacts_score import holds
from jiyi_bench.keyfacts_values import match_key

#: Each bank of a test folder and the development bank its copy is made from.
SOURCES = (("a", "a"), ("b", "b"), ("c", "b"), ("d", "a"), ("e", "b"), ("f", "a"), ("g", "b"))


def stand_ins(folder: Path, names: tuple[str, ...] = ("a", "b", "c", "d", "e", "f", "g")
              ) -> Path:
    """Banks a and b, and stand-ins for the other ``names`` made from them, in ``folder`` (each
    with its own note, so every digest differs)."""
    folder.mkdir()
    for name, source in SOURCES:
        if name not in names:
            continue
        data = json.loads((BANK_DIR / f"bank_{source}.json").read_text(encoding="utf-8"))
        data["bank"] = name
        data["note"] = f"stand-in for bank {name}, made from bank {source} by a test"
        (folder / f"bank_{name}.json").write_text(json.dumps(data, ensure_ascii=False),
                                                  encoding="utf-8")
    return folder


def part(corpus: Corpus, banks: set[str]) -> tuple[object, ...]:
    """The users, turns and questions of ``banks`` in ``corpus``."""
    users = {u for u, (bank, _) in corpus.profiles.items() if bank in banks}
    return (sorted((u, p) for u, p in corpus.profiles.items() if u in users),
            [t for t in corpus.turns if t.user_id in users],
            [q for q in corpus.questions if q.user_id in users])


def format_problems(bank: Bank) -> int:
    """How many ways ``bank`` falls short: a list under 8 templates, a value pool not of 12
    distinct values, a gold value not found (by the scorer's own matching) in a statement /
    change / negation made with it, a value holding another of its pool, or a value found in a
    template's own words or a noise turn. A count only: nothing of the text is returned."""
    problems = 0
    for lb in bank.languages.values():
        problems += (len(lb.noise) < 8) + (len(lb.assistant) < 8)
        words = [t.replace("{value}", "").replace("{old}", "") for s in lb.slots.values()
                 for k, ts in s.items() if k in NEEDS for t in ts] + list(lb.noise)
        for slot, keys in SLOT_KEYS.items():
            lists = lb.slots[slot]
            problems += set(lists) != set(keys)
            problems += sum(len(lists[k]) < 8 for k in keys if k != "values")
            values = lists.get("values", ())
            problems += bool(values) and len(set(values)) != 12
            match = "level" if slot == "membership" else "text"
            for v in values:
                want = match_key(v)
                problems += sum(not holds(t.replace("{value}", v).replace("{old}", "-"),
                                          want, match)
                                for k in NEEDS if k in lists for t in lists[k])
                problems += sum(w != v and holds(w, want) for w in values)
                problems += sum(holds(w, want) for w in words)
    return problems
