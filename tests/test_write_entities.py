"""Rule entities, zh (Simplified and Traditional) + en: a table-driven corpus of sentences."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from jiyi.text.entities import extract_entities
from jiyi.text.segment import has_cjk, to_simplified

AT = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)  # a Friday
CORPUS = Path(__file__).parent / "data" / "write" / "entities_corpus.jsonl"
CASES: list[dict[str, Any]] = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines()
                               if line.strip()]


def test_corpus_is_large_and_bilingual() -> None:
    assert len(CASES) >= 150
    zh = [c for c in CASES if has_cjk(c["text"])]
    hant = [c for c in zh if to_simplified(c["text"]) != c["text"]]
    en = [c for c in CASES if not has_cjk(c["text"])]
    assert len(zh) >= 60 and len(hant) >= 20 and len(en) >= 50
    kinds = {k for c in CASES for k, _ in c["expect"]}
    assert {"person", "phone", "email", "order_id", "tracking_no", "ticket_id", "error_code",
            "amount", "date", "time", "city", "address", "product", "code", "url"} <= kinds


@pytest.mark.parametrize("case", CASES, ids=[c["text"][:30] for c in CASES])
def test_corpus_sentence(case: dict[str, Any]) -> None:
    found = extract_entities(case["text"], AT)
    got = [(e.kind, e.value) for e in found]
    expected = [tuple(x) for x in case["expect"]]
    for item in expected:
        assert item in got, f"missing {item} in {got}"
    if case.get("exact"):
        assert sorted(got) == sorted(expected)
    for e in found:  # the span is the exact source text
        assert case["text"][e.start:e.end] == e.text
        assert e.value


def test_entities_do_not_overlap() -> None:
    text = "订单ABC123已发货，运单SF123456789，客服电话0755-83765566，https://x.cn/13812345678"
    found = extract_entities(text, AT)
    for a, b in itertools.pairwise(found):
        assert a.end <= b.start
    assert ("phone", "13812345678") not in [(e.kind, e.value) for e in found]  # inside the URL


def test_placeholders_are_not_entities() -> None:
    assert extract_entities("key是[API_KEY]，卡号[CARD_NUMBER]", AT) == []
