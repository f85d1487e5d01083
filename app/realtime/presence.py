"""Which seats have a live connection: the board's "connected" dots and the class
overview's "disconnected for over a minute" alerts.

One process (`LocalPresence`) counts its own sockets by seat token hash. Several
processes sharing a Redis message queue (`RedisPresence`) must count each
other's too, or each board shows the phones of the other processes as away:

* each process owns a Redis hash `<ns>:proc:<id>` of the seats connected to it,
  and a score (its last heartbeat) in the sorted set `<ns>:procs`. A heartbeat
  task rewrites the hash every HEARTBEAT seconds (so it heals by itself after a
  Redis outage or after being taken for dead) and reads the other live
  processes' hashes into memory;
* a seat coming or going is also published on `<ns>:changes`, so the other
  processes learn it at once instead of at their next heartbeat;
* a process without a heartbeat for DEAD_AFTER seconds (SIGKILLed, or its
  machine gone) is removed by the first survivor to notice (ZREM answers one
  caller only), which then reports its seats as gone so their boards refresh.

`connected()` runs for every seat of every view built, on every move: it reads
memory only, never Redis. If Redis is unreachable the handlers go on with this
process's own counts (logged), and the heartbeat puts everything back when it
returns.

`<ns>` is the deployment's REDIS_NAMESPACE (app/config.py; by default derived from
the database URL) plus `:presence`: the processes sharing a database are one
deployment, and two deployments sharing a Redis (or two test runs) do not see
each other's phones.
"""
from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import Callable

from app.config import redis_namespace
from app.extensions import services

log = logging.getLogger(__name__)

HEARTBEAT = 1.0     # seconds between a process's heartbeats (and re-reads of the others)
DEAD_AFTER = 4.0    # a process silent this long is dead: its seats count as away
HASH_TTL = 30       # a dead process's hash outlives DEAD_AFTER so the survivor can read it

# Told which seats' connected state changed because of another process, and whether
# this process is the one that must refresh their tables everywhere (it reaped them).
OnChange = Callable[[set, bool], None]


class LocalPresence:
    """Which seats have a live connection in this process, by token hash."""

    def __init__(self):
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self.on_change: OnChange | None = None

    def connect(self, token_hash: str) -> None:
        with self._lock:
            self._counts[token_hash] = self._counts.get(token_hash, 0) + 1
            if self._counts[token_hash] == 1:
                self._flipped(token_hash, True)

    def disconnect(self, token_hash: str) -> None:
        with self._lock:
            left = self._counts.get(token_hash, 0) - 1
            if left > 0:
                self._counts[token_hash] = left
                return
            if self._counts.pop(token_hash, None) is not None:
                self._flipped(token_hash, False)

    def connected(self, token_hash: str) -> bool:
        return self._counts.get(token_hash, 0) > 0

    def _flipped(self, token_hash: str, present: bool) -> None:
        """A seat's first connection here opened, or its last one closed (lock held)."""

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


class RedisPresence(LocalPresence):
    def __init__(self, redis_url: str, namespace: str, *, heartbeat: float = HEARTBEAT,
                 dead_after: float = DEAD_AFTER, spawn=None, sleep=None):
        import redis  # only the scaled configuration needs it

        super().__init__()
        self._redis = redis.Redis.from_url(redis_url, socket_timeout=1.0, socket_connect_timeout=1.0,
                                           decode_responses=True)
        self.ns, self.id = namespace, uuid.uuid4().hex[:16]
        self.heartbeat, self.dead_after = heartbeat, dead_after
        self._spawn = spawn or (lambda fn: threading.Thread(target=fn, daemon=True).start())
        self._sleep = sleep or time.sleep
        self._remote: dict[str, set[str]] = {}   # other live process id -> its seats
        self._union: frozenset[str] = frozenset()
        self._remote_lock = threading.Lock()
        self._journal: list | None = None  # changes heard while a heartbeat reads the hashes
        self._pending: dict[bool, set[str]] = {True: set(), False: set()}  # seats to refresh, by `everywhere`
        self._wake = threading.Event()
        self._healthy = True   # after a failure, writes wait for the heartbeat to rewrite
        self._started = False
        self._stopped = False

    # ------------------------------------------------------------ names
    def _proc_key(self, proc_id: str) -> str:
        return f"{self.ns}:proc:{proc_id}"

    @property
    def _procs_key(self) -> str:
        return f"{self.ns}:procs"

    @property
    def _channel(self) -> str:
        return f"{self.ns}:changes"

    # ------------------------------------------------------------ local side
    def connected(self, token_hash: str) -> bool:
        return self._counts.get(token_hash, 0) > 0 or token_hash in self._union

    def _flipped(self, token_hash: str, present: bool) -> None:
        # Under the lock, so that this write and the heartbeat's rewrite of the hash
        # cannot cross (a stale HSET after a newer HDEL would show a gone phone as here).
        if not self._healthy:
            return
        try:
            pipe = self._redis.pipeline(transaction=False)
            if present:
                pipe.hset(self._proc_key(self.id), token_hash, 1)
            else:
                pipe.hdel(self._proc_key(self.id), token_hash)
            pipe.publish(self._channel, f"{'+' if present else '-'} {self.id} {token_hash}")
            pipe.execute()
        except Exception:  # noqa: BLE001 — Redis down: count locally, the heartbeat catches up
            self._unreachable("a connection change")

    def _unreachable(self, what: str) -> None:
        if self._healthy:
            log.warning("presence: Redis unreachable (%s); counting this process's connections only", what)
        self._healthy = False
        with self._remote_lock:
            self._set_remote({})

    # ------------------------------------------------------------ the other processes
    def _set_remote(self, remote: dict[str, set[str]]) -> set[str]:
        """Replace what we know of the other processes (lock held); the seats whose
        state changed for this process (not those connected here anyway)."""
        before = self._union
        self._remote = remote
        self._union = frozenset().union(*remote.values()) if remote else frozenset()
        return {t for t in before.symmetric_difference(self._union) if not self._counts.get(t)}

    def _tell(self, changed: set, everywhere: bool) -> None:
        """Hand the changed seats to the refresh task. Not refreshed here: refreshing a
        dead process's tables reads the database and may take a while, and a heartbeat
        held up that long would get this process taken for dead in turn."""
        if changed and self.on_change is not None:
            with self._remote_lock:
                self._pending[everywhere] |= changed
            self._wake.set()

    def _refresh_loop(self) -> None:
        while not self._stopped:
            self._wake.wait(self.heartbeat)
            self._wake.clear()
            with self._remote_lock:
                batches = [(everywhere, seats) for everywhere, seats in self._pending.items() if seats]
                self._pending = {True: set(), False: set()}
            for everywhere, seats in batches:  # a burst of changes is one refresh per table
                try:
                    self.on_change(seats, everywhere)
                except Exception:  # noqa: BLE001 — a failed refresh must not stop the task
                    log.exception("presence: refreshing the tables of changed seats failed")

    def beat(self) -> None:
        """One heartbeat: rewrite our hash, remove dead processes, re-read the others."""
        now = time.time()
        with self._lock:
            mine = {t: 1 for t, n in self._counts.items() if n > 0}
            pipe = self._redis.pipeline(transaction=True)
            pipe.delete(self._proc_key(self.id))
            if mine:
                pipe.hset(self._proc_key(self.id), mapping=mine)
            pipe.expire(self._proc_key(self.id), HASH_TTL)
            pipe.zadd(self._procs_key, {self.id: now})
            # Kept alive by every beat: once all of a deployment's processes are gone
            # (killed, or a test's servers), nothing of it stays in Redis.
            pipe.expire(self._procs_key, HASH_TTL)
            pipe.execute()
            if not self._healthy:
                log.warning("presence: Redis reachable again; counting every process's connections")
            self._healthy = True
        reaped = set()
        for dead in self._redis.zrangebyscore(self._procs_key, "-inf", now - self.dead_after):
            if self._redis.zrem(self._procs_key, dead):  # only one survivor wins this
                reaped |= set(self._redis.hkeys(self._proc_key(dead)))
                self._redis.delete(self._proc_key(dead))
                log.warning("presence: process %s stopped beating; its %d seats count as away", dead, len(reaped))
        with self._remote_lock:
            self._journal = []
        try:
            others = [p for p in self._redis.zrangebyscore(self._procs_key, now - self.dead_after, "+inf")
                      if p != self.id]
            pipe = self._redis.pipeline(transaction=False)
            for proc in others:
                pipe.hkeys(self._proc_key(proc))
            remote = {proc: set(keys) for proc, keys in zip(others, pipe.execute())}
        finally:
            with self._remote_lock:
                heard, self._journal = self._journal, None
        with self._lock, self._remote_lock:
            for sign, proc, token_hash in heard:  # newer than what we just read
                if proc in remote:
                    (remote[proc].add if sign == "+" else remote[proc].discard)(token_hash)
            changed = self._set_remote(remote)
            gone = {t for t in reaped if t not in self._union and not self._counts.get(t)}
        self._tell(gone, True)   # we reaped them: refresh their tables for everyone
        self._tell(changed - gone, False)

    def _on_message(self, data: str) -> None:
        try:
            sign, proc, token_hash = data.split(" ")
        except ValueError:
            return
        if proc == self.id:
            return
        with self._lock, self._remote_lock:
            if self._journal is not None:
                self._journal.append((sign, proc, token_hash))
            remote = {p: set(s) for p, s in self._remote.items()}
            seats = remote.setdefault(proc, set())
            (seats.add if sign == "+" else seats.discard)(token_hash)
            changed = self._set_remote(remote)
        self._tell(changed, False)

    # ------------------------------------------------------------ background tasks
    def start(self) -> None:
        with self._lock:
            if self._started or self._stopped:
                return
            self._started = True
        self._spawn(self._beat_loop)
        self._spawn(self._listen_loop)
        self._spawn(self._refresh_loop)

    def stop(self) -> None:
        """Stop beating (tests; a real process just dies and is reaped)."""
        self._stopped = True
        self._wake.set()

    def _beat_loop(self) -> None:
        while not self._stopped:
            try:
                self.beat()
            except Exception:  # noqa: BLE001
                self._unreachable("the heartbeat")
            self._sleep(self.heartbeat)

    def _listen_loop(self) -> None:
        while not self._stopped:
            pubsub = None
            try:
                pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self._channel)
                while not self._stopped:
                    message = pubsub.get_message(timeout=self.heartbeat)
                    if message and message.get("type") == "message":
                        self._on_message(message["data"])
            except Exception:  # noqa: BLE001 — the heartbeat reports the outage; retry later
                self._sleep(self.heartbeat)
            finally:
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except Exception:  # noqa: BLE001
                        pass


def make_presence(config, spawn=None, sleep=None) -> LocalPresence:
    """Shared through Redis when the message queue is Redis, else this process's own."""
    queue = config.get("SOCKETIO_MESSAGE_QUEUE") or ""
    if queue.startswith(("redis://", "rediss://")):
        return RedisPresence(queue, redis_namespace(config) + ":presence", spawn=spawn, sleep=sleep)
    return LocalPresence()


def refresher(app) -> OnChange:
    """What a process does when other processes' phones come or go: refresh the
    tables it holds (their boards and phones may be watching through it), or, if it
    reaped a dead process, every table of that process's seats (their boards may be
    anywhere, and the table's refresh also pushes its class overview)."""
    from app.errors import ServiceError

    def changed(token_hashes: set, everywhere: bool) -> None:
        tables, notifier = services(app).tables, services(app).notifier
        with app.app_context():
            codes = set()
            for token_hash in token_hashes:
                try:
                    code = tables.seat_ref(token_hash).table if everywhere else tables.cached_table(token_hash)
                except ServiceError:
                    continue  # the seat was removed meanwhile
                if code:
                    codes.add(code)
            for code in sorted(codes):
                try:
                    notifier.table_changed(code)
                except ServiceError:
                    continue

    return changed
