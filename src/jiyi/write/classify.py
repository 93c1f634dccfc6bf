"""Typing: which kind of memory a sentence is, and whether a turn is a pure confirmation.

* ``tool_result``: anything a tool returned;
* ``batch_operation``: progress of a batch task ("已完成30/100", "processed 30 of 100");
* ``user_profile``: stable facts about the speaker (name, contact, home, likes, family...);
* ``session_state``: what is being done now (requests, questions, intents, and what the
  assistant or system says: durable facts come from the user or from tools);
* ``fact_reference``: world facts the conversation established (the default for statements).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..keyfacts.asking import ENDS_AS_QUESTION, is_request
from ..text.fastre import gate_all
from ..text.levels import mentions_level
from ..units import Entity, MemoryType
from .slots import CHANGE_WORDS

_CONFIRM = re.compile(
    r"^(?:(?:对|對|对的|對的|是的|是|没错|沒錯|没有错|沒有錯|正确|正確|嗯|恩|确认|確認|确定|確定|就是|"
    r"yes|yep|yeah|yup|correct|right|exactly|confirmed|that's right|that is right|that's correct|"
    r"that's it|that's the one|sure is)[，,、!！。.\s~]*)+"
    r"(?:(?:就是)?(?:这个|這個|它|那个|那個|这个号|這個號|这个号码|這個號碼|这个地址|這個地址|没问题|沒問題|"
    r"that's (?:it|right|correct|the one)|that one|thanks?|thank you|谢谢|謝謝)[号號]?[，,!！。.\s~]*)*$",
    re.I)

_BATCH = re.compile(
    r"(?:批量|批次|任务|任務|进度|進度|batch|task|job|progress).{0,40}?(\d+)\s*(?:/|／|of|out of)\s*(\d+)|"
    r"(?:已完成|已处理|已處理|完成了|处理了|處理了|processed|completed|done)\s*(\d+)\s*(?:/|／|of|out of)\s*(\d+)",
    re.I)

_PROFILE_ZH = re.compile(
    r"我(?:叫|名叫|是一[名个個位]|今年\d|住在|住|家在|老家|在.{1,12}(?:工作|上班|上学|上學|读书|讀書)|的(?:生日|名字|电话|"
    r"電話|手机|手機|邮箱|郵箱|地址|工作|职业|職業|爱好|愛好|老婆|老公|妻子|丈夫|孩子|女儿|女兒|儿子|兒子|宠物|寵物|"
    r"狗|猫|貓|会员|會員)|喜欢|喜歡|不喜欢|不喜歡|爱|愛|讨厌|討厭|对.{1,8}过敏|對.{1,8}過敏|过敏|過敏|"
    r"有(?:一个|一個|两个|兩個|一只|一隻|一条|一條)?(?:孩子|女儿|女兒|儿子|兒子|狗|猫|貓)|偏好|习惯|習慣|通常|"
    r"一般|从不|從不|不吃|吃素|不喝|属|屬|毕业于|畢業於)")
_PROFILE_EN = re.compile(
    r"\b(?:I am (?:a|an)\b|I'm (?:a|an)\b|I was born|I live|I've lived|I work|I like|I love|I hate|I prefer|"
    r"I enjoy|I don't (?:like|eat|drink)|I'm allergic|I am allergic|I'm vegetarian|I'm vegan|"
    r"I usually|I always|I never|my (?:name|wife|husband|partner|kids?|son|daughter|dog|cat|job|"
    r"birthday|hobby|hobbies|favorite|favourite|family|parents|mom|dad|mother|father|sister|"
    r"brother)\b|I have (?:a|an|two|three|four) (?:kids?|children|sons?|daughters?|dogs?|cats?|"
    r"sisters?|brothers?|pets?)|I(?:'m| am) from|I grew up|I studied|I graduated)", re.I)
_SESSION_ZH = re.compile(
    r"帮我|幫我|请帮|請幫|帮忙|幫忙|查一下|查询|查詢|查查|看一下|看看|我要|我想要?|我需要|能不能|能否|可不可以|可以帮|"
    r"可以幫|怎么|怎麼|如何|为什么|為什麼|多少|什么时候|什麼時候|哪里|哪裡|吗[？?。]?$|嗎[？?。]?$|[？?]$|"
    r"正在|稍等|马上|馬上|我来|我來|为您|為您|现在|現在|当前|當前|刚才|剛才|刚刚那|剛剛那|"
    r"注意一下|留意一下|记一下|記一下|记着|記著|记住|記住|别忘了|別忘了|下单|下單")
_SESSION_EN = re.compile(
    r"^(?:can|could|would|will) you\b|\bplease\b|\bhelp me\b|\bI(?:'d| would) like to\b|"
    r"\bI want to (?:buy|order|return|cancel|change|check|book|know|find|get|track|pay)\b|"
    r"\bhow (?:do|can|should) I\b|\?$|\bright now\b|\bcurrently\b|\bI'm (?:looking for|trying to)\b|"
    r"\blet me (?:check|look)\b|"
    r"^(?:keep|remember|note|save|remind|send|book|cancel|check|find|show|tell|give|add|update|"
    r"change|track|look up)\b", re.I)


#: Gates, each a character every match of the patterns it guards contains: a Chinese character
#: or a question mark (_SESSION_ZH), a letter the English patterns can match (re.I also folds
#: ı, ſ, K and İ) or "?" (_PROFILE_EN, _SESSION_EN), a digit (_BATCH). Text without one is not
#: scanned by the long alternations at every position.
_ZH_GATE = re.compile(r"[\u4e00-\u9fff？?]")
_EN_GATE = re.compile(r"[A-Za-z\u0130\u0131\u017f\u212a?]")
_DIGIT = re.compile(r"\d")

#: A confirmation is short ("对，就是这个号"); a longer turn that starts with "对" says more.
MAX_CONFIRMATION_CHARS = 40
#: The type shows in a sentence's opening; the regexes need not scan a pasted document.
CLASSIFY_WINDOW_CHARS = 1000


def is_confirmation(text: str) -> bool:
    """"对，就是这个号" / "yes, that's right": a pure confirmation of what was just said."""
    s = text.strip()
    return len(s) <= MAX_CONFIRMATION_CHARS and bool(_CONFIRM.fullmatch(s))


def batch_progress(text: str) -> tuple[int, int] | None:
    """(completed, total) when the text reports batch progress."""
    m = _BATCH.search(text) if _DIGIT.search(text) else None
    if not m:
        return None
    done = int(m.group(1) or m.group(3))
    total = int(m.group(2) or m.group(4))
    return (done, total) if 0 <= done <= total and total > 0 else None


#: Words making a request one that stands ("一律…", "always"), beside :data:`.slots.CHANGE_WORDS`
#: (which holds "from now on", "以后" and the other change words).
_STANDING = re.compile(r"从今|從今|一律|每次|固定|默认|默認|长期|長期|"
                       r"[升降](?:级|級|到|返|做|成|为|為|去)|[转轉换換改](?:去|到|用|返|回)|"
                       r"\b(?:always|by default|every time|from next)\b|"
                       r"\b(?:switch|move|upgrade|downgrade|drop|bump|put|change|update|set)\s+"
                       r"(?:me|my|us|our|it|that|the account)\b", re.I)


#: A move to another plan, package or level ("幫我換1199那個吃到飽", "轉做 500M", "升去白金會員"):
#: a switch verb, then within a few words what is subscribed to.
#: What a user subscribes to or holds ("方案", "月租", "會員", "plan"), for the two patterns below.
_PLAN_NOUN = r"方案|套餐|plan|資費|资费|月租|會員|会员|會籍|会籍|計劃|计划"
_SWITCH_TO_A_PLAN = re.compile(
    r"(?:換|换|轉|转|升|降|改)(?:成|到|去|做|返|番|回)?[^，。,.!！?？\n]{0,14}?"
    rf"(?:{_PLAN_NOUN}|吃到飽|吃到饱|"
    r"\d+\s?(?:M|G|兆|Mbps|GB)\b|\d+\s?(?:M|G|兆))|"
    r"\b(?:switch|move|go|drop|bump|upgrade|downgrade|change)\w*\s+(?:\w+\s+){0,3}?(?:down |up )?to\s+"
    r"(?:[\w-]+\s+){0,4}?(?:plan|package|tier|level|membership|unlimited|\d+\s?(?:mbps|gb|mb))\b", re.I)
#: The user asking whether they may change something ("Can I change my shipping address to …?",
#: "Could I go down to the 150 Mbps plan?"): a request put as a question about themselves.
_MAY_I = re.compile(r"^\W*(?:so\s+)?(?:can|could|may)\s+(?:i|we)\b", re.I)
#: The user's own level named in a question, or a level moved to ("升上金卡了？", "咁即係我而家降咗做
#: 普通會員？", "So am I on the Platinum tier now?"): what the user holds, checked, not a task of
#: the session.
_OWN_OR_MOVED = re.compile(r"我|(?:升|降|變|变|轉|转|跌)(?:咗|了|上|到|成|做|去|返|级|級)|"
                           r"\b(?:i|i'm|my|me|upgraded|downgraded|bumped|moved (?:up|down))\b", re.I)
#: The user's own standing plan or level, said as theirs now ("我現在是月租599的4G方案", "我而家用緊
#: 500M 計劃"): a fact about the user, though it says "现在".
_OWN_STANDING = re.compile(
    r"我(?:现在|現在|目前|而家|依家|宜家|暂时|暫時)?(?:用的是|用的|是|係|系|用緊|用紧|用着|用著|開咗|开了|辦咗|办了)"
    rf"[^，。,.!！?？\n]{{0,14}}?(?:{_PLAN_NOUN})", re.I)


def asks_a_standing_change(sentence: str) -> bool:
    """A request that changes something for good ("幫我降返最平嗰個 300M", "Can you switch me to
    SMS?", "Please always before 7am", "幫我換1199那個吃到飽"): not a session's task, though it
    is asked."""
    return (is_request(sentence) or _MAY_I.search(sentence) is not None) and (
        CHANGE_WORDS.search(sentence) is not None or _STANDING.search(sentence) is not None
        or _SWITCH_TO_A_PLAN.search(sentence) is not None)


def classify(sentence: str, role: str, entities: list[Entity], slot: str | None) -> MemoryType:
    """The memory type of one (kept) sentence (judged on its first 1,000 characters)."""
    return _classify(sentence[:CLASSIFY_WINDOW_CHARS], role, bool(slot))


@lru_cache(maxsize=4096)
def _classify(sentence: str, role: str, slot: bool) -> MemoryType:
    """:func:`classify` on what decides it (a clause is typed several times per turn, and common
    clauses recur across turns: the answer is kept)."""
    if role == "tool":
        return MemoryType.TOOL_RESULT
    if batch_progress(sentence):
        return MemoryType.BATCH_OPERATION
    if slot:
        return MemoryType.USER_PROFILE
    if role == "user" and asks_a_standing_change(sentence):
        return MemoryType.FACT_REFERENCE  # what the user wants from now on outlives the session
    if ENDS_AS_QUESTION.search(sentence):
        if role == "user" and mentions_level(sentence) and (
                _OWN_OR_MOVED.search(sentence) or CHANGE_WORDS.search(sentence)):
            return MemoryType.FACT_REFERENCE  # the user's own level, checked
        return MemoryType.SESSION_STATE  # a question states no stable fact about the user
    if role == "user" and _OWN_STANDING.search(sentence):
        return MemoryType.FACT_REFERENCE  # the user's plan or level: outlives the session
    zh = _ZH_GATE.search(sentence) is not None
    en = _EN_GATE.search(sentence) is not None
    if role == "user" and ((zh and _PROFILE_ZH.search(sentence))
                           or (en and _PROFILE_EN.search(sentence))):
        return MemoryType.USER_PROFILE
    if role != "user" or (zh and _SESSION_ZH.search(sentence)) \
            or (en and _SESSION_EN.search(sentence)):
        return MemoryType.SESSION_STATE  # what the assistant says is about the task at hand
    return MemoryType.FACT_REFERENCE


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
