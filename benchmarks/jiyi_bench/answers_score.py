"""Scoring an answer against the gold answer, as pure functions (written fresh, as the field does
it):

- **token F1** (SQuAD-style): tokens of both after jiyi's folding (NFKC, case, Traditional ->
  Simplified) and segmentation (:func:`jiyi.text.tokens`: jieba for Chinese runs, words
  otherwise), English articles dropped; F1 of the multiset overlap;
- **BLEU-1**: clipped unigram precision of the answer's tokens times the brevity penalty
  ``exp(1 - len(gold) / len(answer))`` when the answer is shorter than the gold;
- **entity containment**: the share of the gold answer's key entities (its content words:
  :func:`jiyi.text.content_words`, stopwords dropped) that occur in the folded answer;
- **judge** (``--judge``): one prompt, :data:`JUDGE_SYSTEM` + :func:`judge_messages`, asked at
  temperature 0; the label is the one of CORRECT / WRONG the reply names (naming both or
  neither leaves the answer unlabelled, which counts as not correct).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Literal

from jiyi.text import content_words, fold, tokens

ARTICLES = frozenset({"a", "an", "the"})
Label = Literal["CORRECT", "WRONG"]


def answer_tokens(text: str) -> list[str]:
    return [t for t in tokens(text) if t not in ARTICLES]


def token_f1(answer: str, gold: str) -> float:
    got, want = answer_tokens(answer), answer_tokens(gold)
    if not got or not want:
        return 1.0 if got == want else 0.0
    overlap = sum((Counter(got) & Counter(want)).values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(got), overlap / len(want)
    return 2 * precision * recall / (precision + recall)


def bleu1(answer: str, gold: str) -> float:
    got, want = answer_tokens(answer), answer_tokens(gold)
    if not got or not want:
        return 0.0
    clipped = sum((Counter(got) & Counter(want)).values())
    precision = clipped / len(got)
    brevity = 1.0 if len(got) >= len(want) else math.exp(1 - len(want) / len(got))
    return precision * brevity


def key_entities(gold: str) -> list[str]:
    return content_words(gold)


def entity_containment(answer: str, gold: str) -> float | None:
    """Share of the gold's key entities found in the answer; None when the gold has none."""
    keys = key_entities(gold)
    if not keys:
        return None
    blob = fold(answer)
    return sum(1 for k in keys if k in blob) / len(keys)


JUDGE_SYSTEM = (
    "You grade answers. You are given a question, the gold answer and a generated answer. "
    "Label the generated answer CORRECT when it states the same fact as the gold answer: "
    "wording, length, extra detail and language do not matter, and a date or time period "
    "counts when it names the same one as the gold (a different format is fine). Label it "
    "WRONG when it states something else, misses the point of the gold answer, or does not "
    "answer. Reply with one word: CORRECT or WRONG.")


def judge_messages(question: str, gold: str, answer: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": f"Question: {question}\nGold answer: {gold}\n"
                                        f"Generated answer: {answer}\nLabel:"}]


_LABEL = re.compile(r"\b(INCORRECT|CORRECT|WRONG)\b")


def parse_label(reply: str) -> Label | None:
    """CORRECT or WRONG (INCORRECT counts as WRONG) when the reply names exactly one of them;
    None when it names neither or both (a reply echoing "CORRECT or WRONG" is no verdict)."""
    found = {"CORRECT" if m == "CORRECT" else "WRONG" for m in _LABEL.findall(reply.upper())}
    if len(found) != 1:
        return None
    return "CORRECT" if "CORRECT" in found else "WRONG"


def evidence_share(evidence: tuple[str, ...] | list[str], shown: set[str]) -> float | None:
    """Share of the gold evidence turn ids present in the prompt; None without evidence."""
    if not evidence:
        return None
    return sum(1 for e in evidence if e in shown) / len(evidence)
