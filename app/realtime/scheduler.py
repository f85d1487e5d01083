"""The timer loop: fires the tables' timers (computer moves, auto-play, deadlines).

It fires, in this process, the timers its own changes set and, by polling the
database, any other process's or those left from before a restart. Its poll also
runs the app's housekeeping chores (`Services.housekeeping`: callables that each
decide how often they really work, e.g. deleting day-old guided demos and removing
expired student names). What a fired timer changed goes to the notifier.
"""
from __future__ import annotations

import heapq
import logging
import threading
import time
from typing import TYPE_CHECKING

from app.edge.outage import is_outage
from app.extensions import services, socketio

if TYPE_CHECKING:
    from app.realtime.notifier import Notifier

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5  # how often the timer loop looks for timers another process set
BROKEN_RETRY = 30.0  # a table whose timer raised is tried again this much later (not twice a second)


class Scheduler:
    """Fires due timers. Timers live in the table rows; this keeps a heap of the ones
    this process set and polls the database for the rest."""

    def __init__(self, app, tables, notifier: Notifier):
        self.app, self.tables, self.notifier = app, tables, notifier
        self._heap: list[tuple[float, str]] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._running = False
        self._stopped = False
        self._broken: dict[str, float] = {}  # table code -> when to try its failing timer again
        self._thread = None   # the loop's, once started (a thread, or eventlet's green thread)

    def add(self, code: str, due: float | None) -> None:
        if due is None or self._stopped:
            return
        with self._lock:
            heapq.heappush(self._heap, (due, code))
        self.start()
        self._wake.set()

    def start(self) -> None:
        with self._lock:
            if self._running or self._stopped:
                return
            self._running = True
        self._thread = socketio.start_background_task(self._run)

    def stop(self) -> None:
        """Stop the loop and wait for a firing under way to finish, so that nothing of this
        app runs on after it (a test's app, whose database goes next)."""
        self._stopped = True
        self._wake.set()
        thread = self._thread
        if thread is not None and hasattr(thread, "join") and thread is not threading.current_thread():
            thread.join(timeout=10)

    def _run(self) -> None:
        next_poll = 0.0
        with self.app.app_context():
            while not self._stopped:
                try:
                    now = time.time()
                    codes = {}  # table code -> whether only the database knows it is due
                    with self._lock:
                        while self._heap and self._heap[0][0] <= now:
                            codes[heapq.heappop(self._heap)[1]] = False
                    if now >= next_poll:
                        next_poll = now + POLL_SECONDS
                        for code, _due in self.tables.due_tables(now):
                            codes.setdefault(code, True)
                        # Day-old guided demos (app/service/demo.py), expired student names (app/service/privacy.py)...
                        for chore in services(self.app).housekeeping:
                            try:
                                chore()
                            except Exception:  # noqa: BLE001 - one failing chore must not stop the timers
                                log.exception("housekeeping %s failed", getattr(chore, "__qualname__", chore))
                            socketio.sleep(0)
                    for code, from_db in codes.items():
                        # One move per table per round, then let the sockets run: the
                        # database calls do not yield, and a long burst of moves would
                        # starve pings and other tables. A table owing more comes back.
                        if self._broken.get(code, 0) > now:
                            continue
                        try:
                            # A table without a teacher that nobody is connected to pauses (app/service/demo.py).
                            for outcome in services(self.app).demos.brake(code, now=now):
                                self.notifier.publish(outcome)
                            for outcome in self.tables.fire_due(code, now=now, check_db=from_db, limit=1):
                                self.notifier.publish(outcome)
                                with self._lock:
                                    heapq.heappush(self._heap, (now, code))
                        except Exception:  # one broken table (a game's bug) must not stall every table's timers
                            self._broken[code] = now + BROKEN_RETRY
                            log.exception("timer of table %s failed; the other tables go on", code)
                        socketio.sleep(0)
                    with self._lock:
                        wait = min([next_poll] + [self._heap[0][0]] if self._heap else [next_poll]) - time.time()
                    self._wake.clear()
                    if wait > 0:
                        self._wake.wait(min(wait, POLL_SECONDS))
                except Exception as exc:
                    if self._stopped:
                        return
                    if is_outage(exc):  # the database is down: try again, without a traceback a poll
                        log.warning("timer loop: service unavailable (%s); retrying", str(exc).splitlines()[0][:200])
                    else:
                        log.exception("timer loop failed; going on")
                    socketio.sleep(POLL_SECONDS)
