"""The key-facts phrasing banks: loading and checking ``keyfacts_banks/bank_<x>.json``.

A bank holds, per language (zh-Hans, zh-Hant, en) and per slot, the templates a customer uses
to state a fact, change it, and ask for it, plus value pools, noise turns and assistant replies
(the format is fixed in the banks' own ``note`` and checked here). Banks ``a`` and ``b`` are for
development; banks ``c`` and ``g`` are each written separately and only ever reported, each on
its own: :data:`HELD_OUT`. Banks ``d``, ``e`` and ``f`` were held out until stops 30, 31 and 32
and are development banks since (:data:`FORMER_HELD_OUT`: each reported apart from a and b and
from the others). Banks ``d``, ``e``, ``f`` and ``g`` came after reports over the earlier banks
were published, so their users come in blocks of their own (:data:`APPENDED`, in that order) and
adding any of them changes nothing the other banks' users say or are asked. The harness runs with whichever
banks are present (a held-out bank may be absent) and never prints a held-out template.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jiyi.errors import ValidationError

BANK_DIR = Path(__file__).resolve().parent / "keyfacts_banks"
LANGS = ("zh-Hans", "zh-Hant", "en")
DEV = ("a", "b", "d", "e", "f")
#: Bank g was written at stop 33 (2026-12-06) by an independent author before that stop's tuning
#: (bank f, written the same way at stop 32, is a development bank since).
HELD_OUT = ("c", "g")
#: Development banks that were held out until the stop given, each reported apart from the
#: others ("dev D", "dev E", "dev F"), never pooled with them.
FORMER_HELD_OUT: dict[str, int] = {"d": 30, "e": 31, "f": 32}
#: Banks whose users are generated in an appended block of their own, after the round-robin
#: users of the other banks (see :func:`jiyi_bench.keyfacts_corpus.generate`).
APPENDED = ("d", "e", "f", "g")
#: Every slot and the template lists it must carry (``values`` where the bank provides the pool).
SLOT_KEYS: dict[str, tuple[str, ...]] = {
    "name": ("values", "state", "ask"),
    "phone": ("state", "change", "ask", "ask_past"),
    "email": ("state", "change", "ask"),
    "address": ("values", "state", "change", "ask", "ask_past"),
    "membership": ("values", "state", "change", "ask"),
    "food": ("values", "state", "negate", "ask"),
    "delivery_time": ("values", "state", "change", "ask"),
    "contact_channel": ("values", "state", "change", "ask"),
    "coupon": ("state", "ask"),
    "order": ("state", "ask"),
}
#: The placeholder a template list must use (coupon statements need both code and expiry).
NEEDS: dict[str, tuple[str, ...]] = {"state": ("{value}",), "change": ("{value}",),
                                     "negate": ("{value}",)}
COUPON_NEEDS = ("{code}", "{expiry}")
MIN_VALUES = 2  # the format asks for 12; a value pool needs two to have something to change to


@dataclass(frozen=True)
class LanguageBank:
    slots: dict[str, dict[str, tuple[str, ...]]]
    noise: tuple[str, ...]
    assistant: tuple[str, ...]


@dataclass(frozen=True)
class Bank:
    name: str  # "a" ... "g"
    split: str  # "dev" / "held-out"
    languages: dict[str, LanguageBank]
    digest: str  # sha256 of the file, part of the corpus fingerprint


def split_of(name: str) -> str:
    return "held-out" if name in HELD_OUT else "dev"


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(
            isinstance(v, str) and v.strip() for v in value):
        raise ValidationError(f"{where}: must be a non-empty list of non-empty strings")
    return tuple(value)


def parse_bank(data: Any, name: str, digest: str = "") -> Bank:
    """A bank from its JSON object; a clear :class:`ValidationError` naming the bad key."""
    where = f"bank {name}"
    if not isinstance(data, dict) or not isinstance(data.get("languages"), dict):
        raise ValidationError(f"{where}: needs a 'languages' object")
    langs: dict[str, LanguageBank] = {}
    for lang in LANGS:
        block = data["languages"].get(lang)
        if not isinstance(block, dict) or not isinstance(block.get("slots"), dict):
            raise ValidationError(f"{where}: language {lang} missing or without 'slots'")
        slots: dict[str, dict[str, tuple[str, ...]]] = {}
        for slot, keys in SLOT_KEYS.items():
            raw = block["slots"].get(slot)
            if not isinstance(raw, dict):
                raise ValidationError(f"{where} {lang}: slot {slot} missing")
            lists = {key: _strings(raw.get(key), f"{where} {lang} {slot}.{key}") for key in keys}
            for key, needs in NEEDS.items():
                if key in lists and slot not in ("coupon", "order"):
                    for t in lists[key]:
                        if not all(n in t for n in needs):
                            raise ValidationError(f"{where} {lang} {slot}.{key}: a template "
                                                  f"lacks {needs}")
            if slot == "coupon" and not all(all(n in t for n in COUPON_NEEDS)
                                            for t in lists["state"]):
                raise ValidationError(f"{where} {lang} coupon.state: a template lacks "
                                      f"{COUPON_NEEDS}")
            if slot == "order" and not all("{value}" in t for t in lists["state"]):
                raise ValidationError(f"{where} {lang} order.state: a template lacks {{value}}")
            if "values" in lists and len(set(lists["values"])) < MIN_VALUES:
                raise ValidationError(f"{where} {lang} {slot}.values: needs {MIN_VALUES} "
                                      f"distinct values")
            slots[slot] = lists
        langs[lang] = LanguageBank(slots, _strings(block.get("noise"), f"{where} {lang} noise"),
                                   _strings(block.get("assistant"),
                                            f"{where} {lang} assistant"))
    return Bank(name, split_of(name), langs, digest)


def load_bank(path: Path) -> Bank:
    name = path.stem.removeprefix("bank_")
    try:
        raw = path.read_bytes()
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValidationError(f"cannot read phrasing bank {path.name}: {exc}") from exc
    return parse_bank(data, name, hashlib.sha256(raw).hexdigest())


def load_banks(folder: Path = BANK_DIR, only: tuple[str, ...] | None = None) -> list[Bank]:
    """Every ``bank_<x>.json`` in ``folder`` (sorted by name), or only the named ones; at
    least one must be there. An absent held-out bank is not an error (the report says so)."""
    files = sorted(folder.glob("bank_*.json")) if folder.is_dir() else []
    banks = [load_bank(p) for p in files
             if only is None or p.stem.removeprefix("bank_") in only]
    if only is not None:
        missing = sorted(set(only) - {b.name for b in banks})
        if missing:
            raise ValidationError(f"phrasing bank(s) {', '.join(missing)} not found in {folder}")
    if not banks:
        raise ValidationError(f"no phrasing banks (bank_*.json) in {folder}")
    return banks
