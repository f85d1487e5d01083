"""SQLite's WAL checkpoints, moved out of the moves' commits (app/store/checkpoint.py).

Under eventlet the commit that checkpointed held every table's acknowledgements for
1-4 ms; the real server's connections now never checkpoint, and a housekeeping chore
does it in a real thread. Durability is the same either way (tests/test_faults.py)."""
from __future__ import annotations

import sqlite3
from pathlib import Path

from app.store.checkpoint import Checkpointer, checkpoint
from app.store.db import make_engine, sqlite_path


def wal_pages(path: str) -> int:
    """How many pages long the WAL file has grown (a checkpointed WAL is reused from its
    start, so the file keeps the longest it has been)."""
    wal = Path(path + "-wal")
    return max(0, wal.stat().st_size - 32) // (4096 + 24) if wal.exists() else 0


def fill(engine, commits: int) -> None:
    """`commits` small transactions, each touching a 4 kB row (about what a move writes)."""
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT)")
        conn.exec_driver_sql("INSERT OR IGNORE INTO filler VALUES (1, '')")
    for n in range(commits):
        with engine.begin() as conn:
            conn.exec_driver_sql("UPDATE filler SET body = ? WHERE id = 1", (f"{n}" * 4000,))


def test_by_default_a_commit_checkpoints_as_sqlite_does(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'plain.db'}")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 1000
    fill(engine, 1500)
    assert wal_pages(sqlite_path(engine)) < 1200  # the commits kept it near the 1,000 pages
    engine.dispose()


def test_without_autocheckpoint_the_wal_waits_for_the_checkpointer_which_copies_it_all(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'served.db'}", autocheckpoint=False)
    path = sqlite_path(engine)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
    fill(engine, 1500)
    assert wal_pages(path) > 1500  # no commit copied anything back

    now = [100.0]
    ran = []
    chores = Checkpointer(path, offload=lambda fn, *args: ran.append(fn) or fn(*args), spawn=lambda fn: fn(),
                          seconds=1.0, clock=lambda: now[0])
    assert chores.due() is True
    busy, logged, copied = chores.last
    assert busy == 0 and logged > 1500 and copied == logged  # every page is in the database file now
    assert ran == [checkpoint]                                # through the offload (a real thread, served)
    assert chores.due() is False                              # not again within its second
    now[0] += 1.0
    fill(engine, 10)
    assert chores.due() is True and chores.last[2] == chores.last[1]

    with engine.connect() as conn:  # and nothing was lost on the way
        assert conn.exec_driver_sql("SELECT body FROM filler").scalar() == "9" * 4000
    engine.dispose()


def test_a_checkpoint_that_fails_is_logged_and_the_next_one_runs(tmp_path, caplog):
    def broken(fn, *args):
        raise sqlite3.OperationalError("database is locked")

    now = [0.0]
    chores = Checkpointer(str(tmp_path / "x.db"), offload=broken, spawn=lambda fn: fn(), clock=lambda: now[0])
    assert chores.due() is True and chores.last is None
    assert "WAL checkpoint failed: database is locked" in caplog.text
    now[0] += 5
    assert chores.due() is True  # not stuck "running"
