"""Socket.IO: thin handlers, the notifier that emits outcomes, and the timer loop.

Handlers validate the envelope, call one service method and hand its
`Outcome` to the `Notifier`, which emits each viewer its payload. Rooms:
`board:<CODE>` (public view), `fac:<CODE>` (facilitator view), one room per
seat (`seat_room(token_hash)`: a phone may have two tabs, and a seat moved to
another table keeps its token), `class:<CODE>` and `classboard:<CODE>`.
With a message queue the emits reach every process's sockets, and which seats
are connected is counted across the processes (app/presence.py).

The `Scheduler` fires the tables' timers (computer moves, auto-play,
deadlines) in this process: those its own changes set, and, by polling the
database, any other process's or those left from before a restart. Its poll also
runs the app's housekeeping chores (`app.extensions["housekeeping"]`: callables
that each decide how often they really work, e.g. deleting day-old guided demos
and removing expired student names).
"""
from __future__ import annotations

import functools
import heapq
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from flask import current_app, request, session
from flask_socketio import join_room, leave_room

from app.extensions import socketio
from app.netaddr import client_address
from app.presence import make_presence, refresher as presence_refresher
from app.fanout import call_everywhere, emit_many, register_call
from app.outage import is_outage, unavailable
from app.security import has_nul, hash_token, normalize_code
from app.tables import Outcome, ServiceError
from app.wire import Encoded

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5  # how often the timer loop looks for timers another process set
BROKEN_RETRY = 30.0  # a table whose timer raised is tried again this much later (not twice a second)


def seat_room(token_hash: str) -> str:
    return "seat:" + token_hash[:32]


def room_of(viewer_key, code: str) -> str:
    if viewer_key == "board":
        return f"board:{code}"
    if viewer_key == "facilitator":
        return f"fac:{code}"
    return seat_room(viewer_key[1])


def validate_payload(payload: Any, spec: dict[str, type]) -> dict:
    """Check a Socket.IO payload is an object with the given field types."""
    if not isinstance(payload, dict):
        raise ServiceError("bad_request", "The message must be a JSON object.")
    for key, kind in spec.items():
        value = payload.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ServiceError("bad_request", f"The field {key!r} is missing or has the wrong type.")
    return payload


# ------------------------------------------------------------------ notifier
class Notifier:
    """Emits what the services produced. The HTTP API uses it too, so the API
    never imports Socket.IO code."""

    def __init__(self, app, tables, classes):
        self.app = app
        self.tables = tables
        self.classes = classes
        self.scheduler = Scheduler(app, tables, self)
        self._class_lock = threading.Lock()
        self._class_pushed_at: dict[str, float] = {}
        self._class_waiting: set[str] = set()

    def publish(self, outcome: Outcome | None) -> None:
        if outcome is None:
            return
        emit_many(socketio, [("view", Encoded.of(payload), room_of(viewer_key, outcome.code))
                             for viewer_key, payload in outcome.views])
        for token_hash in outcome.removed:
            socketio.emit("removed", {"message": "Your teacher removed you from this table."},
                          to=seat_room(token_hash))
        if outcome.class_code:
            self.push_class(outcome.class_code)
        self.scheduler.add(outcome.code, outcome.next_due)

    def deleted(self, deleted) -> None:
        """A table or class was deleted (app/privacy.py `Deleted`): every phone, board and
        facilitator page still open on it is told, and stops asking."""
        from app.privacy import CLASS_DELETED_MESSAGE, DELETED_MESSAGE

        message = CLASS_DELETED_MESSAGE if deleted.class_code else DELETED_MESSAGE
        for token_hash in deleted.token_hashes:  # the phone forgets its seat, as when removed
            socketio.emit("removed", {"message": message, "deleted": True}, to=seat_room(token_hash))
        rooms = [f"{kind}:{code}" for code in deleted.codes for kind in ("board", "fac")]
        if deleted.class_code:
            rooms += [f"class:{deleted.class_code}", f"classboard:{deleted.class_code}"]
        for room in rooms:
            socketio.emit("deleted", {"message": message}, to=room)

    def credentials_ended(self, facilitator_id: int) -> None:
        """A teacher logged out or revoked a token: end every socket that speaks for
        them, in every process. Their pages reconnect and are authenticated afresh,
        so a copied cookie's socket loses the teacher's views at once."""
        call_everywhere(socketio, "end-facilitator-sockets", end_facilitator_sockets, facilitator_id)

    def resync(self) -> None:
        """Send every socket of this process a fresh view (after a message-queue outage,
        views other processes published meanwhile were lost)."""
        with self.app.app_context():
            for sid, conn in list(connections.items()):
                try:
                    if conn.token_hash:
                        ref = self.tables.seat_ref(conn.token_hash)
                        socketio.emit("view", self.tables.view_for(ref.table, ref.seat), to=sid)
                    elif conn.watching and not self.classes.find(conn.watching):
                        socketio.emit("view", self.tables.view_for(conn.watching, conn.watching_as), to=sid)
                except Exception:  # noqa: BLE001 - one seat's trouble must not stop the others'
                    log.warning("resync of %s failed", sid, exc_info=True)

    def table_changed(self, code: str) -> None:
        """A change made outside the live path (a join, a connection): refresh its viewers."""
        self.publish(self.tables.refresh(code))

    def class_changed(self, class_code: str, result: dict) -> None:
        """After a class-level change: publish its outcomes, refresh the other tables it
        touched (a moved student's phone gets its new table's view) and push the overview."""
        published = set()
        for outcome in result.get("outcomes", []):
            self.publish(outcome)
            published.add(outcome.code)
        for code in dict.fromkeys(result.get("changed", [])):
            if code not in published:
                self.table_changed(code)
        self.push_class(class_code)

    def message(self, class_code: str, text: str) -> int:
        """The facilitator's short message to every phone of the class and its board."""
        seats = self.classes.student_seats(class_code)
        for token_hash in seats:
            socketio.emit("message", {"text": text}, to=seat_room(token_hash))
        socketio.emit("message", {"text": text}, to=f"classboard:{class_code}")
        return len(seats)

    def push_class(self, class_code: str) -> None:
        """Push the class overview and board at most once per CLASS_PUSH_INTERVAL (1 s):
        a class of busy tables changes many times a second and the overview reads
        every table. A change inside the interval is sent at its end."""
        interval = self.app.config.get("CLASS_PUSH_INTERVAL", 1.0)
        with self._class_lock:
            if class_code in self._class_waiting:
                return
            wait = self._class_pushed_at.get(class_code, float("-inf")) + interval - time.monotonic()
            if wait > 0:
                self._class_waiting.add(class_code)
            else:
                self._class_pushed_at[class_code] = time.monotonic()
        if wait > 0:
            socketio.start_background_task(self._push_class_later, class_code, wait)
        else:
            self._push_class(class_code)

    def _push_class(self, class_code: str) -> None:
        socketio.emit("overview", self.classes.overview(class_code), to=f"class:{class_code}")
        socketio.emit("class_view", self.classes.public_overview(class_code), to=f"classboard:{class_code}")

    def _push_class_later(self, class_code: str, wait: float) -> None:
        socketio.sleep(wait)
        with self.app.app_context():
            with self._class_lock:
                self._class_waiting.discard(class_code)
                self._class_pushed_at[class_code] = time.monotonic()
            try:
                self._push_class(class_code)
            except Exception:
                log.exception("class overview push for %s failed", class_code)


class Scheduler:
    """Fires due timers. Timers live in the table rows; this keeps a heap of the ones
    this process set and polls the database for the rest."""

    def __init__(self, app, tables, notifier: Notifier):
        self.app, self.tables, self.notifier = app, tables, notifier
        self._heap: list[tuple[float, str]] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._running = False
        self._stopped = False
        self._broken: dict[str, float] = {}  # table code -> when to try its failing timer again

    def add(self, code: str, due: float | None) -> None:
        if due is None or self._stopped:
            return
        with self._lock:
            heapq.heappush(self._heap, (due, code))
        self.start()
        self._wake.set()

    def start(self) -> None:
        with self._lock:
            if self._running or self._stopped:
                return
            self._running = True
        socketio.start_background_task(self._run)

    def stop(self) -> None:
        self._stopped = True
        self._wake.set()

    def _run(self) -> None:
        next_poll = 0.0
        with self.app.app_context():
            while not self._stopped:
                try:
                    now = time.time()
                    codes = {}  # table code -> whether only the database knows it is due
                    with self._lock:
                        while self._heap and self._heap[0][0] <= now:
                            codes[heapq.heappop(self._heap)[1]] = False
                    if now >= next_poll:
                        next_poll = now + POLL_SECONDS
                        for code, _due in self.tables.due_tables(now):
                            codes.setdefault(code, True)
                        # Day-old guided demos (app/demo.py), expired student names (app/privacy.py)...
                        for chore in self.app.extensions.get("housekeeping", ()):
                            try:
                                chore()
                            except Exception:  # noqa: BLE001 - one failing chore must not stop the timers
                                log.exception("housekeeping %s failed", getattr(chore, "__qualname__", chore))
                            socketio.sleep(0)
                    for code, from_db in codes.items():
                        # One move per table per round, then let the sockets run: the
                        # database calls do not yield, and a long burst of moves would
                        # starve pings and other tables. A table owing more comes back.
                        if self._broken.get(code, 0) > now:
                            continue
                        try:
                            for outcome in self.tables.fire_due(code, now=now, check_db=from_db, limit=1):
                                self.notifier.publish(outcome)
                                with self._lock:
                                    heapq.heappush(self._heap, (now, code))
                        except Exception:  # one broken table (a game's bug) must not stall every table's timers
                            self._broken[code] = now + BROKEN_RETRY
                            log.exception("timer of table %s failed; the other tables go on", code)
                        socketio.sleep(0)
                    with self._lock:
                        wait = min([next_poll] + [self._heap[0][0]] if self._heap else [next_poll]) - time.time()
                    self._wake.clear()
                    if wait > 0:
                        self._wake.wait(min(wait, POLL_SECONDS))
                except Exception as exc:
                    if self._stopped:
                        return
                    if is_outage(exc):  # the database is down: try again, without a traceback a poll
                        log.warning("timer loop: service unavailable (%s); retrying", str(exc).splitlines()[0][:200])
                    else:
                        log.exception("timer loop failed; going on")
                    socketio.sleep(POLL_SECONDS)


# ---------------------------------------------------------------- handlers
@dataclass
class Connection:
    """What one socket connection speaks for."""

    facilitator_id: int | None = None
    token_hash: str | None = None        # the seat it joined or resumed
    watching: str | None = None          # table code, as board or facilitator
    watching_as: str | None = None
    tokens: float = 30.0
    stamp: float = field(default_factory=time.monotonic)

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
    ext = current_app.extensions
    return ext["tables"], ext["classes"], ext["notifier"]


def ok(**data) -> dict:
    return {"ok": True, **data}


def fail(exc: ServiceError, **extra) -> dict:
    return {"ok": False, "error": exc.to_json(), **extra}


CHANGES = frozenset({"on_join", "on_act", "on_moderate"})  # handlers whose change others must see


def handler(fn):
    """Wrap an event: rate limit, turn ServiceErrors into error acks, never crash the socket."""

    @functools.wraps(fn)
    def wrapper(payload=None, *args):
        conn = connections.get(request.sid)
        if conn is None:  # not (or no longer) connected: nothing to answer for
            return fail(ServiceError("not_joined", "Connect first."))
        if not conn.allow(current_app.config["SOCKET_RATE"], current_app.config["SOCKET_BURST"]):
            return fail(ServiceError("rate_limited", "Too many messages; slow down a little."))
        if has_nul(payload):
            return fail(ServiceError("bad_request", "A message cannot contain a NUL character or broken Unicode."))
        try:
            queue = current_app.extensions.get("queue_health")
            if queue is not None and fn.__name__ in CHANGES:  # a move others could not see: refuse it
                queue.check()
            return fn(conn, payload)
        except ServiceError as exc:
            return fail(exc)
        except Exception as exc:  # a bug must not take the socket down; it is logged for us to fix
            if is_outage(exc):  # the database (or queue) is down: say so; nothing was acknowledged
                log.warning("%s: service unavailable (%s)", fn.__name__, str(exc).splitlines()[0][:200])
                return fail(unavailable(exc))
            log.exception("unhandled error in %s", fn.__name__)
            return fail(ServiceError("bad_request", "The server could not handle that message."))

    return wrapper


def _really(event: str) -> bool:
    """`connect` and `disconnect` are reserved: a client sending an ordinary event by
    that name must not run their handlers (it would reset its rate limit)."""
    connected = socketio.server.manager.is_connected(request.sid, "/")
    if event == "disconnect":
        return not connected
    return request.sid not in connections


def on_connect(auth=None):
    if not _really("connect"):
        return
    accounts = current_app.extensions["accounts"]
    try:
        fac = accounts.by_token(auth.get("token")) if isinstance(auth, dict) and not has_nul(auth) else None
        if fac is None:  # the login cookie, unless its teacher has logged out since
            fac = accounts.from_session(session)
    except Exception as exc:
        if not is_outage(exc):
            raise
        # The client gets this as a connect error and tries again, as after any drop.
        raise ConnectionRefusedError(unavailable(exc).to_json())
    conn = connections.setdefault(request.sid, Connection())
    conn.facilitator_id = fac.id if fac else None
    services()[2].scheduler.start()
    current_app.extensions["presence"].start()


def end_facilitator_sockets(facilitator_id) -> None:
    """Disconnect this process's sockets that speak for this facilitator."""
    for sid, conn in list(connections.items()):
        if conn.facilitator_id == facilitator_id:
            socketio.server.disconnect(sid, ignore_queue=True)


def on_disconnect(*_args):
    if not _really("disconnect"):
        return
    conn = connections.pop(request.sid, None)
    if conn and conn.token_hash:
        tables, _classes, notifier = services()
        current_app.extensions["presence"].disconnect(conn.token_hash)
        try:
            notifier.table_changed(tables.seat_ref(conn.token_hash).table)
        except ServiceError:
            pass  # the seat was removed meanwhile
        except Exception as exc:
            if not is_outage(exc):  # the database is down: others see the seat connected a little longer
                raise


def _bind_seat(conn: Connection, token_hash: str) -> None:
    presence = current_app.extensions["presence"]
    if conn.token_hash:
        leave_room(seat_room(conn.token_hash))
        presence.disconnect(conn.token_hash)
    conn.token_hash = token_hash
    join_room(seat_room(token_hash))
    presence.connect(token_hash)


def _send_seat_view(conn: Connection) -> int:
    tables, _classes, _notifier = services()
    ref = tables.seat_ref(conn.token_hash)
    payload = tables.view_for(ref.table, ref.seat)
    socketio.emit("view", payload, to=request.sid)
    return payload["version"]


@handler
def on_join(conn: Connection, payload):
    validate_payload(payload, {"code": str, "name": str})
    guard, address = current_app.extensions["guard"], client_address()
    code = normalize_code(payload["code"])
    if code is None:
        raise ServiceError("unknown_table", "A code has 6 letters and digits, like the one on the board.")
    guard.check_seat(address)
    tables, classes, notifier = services()
    seated = guard.counting(address, lambda: classes.join_any(code, payload["name"]))
    guard.seated(address)
    _bind_seat(conn, hash_token(seated["token"]))
    notifier.table_changed(seated["table"])
    return ok(seat=seated["seat"], token=seated["token"], table=seated["table"])


@handler
def on_resume(conn: Connection, payload):
    validate_payload(payload, {"token": str})
    tables, _classes, notifier = services()
    ref = tables.resume(payload["token"])
    _bind_seat(conn, ref.token_hash)
    _send_seat_view(conn)
    notifier.table_changed(ref.table)  # everyone sees the seat is connected again
    return ok(seat=ref.seat, table=ref.table, name=ref.name)


@handler
def on_watch(conn: Connection, payload):
    validate_payload(payload, {"code": str})
    tables, classes, _notifier = services()
    code, kind = current_app.extensions["guard"].look_up(
        client_address(), payload["code"],
        lambda c: "class" if classes.find(c) else "table" if tables.find(c) else None,
        facilitator=conn.facilitator_id is not None)
    if kind is None:
        raise ServiceError("unknown_table", "There is no table with that code.")
    role = payload.get("role", "board")
    if role not in ("board", "facilitator"):
        raise ServiceError("bad_request", "role is 'board' or 'facilitator'.")
    if kind == "class":  # a class code: the class overview
        return _watch_class(conn, code, role)
    table = tables.get(code)
    if role == "facilitator" and (table.facilitator_id is None or table.facilitator_id != conn.facilitator_id):
        raise ServiceError("forbidden", "Only the table's facilitator can watch it as facilitator.")
    if conn.watching:
        leave_room(f"{'fac' if conn.watching_as == 'facilitator' else 'board'}:{conn.watching}")
    conn.watching, conn.watching_as = code, role
    join_room(f"{'fac' if role == 'facilitator' else 'board'}:{code}")
    payload = tables.view_for(code, role)
    socketio.emit("view", payload, to=request.sid)
    return ok(table=code, version=payload["version"])


def _watch_class(conn: Connection, code: str, role: str):
    _tables, classes, _notifier = services()
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
    if conn.token_hash is None:
        raise ServiceError("not_joined", "Join the table (or resume your seat) before playing.")
    tables, _classes, notifier = services()
    try:
        outcome = tables.act_as(conn.token_hash, payload["version"], payload["action"])
    except ServiceError as exc:
        if exc.code == "stale":
            return fail(exc, version=_send_seat_view(conn))
        raise
    notifier.publish(outcome)
    return ok(version=outcome.version)


@handler
def on_moderate(conn: Connection, payload):
    validate_payload(payload, {"code": str, "version": int, "action": dict})
    if conn.facilitator_id is None:
        raise ServiceError("forbidden", "Moderation needs a facilitator login.")
    code = normalize_code(payload["code"])
    if code is None:
        raise ServiceError("unknown_table", "There is no table with that code.")
    scope = payload.get("scope", "table")
    tables, _classes, notifier = services()
    try:
        outcome = tables.moderate(conn.facilitator_id, code, payload["version"], payload["action"], scope=scope)
    except ServiceError as exc:
        if exc.code == "stale":
            fresh = tables.view_for(code, "facilitator")
            socketio.emit("view", fresh, to=request.sid)
            return fail(exc, version=fresh["version"])
        raise
    notifier.publish(outcome)
    return ok(version=outcome.version)


@handler
def on_note(conn: Connection, payload):
    validate_payload(payload, {"text": str})
    tables, _classes, _notifier = services()
    if conn.token_hash is not None:
        ref = tables.seat_ref(conn.token_hash)
        note = tables.add_note(ref.table, ref.name, payload["text"])
        code = ref.table
    elif conn.facilitator_id is not None and conn.watching_as == "facilitator":
        fac = current_app.extensions["accounts"].get(conn.facilitator_id)
        note = tables.add_note(conn.watching, f"Facilitator {fac.name}", payload["text"])
        code = conn.watching
    else:
        raise ServiceError("not_joined", "Join a table before writing a playtest note.")
    socketio.emit("note", {"author": note.author, "text": note.text, "version": note.version},
                  to=f"fac:{code}")
    return ok(version=note.version)


@handler
def on_notes(conn: Connection, payload):
    """The table's playtest notes, for its players (a game's Table tab) and its watchers."""
    validate_payload(payload, {})
    tables, _classes, _notifier = services()
    if conn.token_hash is not None:
        code = tables.seat_ref(conn.token_hash).table
    elif conn.watching is not None:
        code = conn.watching
    else:
        raise ServiceError("not_joined", "Join or watch a table to read its playtest notes.")
    return ok(notes=[{"author": n.author, "text": n.text, "version": n.version} for n in tables.notes(code)])


HANDLERS = {"connect": on_connect, "disconnect": on_disconnect, "join": on_join, "resume": on_resume,
            "watch": on_watch, "act": on_act, "moderate": on_moderate, "note": on_note, "notes": on_notes}


def register(app, sio) -> None:
    """Bind the handlers to the server init_app() just created (one per app), and
    give the app its presence and notifier."""
    presence = make_presence(app.config, spawn=sio.start_background_task, sleep=sio.sleep)
    presence.on_change = presence_refresher(app)  # other processes' phones came or went
    tables, classes = app.extensions["tables"], app.extensions["classes"]
    tables.connected = presence.connected
    app.extensions["presence"] = presence
    app.extensions["notifier"] = Notifier(app, tables, classes)
    app.extensions["accounts"].on_credentials_ended.append(app.extensions["notifier"].credentials_ended)
    register_call(sio, "end-facilitator-sockets", end_facilitator_sockets)
    if app.extensions.get("queue_health") is not None:  # after a queue outage, views were lost: resend
        app.extensions["queue_health"].on_back = app.extensions["notifier"].resync
    for event, fn in HANDLERS.items():
        sio.on(event)(fn)
