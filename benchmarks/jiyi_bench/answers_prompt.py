"""The reader's prompt under each plan, as pure functions of their inputs.

Every plan ends with the same question as the last user message, and the same answer
instruction opens (plan A, C) or closes (plan B, after jiyi's own system prompt) the system
message, so the plans differ only in what they show of the past:

- **A**: the raw history, one message per turn (``[date] text``), newest turns first until the
  window is full: the oldest turns are cut first, counted with jiyi's Qwen token counter,
  keeping ``reserve`` tokens for the answer;
- **B**: ``Memory.build_prompt`` (made by the caller; :func:`with_instruction` adds the
  instruction);
- **C**: the top-k recalled units only, one line each (``content [date]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from jiyi.context.tokens import TokenCounter

from .answers_data import HistoryTurn, Kind

Message = dict[str, str]

INSTRUCTIONS: dict[tuple[str, Kind], str] = {
    ("en", "qa"): ("Answer the user's question from what you are shown of the past. Give a "
                   "short answer (a few words, a name, a date or a number), no explanation. "
                   "If the answer is not there, say you do not know."),
    ("zh", "qa"): ("根据你看到的过往内容回答用户的问题。只给简短答案（几个词、一个名字、日期或数字），"
                   "不要解释。如果其中没有答案，就说不知道。"),
    ("en", "reply"): ("You are the Assistant in the dialogue below. Write the Assistant's next "
                      "line (one or two sentences), bringing up a memory of the user when it "
                      "fits."),
    ("zh", "reply"): "你是下面对话中的 Assistant。写出 Assistant 的下一句话（一两句），"
                     "合适时提起你记得的用户往事。",
}
_TIME = {"en": "Current time (UTC): ", "zh": "当前时间（UTC）："}
_HISTORY = {"en": "The conversation so far follows, oldest first.",
            "zh": "以下是到目前为止的对话，从早到晚。"}
_MEMORIES = {"en": "Memories:", "zh": "记忆："}
_NONE = {"en": "(none)", "zh": "（无）"}


def lang_of(language: str) -> str:
    """``zh-Hans`` / ``zh-Hant`` -> ``zh``; everything else ``en``."""
    return "zh" if language.startswith("zh") else "en"


def instruction(language: str, kind: Kind) -> str:
    return INSTRUCTIONS[(lang_of(language), kind)]


def stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M")


def turn_message(turn: HistoryTurn) -> Message:
    """A history turn as a chat message: user and assistant keep their role; tool and system
    output goes in as user-side text (a bare ``tool`` message needs a call id)."""
    role = turn.role if turn.role in ("user", "assistant") else "user"
    prefix = "" if turn.role in ("user", "assistant") else f"[{turn.role}] "
    return {"role": role, "content": f"[{stamp(turn.at)}] {prefix}{turn.text}"}


@dataclass(frozen=True)
class PlanA:
    messages: list[Message]
    kept: int  # history turns in the prompt (the newest ones)
    total: int  # history turns the user has
    tokens: int  # Qwen tokens of the whole prompt
    kept_turn_ids: tuple[str, ...]


def fit_newest(costs: Sequence[int], budget: int) -> int:
    """How many of the newest items fit in ``budget`` when added newest first (``costs`` in
    chronological order); the first one that does not fit stops the fill, so what is kept is
    always a suffix: the oldest go first."""
    used, kept = 0, 0
    for cost in reversed(costs):
        if used + cost > budget:
            break
        used += cost
        kept += 1
    return kept


def plan_a(history: Sequence[HistoryTurn], question: str, as_of: datetime, language: str,
           kind: Kind, num_ctx: int, reserve: int, counter: TokenCounter) -> PlanA:
    """Plan A's prompt: instruction, time, as many of the newest turns as fit, the question."""
    lang = lang_of(language)
    system = {"role": "system", "content": "\n".join(
        [instruction(language, kind), f"{_TIME[lang]}{stamp(as_of)}", _HISTORY[lang]])}
    ask = {"role": "user", "content": question}
    fixed = counter.count_messages([system, ask])
    empty = counter.count_messages([])
    msgs = [turn_message(t) for t in history]
    # a chat's count is the sum of its messages' counts plus the assistant prime (``empty``)
    costs = [counter.count_messages([m]) - empty for m in msgs]
    kept = fit_newest(costs, max(0, num_ctx - reserve - fixed))
    start = len(msgs) - kept
    messages = [system, *msgs[start:], ask]
    return PlanA(messages, kept, len(msgs), counter.count_messages(messages),
                 tuple(t.turn_id for t in history[start:]))


def memory_line(content: str, at: datetime, current: bool = True) -> str:
    return f"- {content} [{at.strftime('%Y-%m-%d')}{'' if current else ', earlier'}]"


def plan_c(memories: Sequence[tuple[str, datetime, bool]], question: str, as_of: datetime,
           language: str, kind: Kind) -> list[Message]:
    """Plan C's prompt: instruction, time, the recalled units (content, date, current), the
    question."""
    lang = lang_of(language)
    lines = [memory_line(c, at, cur) for c, at, cur in memories] or [_NONE[lang]]
    system = "\n".join([instruction(language, kind), f"{_TIME[lang]}{stamp(as_of)}",
                        _MEMORIES[lang], *lines])
    return [{"role": "system", "content": system}, {"role": "user", "content": question}]


def with_instruction(messages: Sequence[Mapping[str, Any]], language: str, kind: Kind
                     ) -> list[Message]:
    """Plan B: jiyi's prompt with the answer instruction appended to its system message (a
    system message is added first when the prompt has none)."""
    out = [{"role": str(m.get("role", "")), "content": str(m.get("content") or "")}
           for m in messages]
    text = instruction(language, kind)
    if out and out[0]["role"] == "system":
        out[0] = {"role": "system", "content": f"{out[0]['content']}\n\n{text}"}
    else:
        out.insert(0, {"role": "system", "content": text})
    return out


def instruction_tokens(language: str, kind: Kind, counter: TokenCounter) -> int:
    """What :func:`with_instruction` adds to a prompt's count (for plan B's reserve)."""
    return counter.count("\n\n" + instruction(language, kind))
