"""The facade's public signatures are precise: no ``Any``, and the session is required.

Type checkers read these annotations; the run-time checks behind them are tested in
test_memory_api.py and the doors' tests. ``get_type_hints`` also proves every annotation
resolves at run time (no name hidden behind ``TYPE_CHECKING``).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterator
from typing import Any, get_args, get_type_hints

import pytest

from jiyi import Memory
from jiyi.services import (
    HealthServices,
    IngestServices,
    MemoryServices,
    WriteServices,
)


def _function(value: object) -> Any:
    """The function behind a method, classmethod or property (its getter); None otherwise."""
    if isinstance(value, classmethod | staticmethod):
        return value.__func__
    if isinstance(value, property):
        return value.fget
    return value if inspect.isfunction(value) else None


def _public_methods() -> list[str]:
    return sorted(name for name, value in vars(Memory).items()
                  if _function(value) is not None
                  and (not name.startswith("_") or name in ("__init__", "__enter__", "__exit__")))


def _parts(hint: object) -> Iterator[object]:
    yield hint
    for arg in get_args(hint):
        yield from _parts(arg)


@pytest.mark.parametrize("name", _public_methods())
def test_no_any_in_public_signatures(name: str) -> None:
    fn = _function(vars(Memory)[name])
    hints = get_type_hints(fn)
    assert hints, f"Memory.{name} has no annotations"
    loose = [param for param, hint in hints.items() if any(p is Any for p in _parts(hint))]
    assert not loose, f"Memory.{name}: Any in {loose}"


@pytest.mark.parametrize("name", ["ingest", "recall", "build_prompt", "observe_reply", "batch"])
def test_session_id_is_a_required_string(name: str) -> None:
    param = inspect.signature(getattr(Memory, name)).parameters["session_id"]
    assert param.kind is inspect.Parameter.KEYWORD_ONLY  # passed by name, as documented
    assert param.default is inspect.Parameter.empty
    assert get_type_hints(getattr(Memory, name))["session_id"] is str


def test_feedback_events_are_a_literal() -> None:
    event = get_type_hints(Memory.feedback)["event"]
    assert typing.get_origin(event) is typing.Literal
    assert set(get_args(event)) == {"used", "ignored", "wrong", "confirmed"}


@pytest.mark.parametrize("protocol", [MemoryServices, HealthServices,
                                      WriteServices, IngestServices])
def test_memory_provides_every_services_protocol(protocol: type, db_path: str) -> None:
    """Structural, checked by mypy where each is used; here: every member exists on a Memory."""
    members = {n for n in vars(protocol) if not n.startswith("_")}
    for base in protocol.__mro__[1:]:
        members |= {n for n in vars(base) if not n.startswith("_") and base is not object}
    with Memory.open(db_path, embedder="fake") as mem:
        missing = sorted(n for n in members if not hasattr(mem, n))
    assert not missing, f"Memory lacks {missing} of {protocol.__name__}"
