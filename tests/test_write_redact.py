"""Redaction before storage: secrets never reach a unit, the turn text, the FTS index or the file."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from jiyi import Memory
from jiyi.text.secrets import cn_id_ok, luhn_ok, redact
from jiyi.write import TurnInput, extract_turn

CORPUS = Path(__file__).parent / "data" / "write" / "secrets_corpus.jsonl"
CASES: list[dict[str, Any]] = [json.loads(x) for x in CORPUS.read_text("utf-8").splitlines() if x]
AT = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)


@pytest.mark.parametrize("case", CASES, ids=[c["text"][:28] for c in CASES])
def test_secret_corpus(case: dict[str, Any]) -> None:
    out = redact(case["text"])
    if case["kind"] is None:
        assert out.text == case["text"] and out.secrets == {}
        return
    assert f"[{case['kind']}" in out.text
    for secret in case["secrets"]:
        assert secret not in out.text
        assert any(secret in v for v in out.secrets.values())
    for placeholder in out.secrets:
        assert placeholder in out.text


def test_same_secret_same_placeholder_and_numbering() -> None:
    key = "sk-proj-" + "Q" * 30
    out = redact(f"{key} again {key} and sk-proj-{'R' * 30}")
    assert out.text == "[API_KEY] again [API_KEY] and [API_KEY_2]"
    assert len(out.secrets) == 2


def test_checksums() -> None:
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert cn_id_ok("11010519491231002X") and not cn_id_ok("110105194912310021")
    assert not cn_id_ok("110105194913310028")  # month 13


def test_extraction_returns_secrets_only_in_secrets() -> None:
    text = "我叫张伟，密码是Abc!2345，卡号4111 1111 1111 1111，token: zzzzzzzz99999999"
    ex = extract_turn(TurnInput(text, "user", AT, "s", "u", "t1"))
    stored = ex.redacted_text + "".join(d.content for d in ex.drafts)
    for secret in ("Abc!2345", "4111 1111 1111 1111", "zzzzzzzz99999999"):
        assert secret not in stored
        assert secret in ex.secrets.values()
    assert any("张伟" in d.content for d in ex.drafts)


def test_secrets_never_reach_the_database_file(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory.open(str(db), embedder="fake") as mem:
        for i, case in enumerate(c for c in CASES if c["kind"]):
            mem.ingest(case["text"], session_id="s", user_id="u", at=AT, turn_id=f"t{i}")
        mem.ingest('{"order_id": "ABC123", "api_key": "sk-proj-TOOLTOOLTOOLTOOLTOOL1234"}',
                   session_id="s", user_id="u", role="tool", at=AT)
        assert mem.recall("API_KEY", session_id="s", user_id="u", as_of=AT)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    conn.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("m.db"))
    secrets = [s for c in CASES for s in c["secrets"]] + ["sk-proj-TOOLTOOLTOOLTOOLTOOL1234"]
    for secret in secrets:
        for piece in secret.split("\n"):
            assert piece.encode() not in raw, piece
