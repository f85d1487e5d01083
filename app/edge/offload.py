"""Run a CPU-heavy call (password hashing) off the event loop, a few at a time.

Under eventlet (`python -m app`) every request and socket message shares one OS
thread: a 90 ms scrypt run there stalls every table's acknowledgements for 90 ms,
and eight password guessers stalled them for seconds. `eventlet.tpool.execute`
runs the call in a real OS thread (hashlib releases the GIL while it hashes) while
the loop keeps serving; on Linux that thread runs at a lower priority, so that on a
busy laptop the loop's thread is scheduled first. A semaphore bounds how many hashes run at once, so that
guessers queue for a slot instead of taking every core; waiting for a slot is a
green wait under eventlet. Without eventlet (threading mode: tests, the CLI,
Flask's dev server) each request already has its own thread: the call runs
directly, under the same bound.

This is the one module besides app/__main__.py that touches eventlet, and only
when ASYNC_MODE says the server runs on it (then it is imported and patched).
"""
from __future__ import annotations

import os
import sys
import threading
from typing import Callable, TypeVar

T = TypeVar("T")
NICENESS = 10  # of the hashing threads: the event loop, which answers every table, comes first
_niced = threading.local()


def _behind_the_loop(fn: Callable[..., T], *args, **kwargs) -> T:
    """Run `fn` in this worker thread at a lower priority. Linux gives each thread its
    own niceness (setpriority on its thread id); elsewhere the id is not a thread's,
    so nothing is changed."""
    if sys.platform == "linux" and not getattr(_niced, "done", False):
        _niced.done = True
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICENESS)
        except OSError:
            pass
    return fn(*args, **kwargs)


class Offload:
    def __init__(self, async_mode: str = "threading", concurrency: int = 1):
        self.green = async_mode == "eventlet"
        if self.green:
            from eventlet.semaphore import Semaphore

            self._slots = Semaphore(max(1, concurrency))
        else:
            self._slots = threading.BoundedSemaphore(max(1, concurrency))

    def __call__(self, fn: Callable[..., T], *args, **kwargs) -> T:
        with self._slots:
            if self.green:
                from eventlet import tpool

                return tpool.execute(_behind_the_loop, fn, *args, **kwargs)
            return fn(*args, **kwargs)
