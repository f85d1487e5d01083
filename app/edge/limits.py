"""Counting limits shared by every entry point: "at most N of these per key per window".

One process keeps its counts in memory. With several processes (a message queue
configured, which is Redis), the counts live in Redis so that a client cannot
start again by reaching another process or opening a new connection: a guess of
a table code counts the same whether it came by a socket `join`, a `watch`, or
the HTTP routes.

    limiter = services(app).limits
    if not limiter.hit("code-guess", subject(client_address()), limit=20, window=60):
        ...refuse...

Every per-address count is kept under `subject(address)`: the IPv4 address, or the
IPv6 /64 (demos and online matches, logins, wrong codes, new seats).

`hit` counts one attempt and says whether it is allowed; `peek` says whether
one more would be allowed without counting; `undo` takes back one counted
attempt (a login counted before its password was checked, which was right); `retry_after` says in how many
seconds it would be (for the refusal's message); `reset` forgets a key (a correct
password clears its account's failures). Windows are sliding in memory and
fixed (one Redis key per window) in Redis: the Redis variant may let up to
twice the limit through across a window boundary, which is fine for a brake.
If Redis is unreachable the limiter fails open for that call (logged): a
limiter must not take the classroom down with it.
"""
from __future__ import annotations

import ipaddress
import logging
import re
import threading
import time
from collections import deque

log = logging.getLogger(__name__)

MEMORY_KEYS_MAX = 50_000  # beyond this, keys whose windows have passed are forgotten


def subject(address: str) -> str:
    """Whom a per-address count is kept for: the IPv4 address, or an IPv6 address's /64
    network (one home or phone gets a whole /64 and may pick any address in it, so
    counting single IPv6 addresses would let a client start again by changing its
    address). Every per-address limit keys its counts with this, and only this."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:  # an IPv4 client seen through an IPv6 socket
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))


class MemoryCounter:
    def __init__(self):
        self._hits: dict[tuple[str, str], deque] = {}
        self._lock = threading.Lock()

    def _stamps(self, scope: str, key: str, window: float, now: float) -> deque:
        if len(self._hits) > MEMORY_KEYS_MAX:
            for k in [k for k, q in self._hits.items() if not q or now - q[-1] >= window]:
                del self._hits[k]
        stamps = self._hits.setdefault((scope, key), deque())
        while stamps and now - stamps[0] >= window:
            stamps.popleft()
        return stamps

    def count(self, scope: str, key: str, window: float, add: bool) -> int:
        now = time.monotonic()
        with self._lock:
            stamps = self._stamps(scope, key, window, now)
            if add:
                stamps.append(now)
            return len(stamps)

    def reset(self, scope: str, key: str) -> None:
        with self._lock:
            self._hits.pop((scope, key), None)

    def undo(self, scope: str, key: str, window: float) -> None:
        with self._lock:
            stamps = self._stamps(scope, key, window, time.monotonic())
            if stamps:
                stamps.pop()

    def retry_after(self, scope: str, key: str, window: float, limit: int) -> float:
        now = time.monotonic()
        with self._lock:
            stamps = self._stamps(scope, key, window, now)
            # Allowed again once all but limit-1 of the stamps have left the window.
            return 0.0 if len(stamps) < limit else max(0.0, stamps[len(stamps) - limit] + window - now)


class RedisCounter:
    def __init__(self, url: str, prefix: str = "cg:limit"):
        import redis  # only the scaled configuration needs it

        self._redis = redis.Redis.from_url(url, socket_timeout=1.0, socket_connect_timeout=1.0)
        # The deployment's (app/config.py redis_namespace): two deployments on one Redis
        # server must not share a guesser's or a login's counts.
        self.prefix = prefix

    def _name(self, scope: str, key: str, window: float) -> str:
        return f"{self.prefix}:{scope}:{key}:{int(time.time() // window)}"

    def count(self, scope: str, key: str, window: float, add: bool) -> int:
        name = self._name(scope, key, window)
        if not add:
            return int(self._redis.get(name) or 0)
        pipe = self._redis.pipeline()
        pipe.incr(name)
        pipe.expire(name, int(window) + 1)
        return int(pipe.execute()[0])

    # Only an existing key: across a window boundary there is nothing left to take back.
    _UNDO = "if redis.call('exists', KEYS[1]) == 1 then return redis.call('decr', KEYS[1]) end return 0"

    def undo(self, scope: str, key: str, window: float) -> None:
        self._redis.eval(self._UNDO, 1, self._name(scope, key, window))

    def retry_after(self, scope: str, key: str, window: float, limit: int) -> float:
        if int(self._redis.get(self._name(scope, key, window)) or 0) < limit:
            return 0.0
        return window - time.time() % window  # the fixed window's key is replaced then

    def reset(self, scope: str, key: str) -> None:
        pattern = re.sub(r"([*?\[\]\\])", r"\\\1", f"{self.prefix}:{scope}:{key}:")  # literal, not glob
        for name in self._redis.scan_iter(match=pattern + "*", count=100):
            self._redis.delete(name)


class Limiter:
    def __init__(self, redis_url: str | None = None, *, namespace: str = "cg"):
        """`namespace`: the deployment's Redis namespace (app/config.py redis_namespace)."""
        self.counter = RedisCounter(redis_url, f"{namespace}:limit") if redis_url and redis_url.startswith("redis") \
            else MemoryCounter()
        self.fallback = MemoryCounter()  # used while Redis is down

    def _count(self, scope: str, key: str, window: float, add: bool) -> int:
        try:
            return self.counter.count(scope, key, window, add)
        except Exception:  # noqa: BLE001 — Redis down: count in this process meanwhile
            log.warning("limit store unreachable; counting %s in this process", scope)
            return self.fallback.count(scope, key, window, add)

    def hit(self, scope: str, key: str, *, limit: int, window: float) -> bool:
        """Count one attempt; True if it is within `limit` per `window` seconds."""
        return self._count(scope, str(key), window, True) <= limit

    def peek(self, scope: str, key: str, *, limit: int, window: float) -> bool:
        """True if one more attempt would be allowed (counts nothing)."""
        return self._count(scope, str(key), window, False) < limit

    def undo(self, scope: str, key: str, *, window: float) -> None:
        """Take back one attempt `hit` counted (it turned out to be one that should not count)."""
        try:
            self.counter.undo(scope, str(key), window)
        except Exception:  # noqa: BLE001
            log.warning("limit store unreachable; could not undo %s", scope)
        self.fallback.undo(scope, str(key), window)

    def retry_after(self, scope: str, key: str, *, limit: int, window: float) -> float:
        """Seconds until `peek` would allow one more attempt (0 if it does now)."""
        try:
            return self.counter.retry_after(scope, str(key), window, limit)
        except Exception:  # noqa: BLE001
            log.warning("limit store unreachable; timing %s in this process", scope)
            return self.fallback.retry_after(scope, str(key), window, limit)

    def reset(self, scope: str, key: str) -> None:
        try:
            self.counter.reset(scope, str(key))
        except Exception:  # noqa: BLE001
            log.warning("limit store unreachable; could not reset %s", scope)
        self.fallback.reset(scope, str(key))
