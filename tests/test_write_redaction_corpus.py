"""Issue 15, item 5: provider keys of any length, JWTs and random tokens next to a secret word
are redacted; order ids, tracking numbers, phones and other look-alikes survive untouched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jiyi.text.secrets import redact

CORPUS = Path(__file__).parent / "data" / "write" / "redaction_corpus.jsonl"
CASES: list[dict[str, Any]] = [json.loads(x) for x in CORPUS.read_text("utf-8").splitlines() if x]
SECRETS = [c for c in CASES if c["kind"]]
LOOKALIKES = [c for c in CASES if not c["kind"]]


def test_corpus_size() -> None:
    assert len(SECRETS) >= 50 and len(LOOKALIKES) >= 50


@pytest.mark.parametrize("case", SECRETS, ids=[c["text"][:24] for c in SECRETS])
def test_secret_is_redacted(case: dict[str, Any]) -> None:
    out = redact(case["text"])
    for secret in case["secrets"]:
        assert secret not in out.text, out.text
        assert secret in out.secrets.values()
    for placeholder in out.secrets:
        assert placeholder in out.text


@pytest.mark.parametrize("case", LOOKALIKES, ids=[c["text"][:24] for c in LOOKALIKES])
def test_lookalike_survives(case: dict[str, Any]) -> None:
    out = redact(case["text"])
    assert out.text == case["text"] and out.secrets == {}


@pytest.mark.parametrize("prefix", ["sk-", "sk-proj-", "xoxb-", "ghp_"])
@pytest.mark.parametrize("length", [6, 8, 12, 19, 20, 40])
def test_provider_keys_of_any_length(prefix: str, length: int) -> None:
    body = ("Ab3" * 20)[:length]
    out = redact(f"key {prefix}{body} end")
    assert out.text == "key [API_KEY] end"
