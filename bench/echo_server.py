"""A minimal Socket.IO echo for bench/classroom_load.py: the check that its bare server is a floor.

    python bench/echo_server.py PORT [--nagle]

Flask-SocketIO on eventlet and nothing else: a phone `join`s {code, seats} (its table's
room), and once the table is full every phone is sent a tiny view listing one action
(`reveal`); every `act` bumps the table's version, emits one view to the table's room and
acks {ok, version}. No rounds, no per-seat views, no padding: the least a Socket.IO
server can do for classroom_load's phones. The bench's bare server (real-sized views,
one emit per seat, War's rounds) should land within a few milliseconds of it.

The listening socket has TCP_NODELAY (its connections inherit it), as Node's HTTP
server and nginx set it. `--nagle` leaves eventlet's default (Nagle's algorithm on):
a small write then waits for the phone's delayed ACK (40 ms on Linux) whenever the
previous view to that phone is still unacknowledged, which is how the bare server's
p95 came to 40-50 ms at 4 phones (issue 24).
"""
from __future__ import annotations

import sys

if __name__ == "__main__":
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import eventlet

    eventlet.monkey_patch()

import socket  # noqa: E402


def nodelay_listen() -> None:
    """Make eventlet.listen (which Flask-SocketIO's run calls) set TCP_NODELAY on its socket;
    Linux copies it to every accepted connection."""
    import eventlet

    if getattr(eventlet.listen, "nodelay", False):
        return
    listen = eventlet.listen

    def listen_nodelay(*args, **kwargs):
        sock = listen(*args, **kwargs)
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    listen_nodelay.nodelay = True
    eventlet.listen = listen_nodelay


def main(argv: list[str]) -> None:
    from flask import Flask, request
    from flask_socketio import SocketIO, join_room

    port = int(argv[0])
    if "--nagle" not in argv:
        nodelay_listen()
    app = Flask("echo")
    sio = SocketIO(app, async_mode="eventlet", ping_interval=10, ping_timeout=20)
    tables: dict[str, dict] = {}
    where: dict[str, str] = {}  # sid -> table code

    @app.get("/")
    def index():
        return "echo"

    def view(table: dict) -> dict:
        return {"code": table["code"], "version": table["version"], "status": "playing",
                "actions": [{"type": "reveal"}]}

    @sio.on("join")
    def on_join(payload=None):
        code = payload["code"]
        table = tables.setdefault(code, {"code": code, "version": 0, "seated": 0, "size": payload.get("seats", 4)})
        join_room(code)
        where[request.sid] = code
        table["seated"] += 1
        if table["seated"] == table["size"]:
            sio.emit("view", view(table), to=code)
        return {"ok": True, "seat": table["seated"] - 1}

    @sio.on("act")
    def on_act(payload=None):
        table = tables[where[request.sid]]
        table["version"] += 1
        sio.emit("view", view(table), to=table["code"])
        return {"ok": True, "version": table["version"]}

    @sio.on("disconnect")
    def on_disconnect(*_args):
        where.pop(request.sid, None)

    print(f"echo server on 127.0.0.1:{port}{' (Nagle on)' if '--nagle' in argv else ''}", flush=True)
    sio.run(app, host="127.0.0.1", port=port, use_reloader=False, log_output=False, max_size=10_000)


if __name__ == "__main__":
    main(sys.argv[1:])
