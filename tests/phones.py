"""A readable wrapper around Flask-SocketIO's test client: one simulated phone."""
from __future__ import annotations

import time

from app.extensions import socketio


def _entry_key(entry: dict) -> tuple:
    return entry.get("v"), entry.get("t"), entry.get("text")


def accept(current: dict | None, payload: dict) -> dict:
    """What a client does with a `view` (as static/js/table.js does): a view carries
    only the log entries new since the last one (`log_reset` marks a full log), so
    keep the running log; a view older than the one shown only adds its entries."""
    same = current is not None and current.get("code") == payload.get("code")
    log = list(payload.get("log", []))
    if same and not payload.get("log_reset"):
        seen = {_entry_key(e) for e in current["log"]}
        log = current["log"] + [e for e in log if _entry_key(e) not in seen]
        log.sort(key=lambda e: e.get("v", 0))
    if same and payload["version"] < current["version"]:
        return dict(current, log=log)
    return dict(payload, log=log)


class Phone:
    def __init__(self, app, auth=None, flask_client=None):
        self.client = socketio.test_client(app, auth=auth, flask_test_client=flask_client)
        self.view = None
        self.events: list[tuple[str, dict]] = []

    def pump(self):
        """Read everything the server sent; keep the newest view."""
        for msg in self.client.get_received():
            args = msg["args"]
            # The test client gives a list of arguments, except for the `message` event name
            # (Socket.IO's default event), whose payload arrives bare.
            payload = args[0] if isinstance(args, list) and args else args or None
            self.events.append((msg["name"], payload))
            if msg["name"] == "view":
                self.view = accept(self.view, payload)
        return self.view

    def send(self, event, payload):
        ack = self.client.emit(event, payload, callback=True)
        self.pump()
        return ack

    def join(self, code, name):
        return self.send("join", {"code": code, "name": name})

    def act(self, action, version=None):
        self.pump()
        return self.send("act", {"version": self.view["version"] if version is None else version,
                                 "action": action})

    def can(self, kind):
        self.pump()
        return bool(self.view) and any(a["type"] == kind for a in self.view["actions"])

    def received(self, name):
        self.pump()
        return [p for n, p in self.events if n == name]

    def close(self):
        if self.client.is_connected():
            self.client.disconnect()


def seated(make_phone, code, *names):
    """New phones (from the `phone` fixture), each joined under one of `names`."""
    phones = []
    for name in names:
        p = make_phone()
        ack = p.join(code, name)
        assert ack["ok"], ack
        p.name, p.token, p.seat, p.table = name, ack["token"], ack["seat"], ack["table"]
        phones.append(p)
    return phones


def play_to_end(phones, limit=20000, idle_seconds=10.0):
    """Every phone reveals whenever it may, until the game ends. Returns the last view.

    Computer-played seats move from a background task, so a round where no
    phone may move waits a little for them (up to `idle_seconds` in a row).
    """
    idle_since = None
    for _ in range(limit):
        moved = False
        for phone in phones:
            if phone.can("reveal"):
                ack = phone.act({"type": "reveal"})
                if not ack["ok"] and ack["error"]["code"] == "rate_limited":
                    time.sleep(0.1)  # as a real client would: the server allows ~10 messages a second
                    continue
                assert ack["ok"] or ack["error"]["code"] == "stale", ack
                moved = True
        if phones[0].pump()["status"] == "ended":
            return phones[0].view
        if moved:
            idle_since = None
        else:
            idle_since = idle_since or time.monotonic()
            assert time.monotonic() - idle_since < idle_seconds, "nobody moved but the game has not ended"
            time.sleep(0.01)
    raise AssertionError("game did not end")
