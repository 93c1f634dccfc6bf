"""Tiny LoCoMo-shaped and MADial-shaped data (never the real data sets) for ``jiyi eval answers``
tests, and a fake reader that answers from its prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jiyi.context.prompt import SYSTEM_PROMPTS
from jiyi.text import content_words, tokens
from jiyi_bench.answers_prompt import INSTRUCTIONS

#: Lines of the fixed prompt text (instructions), which the fake reader never answers with.
FIXED = {line for text in [*INSTRUCTIONS.values(), *SYSTEM_PROMPTS.values()]
         for line in text.splitlines()}

LOCOMO = [{
    "sample_id": "syn-1",
    "conversation": {
        "speaker_a": "Lin", "speaker_b": "Ada",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Lin", "dia_id": "D1:1", "text": "I adopted a grey cat named Pepper."},
            {"speaker": "Ada", "dia_id": "D1:2", "text": "Lovely! I started learning the cello."},
            {"speaker": "Lin", "dia_id": "D1:3", "text": "I will fly to Hangzhou next week.",
             "blip_caption": "a photo of West Lake"},
        ],
        "session_2_date_time": "9:00 am on 20 June, 2023",
        "session_2": [
            {"speaker": "Ada", "dia_id": "D2:1", "text": "My cello teacher is called Mr. Okafor."},
            {"speaker": "Lin", "dia_id": "D2:2", "text": "Pepper broke a vase yesterday."},
        ],
    },
    "qa": [
        {"question": "What is the name of Lin's cat?", "answer": "Pepper",
         "evidence": ["D1:1"], "category": 4},
        {"question": "Who teaches Ada the cello?", "answer": "Mr. Okafor",
         "evidence": ["D2:1"], "category": 4},
        {"question": "When did Pepper break a vase?", "answer": "19 June 2023",
         "evidence": ["D2:2"], "category": 2},
        {"question": "Where will Lin fly?", "answer": "Hangzhou", "evidence": ["D1:3"],
         "category": 1},
        {"question": "What did Lin say about dogs?", "adversarial_answer": "nothing",
         "evidence": [], "category": 5},
    ],
}]

MADIAL_MEMORIES = {
    "zh": [{"1": {"time": "2023-12-25", "event": "Bart在圣诞节晚会上跳舞，感觉非常开心。", "user-id": 1}},
           {"2": {"time": "2023-03-07", "event": "Bart在学校的体育节上获得一百米第一名。", "user-id": 1}}],
    "en": [{"1": {"time": "2023-12-25", "event": "Bart danced at the Christmas party and was very happy.",
                  "user-id": 1}},
           {"2": {"time": "2023-03-07", "event": "Bart won the 100 metres at the school sports day.",
                  "user-id": 1}}],
}
MADIAL_DIALOGUES = {
    "zh": ['<Bart>:"元旦晚会我要表演节目！"', '<Assistant>:"太棒了！"', '<Bart>:"我想跳舞。"',
           '<Assistant>:"你记得圣诞节晚会上你跳舞吗？那晚你很开心！"'],
    "en": ['<Bart>: "I will perform at the New Year party!"', '<Assistant>: "Great!"',
           '<Bart>: "I want to dance."',
           '<Assistant>: "Do you remember dancing at the Christmas party? You were so happy!"'],
}


def write_locomo(folder: Path) -> Path:
    path = folder / "locomo-syn.json"
    path.write_text(json.dumps(LOCOMO), encoding="utf-8")
    return path


def write_madial(folder: Path) -> Path:
    out = folder / "madial"
    out.mkdir()
    for lang in ("zh", "en"):
        (out / f"MADial-Bench-{lang}-memory.json").write_text(
            "\n".join(json.dumps(m, ensure_ascii=False) for m in MADIAL_MEMORIES[lang]),
            encoding="utf-8")
        line = {"dialogue": ["<BOD>\n", *MADIAL_DIALOGUES[lang], "<EOD>\n"], "test-turn": [4],
                "relevant-id": [1], "user-id": 1, "id": 0}
        (out / f"MADial-Bench-{lang}-dialogue.json").write_text(
            json.dumps(line, ensure_ascii=False), encoding="utf-8")
    return out


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
