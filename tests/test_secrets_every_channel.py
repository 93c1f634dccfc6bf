"""One secret detector for every path user text takes: the redaction corpus (secrets in three
scripts and their look-alikes) through the store's redaction, the execution channel's masking and
the summary channel's sentence filter. A second detector drifting from the first fails here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jiyi.context.execution import ExecutionContext, render_execution
from jiyi.context.summary import summarize_turns
from jiyi.text.secrets import MASK, has_secret, mask_secrets, mask_text, redact

CORPUS = Path(__file__).parent / "data" / "write" / "redaction_corpus.jsonl"
CASES: list[dict[str, Any]] = [json.loads(x) for x in CORPUS.read_text("utf-8").splitlines() if x]
SECRETS = [c for c in CASES if c["kind"]]
LOOKALIKES = [c for c in CASES if not c["kind"]]


@pytest.mark.parametrize("case", SECRETS, ids=[c["text"][:24] for c in SECRETS])
def test_a_secret_reaches_no_channel(case: dict[str, Any]) -> None:
    text = case["text"]
    stored = redact(text).text
    masked = mask_text(text)
    tool = render_execution(ExecutionContext(current_tool="lookup", tool_args={"note": text},
                                             last_tool_result={"echo": [text]}))
    summary = summarize_turns([("user", text), ("user", "订单号是ABC123，金额299元。")]) or ""
    assert has_secret(text)
    for secret in case["secrets"]:
        for channel, out in (("store", stored), ("mask", masked), ("execution", tool),
                             ("summary", summary)):
            assert secret not in out, (channel, out)
    assert MASK in masked


@pytest.mark.parametrize("case", LOOKALIKES, ids=[c["text"][:24] for c in LOOKALIKES])
def test_a_lookalike_passes_every_channel_unchanged(case: dict[str, Any]) -> None:
    text = case["text"]
    assert not has_secret(text)
    assert redact(text).text == text and mask_text(text) == text
    assert mask_secrets({"note": text, "items": [text]}) == {"note": text, "items": [text]}


@pytest.mark.parametrize("text", ["验证码是 483920，五分钟内有效", "驗證碼：483920", "我的验证码为4839"])
def test_a_verification_code_is_a_secret_in_both_scripts(text: str) -> None:
    assert "4839" not in redact(text).text and "4839" not in mask_text(text)


def test_several_secrets_each_masked() -> None:
    text = "keys: sk-abcdefghijklmnopqrstuvwx123456 and sk-zyxwvutsrqponmlkjihgf654321 密码是hunter2x"
    out = mask_text(text)
    assert out.count(MASK) == 3 and "sk-" not in out and "hunter2x" not in out
