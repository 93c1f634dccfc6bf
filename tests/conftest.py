"""Shared fixtures: a temp data dir for every test, fresh stores, the fake embedder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

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
