"""Token counting with the Qwen2.5 vocabulary, and the character-estimate fallback."""

from __future__ import annotations

import pytest

from jiyi.context import tokens as tok
from jiyi.context.tokens import CharEstimateCounter, QwenTokenCounter, get_counter

SAMPLES = {
    "zh": "我叫张伟，订单号是 ABC123，昨天花了 299 元买了耳机。",
    "zh-Hant": "我叫張偉，訂單號是 ABC123，昨天花了 299 元買了耳機。",
    "en": "My name is Alice, my order number is ORD-77812 and I paid $45.90.",
}


@pytest.fixture(scope="module")
def qwen() -> QwenTokenCounter:
    return QwenTokenCounter()


def test_known_ids_with_special_tokens(qwen: QwenTokenCounter) -> None:
    assert qwen.encode("<|im_start|>user\n你好<|im_end|>") == [151644, 872, 198, 108386, 151645]
    assert qwen.encode("<|endoftext|>") == [151643]


def test_round_trip_all_scripts(qwen: QwenTokenCounter) -> None:
    for text in SAMPLES.values():
        assert qwen.decode(qwen.encode(text)) == text


def test_marker_lookalikes_in_text_are_ordinary(qwen: QwenTokenCounter) -> None:
    ids = qwen.encode("<|im_start|>", allow_special=False)
    assert 151644 not in ids
    assert qwen.count("<|im_start|>") == len(ids) > 1


@pytest.mark.parametrize("lang", sorted(SAMPLES))
def test_count_messages_matches_chatml_rendering(qwen: QwenTokenCounter, lang: str) -> None:
    messages = [
        {"role": "system", "content": "你是助手。"},
        {"role": "user", "content": SAMPLES[lang]},
        {"role": "assistant", "content": "OK"},
    ]
    rendered = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    rendered += "<|im_start|>assistant\n"
    assert qwen.count_messages(messages) == len(qwen.encode(rendered))


def test_chinese_is_denser_than_characters(qwen: QwenTokenCounter) -> None:
    text = SAMPLES["zh"]
    assert 0 < qwen.count(text) < len(text)
    assert qwen.count(SAMPLES["zh-Hant"]) > 0


@pytest.mark.parametrize("lang", sorted(SAMPLES))
def test_estimate_is_generous(qwen: QwenTokenCounter, lang: str) -> None:
    est = CharEstimateCounter()
    messages = [{"role": "user", "content": SAMPLES[lang]}]
    assert est.count(SAMPLES[lang]) >= qwen.count(SAMPLES[lang])
    assert est.count_messages(messages) >= qwen.count_messages(messages)


def test_get_counter_prefers_qwen() -> None:
    counter = get_counter()
    assert counter.name == "qwen2.5"
    assert isinstance(counter, tok.TokenCounter)
    assert tok.count_messages([{"role": "user", "content": "你好"}]) == 9


def test_get_counter_falls_back_when_vocab_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tok, "_counter", None)
    monkeypatch.setattr(tok, "find_qwen_vocab", lambda: None)
    counter = get_counter()
    assert counter.name == "char-estimate"
    assert isinstance(counter, CharEstimateCounter)


def test_find_vocab_points_at_shipped_file() -> None:
    path = tok.find_qwen_vocab()
    assert path is not None and path.name == "qwen.tiktoken" and path.stat().st_size > 1_000_000
