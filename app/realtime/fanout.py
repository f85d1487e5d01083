"""One message-queue publish per change, not one per viewer (scaled set-up only).

A move changes up to six views (board, facilitator, each seat). Through
python-socketio's Redis manager each emit was a PUBLISH of its own: a round trip,
a pooled connection checked out (redis-py polls the socket and, for each new
connection, reads its own package metadata), and one message every other worker
decodes. Profiled under the school-scale bench (bench/classroom_load.py --scaled 1
--profile), publishing took 23 % of a worker's CPU. `emit_many` delivers to this
process's sockets at once and publishes the whole change as ONE message, which the
other workers' listeners unpack into the same per-room emits.

The batch travels with its own `method`, which stock python-socketio listeners
ignore: a worker of an older version (during a rolling restart) misses those views
rather than broadcasting something it does not understand.
"""
from __future__ import annotations

import logging

import socketio as python_socketio
from socketio.pubsub_manager import PubSubManager

from app.wire import Encoded

log = logging.getLogger(__name__)

METHOD = "classroom_emit_many"
CALL = "classroom_call"  # a function every worker runs on its own sockets (see call_everywhere)


def _message(manager, event: str, data, room: str, namespace: str) -> dict:
    return {"method": "emit", "event": event, "data": [data], "binary": False, "namespace": namespace,
            "room": room, "skip_sid": None, "callback": None, "host_id": manager.host_id}


class BatchingRedisManager(python_socketio.RedisManager):
    def emit_many(self, items: list[tuple[str, object, str]], namespace: str = "/") -> None:
        """Emit each (event, data, room): here at once, elsewhere through one publish."""
        if not items:
            return
        messages = [_message(self, event, data, room, namespace) for event, data, room in items]
        for message in messages:
            PubSubManager._handle_emit(self, message)  # this process's sockets
        # An Encoded payload crosses as {"__encoded__": text}, which app.wire.queue_json
        # turns back into Encoded on arrival (it does so at any depth).
        wire = [dict(m, data=[{"__encoded__": str(x)} if isinstance(x, Encoded) else x for x in m["data"]])
                for m in messages]
        self._publish({"method": METHOD, "items": wire, "host_id": self.host_id})

    def _listen(self):
        """The stock listener's messages, decoded once here; our batches are unpacked
        and handled, everything else goes on to python-socketio's own handling."""
        for message in super()._listen():
            data = message
            if not isinstance(message, dict):
                try:
                    data = self.json.loads(message)
                except Exception:
                    yield message
                    continue
            if isinstance(data, dict) and data.get("method") == CALL:
                handler = getattr(self, "calls", {}).get(data.get("name"))
                if handler is not None and data.get("host_id") != self.host_id:
                    try:
                        handler(*data.get("args", []))
                    except Exception:
                        log.exception("a call from another worker failed")
                continue
            if isinstance(data, dict) and data.get("method") == METHOD:
                if data.get("host_id") != self.host_id:
                    for item in data.get("items") or []:
                        try:
                            PubSubManager._handle_emit(self, item)
                        except Exception:
                            log.exception("a queued view could not be delivered")
                continue
            yield data


def heard(sio, room: str, namespace: str = "/") -> bool:
    """Whether a message to `room` may reach anyone: with a message queue always (other
    processes' sockets may be in it); in one process, only when a socket here is in it."""
    manager = sio.server.manager
    if isinstance(manager, PubSubManager):
        return True
    return bool(manager.rooms.get(namespace, {}).get(room))


def emit_many(sio, items: list[tuple[str, object, str]]) -> None:
    """Emit (event, data, room) items through `sio` (a flask_socketio.SocketIO): in one
    publish when its manager batches, else one emit each (one process, or no Redis)."""
    manager = sio.server.manager
    if isinstance(manager, BatchingRedisManager):
        manager.emit_many(items)
    else:
        for event, data, room in items:
            sio.emit(event, data, to=room)


def register_call(sio, name: str, fn) -> None:
    """Let `call_everywhere(sio, name, ...)` run `fn` in this process."""
    manager = sio.server.manager
    if isinstance(manager, BatchingRedisManager):
        if not hasattr(manager, "calls"):
            manager.calls = {}
        manager.calls[name] = fn


def call_everywhere(sio, name: str, fn, *args) -> None:
    """Run `fn(*args)` here and, through the queue, the function every other worker
    registered under `name`: for what only a socket's own process can do (end it)."""
    fn(*args)
    manager = sio.server.manager
    if isinstance(manager, BatchingRedisManager):
        manager._publish({"method": CALL, "name": name, "args": list(args), "host_id": manager.host_id})
