"""When the database or the message queue is down: a clear `unavailable`, not a 500.

A PostgreSQL restart, a SQLite file locked beyond its busy timeout or a Redis
restart must not hang a phone, crash its socket or show a stack trace. Socket.IO
handlers (app/realtime.py) and HTTP routes (registered here) turn these errors
into the protocol's `unavailable` (HTTP 503). Nothing is lost by that: a move is
acknowledged only after its transaction committed, and a failed transaction
leaves the table as it was (app/tables.py drops its cached copy and reloads).

Recovery needs no restart: the engine pings pooled connections before use
(app/db.py, pool_pre_ping), and the message queue's state is re-probed at most
once a second (see `QueueHealth`).
"""
from __future__ import annotations

import logging
import threading
import time

from app.tables import ServiceError

log = logging.getLogger(__name__)

DB_MESSAGE = ("The server cannot reach its database just now. Try again in a moment: "
              "nothing you were told had succeeded is lost.")
QUEUE_MESSAGE = ("The server cannot reach the other game servers just now, so other players would not see "
                 "your move. Try again in a moment.")


def _outage_types() -> tuple[type, ...]:
    from sqlalchemy.exc import DisconnectionError, InterfaceError, OperationalError, TimeoutError as PoolTimeout

    kinds: list[type] = [OperationalError, InterfaceError, DisconnectionError, PoolTimeout]
    try:  # only the scaled configuration installs and needs it
        from redis.exceptions import ConnectionError as RedisDown, TimeoutError as RedisSlow
        kinds += [RedisDown, RedisSlow]
    except ImportError:  # pragma: no cover
        pass
    return tuple(kinds)


OUTAGES = _outage_types()


def is_outage(exc: BaseException) -> bool:
    """A storage service we depend on is down or unreachable (not a bug in a query)."""
    return isinstance(exc, OUTAGES)


def unavailable(exc: BaseException | None = None) -> ServiceError:
    redis_error = exc is not None and type(exc).__module__.startswith("redis")
    return ServiceError("unavailable", QUEUE_MESSAGE if redis_error else DB_MESSAGE)


class QueueHealth:
    """Whether the Socket.IO message queue (Redis) took our last message.

    python-socketio's Redis manager logs a failed publish and carries on, so a
    move made while Redis is down would reach only this process's sockets. We
    watch its publish result, and while it fails refuse changes with
    `unavailable` (after one ping a second says Redis is still down)."""

    PROBE_SECONDS = 1.0

    def __init__(self, manager):
        self.manager = manager
        self.down = False
        self._probed = 0.0
        self._lock = threading.Lock()
        publish = manager._publish  # private, but the only place the failure is visible

        def watched(data):
            result = publish(data)
            # The manager returns Redis's subscriber count, or None when it gave up.
            if result is None and not self.down:
                log.warning("the message queue is down; refusing changes until it is back")
            self.down = result is None
            return result

        manager._publish = watched

    def _pinger(self):
        import redis

        if getattr(self, "_client", None) is None:
            self._client = redis.Redis.from_url(self.manager.redis_url, socket_timeout=1.0,
                                                socket_connect_timeout=1.0)
        return self._client

    def check(self) -> None:
        """Raise `unavailable` while the queue is known to be down."""
        if not self.down:
            return
        with self._lock:
            if time.monotonic() - self._probed < self.PROBE_SECONDS:
                raise ServiceError("unavailable", QUEUE_MESSAGE)
            self._probed = time.monotonic()
        try:  # our own client: reconnecting the manager's would race its listener thread
            self._pinger().ping()
        except Exception:  # noqa: BLE001 - any failure means: still down
            raise ServiceError("unavailable", QUEUE_MESSAGE)
        self.down = False
        log.warning("the message queue is back")


def register(app) -> None:
    """HTTP: answer 503 with a JSON error (under /api/) or a page, instead of a 500."""
    from flask import render_template, request

    def _unavailable(exc):
        log.warning("service unavailable for %s: %s", request.path, exc.__class__.__name__)
        error = unavailable(exc)
        headers = {"Retry-After": "5"}
        if request.path.startswith("/api/"):
            return {"ok": False, "error": error.to_json()}, 503, headers
        return render_template("error.html", title="Back in a moment", message=error.message), 503, headers

    for kind in OUTAGES:
        app.register_error_handler(kind, _unavailable)
