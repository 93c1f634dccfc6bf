"""Right to be forgotten: ``erase_user`` leaves no byte of the user in the store.

SQLite: after the erase, the database FILE and its WAL are scanned for the user's planted phone
number, name and every keyword-index token of them (before and after a ``VACUUM``); the FTS5
vocabulary is checked for the tokens too. PostgreSQL: every text column of every table is scanned.
Another user's data stays whole and recallable on both.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi import Memory
from jiyi.cli.app import app
from jiyi.errors import ValidationError
from jiyi.text import tokens

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
PHONE = "13987650421"
NAME_ZH = "司徒霏霏"
NAME_TW = "司徒霏霏的電話"
NAME_EN = "Zebulon Quixley"
OTHER_PHONE = "15811112222"
OTHER_NAME = "欧阳建国"

VICTIM_TURNS = [
    f"我叫{NAME_ZH}，手机号是{PHONE}，住在杭州西湖区",
    f"{NAME_TW}是 {PHONE}，請記住",
    f"My name is {NAME_EN} and my phone is {PHONE}",
]


def _planted() -> list[bytes]:
    """The raw strings plus every token the keyword index would hold for them."""
    words = {PHONE, NAME_ZH, NAME_EN, NAME_EN.lower(), "zebulon", "quixley"}
    for text in (NAME_ZH, NAME_EN, PHONE):
        words.update(t for t in tokens(text) if len(t) >= 2)
    return sorted(w.encode("utf-8") for w in words)


def _fill(mem: Memory) -> None:
    for i, text in enumerate(VICTIM_TURNS):
        mem.ingest(text, session_id=f"victim-s{i % 2}", user_id="victim", at=T0 + timedelta(minutes=i))
    mem.ingest(f"我是{OTHER_NAME}，电话{OTHER_PHONE}", session_id="other-s", user_id="other", at=T0)
    mem.ingest("Other user: order AB12345 shipped", session_id="other-s", user_id="other", role="tool",
               at=T0 + timedelta(minutes=1))
    hits = mem.recall(f"{NAME_ZH}的手机号", session_id="victim-s0", user_id="victim",
                      as_of=T0 + timedelta(hours=1))
    assert hits and all(h.unit.user_id == "victim" for h in hits)
    mem.feedback(hits[0].unit.id, "used")
    assert mem.recall("电话", session_id="other-s", user_id="other", as_of=T0 + timedelta(hours=1))


def _other(mem: Memory) -> tuple[list[tuple[str, str]], list[str]]:
    data = mem.export_user("other")
    return (sorted((u["id"], u["content"]) for u in data["units"]),
            sorted(t["text"] for t in data["turns"]))


def _assert_other_intact(mem: Memory, before: tuple[list[tuple[str, str]], list[str]]) -> None:
    assert _other(mem) == before
    assert len(before[1]) == 2 and any(OTHER_PHONE in c for _, c in before[0])
    hits = mem.recall(f"{OTHER_NAME} 电话", session_id="other-s", user_id="other",
                      as_of=T0 + timedelta(hours=1))
    assert any(OTHER_PHONE in h.unit.content for h in hits)


def _file_hits(path: Path) -> list[str]:
    found = []
    for suffix in ("", "-wal", "-journal"):
        f = Path(str(path) + suffix)
        if f.exists():
            raw = f.read_bytes()
            found += [f"{f.name}: {w.decode()}" for w in _planted() if w in raw]
    return found


def test_erase_user_sqlite_leaves_no_bytes(db_path: str) -> None:
    with Memory.open(db_path, embedder="fake") as mem:
        _fill(mem)
        mem.store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert _file_hits(Path(db_path)), "the planted data should be in the file before erase"
        exported = mem.export_user("victim")
        assert len(exported["turns"]) == 3 and exported["units"] and exported["events"]
        assert exported["recalls"] and exported["provenance"]
        assert PHONE in json.dumps(exported, ensure_ascii=False)

        other = _other(mem)
        assert mem.erase_user("victim") == len(exported["units"])
        # Erase itself zeroes freed pages, merges the FTS index and truncates the WAL.
        assert _file_hits(Path(db_path)) == []
        conn = mem.store.connection
        conn.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, units_fts, 'row')")
        terms = {r[0] for r in conn.execute("SELECT term FROM temp.vocab")}
        assert not terms & {w.decode() for w in _planted()}
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            cols = {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}
            if "user_id" in cols:
                assert conn.execute(f'SELECT COUNT(*) FROM "{table}" WHERE user_id = ?',
                                    ("victim",)).fetchone()[0] == 0, table
        assert mem.recall(PHONE, session_id="victim-s0", user_id="victim") == []
        assert mem.export_user("victim")["units"] == []
        _assert_other_intact(mem, other)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
    assert _file_hits(Path(db_path)) == []
    check = sqlite3.connect(db_path)
    assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    check.close()
    with Memory.open(db_path, embedder="fake") as mem:
        _assert_other_intact(mem, other)


@pytest.mark.postgres
def test_erase_user_postgres_leaves_nothing_in_tables(pg_url: str) -> None:
    import psycopg

    with Memory.open(pg_url, embedder="fake") as mem:
        _fill(mem)
        other = _other(mem)
        mem.erase_user("victim")
        with psycopg.connect(pg_url) as conn:
            tables = conn.execute(
                "SELECT table_name, column_name FROM information_schema.columns"
                " WHERE table_schema = 'public'"
                " AND data_type IN ('text', 'character varying', 'jsonb', 'json', 'tsvector')"
            ).fetchall()
            leaks = []
            for table, column in tables:
                for word in [w.decode() for w in _planted()] + ["victim"]:
                    n = conn.execute(
                        f'SELECT COUNT(*) FROM "{table}" WHERE "{column}"::text ILIKE %s',
                        (f"%{word}%",)).fetchone()
                    if n and n[0]:
                        leaks.append(f"{table}.{column}: {word}")
            assert leaks == []
        _assert_other_intact(mem, other)


def test_erase_and_export_reject_bad_ids(mem: Memory) -> None:
    for bad in ("", "  ", None, 42, "a\x00b"):
        with pytest.raises(ValidationError):
            mem.erase_user(bad)
        with pytest.raises(ValidationError):
            mem.export_user(bad)


def test_cli_export_then_erase(db_path: str, tmp_path: Path) -> None:
    with Memory.open(db_path, embedder="fake") as mem:
        _fill(mem)
        other = _other(mem)
    runner = CliRunner()
    out = tmp_path / "victim.json"
    res = runner.invoke(app, ["--db", db_path, "export-user", "victim", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["user_id"] == "victim" and any(PHONE in t["text"] for t in data["turns"])
    res = runner.invoke(app, ["--db", db_path, "erase-user", "victim"])
    assert res.exit_code != 0 and "--yes" in res.output
    res = runner.invoke(app, ["--db", db_path, "erase-user", "victim", "--yes"])
    assert res.exit_code == 0, res.output
    assert _file_hits(Path(db_path)) == []
    with Memory.open(db_path, embedder="fake") as mem:
        assert mem.export_user("victim")["units"] == []
        _assert_other_intact(mem, other)
