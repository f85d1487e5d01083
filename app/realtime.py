"""Socket.IO handlers — thin: validate the envelope, call the service, broadcast.

Rooms: `board:<CODE>` (public view), `fac:<CODE>` (facilitator view), and one
room per seat (`seat_room(token_hash)`), so every viewer receives its own view
after every change, also across processes when a message queue is configured.
"""
from __future__ import annotations

import functools
import logging
import threading
import time
from dataclasses import dataclass, field

from flask import current_app, request, session
from flask_socketio import join_room, leave_room

from app.extensions import socketio
from app.security import normalize_code
from app.tables import SeatRef, ServiceError, seat_room, validate_payload

log = logging.getLogger(__name__)


@dataclass
class Connection:
    """What one socket connection speaks for."""

    facilitator_id: int | None = None
    seat: SeatRef | None = None
    watching: str | None = None  # table code, as board or facilitator
    watching_as: str | None = None
    tokens: float = 30.0
    stamp: float = field(default_factory=time.monotonic)
    failed_joins: list = field(default_factory=list)

    def allow(self, rate: float, burst: float) -> bool:
        """Token bucket: `burst` messages at once, `rate` per second sustained."""
        now = time.monotonic()
        self.tokens = min(burst, self.tokens + (now - self.stamp) * rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


connections: dict[str, Connection] = {}


def services():
    return current_app.extensions["tables"], current_app.extensions["classes"]


def ok(**data) -> dict:
    return {"ok": True, **data}


def fail(exc: ServiceError, **extra) -> dict:
    return {"ok": False, "error": exc.to_json(), **extra}


def handler(fn):
    """Wrap an event: rate limit, turn ServiceErrors into error acks, never crash the socket."""

    @functools.wraps(fn)
    def wrapper(payload=None, *args):
        conn = connections.setdefault(request.sid, Connection())
        if not conn.allow(current_app.config["SOCKET_RATE"], current_app.config["SOCKET_BURST"]):
            return fail(ServiceError("rate_limited", "Too many messages; slow down a little."))
        try:
            return fn(conn, payload)
        except ServiceError as exc:
            return fail(exc)
        except Exception:  # a bug must not take the socket down; it is logged for us to fix
            log.exception("unhandled error in %s", fn.__name__)
            return fail(ServiceError("bad_request", "The server could not handle that message."))

    return wrapper


# ------------------------------------------------------------------ broadcast
def broadcast(code: str) -> None:
    """Send every viewer of the table its own fresh view."""
    tables, classes = services()
    payloads = tables.payloads(code)
    socketio.emit("view", payloads["board"], to=f"board:{code}")
    socketio.emit("view", payloads["facilitator"], to=f"fac:{code}")
    for room, payload in payloads["seats"]:
        socketio.emit("view", payload, to=room)
    class_code = classes.class_code_of_table(code)
    if class_code:
        broadcast_class(class_code)


def broadcast_class(class_code: str) -> None:
    """Push the class overview and the class board, at most once per CLASS_PUSH_INTERVAL
    (default 1 s) per class: a class of busy tables changes many times a second and the
    overview reads every table. A change inside the interval is sent at its end."""
    app = current_app._get_current_object()
    interval = app.config.get("CLASS_PUSH_INTERVAL", 1.0)
    with _class_push_lock:
        if class_code in _class_push_waiting:
            return  # the trailing push already scheduled will include this change
        wait = _class_pushed_at.get(class_code, float("-inf")) + interval - time.monotonic()
        if wait > 0:
            _class_push_waiting.add(class_code)
        else:
            _class_pushed_at[class_code] = time.monotonic()
    if wait > 0:
        socketio.start_background_task(_push_class_later, app, class_code, wait)
    else:
        _push_class(class_code)


_class_push_lock = threading.Lock()
_class_pushed_at: dict[str, float] = {}
_class_push_waiting: set[str] = set()


def _push_class(class_code: str) -> None:
    _tables, classes = services()
    overview = classes.overview(class_code)
    socketio.emit("overview", overview, to=f"class:{class_code}")
    socketio.emit("class_view", classes.public_overview(class_code), to=f"classboard:{class_code}")


def _push_class_later(app, class_code: str, wait: float) -> None:
    socketio.sleep(wait)
    with app.app_context():
        with _class_push_lock:
            _class_push_waiting.discard(class_code)
            _class_pushed_at[class_code] = time.monotonic()
        try:
            _push_class(class_code)
        except Exception:
            log.exception("class overview push for %s failed", class_code)


def send_own_view(conn: Connection) -> None:
    tables, _ = services()
    if conn.seat:
        payloads = tables.payloads(conn.seat.table)
        room = seat_room(conn.seat.token_hash)
        for seat_room_name, payload in payloads["seats"]:
            if seat_room_name == room:
                socketio.emit("view", payload, to=request.sid)
    elif conn.watching:
        payloads = tables.payloads(conn.watching)
        socketio.emit("view", payloads[conn.watching_as], to=request.sid)


def changed(code: str) -> None:
    broadcast(code)
    schedule_auto(current_app._get_current_object(), code)


# ------------------------------------------------------- computer-made moves
_auto_lock = threading.Lock()
_auto_running: set[str] = set()
_auto_dirty: set[str] = set()


def schedule_auto(app, code: str) -> None:
    """Make sure one background loop per table plays computer seats and auto-play."""
    with _auto_lock:
        if code in _auto_running:
            _auto_dirty.add(code)
            return
        _auto_running.add(code)
    socketio.start_background_task(_auto_loop, app, code)


def _auto_loop(app, code: str) -> None:
    with app.app_context():
        tables = app.extensions["tables"]
        try:
            while True:
                step = tables.next_auto(code)
                if step is None:
                    with _auto_lock:
                        if code not in _auto_dirty:
                            _auto_running.discard(code)
                            return
                        _auto_dirty.discard(code)
                    continue
                seat, delay = step
                socketio.sleep(delay)
                if tables.auto_step(code, seat) is not None:
                    broadcast(code)
        except Exception:
            log.exception("auto-play loop for %s failed", code)
            with _auto_lock:
                _auto_running.discard(code)


# -------------------------------------------------------------------- events
def on_connect(auth=None):
    conn = connections.setdefault(request.sid, Connection())
    accounts = current_app.extensions["accounts"]
    fac = accounts.by_token(auth.get("token")) if isinstance(auth, dict) else None
    if fac is None and session.get("facilitator_id"):
        fac = accounts.get(session["facilitator_id"])
    conn.facilitator_id = fac.id if fac else None


def on_disconnect(*_args):
    conn = connections.pop(request.sid, None)
    if conn and conn.seat:
        tables, _ = services()
        tables.presence.disconnect(conn.seat.token_hash)
        broadcast(conn.seat.table)


def _bind_seat(conn: Connection, ref: SeatRef) -> None:
    tables, _ = services()
    if conn.seat:
        leave_room(seat_room(conn.seat.token_hash))
        tables.presence.disconnect(conn.seat.token_hash)
    conn.seat = ref
    join_room(seat_room(ref.token_hash))
    tables.presence.connect(ref.token_hash)


@handler
def on_join(conn: Connection, payload):
    validate_payload(payload, {"code": str, "name": str})
    recent = [t for t in conn.failed_joins if time.monotonic() - t < 60]
    conn.failed_joins = recent
    if len(recent) >= 10:
        raise ServiceError("rate_limited", "Too many wrong codes. Wait a minute and try again.")
    code = normalize_code(payload["code"])
    if code is None:
        conn.failed_joins.append(time.monotonic())
        raise ServiceError("unknown_table", "A code has 6 letters and digits, like the one on the board.")
    tables, classes = services()
    try:
        seated = classes.join_any(code, payload["name"])
    except ServiceError as exc:
        if exc.code == "unknown_table":
            conn.failed_joins.append(time.monotonic())
        raise
    _bind_seat(conn, tables.resume(seated["token"]))
    changed(seated["table"])
    return ok(seat=seated["seat"], token=seated["token"], table=seated["table"])


@handler
def on_resume(conn: Connection, payload):
    validate_payload(payload, {"token": str})
    tables, _ = services()
    ref = tables.resume(payload["token"])
    _bind_seat(conn, ref)
    broadcast(ref.table)  # everyone sees the seat is connected again
    schedule_auto(current_app._get_current_object(), ref.table)
    return ok(seat=ref.seat, table=ref.table, name=ref.name)


@handler
def on_watch(conn: Connection, payload):
    validate_payload(payload, {"code": str})
    code = normalize_code(payload["code"])
    tables, classes = services()
    if code is None:
        raise ServiceError("unknown_table", "There is no table with that code.")
    role = payload.get("role", "board")
    if role not in ("board", "facilitator"):
        raise ServiceError("bad_request", "role is 'board' or 'facilitator'.")
    if classes.find(code):  # a class code: the class overview
        return _watch_class(conn, code, role)
    table = tables.get(code)
    if role == "facilitator" and table.facilitator_id != conn.facilitator_id:
        raise ServiceError("forbidden", "Only the table's facilitator can watch it as facilitator.")
    if conn.watching:
        leave_room(f"{'fac' if conn.watching_as == 'facilitator' else 'board'}:{conn.watching}")
    conn.watching, conn.watching_as = code, role
    join_room(f"{'fac' if role == 'facilitator' else 'board'}:{code}")
    send_own_view(conn)
    schedule_auto(current_app._get_current_object(), code)
    return ok(table=code, version=tables.get(code).version)


def _watch_class(conn: Connection, code: str, role: str):
    _tables, classes = services()
    klass = classes.find(code)
    if role == "facilitator":
        if klass.facilitator_id != conn.facilitator_id:
            raise ServiceError("forbidden", "Only the class's facilitator can open its overview.")
        join_room(f"class:{code}")
        socketio.emit("overview", classes.overview(code), to=request.sid)
    else:
        join_room(f"classboard:{code}")
        socketio.emit("class_view", classes.public_overview(code), to=request.sid)
    return ok(class_code=code)


@handler
def on_act(conn: Connection, payload):
    validate_payload(payload, {"version": int, "action": dict})
    if conn.seat is None:
        raise ServiceError("not_joined", "Join the table (or resume your seat) before playing.")
    tables, _ = services()
    tables.check_seat(conn.seat)
    try:
        version = tables.act(conn.seat.table, conn.seat.seat, payload["version"], payload["action"])
    except ServiceError as exc:
        if exc.code == "stale":
            send_own_view(conn)
            return fail(exc, version=tables.get(conn.seat.table).version)
        raise
    changed(conn.seat.table)
    return ok(version=version)


@handler
def on_moderate(conn: Connection, payload):
    validate_payload(payload, {"code": str, "version": int, "action": dict})
    if conn.facilitator_id is None:
        raise ServiceError("forbidden", "Moderation needs a facilitator login.")
    code = normalize_code(payload["code"])
    if code is None:
        raise ServiceError("unknown_table", "There is no table with that code.")
    tables, _ = services()
    before = {x.seat_index: x.token_hash for x in tables.seats(code)}
    try:
        version = tables.moderate(conn.facilitator_id, code, payload["version"], payload["action"])
    except ServiceError as exc:
        if exc.code == "stale":
            payloads = tables.payloads(code)
            socketio.emit("view", payloads["facilitator"], to=request.sid)
            return fail(exc, version=tables.get(code).version)
        raise
    action = payload["action"]
    if action.get("type") == "kick" and action.get("seat") in before:
        room = seat_room(before[action["seat"]])
        socketio.emit("removed", {"message": "Your teacher removed you from this table."}, to=room)
    changed(code)
    return ok(version=version)


@handler
def on_note(conn: Connection, payload):
    validate_payload(payload, {"text": str})
    tables, _ = services()
    if conn.seat is not None:
        tables.check_seat(conn.seat)
        note = tables.add_note(conn.seat.table, conn.seat.name, payload["text"])
        code = conn.seat.table
    elif conn.facilitator_id is not None and conn.watching_as == "facilitator":
        fac = current_app.extensions["accounts"].get(conn.facilitator_id)
        note = tables.add_note(conn.watching, f"Facilitator {fac.name}", payload["text"])
        code = conn.watching
    else:
        raise ServiceError("not_joined", "Join a table before writing a playtest note.")
    socketio.emit("note", {"author": note.author, "text": note.text, "version": note.version},
                  to=f"fac:{code}")
    return ok(version=note.version)


HANDLERS = {"connect": on_connect, "disconnect": on_disconnect, "join": on_join, "resume": on_resume,
            "watch": on_watch, "act": on_act, "moderate": on_moderate, "note": on_note}


def register(sio) -> None:
    """Bind the handlers to the server init_app() just created (one per app)."""
    for event, fn in HANDLERS.items():
        sio.on(event)(fn)


# ------------------------------------------------------------ class sessions
def class_changed(class_code: str, table_codes: list[str], moved: dict | None = None) -> None:
    """After a class-level change made over HTTP (app/api/classes.py): moved seats'
    connections follow them, every changed table is broadcast (its players get
    their view, the new table's view for a moved student) and its computer
    players scheduled, and the class overview is pushed."""
    if moved:
        seats_moved(moved)
    for code in dict.fromkeys(table_codes):
        changed(code)
    if not table_codes:
        broadcast_class(class_code)


def seats_moved(moved: dict) -> None:
    """Point this process's connections of moved seats at their new table.

    A moved seat keeps its token, and so its Socket.IO room and presence; only
    the table (and seat number) a connection acts for changes.
    """
    by_hash = {m["token_hash"]: m for m in moved.values()}
    for conn in list(connections.values()):
        if conn.seat is not None and conn.seat.token_hash in by_hash:
            target = by_hash[conn.seat.token_hash]
            conn.seat.table, conn.seat.seat = target["table"], target["seat"]


def send_message(class_code: str, text: str) -> int:
    """The facilitator's short message to every phone at every table of the class (event
    `message` {text}), and to the projected class board. Returns how many seats it went to."""
    _tables, classes = services()
    rooms = classes.seat_rooms(class_code)
    for room in rooms:
        socketio.emit("message", {"text": text}, to=room)
    socketio.emit("message", {"text": text}, to=f"classboard:{class_code}")
    return len(rooms)
