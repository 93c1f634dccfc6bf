"""Tools for the agent loop: plain Python functions with a JSON schema.

``tool(fn)`` derives the schema from the function's type hints and docstring; ``tool(fn, schema)``
takes an explicit one (the ``parameters`` object, or a whole OpenAI ``{"type": "function", ...}``
entry). :meth:`Tool.run` never raises: a failing tool, bad arguments or a result that is not JSON
become ``{"error": ...}``, which the model sees like any other result.
"""

from __future__ import annotations

import inspect
import json
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .context.execution import dumps
from .errors import ValidationError

_JSON_TYPES: dict[type, str] = {
    str: "string", int: "integer", float: "number", bool: "boolean",
    list: "array", tuple: "array", dict: "object",
}


def _json_type(hint: Any) -> dict[str, Any]:
    """The JSON schema of a parameter's type hint (unknown hints accept anything)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return _json_type(options[0]) if len(options) == 1 else {}
    if origin is typing.Literal:
        values = list(typing.get_args(hint))
        return {"enum": values}
    if origin in (list, tuple, set, frozenset):
        args = typing.get_args(hint)
        item = _json_type(args[0]) if args else {}
        return {"type": "array", **({"items": item} if item else {})}
    if origin is dict or hint is dict:
        return {"type": "object"}
    for py, name in _JSON_TYPES.items():
        if hint is py:
            return {"type": name}
    return {}


def schema_from_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """The ``parameters`` schema of ``fn``: one property per parameter, required when it has no
    default. ``*args``/``**kwargs`` are not allowed: a tool's arguments must be named."""
    hints = typing.get_type_hints(fn)
    props: dict[str, Any] = {}
    required: list[str] = []
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise ValidationError(f"tool {fn.__name__}: parameter {name!r} must be a named "
                                  "parameter (no *args, **kwargs or positional-only)")
        props[name] = _json_type(hints.get(name, Any))
        if param.default is inspect.Parameter.empty:
            required.append(name)
    return {"type": "object", "properties": props, "required": required}


@dataclass(frozen=True)
class Tool:
    """A callable the model may ask for, with its name, description and parameters schema."""

    name: str
    fn: Callable[..., Any]
    description: str
    parameters: Mapping[str, Any]

    def spec(self) -> dict[str, Any]:
        """The OpenAI/Ollama ``tools`` entry."""
        return {"type": "function", "function": {
            "name": self.name, "description": self.description,
            "parameters": dict(self.parameters)}}

    def missing_arguments(self, arguments: Mapping[str, Any]) -> list[str]:
        required = self.parameters.get("required") or []
        return [str(r) for r in required if r not in arguments]

    def run(self, arguments: Mapping[str, Any]) -> Any:
        """Call the function; its result as JSON values, or ``{"error": "..."}``."""
        missing = self.missing_arguments(arguments)
        if missing:
            return {"error": f"missing argument(s) for {self.name}: {', '.join(missing)}"}
        try:
            result = self.fn(**dict(arguments))
        except TypeError as exc:
            return {"error": f"bad arguments for {self.name}: {exc}"}
        except Exception as exc:  # a tool failure is data for the model, never fatal
            return {"error": f"{type(exc).__name__}: {exc}"}
        try:
            return json.loads(dumps(result))
        except (TypeError, ValueError) as exc:
            return {"error": f"{self.name} returned something that is not JSON: {exc}"}


def tool(
    fn: Callable[..., Any],
    schema: Mapping[str, Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
) -> Tool:
    """Wrap ``fn`` as a :class:`Tool`. ``schema``: its ``parameters`` object or a whole
    ``{"type": "function", "function": {...}}`` entry; derived from type hints when omitted."""
    if not callable(fn):
        raise ValidationError(f"a tool must be callable, got {type(fn).__name__}")
    doc = inspect.getdoc(fn) or ""
    fn_name = name or getattr(fn, "__name__", "")
    desc = description or (doc.splitlines()[0] if doc else "")
    params: Mapping[str, Any]
    if schema is None:
        params = schema_from_hints(fn)
    elif "function" in schema and isinstance(schema["function"], Mapping):
        spec = schema["function"]
        fn_name = name or str(spec.get("name") or fn_name)
        desc = description or str(spec.get("description") or desc)
        params = spec.get("parameters") or {"type": "object", "properties": {}}
    else:
        params = schema
    if not fn_name or not fn_name.replace("_", "a").replace("-", "a").isalnum():
        raise ValidationError(f"tool name must be letters, digits, _ or -, got {fn_name!r}")
    if params.get("type") != "object":
        raise ValidationError(f"tool {fn_name}: the parameters schema must be a JSON object schema")
    return Tool(name=fn_name, fn=fn, description=desc, parameters=params)


def as_tools(items: Sequence[Tool | Callable[..., Any]] | None) -> dict[str, Tool]:
    """Tools by name from :class:`Tool` objects or plain functions; duplicate names are an error."""
    out: dict[str, Tool] = {}
    for item in items or ():
        t = item if isinstance(item, Tool) else tool(item)
        if t.name in out:
            raise ValidationError(f"two tools are named {t.name!r}")
        out[t.name] = t
    return out
