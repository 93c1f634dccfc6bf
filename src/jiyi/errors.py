"""The exceptions jiyi raises. Every one derives from :class:`JiyiError`."""

from __future__ import annotations


class JiyiError(Exception):
    """Base class of every error jiyi raises on purpose."""

    code: str = "jiyi_error"


class ValidationError(JiyiError, ValueError):
    """Input that jiyi refuses: wrong type, blank, oversized, invalid UTF-8, bad time..."""

    code = "invalid_input"


class MissingSessionError(ValidationError):
    """A call that needs ``session_id`` got none, or a blank one: sessions are
    isolated, so jiyi never guesses one."""

    code = "missing_session_id"


class NotFoundError(JiyiError, LookupError):
    """A unit, turn, user or task that does not exist."""

    code = "not_found"


class StoreError(JiyiError):
    """The store could not do what was asked (locked, corrupt, unreachable)."""

    code = "store_error"


class BudgetError(JiyiError):
    """The part of a prompt that may not be trimmed does not fit the model's window."""

    code = "over_budget"


class LLMError(JiyiError):
    """A language-model server failed, timed out or answered garbage."""

    code = "llm_error"


class ConfigError(JiyiError, ValueError):
    """A setting that cannot work: unknown embedder, bad URL, bad weight."""

    code = "config_error"


class BatchValidationError(ValidationError):
    """Some items of a batch are invalid (:meth:`jiyi.Memory.ingest_many`): nothing was stored.
    ``problems`` lists every bad item as ``(index, message)``, index counted from 0."""

    def __init__(self, problems: list[tuple[int, str]], total: int) -> None:
        self.problems = problems
        self.total = total
        shown = "; ".join(f"turn {i}: {msg}" for i, msg in problems[:MAX_REPORTED])
        more = f"; ... {len(problems) - MAX_REPORTED} more" if len(problems) > MAX_REPORTED else ""
        super().__init__(f"{len(problems)} of {total} turns are invalid, nothing was stored: "
                         f"{shown}{more}")


#: At most this many bad items are named in one error message.
MAX_REPORTED = 20
