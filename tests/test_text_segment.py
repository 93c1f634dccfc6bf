"""Search tokens of long texts: jieba sees bounded windows, and nothing is lost at their edges."""

from __future__ import annotations

import pytest

from jiyi.text.segment import SEGMENT_WINDOW, _windows, tokens


@pytest.mark.parametrize("text", [
    "我的订单号是ABC123，请帮我查一下。" * 40,
    "我的訂單號是ABC123，請幫我查一下。" * 40,
    "Please check my order ABC123 and call me back tomorrow. " * 30,
    "鿕" * 3000,  # one ideograph jieba does not know: no break anywhere
])
def test_windows_cover_the_text_in_bounded_pieces(text: str) -> None:
    pieces = _windows(text)
    assert "".join(pieces) == text
    assert all(0 < len(p) <= SEGMENT_WINDOW for p in pieces)


def test_windows_break_after_punctuation_where_there_is_some() -> None:
    text = "我的订单号是ABC123，请帮我查一下。" * 40
    assert all(p[-1] in "，。" for p in _windows(text)[:-1])


@pytest.mark.parametrize("sentence", [
    "我的订单号是ABC123，请帮我查一下。", "我的訂單號是ABC123，請幫我查一下。",
])
def test_long_text_tokens_are_its_sentences_tokens(sentence: str) -> None:
    # windows end at punctuation here, so the long text segments like its sentences one by one
    assert tokens(sentence * 40) == tokens(sentence) * 40


def test_a_long_run_of_an_unknown_ideograph_is_segmented() -> None:
    # a run jieba's HMM would walk as one piece (quadratic: minutes at 100k characters)
    out = tokens("鿕" * 20_000)
    assert "".join(out) == "鿕" * 20_000
