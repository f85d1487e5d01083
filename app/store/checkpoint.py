"""SQLite's WAL checkpoints, off the event loop (the real server on SQLite).

In WAL mode a commit appends its pages to the `-wal` file. By default the commit that
takes that file past 1,000 pages also copies them into the database file and syncs it
(a checkpoint), inside the commit. Under eventlet every table shares one OS thread, so
that one commit held every table's acknowledgements for its whole length: 1-4 ms on a
quiet laptop (a quarter of all the time SQLite took, in a few hundred moves' stalls),
longer on a busy disk, once every ~200 moves (bench/classroom_load.py).

So the real server opens its connections with the automatic checkpoint off
(`make_engine(..., autocheckpoint=False)`) and runs this one from the timer loop's
housekeeping: every CHECKPOINT_SECONDS, a PASSIVE checkpoint in a real thread
(app/edge/offload.py), with its own connection. PASSIVE never waits for a writer and
no writer waits for it; a move that commits meanwhile just goes on appending. Nothing
about durability changes: a commit is in the WAL before it returns, checkpointed or not
(tests/test_faults.py SIGKILLs the server to prove it), and SQLite checkpoints on its
own when the last connection closes.
"""
from __future__ import annotations

import logging
import sqlite3
import threading
import time
from typing import Callable

CHECKPOINT_SECONDS = 1.0
# A WAL of more pages than this after a checkpoint was not started afresh (see `checkpoint`).
RESTARTED_PAGES = 256
CATCH_UP_ROUNDS = 20
log = logging.getLogger(__name__)


def checkpoint(path: str) -> tuple[int, int, int]:
    """A PASSIVE checkpoint of the database at `path`: (busy, pages in the WAL, pages
    copied into the database), as SQLite's `wal_checkpoint` answers for the last round.

    SQLite starts the WAL afresh (writes from its beginning again) only when a write
    transaction begins while every page in it is copied. Under a steady stream of moves
    one checkpoint never gets there: the moves committed while it copied are not copied,
    and the file grew by every move's pages for good (124 MB in 16 s of
    bench/classroom_load.py; 30 GB an hour). So it catches up: each further round copies
    only what came in during the last, until one finishes between two moves and the
    next move starts the WAL afresh (the WAL is short again), or CATCH_UP_ROUNDS."""
    conn = sqlite3.connect(path, timeout=30)
    try:
        before = None
        for _ in range(CATCH_UP_ROUNDS):
            busy, logged, copied = checkpoint_round(conn)
            # Done when the WAL is short, or no move came in meanwhile (the next one starts
            # it afresh); busy: another checkpoint runs; copied < logged: a reader still
            # reads older pages, which another round would not change.
            if busy or logged <= RESTARTED_PAGES or logged == before or copied < logged:
                break
            before = logged
        return busy, logged, copied
    finally:
        conn.close()


def checkpoint_round(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """One PASSIVE `wal_checkpoint` on `conn`: (busy, pages in the WAL, pages copied)."""
    busy, logged, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return busy, logged, copied


class Checkpointer:
    """A housekeeping chore (`due`): every `seconds`, a checkpoint run by `offload` (a
    real thread under eventlet) in a background task of its own (`spawn`), so that
    neither the timer loop nor the event loop waits for the copy."""

    def __init__(self, path: str, *, offload: Callable, spawn: Callable, seconds: float = CHECKPOINT_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self.path, self.offload, self.spawn, self.seconds, self.clock = path, offload, spawn, seconds, clock
        self.last: tuple[int, int, int] | None = None  # what the newest checkpoint answered
        self._next = 0.0
        self._running = False
        self._lock = threading.Lock()

    def due(self) -> bool:
        """Start a checkpoint if one is due and none is running. True when one started."""
        now = self.clock()
        with self._lock:
            if self._running or now < self._next:
                return False
            self._running, self._next = True, now + self.seconds
        self.spawn(self._run)
        return True

    def _run(self) -> None:
        try:
            self.last = self.offload(checkpoint, self.path)
        except sqlite3.Error as exc:  # the next one tries again; the WAL only grows meanwhile
            log.warning("WAL checkpoint failed: %s", exc)
        finally:
            with self._lock:
                self._running = False
