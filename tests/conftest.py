"""Shared fixtures: a fresh app on a temporary SQLite database per test."""
from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from app import create_app
from app.extensions import services

PASSWORD = "correct-horse-1"
TEST_HASH_METHOD = "pbkdf2:sha256:1000"


def make_app(tmp_path, **overrides):
    # Simulated phones play whole games far faster than thumbs, so the socket
    # budget is raised here; the rate-limit tests use the production defaults.
    # DEAL_SEED: every table's deal is the same on every run (app/service/tables/common.py
    # Deals), so a test that plays a game to some moment finds it however fast the machine.
    config = {"DATABASE_URL": f"sqlite:///{tmp_path / 'test.db'}", "TESTING": True, "DEAL_SEED": "tests",
              "SECRET_KEY": "test-secret", "BOT_DELAY_SCALE": 0.0, "PUBLIC_URL": "http://class.example:5000",
              "SOCKET_RATE": 100000.0, "SOCKET_BURST": 100000.0,
              # Thousands of tests make an account: a cheap hash (scrypt costs ~0.1 s of a core).
              "PASSWORD_HASH_METHOD": TEST_HASH_METHOD}
    config.update(overrides)
    if "DATABASE_URL" not in overrides:
        database = tmp_path / "test.db"
        if not database.exists():  # (a second app on the same folder is a restart: it keeps the data)
            database.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(migrated_database(), database)
    return create_app(config)


_migrated: list = []  # this process's freshly migrated SQLite database


def migrated_database():
    """An empty database at the newest schema, made once per test process: each test's app
    starts on a copy of it. Migrating a new file cost every app 25 ms of its 60 (the app
    still runs the migration, and finds nothing to do)."""
    if not _migrated:
        from app.store.db import make_engine

        path = Path(tempfile.mkdtemp(prefix="migrated-")) / "empty.db"
        engine = make_engine(f"sqlite:///{path}")
        with engine.connect() as conn:  # everything in the file itself, nothing left in its WAL
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        engine.dispose()
        _migrated.append(path)
    return _migrated[0]


# -------------------------------------------------- the sweeps' share of the run
# A sweep: one test function run over many cases (seeds, games, sizes). Its share of the
# suite's test time is printed at the end of every run, so that a sweep grown by habit is
# seen, and sized by what it finds (issue 29). Counted where the reports arrive: with
# xdist, in the controller, over every worker's tests.
SWEEP_CASES = 10  # a test function with at least this many cases
_time_of: defaultdict = defaultdict(float)   # test function -> seconds (set-up, call, teardown)
_cases_of: Counter = Counter()


def pytest_runtest_logreport(report):
    function = report.nodeid.split("[", 1)[0]
    _time_of[function] += report.duration
    if report.when == "call":
        _cases_of[function] += 1


@pytest.hookimpl(trylast=True)  # after the durations table: the run's last words
def pytest_terminal_summary(terminalreporter):
    seed = getattr(terminalreporter.config.option, "randomly_seed", None)
    if terminalreporter.config.pluginmanager.hasplugin("randomly") and seed is not None:
        # -q hides the header that says it: the order is replayed with this seed
        terminalreporter.write_line(f"shuffled order (pytest-randomly): -p randomly --randomly-seed={seed}")
    total = sum(_time_of.values())
    sweeps = sorted(((seconds, function) for function, seconds in _time_of.items()
                     if _cases_of[function] >= SWEEP_CASES), reverse=True)
    if not sweeps or total <= 0:
        return
    terminalreporter.section("the sweeps' share of the test time")
    terminalreporter.write_line(f"{sum(s for s, _ in sweeps):8.1f} s  {sum(s for s, _ in sweeps) / total:6.1%}  "
                                f"all {len(sweeps)} sweeps (test functions of {SWEEP_CASES}+ cases), "
                                f"of {total:.1f} s of test time")
    for seconds, function in sweeps[:15]:
        terminalreporter.write_line(f"{seconds:8.1f} s  {seconds / total:6.1%}  {_cases_of[function]:5d} cases  {function}")


@pytest.fixture(scope="session", autouse=True)
def nothing_outlives_the_run():
    """Every test stops what it started in its own teardown (a failed or timed-out one too:
    pytest-timeout's signal method raises in the test). Should one leave a process behind (a
    server, a private Redis, nginx), it is named and stopped when this process's tests end, so
    that no run leaves a port or a database file in use for the next."""
    yield
    import psutil

    from browser import stop_shared_browser

    stop_shared_browser()   # the process's one Chromium, kept from module to module (tests/browser.py)
    for database in _migrated:
        shutil.rmtree(database.parent, ignore_errors=True)

    left = psutil.Process().children(recursive=True)
    names = []
    for proc in left:
        try:
            names.append(" ".join(proc.cmdline()[:4]))
        except psutil.Error:  # it ended meanwhile
            pass
    if names:
        print(f"\nstopping {len(names)} process(es) a test left running: " + ", ".join(names))
    for proc in left:
        try:
            proc.terminate()
        except psutil.NoSuchProcess:
            pass
    _gone, alive = psutil.wait_procs(left, timeout=10)
    for proc in alive:
        proc.kill()


@pytest.fixture
def app(tmp_path, request):
    marker = request.node.get_closest_marker("app_config")
    app = make_app(tmp_path, **(marker.kwargs if marker else {}))
    yield app
    services(app).stop()


@pytest.fixture
def tables(app):
    return services(app).tables


@pytest.fixture
def teacher(app):
    return services(app).accounts.add("teacher", PASSWORD)


@pytest.fixture
def other_teacher(app):
    return services(app).accounts.add("other", PASSWORD)


@pytest.fixture
def teacher_token(app, teacher):
    return services(app).accounts.issue_token(teacher.id)


@pytest.fixture
def auth(teacher_token):
    """The teacher's API headers (a Bearer token)."""
    return {"Authorization": f"Bearer {teacher_token}"}


@pytest.fixture
def war_table(tables, teacher):
    return tables.create_table(teacher.id, "war", {})


@pytest.fixture
def phone(app):
    """Make simulated phones (tests/phones.py); all are disconnected at the end."""
    from phones import Phone

    made = []

    def make(**kw):
        p = Phone(app, **kw)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


@contextlib.contextmanager
def new_postgres_schema():
    """The URL of a private schema in the machine's PostgreSQL `test` database, dropped afterwards."""
    import uuid

    from sqlalchemy import text

    from app.store.db import make_engine

    schema = "live_" + uuid.uuid4().hex[:10]
    admin = make_engine("postgresql://postgres@127.0.0.1:5432/test", migrate=False)  # it only makes schemas
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield f"postgresql://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


@pytest.fixture
def postgres_schema():
    with new_postgres_schema() as url:
        yield url
