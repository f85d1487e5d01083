"""When the database or the message queue is down: a clear `unavailable`, not a 500.

A PostgreSQL restart, a SQLite file locked beyond its busy timeout or a Redis
restart must not hang a phone, crash its socket or show a stack trace. Socket.IO
handlers (app/realtime/handlers.py) and HTTP routes (registered here) turn these errors
into the protocol's `unavailable` (HTTP 503). Nothing is lost by that: a move is
acknowledged only after its transaction committed, and a failed transaction
leaves the table as it was (app/service/tables/live.py drops its cached copy and reloads).

Recovery needs no restart: the engine pings pooled connections before use
(app/store/db.py, pool_pre_ping), and the message queue is pinged before a change
when nothing has shown it working for a second (see `QueueHealth`).
"""
from __future__ import annotations

import logging
import threading
import time

from app.errors import ServiceError
from app.engines.text import N_

log = logging.getLogger(__name__)

DB_MESSAGE = (N_("The server cannot reach its database just now. Try again in a moment: "
              "nothing you were told had succeeded is lost."))
QUEUE_MESSAGE = (N_("The server cannot reach the other game servers just now, so other players would not see "
                 "your move. Try again in a moment."))


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
    """Whether the Socket.IO message queue (Redis) is up.

    python-socketio's Redis manager logs a failed publish and carries on, so a
    move made while Redis is down would reach only this process's sockets. Before
    a change we refuse with `unavailable` while the queue is down: a publish that
    failed says so, and so does a ping, sent when nothing has shown the queue
    working for PROBE_SECONDS (so a quiet process notices too, at one ping a second)."""

    PROBE_SECONDS = 1.0
    RETRY_SECONDS = 0.5

    def __init__(self, manager):
        self.manager = manager
        self.down = False
        self._ok_at = time.monotonic()
        self._lock = threading.Lock()
        self._client = None
        publish = manager._publish  # private, but the only place the failure is visible

        def watched(data):
            result = publish(data)
            # The manager returns Redis's subscriber count, or None when it gave up.
            if result is None:
                self._went(down=True)
            else:
                self._ok_at = time.monotonic()
            return result

        manager._publish = watched
        manager._redis_listen_with_retries = self._listen  # see `_listen`
        self.on_back = None  # called (no arguments) once the listener is subscribed again after a failure

    def _listen(self):
        """The manager's Redis listener, as python-socketio 5 writes it, but retrying every
        RETRY_SECONDS (its own backs off to a minute) and calling `on_back` once it has
        subscribed again: whatever other processes published meanwhile was lost, so this
        process's clients need fresh views."""
        manager, failed = self.manager, False
        while True:
            try:
                manager._redis_connect()
                manager.pubsub.subscribe(manager.channel)
                if failed:
                    failed = False
                    self._went(down=False)
                    if self.on_back is not None:  # beside the listener, which must listen at once
                        manager.server.start_background_task(self.on_back)
                yield from manager.pubsub.listen()
            except Exception as exc:  # noqa: BLE001 - the connection broke: subscribe again
                if not failed:
                    log.warning("the message queue listener lost Redis (%s); retrying", exc.__class__.__name__)
                    self._went(down=True)
                failed = True
                time.sleep(self.RETRY_SECONDS)

    def _went(self, *, down: bool) -> None:
        if down != self.down:
            log.warning("the message queue is %s", "down; refusing changes until it is back" if down else "back")
        self.down = down
        if not down:
            self._ok_at = time.monotonic()

    def _ping(self) -> bool:
        import redis

        if self._client is None:  # our own client: reconnecting the manager's would race its listener
            self._client = redis.Redis.from_url(self.manager.redis_url, socket_timeout=1.0,
                                                socket_connect_timeout=1.0)
        try:
            return bool(self._client.ping())
        except Exception:  # noqa: BLE001 - any failure means: down
            return False

    def check(self) -> None:
        """Raise `unavailable` while the queue is down."""
        if not self.down and time.monotonic() - self._ok_at < self.PROBE_SECONDS:
            return
        with self._lock:  # one ping at a time; the others wait for its answer
            if self.down or time.monotonic() - self._ok_at >= self.PROBE_SECONDS:
                self._went(down=not self._ping())
        if self.down:
            raise ServiceError("unavailable", QUEUE_MESSAGE)


def register(app) -> None:
    """HTTP: answer 503 with a JSON error (under /api/) or a page, instead of a 500."""
    from flask import render_template, request

    def _unavailable(exc):
        log.warning("service unavailable for %s: %s", request.path, exc.__class__.__name__)
        error = unavailable(exc)
        headers = {"Retry-After": "5"}
        if request.path.startswith("/api/"):
            return {"ok": False, "error": error.to_json()}, 503, headers
        return render_template("error.html", title=N_("Back in a moment"), message=error.message), 503, headers

    for kind in OUTAGES:
        app.register_error_handler(kind, _unavailable)
