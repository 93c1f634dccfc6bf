"""Chinese and English segmentation for search.

Everything that goes into or queries the keyword index passes through :func:`fold` (NFKC,
case-folded, Traditional folded to Simplified with OpenCC) and :func:`tokens` (jieba for CJK,
words for Latin scripts), so 電話 finds 电话 and "Order" finds "order".
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from functools import lru_cache
from typing import Any

_lock = threading.Lock()
_jieba: Any = None
_converters: dict[str, Any] = {}

_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_RE = re.compile(r"[A-Za-z]")
_WORD_RE = re.compile(r"\w", re.UNICODE)

STOPWORDS_ZH = frozenset(
    ["的", "了", "是", "在", "我", "你", "他", "她", "它", "们", "我们", "你们", "他们", "这", "那", "这个", "那个", "就", "都", "也", "和", "与", "及", "或", "吗", "呢", "吧", "啊", "呀", "哦", "嗯", "有", "没", "没有", "不", "要", "会", "能", "可以", "一个", "一下", "什么", "怎么", "怎样", "多少", "哪", "哪里", "哪个", "为什么", "请", "请问", "一", "个", "把", "被", "给", "对", "上", "下", "中", "里", "到", "从", "向", "于", "而", "但", "还", "又", "再", "很", "太", "更", "最", "已", "已经", "过", "着", "之", "其", "所", "以", "为", "让", "帮", "帮我", "麻烦", "谢谢", "好的"]
)
STOPWORDS_EN = frozenset(
    ["a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "doing", "have", "has", "had", "having", "i", "me", "my", "mine", "you", "your", "yours", "he", "him", "his", "she", "her", "hers", "it", "its", "we", "us", "our", "they", "them", "their", "this", "that", "these", "those", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "of", "in", "on", "at", "to", "for", "from", "by", "with", "about", "as", "into", "through", "over", "under", "again", "then", "once", "here", "there", "and", "or", "but", "if", "so", "than", "too", "very", "can", "could", "will", "would", "should", "shall", "may", "might", "must", "not", "no", "nor", "only", "own", "same", "just", "also", "any", "some", "all", "both", "each", "few", "more", "most", "other", "such", "up", "down", "out", "off", "s", "t", "don", "now", "please", "tell", "know", "say", "said"]
)


def _get_jieba() -> Any:
    global _jieba
    if _jieba is None:
        with _lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba = jieba
    return _jieba


def _converter(config: str) -> Any:
    """OpenCC's converter for ``config`` ("t2s", "s2t"), loaded once per process."""
    found = _converters.get(config)
    if found is None:
        with _lock:
            found = _converters.get(config)
            if found is None:
                import opencc

                found = _converters[config] = opencc.OpenCC(config)
    return found


def _get_t2s() -> Any:
    return _converter("t2s")


def _get_s2t() -> Any:
    return _converter("s2t")


def warm_segmenter() -> None:
    """Load jieba's dictionary and OpenCC's tables now (seconds on a busy machine), not in the
    first call that segments or folds."""
    _get_jieba()
    _get_t2s()
    _get_s2t()


def is_cjk(ch: str) -> bool:
    return bool(_CJK_RE.match(ch))


def has_cjk(text: str) -> bool:
    return bool(_CJK_RE.search(text))


#: Latin letters are counted in words of about four letters ...
LETTERS_PER_WORD = 4
#: ... and a text is Chinese when it has at least one ideograph per two such words: a Chinese
#: clause beside English product names and codes ("我的 iPhone 15 Pro Max 订单") is Chinese.
WORDS_PER_IDEOGRAPH = 2


def detect_language(text: str) -> str:
    """``"zh"`` when the text has any CJK ideograph share worth speaking of, else ``"en"``."""
    cjk = len(_CJK_RE.findall(text))
    latin = len(_LATIN_RE.findall(text))
    if cjk and cjk * WORDS_PER_IDEOGRAPH >= latin // LETTERS_PER_WORD:
        return "zh"
    return "en"


@lru_cache(maxsize=4096)
def to_simplified(text: str) -> str:
    if not has_cjk(text):
        return text
    return str(_get_t2s().convert(text))


@lru_cache(maxsize=4096)
def script_of_text(text: str) -> str:
    """``"hant"`` when the text has a Traditional-only character, ``"hans"`` when it has a
    Simplified-only one (and no Traditional), ``""`` when it is neither (no CJK, or only
    characters both scripts share: "寄", "地址是")."""
    if not has_cjk(text):
        return ""
    if to_simplified(text) != text:
        return "hant"
    return "hans" if str(_get_s2t().convert(text)) != text else ""


def fold(text: str) -> str:
    """NFKC, case-fold, Traditional -> Simplified. The canonical form for matching."""
    norm = unicodedata.normalize("NFKC", text).casefold()
    return to_simplified(norm)


#: The longest piece handed to jieba at once. Its HMM for unknown words (Viterbi) copies a path
#: per character, so a run of characters it does not know costs the square of the run's length
#: (a 300,000-character turn of one rare ideograph: half an hour); longer texts are cut first,
#: after a space or punctuation where the window has one.
SEGMENT_WINDOW = 256
_BREAK_RE = re.compile(r"[\s\W]")


def _windows(text: str, size: int = SEGMENT_WINDOW) -> list[str]:
    out: list[str] = []
    start = 0
    while len(text) - start > size:
        end = start + size
        cut = end
        for m in _BREAK_RE.finditer(text, start + size // 2, end):
            cut = m.end()
        out.append(text[start:cut])
        start = cut
    out.append(text[start:])
    return out


def tokens(text: str) -> list[str]:
    """Search tokens of ``text`` after :func:`fold`: jieba for CJK runs (search mode, so 订单号
    also yields 订单), words for everything else. Punctuation and spaces are dropped."""
    folded = fold(text)
    out: list[str] = []
    if has_cjk(folded):
        jieba = _get_jieba()
        for piece in _windows(folded):
            for tok in jieba.cut_for_search(piece):
                tok = tok.strip()
                if tok and _WORD_RE.search(tok):
                    out.append(tok)
    else:
        out = [m.group(0) for m in re.finditer(r"\w+", folded)]
    return out


def content_words(text: str) -> list[str]:
    """Tokens without stopwords, in order, de-duplicated."""
    seen: dict[str, None] = {}
    for tok in tokens(text):
        if tok in STOPWORDS_ZH or tok in STOPWORDS_EN:
            continue
        if len(tok) == 1 and tok.isascii() and not tok.isdigit():
            continue
        seen.setdefault(tok, None)
    return list(seen)


def keyword_terms(text: str, limit: int = 32) -> list[str]:
    """The terms a keyword query searches for: content words, falling back to all tokens."""
    words = content_words(text) or tokens(text)
    return words[:limit]
