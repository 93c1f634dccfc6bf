"""Bank d in the key-facts harness: held out until stop 30, a development bank since, reported
apart from a and b ("dev D"); its users come in a block of their own so that adding it changes
nothing generated for banks a, b and c, and the report keeps every split apart.

The corpus tests use stand-ins for banks c and d (copies of the development banks under those
names, with another note so their digests differ): the held-out banks' phrasings are never read
here. Only the real bank d's format is checked (it loads), nothing of its text is shown."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

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
from jiyi_bench.keyfacts_corpus import fingerprint, generate
from jiyi_bench.keyfacts_report import markdown, report_dict, split_key
from keyfacts_stand_ins import part, stand_ins


@pytest.fixture(scope="module")
def banks(tmp_path_factory: pytest.TempPathFactory) -> list[Bank]:
    return load_banks(stand_ins(tmp_path_factory.mktemp("kf") / "banks",
                                 ("a", "b", "c", "d")))


def test_bank_d_is_a_dev_bank_reported_apart_and_keeps_the_format() -> None:
    assert "d" in DEV and "d" not in HELD_OUT and FORMER_HELD_OUT["d"] == 30
    assert APPENDED[0] == "d"
    if not (BANK_DIR / "bank_d.json").is_file():
        pytest.skip("bank d not present")
    (bank,) = load_banks(BANK_DIR, ("d",))  # the validator accepts it
    assert bank.name == "d" and bank.split == "dev"
    assert set(bank.languages) == set(LANGS)


def test_adding_bank_d_leaves_a_b_c_unchanged(banks: list[Bank]) -> None:
    assert [b.name for b in banks] == ["a", "b", "c", "d"]
    for users, seed in ((24, 7), (25, 24)):
        without = generate([b for b in banks if b.name != "d"], users=users, seed=seed)
        with_d = generate(banks, users=users, seed=seed)
        # every user, turn and question of a, b and c is the same, ids included
        assert part(with_d, {"a", "b", "c"}) == part(without, {"a", "b", "c"})
        assert len(without.profiles) == users and without.blocks == ()
        # bank d: a block of its own after them, as many users as the most a bank gets
        block = -(-users // 3)
        assert with_d.blocks == (("d", block),)
        d_users = [u for u, (bank, _) in with_d.profiles.items() if bank == "d"]
        assert len(d_users) == block and len(with_d.profiles) == users + block
        assert list(with_d.profiles)[users:] == d_users  # appended after the others
        langs = Counter(with_d.profiles[u][1] for u in d_users)
        assert set(langs) == set(LANGS) and max(langs.values()) - min(langs.values()) <= 1
        assert any(q.bank == "d" and q.split == "dev" for q in with_d.questions)
        assert with_d.fingerprint != without.fingerprint
        # bank d's users are the same whichever other banks run
        alone = generate([b for b in banks if b.name == "d"], users=block, seed=seed)
        assert part(alone, {"d"}) == part(with_d, {"d"})
        dev_and_d = generate([b for b in banks if b.name != "c"], users=users, seed=seed)
        assert dev_and_d.blocks == (("d", -(-users // 2)),)  # a larger block: the same first
        more = [u for u, (bank, _) in dev_and_d.profiles.items() if bank == "d"]
        assert more[:block] == d_users
        assert [t for t in dev_and_d.turns if t.user_id in d_users] == [
            t for t in with_d.turns if t.user_id in d_users]
    # the a, b, c part keeps the fingerprint of its banks alone (as before bank d existed),
    # and its user ids carry it
    fp = fingerprint(7, 24, banks[:3])
    with_d = generate(banks, users=24, seed=7)
    assert generate(banks[:3], users=24, seed=7).fingerprint == fp != with_d.fingerprint
    assert all(u.startswith(f"kf{fp[:8]}-") == (bank != "d")
               for u, (bank, _) in with_d.profiles.items())


def test_held_out_banks_are_reported_apart(banks: list[Bank], tmp_path: Path) -> None:
    """A tiny run over a, b, c and d: dev A+B, dev D and held-out c each get their own tables;
    the a, b and c cells are exactly those of the run without d."""
    corpus = generate(banks, users=3, seed=5)
    run = run_keyfacts(corpus, banks, embedder="fake", baselines=False)
    report = report_dict(run, command="test")
    splits = {c["split"] for c in report["cells"]}
    assert splits == {"dev", "dev d", "held-out c"}
    for c in report["cells"]:  # no cell pools banks across splits
        if c["bank"] != "all":
            q_split = "dev" if c["bank"] in ("a", "b", "d") else "held-out"
            assert c["split"] == split_key(q_split, c["bank"])
    assert report["held_out"] == ["c"] and report["held_out_missing"] == ["f"]
    assert report["corpus"]["appended_blocks"] == {"d": 1}
    assert report["corpus"]["round_robin_users"] == 3
    md = markdown(report)
    assert "Held out: bank c, each reported apart" in md
    assert "d (dev, held out until stop 30, apart)" in md
    assert "4 (3 round-robin, 1 for bank D in its own block) users" in md
    for title in ("## dev A+B\n", "## Held-out bank C (C)",
                  "## dev D (held out until stop 30)\n", "| Held-out bank C | all |",
                  "| dev D (held out until stop 30) | all |", "| dev A+B | all |"):
        assert title in md, title
    assert "Held-out bank f **absent** from this run." in md
    alone = {**report, "corpus": {**report["corpus"], "round_robin_users": 0}}
    assert "1 (1 for bank D in its own block) users" in markdown(alone)

    base = run_keyfacts(generate(banks[:3], users=3, seed=5), banks[:3], embedder="fake",
                        baselines=False)
    base_report = report_dict(base, command="test")
    assert base_report["held_out_missing"] == ["f"]
    assert "## dev D" not in markdown(base_report)
    kept = [c for c in report["cells"] if c["split"] != "dev d"]
    assert kept == base_report["cells"]
