"""``jiyi chat`` (a terminal chat through the agent loop) and ``jiyi modelfile``."""

from __future__ import annotations

import uuid
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..agent import Agent, AgentReply
from ..context.modelfile import DEFAULT_MODEL, DEFAULT_NUM_CTX, render_modelfile
from ..errors import JiyiError, NotFoundError
from ..llm.registry import make_client
from ..memory import Memory
from .common import state

HELP = (
    "/memory            what this turn recalled, with scores and feedback\n"
    "/forget ID|TEXT    forget a memory unit (by id, or the best match for TEXT)\n"
    "/health            memory health: freshness, hit rate, amnesia alert\n"
    "/help              this list\n"
    "/quit              leave (Ctrl-D works too)"
)


def _relevance_now(mem: Memory, unit_id: str) -> str:
    try:
        unit = mem.get(unit_id)
    except NotFoundError:
        return "gone"
    return f"{unit.relevance_score:.1f}" + (" forgotten" if unit.invalidated_at else "")


def _memory_table(mem: Memory, reply: AgentReply | None) -> Table | str:
    if reply is None:
        return "nothing recalled yet: say something first"
    if not reply.hits:
        return "this turn recalled nothing"
    table = Table(title=f"recalled for the last turn ({reply.prompt_tokens} prompt tokens)")
    for col in ("#", "score", "conf.", "stage", "type", "relevance", "feedback", "id", "content"):
        table.add_column(col, overflow="fold")
    for i, hit in enumerate(reply.hits, start=1):
        table.add_row(str(i), f"{hit.score:.3f}", f"{hit.confidence:.2f}", hit.stage,
                      hit.unit.type.value, _relevance_now(mem, hit.unit.id),
                      reply.feedback.get(hit.unit.id, "-"), hit.unit.id,
                      Text(hit.unit.content))
    return table


def _forget(mem: Memory, arg: str, session: str, user: str | None) -> str:
    target = arg.strip()
    if not target:
        return "usage: /forget UNIT_ID or /forget TEXT"
    unit_id = None
    if target.startswith("m_"):
        try:
            unit_id = mem.get(target).id
        except NotFoundError:
            unit_id = None
    if unit_id is None:
        hits = mem.recall(target, session_id=session, user_id=user, k=1, log=False)
        if not hits:
            return f"no memory matches {target!r}"
        unit_id = hits[0].unit.id
    unit = mem.forget(unit_id, "forgotten by the user in jiyi chat")
    return f"forgotten: {unit.id} {unit.content}"


def _health_text(mem: Memory, session: str, user: str | None) -> str:
    h = mem.health(session, user_id=user)
    hit_rate = "n/a" if h.hit_rate is None else f"{h.hit_rate:.0%}"
    return (f"freshness {h.freshness_ratio:.0%} ({h.units_valid}/{h.units_total} valid), "
            f"hit rate {hit_rate}, amnesia alert: {'YES' if h.amnesia_alert else 'no'}"
            + (f" in {', '.join(h.amnesia_sessions)}" if h.amnesia_sessions else ""))


def _footer(reply: AgentReply) -> str:
    parts = [f"{reply.prompt_tokens}/{reply.num_ctx} tokens", f"{len(reply.hits)} memories",
             f"{reply.seconds:.1f}s"]
    if reply.trimmed:
        parts.append("trimmed " + ", ".join(reply.trimmed))
    if reply.tool_calls:
        parts.append("tools " + ", ".join(r.name for r in reply.tool_calls))
    used = sum(1 for e in reply.feedback.values() if e == "used")
    if reply.feedback:
        parts.append(f"used {used}/{len(reply.feedback)}")
    return " · ".join(parts)


def run_chat(console: Console, mem: Memory, agent: Agent, session: str,
             user: str | None) -> int:
    """The read-eval-print loop; returns the number of turns answered."""
    last: AgentReply | None = None
    turns = 0
    while True:
        try:
            line = console.input("[bold cyan]you>[/] ")
        except EOFError:
            console.print()
            break
        text = line.strip()
        if not text:
            continue
        command, _, arg = text.partition(" ")
        try:
            if command in ("/quit", "/exit", "/q"):
                break
            if command == "/help":
                console.print(HELP, markup=False)
            elif command == "/memory":
                console.print(_memory_table(mem, last))
            elif command == "/forget":
                console.print(_forget(mem, arg, session, user), markup=False)
            elif command == "/health":
                console.print(_health_text(mem, session, user), markup=False)
            elif command.startswith("/"):
                console.print(f"unknown command {command}; /help lists them", markup=False)
            else:
                last = agent.turn(text, session_id=session, user_id=user)
                turns += 1
                console.print(Text("jiyi> ", style="bold green") + Text(last.text or "(no text)"))
                console.print(Text(_footer(last), style="dim"))
                if last.amnesia:
                    console.print(Text("amnesia alert: several turns with nothing recalled and a "
                                       "forgetting reply", style="bold red"))
        except JiyiError as exc:  # the chat goes on; the error is one clear line
            console.print(Text(f"error: {exc}", style="bold red"))
    return turns


def chat(
    ctx: typer.Context,
    llm: Annotated[str, typer.Option(
        "--llm", envvar="JIYI_LLM",
        help="ollama:MODEL[@URL] or openai:[MODEL@]BASE_URL "
             "(e.g. openai:http://127.0.0.1:8080/v1).")
    ] = "ollama:qwen2.5:7b",
    session: Annotated[str | None, typer.Option(
        "--session", help="Session id (default: a new one, printed at start).")] = None,
    user: Annotated[str | None, typer.Option(
        "--user", help="User id (default: the session).")] = None,
    num_ctx: Annotated[int | None, typer.Option(
        "--num-ctx", help="The model's context window (default: asked from the server).")
    ] = None,
    max_tokens: Annotated[int, typer.Option(
        "--max-tokens", help="Longest reply, in tokens (reserved in the budget).")] = 512,
) -> None:
    """Chat with a model through jiyi's memory (/memory, /forget, /health, /quit)."""
    sid = session or f"chat-{uuid.uuid4().hex[:8]}"
    console = Console(soft_wrap=True)
    client = make_client(llm)
    with state(ctx).open(create=True, warm=True) as mem, Agent(mem, client, num_ctx=num_ctx,
                                         max_tokens=max_tokens) as agent:
        console.print(Text(f"jiyi chat · {llm} · session {sid}"
                           + (f" · user {user}" if user else "")
                           + " · /help for commands", style="bold"))
        turns = run_chat(console, mem, agent, sid, user)
        console.print(Text(f"bye: {turns} turn(s) in session {sid}", style="dim"))


def modelfile(
    model: Annotated[str, typer.Argument(help="The Ollama model to build on.")] = DEFAULT_MODEL,
    num_ctx: Annotated[int, typer.Option("--num-ctx", help="Context window.")] = DEFAULT_NUM_CTX,
    language: Annotated[str, typer.Option(
        "--language", help="Language of the system prompt: zh or en.")] = "zh",
) -> None:
    """Print an Ollama Modelfile for jiyi (num_ctx 32768, rope_freq_base 1000000)."""
    typer.echo(render_modelfile(model, num_ctx=num_ctx, language=language), nl=False)


def register(app: typer.Typer) -> None:
    app.command("chat")(chat)
    app.command("modelfile")(modelfile)
