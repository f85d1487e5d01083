"""Run a CPU-heavy call (password hashing) off the event loop, a few at a time.

Under eventlet (`python -m app`) every request and socket message shares one OS
thread: a 90 ms scrypt run there stalls every table's acknowledgements for 90 ms,
and eight password guessers stalled them for seconds. `eventlet.tpool.execute`
runs the call in a real OS thread (hashlib releases the GIL while it hashes) while
the loop keeps serving. A semaphore bounds how many hashes run at once, so that
guessers queue for a slot instead of taking every core; waiting for a slot is a
green wait under eventlet. Without eventlet (threading mode: tests, the CLI,
Flask's dev server) each request already has its own thread: the call runs
directly, under the same bound.

This is the one module besides app/__main__.py that touches eventlet, and only
when ASYNC_MODE says the server runs on it (then it is imported and patched).
"""
from __future__ import annotations

import threading
from typing import Callable, TypeVar

T = TypeVar("T")


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

                return tpool.execute(fn, *args, **kwargs)
            return fn(*args, **kwargs)
