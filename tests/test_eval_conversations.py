"""``jiyi eval conversations``: hand-written conversation files are checked, scored and run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi.cli.app import app
from jiyi.errors import ValidationError
from jiyi_bench import conversations as conv

PHONE = {
    "id": "en-phone-01", "kind": "phone", "change": "changed",
    "sessions": [
        {"at": "2026-03-02T09:15:00Z",
         "turns": [["user", "hi, text me at 0917 555 1188 when it ships"], ["assistant", "Sure."]]},
        {"at": "2026-03-20T18:40:00Z",
         "turns": [["user", "new phone, use 0917-555-2041 from now on"], ["assistant", "Done."]]},
        {"at": "2026-04-02T10:00:00Z", "turns": [["user", "is my order out?"],
                                                 ["assistant", "Yes, today."]]},
    ],
    "question": "what number do you have for me?",
    "current": [["0917-555-2041"]], "old": ["0917 555 1188"],
}
ADDRESS = {
    "id": "hant-address-01", "kind": "address", "change": "none",
    "sessions": [
        {"at": "2026-03-02T09:15:00Z", "turns": [["user", "地址係觀塘道388號12樓"], ["assistant", "好"]]},
        {"at": "2026-03-09T09:15:00Z", "turns": [["user", "在嗎"], ["assistant", "在"]]},
    ],
    "question": "你哋寄去邊度？", "current": [["觀塘道388號"]], "old": [],
}


def _write(tmp_path: Path, *convs: dict[str, object], language: str = "en") -> Path:
    path = tmp_path / f"{language}.json"
    path.write_text(json.dumps({"language": language, "conversations": list(convs)},
                               ensure_ascii=False), encoding="utf-8")
    return path


def test_needles_are_matched_folded_and_phones_by_digits() -> None:
    assert conv.holds("Call me on 0917-555-2041 please", "0917 555 2041")
    assert not conv.holds("Call me on 0917-555-2042 please", "0917 555 2041")
    assert conv.holds("地址：观塘道388号12楼", "觀塘道388號")  # Traditional needle, Simplified text
    assert conv.holds("ships to MAPLE AVE 12", "Maple Ave 12")
    assert not conv.holds("ships to Maple Ave 14", "Maple Ave 12")


def test_a_needle_the_user_never_said_is_refused(tmp_path: Path) -> None:
    bad = dict(PHONE, current=[["0917 000 0000"]])
    with pytest.raises(ValidationError, match="needles not in a user turn"):
        conv.load([_write(tmp_path, bad)])
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValidationError, match="not a conversations file"):
        conv.load([tmp_path / "broken.json"])
    with pytest.raises(ValidationError, match="repeat"):
        conv.load([_write(tmp_path, PHONE, PHONE)])


def test_scores_found_old_and_old_presented_as_current(tmp_path: Path) -> None:
    (c,) = conv.load([_write(tmp_path, PHONE)])
    assert conv.score(c, [("phone: 0917 555 2041", True)]) == (1, 0, 0)
    # the old number alone, marked current: found nothing, old in the top, old as current
    assert conv.score(c, [("phone: 0917 555 1188", True)]) == (0, 1, 1)
    # the old number as history is old in the top but not presented as current
    assert conv.score(c, [("0917 555 1188", False), ("0917-555-2041", True)]) == (1, 1, 0)
    # the change sentence holds both: it is the new value's, not a stale one
    assert conv.score(c, [("from 0917 555 1188 to 0917 555 2041", True)]) == (1, 0, 0)
    # a baseline's raw turns carry no current mark
    assert conv.score(c, [("0917 555 1188", None)]) == (0, 1, None)


def test_the_command_runs_jiyi_and_both_baselines(tmp_path: Path) -> None:
    files = [_write(tmp_path, PHONE), _write(tmp_path, ADDRESS, language="hant")]
    out = tmp_path / "out"
    out.mkdir()
    args = ["eval", "conversations", "--embedder", "fake", "--out-dir", str(out),
            "--name", "convs", "--quiet"]
    for f in files:
        args += ["--data", str(f)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "convs.json").read_text(encoding="utf-8"))
    rows = {(r["language"], r["kind"]): r for r in report["rows"]}
    assert set(rows) == {("en", "phone"), ("en", "all"), ("hant", "address"), ("hant", "all")}
    for row in rows.values():
        assert row["n"] == 1
        assert {"jiyi_found", "dense_found", "bm25_found"} <= set(row)
    # the changed phone is found and the replaced one is never shown as current (the rules read
    # "use X from now on" whatever the embedder)
    assert rows[("en", "phone")]["jiyi_found"] == 1.0
    assert rows[("en", "phone")]["jiyi_old_current"] == 0.0
    assert rows[("hant", "address")]["jiyi_old_current"] is None  # nothing was replaced
    assert "== " not in result.output  # --quiet: no conversation printed
