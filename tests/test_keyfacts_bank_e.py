"""Bank e in the key-facts harness: written before stop 31's tuning and held out until stop 31,
a development bank since stop 32 (bank f took its place), reported apart from a and b and from
d ("dev E"); its users come in a block of their own after bank d's so that adding it changes
nothing generated for banks a, b, c and d, ``--banks e`` selects that block, and the report
keeps it apart from every other split.

The corpus tests use stand-ins for banks c, d and e (copies of the development banks under
those names, with another note so their digests differ, :mod:`keyfacts_stand_ins`). The real
bank e is only checked for its format and that its gold values can be matched."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi.cli.app import app
from jiyi_bench.keyfacts import run_keyfacts
from jiyi_bench.keyfacts_bank import (
    APPENDED,
    BANK_DIR,
    DEV,
    FORMER_HELD_OUT,
    HELD_OUT,
    LANGS,
    Bank,
    load_banks,
)
from jiyi_bench.keyfacts_corpus import block_fingerprint, fingerprint, generate
from jiyi_bench.keyfacts_report import markdown, report_dict, split_key, splits_of
from keyfacts_stand_ins import format_problems, part, stand_ins

FIVE = ("a", "b", "c", "d", "e")


@pytest.fixture(scope="module")
def banks(tmp_path_factory: pytest.TempPathFactory) -> list[Bank]:
    return load_banks(stand_ins(tmp_path_factory.mktemp("kf") / "banks", FIVE))


def test_bank_e_is_a_dev_bank_reported_apart() -> None:
    assert "e" in DEV and "e" not in HELD_OUT and FORMER_HELD_OUT["e"] == 31
    assert APPENDED[:2] == ("d", "e")


def test_real_bank_e_keeps_the_format_and_its_values_can_be_matched() -> None:
    """The validator accepts bank e; every list has at least 8 templates, every pool 12
    values, and each gold value is found in every statement / change / negation made with it
    (the scorer's own matching), no value contains another of its pool, and no value is in a
    template's own words."""
    if not (BANK_DIR / "bank_e.json").is_file():
        pytest.skip("bank e not present")
    (bank,) = load_banks(BANK_DIR, ("e",))
    assert bank.name == "e" and bank.split == "dev"
    assert set(bank.languages) == set(LANGS)
    assert format_problems(bank) == 0


def test_adding_bank_e_leaves_a_b_c_d_unchanged(banks: list[Bank]) -> None:
    assert [b.name for b in banks] == list(FIVE)
    for users, seed in ((24, 7), (25, 24)):
        without = generate([b for b in banks if b.name != "e"], users=users, seed=seed)
        with_e = generate(banks, users=users, seed=seed)
        # every user, turn and question of a, b, c and d is the same, ids included
        assert part(with_e, {"a", "b", "c", "d"}) == part(without, {"a", "b", "c", "d"})
        block = -(-users // 3)
        assert without.blocks == (("d", block),)
        # bank e: a block of its own after d's, as many users as d's
        assert with_e.blocks == (("d", block), ("e", block))
        e_users = [u for u, (bank, _) in with_e.profiles.items() if bank == "e"]
        assert len(e_users) == block and len(with_e.profiles) == users + 2 * block
        assert list(with_e.profiles)[users + block:] == e_users  # appended after d's
        assert all(u.startswith(f"kf{block_fingerprint(seed, banks[4])[:8]}-e")
                   for u in e_users)
        langs = Counter(with_e.profiles[u][1] for u in e_users)
        assert set(langs) == set(LANGS) and max(langs.values()) - min(langs.values()) <= 1
        qs = [q for q in with_e.questions if q.bank == "e"]
        assert qs and all(q.split == "dev" for q in qs)
        assert with_e.fingerprint != without.fingerprint
        # bank e's users are the same whichever other banks run
        alone = generate([b for b in banks if b.name == "e"], users=block, seed=seed)
        assert alone.blocks == (("e", block),)
        assert part(alone, {"e"}) == part(with_e, {"e"})
        no_d = generate([b for b in banks if b.name != "d"], users=users, seed=seed)
        assert part(no_d, {"e"}) == part(with_e, {"e"})
        assert part(no_d, {"a", "b", "c"}) == part(with_e, {"a", "b", "c"})
    # the a, b, c part keeps the fingerprint of its banks alone, and its user ids carry it
    fp = fingerprint(7, 24, banks[:3])
    with_e = generate(banks, users=24, seed=7)
    assert all(u.startswith(f"kf{fp[:8]}-") == (bank not in ("d", "e"))
               for u, (bank, _) in with_e.profiles.items())


def test_banks_e_alone_selects_its_block(banks: list[Bank], tmp_path: Path) -> None:
    """``--banks e --users N``: bank e's first N users, the same as in a full run."""
    (only_e,) = load_banks(stand_ins(tmp_path / "banks", FIVE), ("e",))
    alone = generate([only_e], users=5, seed=24)
    assert alone.blocks == (("e", 5),) and len(alone.profiles) == 5
    assert {bank for bank, _ in alone.profiles.values()} == {"e"}
    full = generate(banks, users=15, seed=24)  # e's block there: 5 users
    assert part(alone, {"e"}) == part(full, {"e"})
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["eval", "keyfacts", "--banks", "e", "--users", "2",
                                      "--embedder", "fake", "--bank-dir",
                                      str(tmp_path / "banks"), "--out-dir", str(out),
                                      "--no-baselines"])
    assert result.exit_code == 0, result.output
    assert "banks: e (held-out bank c, f absent)" in result.output
    assert "(bank e in its own block: 2)" in result.output
    saved = json.loads((out / "keyfacts.json").read_text(encoding="utf-8"))
    assert saved["held_out"] == [] and saved["held_out_missing"] == ["c", "f"]
    assert {c["split"] for c in saved["cells"]} == {"dev e"}


def test_every_split_is_reported_apart(banks: list[Bank]) -> None:
    """A tiny run over a to e: dev A+B, dev D, dev E and held-out C each get their own tables;
    the cells of a to d are exactly those of the run without e."""
    run = run_keyfacts(generate(banks, users=3, seed=5), banks, embedder="fake",
                       baselines=False)
    report = report_dict(run, command="test")
    assert splits_of(c["split"] for c in report["cells"]) == [
        "dev", "dev d", "dev e", "held-out c"]
    for c in report["cells"]:  # no cell pools banks across splits
        if c["bank"] != "all":
            assert c["split"] == split_key("held-out" if c["bank"] in HELD_OUT else "dev",
                                           c["bank"])
    assert report["held_out"] == ["c"] and report["held_out_missing"] == ["f"]
    assert report["corpus"]["appended_blocks"] == {"d": 1, "e": 1}
    md = markdown(report)
    assert "Held out: bank c, each reported apart" in md
    assert "e (dev, held out until stop 31, apart)" in md
    assert "5 (3 round-robin, 1 for bank D in its own block, 1 for bank E in its own block)" in md
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[1:5] == ["## dev A+B", "## dev D (held out until stop 30)",
                          "## dev E (held out until stop 31)", "## Held-out bank C (C)"]
    for row in ("| dev A+B | all |", "| dev D (held out until stop 30) | all |",
                "| dev E (held out until stop 31) | all |", "| Held-out bank C | all |"):
        assert row in md, row
    assert "Held-out bank f **absent** from this run." in md
    four = banks[:4]
    base = run_keyfacts(generate(four, users=3, seed=5), four, embedder="fake", baselines=False)
    base_report = report_dict(base, command="test")
    assert base_report["held_out_missing"] == ["f"]
    assert "## dev E" not in markdown(base_report)
    assert [c for c in report["cells"] if c["split"] != "dev e"] == base_report["cells"]
