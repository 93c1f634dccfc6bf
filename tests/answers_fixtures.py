"""Where the tiny LoCoMo-shaped and MADial-shaped files of ``jiyi eval answers`` tests are
(tests/data/answers: synthetic, never the real data sets), and a fake reader that answers from
its prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jiyi.context.prompt import SYSTEM_PROMPTS
from jiyi.text import content_words, tokens
from jiyi_bench.answers_prompt import INSTRUCTIONS

#: Lines of the fixed prompt text (instructions), which the fake reader never answers with.
FIXED = {line for text in [*INSTRUCTIONS.values(), *SYSTEM_PROMPTS.values()]
         for line in text.splitlines()}

#: A LoCoMo-shaped file (5 turns, 5 questions, one of category 5) and a MADial-shaped folder
#: (zh and en, one user, two memories, one dialogue).
DATA = Path(__file__).parent / "data" / "answers"
LOCOMO_FILE = DATA / "locomo-syn.json"
MADIAL_DIR = DATA / "madial"


def context_reader(messages: list[dict[str, Any]]) -> str:
    """A fake reader: the line of its prompt (before the question) sharing most words with the
    question, so what a plan shows decides what it answers."""
    if not messages:
        return "?"
    question = set(content_words(str(messages[-1].get("content", ""))))
    best, score = "I do not know.", 0
    for m in messages[:-1]:
        for line in str(m.get("content") or "").splitlines():
            if any(line.startswith(f) or f.startswith(line) for f in FIXED if f):
                continue
            shared = len(question & set(content_words(line)))
            if shared > score:
                best, score = line.strip()[:120], shared
    return best


def fake_judge_or_reader(messages: list[dict[str, Any]]) -> str:
    """The judge prompt (its last message names a gold answer) gets CORRECT when the generated
    answer contains the gold's first word; everything else is a reader request."""
    last = str(messages[-1].get("content", "")) if messages else ""
    if "Gold answer:" in last and "Generated answer:" in last:
        gold = last.split("Gold answer:", 1)[1].split("\n", 1)[0].strip()
        answer = last.split("Generated answer:", 1)[1].rsplit("Label:", 1)[0]
        first = (tokens(gold) or [""])[0]
        return "CORRECT" if first and first in tokens(answer) else "WRONG"
    return context_reader(messages)
