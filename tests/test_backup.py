"""Online backup and restore, taken while a writer thread keeps ingesting."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi import Memory
from jiyi.backup import backup, check_store_file, restore
from jiyi.cli.app import app
from jiyi.errors import ConfigError, StoreError, ValidationError
from jiyi.store import Scope

TEXTS = [
    "我的订单号是 ORD{n}A，手机 139{n:08d}",
    "我的訂單 TW{n}B 已經出貨，寄到臺北",
    "Remember: invoice INV{n}C is due on Friday",
]


class Writer(threading.Thread):
    """Ingests turns on its own connection; records each turn id once ``ingest`` returned."""

    def __init__(self, db: str) -> None:
        super().__init__(daemon=True)
        self.db = db
        self.acked: list[str] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.error: BaseException | None = None

    def snapshot(self) -> set[str]:
        with self.lock:
            return set(self.acked)

    def run(self) -> None:
        try:
            with Memory.open(self.db, embedder="fake") as mem:
                n = 0
                while not self.stop.is_set():
                    tid = f"w{n}"
                    mem.ingest(TEXTS[n % 3].format(n=n), session_id=f"s{n % 4}",
                               user_id=f"u{n % 2}", turn_id=tid)
                    with self.lock:
                        self.acked.append(tid)
                    n += 1
        except BaseException as exc:  # surfaced by the test
            self.error = exc


def _turn_ids(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT turn_id FROM turns")}
    finally:
        conn.close()


def _consistent(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        units = {r[0] for r in conn.execute("SELECT id FROM units")}
        assert units == {r[0] for r in conn.execute("SELECT unit_id FROM unit_vectors")}
        assert units == {r[0] for r in conn.execute("SELECT unit_id FROM units_fts")}
        assert units == {r[0] for r in conn.execute("SELECT unit_id FROM unit_turns")}
    finally:
        conn.close()


def test_backup_while_writing_then_restore(db_path: str, tmp_path: Path) -> None:
    with Memory.open(db_path, embedder="fake") as mem:  # create the schema first
        mem.ingest("开始 start", session_id="s0", user_id="u0", turn_id="start")
    writer = Writer(db_path)
    writer.start()
    try:
        deadline = time.monotonic() + 30
        while len(writer.snapshot()) < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        checks = []
        for i in range(4):
            before = writer.snapshot()
            dest = tmp_path / f"backup-{i}.db"
            report = backup(db_path, dest)
            after = writer.snapshot()
            assert report.units > 0 and dest.exists()
            assert not Path(str(dest) + ".partial").exists()
            checks.append((dest, before, after))
            time.sleep(0.2)
        progressed = len(writer.snapshot())
    finally:
        writer.stop.set()
        writer.join(timeout=30)
    assert writer.error is None, writer.error
    assert progressed > len(checks[0][1]), "the writer should have kept writing during backups"
    for dest, before, after in checks:
        _consistent(dest)
        ids = _turn_ids(dest)
        assert before | {"start"} <= ids  # everything acknowledged before the backup began
        assert ids - {"start"} <= after | {f"w{len(after)}"}  # and nothing from the future
    # restore the first backup into a fresh location and use it
    target = tmp_path / "restored" / "memory.db"
    restore(checks[0][0], target)
    _consistent(target)
    with Memory.open(str(target), embedder="fake") as mem:
        hits = mem.recall("订单号 ORD", session_id="s0", user_id="u0", k=5)
        assert hits and all(h.unit.user_id == "u0" for h in hits)
        assert mem.store.stats().turns == len(_turn_ids(checks[0][0]))


def test_restore_refuses_to_overwrite_without_force(db_path: str, tmp_path: Path) -> None:
    with Memory.open(db_path, embedder="fake") as mem:
        mem.ingest("我的電話是 0912345678", session_id="s", user_id="u")
    dest = tmp_path / "b.db"
    backup(db_path, dest)
    with Memory.open(db_path, embedder="fake") as mem:
        mem.ingest("later turn: order ZZ999", session_id="s", user_id="u", turn_id="later")
        with pytest.raises(ValidationError, match="--force"):
            restore(dest, db_path)
        # restore under an open connection: it sees the restored content
        restore(dest, db_path, force=True)
        turns = mem.store.recent_turns(Scope("u", "s"), 10)
        assert turns and "later" not in {t.turn_id for t in turns}
    _consistent(Path(db_path))


def test_backup_errors_are_clear(tmp_path: Path, db_path: str) -> None:
    with pytest.raises(ConfigError, match="pg_dump"):
        backup("postgresql://localhost/x", tmp_path / "x.db")
    with pytest.raises(ValidationError):
        backup(tmp_path / "missing.db", tmp_path / "x.db")
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError):
        check_store_file(str(junk))
    with pytest.raises(StoreError):
        restore(junk, db_path)
    with Memory.open(db_path, embedder="fake") as mem:
        mem.ingest("x y z", session_id="s")
    with pytest.raises(ValidationError):
        backup(db_path, db_path)


def test_cli_backup_and_restore(db_path: str, tmp_path: Path) -> None:
    with Memory.open(db_path, embedder="fake") as mem:
        mem.ingest("我叫李雷，住在上海", session_id="s", user_id="u")
    runner = CliRunner()
    dest = tmp_path / "cli-backup.db"
    res = runner.invoke(app, ["--db", db_path, "backup", str(dest)])
    assert res.exit_code == 0, res.output
    assert "backed up" in res.output
    target = tmp_path / "cli-restored.db"
    res = runner.invoke(app, ["--db", str(target), "restore", str(dest)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["--db", str(target), "restore", str(dest)])
    assert res.exit_code == 1 and "--force" in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["--db", str(target), "restore", str(tmp_path / "nope.db")])
    assert res.exit_code == 1 and "no such file" in res.output
    with Memory.open(str(target), embedder="fake") as mem:
        assert mem.recall("住在哪里 上海", session_id="s", user_id="u")
