"""The server's door: what stands between the listening socket and the app.

One hostile device must not be able to take the whole class down by opening
connections (issue 18). This module holds the rules, free of eventlet so that
they can be read and tested alone; app/__main__.py plugs them into eventlet's
WSGI server:

* `Door` counts each address's open connections and turns away one over its cap;
* `GuardedListener` is the listening socket as the server sees it: its `accept()`
  never raises for lack of file descriptors (it waits and tries again) and closes
  at once a connection the `Door` refuses;
* `CountingPool` gives the `Door` back each connection when its green thread ends;
* `body_too_large` says which requests are refused before their body is read;
* `raise_open_files_limit` lifts the soft open-files limit at start;
* `settle_garbage_collector` tunes Python's collector for a long-running server;
* `AddressLogLimit` keeps one address from filling the log.
"""
from __future__ import annotations

import contextvars
import errno
import logging
import time
from collections import Counter

from app.edge.guard import subject

log = logging.getLogger(__name__)

# A class behind one NAT address: 35 phones with two connections each (the socket and
# a page or asset request), the board and the teacher make 72. Twice that leaves room
# for the extra connections a browser opens while loading a page, and for the sockets
# of phones that went to sleep and came back before the server noticed the old one
# had gone (up to ping_interval + ping_timeout, 30 s).
CONNECTIONS_PER_ADDRESS = 150
# A connection must have sent a whole request line and its headers this long after it
# was accepted or after its previous response (a phone's request fits in one or two
# packets; a slow mobile network takes well under a second). Longer and it is closed.
HEADER_SECONDS = 10.0
# Below this many open files a few devices (each up to CONNECTIONS_PER_ADDRESS) and a
# class or two (about 75 each) can use every descriptor the server has.
OPEN_FILES_WARNING = 1024
# How long accept() waits before trying again when the process is out of descriptors:
# the connections in the listen backlog wait for one to be freed (a slow-header socket
# closing, a phone leaving) instead of the server spinning or exiting.
ACCEPT_PAUSE = 0.1

# accept() errors about the listening socket itself: nothing more can be accepted.
LISTENER_GONE = {errno.EBADF, errno.EINVAL, errno.ENOTSOCK}
# accept() errors about one connection that went before it was taken (accept(2) says
# to treat them as "try again"): the next one is taken at once. Any other error (out of
# descriptors or memory, above all) is waited out.
CONNECTION_LEFT = {getattr(errno, name) for name in (
    "ECONNABORTED", "ECONNRESET", "EPROTO", "EPERM", "ENETDOWN", "ENETUNREACH", "EHOSTDOWN", "EHOSTUNREACH",
    "ENONET", "ENOPROTOOPT", "EOPNOTSUPP", "EPIPE", "ENOTCONN", "ESHUTDOWN", "ETIMEDOUT") if hasattr(errno, name)}


class Door:
    """How many connections each address has open, and whether it may open another.

    `per_address` 0 turns the cap off: behind a reverse proxy every connection comes
    from the proxy's address, so the proxy (nginx's limit_conn) must do it there."""

    def __init__(self, per_address: int):
        self.per_address = per_address
        self.open: Counter[str] = Counter()

    def admit(self, address: str) -> bool:
        if self.per_address and self.open[address] >= self.per_address:
            return False
        self.open[address] += 1
        return True

    def release(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


def peer_host(peer) -> str:
    """Whom a socket peer address ((host, port) or (host, port, flow, scope)) is counted
    as: its IPv4 address or its IPv6 /64, as every per-client limit (app/edge/guard.py)."""
    return subject(peer[0] if isinstance(peer, tuple) and peer else str(peer))


class GuardedListener:
    """The listening socket, with an `accept()` that only returns admitted connections
    and never raises because the process ran out of descriptors (eventlet's accept loop
    ends, and the server with it, on any error it does not know)."""

    def __init__(self, sock, door: Door, sleep, pause: float = ACCEPT_PAUSE):
        self._sock = sock
        self.door = door
        self._sleep = sleep  # the event loop's sleep: the other connections run meanwhile
        self._pause = pause
        self._last_warning = float("-inf")

    def accept(self):
        while True:
            try:
                conn, peer = self._sock.accept()
            except OSError as exc:
                if exc.errno in LISTENER_GONE:
                    raise
                if exc.errno not in CONNECTION_LEFT:
                    self._warn(exc)
                    self._sleep(self._pause)
                continue
            host = peer_host(peer)
            if self.door.admit(host):
                return conn, peer
            conn.close()  # over its address's cap: closed before any green thread is spent on it
            log.warning("%s already holds %d connections; more are closed", host, self.door.per_address,
                        extra={"address": host})  # AddressLogLimit keeps this to a few lines a minute

    def _warn(self, exc: OSError) -> None:
        now = time.monotonic()
        if now - self._last_warning >= 60:  # once a minute, not once per try
            self._last_warning = now
            log.warning("cannot accept connections (%s); new ones wait until some close", exc.strerror or exc)

    def __getattr__(self, name):  # getsockname, close, family...: the real socket's
        return getattr(self._sock, name)


class CountingPool:
    """The server's pool of connection green threads; a connection's end (its green
    thread's end: eventlet closes the socket then) is given back to the Door."""

    def __init__(self, pool, door: Door):
        self._pool = pool
        self.door = door

    def spawn(self, fn, connection, *args):
        thread = self._pool.spawn(fn, connection, *args)
        # eventlet.wsgi passes [peer address, socket, state]
        thread.link(lambda _thread: self.door.release(peer_host(connection[0])))
        return thread

    def waitall(self):
        return self._pool.waitall()


def body_too_large(method: str, path: str, content_length: str | None, socketio_path: str, cap: int) -> bool:
    """A long-polling POST longer than Socket.IO's message cap. engine.io would refuse it
    by closing the session and wait, for good, for a poll that never comes to carry the
    close: the request's green thread and socket would stay. Refused before the app."""
    if method != "POST" or not path.startswith(socketio_path):
        return False
    try:
        return int(content_length or 0) > cap
    except ValueError:
        return False  # the server itself answers 400


def raise_open_files_limit() -> int | None:
    """Lift the soft open-files limit to the hard limit (a stock laptop's soft limit,
    1,024 on Linux and 256 on macOS, is a few hundred phones). Returns the limit now in
    force, None where there is no such limit (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # macOS refuses RLIM_INFINITY and anything above its OPEN_MAX (10,240), even when
    # the hard limit is "unlimited": then the next smaller value is tried.
    for wanted in (hard, 65536, 10240):
        if soft == resource.RLIM_INFINITY or (wanted != resource.RLIM_INFINITY and wanted <= soft):
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            continue
        soft = wanted
        break
    return None if soft == resource.RLIM_INFINITY else soft


# The collector's young generation: collected after this many more objects (Python's
# default: 700). Every Socket.IO message leaves objects for it (the handler's green
# thread, its packet), so at 700 a busy server collected on nearly every move and walked
# what each move still held; at 10,000 it collects a fifteenth as often and spends a
# third of the time (bench/classroom_load.py --profile prints the collections).
YOUNG_OBJECTS = 10_000


def settle_garbage_collector() -> None:
    """Tune the collector for a long-running server, once everything it starts with is made:
    what exists now (the app, its modules, the games' card data) lives as long as the
    process, so it is frozen out of the collections' walks (a full collection went from
    about 60 ms to a few), and the young generation is collected less often. The bench's
    floor (bench/classroom_load.py's bare server) does the same, so it stays a floor."""
    import gc

    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, middle, old)


def open_files_warning(limit: int | None) -> str | None:
    if limit is None or limit >= OPEN_FILES_WARNING:
        return None
    return (f"This process may open only {limit} files (the hard limit), and every phone's connection is "
            f"one: a large class, or one device opening many connections, can use them all. Raise it "
            f"(ulimit -Hn, or LimitNOFILE= in a systemd unit) to at least {OPEN_FILES_WARNING}.")


def setup_logging() -> None:
    """Warnings and errors to stderr, at most so many lines per client address
    (AddressLogLimit). Call it after the Socket.IO server exists: engine.io and Socket.IO
    give their loggers a handler of their own, which would bypass the limit."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(AddressLogLimit())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    for name in ("engineio.server", "socketio.server"):
        logging.getLogger(name).handlers.clear()  # their records reach the root's handler instead


# The address a log line is about, where the record does not say it: set while a
# client's packet is handled (app/realtime/handlers.py), read by AddressLogLimit.
log_address: contextvars.ContextVar[str | None] = contextvars.ContextVar("log_address", default=None)


class AddressLogLimit(logging.Filter):
    """At most `per_window` log lines about one client address per `window` seconds,
    then one line saying the rest are suppressed. Lines about no address (the server's
    own trouble) always pass. The address is the record's `address` (logging's
    `extra=`), else the one set in `log_address`, else the Flask request's."""

    def __init__(self, per_window: int = 20, window: float = 60.0, clock=time.monotonic):
        super().__init__()
        self.per_window, self.window, self.clock = per_window, window, clock
        self._counts: dict[str, tuple[float, int]] = {}  # address -> (window start, lines in it)

    def filter(self, record: logging.LogRecord) -> bool:
        address = getattr(record, "address", None) or log_address.get() or _request_address()
        if address is None:
            return True
        address = subject(address)
        now = self.clock()
        if len(self._counts) > 10_000:  # a flood of addresses must not grow this without end
            self._counts = {a: c for a, c in self._counts.items() if now - c[0] < self.window}
        start, count = self._counts.get(address, (now, 0))
        if now - start >= self.window:
            start, count = now, 0
        count += 1
        self._counts[address] = (start, count)
        if count <= self.per_window:
            return True
        if count == self.per_window + 1:  # the one summary; the record becomes it
            record.msg = "%s: more than %d log lines in %d s; the rest are suppressed for the minute"
            record.args = (address, self.per_window, int(self.window))
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info = record.exc_text = record.stack_info = None
            return True
        return False


def _request_address() -> str | None:
    try:
        from flask import has_request_context, request
    except ImportError:  # pragma: no cover - Flask is a dependency
        return None
    return (request.remote_addr or None) if has_request_context() else None
