"""The stop-list: clauses that carry no fact.

Greetings, acknowledgements, discourse markers ("另外", "by the way"), talk about the talk
("问个事", "quick question", "我得吐槽一下"), closings ("就这样吧", "that's all") and emotional
asides ("说到这个我就来气", "ugh, this is so annoying") never become a durable unit. The test is
grammatical, not a list of sentences: every stop-list word and every glue word (pronouns,
particles, modal verbs) is removed from the clause; when no content word is left, the clause is
filler. A clause whose only content was an emotion is an *aside*: it may be kept as the mood of
the moment (session_state), never as a fact.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Literal

from ..text.fastre import gate_all
from .compress import SYMBOLS, is_filler

FillerKind = Literal["filler", "aside"]


def _alt(words: str) -> str:
    """``a|b|...`` as a trie-shaped pattern (longest match first): Python's ``re`` tries an
    alternation word by word at every position, a trie once per character."""
    trie: dict[str, Any] = {}
    for w in {w for w in words.split("|") if w}:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}
    return _render(trie)


def _render(node: dict[str, Any]) -> str:
    end = "" in node
    branches = [re.escape(ch) + _render(child) for ch, child in sorted(node.items()) if ch]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if end:
        return "(?:" + body + ")?" if len(branches) > 1 or len(body) > 1 else body + "?"
    return body


_ZH_STOP_WORDS = (
    # discourse markers
    "另外|还有|還有|对了|對了|话说|話說|说到这个|說到這個|说到这|說到這|说起这个|說起這個|说起来|說起來|顺便|順便|"
    "然后|然後|那么|那麼|所以|不过|不過|其实|其實|总之|總之|反正|就是说|就是說|那个|那個|这个嘛|這個嘛|"
    "怎么说呢|怎麼說呢|你知道吗|你知道嗎|我跟你说|我跟你說|说实话|說實話|老实说|老實說|讲真|講真|"
    "说真的|說真的|话说回来|話說回來|言归正传|言歸正傳|"
    # talk about the talk
    "问个事|問個事|问件事|問件事|问个问题|問個問題|问一下|問一下|问下|問下|想问下|想問下|问问|問問|请问|請問|想问|想問|请教|請教|"
    "有个问题|有個問題|有件事|有个事|有個事|麻烦一下|麻煩一下|打扰一下|打擾一下|打扰了|打擾了|吐槽|吐个槽|"
    "吐個槽|说一下|說一下|说个事|說個事|聊聊|聊一下|咨询一下|諮詢一下|咨询|諮詢|反映一下|反映个|反映個|"
    "跟你说|跟你說|和你说|和你說|提一下|提个|提個|"
    # which language the talk is in: "用英文问一下"
    "用英文|用英语|用英語|用中文|用普通话|用普通話|用粤语|用粵語|用繁体|用繁體|用简体|用簡體|"
    "说英文|說英文|讲英文|講英文|说中文|說中文|讲中文|講中文|"
    # closings and acknowledgements
    "就这样吧|就這樣吧|就这样|就這樣|先这样|先這樣|就这些|就這些|没别的了|沒別的了|没别的|沒別的|没事了|沒事了|"
    "行吧|好吧|算了吧|算了|没了|沒了|回头再说|回頭再說|下次再说|下次再說|先不聊了|改天聊|改天再聊|先这么着|"
    "先這麼著|好的|好滴|好嘞|好哒|嗯嗯|明白了|明白|了解了|了解|知道了|收到|没问题|沒問題|可以的|可以|行|好|"
    "谢谢|謝謝|多谢|多謝|感谢|感謝|辛苦了|辛苦|不客气|不客氣|再见|再見|拜拜|你好|您好|哈喽|哈囉|嗨|在吗|在嗎|"
    "早上好|晚上好|晚安|早安|午安|谢啦|謝啦|掰掰|拜啦|再会|再會|回见|回見|"
    # hesitation, waiting, giving up and chat thanks ("等一下喔", "我再想想", "算了算了 没事")
    "等一下|等下|等等|稍等|等我一下|让我想想|讓我想想|我再想想|再想想|想一想|想想|考虑一下|考慮一下|"
    "不问了|不問了|不说了|不說了|没事没事|沒事沒事|没事|沒事|蟹蟹|谢谢啦|謝謝啦|酱紫|醬紫|好喔|好哦|好噢|"
    "好嘟|好哒|好叭|说到哪了|說到哪了|讲到哪了|講到哪了|亲|親|"
    # anaphora to the talk itself: "上次也是这样"
    "也是这样|也是這樣|又是这样|又是這樣|每次都这样|每次都這樣|老是这样|老是這樣")
_ZH_EMOTION_WORDS = (
    "来气|來氣|生气|生氣|气死我了|氣死我了|气死了|氣死了|气人|氣人|烦死了|煩死了|好烦|好煩|真烦|真煩|"
    "无语|無語|崩溃|崩潰|郁闷|鬱悶|头疼|頭疼|头大|頭大|心累|服了|醉了|绝了|絕了|唉|哎呀|哎哟|哎喲|哎|天哪|"
    "天啊|我的天|离谱|離譜|受不了|真是的|搞什么|搞什麼|什么鬼|什麼鬼|坑爹|太坑|无奈|無奈|伤心|傷心|难过|難過|"
    "开心|開心|高兴|高興|激动|激動|委屈|失望|着急|著急|急死了|火大|上火|抓狂|哈哈|呵呵|嘿嘿|呜呜|嗚嗚|"
    "压力好大|壓力好大|压力大|壓力大|好累|累死了|累死|好困|好睏|一肚子火|憋屈|心烦|心煩|不爽")
_ZH_GLUE = (
    "我们|我們|咱们|咱們|你们|你們|一下|一点|一點|有点|有點|这个|這個|那个|那個|这边|這邊|那边|那邊|"
    "今天|今晚|现在|現在|"
    "[我你您咱他她它得要想就真太很好都也还還了啊呀吧呢嘛哈啦的地个個这這那事一点點再又先是在会會能可把被给給让讓"
    "说說讲講看吗嗎么麼呗唄哦噢喔嗯呃诶欸哇呐哟喲咯]")
_EN_STOP_WORDS = (
    "by the way|btw|anyway|anyways|also|so|well|oh|and|but|actually|honestly|basically|look|listen|"
    "okay|ok|alright|all right|right|um|uh|umm|uhh|hmm|you know|i mean|speaking of which|that reminds me|"
    "one more thing|on another note|moving on|quick question|a quick question|question|ask|"
    "in english|in chinese|in mandarin|in cantonese|in plain english|switching to english|"
    "i have a question|i've got a question|just wondering|wondering|i was wondering|vent|"
    "i have to say|i must say|i gotta say|just saying|let me tell you|here's the thing|real quick|"
    "that's all|that's it|for now|nothing else|never mind|nevermind|forget it|no worries|all good|fine|"
    "then|talk later|later|bye|goodbye|for now|i'm done|we're done|leave it there|leave it at that|"
    "thanks|thank you|thx|hi|hello|hey|good morning|good evening|good night|sure|got it|sounds good|"
    "cool|great|nice|yes|yeah|yep|no|nope|whatever|perfect|excellent|awesome|wonderful|fantastic|"
    "brilliant|oh well|fair enough|today|tonight|right now|"
    # chat acknowledgements, waiting and thanks ("k cool", "brb", "nvm", "lemme think")
    "k|kk|thnx|tysm|ty|brb|nvm|gotcha|lemme think|lemme see|let me think|hold on|one sec|"
    "u there|you there|mate|pls|plz|sry|soz|np")
_EN_EMOTION_WORDS = (
    "ugh|argh|seriously|unbelievable|annoying|annoyed|frustrating|frustrated|ridiculous|infuriating|"
    "mad|angry|upset|fed up|drives me crazy|drives me nuts|crazy|nuts|what a mess|what a joke|a mess|"
    "a joke|a pain|jeez|geez|oh my god|omg|damn|dang|sigh|meh|lol|haha|hahaha|wow|yikes|sad|happy|"
    "excited|thrilled|glad|tired|exhausted|disappointed|disappointing")
_EN_GLUE = (
    "i|i'm|im|i've|me|my|you|your|it|it's|its|this|that|just|really|so|very|a|an|the|to|is|am|are|"
    "was|do|does|have|has|got|gotta|need|want|wanna|now|here|there|again|too|let|let's|me|can|could|"
    "would|should|will|must|something|thing|things|about|with|of|for|on|in|at|gets|get|getting|be|"
    "being|been|make|makes|making|quite|kind|sort|totally|absolutely|how|what|when|we|us|our|lot|"
    "such|all|only|even|still|tell|say|said|mention|u|ur|ya|sooo|soo")


def _guarded(words: str) -> str:
    """The trie of ``words`` behind a look-ahead on their first characters, so the many
    positions where no word can start fail at once."""
    firsts = "".join(sorted({w[0] for w in words.split("|") if w}))
    return "(?=[" + re.escape(firsts) + "])" + _alt(words)


#: Laughter is no mood worth keeping either: a clause of laughter (and emoji) is plain filler.
_LAUGHTER = re.compile(
    r"[哈呵嘿嘻]{2,}|[嗚呜]{2,}|\b(?:lol+|lmao|lmfao|rofl|haha(?:ha)*|hehe+|hihi|xd|omg)\b|"
    # and hesitation sounds typed in Latin letters inside any script ("emmm", "hhh", "hmm")
    r"(?<![A-Za-z])(?:e?m{2,}|h{3,}|hm+|u+m+|e+r+m*)(?![A-Za-z])", re.I)
#: Emphasis without a subject ("这个非常重要", "真的非常重要", "this is really important"): it
#: stresses something said elsewhere and states nothing itself, so it is filler (the raw turn
#: keeps it), never a fact, and a repeat of it adds nothing.
_ZH_EMPHASIS = re.compile(_guarded(
    "非常重要|十分重要|特别重要|特別重要|很重要|超重要|重要|非常|十分|特别|特別|超级|超級|一定|务必|務必|"
    "千万|千萬|记住|記住|记得|記得|切记|切記|强调|強調|再说一遍|再說一遍|重申|关键|關鍵|拜托|拜託|求求"))
_EN_EMPHASIS = re.compile(
    r"\b(?:important|crucial|critical|essential|vital|urgent|very|really|super|extremely|"
    r"seriously|absolutely|remember|keep in mind|i repeat|repeat|again|matters?|please|"
    r"a lot|so much|this|that|it's|it is|is)\b", re.I)
#: A clause can be emphasis only if it holds one of these (the cheap test before the others).
_EMPHASIS_CORE = re.compile(
    r"重要|记住|記住|记得|記得|切记|切記|强调|強調|务必|務必|千万|千萬|一定|关键|關鍵|拜托|拜託|求求|再说一遍|"
    r"再說一遍|重申|(?i:important|crucial|critical|essential|vital|urgent|remember|keep in mind|"
    r"repeat)")
_ZH_EMOTION_RX = re.compile(_guarded(_ZH_EMOTION_WORDS))
_EN_EMOTION_RX = re.compile(r"\b(?:" + _alt(_EN_EMOTION_WORDS) + r")\b", re.I)
_ZH_STRIP = re.compile(_guarded(_ZH_STOP_WORDS + "|" + _ZH_EMOTION_WORDS))
_ZH_GLUE_RX = re.compile(_ZH_GLUE)
_EN_WORDS = {w for w in (_EN_STOP_WORDS + "|" + _EN_EMOTION_WORDS + "|" + _EN_GLUE).split("|") if w}
_EN_SINGLE = frozenset(w for w in _EN_WORDS if " " not in w)
_EN_PHRASES = re.compile(r"\b(?:" + _alt("|".join(w for w in _EN_WORDS if " " in w)) + r")\b")
_EN_TOKEN = re.compile(r"[a-z][a-z']*|\d+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")
_ASCII = re.compile(r"[\x00-\x7f]+")
_NOT_WORD = re.compile(r"[\W_]+")
_CONTENT = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[A-Za-z]{2,}|\d")


#: Clause results kept for reuse: the same clause is judged several times per turn (typing,
#: fragments, id chains) and common clauses recur across turns. Pure functions of the text.
CLAUSE_CACHE_SIZE = 4096
#: Only answers for texts up to this long are kept (a pasted document's sentences are not: the
#: caches stay small whatever comes in).
CACHED_TEXT_CHARS = 1000


def content_left(clause: str) -> str:
    """What remains of ``clause`` once stop-list and glue words are gone (for size checks)."""
    if len(clause) > CACHED_TEXT_CHARS:
        return _content_left.__wrapped__(clause)
    return _content_left(clause)


@lru_cache(maxsize=CLAUSE_CACHE_SIZE)
def _content_left(clause: str) -> str:
    rest = clause
    if _CJK.search(rest):
        rest = _ZH_GLUE_RX.sub("", _ZH_STRIP.sub(" ", rest))
        if not _ASCII_ALNUM.search(rest):
            return _NOT_WORD.sub("", rest)
    lowered = _EN_PHRASES.sub(" ", rest.lower().replace("’", "'"))
    kept = [t for t in _EN_TOKEN.findall(lowered) if t not in _EN_SINGLE]
    return _NOT_WORD.sub("", _ASCII.sub("", lowered)) + "".join(kept)


def filler_kind(clause: str, *, known_not_filler: bool = False) -> FillerKind | None:
    """``"filler"`` (keep nothing), ``"aside"`` (an emotion only: session state at most) or None
    (the clause carries content). ``known_not_filler``: :func:`is_filler` already said no."""
    if len(clause) > CACHED_TEXT_CHARS:
        return _filler_kind.__wrapped__(clause, known_not_filler)
    return _filler_kind(clause, known_not_filler)


@lru_cache(maxsize=CLAUSE_CACHE_SIZE)
def _filler_kind(clause: str, known_not_filler: bool) -> FillerKind | None:
    s = clause.strip()
    if not known_not_filler and is_filler(s):
        return "filler"
    if not s.isascii():
        s = SYMBOLS.sub(" ", s)
    cjk = _CJK.search(s) is not None
    if _CONTENT.search(content_left(s)) and _CONTENT.search(content_left(_LAUGHTER.sub(" ", s))):
        if not _EMPHASIS_CORE.search(s):
            return None
        rest = (_ZH_EMPHASIS if cjk else _EN_EMPHASIS).sub(" ", s)
        if rest == s or _CONTENT.search(content_left(rest)):
            return None
        return "filler"
    if not _CONTENT.search(content_left(_LAUGHTER.sub(" ", s))) and not (
            _ZH_EMOTION_RX if cjk else _EN_EMOTION_RX).search(_LAUGHTER.sub(" ", s)):
        return "filler"
    emotional = _ZH_EMOTION_RX.search(s) if cjk else _EN_EMOTION_RX.search(s)
    return "aside" if emotional else "filler"


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
