"""Whether a value said in a clause is asked about or stated.

A question states no value ("我现在的地址是哪里？"), but two kinds of clause look like questions
and state one all the same:

* a **request** ("can you change where I get deliveries to 23 Wattle Grove?", "能不能改成晚上
  送？", "麻烦帮我把手机号换成…吗"): it says what the user wants from now on;
* a **run-on** clause that holds a statement and, after it, a question of its own, with no
  punctuation between them (voice input, a hurried chat: "paid the annual fee so I'm on Gold
  now also do I have to pay for return shipping?", "新家在天津市…你们有加绒的裤子吗").
  Only the part holding the value is read: a question mark sixty characters later asks about
  something else.

Used by the write path's slot rules (:mod:`jiyi.write.slots`) and its typing by meaning
(:mod:`jiyi.write.meaning`). Pure functions.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from ..text import slotwords as sw
from ..text.fastre import gate_all

#: A question that asks for something to be done is a request: it states what the user wants
#: ("Can you tell the courier to come weekdays after 4 pm?", "能不能周六上午送？", "how about
#: the office instead?").
REQUEST = re.compile(
    r"^[\s\-\u2013\u2014:;,.\u2026]*(?:(?:and|also|so|oh|ok|okay|btw|but)[\s,\-\u2013\u2014]+)*"
    r"(?:(?:can|could|would|will) (?:you|u|ya|we)\b|(?:please|pls|plz|kindly)\b)|"
    # a standing change asked ("From now on can everything go to kwame@…?", "can it all go
    # to my office instead?"): what the user wants from now on
    r"\b(?:from now on|going forward|from today|in future|in the future)\b.*\b(?:can|could)\b|"
    r"\b(?:can|could)\b.*\b(?:instead|from now on|going forward|in future)\b|"
    # "can deliveries be Fridays only?", "could the parcels be left at reception?": asks for it
    # to be so
    r"^\s*(?:can|could)\s+(?!i\b|we\b|you\b)[\w' ]{1,30}?\s+be\b|"
    # a request with its subject dropped ("Can just notify me through the app?", "can help change
    # my address?")
    r"^\s*(?:can|could) (?:just|pls|please|help|also|kindly)\b|"
    # a change asked with "OK?" after it ("電子帳單改寄X好嗎？", "改用微信行吗")
    r"(?:改|换|換|转|轉|用).{0,40}(?:好吗|好嗎|行吗|行嗎|可以吗|可以嗎|ok吗|ok嗎|OK吗|OK嗎|好冇|好無|"
    r"好不好|行不行|得唔得|得不得|ok唔ok|OK唔OK)|"
    r"^\s*(?:so\s+)?how about\b|"
    # asked as whether it can be done ("Is it possible to switch me onto Smile Plus instead?",
    # "any chance you could move me to evenings?")
    r"\b(?:is|would|will) it be possible to\b|^\s*is it possible to\b|\bany chance (?:you|u) (?:can|could)\b|"
    r"能不能|能否|可不可以|可唔可以|可否|得唔得|好唔好|幫手|帮手|可以.{0,12}[吗嗎]|麻烦|麻煩|帮我|幫我|请(?!问)|請(?!問)|劳驾|勞駕|"
    # "能改成晚上送吗": 能 and a verb of changing or helping, asked
    r"(?<![不可])能(?:改|换|換|转|轉|帮|幫|替|給我|给我).{0,16}[吗嗎]|"
    # "能把我这个卡升级成家庭卡吗": 能把 a thing to a change, asked
    r"(?<![不可])能把.{0,12}(?:改|换|換|转|轉|升|降|调|調|变|變).{0,12}[吗嗎]|"
    r"唔該|唔该|煩請|烦请",
    re.I)
#: A sentence that ends as a question: a question mark, or 吗 / 嗎 / 呢 at its end (the write
#: path's classifier and compression read only this).
ENDS_AS_QUESTION = re.compile(r"(?:[？?]|[吗嗎呢][。.！!]?)\s*$")
#: An English question starts with a question word, with "is / does / did …", or with "do", a
#: modal or "have" and then its subject ("do you have…", "can you see…", "have u got…"); without
#: a subject after it they start a terse statement or an emphatic request ("Would prefer
#: evenings", "Will be at 5 Hill St from Monday", "Have a new number: …", "Do get in touch via
#: Messenger").
_EN_ASKS = (r"^\s*(?:what|which|where|who|whose|how(?!\s+about\b))\b|"
            r"^\s*(?:when|why)\s+(?:is|are|was|were|do|does|did|can|could|will|would|should|has|"
            r"have)\b|"
            r"^\s*(?:is|are|am|was|were|does|did)\b|"
            r"^\s*(?:do|can|could|will|would|should|have|has)\s+(?:i|"
            r"you|u|ya|we|it|they|he|she|the|my|your|this|that|these|those|there|anyone|anything|"
            r"any|ur)\b")
#: A question about what the clause holds ("我现在的电话是多少", "which address do you have?").
#: The one test of "asked" for the slot rules, typing by meaning and recall's slot rows.
ASKED = re.compile(
    ENDS_AS_QUESTION.pattern + "|" + _EN_ASKS + "|"
    r"多少|(?<![没沒])什么(?![的事都])|(?<![没沒])什麼(?![的事都])|"
    # how ("你们会怎么通知我", "修好了你们咋通知我", "通过啥通知我"): not "no matter how"
    # (不管怎么样), not "not much" (我不怎么看, 没咋用), not a complaint (快递咋这么慢), not "if
    # anything comes up" (有啥事发短信)
    r"(?<!不管)(?<!无论)(?<!無論)(?<!不论)(?<!不論)(?<![不没沒])(?:怎么|怎麼|怎样|怎樣|如何|點樣|点样)"
    r"(?!办|辦|都|也|这么|這麼|那么|那麼|回事)|"
    r"(?<![不没沒])咋(?!办|辦|都|也|这么|這麼|那么|那麼|回事)|(?<![有没沒])啥(?![事都也])|"
    r"哪个|哪個|哪里|哪裡|哪儿|哪兒|几点|幾點|几号|幾號|是不是|有没有|有沒有|[吗嗎][？?。，,]",
    re.I)
#: In Cantonese 呢 before a measure word or a place word is "this" ("打呢個", "寄呢度", "呢排",
#: "呢張單"), no question particle ending a sentence.
CANTONESE_THIS_AFTER = (r"[個个度處处啲D支間间張张份件位次排便邊边種种款對对條条架部本隻只封單单筆笔樣样"
                        r"陣阵日晚朝期枝盒包袋樽杯碗碟餐間]")
#: Where one Chinese sentence ends and the next begins with no punctuation between them: after
#: a question particle ("…有大特价吗请问…") or a laugh ("哈哈我…") before more Chinese, before
#: "对了" / "顺便问" ("by the way": "…现在是黑钻会员对了退货…"), right after a value where the
#: agent is addressed ("…以后打+86-18322602944你们有没有门店…"), or after a closing particle
#: before words that open an utterance ("…我不吃这个了麻烦您说慢一点…", "…唔要喇麻煩晒"). The
#: sentence splitter cuts here too (:func:`jiyi.write.compress.split_sentences`).
ZH_RUN_ON = re.compile(r"(?<=[吗嗎呢])(?![啡绒絨子])(?<!呢(?=" + CANTONESE_THIS_AFTER + r"))"
                       r"(?=[\u4e00-\u9fff])|(?<=哈哈)(?=[\u4e00-\u9fff])(?!哈)|"
                       r"(?<=[0-9A-Za-z])(?=[啦喇吧呀啊哦喔嘛]?(?:你们|你們|你哋|请问|請問|劳驾|勞駕|谢谢|謝謝|唔該|"
                       r"唔该))|"
                       r"(?<=[了吧啊呀啦喇嘞哦喔嘛])(?=嗯|麻烦|麻煩|好的|哎呀|喂喂|谢谢|謝謝|请问|請問|劳驾|"
                       r"勞駕)|"
                       r"(?<=[\u4e00-\u9fff])(?<![说說猜答做选選找啊])(?=对了|對了|啊对|啊對|顺便问|順便問)")
#: The same in English, read only to tell a question from a statement: an inverted question
#: starting mid-clause ("… I'm on Gold now also do I have to …", "… it's gone is the outlet …").
_EN_RUN_ON = (r"(?<=\d)\s+(?=(?:which|what|where|when|why|how|who)\s)|"
              # an emoji ends a sentence too ("I hit Platinum this year 🎉 does that …")
              r"(?<=[A-Za-z0-9'\u2600-\u27bf\U0001f300-\U0001faff])\s+(?=(?:(?:also|and|btw|oh|so)\s+(?:why|what|how|where|when|which|"
              r"who)\s+|(?:also\s+|and\s+|btw\s+|oh\s+|so\s+)?(?:do|does|did|is|are|am|can|could|"
              r"would|will|should)\s+)(?:i|you|u|we|it|they|he|she|the|my|your|this|that|these|those|"
              r"there|anyone|anything|ever)\b)")
_RUN_ON = re.compile(ZH_RUN_ON.pattern + "|" + _EN_RUN_ON, re.I)
#: Where the agent is addressed in the middle of a Chinese run-on ("我係你哋嘅貴賓會員你哋幾點收工"):
#: the question after it is another sentence's, unless 你们 is an object ("跟你们说", "谢谢你们").
#: Read only to find the part holding a value: sentences are not cut here (after a verb 你们 is
#: its object far too often: "我朋友推荐你们家的").
_ADDRESSED = re.compile(r"(?<=[\u4e00-\u9fff])(?<![跟和同给給对對问問让讓叫诉訴帮幫替与與向把被是係说說话話嘅的"
                        r"谢謝爱愛请請求烦煩祝等找催告提醒])(?=你们|你們|你哋)")
_PART_BOUNDS = re.compile(_RUN_ON.pattern + "|" + _ADDRESSED.pattern, re.I)


def part_holding(text: str, start: int, end: int) -> str:
    """The run-on part of ``text`` that holds ``text[start:end]`` (the whole text when it has
    no run-on boundary)."""
    lo, hi = _part_bounds(text, start, end)
    return text[lo:hi]


def _part_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    lo, hi = 0, len(text)
    for m_start, m_end in _part_cuts(text):
        if m_start <= start:
            lo = m_end
        elif m_start >= end:
            hi = m_start
            break
    return lo, hi


#: Texts up to this long have their run-on boundaries kept: a clause is read for them once per
#: value it holds, and common clauses recur.
CACHED_TEXT_CHARS = 1000


def _part_cuts(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of the run-on boundaries of ``text`` (:data:`_PART_BOUNDS`), in order."""
    if len(text) > CACHED_TEXT_CHARS:
        return _part_cuts_of.__wrapped__(text)
    return _part_cuts_of(text)


@lru_cache(maxsize=4096)
def _part_cuts_of(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(m.span() for m in _PART_BOUNDS.finditer(text))


#: A declarative sentence typed with question marks states all the same ("my number is
#: 0412 555 111???", "it's tom@newmail.com?", "我的新号码是13912345678？？"): a question is made by
#: its words (a question word, an auxiliary before its subject, 吗/呢, A-not-A), and a sentence
#: opening with the speaker or "it" as its subject and holding none of them only says what the
#: speaker holds, unsure or insistent.
_DECLARES = re.compile(
    r"^[\s,，.…]*(?:(?:ok(?:ay)?|so|and|but|actually|sorry|yeah|yes|no|nope|hi|hey|hello|um+|uh+|"
    r"oh|well|wait|fyi|btw|pls|plz|please|also|hmm+)\b[\s,，.!…]*)*"
    r"(?:(?:my|our|i|i'm|im|i am|i've|it's|its|it is|this is|here's|that's)\b|"
    r"(?:嗯|哦|噢|那|对了|對了|喂)?[，,\s]*(?:我|俺|咱))", re.I)
_MARKS_END = re.compile(r"[?？]+[\s!！.。]*$")
#: Inside such a sentence these still ask: an alternative ("my tier is Gold or Silver?", "我是金卡
#: 还是银卡？"), a question word anywhere ("I wonder where it went?", "我该怎么改？"), a question
#: embedded after a verb of wondering ("I was wondering if you ship to Perth?", "我想问运费？"), a
#: question after a comma ("I moved, is the address updated?").
_STILL_ASKS = re.compile(
    r"\b(?:or|what|which|where|who|whose|when|why|how|whether|if|wonder\w*|know)\b|"
    r"[,;:，]\s*(?:is|are|am|was|were|do|does|did|can|could|will|would|should|has|have)\s|"
    r"还是|還是|定係|定系|或者|或是|怎么|怎麼|怎样|怎樣|为什么|為什麼|为啥|為啥|谁|誰|几|幾|咩|乜|点样|"
    r"點樣|邊度|边度|想知道|想问|想問|请问|請問|问一下|問一下|不知",
    re.I)


def declared_with_mark(part: str) -> bool:
    """The part is a declarative sentence typed with question marks: it states (see
    :data:`_DECLARES`)."""
    mark = _MARKS_END.search(part)
    if mark is None:
        return False
    body = part[:mark.start()]
    return _DECLARES.match(body) is not None and ASKED.search(body) is None \
        and _STILL_ASKS.search(body) is None


def asks(text: str) -> bool:
    """The text asks (:data:`ASKED`), unless it is a declarative typed with question marks; a
    question word used as "any" ("有什麼問題用LINE聯絡我") asks nothing."""
    text = INDEFINITE.sub(" ", text)
    return ASKED.search(text) is not None and not declared_with_mark(text.strip())


#: "If anything comes up" ("有啥事直接打电话", "有什麼問題用LINE聯絡我"): a question word as "any",
#: followed by what to do.
INDEFINITE = re.compile(r"有(?:啥|什么|什麼|咩|乜|乜嘢|咩嘢)(?:事|问题|問題|情况|情況|需要|变动|變動)"
                         r"(?=\s*[^\s吗嗎呢啊吧呀?？]{2})")


def is_request(part: str) -> bool:
    """The part asks for something to be done (it states what the user wants)."""
    return REQUEST.search(part) is not None


#: An embedded question is no question ("不知道是不是正常的", "不清楚有没有货"): the words are
#: left out before the part is read.
_EMBEDDED = re.compile(r"(?:不知道|不确定|不確定|不清楚|不晓得|不曉得|唔知|想知道|想問問|想问问)"
                       r"(?:是不是|有没有|有沒有|是否)?")


#: Words that state what follows them ("新家在…", "现在用…", "my address is …"): a question word
#: before them asked about something else ("M和L差多少新家在天津市…": 多少 asks about sizes).
_STATES_WHAT_FOLLOWS = re.compile(r"(?<![还還])是|在|住|用|成|为|為|係|喺|到|\b(?:is|are|at|to|now)\b", re.I)


_ZH_SPACE_STOP = re.compile(r"(?<=[\u4e00-\u9fff0-9])[ \u3000]+(?=[\u4e00-\u9fff])")


def asks_value(text: str, start: int, end: int) -> bool:
    """The value at ``text[start:end]`` is asked about, not stated: the part holding it is a
    question (a question word before the value counts only when no word stating the value
    stands between them), and no request."""
    lo, hi = _part_bounds(text, start, end)
    # a space after the value, in Chinese typed without stops, ends its sentence ("地址填好了
    # 朝阳区…502 送货上门吗": the question is the next sentence's)
    gap = _ZH_SPACE_STOP.search(text, end, hi)
    if gap is not None:
        hi = gap.start()
    part = text[lo:hi]
    if is_request(part) or declared_with_mark(part.strip()):
        return False
    read = _EMBEDDED.sub(lambda m: " " * len(m.group(0)), part)
    at = start - lo
    return any(m.end() > at or not _STATES_WHAT_FOLLOWS.search(read, m.end(), at)
               for m in ASKED.finditer(read))


def run_on_parts(text: str) -> list[str]:
    """``text`` cut at its run-on boundaries (one part when it has none)."""
    cuts = [0, *(m.start() for m in _RUN_ON.finditer(text)), len(text)]
    return [p for a, b in pairwise(cuts) if (p := text[a:b].strip())]



#: A condition or a supposition opening ("如果", "假如", "要是", "万一", "if", "suppose"): what
#: follows it in the same clause is supposed, not stated ("如果我升等成白金的話", "if I went
#: Platinum"). "if" after a verb of checking asks whether ("check if", "see if"): no supposition.
_SUPPOSE = re.compile(r"如果|假如|假设|假設|要是|若是|倘若|如若|假使|万一|萬一|"
                      # a value weighed, not chosen ("我在考慮要不要升到 1G", "thinking of
                      # upgrading to Unlimited Max")
                      r"考虑要不要|考慮要不要|考虑是否|考慮是否|在考虑|在考慮|"
                      r"(?<![A-Za-z])(?:[Ii]f|[Ss]uppos(?:e|ing)|[Aa]ssuming|[Ii]n case|"
                      r"[Tt]hinking (?:of|about)|[Cc]onsidering|[Cc]ontemplating)(?![A-Za-z])")
_CHECKING_IF = re.compile(r"(?i:\b(?:check|checking|see|seeing|wonder|wondering|know|ask|asking|"
                          r"confirm|verify|tell me|sure|unsure|not sure|as)\s*)$")
#: Where a supposition ends and the consequence starts ("，", "就", "then").
_CONSEQUENCE = re.compile(r"[，,。.;；!！?？\n]"
                          # an example of the supposed ("如果我以后搬去北京了，比如搬到X那边", "if I
                          # moved, say to 12 Oak St"): still supposed
                          r"(?!\s*(?:比如|比方|例如|譬如|像是|好似|e\.g\.|(?i:for example|for instance|say)\b))"
                          r"|就|便|那么|那麼|\b(?i:then)\b|"
                          # an imperative of reaching or sending ("if you need me call 555-…",
                          # "如果有问题打我电话…"): what follows is the request, stated
                          r"打|找我|联系|联络|聯絡|聯繫|寄|送|发|發|\b(?i:call|text|email|e-mail|ring|"
                          r"whatsapp|message|contact|reach|send|ship|deliver|use|try|dial|phone)\b")


def supposes_value(text: str, start: int) -> bool:
    """The value starting at ``text[start]`` is inside a condition or a supposition ("如果我升等成
    白金的話", "假如我开了年费黑卡", "if I upgraded to Gold"), not stated; a value in the
    consequence ("如果有问题就打13800138000", "if anything comes up, call 555-0142") or before
    the condition ("call me at 555-0142 if needed") is stated."""
    last = None
    for m in _SUPPOSE.finditer(text, 0, start):
        if not (m.group(0).lower() == "if" and _CHECKING_IF.search(text, 0, m.start())):
            last = m
    return last is not None and _CONSEQUENCE.search(text, last.end(), start) is None


def without_suppositions(text: str) -> str:
    """``text`` without the parts a condition or supposition governs (from its opening word to
    the consequence): what is left is what the text states ("如果我升等成白金的話，只是問問而已"
    -> "，只是問問而已")."""
    out, pos = [], 0
    for m in _SUPPOSE.finditer(text):
        if m.start() < pos or (m.group(0).lower() == "if"
                               and _CHECKING_IF.search(text, 0, m.start())):
            continue
        end = _CONSEQUENCE.search(text, m.end())
        out.append(text[pos:m.start()])
        pos = end.start() if end is not None else len(text)
    out.append(text[pos:])
    return "".join(out)


_WORDS_LEFT = re.compile(r"[^\W\d_]{2,}|[\u4e00-\u9fff]")


def all_supposed(text: str) -> bool:
    """Everything the text says is inside a supposition ("如果我以后搬去北京了，比如搬到X那边",
    "if I ever moved to Leeds"): it states no value."""
    if _SUPPOSE.search(text) is None:
        return False
    rest = without_suppositions(text)
    # what is left only hedges ("Random q. If I end up moving to Leeds next year (work might
    # relocate me, nothing decided)", "如果搬去深圳，还没定，只是问问"): nothing is stated
    rest = " ".join(c for c in _REST_CLAUSES.split(rest) if not _HEDGE.search(c))
    # what is left only asks whether the supposed would do ("如果我改成晚上送能行吗", "if I moved
    # it to evenings, would that work?"): nothing is stated
    return _WORDS_LEFT.search(rest) is None or (asks(rest) and _short(rest))


#: The clauses of what a supposition leaves, and the ones that only hedge or introduce it.
_REST_CLAUSES = re.compile(r"[，,;；。.!！()（）]")
_HEDGE = re.compile(r"\b(?:might|maybe|perhaps|possibly|not sure|unsure|nothing(?:'s| is)? (?:decided|"
                    r"confirmed|certain)|not (?:decided|confirmed|certain)|undecided|just (?:asking|"
                    r"wondering|curious|checking)|(?:random|quick|silly) (?:q|qn|question)|no idea yet)\b|"
                    r"还没定|還沒定|还没确定|還沒確定|不确定|不確定|未定|冇定|只是问问|只是問問|随便问问|隨便問問|"
                    r"只係問下|只系问下|问一下而已|問一下而已|可能|也许|也許|说不定|說不定", re.I)


#: The longest rest of a supposition read as a bare "would that do?" (characters / words).
SHORT_ASK_CHARS = 8
SHORT_ASK_WORDS = 4


def _short(text: str) -> bool:
    text = text.strip(" ，,。.!！?？")
    if re.search(r"[\u4e00-\u9fff]", text):
        return len(text) <= SHORT_ASK_CHARS
    return len(text.split()) <= SHORT_ASK_WORDS


#: A value said of the past ("I used to live at…", "Last year I was using X", "我以前用X登記過"),
#: with no word for the present beside it ("…but now…", "现在"): history, no current value.
_PAST_USE = re.compile(sw.alternation(sw.PAST_ZH, ("曾经", "曾經")) + "|" + sw.en_words(
    ("used to", "was using", "were using", "previously", "formerly", "back then", "in the past",
     "i was at", "i was on", "i lived")), re.I)
_PRESENT = re.compile(sw.alternation(sw.CURRENT_ZH, sw.IS_NOW_ZH, sw.USING_NOW_ZH, sw.FROM_NOW_ON_ZH,
                                     sw.CHANGED_TO_ZH, ("现在", "現在", "而家", "宜家", "依家", "目前"))
                      + "|" + sw.en_words(sw.CURRENT_EN, ("currently", "these days", "today")), re.I)


#: One past occasion told ("上次你们打电话给我，我在开会", "you rang me yesterday"): what was done
#: then, not how the user wants it done.
_PAST_OCCASION = re.compile(
    r"(?:上次|上回|上一次|上一回|昨天|昨日|尋日|寻日|前天|前几天|前幾天|刚才|剛才|啱啱|那天|嗰日|"
    r"上周|上週|上星期|上礼拜|上禮拜|上個?月|上个月)\s*(?:你们|你們|你哋|您|客服|师傅|師傅|快递|快遞|"
    r"司机|司機|外卖|外賣|骑手|騎手|送货|送貨|有人)|"
    r"\byou (?:guys )?(?:rang|called|phoned|texted|emailed|messaged|whatsapped) me\b", re.I)


def of_the_past(text: str) -> bool:
    """The clause speaks of a value the user had, or of one past occasion, not of one they
    have (:data:`_PAST_USE`, :data:`_PAST_OCCASION`)."""
    return (_PAST_USE.search(text) is not None or _PAST_OCCASION.search(text) is not None) \
        and _PRESENT.search(text) is None


#: A value given for one order, one invoice or this time only ("就这单", "就这一张哈", "只是這次",
#: "just this once", "on this one invoice"): an exception, not the user's standing value.
_ONE_OFF = re.compile(r"就(?:这|這|呢)一?(?:单|單|次|回)|就(?:这|這|呢)一?(?:张|張)(?=[哈啊吧呀啦喔哦噢嘛\s，,。.！!]|$)|"
                      r"只(?:是|有)?(?:这|這)一?(?:单|單|次|回)|仅此一次|僅此一次|就呢张单|就呢張單|"
                      r"这单就|這單就|淨係呢次|净系呢次|(?:淨係|净系|只係|只系)(?:呢|這|这)(?:單|单|張單|张单)|"
                      r"\b(?:just|only) (?:this|that|for this|for that) (?:once|one|time|order|invoice|box|delivery|shipment|"
                      r"parcel|package|booking)\b|"
                      r"\bthis (?:time|order|batch) only\b|\bfor this order only\b|\bonly this batch\b|"
                      r"\bfor this one\b|"
                      r"\bon this one (?:invoice|order|receipt|booking|delivery)\b|"
                      r"\bone-?off\b|\bone time only\b", re.I)


#: Today only, or this order named as the one the value is for ("这单能不能下午三点送，就今天",
#: "今日而家喺公司，淨係今日", "just for today"): one-off unless a standing word is said beside it.
_TODAY_ONLY = re.compile(r"(?:这|這)一次|就这周|就這週|就這周|只有这周|只有這週|(?:下周|下週|下礼拜|下禮拜|之后|之後|"
                         r"下次|下個?星期|下个?星期)(?:就)?(?:恢复|恢復|改回|照旧|照舊|照常)|"
                         r"\b(?:just|only) (?:for )?this week\b|\bthis week only\b|"
                         r"\b(?:back to normal|resume|revert) (?:next|after)\b|就今天|只有今天|仅今天|僅今天|只限今天|今天而已|今天就好|就今日|淨係今日|净系今日|"
                         r"今日而已|只係今日|只系今日|(?:这|這|本|呢)(?:单|單|张单|張單)(?:能|可以|可不可以|麻烦|麻煩|"
                         r"帮我|幫我|請|请|就|先|要|唔該|唔该|改|送|寄|到)|"
                         r"\b(?:just|only) (?:for )?today\b|\bfor today only\b|\btoday only\b|"
                         # one month or one week named ("just for February could you send it…")
                         r"\b(?:just|only) (?:for|in) (?:january|february|march|april|may|june|july|"
                         r"august|september|october|november|december|this month|next month|that week|"
                         r"that day|the holidays)\b|"
                         r"\b(?:just|only) (?:for )?(?:this|tonight'?s|today'?s) (?:delivery|parcel|package|"
                         r"shipment|booking|one)\b", re.I)
_STANDING = re.compile(sw.alternation(sw.FROM_NOW_ON_ZH, sw.FROM_NOW_ON_LEAD_ZH,
                                      ("以后", "以後", "每次", "一直", "默认", "默認", "長期", "长期"))
                       + "|" + sw.en_words(sw.FROM_NOW_ON_EN, ("always", "every time", "default")),
                       re.I)


#: "Only" right before "this" / a day ("淨係今次", "只有這一張喔", "only this one", "just for
#: Friday"): the words of a one-off, however the rest is phrased.
_ONLY_THIS = re.compile(
    r"(?:淨係|净系|只係|只系|只有|只是|僅|仅)\s*(?:今次|呢次|這次|这次|今日|今天|這一|这一|呢一|"
    r"這單|这单|呢單|今回|這回|这回|一次)|"
    r"\b(?:just|only)\s+(?:for\s+|on\s+)?(?:this|that|today|tonight|tomorrow|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b", re.I)


def one_off(sentence: str) -> bool:
    """The sentence gives a value for one order, one invoice or this time only ("寄到X，就这单",
    "cc my assistant on this one invoice", "这单能不能下午三点送，就今天"): an exception, no slot
    fact."""
    return _ONE_OFF.search(sentence) is not None or _ONLY_THIS.search(sentence) is not None or (
        _TODAY_ONLY.search(sentence) is not None and _STANDING.search(sentence) is None)


#: The standing value stays ("照舊就得", "平時都係送屋企", "其他還是寄我自己信箱", "不過記錄上面都係用返
#: 我自己個電話", "after that back to normal", "Keep it as it is"): whatever else the message
#: says of a value is an exception or a refusal, unless it asks for the update outright.
_STATUS_QUO = re.compile(
    r"照旧|照舊|照常|如常|依旧|依舊|維持不變|维持不变|保持不變|保持不变|唔使改|唔洗改|不用改|不需要改|"
    r"唔好改|別改|别改|"
    r"(?:其他|其它|其餘|其余|平時|平时|平常|平日|通常|下次)[^，,。.！!？?]{0,8}?"
    r"(?:還是|还是|仍然|仍舊|仍旧|照|都係|都系|都是|都|繼續|继续|維持|维持)\s*"
    r"(?:寄|送|發|发|用|打|聯絡|联络|通知|照|原|一樣|一样|舊|旧)|"
    r"(?:用返|用回|送返|送回|寄返|寄回)我?(?:自己|原本|原來|原来|本身)|"
    r"\b(?:back to (?:normal|usual|the usual|my usual|the regular)|as usual|as always|as before|"
    r"(?:keep|leave) (?:it|things|everything|that) (?:as it is|as is|the same|unchanged)|"
    r"same as (?:before|always|usual)|otherwise (?:still|keep|use|send|ship|call)|"
    r"(?:stays?|remains?) (?:the same|unchanged))\b", re.I)
#: An update asked for outright ("改成", "update my … to", "from now on"): it stands, whatever
#: else stays as before ("地址改成X，其他照舊").
_UPDATE = re.compile(
    r"改成|改为|改為|換成|换成|改做|轉做|转做|更新|改去|改到|以后|以後|往后|往後|今後|今后|"
    r"\b(?:update\w*|change\w*|switch\w*|move\w*)\b(?:\s+\S+){0,4}?\s+to\b|"
    r"\b(?:from now on|going forward|from then on)\b", re.I)


def keeps_the_standing_value(message: str, sentence: str) -> bool:
    """The message says the standing value stays (:data:`_STATUS_QUO`) and ``sentence``, one
    of its sentences, asks for no update outright: a value it gives is no standing one."""
    return _STATUS_QUO.search(message) is not None and _UPDATE.search(sentence) is None


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
