"""Banks d, e, f and g in the key-facts harness, one parametrised test each: every one of them
came after reports over the earlier banks were published, so its users come in a block of its
own (after the blocks of the banks before it in :data:`APPENDED`) and adding it changes nothing
generated for the other banks with the same seed and ``--users``; ``--banks <x>`` selects that
block; a run with it adds only its own split's cells (``dev D``, ``dev E``, ``dev F``: held out
until stops 30, 31 and 32; ``held-out g``), every other cell as before. The real banks keep the
format and their gold values can be matched (a count only, nothing of the text is shown).

The corpus tests use stand-ins for banks c to g (copies of the development banks under those
names, with another note so their digests differ, :mod:`keyfacts_stand_ins`): the held-out
banks' phrasings are never read here."""

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
    FORMER_HELD_OUT,
    HELD_OUT,
    LANGS,
    Bank,
    load_banks,
    split_of,
)
from jiyi_bench.keyfacts_corpus import block_fingerprint, fingerprint, generate
from jiyi_bench.keyfacts_report import markdown, report_dict, split_key, split_title
from keyfacts_stand_ins import format_problems, part, stand_ins

ALL = ("a", "b", "c", "d", "e", "f", "g")
ROBIN = ("a", "b", "c")


@pytest.fixture(scope="module")
def banks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Bank]:
    return {b.name: b for b in load_banks(stand_ins(tmp_path_factory.mktemp("kf") / "banks",
                                                    ALL))}


def _pick(banks: dict[str, Bank], names: tuple[str, ...] | set[str]) -> list[Bank]:
    return [banks[n] for n in ALL if n in names]


def test_appended_banks_in_order() -> None:
    assert APPENDED == ("d", "e", "f", "g")
    assert all(b not in APPENDED for b in ROBIN)


@pytest.mark.parametrize("name", APPENDED)
def test_real_bank_keeps_the_format_and_its_values_can_be_matched(name: str) -> None:
    """The validator accepts the bank, in its split; every list has at least 8 templates,
    every pool 12 values, each gold value is found in every statement / change / negation
    made with it (the scorer's own matching), no value contains another of its pool, and no
    value is in a template's own words or a noise turn. Nothing of the text is printed."""
    path = BANK_DIR / f"bank_{name}.json"
    if not path.is_file():
        pytest.skip(f"bank {name} not present")
    (bank,) = load_banks(BANK_DIR, (name,))
    assert bank.name == name and bank.split == split_of(name)
    assert bank.split == ("held-out" if name in HELD_OUT else "dev")
    assert set(bank.languages) == set(LANGS)
    assert format_problems(bank) == 0


@pytest.mark.parametrize("name", APPENDED)
def test_adding_the_bank_leaves_every_other_bank_unchanged(banks: dict[str, Bank],
                                                           name: str) -> None:
    i = APPENDED.index(name)
    earlier = (*ROBIN, *APPENDED[:i])
    others = set(ALL) - {name}
    for users, seed in ((24, 7), (25, 24)):
        without = generate(_pick(banks, earlier), users=users, seed=seed)
        with_it = generate(_pick(banks, (*earlier, name)), users=users, seed=seed)
        # every user, turn and question of the banks before it is the same, ids included
        assert part(with_it, set(earlier)) == part(without, set(earlier))
        block = -(-users // len(ROBIN))
        assert without.blocks == tuple((b, block) for b in APPENDED[:i])
        # its block comes after the others', as many users as the most a bank gets
        assert with_it.blocks == (*without.blocks, (name, block))
        own = [u for u, (bank, _) in with_it.profiles.items() if bank == name]
        assert len(own) == block and len(with_it.profiles) == users + (i + 1) * block
        assert list(with_it.profiles)[users + i * block:] == own
        assert all(u.startswith(f"kf{block_fingerprint(seed, banks[name])[:8]}-{name}")
                   for u in own)
        langs = Counter(with_it.profiles[u][1] for u in own)
        assert set(langs) == set(LANGS) and max(langs.values()) - min(langs.values()) <= 1
        qs = [q for q in with_it.questions if q.bank == name]
        assert qs and all(q.split == split_of(name) for q in qs)
        assert with_it.fingerprint != without.fingerprint
        # every bank run together: the others as without it, and it as alone
        full = generate(_pick(banks, ALL), users=users, seed=seed)
        assert part(full, others) == part(generate(_pick(banks, others), users=users,
                                                   seed=seed), others)
        alone = generate([banks[name]], users=block, seed=seed)
        assert alone.blocks == ((name, block),)
        assert part(alone, {name}) == part(with_it, {name}) == part(full, {name})
        # with fewer round-robin banks its block is larger; its first users are the same
        for robin, n in ((("c",), users), (("a", "b"), -(-users // 2))):
            fewer = generate(_pick(banks, (*robin, name)), users=users, seed=seed)
            assert fewer.blocks == ((name, n),)
            more = [u for u, (bank, _) in fewer.profiles.items() if bank == name]
            assert more[:block] == own
            assert [t for t in fewer.turns if t.user_id in own] == [
                t for t in with_it.turns if t.user_id in own]
            assert [q for q in fewer.questions if q.user_id in own] == [
                q for q in with_it.questions if q.user_id in own]
    # the a, b, c part keeps the fingerprint of its banks alone, and its user ids carry it
    fp = fingerprint(7, 24, _pick(banks, ROBIN))
    with_it = generate(_pick(banks, (*earlier, name)), users=24, seed=7)
    assert generate(_pick(banks, ROBIN), users=24, seed=7).fingerprint == fp
    assert all(u.startswith(f"kf{fp[:8]}-") == (bank in ROBIN)
               for u, (bank, _) in with_it.profiles.items())


@pytest.mark.parametrize("name", APPENDED)
def test_banks_option_alone_selects_its_block(banks: dict[str, Bank], tmp_path: Path,
                                              name: str) -> None:
    """``--banks <x> --users N``: the bank's first N users, the same as in a full run."""
    (only,) = load_banks(stand_ins(tmp_path / "banks", ALL), (name,))
    alone = generate([only], users=5, seed=24)
    assert alone.blocks == ((name, 5),) and len(alone.profiles) == 5
    assert {bank for bank, _ in alone.profiles.values()} == {name}
    full = generate(_pick(banks, ALL), users=15, seed=24)  # its block there: 5 users
    assert part(alone, {name}) == part(full, {name})
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["eval", "keyfacts", "--banks", name, "--users", "2",
                                      "--embedder", "fake", "--bank-dir",
                                      str(tmp_path / "banks"), "--out-dir", str(out),
                                      "--no-baselines"])
    assert result.exit_code == 0, result.output
    missing = [h for h in HELD_OUT if h != name]
    assert f"banks: {name} (held-out bank {', '.join(missing)} absent)" in result.output
    assert f"(bank {name} in its own block: 2)" in result.output
    saved = json.loads((out / "keyfacts.json").read_text(encoding="utf-8"))
    assert saved["held_out"] == [h for h in HELD_OUT if h == name]
    assert saved["held_out_missing"] == missing
    assert {c["split"] for c in saved["cells"]} == {split_key(split_of(name), name)}


@pytest.mark.parametrize("name", APPENDED)
def test_a_run_with_the_bank_adds_only_its_own_split(banks: dict[str, Bank],
                                                     name: str) -> None:
    """A tiny run over a, b, c, the appended banks before it and it: its cells are a split of
    their own (``dev X (held out until stop N)`` or ``Held-out bank G``), every other cell is
    exactly that of the run without it."""
    earlier = _pick(banks, (*ROBIN, *APPENDED[:APPENDED.index(name)]))
    run = run_keyfacts(generate([*earlier, banks[name]], users=3, seed=5),
                       [*earlier, banks[name]], embedder="fake", baselines=False)
    report = report_dict(run, command="test")
    split = split_key(split_of(name), name)
    assert split == (f"held-out {name}" if name in HELD_OUT else f"dev {name}")
    for c in report["cells"]:  # no cell pools banks across splits
        if c["bank"] != "all":
            assert c["split"] == split_key(split_of(c["bank"]), c["bank"])
    md = markdown(report)
    title = split_title(split)
    assert title == (f"Held-out bank {name.upper()}" if name in HELD_OUT
                     else f"dev {name.upper()} (held out until stop {FORMER_HELD_OUT[name]})")
    assert f"| {title} | all |" in md
    blocks = ", ".join(f"1 for bank {b.upper()} in its own block"
                       for b in APPENDED[:APPENDED.index(name) + 1])
    assert f"{len(earlier) + 1} (3 round-robin, {blocks}) users" in md
    base = run_keyfacts(generate(earlier, users=3, seed=5), earlier, embedder="fake",
                        baselines=False)
    base_report = report_dict(base, command="test")
    assert f"| {title} | all |" not in markdown(base_report)
    assert [c for c in report["cells"] if c["split"] != split] == base_report["cells"]
