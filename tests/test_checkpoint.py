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


def test_a_checkpoint_catches_up_with_moves_made_while_it_copied_so_the_wal_starts_afresh(tmp_path, monkeypatch):
    """Under a steady stream of moves, a move is always being written while the checkpoint
    copies: its pages come after what the round copies, so the next move finds the WAL not
    all copied and appends instead of starting it afresh, and the file grew for good. The
    checkpoint now runs further rounds until one copies everything before the next move."""
    from app.store import checkpoint as module

    engine = make_engine(f"sqlite:///{tmp_path / 'busy.db'}", autocheckpoint=False)
    path = sqlite_path(engine)
    fill(engine, 1500)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA wal_autocheckpoint=0")  # as the server's connections: only the checkpointer copies
    real_round = module.checkpoint_round
    rounds = []

    def a_move_during_the_first_round(conn):
        if not rounds:  # the move began before the round and commits after it
            writer.execute("BEGIN IMMEDIATE")
            writer.execute("UPDATE filler SET body = 'during' WHERE id = 1")
        rounds.append(real_round(conn))
        if len(rounds) == 1:
            writer.execute("COMMIT")
        return rounds[-1]

    def next_move_then_wal_length() -> int:
        writer.execute("UPDATE filler SET body = 'next' WHERE id = 1")
        return real_round(sqlite3.connect(path))[1]

    monkeypatch.setattr(module, "checkpoint_round", a_move_during_the_first_round)
    monkeypatch.setattr(module, "CATCH_UP_ROUNDS", 1)  # as before: one round only
    checkpoint(path)
    assert next_move_then_wal_length() > 1500  # the next move appended to the long WAL

    rounds.clear()
    monkeypatch.setattr(module, "CATCH_UP_ROUNDS", 20)
    busy, logged, copied = checkpoint(path)
    assert busy == 0 and copied == logged and len(rounds) >= 2  # it caught up with the move made meanwhile
    assert next_move_then_wal_length() <= 4  # so the next move started the WAL afresh
    with engine.connect() as conn:  # and nothing was lost on the way
        assert conn.exec_driver_sql("SELECT body FROM filler").scalar() == "next"
    writer.close()
    engine.dispose()


def test_an_idle_wal_takes_one_round(tmp_path, monkeypatch):
    """Nothing written since: one round copies it all, a second sees nothing new and stops
    (the next move starts the WAL afresh by itself)."""
    from app.store import checkpoint as module

    engine = make_engine(f"sqlite:///{tmp_path / 'idle.db'}", autocheckpoint=False)
    fill(engine, 600)
    rounds = []
    real_round = module.checkpoint_round
    monkeypatch.setattr(module, "checkpoint_round", lambda conn: rounds.append(real_round(conn)) or rounds[-1])
    busy, logged, copied = checkpoint(sqlite_path(engine))
    assert busy == 0 and logged == copied > 600 and len(rounds) == 2
    engine.dispose()
