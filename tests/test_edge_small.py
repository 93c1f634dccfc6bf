"""The smaller edges of the doors: read commands never create stores, a 200 KB query string gets the
JSON error, servers say "serving" only once bound (a busy port is one line), ``backup`` needs
``--force`` to overwrite, unknown users are an error for export/erase, usage errors are one line."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jiyi import Memory
from jiyi.cli.app import app
from jiyi.errors import StoreError
from jiyi.service.spawn import running_server
from jiyi.store import open_store
from live_server import free_port

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def jiyi(*args: str, tmp: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("JIYI_TOKEN", "JIYI_DB")}
    env.update({"JIYI_EMBEDDER": "fake", "XDG_DATA_HOME": str(tmp / "xdg"),
                "PYTHONPATH": str(ROOT / "src"), "PYTHONWARNINGS": "ignore"})
    return subprocess.run([sys.executable, "-m", "jiyi", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


@pytest.fixture
def loaded(tmp_path: Path) -> str:
    db = str(tmp_path / "m.db")
    with Memory.open(db, embedder="fake") as mem:
        mem.ingest("我叫张伟，订单号是 ABC12345", session_id="s1", user_id="u1")
        mem.ingest("My name is Ada Lovelace", session_id="s2", user_id="u2")
    return db


# ----------------------------------------------------------------------------- no store by typo

READ_COMMANDS = [
    ["recall", "--session", "s", "订单"],
    ["show", "m_missing"],
    ["stats"],
    ["export-user", "u1"],
    ["erase-user", "u1", "--yes"],
    ["backup", "BACKUP"],
    ["gc"],
    ["forget", "m_missing", "--reason", "typo"],
    ["reindex"],
]


@pytest.mark.parametrize("command", READ_COMMANDS, ids=lambda c: c[0])
def test_read_commands_never_create_a_store(tmp_path: Path, command: list[str]) -> None:
    typo = tmp_path / "tpyo" / "memroy.db"
    args = [a.replace("BACKUP", str(tmp_path / "b.db")) for a in command]
    code, out = invoke("--db", str(typo), *args)
    assert code == 1
    lines = out.strip().splitlines()
    assert len(lines) == 1 and str(typo) in lines[0], lines
    assert lines[0].startswith("Error: no ") and "Traceback" not in out
    assert not typo.parent.exists()  # no directory, no file, no -wal
    assert not (tmp_path / "b.db").exists()


def test_the_default_store_is_not_created_by_a_read_command(tmp_path: Path) -> None:
    code, out = invoke("stats")
    assert code == 1 and "no jiyi store at" in out and "memory.db" in out
    assert not (tmp_path / "xdg" / "jiyi").exists()


def test_read_commands_work_on_an_existing_store(loaded: str) -> None:
    code, out = invoke("--db", loaded, "recall", "--session", "s1", "--user", "u1", "--json",
                       "订单号")
    assert code == 0 and "ABC12345" in out
    assert invoke("--db", loaded, "stats", "--json")[0] == 0


def test_the_python_api_creates_unless_told_not_to(tmp_path: Path) -> None:
    missing = tmp_path / "a" / "b.db"
    with pytest.raises(StoreError, match=str(missing)):
        Memory.open(missing, embedder="fake", create=False)
    assert not missing.parent.exists()
    Memory.open(missing, embedder="fake").close()  # the default still creates
    Memory.open(missing, embedder="fake", create=False).close()
    open_store(":memory:", create=False).close()  # nothing to find or create


@pytest.mark.postgres
def test_postgres_without_jiyi_tables_is_not_a_store(pg_server: object) -> None:
    from jiyi.store.postgres.admin import create_database, drop_database

    admin_url = pg_server.admin_url  # type: ignore[attr-defined]
    url = create_database(admin_url, "jiyi_t_no_store")
    try:
        with pytest.raises(StoreError, match="no jiyi store at"):
            open_store(url, create=False)
        open_store(url).close()  # create=True migrates it
        open_store(url, create=False).close()
    finally:
        drop_database(admin_url, "jiyi_t_no_store")


# ----------------------------------------------------------------------------- servers


def test_a_200_kb_query_string_gets_the_json_error(tmp_path: Path, loaded: str) -> None:
    with running_server(loaded, env={"JIYI_EMBEDDER": "fake"}) as srv:
        port = int(srv.url.rsplit(":", 1)[1])
        # 200 KB (percent-encoded Chinese): uvicorn itself refuses it, with jiyi's JSON error
        raw = _raw_get(port, "/v1/recall?session_id=s1&q=" + "订" * 22_300)
        head, _, body = raw.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400 ") and b"application/json" in head.lower(), head
        assert json.loads(body)["error"]["code"] == "bad_request"
        # 9 KB: reaches the app, which refuses the oversized query as before
        raw = _raw_get(port, "/v1/recall?session_id=s1&q=" + "x" * 9_000)
        head, _, body = raw.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 422 "), head
        assert "at most 8000" in json.loads(body)["error"]["message"]


def _raw_get(port: int, target: str) -> bytes:
    """One GET with a URL httpx refuses to build (over 64 KiB); the answer as bytes."""
    from urllib.parse import quote

    request = (f"GET {quote(target, safe='/?=&')} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               "Connection: close\r\n\r\n").encode()
    out = b""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        with contextlib.suppress(OSError):  # the server may answer and close before reading all
            s.sendall(request)
        with contextlib.suppress(ConnectionResetError):
            while chunk := s.recv(65536):
                out += chunk
    return out


@pytest.mark.parametrize("command", [["serve"], ["proxy", "--upstream", "http://127.0.0.1:9"],
                                     ["mcp", "--transport", "http"]], ids=lambda c: c[0])
def test_a_busy_port_is_one_line_and_no_serving_line(tmp_path: Path, command: list[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = jiyi("--db", str(tmp_path / "m.db"), *command, "--port", str(port), tmp=tmp_path)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert lines == [f"Error: cannot listen on 127.0.0.1:{port}: the port is already in use"]
    assert "serving" not in done.stderr + done.stdout and "jiyi proxy on" not in done.stderr


def test_serving_is_printed_with_the_bound_port(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with running_server(str(tmp_path / "m.db"), env={"JIYI_EMBEDDER": "fake"},
                        log_path=log) as srv:
        port = srv.url.rsplit(":", 1)[1]
        assert f"jiyi serving {tmp_path / 'm.db'} on http://127.0.0.1:{port}" in srv.log()
        assert "no token (loopback clients only)" in srv.log()
    assert free_port()  # the port was released


# ----------------------------------------------------------------------------- privacy commands


def test_backup_refuses_to_overwrite_without_force(loaded: str, tmp_path: Path) -> None:
    dest = tmp_path / "backup.db"
    assert invoke("--db", loaded, "backup", str(dest))[0] == 0
    first = dest.read_bytes()
    code, out = invoke("--db", loaded, "backup", str(dest))
    assert code == 1 and out.strip() == f"Error: {dest} already exists; pass --force to replace it"
    assert dest.read_bytes() == first
    other = tmp_path / "other.txt"
    other.write_text("not a backup")
    assert invoke("--db", loaded, "backup", str(other))[0] == 1
    assert other.read_text() == "not a backup"
    code, out = invoke("--db", loaded, "backup", "--force", str(dest))
    assert code == 0 and out.startswith("backed up ") and dest.read_bytes() != b""


@pytest.mark.parametrize("command", [["export-user"], ["erase-user", "--yes"]],
                         ids=lambda c: c[0])
def test_an_unknown_user_is_an_error_unless_allowed(loaded: str, command: list[str]) -> None:
    code, out = invoke("--db", loaded, command[0], "u-typo", *command[1:])
    assert code == 1
    assert out.strip() == (f"Error: no user 'u-typo' in {loaded} (pass --allow-missing to accept "
                           "an unknown user)")
    code, out = invoke("--db", loaded, command[0], "u-typo", *command[1:], "--allow-missing")
    assert code == 0
    with Memory.open(loaded, embedder="fake") as mem:  # the known users are untouched
        assert mem.store.users() == ["u1", "u2"]
    code, out = invoke("--db", loaded, command[0], "用户-未知", *command[1:])
    assert code == 1 and "用户-未知" in out


def test_known_users_still_export_and_erase(loaded: str, tmp_path: Path) -> None:
    code, out = invoke("--db", loaded, "export-user", "u1", "--out", str(tmp_path / "u1.json"))
    assert code == 0 and "of u1" in out
    code, out = invoke("--db", loaded, "erase-user", "u1", "--yes")
    assert code == 0 and "erased user u1" in out
    assert invoke("--db", loaded, "erase-user", "u1", "--yes")[0] == 1  # gone now


# ----------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(("args", "needle"), [
    (["recall", "订单"], "Missing option '--session'. (see 'jiyi recall --help')"),
    (["--bogus"], "No such option: --bogus (see 'jiyi --help')"),
    (["recall", "--session", "s", "-k", "many", "q"], "Invalid value for '-k'"),
    (["serve", "--port", "99999"], "(see 'jiyi serve --help')"),
    (["erase-user"], "Missing argument 'USER_ID'."),
    (["bench", "recall", "--nope"], "(see 'jiyi bench recall --help')"),
    (["mcp", "--transport", "carrier-pigeon"], "Invalid value for '--transport'"),
])
def test_usage_errors_are_one_line(tmp_path: Path, args: list[str], needle: str) -> None:
    result = CliRunner().invoke(app, args, prog_name="jiyi")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), lines
    assert needle.lower() in lines[0].lower(), lines
    assert "╭" not in result.output and "Usage:" not in result.output


def test_usage_error_in_a_real_process(tmp_path: Path) -> None:
    done = jiyi("recall", "q", tmp=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Missing option '--session'" in done.stderr
    assert jiyi("--help", tmp=tmp_path).returncode == 0  # help is still help
    bare = jiyi(tmp=tmp_path)
    assert "Usage" in bare.stdout + bare.stderr  # `jiyi` alone prints the help
