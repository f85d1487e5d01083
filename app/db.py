"""Database engine set-up: SQLite under instance/ by default, PostgreSQL when scaled."""
from __future__ import annotations

from pathlib import Path

from sqlalchemy import event
from sqlmodel import SQLModel, create_engine

from app import models  # noqa: F401  (registers the tables on SQLModel.metadata)


def make_engine(url: str):
    if url.startswith("sqlite"):
        path = url.split(":///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):
            # WAL lets the board read while a move is written; FULL sync means a
            # commit we acknowledged is on disk even if the process is killed.
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()
    else:
        if url.startswith("postgresql://"):
            url = "postgresql+psycopg://" + url[len("postgresql://"):]
        engine = create_engine(url, pool_pre_ping=True)
    SQLModel.metadata.create_all(engine)
    return engine
