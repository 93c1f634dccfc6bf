"""The tables both backends create alike, written once with the dialect's types filled in.

The SQLite and PostgreSQL migrations (:mod:`..sqlite.migrations`, :mod:`..postgres.migrations`)
build their text from these pieces, so a column is declared once. The pieces produce, to the
byte, the text the migrations were first applied with (``tests/test_schema_ddl.py`` pins each
migration's SHA-256): an applied migration is never edited, only its spelling here is shared.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ColumnTypes:
    """How one backend spells the schema's column types and table options."""

    instant: str  #: microseconds since the epoch
    real: str  #: a double
    vector: str  #: a unit's or turn's vector
    serial_key: str  #: an autoincrement primary key of log tables
    text_length: str  #: the function counting a text's characters
    keyed: str  #: after the ``)`` of a table stored in primary-key order
    turn_seq: str  #: what follows ``turns.at`` in m001 (PostgreSQL's order of ingestion)


SQLITE_TYPES = ColumnTypes(instant="INTEGER", real="REAL", vector="BLOB",
                           serial_key="INTEGER PRIMARY KEY", text_length="length",
                           keyed=" WITHOUT ROWID", turn_seq="")
POSTGRES_TYPES = ColumnTypes(instant="BIGINT", real="DOUBLE PRECISION", vector="vector",
                             serial_key="BIGSERIAL PRIMARY KEY", text_length="char_length",
                             keyed="", turn_seq=",\n    seq         BIGSERIAL")

_M001_CORE = """
CREATE TABLE turns (
    key         TEXT PRIMARY KEY,
    turn_id     TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    role        TEXT NOT NULL,
    speaker     TEXT,
    text        TEXT NOT NULL,
    at          {t.instant} NOT NULL{t.turn_seq}
);
CREATE INDEX turns_by_session ON turns (user_id, session_id, at);

CREATE TABLE units (
    id                  TEXT PRIMARY KEY,
    user_id             TEXT NOT NULL,
    session_id          TEXT NOT NULL,
    type                TEXT NOT NULL,
    content             TEXT NOT NULL CHECK ({t.text_length}(content) BETWEEN 1 AND 150),
    content_hash        TEXT NOT NULL,
    slot                TEXT,
    topic               TEXT,
    created_at          {t.instant} NOT NULL,
    expires_in          {t.instant} NOT NULL,
    expires_at          {t.instant} NOT NULL,
    relevance_score     {t.real} NOT NULL CHECK (relevance_score BETWEEN 0.1 AND 2.0),
    valid_at            {t.instant},
    valid_until         {t.instant},
    invalidated_at      {t.instant},
    invalidation_reason TEXT,
    supersedes          TEXT,
    superseded_by       TEXT,
    source_turn_ids     TEXT NOT NULL DEFAULT '[]',
    entities            TEXT NOT NULL DEFAULT '[]',
    updated_at          {t.instant} NOT NULL
);
CREATE INDEX units_by_scope ON units (user_id, session_id, type);
CREATE INDEX units_by_user_type ON units (user_id, type, created_at);
CREATE INDEX units_by_hash ON units (user_id, content_hash);
CREATE INDEX units_by_slot ON units (user_id, slot);
CREATE INDEX units_by_expiry ON units (expires_at);
CREATE INDEX units_by_created ON units (created_at);

CREATE TABLE unit_turns (
    unit_id  TEXT NOT NULL,
    turn_key TEXT NOT NULL,
    PRIMARY KEY (unit_id, turn_key)
){t.keyed};
CREATE INDEX unit_turns_by_turn ON unit_turns (turn_key);

CREATE TABLE unit_entities (
    unit_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    kind    TEXT NOT NULL,
    value   TEXT NOT NULL
);
CREATE INDEX unit_entities_by_value ON unit_entities (user_id, value);
CREATE INDEX unit_entities_by_unit ON unit_entities (unit_id);

CREATE TABLE unit_vectors (
    unit_id  TEXT NOT NULL,
    embedder TEXT NOT NULL,
    dim      INTEGER NOT NULL,
    vec      {t.vector} NOT NULL,
    PRIMARY KEY (unit_id, embedder)
){t.keyed};
"""

_M001_LOGS = """
CREATE TABLE unit_events (
    id          {t.serial_key},
    unit_id     TEXT NOT NULL,
    at          {t.instant} NOT NULL,
    event       TEXT NOT NULL,
    detail      TEXT NOT NULL DEFAULT '',
    score_after {t.real}
);
CREATE INDEX unit_events_by_unit ON unit_events (unit_id, at);

CREATE TABLE recall_log (
    id         {t.serial_key},
    recall_id  TEXT NOT NULL,
    at         {t.instant} NOT NULL,
    session_id TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    unit_id    TEXT NOT NULL,
    stage      TEXT NOT NULL,
    rank       INTEGER NOT NULL,
    used       INTEGER
);
CREATE INDEX recall_log_by_unit ON recall_log (unit_id, at);
CREATE INDEX recall_log_by_at ON recall_log (at);
CREATE INDEX recall_log_by_user ON recall_log (user_id);
"""

_M002_HEALTH = """
CREATE TABLE health_sessions (
    user_id           TEXT NOT NULL,
    session_id        TEXT NOT NULL,
    last_recall_empty INTEGER NOT NULL DEFAULT 0,
    streak            INTEGER NOT NULL DEFAULT 0,
    alerting          INTEGER NOT NULL DEFAULT 0,
    alert_since       {t.instant},
    updated_at        {t.instant} NOT NULL,
    PRIMARY KEY (user_id, session_id)
){t.keyed};
CREATE INDEX health_sessions_alerting ON health_sessions (alerting, session_id);

CREATE TABLE health_counters (
    name  TEXT PRIMARY KEY,
    value {t.instant} NOT NULL
){t.keyed};
"""

_TURN_VECTORS = """CREATE TABLE turn_vectors (
    turn_key TEXT NOT NULL,
    embedder TEXT NOT NULL,
    user_id  TEXT NOT NULL,
    at       {t.instant} NOT NULL,
    dim      INTEGER NOT NULL,
    vec      {t.vector} NOT NULL,
    PRIMARY KEY (turn_key, embedder)
){t.keyed};
CREATE INDEX turn_vectors_by_user ON turn_vectors (user_id, embedder, at);"""

_M009_TOPIC_STATES = """
CREATE TABLE topic_states (
    user_id    TEXT NOT NULL,
    session_id TEXT NOT NULL,
    state      TEXT NOT NULL,
    updated_at {t.instant} NOT NULL,
    PRIMARY KEY (user_id, session_id)
){t.keyed};
"""


def m001_initial(types: ColumnTypes, keyword_index: str) -> str:
    """m001: turns, units and their side tables, the backend's ``keyword_index`` DDL (its own
    text, without surrounding blank lines), then the event and recall logs."""
    return (_M001_CORE.format(t=types) + "\n" + keyword_index + "\n"
            + _M001_LOGS.format(t=types))


def m002_health(types: ColumnTypes) -> str:
    """m002: the health state shared by worker processes (amnesia streaks, counters)."""
    return _M002_HEALTH.format(t=types)


def turn_vectors_table(types: ColumnTypes) -> str:
    """m006's ``turn_vectors`` table and its index (no surrounding newlines)."""
    return _TURN_VECTORS.format(t=types)


def m009_topic_states(types: ColumnTypes) -> str:
    """m009: each session's topic state, one JSON document per (user, session), written with
    the user turn that changed it (``recall/topic_codec.py`` shapes it)."""
    return _M009_TOPIC_STATES.format(t=types)
