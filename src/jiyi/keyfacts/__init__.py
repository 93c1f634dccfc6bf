"""Key facts: the slot schema (``slots.json``) and the prototypes for typing by meaning
(``prototypes.json``), read by the write path and recall alike. Primitives: data and pure
functions, plus the per-process cache of embedded prototypes."""

from .prototypes import PrototypeIndex, Typed, index, nearest
from .schema import SlotSpec, base_name, is_single, item_slot, schema, spec

__all__ = ["PrototypeIndex", "SlotSpec", "Typed", "base_name", "index", "is_single",
           "item_slot", "nearest", "schema", "spec"]
