"""A pattern gated on its first characters (:mod:`jiyi.text.fastre`) finds exactly what the
pattern alone finds, and the write path's hot patterns are gated. Sentences written for these
tests, in zh-Hans, zh-Hant and English, with case variants and the characters ``re`` folds
specially under IGNORECASE (ſ, K, İ)."""

from __future__ import annotations

import importlib
import random
import re

import pytest

from jiyi.keyfacts.schema import schema
from jiyi.text.fastre import gated, source_of

SENTENCES = [
    "我的新手机号是13912345678，以后打这个。", "麻辣烫就算了吧最近，吃太多了。",
    "送货时间改成周六上午十点以后吧，工作日没人在家。", "有事微信找我就行，电话常常静音。",
    "我是金卡会员，上个月刚从银卡升上来的。", "优惠券SAVE20到6月30日过期，订单DD20260601。",
    "我的新手機號是0912345678，以後打這個。", "鳳梨酥免了，最近在控制體重。",
    "送貨時間改成週六上午十點以後吧。", "有事LINE找我就好，電話常常靜音。",
    "我現在是白金會員了，之前是金卡。", "地址改成台北市大安區忠孝東路四段100號。",
    "My new number is 415-555-0134, call that one from now on.",
    "I'll pass on bagels from now on, doc's orders.",
    "Please deliver on Saturday mornings after 10, nobody is home on weekdays.",
    "Text me on WhatsApp, I never pick up calls.", "I'm a Gold member now, moved up from Silver.",
    "Coupon SAVE20 expires June 30; order DD20260601 shipped yesterday.",
    "MY NEW EMAIL IS SAM.LEE@EXAMPLE.COM", "ſtreet addreſs: 12 Kelvin Road, İstanbul",
    "", " ", "?", "吗", "ok", "Thanks!", "谢谢！",
]


def _texts() -> list[str]:
    rng = random.Random(24)
    out = list(SENTENCES)
    out += [s.upper() for s in SENTENCES] + [s.swapcase() for s in SENTENCES]
    for _ in range(200):  # pieces of the sentences glued together
        a, b = rng.sample(SENTENCES, 2)
        i, j = rng.randint(0, len(a)), rng.randint(0, len(b))
        out.append(a[i:] + " " + b[:j])
    return out


def _same(rx: re.Pattern[str], g: re.Pattern[str], texts: list[str]) -> None:
    for t in texts:
        assert [m.span() for m in rx.finditer(t)] == [m.span() for m in g.finditer(t)], t
        for pos in (0, 1, 3):
            a, b = rx.search(t, pos), g.search(t, pos)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), t
        assert bool(rx.fullmatch(t)) == bool(g.fullmatch(t)), t
        assert rx.sub("#", t) == g.sub("#", t), t


@pytest.mark.parametrize("pattern", [
    r"\b(?:use|prefer|only)\b|首选|用", r"(?:会员|會員|member|tier)(?:等级|等級)?\s*(?:是|is)",
    r"(?<![A-Za-z])VIP(?![A-Za-z])|金卡|銀卡", r"[?？]\s*$|[吗嗎么麼呢]\s*[。.]?\s*$",
    r"(?:street|st\.?|road|rd\.?)\b", r"(?P<num>\d{3,})[-\s]?(?P<rest>\d{4})",
    r"k(?:elvin)?|s(?:treet)?|i(?:stanbul)?", r"\d{1,2}\s*[点點:：]|上午|morning",
    r"\s*(?:at|在)\W?\d", r"\w+@\w+|邮箱",
])
@pytest.mark.parametrize("flags", [0, re.I])
def test_a_gated_pattern_finds_what_the_pattern_finds(pattern: str, flags: int) -> None:
    rx = re.compile(pattern, flags)
    g = gated(rx)
    assert g.groups == rx.groups and g.groupindex == rx.groupindex
    _same(rx, g, _texts())


@pytest.mark.parametrize("pattern", [r"", r"a?", r"(?:x|)", r".*地址", r"[^a]b", r"(?:.)x",
                                     r"(?x) a b  # comment"])
def test_an_unbounded_or_empty_pattern_stays_as_it_is(pattern: str) -> None:
    rx = re.compile(pattern)
    assert gated(rx) is rx


@pytest.mark.parametrize("pattern", [
    r"(?i:\b(?:hi|hello|hey|morning))\s+(?-i:[A-Z][a-z]+)", r"\b(?i:my|our)\s+(?:name|号码|號碼)",
    r"(?i:kelvin|street|istanbul)|住址", r"(?:^|[,，]\s*)(?i:tier|level|等级)\s?\d",
    r"(?i:(?<![A-Za-z])(?:changed|updated|改名))[^.!?]{0,20}?(?i:now|现在|現在)",
])
def test_a_case_blind_part_of_a_case_sensitive_pattern_is_gated_case_blind(pattern: str) -> None:
    """``(?i:…)`` in a case-sensitive pattern: the gate holds every case of its first
    characters (ſ, K and İ included), so the gated pattern finds the same."""
    rx = re.compile(pattern)
    g = gated(rx)
    assert g is not rx and source_of(g) == pattern
    _same(rx, g, _texts())


@pytest.mark.parametrize("pattern", [r"^(?:hi|hello|你好|您好)\b", r"^\s*(?:我叫|my name is)",
                                     r"\A(?:謝謝|thanks)"])
@pytest.mark.parametrize("flags", [0, re.I])
def test_a_pattern_anchored_at_the_start_stays_as_it_is(pattern: str, flags: int) -> None:
    """``re`` tries a pattern anchored at the start at the start only; a gate in front would
    make it try every position."""
    rx = re.compile(pattern, flags)
    assert gated(rx) is rx
    multiline = re.compile(pattern, flags | re.M)  # "^" at every line start: worth a gate
    if pattern.startswith("^"):
        g = gated(multiline)
        assert g is not multiline
        _same(multiline, g, [*_texts(), "好的\n我叫张伟", "ok\nmy name is Sam", "謝謝\nhello"])


@pytest.mark.parametrize("pattern", [r"(?=[MmOo])\b(?:my|our)\s+\w+", r"(?=[我叫])(?:我叫|叫我)\S+",
                                     r"(?=[0-9])(?<![0-9])\d{4}"])
def test_a_pattern_gated_by_hand_stays_as_it_is(pattern: str) -> None:
    """A pattern opening with a look-ahead of one character class is gated already: a second
    gate (or the module's gate_all run again on a pattern it imported) would only cost."""
    rx = re.compile(pattern, re.I)
    assert gated(rx) is rx
    once = gated(re.compile(r"\b(?:my|our)\s+name", re.I))
    assert gated(once) is once


def test_a_global_inline_flag_keeps_its_meaning() -> None:
    rx = re.compile(r"(?i)day|week|tonight")
    g = gated(rx)
    assert g is not rx and g.flags & re.I
    _same(rx, g, _texts())


MODULES = ["jiyi.write.slots", "jiyi.write.compress", "jiyi.write.classify",
           "jiyi.write.clauses", "jiyi.write.plan", "jiyi.write.filler", "jiyi.write.idfacts",
           "jiyi.write.idgroups", "jiyi.write.timerewrite", "jiyi.text.entities",
           "jiyi.text.secrets", "jiyi.text.levels", "jiyi.text.timegrammar",
           "jiyi.text.timeloose", "jiyi.text.timeclock", "jiyi.text.addresses",
           "jiyi.keyfacts.asking", "jiyi.write.speaker", "jiyi.text.timebase",
           "jiyi.text.timeofday"]


def test_the_write_paths_patterns_are_gated_and_find_the_same() -> None:
    texts = _texts()
    gated_count = 0
    for name in MODULES:
        for value in vars(importlib.import_module(name)).values():
            source = source_of(value) if isinstance(value, re.Pattern) else None
            if source is not None:
                gated_count += 1
                _same(re.compile(source, value.flags), value, texts)
    assert gated_count >= 100
    # the schema's word patterns too ("微信找我": the contact channel's value and cue words)
    rows = [rx for row in schema() for rx in (row.value_words, row.statement_cue, row.question)
            if rx is not None]
    assert sum(source_of(rx) is not None for rx in rows) >= len(rows) // 2
    for rx in rows:
        source = source_of(rx)
        if source is not None:
            _same(re.compile(source, rx.flags), rx, texts)
