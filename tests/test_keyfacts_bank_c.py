"""Every key-facts phrasing bank in ``benchmarks/jiyi_bench/keyfacts_banks/`` keeps the agreed file
format: the same languages, slots and lists in each, enough templates, values and turns, and in each
template exactly the placeholders its list needs (``{value}`` once in a statement, change or negation;
``{code}`` and ``{expiry}`` once in a coupon statement; none in a question, noise turn or reply).

Only the format is checked here: no test reads a bank's phrasings against jiyi's rules, so the
held-out bank (c) stays unseen by anything tuned."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

BANKS = Path(__file__).resolve().parents[1] / "benchmarks" / "jiyi_bench" / "keyfacts_banks"
BANK_FILES = sorted(BANKS.glob("bank_*.json"))

LANGUAGES = {"zh-Hans", "zh-Hant", "en"}
SLOT_KEYS: dict[str, set[str]] = {
    "name": {"values", "state", "ask"},
    "phone": {"state", "change", "ask", "ask_past"},
    "email": {"state", "change", "ask"},
    "address": {"values", "state", "change", "ask", "ask_past"},
    "membership": {"values", "state", "change", "ask"},
    "food": {"values", "state", "negate", "ask"},
    "delivery_time": {"values", "state", "change", "ask"},
    "contact_channel": {"values", "state", "change", "ask"},
    "coupon": {"state", "ask"},
    "order": {"state", "ask"},
}
MIN_TEMPLATES = 8
MIN_VALUES = 12
MIN_NOISE = 30
MIN_ASSISTANT = 15

PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
CJK = re.compile(r"[\u3400-\u9fff]")
# Common characters that exist in only one of the two scripts: a Traditional list holding one of the
# first set (or a Simplified list one of the second) was converted or typed in the wrong script.
SIMPLIFIED_ONLY = set("们这个说么话时号发货买单还没后为过让给请问谢应该张")
TRADITIONAL_ONLY = set("們這個說麼話時號發貨買單還沒後為過讓給請問謝應該張")


def _required(slot: str, key: str) -> tuple[dict[str, int], set[str]]:
    """Placeholders a template in ``slot.key`` must hold exactly once, and those it may hold once."""
    if key in {"ask", "ask_past"}:
        return {}, set()
    if slot == "coupon":
        return {"code": 1, "expiry": 1}, {"discount"}
    if key == "change":
        return {"value": 1}, {"old"}
    return {"value": 1}, set()


def _placeholder_errors(text: str, required: dict[str, int], optional: set[str]) -> list[str]:
    names = PLACEHOLDER.findall(text)
    errors = [f"unknown placeholder {{{n}}}" for n in names if n not in required and n not in optional]
    # a value may be said twice ("… I'm {value}"); a coupon's code and expiry exactly once
    errors += [f"{{{n}}} {names.count(n)} times, needs {k}" for n, k in required.items()
               if names.count(n) < k or (n != "value" and names.count(n) != k)]
    errors += [f"{{{n}}} more than once" for n in optional if names.count(n) > 1]
    if "{" in PLACEHOLDER.sub("", text) or "}" in PLACEHOLDER.sub("", text):
        errors.append("stray brace")
    return errors


def _string_list_errors(where: str, items: Any, minimum: int) -> list[str]:
    if not isinstance(items, list) or not all(isinstance(s, str) and s.strip() for s in items):
        return [f"{where}: not a list of non-empty strings"]
    errors = [f"{where}: {len(items)} entries, needs at least {minimum}"] if len(items) < minimum else []
    if len(set(items)) != len(items):
        errors.append(f"{where}: repeated entries")
    return errors


def _script_errors(where: str, lang: str, texts: list[str]) -> list[str]:
    wrong = {"zh-Hans": TRADITIONAL_ONLY, "zh-Hant": SIMPLIFIED_ONLY}.get(lang)
    errors = []
    for text in texts:
        if lang == "en" and CJK.search(text):
            errors.append(f"{where}: Chinese in an English entry: {text!r}")
        if wrong is not None and wrong & set(text):
            errors.append(f"{where}: wrong-script characters {sorted(wrong & set(text))} in {text!r}")
    return errors


def bank_errors(bank: Any, letter: str) -> list[str]:
    """Every way ``bank`` (a parsed bank file named ``bank_<letter>.json``) breaks the format."""
    if not isinstance(bank, dict):
        return ["top level is not an object"]
    errors = []
    if set(bank) != {"bank", "note", "languages"}:
        errors.append(f"top-level keys {sorted(bank)}")
    if bank.get("bank") != letter:
        errors.append(f"'bank' is {bank.get('bank')!r}, the file name says {letter!r}")
    if not isinstance(bank.get("note"), str) or not bank["note"].strip():
        errors.append("'note' is empty")
    languages = bank.get("languages")
    if not isinstance(languages, dict) or set(languages) != LANGUAGES:
        return [*errors, f"languages must be exactly {sorted(LANGUAGES)}"]
    for lang, body in languages.items():
        if not isinstance(body, dict) or set(body) != {"slots", "noise", "assistant"}:
            errors.append(f"{lang}: keys must be slots, noise, assistant")
            continue
        for key, minimum in (("noise", MIN_NOISE), ("assistant", MIN_ASSISTANT)):
            where = f"{lang}.{key}"
            errors += _string_list_errors(where, body[key], minimum)
            if isinstance(body[key], list):
                texts = [t for t in body[key] if isinstance(t, str)]
                errors += [f"{where}: {e}: {t!r}" for t in texts
                           for e in _placeholder_errors(t, {}, set())]
                errors += _script_errors(where, lang, texts)
        slots = body["slots"]
        if not isinstance(slots, dict) or set(slots) != set(SLOT_KEYS):
            errors.append(f"{lang}.slots must be exactly {sorted(SLOT_KEYS)}")
            continue
        for slot, lists in slots.items():
            if not isinstance(lists, dict) or set(lists) != SLOT_KEYS[slot]:
                errors.append(f"{lang}.{slot}: keys must be {sorted(SLOT_KEYS[slot])}")
                continue
            for key, items in lists.items():
                where = f"{lang}.{slot}.{key}"
                minimum = MIN_VALUES if key == "values" else MIN_TEMPLATES
                list_errors = _string_list_errors(where, items, minimum)
                errors += list_errors
                if list_errors and not isinstance(items, list):
                    continue
                texts = [t for t in items if isinstance(t, str)]
                required, optional = _required(slot, key) if key != "values" else ({}, set())
                errors += [f"{where}: {e}: {t!r}" for t in texts
                           for e in _placeholder_errors(t, required, optional)]
                errors += _script_errors(where, lang, texts)
    return errors


def test_the_banks_folder_holds_banks() -> None:
    assert BANK_FILES, f"no bank_*.json in {BANKS}"


@pytest.mark.parametrize("path", BANK_FILES, ids=[p.name for p in BANK_FILES])
def test_bank_keeps_the_format(path: Path) -> None:
    letter = path.stem.removeprefix("bank_")
    bank = json.loads(path.read_text(encoding="utf-8"))
    errors = bank_errors(bank, letter)
    assert not errors, "\n".join(errors[:40])


def _minimal_bank() -> dict[str, Any]:
    """A bank that keeps the format with the least each list needs."""
    def filled(slot: str, key: str, lang: str) -> list[str]:
        if key == "values":
            return [f"v{i}" for i in range(MIN_VALUES)]
        needed, _ = _required(slot, key)
        holes = "".join(f"{{{n}}}" for n in needed)
        return [f"t{i} {holes}" for i in range(MIN_TEMPLATES)]
    return {"bank": "z", "note": "test", "languages": {
        lang: {"slots": {s: {k: filled(s, k, lang) for k in keys} for s, keys in SLOT_KEYS.items()},
               "noise": [f"n{i}" for i in range(MIN_NOISE)],
               "assistant": [f"a{i}" for i in range(MIN_ASSISTANT)]}
        for lang in LANGUAGES}}


def test_a_minimal_bank_passes_and_each_kind_of_break_is_caught() -> None:
    assert bank_errors(_minimal_bank(), "z") == []
    cases: list[tuple[str, Any]] = []

    bank = _minimal_bank()
    bank["languages"]["en"]["slots"]["phone"]["change"][0] = "new number, call me"
    cases.append(("{value} 0 times", bank))
    bank = _minimal_bank()
    bank["languages"]["en"]["slots"]["coupon"]["state"][0] = "{code} {code} until {expiry}"
    cases.append(("{code} 2 times", bank))
    bank = _minimal_bank()
    bank["languages"]["zh-Hans"]["slots"]["coupon"]["state"][0] = "券{code}有效"
    cases.append(("{expiry} 0 times", bank))
    bank = _minimal_bank()
    bank["languages"]["zh-Hant"]["slots"]["address"]["ask"][0] = "寄到{value}嗎"
    cases.append(("unknown placeholder {value}", bank))
    bank = _minimal_bank()
    bank["languages"]["en"]["slots"]["food"]["negate"][0] = "no more {item}"
    cases.append(("unknown placeholder {item}", bank))
    bank = _minimal_bank()
    bank["languages"]["en"]["slots"]["email"]["state"][0] = "mail {value} {"
    cases.append(("stray brace", bank))
    bank = _minimal_bank()
    bank["languages"]["en"]["noise"] = bank["languages"]["en"]["noise"][:MIN_NOISE - 1]
    cases.append(("needs at least 30", bank))
    bank = _minimal_bank()
    del bank["languages"]["zh-Hant"]["slots"]["order"]
    cases.append(("zh-Hant.slots must be", bank))
    bank = _minimal_bank()
    bank["languages"]["zh-Hant"]["slots"]["name"]["values"][0] = "这个"
    cases.append(("wrong-script", bank))
    bank = _minimal_bank()
    bank["languages"]["en"]["slots"]["name"]["values"][0] = "张伟"
    cases.append(("Chinese in an English entry", bank))
    bank = _minimal_bank()
    bank["languages"]["en"]["slots"]["membership"]["values"][1] = "v0"
    cases.append(("repeated entries", bank))
    for expected, broken in cases:
        errors = bank_errors(broken, "z")
        assert any(expected in e for e in errors), (expected, errors)
    assert any("file name says" in e for e in bank_errors(_minimal_bank(), "c"))
