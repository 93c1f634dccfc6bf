"""``jiyi ingest FILE``: every line checked before anything is stored, a stable turn id for lines
without one (so a rerun after Ctrl-C resumes without duplicates), and the progress display.

A line without ``turn_id`` gets :func:`derived_turn_id`: the file's resolved path, the line
number and the text, hashed. The same line of the same file is the same turn on every run; an
edited line, or the same file under another path, is a new turn.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..errors import MAX_REPORTED, ValidationError
from ..turn_items import check_turn_item

#: The fields a line may set; others (a LoCoMo ``dia_id``, an ``img_url``...) are ignored.
LINE_FIELDS = ("role", "text", "at", "turn_id", "speaker")

#: Show the progress bar once an ingest has run this long (short ones stay silent).
PROGRESS_AFTER_SECONDS = 1.0


def derived_turn_id(source: str, line: int, text: str) -> str:
    """``file:<sha256(source)[:12]>:<line>:<sha256(text)[:12]>``, for a line without its own
    ``turn_id`` (``source``: the file's resolved path, or ``<stdin>``)."""
    where = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    what = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"file:{where}:{line}:{what}"


@dataclass
class FileTurns:
    """The file's turns, ready for :meth:`jiyi.Memory.ingest_many`, with their line numbers."""

    turns: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)

    @property
    def distinct(self) -> int:
        """How many different turns the file holds (a repeated ``turn_id`` is one turn)."""
        return len({t["turn_id"] for t in self.turns})


def read_turns(
    text: str, *, name: str, source: str, session_id: str, user_id: str, max_bytes: int,
    now: Callable[[], datetime],
) -> FileTurns:
    """Parse and check every line; a :class:`ValidationError` naming each bad line (up to
    :data:`~jiyi.errors.MAX_REPORTED`) when any is bad, so the caller stores nothing."""
    out = FileTurns()
    problems: list[tuple[int, str]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append((n, f"not JSON ({exc.msg})"))
            continue
        if not isinstance(record, dict) or "text" not in record:
            problems.append((n, 'expected a JSON object with "text"'))
            continue
        item: dict[str, Any] = {k: record[k] for k in LINE_FIELDS
                                if k in record and record[k] is not None}
        item.update(session_id=session_id, user_id=user_id)
        if "turn_id" not in item and isinstance(record["text"], str):
            item["turn_id"] = derived_turn_id(source, n, record["text"])
        try:
            checked = check_turn_item(item, max_bytes=max_bytes, now=now)
        except ValidationError as exc:
            problems.append((n, str(exc)))
            continue
        item["at"] = checked.at  # a line without "at" is stamped once, here
        out.turns.append(item)
        out.lines.append(n)
    if problems:
        raise ValidationError(describe_bad_lines(problems, name))
    return out


def describe_bad_lines(problems: list[tuple[int, str]], name: str) -> str:
    """One message: how many lines are bad, then each (line number: what is wrong)."""
    noun = "line is" if len(problems) == 1 else "lines are"
    head = f"{len(problems)} {noun} bad in {name}; nothing was stored:"
    shown = [f"  line {n}: {msg}" for n, msg in problems[:MAX_REPORTED]]
    if len(problems) > MAX_REPORTED:
        shown.append(f"  ... and {len(problems) - MAX_REPORTED} more bad lines")
    return "\n".join([head, *shown])


class IngestProgress:
    """A progress bar on stderr (turns, turns/s, ETA) that appears only once the ingest has run
    :data:`PROGRESS_AFTER_SECONDS`; never with ``quiet``. :meth:`advance` is the
    ``progress`` callback of :meth:`jiyi.Memory.ingest_many`."""

    def __init__(self, total: int, *, quiet: bool, console: Console | None = None) -> None:
        self.total = total
        self.quiet = quiet
        self.done = 0  # turns committed
        self.new = 0  # of which not stored before
        self._began = time.monotonic()
        self._console = console or Console(stderr=True)
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def advance(self, turns: int, new: int) -> None:
        self.done += turns
        self.new += new
        elapsed = time.monotonic() - self._began
        if self._bar is None and not self.quiet and elapsed >= PROGRESS_AFTER_SECONDS:
            self._bar = Progress(
                TextColumn("ingest"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]} turns/s"), TimeElapsedColumn(),
                TextColumn("ETA"), TimeRemainingColumn(),
                console=self._console, transient=False)
            self._task = self._bar.add_task("ingest", total=self.total, rate="-")
            self._bar.start()
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=self.done,
                             rate=f"{self.done / max(elapsed, 1e-9):.1f}")

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> IngestProgress:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
