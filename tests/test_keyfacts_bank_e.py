"""Bank e, the held-out phrasing bank written before stop 31's tuning, in the key-facts harness:
it loads as held out, its users come in a block of their own after bank d's so that adding it
changes nothing generated for banks a, b, c and d, ``--banks e`` selects that block, and the
report keeps it apart from every other split.

The corpus tests use stand-ins for banks c, d and e (copies of the development banks under
those names, with another note so their digests differ): the held-out banks' phrasings are never
read here. The real bank e is only checked for its format and that its gold values can be
matched, with nothing of its text shown."""

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
    HELD_OUT,
    LANGS,
    NEEDS,
    SLOT_KEYS,
    Bank,
    load_banks,
)
from jiyi_bench.keyfacts_corpus import Corpus, block_fingerprint, fingerprint, generate
from jiyi_bench.keyfacts_report import markdown, report_dict, split_key, splits_of
from jiyi_bench.keyfacts_score import holds
from jiyi_bench.keyfacts_values import match_key

SOURCES = (("a", "a"), ("b", "b"), ("c", "b"), ("d", "a"), ("e", "b"))


def _stand_ins(folder: Path, names: tuple[str, ...] = ("a", "b", "c", "d", "e")) -> Path:
    """Banks a and b, and stand-ins for c, d and e made from them, in ``folder``."""
    folder.mkdir()
    for name, source in SOURCES:
        if name not in names:
            continue
        data = json.loads((BANK_DIR / f"bank_{source}.json").read_text(encoding="utf-8"))
        data["bank"] = name
        data["note"] = f"stand-in for bank {name}, made from bank {source} by a test"
        (folder / f"bank_{name}.json").write_text(json.dumps(data, ensure_ascii=False),
                                                  encoding="utf-8")
    return folder


def _part(corpus: Corpus, banks: set[str]) -> tuple[object, ...]:
    """The users, turns and questions of ``banks`` in ``corpus``."""
    users = {u for u, (bank, _) in corpus.profiles.items() if bank in banks}
    return (sorted((u, p) for u, p in corpus.profiles.items() if u in users),
            [t for t in corpus.turns if t.user_id in users],
            [q for q in corpus.questions if q.user_id in users])


@pytest.fixture(scope="module")
def banks(tmp_path_factory: pytest.TempPathFactory) -> list[Bank]:
    return load_banks(_stand_ins(tmp_path_factory.mktemp("kf") / "banks"))


def test_bank_e_is_held_out_and_d_is_dev() -> None:
    assert HELD_OUT == ("c", "e") and DEV == ("a", "b", "d") and APPENDED == ("d", "e")


def test_real_bank_e_keeps_the_format_and_its_values_can_be_matched() -> None:
    """The validator accepts bank e; every list has at least 8 templates, every pool 12
    values, and each gold value is found in every statement / change / negation made with it
    (the scorer's own matching), no value contains another of its pool, and no value is in a
    template's own words. Nothing of the bank's text is printed."""
    if not (BANK_DIR / "bank_e.json").is_file():
        pytest.skip("held-out bank e not present")
    (bank,) = load_banks(BANK_DIR, ("e",))
    assert bank.name == "e" and bank.split == "held-out"
    assert set(bank.languages) == set(LANGS)
    problems = 0
    for lb in bank.languages.values():
        assert len(lb.noise) >= 8 and len(lb.assistant) >= 8
        words = [t.replace("{value}", "").replace("{old}", "") for s in lb.slots.values()
                 for k, ts in s.items() if k in NEEDS for t in ts] + list(lb.noise)
        for slot, keys in SLOT_KEYS.items():
            lists = lb.slots[slot]
            assert set(lists) == set(keys)
            problems += sum(len(lists[k]) < 8 for k in keys if k != "values")
            values = lists.get("values", ())
            problems += bool(values) and len(set(values)) != 12
            match = "level" if slot == "membership" else "text"
            for v in values:
                want = match_key(v)
                problems += sum(not holds(t.replace("{value}", v).replace("{old}", "-"),
                                          want, match)
                                for k in NEEDS if k in lists for t in lists[k])
                problems += sum(w != v and holds(w, want) for w in values)
                problems += sum(holds(w, want) for w in words)
    assert problems == 0


def test_adding_bank_e_leaves_a_b_c_d_unchanged(banks: list[Bank]) -> None:
    assert [b.name for b in banks] == ["a", "b", "c", "d", "e"]
    for users, seed in ((24, 7), (25, 24)):
        without = generate([b for b in banks if b.name != "e"], users=users, seed=seed)
        with_e = generate(banks, users=users, seed=seed)
        # every user, turn and question of a, b, c and d is the same, ids included
        assert _part(with_e, {"a", "b", "c", "d"}) == _part(without, {"a", "b", "c", "d"})
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
        assert qs and all(q.split == "held-out" for q in qs)
        assert with_e.fingerprint != without.fingerprint
        # bank e's users are the same whichever other banks run
        alone = generate([b for b in banks if b.name == "e"], users=block, seed=seed)
        assert alone.blocks == (("e", block),)
        assert _part(alone, {"e"}) == _part(with_e, {"e"})
        no_d = generate([b for b in banks if b.name != "d"], users=users, seed=seed)
        assert _part(no_d, {"e"}) == _part(with_e, {"e"})
        assert _part(no_d, {"a", "b", "c"}) == _part(with_e, {"a", "b", "c"})
    # the a, b, c part keeps the fingerprint of its banks alone, and its user ids carry it
    fp = fingerprint(7, 24, banks[:3])
    with_e = generate(banks, users=24, seed=7)
    assert all(u.startswith(f"kf{fp[:8]}-") == (bank not in ("d", "e"))
               for u, (bank, _) in with_e.profiles.items())


def test_banks_e_alone_selects_its_block(banks: list[Bank], tmp_path: Path) -> None:
    """``--banks e --users N``: bank e's first N users, the same as in a full run."""
    (only_e,) = load_banks(_stand_ins(tmp_path / "banks"), ("e",))
    alone = generate([only_e], users=5, seed=24)
    assert alone.blocks == (("e", 5),) and len(alone.profiles) == 5
    assert {bank for bank, _ in alone.profiles.values()} == {"e"}
    full = generate(banks, users=15, seed=24)  # e's block there: 5 users
    assert _part(alone, {"e"}) == _part(full, {"e"})
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["eval", "keyfacts", "--banks", "e", "--users", "2",
                                      "--embedder", "fake", "--bank-dir",
                                      str(tmp_path / "banks"), "--out-dir", str(out),
                                      "--no-baselines"])
    assert result.exit_code == 0, result.output
    assert "banks: e (held-out bank c absent)" in result.output
    assert "(bank e in its own block: 2)" in result.output
    saved = json.loads((out / "keyfacts.json").read_text(encoding="utf-8"))
    assert saved["held_out"] == ["e"] and saved["held_out_missing"] == ["c"]
    assert {c["split"] for c in saved["cells"]} == {"held-out e"}


def test_every_split_is_reported_apart(banks: list[Bank]) -> None:
    """A tiny run over a to e: dev A+B, dev D, held-out C and held-out E each get their own
    tables; the cells of a to d are exactly those of the run without e."""
    run = run_keyfacts(generate(banks, users=3, seed=5), banks, embedder="fake",
                       baselines=False)
    report = report_dict(run, command="test")
    assert splits_of(c["split"] for c in report["cells"]) == [
        "dev", "dev d", "held-out c", "held-out e"]
    for c in report["cells"]:  # no cell pools banks across splits
        if c["bank"] != "all":
            assert c["split"] == split_key("held-out" if c["bank"] in HELD_OUT else "dev",
                                           c["bank"])
    assert report["held_out"] == ["c", "e"] and report["held_out_missing"] == []
    assert report["corpus"]["appended_blocks"] == {"d": 1, "e": 1}
    md = markdown(report)
    assert "Held out: bank c, e, each reported apart" in md
    assert "5 (3 round-robin, 1 for bank D in its own block, 1 for bank E in its own block)" in md
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[1:5] == ["## dev A+B", "## dev D (held out until stop 30)",
                          "## Held-out bank C (C)", "## Held-out bank E (E)"]
    for row in ("| dev A+B | all |", "| dev D (held out until stop 30) | all |",
                "| Held-out bank C | all |", "| Held-out bank E | all |"):
        assert row in md, row
    assert "absent" not in md
    four = banks[:4]
    base = run_keyfacts(generate(four, users=3, seed=5), four, embedder="fake", baselines=False)
    base_report = report_dict(base, command="test")
    assert base_report["held_out_missing"] == ["e"]
    assert "Held-out bank e **absent** from this run." in markdown(base_report)
    assert [c for c in report["cells"] if c["split"] != "held-out e"] == base_report["cells"]
