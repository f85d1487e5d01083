"""Database engine set-up: SQLite under instance/ by default, PostgreSQL when scaled.

`make_engine` also brings the schema up to date (app/store/migrations): every process
that opens the database migrates it first, safely even when several start at once.
"""
from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from weakref import WeakKeyDictionary

from sqlalchemy import event
from sqlmodel import create_engine

from app.store import models  # noqa: F401  (registers the tables on SQLModel.metadata)
from app.store.migrations import Outcome, upgrade

WAL_KEEP_BYTES = 64 * 2**20  # the most of its WAL file a served SQLite database keeps on disk

# What the migration at start did, per engine (`flask db upgrade` reports it).
_started: WeakKeyDictionary = WeakKeyDictionary()


def sqlite_wal(dbapi_conn) -> None:
    """Switch a SQLite connection to WAL. On a brand-new file, connections opened
    at once (several processes starting) can find it briefly locked while another
    switches it; SQLite's busy handler does not cover this step, so wait here."""
    for attempt in range(100):
        try:
            dbapi_conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == 99:
                raise
            time.sleep(0.02)


def make_engine(url: str, *, migrate: bool = True, autocheckpoint: bool = True):
    """`autocheckpoint=False` (SQLite): the commits never checkpoint the WAL themselves;
    the caller runs app/store/checkpoint.py's Checkpointer instead (the real server)."""
    if url.startswith("sqlite"):
        path = url.split(":///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):
            # WAL lets the board read while a move is written. In WAL mode a commit
            # is in the log file before it returns, so it survives the process being
            # killed (tests/test_live_server.py SIGKILLs the server to prove it);
            # NORMAL sync skips the fsync per commit, which only a power cut could
            # make matter, and which cost more than the whole move otherwise.
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA busy_timeout=30000")
            sqlite_wal(dbapi_conn)
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            if not autocheckpoint:
                cur.execute("PRAGMA wal_autocheckpoint=0")
                # After a burst the checkpointer could not keep up with (app/store/checkpoint.py),
                # the WAL file gives the disk back when it starts afresh.
                cur.execute(f"PRAGMA journal_size_limit={WAL_KEEP_BYTES}")
            cur.close()
    else:
        if url.startswith("postgresql://"):
            url = "postgresql+psycopg://" + url[len("postgresql://"):]
        engine = create_engine(url, pool_pre_ping=True)
    if migrate:
        _started[engine] = upgrade(engine)
    return engine


def sqlite_path(engine) -> str | None:
    """The file of a SQLite engine's database (None for PostgreSQL or memory)."""
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return None
    return engine.url.database


def migration_at_start(engine) -> Outcome | None:
    """What make_engine's migration did for this engine (None if it did not migrate)."""
    return _started.get(engine)


ROW_ID_MAX = 2**31 - 1  # PostgreSQL's INTEGER: a larger id is refused as an error, not "no such row"


def row_id(value) -> int | None:
    """`value` as a row id that can exist (1..ROW_ID_MAX), or None: input a client sent
    is checked with this before any look-up by id."""
    if isinstance(value, bool):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 1 <= number <= ROW_ID_MAX else None
