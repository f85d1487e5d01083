"""Schema migrations (Alembic), configured in code so they ship inside the package.

`upgrade(engine)` brings any database to the newest revision and is what the
app runs at start (app.store.db.make_engine) and `flask --app app db upgrade` runs:

* a database with our tables but no `alembic_version` (written by
  `SQLModel.metadata.create_all` before migrations existed) is stamped with the
  revision its columns match (0001 for every school database so far), then
  upgraded;
* an empty database gets `create_all` and is stamped at head: the same schema
  the revisions build from nothing (tests/test_migrations.py proves it on
  SQLite and PostgreSQL), for a fraction of the cost, which matters because the
  tests create a fresh database per test;
* anything else is upgraded to head (nothing to do when already there).

All of it happens in one transaction that no other process can interleave
with: PostgreSQL takes a transaction-scoped advisory lock (per schema), SQLite
a `BEGIN IMMEDIATE` write lock on the file. Two processes starting at once
therefore migrate once; the second finds the database at head.
"""
from __future__ import annotations

import re
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from sqlalchemy import Connection, Engine, create_engine, event, inspect, pool, text
from sqlmodel import SQLModel

from app.store import models  # noqa: F401  (registers the tables on SQLModel.metadata)

# Alembic (about 11 MB of a worker's memory) is imported only when there is work
# for it: the usual start, on a database already at head or an empty one, needs
# only the head revision's id (read from the revision files) and plain SQL.
if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

HERE = Path(__file__).resolve().parent
VERSION_TABLE = "alembic_version"
# pg_advisory_xact_lock(LOCK_KEY, hashtext(current_schema())): one lock per schema.
LOCK_KEY = 0x6C617373  # "lass"

# Columns each revision added to tables that already existed, newest first: a
# database from before migrations is stamped with the newest revision whose
# columns it has all of (create_all never adds columns to an existing table).
LEGACY_MARKERS: list[tuple[str, dict[str, set[str]]]] = [
    ("0002", {"event": {"kind"}, "game_table": {"data_versions", "timers", "next_due_at"}}),
    ("0001", {}),
]
BASELINE_TABLES = ("facilitator", "apitoken", "setuptoken", "class_session", "game_table", "seat", "event", "note")


class MigrationError(RuntimeError):
    pass


def config(connection: Connection | None = None, directory: Path = HERE) -> "Config":
    """An Alembic Config pointing at this package; no alembic.ini, no working directory."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(directory))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@lru_cache(maxsize=1)
def script() -> "ScriptDirectory":
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(config())


@lru_cache(maxsize=1)
def head() -> str:
    """The newest revision: the one no other revision names as its `down_revision`
    (read from the files, as Alembic would; tests/test_migrations.py checks they agree)."""
    revisions, parents = set(), set()
    for path in (HERE / "versions").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        found = re.search(r'^revision\s*=\s*["\']([^"\']+)["\']', source, re.M)
        parent = re.search(r'^down_revision\s*=\s*["\']([^"\']+)["\']', source, re.M)
        if found:
            revisions.add(found.group(1))
        if parent:
            parents.add(parent.group(1))
    heads = revisions - parents
    if len(heads) != 1:
        raise MigrationError(f"The revisions have {len(heads)} heads ({', '.join(sorted(heads))}); they need one.")
    return heads.pop()


def current(connection: Connection) -> str | None:
    """The database's revision, or None when it has no alembic_version."""
    if VERSION_TABLE not in inspect(connection).get_table_names():
        return None
    rows = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()
    if len(rows) > 1:
        raise MigrationError(f"The database records several revisions ({', '.join(rows)}).")
    return rows[0] if rows else None


def _stamp(connection: Connection, revision: str) -> None:
    """Record `revision` as the database's, exactly as Alembic's stamp writes it."""
    if VERSION_TABLE not in inspect(connection).get_table_names():
        connection.execute(text(f"CREATE TABLE {VERSION_TABLE} (version_num VARCHAR(32) NOT NULL, "
                                f"CONSTRAINT {VERSION_TABLE}_pkc PRIMARY KEY (version_num))"))
    connection.execute(text(f"DELETE FROM {VERSION_TABLE}"))
    connection.execute(text(f"INSERT INTO {VERSION_TABLE} (version_num) VALUES (:v)"), {"v": revision})


def _legacy_revision(connection: Connection, tables: set[str]) -> str:
    insp = inspect(connection)
    missing = sorted(set(BASELINE_TABLES) - tables)
    if missing:
        raise MigrationError(f"The database has some of the app's tables but not {', '.join(missing)}; "
                             "it was not written by this app. Point DATABASE_URL at another database.")
    for revision, added in LEGACY_MARKERS:
        present = all(cols <= {c["name"] for c in insp.get_columns(table)} for table, cols in added.items())
        if present:
            return revision
    raise MigrationError("The database's tables match no known revision.")  # unreachable: 0001 has no markers


@dataclass(frozen=True)
class Outcome:
    """What `upgrade` did. `action`: 'created' (an empty database), 'upgraded',
    'stamped' (a database from before migrations that already had head's columns)
    or 'current' (nothing to do). `stamped`: the revision a database from before
    migrations was found to match."""

    action: str
    before: str | None
    after: str
    stamped: str | None = None

    def describe(self) -> str:
        if self.action == "created":
            return f"Created the database schema at revision {self.after} (head)."
        if self.action == "stamped":
            return (f"Recorded revision {self.after} (head) on a database from before migrations "
                    "whose tables already matched it.")
        if self.action == "current":
            return f"The database is at revision {self.after} (head); nothing to do."
        since = (f"a database from before migrations (matching revision {self.stamped})"
                 if self.stamped else f"revision {self.before}")
        return f"Upgraded {since} to revision {self.after} (head)."


def _upgrade_locked(connection: Connection, *, from_scratch: bool) -> Outcome:
    """Inside the caller's locked transaction."""
    tables = set(inspect(connection).get_table_names())
    stamped = None
    empty = not tables & set(SQLModel.metadata.tables)
    if VERSION_TABLE not in tables and empty and not from_scratch:
        SQLModel.metadata.create_all(connection)
        _stamp(connection, head())
        return Outcome("created", None, head())
    if VERSION_TABLE not in tables and not empty:
        stamped = _legacy_revision(connection, tables)
        _stamp(connection, stamped)
    before = current(connection)
    if before == head():
        return Outcome("stamped" if stamped else "current", before, before, stamped)
    from alembic import command

    command.upgrade(config(connection), "head")
    if connection.dialect.name == "sqlite":
        # Batch migrations rebuild tables with foreign keys off: check nothing dangles.
        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise MigrationError(f"Foreign keys broken by the migration: {broken[:5]}")
    return Outcome("created" if before is None else "upgraded", before, current(connection), stamped)


@contextmanager
def locked(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that holds the migration lock until it commits."""
    if engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        migrator = _sqlite_migrator(engine)
        try:
            with migrator.begin() as connection:
                yield connection
        finally:
            migrator.dispose()
        return
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key, hashtext(current_schema()))"),
                               {"key": LOCK_KEY})
        yield connection


def _sqlite_migrator(engine: Engine) -> Engine:
    """A private engine on the same file whose transactions start with BEGIN IMMEDIATE
    (pysqlite would otherwise begin lazily, at the first write) and run with foreign
    keys off, as SQLite's table-rebuilding ALTERs require."""
    migrator = create_engine(engine.url, poolclass=pool.NullPool, connect_args={"timeout": 30})

    @event.listens_for(migrator, "connect")
    def _connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None  # we say when transactions begin
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA busy_timeout=30000")
        from app.store.db import sqlite_wal  # app.store.db imports this module: import at use

        sqlite_wal(dbapi_conn)
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA foreign_keys=OFF")
        cur.close()

    @event.listens_for(migrator, "begin")
    def _begin(connection):
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return migrator


def upgrade(engine: Engine, *, from_scratch: bool = False) -> Outcome:
    """Bring the database to head (see the module's docstring). `from_scratch` runs
    every revision on an empty database instead of create_all + stamp."""
    with locked(engine) as connection:
        return _upgrade_locked(connection, from_scratch=from_scratch)


def revision_of(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return current(connection)


def new_revision(message: str, *, directory: Path = HERE) -> Path:
    """Write the next revision (0003, 0004, ...) into versions/, its operations
    autogenerated from what the models have that the revisions so far do not build
    (compared on a scratch SQLite database). Review it before committing."""
    from alembic import command
    from alembic.script import ScriptDirectory

    with tempfile.TemporaryDirectory() as tmp:
        scratch = create_engine(f"sqlite:///{tmp}/scratch.db", poolclass=pool.NullPool)
        try:
            with scratch.begin() as connection:
                cfg = config(connection, directory)
                command.upgrade(cfg, "head")
                last = ScriptDirectory.from_config(cfg).get_current_head()
                written = command.revision(cfg, message=message, autogenerate=True,
                                           rev_id=f"{int(last) + 1:04d}")
        finally:
            scratch.dispose()
    return Path(written.path)
