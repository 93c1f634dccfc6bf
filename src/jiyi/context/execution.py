"""Channel 1: the structured execution context, held atomically, rendered as compact JSON.

``ExecutionState`` keeps one immutable snapshot. Writers change it inside ``with state.update() as
draft:``; on a clean exit the draft is validated and swapped in under a lock, on an exception it is
thrown away. Readers (``state.snapshot()``) see the old or the new snapshot, never half an update.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, time
from decimal import Decimal
from enum import Enum
from pathlib import PurePath
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from ..clock import iso
from ..errors import ValidationError
from ..text.secrets import mask_secrets
from .markers import neutralise_markers

OPEN_TAG = "<|execution_context|>"
CLOSE_TAG = "</|execution_context|>"


class ExecutionContext(BaseModel):
    """What the agent is doing right now: the tool, its arguments, its last result, variables."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    current_tool: str | None = None
    tool_args: dict[str, Any] = Field(default_factory=dict)
    last_tool_result: Any = None
    session_variables: dict[str, Any] = Field(default_factory=dict)

    def is_empty(self) -> bool:
        return (
            self.current_tool is None
            and not self.tool_args
            and self.last_tool_result is None
            and not self.session_variables
        )


def json_default(value: Any) -> Any:
    """``json.dumps`` hook: datetimes as ISO-8601 UTC, models as their JSON, never a repr."""
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, (Decimal, UUID, PurePath)):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def dumps(obj: Any) -> str:
    """Compact JSON as every prompt carries it: no Python repr, no ASCII escapes."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=json_default)


def to_jsonable(ctx: ExecutionContext) -> dict[str, Any]:
    """The context as plain JSON values; :class:`ValidationError` when something cannot be."""
    try:
        data: dict[str, Any] = json.loads(dumps(ctx.model_dump()))
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"execution context is not JSON-serialisable: {exc}") from exc
    return data


def render_execution(ctx: ExecutionContext, *, drop_last_tool_result: bool = False) -> str:
    """``<|execution_context|>{compact JSON}</|execution_context|>`` with secrets masked and
    markers inside values neutralised. Empty fields are left out."""
    data = to_jsonable(ctx)
    payload: dict[str, Any] = {}
    for key in ("current_tool", "tool_args", "last_tool_result", "session_variables"):
        if key == "last_tool_result" and drop_last_tool_result:
            continue
        if data[key] not in (None, {}, [], ""):
            payload[key] = data[key]
    body = neutralise_markers(dumps(mask_secrets(payload)))
    return f"{OPEN_TAG}{body}{CLOSE_TAG}"


class ExecutionState:
    """An atomic, thread-safe holder of the current :class:`ExecutionContext` (copy-on-write)."""

    def __init__(self, initial: ExecutionContext | None = None) -> None:
        start = initial.model_copy(deep=True) if initial is not None else ExecutionContext()
        to_jsonable(start)
        self._current = start
        self._version = 0
        self._read_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._writer: int | None = None

    @property
    def version(self) -> int:
        """How many updates have been committed."""
        with self._read_lock:
            return self._version

    def snapshot(self) -> ExecutionContext:
        """A private deep copy of the committed context: mutating it changes nothing here."""
        with self._read_lock:
            current = self._current
        return current.model_copy(deep=True)

    @contextmanager
    def update(self) -> Iterator[ExecutionContext]:
        """Change the context atomically: ``with state.update() as draft: draft.x = ...``.

        Writers are serialised; readers keep seeing the previous snapshot until the block ends
        without an exception. A draft that cannot be serialised is rejected."""
        if self._writer == threading.get_ident():
            raise ValidationError("ExecutionState.update() cannot be nested in the same thread")
        with self._write_lock:
            self._writer = threading.get_ident()
            try:
                with self._read_lock:
                    draft = self._current.model_copy(deep=True)
                yield draft
                committed = ExecutionContext.model_validate(draft.model_dump())
                to_jsonable(committed)
                committed = committed.model_copy(deep=True)
                with self._read_lock:
                    self._current = committed
                    self._version += 1
            finally:
                self._writer = None

    def set_tool_call(self, tool: str, args: dict[str, Any]) -> None:
        """Record that ``tool`` is about to run with ``args`` (clears the previous result)."""
        with self.update() as draft:
            draft.current_tool = tool
            draft.tool_args = dict(args)
            draft.last_tool_result = None

    def set_tool_result(self, result: Any) -> None:
        """Record what the current tool returned, before the model runs again."""
        with self.update() as draft:
            draft.last_tool_result = result
