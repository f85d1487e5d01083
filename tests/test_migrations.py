"""Schema migrations (app/store/migrations) on SQLite and PostgreSQL.

* The revisions, run from nothing, build exactly the schema of app/store/models.py,
  and so does the fast path the app takes on an empty database (create_all,
  stamped at head).
* Revision 0001 is exactly the schema every database had before migrations.
* A school's database from before migrations (tests/fixtures/pre_migrations_war.db,
  written by the old code: see make_pre_migration_db.py) with a War game in
  progress is upgraded when the app starts, and the game can be finished.
* `flask --app app db upgrade` works and is idempotent; several processes
  starting at once migrate once.

PostgreSQL (127.0.0.1:5432, database `test`) is used for real, one private
schema per test, as in test_service.py.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from click.testing import CliRunner
from sqlalchemy import MetaData, create_engine, inspect, text
from sqlalchemy import select as core_select
from sqlmodel import Session, SQLModel, select

from app import engines
from app.engines.contract import strip_label
from app.errors import ServiceError
from app.extensions import services
from app.store import migrations
from app.store.db import make_engine
from app.store.models import Event, GameTable
from conftest import make_app

POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
FIXTURES = Path(__file__).parent / "fixtures"
PRE_MIGRATION_DB = FIXTURES / "pre_migrations_war.db"
TABLE_EVENTS = {"join", "kick", "lock", "unlock", "pause", "resume", "move", "computers", "start", "end"}


# ------------------------------------------------------------------ helpers
@pytest.fixture(params=["sqlite", "postgresql"])
def new_database(request, tmp_path):
    """Makes empty databases of one kind: SQLite files, or private schemas of the
    PostgreSQL database `test` (dropped afterwards)."""
    admin = create_engine(POSTGRES.replace("postgresql://", "postgresql+psycopg://"))
    schemas = []

    def make(name: str) -> str:
        if request.param == "sqlite":
            return f"sqlite:///{tmp_path / name}.db"
        schema = "m_" + uuid.uuid4().hex[:12]
        with admin.begin() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        schemas.append(schema)
        return f"{POSTGRES}?options=-csearch_path%3D{schema}"

    yield make
    with admin.begin() as conn:
        for schema in schemas:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


@pytest.fixture
def school_db(new_database, tmp_path):
    """A database from before migrations with a War game in progress: a copy of the
    fixture file, or (PostgreSQL) the old schema holding the fixture's rows."""
    url = new_database("school")
    if url.startswith("sqlite"):
        shutil.copyfile(PRE_MIGRATION_DB, url.split(":///", 1)[1])
    else:
        create_old_schema(url)
        copy_rows(f"sqlite:///{PRE_MIGRATION_DB}", url)
    return url


def schema_of(engine, *, skip=("alembic_version",)) -> dict:
    """Everything the database says about its tables, in a comparable form (column
    order aside: SQLite appends added columns, create_all writes them in model order)."""
    insp = inspect(engine)
    found = {}
    for table in sorted(set(insp.get_table_names()) - set(skip)):
        found[table] = {
            "columns": {c["name"]: (c["type"].compile(dialect=engine.dialect), c["nullable"], c["default"])
                        for c in insp.get_columns(table)},
            "primary key": insp.get_pk_constraint(table)["constrained_columns"],
            "foreign keys": sorted((tuple(fk["constrained_columns"]), fk["referred_table"],
                                    tuple(fk["referred_columns"])) for fk in insp.get_foreign_keys(table)),
            "indexes": sorted((ix["name"], tuple(ix["column_names"]), bool(ix["unique"]))
                              for ix in insp.get_indexes(table)),
            "unique": sorted((uc["name"] or "", tuple(uc["column_names"]))
                             for uc in insp.get_unique_constraints(table)),
        }
    return found


def differences(engine) -> list:
    """What alembic's autogenerate would change to make the database match the models."""
    with engine.connect() as conn:
        return compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata)


def revision(engine) -> str | None:
    with engine.connect() as conn:
        return migrations.current(conn)


def create_old_schema(url: str) -> None:
    """The schema the code before migrations made, by its own create_all (a separate
    process: its tables would clash with app.store.models' on SQLModel.metadata here)."""
    program = ("import sys; sys.path.insert(0, sys.argv[1]); import models_0001; "
               "from sqlmodel import SQLModel, create_engine; "
               "e = create_engine(sys.argv[2]); SQLModel.metadata.create_all(e); e.dispose()")
    url = url.replace("postgresql://", "postgresql+psycopg://")
    subprocess.run([sys.executable, "-c", program, str(FIXTURES), url], check=True, cwd=FIXTURES)


def copy_rows(source_url: str, target_url: str) -> None:
    """Every row of one database into another with the same tables (a PostgreSQL
    twin of the SQLite fixture)."""
    source = create_engine(source_url)
    target = make_engine(target_url, migrate=False)
    source_meta, target_meta = MetaData(), MetaData()
    source_meta.reflect(source)
    target_meta.reflect(target)
    with source.connect() as src, target.begin() as dst:
        for table in target_meta.sorted_tables:
            rows = [dict(row._mapping) for row in src.execute(core_select(source_meta.tables[table.name]))]
            if rows:
                dst.execute(table.insert(), rows)
            if "id" in table.c and rows:
                dst.execute(text(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                                 f"{max(r['id'] for r in rows)})"))
    source.dispose()
    target.dispose()


def pre_migration_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "school.db"
    shutil.copyfile(PRE_MIGRATION_DB, copy)
    return copy


# ------------------------------------------- revisions == models == create_all
def test_revisions_from_scratch_build_the_models_schema_as_create_all_does(new_database):
    migrated = make_engine(new_database("migrated"), migrate=False)
    assert migrations.upgrade(migrated, from_scratch=True).action == "created"
    assert revision(migrated) == migrations.head()
    assert differences(migrated) == []

    # The app's fast path on an empty database: create_all, stamped at head.
    fast = make_engine(new_database("fast"), migrate=False)
    assert migrations.upgrade(fast).action == "created"
    assert revision(fast) == migrations.head()
    assert differences(fast) == []
    assert schema_of(fast, skip=()) == schema_of(migrated, skip=())
    migrated.dispose()
    fast.dispose()


def test_every_revision_downgrades_and_upgrades_again(new_database):
    db = make_engine(new_database("db"), migrate=False)
    migrations.upgrade(db, from_scratch=True)
    with db.begin() as conn:
        command.downgrade(migrations.config(conn), "base")
    assert set(inspect(db).get_table_names()) == {"alembic_version"} and revision(db) is None
    with db.begin() as conn:
        command.upgrade(migrations.config(conn), "head")
    assert differences(db) == []
    db.dispose()


def test_the_baseline_is_the_schema_from_before_migrations(new_database):
    baseline = make_engine(new_database("baseline"), migrate=False)
    with baseline.begin() as conn:
        command.upgrade(migrations.config(conn), "0001")
    old_url = new_database("old")
    create_old_schema(old_url)
    old = make_engine(old_url, migrate=False)
    assert schema_of(baseline) == schema_of(old)
    if old_url.startswith("sqlite"):  # and the school database the old code really wrote
        fixture = create_engine(f"sqlite:///{PRE_MIGRATION_DB}")
        assert schema_of(fixture) == schema_of(old)
        fixture.dispose()
    baseline.dispose()
    old.dispose()


# -------------------------------------- a school's database, mid-game, upgraded
def test_a_war_game_from_before_migrations_is_upgraded_and_can_be_finished(school_db, tmp_path):
    before = make_engine(school_db, migrate=False)
    assert "alembic_version" not in inspect(before).get_table_names()
    assert "kind" not in {c["name"] for c in inspect(before).get_columns("event")}
    before.dispose()

    app = make_app(tmp_path, DATABASE_URL=school_db)  # the app migrates as it starts
    db = services(app).db
    assert revision(db) == migrations.head()
    assert differences(db) == []

    with Session(db) as s:
        table = s.exec(select(GameTable)).one()
        events = s.exec(select(Event).where(Event.table_id == table.id).order_by(Event.version)).all()
    assert table.status == "playing" and table.version == len(events) == 36
    assert (table.data_versions, table.timers, table.next_due_at) == ({}, {}, None)
    kinds = {}
    for ev in events:
        kinds.setdefault(ev.action["type"], set()).add(ev.kind)
    assert kinds == {"lock": {"table"}, "unlock": {"table"}, "join": {"table"}, "start": {"table"},
                     "reveal": {"game"}}
    assert all((ev.kind == "table") == (ev.action["type"] in TABLE_EVENTS) for ev in events)

    # The game was dealt by an earlier War engine: replaying it under this one is
    # refused with a clear message rather than drifting...
    tables = services(app).tables
    assert table.engine_version == "war-classic-1" != engines.spec("war").version
    with pytest.raises(ServiceError) as refused:
        tables.replay(table.code)
    assert "war-classic-1" in refused.value.message and "cannot be replayed" in refused.value.message

    # ...but the game in progress plays on to the end through the table service.
    moves = 0
    while tables.get(table.code).status == "playing":
        live = tables.live(table.code)
        waiting = [seat for seat in range(3)
                   if any(a["type"] == "reveal" for a in engines.get("war").actions(live.state, seat))]
        assert waiting, "the game neither ended nor waits on anyone"
        tables.act(table.code, waiting[0], live.version, {"type": "reveal"})
        moves += 1
        assert moves < 100_000
    finished = tables.get(table.code)
    assert finished.status == "ended" and engines.get("war").result(finished.state) is not None
    assert [e.version for e in tables.events(table.code)] == list(range(1, finished.version + 1))
    db.dispose()


def test_the_table_service_reads_an_upgraded_table(tmp_path):
    copy = pre_migration_copy(tmp_path)
    raw = create_engine(f"sqlite:///{copy}")
    with raw.connect() as conn:
        code, version, status = conn.execute(text("SELECT code, version, status FROM game_table")).one()
        snapshot = conn.execute(core_select(GameTable.__table__.c.state)).scalar_one()
    raw.dispose()

    app = make_app(tmp_path, DATABASE_URL=f"sqlite:///{copy}")
    table = services(app).tables.get(code)
    assert (table.status, table.version, table.state) == (status, version, snapshot) == ("playing", 36, snapshot)
    services(app).stop()


# ------------------------------------------------------------------ the CLI
def flask_cli(*args: str, env: dict) -> str:
    from flask.cli import cli

    result = CliRunner().invoke(cli, ["--app", "app", *args], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_flask_db_upgrade_migrates_a_pre_migration_copy_once(tmp_path):
    copy = pre_migration_copy(tmp_path)
    env = {"DATABASE_URL": f"sqlite:///{copy}", "INSTANCE_PATH": str(tmp_path / "instance"),
           "SECRET_KEY": "cli-test"}
    first = flask_cli("db", "upgrade", env=env)
    assert "Upgraded a database from before migrations (matching revision 0001)" in first
    raw = create_engine(f"sqlite:///{copy}")
    assert revision(raw) == migrations.head()
    with raw.connect() as conn:
        kinds = dict(conn.execute(text("SELECT json_extract(action, '$.type'), kind FROM event")).all())
    assert kinds == {"lock": "table", "unlock": "table", "join": "table", "start": "table", "reveal": "game"}
    schema = schema_of(raw, skip=())
    raw.dispose()

    second = flask_cli("db", "upgrade", env=env)
    assert "nothing to do" in second
    raw = create_engine(f"sqlite:///{copy}")
    assert schema_of(raw, skip=()) == schema
    raw.dispose()
    assert flask_cli("db", "current", env=env).strip() == f"{migrations.head()} (head)"


def test_a_new_revision_is_numbered_next_and_empty_while_models_match(tmp_path):
    """What `flask --app app db revision -m ...` does, on a copy of the migrations."""
    directory = tmp_path / "migrations"
    shutil.copytree(migrations.HERE, directory, ignore=shutil.ignore_patterns("__pycache__"))
    path = migrations.new_revision("nothing yet", directory=directory)
    following = f"{int(migrations.head()) + 1:04d}"
    assert path.name == f"{following}_nothing_yet.py"
    source = path.read_text()
    assert f"down_revision = '{migrations.head()}'" in source
    assert "op." not in source.split("def upgrade() -> None:")[1].split("def downgrade")[0]


# ----------------------------------------------------- several processes at once
@pytest.mark.parametrize("start", ["empty", "pre-migration"])
def test_processes_starting_at_once_migrate_once(new_database, start, request):
    url = request.getfixturevalue("school_db") if start == "pre-migration" else new_database("empty")
    barrier = threading.Barrier(4)
    outcomes, errors = [], []

    def start_process():
        engine = make_engine(url, migrate=False)  # each "process" its own engine and connections
        try:
            barrier.wait()
            outcomes.append(migrations.upgrade(engine).action)
        except Exception as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)
        finally:
            engine.dispose()

    threads = [threading.Thread(target=start_process) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(outcomes) == sorted(["created" if start == "empty" else "upgraded"] + ["current"] * 3)
    db = make_engine(url, migrate=False)
    assert revision(db) == migrations.head() and differences(db) == []
    db.dispose()


def test_the_head_read_from_the_files_is_alembics_and_a_start_at_head_needs_no_alembic(tmp_path):
    """app.store.migrations reads the head revision from the files so that a worker starting on
    a database at head (or an empty one) never imports Alembic (about 11 MB each)."""
    assert migrations.head() == migrations.script().get_current_head()
    url = f"sqlite:///{tmp_path / 'start.db'}"
    probe = ("import sys; from app.store.db import make_engine; from app.store.migrations import upgrade; "
             "e = make_engine(sys.argv[1]); print(upgrade(e).action, 'alembic' in sys.modules)")
    runs = [subprocess.run([sys.executable, "-c", probe, url], capture_output=True, text=True, timeout=120,
                           cwd=Path(__file__).resolve().parent.parent) for _ in range(2)]
    assert [r.stdout.split() for r in runs] == [["current", "False"], ["current", "False"]], runs


def test_notes_written_before_roles_are_read_by_the_teacher_alone(new_database):
    """0010: the old code took a note for the teacher's when its author's name began
    "Facilitator ", which a student could type; every old note becomes private to the
    teacher, whatever its name says (issue 18, item 5)."""
    db = make_engine(new_database("notes"), migrate=False)
    with db.begin() as conn:
        command.upgrade(migrations.config(conn), "0009")
        conn.execute(text("INSERT INTO facilitator (name, password_hash, created_at, paper, session_epoch) "
                          "VALUES ('t', 'x', '2026-01-01', 'a4', 0)"))
        conn.execute(text("INSERT INTO game_table (code, game, engine_version, data_versions, options, seed, "
                          "status, version, locked, paused, timers, facilitator_id, demo, name_filter, created_at, "
                          "updated_at) VALUES ('ABCDEF', 'war', 'v', '{}', '{}', 1, 'lobby', 0, false, false, '{}', "
                          "1, false, true, '2026-01-01', '2026-01-01')"))
        for author in ("Facilitator bob", "Facilitator Rivera", "Ana"):
            conn.execute(text("INSERT INTO note (table_id, version, game_version, author, text, at) "
                              "VALUES (1, 0, 'v', :a, 'old note', '2026-01-01')"), {"a": author})
        command.upgrade(migrations.config(conn), "head")
        rows = conn.execute(text("SELECT author, role, audience, hidden, approved FROM note ORDER BY id")).all()
        table = conn.execute(text("SELECT texts, text_approval FROM game_table")).one()
    assert [(r.author, r.audience, bool(r.hidden), bool(r.approved)) for r in rows] == [
        ("Facilitator bob", "teacher", False, True), ("Facilitator Rivera", "teacher", False, True),
        ("Ana", "teacher", False, True)]
    assert [r.role for r in rows] == ["teacher", "teacher", "seat"]
    assert table.texts in ({}, "{}") and not table.text_approval
    db.dispose()
