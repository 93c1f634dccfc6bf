"""Bank g, the held-out phrasing bank written at stop 33 (2026-12-06) by an independent author
before that stop's tuning, in the key-facts harness: it loads as held out, bank f (held out
until stop 32) is a development bank since, reported apart ("dev F"), and a run over every bank
reports each split apart: dev A+B, dev D, dev E, dev F, held-out C and held-out G, the header
naming both held-out banks. Its block and the banks it leaves unchanged:
:mod:`test_keyfacts_appended`.

The run uses stand-ins for banks c to g (:mod:`keyfacts_stand_ins`); the real bank g is only
checked for its note (its format: :mod:`test_keyfacts_appended`)."""

from __future__ import annotations

import json

import pytest

from jiyi_bench.keyfacts import run_keyfacts
from jiyi_bench.keyfacts_bank import (
    APPENDED,
    BANK_DIR,
    DEV,
    FORMER_HELD_OUT,
    HELD_OUT,
    Bank,
    load_banks,
    split_of,
)
from jiyi_bench.keyfacts_corpus import generate
from jiyi_bench.keyfacts_report import markdown, report_dict, split_key, splits_of
from keyfacts_stand_ins import stand_ins

ALL = ("a", "b", "c", "d", "e", "f", "g")


def test_bank_g_is_held_out_and_f_is_dev() -> None:
    assert HELD_OUT == ("c", "g") and DEV == ("a", "b", "d", "e", "f")
    assert FORMER_HELD_OUT == {"d": 30, "e": 31, "f": 32} and APPENDED[-1] == "g"
    assert split_of("g") == "held-out" and split_of("f") == "dev"
    assert not set(HELD_OUT) & set(DEV) and set(HELD_OUT) | set(DEV) == set(ALL)


def test_real_bank_g_says_who_wrote_it_and_that_it_is_held_out() -> None:
    if not (BANK_DIR / "bank_g.json").is_file():
        pytest.skip("held-out bank g not present")
    (bank,) = load_banks(BANK_DIR, ("g",))
    assert bank.split == "held-out"
    note = json.loads((BANK_DIR / "bank_g.json").read_text(encoding="utf-8"))["note"]
    assert "HELD OUT" in note and "stop 33" in note and "independent" in note


@pytest.fixture(scope="module")
def banks(tmp_path_factory: pytest.TempPathFactory) -> list[Bank]:
    return load_banks(stand_ins(tmp_path_factory.mktemp("kf") / "banks", ALL))


def test_every_split_is_reported_apart(banks: list[Bank]) -> None:
    """A tiny run over a to g: dev A+B, dev D, dev E, dev F, held-out C and held-out G each get
    their own tables, never pooled; the header names the held-out banks; the cells of a to f
    are exactly those of the run without g."""
    assert [b.name for b in banks] == list(ALL)
    run = run_keyfacts(generate(banks, users=3, seed=5), banks, embedder="fake",
                       baselines=False)
    report = report_dict(run, command="test")
    assert splits_of(c["split"] for c in report["cells"]) == [
        "dev", "dev d", "dev e", "dev f", "held-out c", "held-out g"]
    for c in report["cells"]:
        if c["bank"] != "all":
            assert c["split"] == split_key(split_of(c["bank"]), c["bank"])
    pooled = {c["bank"] for c in report["cells"] if c["split"] == "dev"}
    assert pooled == {"a", "b", "all"}
    assert report["held_out"] == ["c", "g"] and report["held_out_missing"] == []
    assert report["corpus"]["appended_blocks"] == {"d": 1, "e": 1, "f": 1, "g": 1}
    md = markdown(report)
    assert "Held out: bank c, g, each reported apart" in md
    assert "f (dev, held out until stop 32, apart)" in md
    assert ("7 (3 round-robin, 1 for bank D in its own block, 1 for bank E in its own block, "
            "1 for bank F in its own block, 1 for bank G in its own block)") in md
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[1:7] == ["## dev A+B", "## dev D (held out until stop 30)",
                          "## dev E (held out until stop 31)",
                          "## dev F (held out until stop 32)", "## Held-out bank C (C)",
                          "## Held-out bank G (G)"]
    for row in ("| dev A+B | all |", "| dev D (held out until stop 30) | all |",
                "| dev E (held out until stop 31) | all |",
                "| dev F (held out until stop 32) | all |", "| Held-out bank C | all |",
                "| Held-out bank G | all |"):
        assert row in md, row
    assert "absent" not in md
    six = banks[:6]
    base = run_keyfacts(generate(six, users=3, seed=5), six, embedder="fake", baselines=False)
    base_report = report_dict(base, command="test")
    assert base_report["held_out_missing"] == ["g"]
    assert "Held-out bank g **absent** from this run." in markdown(base_report)
    assert [c for c in report["cells"] if c["split"] != "held-out g"] == base_report["cells"]
