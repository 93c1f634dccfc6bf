"""Bank f, the held-out phrasing bank written at stop 32 by an independent author before that
stop's tuning, in the key-facts harness: it loads as held out (bank e, held out until stop 31,
is a development bank since), its users come in a block of their own after bank e's so that
adding it changes nothing generated for banks a to e, ``--banks f`` selects that block, and
the report keeps it apart from every other split and names it in its header.

The corpus tests use stand-ins for banks c to f (copies of the development banks under those
names, with another note so their digests differ, :mod:`keyfacts_stand_ins`): the held-out
banks' phrasings are never read here. The real bank f is only checked for its format and that
its gold values can be matched, with nothing of its text shown."""

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

SIX = ("a", "b", "c", "d", "e", "f")


@pytest.fixture(scope="module")
def banks(tmp_path_factory: pytest.TempPathFactory) -> list[Bank]:
    return load_banks(stand_ins(tmp_path_factory.mktemp("kf") / "banks", SIX))


def test_bank_f_is_held_out_and_e_is_dev() -> None:
    assert HELD_OUT == ("c", "f") and DEV == ("a", "b", "d", "e")
    assert FORMER_HELD_OUT == {"d": 30, "e": 31} and APPENDED == ("d", "e", "f")


def test_real_bank_f_keeps_the_format_and_its_values_can_be_matched() -> None:
    """The validator accepts bank f; every list has at least 8 templates, every pool 12
    values, and each gold value is found in every statement / change / negation made with it
    (the scorer's own matching), no value contains another of its pool, and no value is in a
    template's own words. Its note says it is held out. Nothing of the bank's text is
    printed."""
    if not (BANK_DIR / "bank_f.json").is_file():
        pytest.skip("held-out bank f not present")
    (bank,) = load_banks(BANK_DIR, ("f",))
    assert bank.name == "f" and bank.split == "held-out"
    assert set(bank.languages) == set(LANGS)
    assert format_problems(bank) == 0
    note = json.loads((BANK_DIR / "bank_f.json").read_text(encoding="utf-8"))["note"]
    assert "Held-out" in note and "stop 32" in note


def test_adding_bank_f_leaves_a_to_e_unchanged(banks: list[Bank]) -> None:
    assert [b.name for b in banks] == list(SIX)
    five = {"a", "b", "c", "d", "e"}
    for users, seed in ((24, 7), (25, 24)):
        without = generate([b for b in banks if b.name != "f"], users=users, seed=seed)
        with_f = generate(banks, users=users, seed=seed)
        # every user, turn and question of a to e is the same, ids included
        assert part(with_f, five) == part(without, five)
        block = -(-users // 3)
        assert without.blocks == (("d", block), ("e", block))
        # bank f: a block of its own after e's, as many users as e's
        assert with_f.blocks == (("d", block), ("e", block), ("f", block))
        f_users = [u for u, (bank, _) in with_f.profiles.items() if bank == "f"]
        assert len(f_users) == block and len(with_f.profiles) == users + 3 * block
        assert list(with_f.profiles)[users + 2 * block:] == f_users  # appended after e's
        assert all(u.startswith(f"kf{block_fingerprint(seed, banks[5])[:8]}-f")
                   for u in f_users)
        langs = Counter(with_f.profiles[u][1] for u in f_users)
        assert set(langs) == set(LANGS) and max(langs.values()) - min(langs.values()) <= 1
        qs = [q for q in with_f.questions if q.bank == "f"]
        assert qs and all(q.split == "held-out" for q in qs)
        assert with_f.fingerprint != without.fingerprint
        # bank f's users are the same whichever other banks run
        alone = generate([b for b in banks if b.name == "f"], users=block, seed=seed)
        assert alone.blocks == (("f", block),)
        assert part(alone, {"f"}) == part(with_f, {"f"})
        no_e = generate([b for b in banks if b.name != "e"], users=users, seed=seed)
        assert part(no_e, {"f"}) == part(with_f, {"f"})
        assert part(no_e, five - {"e"}) == part(with_f, five - {"e"})
        # with c alone round-robin f's block is larger (as many users as c's); its first
        # users are the same
        held = generate([b for b in banks if b.name in ("c", "f")], users=users, seed=seed)
        assert held.blocks == (("f", users),)
        more = [u for u, (bank, _) in held.profiles.items() if bank == "f"]
        assert more[:block] == f_users
        assert [t for t in held.turns if t.user_id in f_users] == [
            t for t in with_f.turns if t.user_id in f_users]
        assert [q for q in held.questions if q.user_id in f_users] == [
            q for q in with_f.questions if q.user_id in f_users]
    # the a, b, c part keeps the fingerprint of its banks alone, and its user ids carry it
    fp = fingerprint(7, 24, banks[:3])
    with_f = generate(banks, users=24, seed=7)
    assert all(u.startswith(f"kf{fp[:8]}-") == (bank in ("a", "b", "c"))
               for u, (bank, _) in with_f.profiles.items())


def test_banks_f_alone_selects_its_block(banks: list[Bank], tmp_path: Path) -> None:
    """``--banks f --users N``: bank f's first N users, the same as in a full run."""
    (only_f,) = load_banks(stand_ins(tmp_path / "banks", SIX), ("f",))
    alone = generate([only_f], users=5, seed=24)
    assert alone.blocks == (("f", 5),) and len(alone.profiles) == 5
    assert {bank for bank, _ in alone.profiles.values()} == {"f"}
    full = generate(banks, users=15, seed=24)  # f's block there: 5 users
    assert part(alone, {"f"}) == part(full, {"f"})
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["eval", "keyfacts", "--banks", "f", "--users", "2",
                                      "--embedder", "fake", "--bank-dir",
                                      str(tmp_path / "banks"), "--out-dir", str(out),
                                      "--no-baselines"])
    assert result.exit_code == 0, result.output
    assert "banks: f (held-out bank c absent)" in result.output
    assert "(bank f in its own block: 2)" in result.output
    saved = json.loads((out / "keyfacts.json").read_text(encoding="utf-8"))
    assert saved["held_out"] == ["f"] and saved["held_out_missing"] == ["c"]
    assert {c["split"] for c in saved["cells"]} == {"held-out f"}


def test_every_split_is_reported_apart(banks: list[Bank]) -> None:
    """A tiny run over a to f: dev A+B, dev D, dev E, held-out C and held-out F each get their
    own tables, the header names both held-out banks; the cells of a to e are exactly those of
    the run without f."""
    run = run_keyfacts(generate(banks, users=3, seed=5), banks, embedder="fake",
                       baselines=False)
    report = report_dict(run, command="test")
    assert splits_of(c["split"] for c in report["cells"]) == [
        "dev", "dev d", "dev e", "held-out c", "held-out f"]
    for c in report["cells"]:  # no cell pools banks across splits
        if c["bank"] != "all":
            assert c["split"] == split_key("held-out" if c["bank"] in HELD_OUT else "dev",
                                           c["bank"])
    assert report["held_out"] == ["c", "f"] and report["held_out_missing"] == []
    assert report["corpus"]["appended_blocks"] == {"d": 1, "e": 1, "f": 1}
    md = markdown(report)
    assert "Held out: bank c, f, each reported apart" in md
    assert ("6 (3 round-robin, 1 for bank D in its own block, 1 for bank E in its own block, "
            "1 for bank F in its own block)") in md
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[1:6] == ["## dev A+B", "## dev D (held out until stop 30)",
                          "## dev E (held out until stop 31)", "## Held-out bank C (C)",
                          "## Held-out bank F (F)"]
    for row in ("| dev A+B | all |", "| dev D (held out until stop 30) | all |",
                "| dev E (held out until stop 31) | all |", "| Held-out bank C | all |",
                "| Held-out bank F | all |"):
        assert row in md, row
    assert "absent" not in md
    five = banks[:5]
    base = run_keyfacts(generate(five, users=3, seed=5), five, embedder="fake", baselines=False)
    base_report = report_dict(base, command="test")
    assert base_report["held_out_missing"] == ["f"]
    assert "Held-out bank f **absent** from this run." in markdown(base_report)
    assert [c for c in report["cells"] if c["split"] != "held-out f"] == base_report["cells"]
