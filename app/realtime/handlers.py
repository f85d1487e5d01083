"""Socket.IO handlers: thin. Each validates the envelope, calls one service method
and hands its `Outcome` to the notifier (app/realtime/notifier.py), which emits
each viewer its payload. A refusal is the ack `{"ok": false, "error": {...}}`
(app/errors.py); a bug or an outage never takes the socket down.

Also here: the guard in front of python-socketio's packet decoding (a malformed
packet is refused, counted and, past MALFORMED_MAX, its connection closed).
"""
from __future__ import annotations

import functools
import logging
import time
from typing import Any

from flask import current_app, request, session
from flask_socketio import join_room, leave_room
from socketio import packet as sio_packet

from app import i18n
from app.edge.netaddr import client_address
from app.edge.outage import is_outage, unavailable
from app.edge.security import has_nul, hash_token, normalize_code
from app.edge.serving import log_address
from app.errors import ServiceError
from app.extensions import services, socketio
from app.realtime.fanout import call_everywhere
from app.realtime.sockets import (FORGET_TABLE, LET_GO, SEAT_TAKEN, Connection, connections, let_go_of_seat,
                                  seat_room)
from app.engines.text import N_

log = logging.getLogger(__name__)


def validate_payload(payload: Any, spec: dict[str, type]) -> dict:
    """Check a Socket.IO payload is an object with the given field types."""
    if not isinstance(payload, dict):
        raise ServiceError("bad_request", N_("The message must be a JSON object."))
    for key, kind in spec.items():
        value = payload.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ServiceError("bad_request", N_("The field {key} is missing or has the wrong type.").format(key=repr(key)))
    return payload


def ok(**data) -> dict:
    return {"ok": True, **data}


def fail(exc: ServiceError, **extra) -> dict:
    return {"ok": False, "error": exc.to_json(), **extra}


TOO_FAST = N_("Too many messages; slow down a little.")
CHANGES = frozenset({"on_join", "on_act", "on_moderate", "on_again"})  # handlers whose change others must see


def handler(fn):
    """Wrap an event: rate limit, turn ServiceErrors into error acks, never crash the socket.
    The wrapped event's `answer(sid, payload)` is the same without Flask-SocketIO's request
    context (see `light`)."""

    @functools.wraps(fn)
    def wrapper(payload=None, *args):
        return _answer(fn, request.sid, payload)

    wrapper.answer = functools.partial(_answer, fn)
    return wrapper


def _answer(fn, sid: str, payload=None):
    answer = _answer_in_english(fn, sid, payload)
    conn = connections.get(sid)
    lang = conn.language if conn is not None else i18n.DEFAULT
    if isinstance(answer, dict) and answer.get("ok") is False and lang != i18n.DEFAULT:
        error = answer.get("error") or {}  # a refusal, in the language its phone reads (app/i18n)
        message = i18n.localize(error.get("message", ""), lang, _game_of(conn))
        answer = dict(answer, error=dict(error, message=message))
    return answer


def _game_of(conn: Connection) -> str | None:
    """The game of the table the connection's seat or page is at (its refusals' catalog)."""
    try:
        code = conn.watching or (services().tables.cached_table(conn.token_hash) if conn.token_hash else None)
        return services().tables.live(code).game if code else None
    except Exception:  # noqa: BLE001 - the seat or table is gone: the platform's texts only
        return None


def _answer_in_english(fn, sid: str, payload=None):
    conn = connections.get(sid)
    if conn is None:  # not (or no longer) connected: nothing to answer for
        return fail(ServiceError("not_joined", N_("Connect first.")))
    app = current_app._get_current_object()  # once: each look-up through the proxy costs as much as the check
    if not conn.allow(app.config["SOCKET_RATE"], app.config["SOCKET_BURST"]):
        return fail(ServiceError("rate_limited", TOO_FAST))
    if has_nul(payload):
        return fail(ServiceError("bad_request", N_("A message cannot contain a NUL character or broken Unicode.")))
    try:
        queue = services(app).queue_health
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
        return fail(ServiceError("bad_request", N_("The server could not handle that message.")))


def light(app, event):
    """A `handler`-wrapped event for python-socketio directly, in an app context only.

    Flask-SocketIO runs every event in a request context built from the connection's
    environ (a Request, a URL adapter and a match of the Socket.IO path, the session)
    and tears it down after. An event that reads none of that, but only its connection
    (`Connection`, by sid), the config and the services, needs the app context alone:
    `act`, every move, is one (LIGHT). python-socketio calls it as (sid, *data) and acks
    with what it returns, as through Flask-SocketIO."""
    answer = event.answer

    def on_event(sid, payload=None, *_args):
        with app.app_context():
            return answer(sid, payload)

    return on_event


# Our pages never send a malformed packet: a connection that sent this many is a hand-made
# client, and is closed. A handful rather than one, so that one odd packet (a browser
# extension, a half-sent frame) does not cost a student their game.
MALFORMED_MAX = 5
MALFORMED = N_("That message is not one the server understands.")


class MalformedPacket(ValueError):
    def __init__(self, namespace: str | None, ack_id: int | None):
        super().__init__("malformed Socket.IO packet")
        self.namespace, self.ack_id = namespace, ack_id


class CheckedPacket(sio_packet.Packet):
    """Socket.IO's packet, refusing at decoding what python-socketio would choke on later
    (an event without a name, a name that is not text, JSON that is not): it raised deep
    inside, logging a traceback per packet and answering nothing."""

    def decode(self, encoded_packet):
        try:
            attachments = super().decode(encoded_packet)
        except Exception:  # noqa: BLE001 - whatever the decoder tripped on, the packet is malformed
            raise MalformedPacket(self.namespace, self.id) from None
        data, kind = self.data, self.packet_type
        well_formed = (
            (kind in (sio_packet.EVENT, sio_packet.BINARY_EVENT) and isinstance(data, list) and bool(data)
             and isinstance(data[0], str))
            or (kind in (sio_packet.ACK, sio_packet.BINARY_ACK) and isinstance(data, list))
            or kind in (sio_packet.CONNECT, sio_packet.DISCONNECT))  # any `auth`: junk connects as nobody
        if not well_formed:
            raise MalformedPacket(self.namespace, self.id)
        return attachments


def guard_packets(app, sio) -> None:
    """Put a refusal in front of python-socketio's packet handling: a malformed packet is
    answered `bad_request` (when it asked for an answer), counted against its connection's
    budget, logged in one line, and its connection is closed after MALFORMED_MAX.
    While a packet is handled, log lines are about its address (serving.AddressLogLimit)."""
    server = sio.server
    server.packet_class = CheckedPacket
    library = server.eio.handlers["message"]  # python-socketio's own packet handler

    def on_message(eio_sid, data):
        address = (server.environ.get(eio_sid) or {}).get("REMOTE_ADDR") or "unknown"
        token = log_address.set(address)
        try:
            return library(eio_sid, data)
        except MalformedPacket as bad:
            _refuse(app, server, eio_sid, bad, address)
        finally:
            log_address.reset(token)

    server.eio.on("message", on_message)
    _close_without_waiting(server.eio)


def _close_without_waiting(eio) -> None:
    """engine.io ends a session whose request it refuses (a packet it does not know, a
    body over the cap; _refuse too) with disconnect(), which waits until a poll carries
    the close packet out. A long-polling client that sends no more polls left that
    request, its green thread and its socket waiting for good. Closing without waiting,
    as engine.io itself does on a ping timeout, lets the request be answered; on a
    WebSocket the writer still sends the close packet."""
    library = eio.disconnect

    def disconnect(sid=None):
        if sid is None:  # every session, at shutdown
            return library()
        socket = eio.sockets.get(sid)
        if socket is not None:
            socket.close(wait=False, reason=eio.reason.SERVER_DISCONNECT)
            eio.sockets.pop(sid, None)

    eio.disconnect = disconnect


def _refuse(app, server, eio_sid: str, bad: MalformedPacket, address: str) -> None:
    sid = server.manager.sid_from_eio_sid(eio_sid, bad.namespace or "/")
    conn = connections.get(sid) if sid else None
    if conn is None:  # not connected to the namespace: there is no one to answer
        if eio_sid not in server.eio.sockets:  # the rest of a flood we already closed
            return
        log.warning("%s: malformed packet before connecting; connection closed", address)
        server.eio.disconnect(eio_sid)
        return
    allowed = conn.allow(app.config["SOCKET_RATE"], app.config["SOCKET_BURST"])  # it costs like any message
    conn.malformed += 1
    log.warning("%s: malformed packet refused (%d of %d)", address, conn.malformed, MALFORMED_MAX)
    if bad.ack_id is not None:
        refusal = ServiceError("bad_request", MALFORMED) if allowed else ServiceError("rate_limited", TOO_FAST)
        reply = CheckedPacket(sio_packet.ACK, namespace=bad.namespace, id=bad.ack_id, data=[fail(refusal)])
        server.eio.send(eio_sid, reply.encode())
    if conn.malformed >= MALFORMED_MAX:
        log.warning("%s: %d malformed packets; connection closed", address, conn.malformed)
        server.eio.disconnect(eio_sid)


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
    accounts = services().accounts
    try:
        fac = accounts.by_token(auth.get("token")) if isinstance(auth, dict) and not has_nul(auth) else None
        if fac is None:  # the login cookie, unless its teacher has logged out since
            fac = accounts.from_session(session)
    except Exception as exc:
        if not is_outage(exc):
            raise
        # The client gets this as a connect error and tries again, as after any drop.
        raise ConnectionRefusedError(unavailable(exc).to_json())
    conn = connections.setdefault(request.sid, Connection(sid=request.sid))
    conn.facilitator_id = fac.id if fac else None
    # The language its page speaks (the page says; else the student's pick, the browser's).
    conn.language = i18n.from_request(request, stated=auth.get("lang") if isinstance(auth, dict) else None)
    services().notifier.scheduler.start()
    services().presence.start()


def on_disconnect(*_args):
    if not _really("disconnect"):
        return
    conn = connections.pop(request.sid, None)
    if conn and conn.token_hash:
        tables, notifier = services().tables, services().notifier
        services().presence.disconnect(conn.token_hash)
        try:
            notifier.table_changed(tables.seat_ref(conn.token_hash).table)
        except ServiceError:
            pass  # the seat was removed meanwhile
        except Exception as exc:
            if not is_outage(exc):  # the database is down: others see the seat connected a little longer
                raise


def _bind_seat(conn: Connection, token_hash: str) -> None:
    presence = services().presence
    if conn.token_hash:
        leave_room(seat_room(conn.token_hash))
        presence.disconnect(conn.token_hash)
    conn.token_hash, conn.let_go, conn.bound_at = token_hash, None, time.time()
    # The seat's views are built in its phone's language, in every process (Seat.language):
    # a language change bumps no version, so the other processes drop their live copy.
    changed = services().tables.set_language(token_hash, conn.language)
    if changed:
        call_everywhere(socketio, FORGET_TABLE, services().tables.forget, changed)
    join_room(seat_room(token_hash))
    presence.connect(token_hash)
    # A seat token is control of the seat, for one page at a time: the seat's older
    # connections, here and in the other processes, let go of it.
    call_everywhere(socketio, SEAT_TAKEN, functools.partial(let_go_of_seat, presence),
                    token_hash, request.sid, conn.bound_at, "tab")


def _send_seat_view(conn: Connection) -> int:
    tables = services().tables
    ref = tables.seat_ref(conn.token_hash)
    payload = tables.view_for(ref.table, ref.seat)
    socketio.emit("view", payload, to=conn.sid)
    return payload["version"]


@handler
def on_join(conn: Connection, payload):
    validate_payload(payload, {"code": str, "name": str})
    guard, address = services().guard, client_address()
    code = normalize_code(payload["code"])
    if code is None:
        raise ServiceError("unknown_table", N_("A code has 6 letters and digits, like the one on the board."))
    guard.check_seat(address)
    classes, notifier = services().classes, services().notifier
    seated = guard.counting(address, lambda: classes.join_any(code, payload["name"]))
    guard.seated(address)
    _bind_seat(conn, hash_token(seated["token"]))
    notifier.table_changed(seated["table"])
    return ok(seat=seated["seat"], token=seated["token"], table=seated["table"])


@handler
def on_resume(conn: Connection, payload):
    validate_payload(payload, {"token": str})
    tables, notifier = services().tables, services().notifier
    ref = tables.resume(payload["token"])
    _bind_seat(conn, ref.token_hash)
    for outcome in services().demos.wake(ref.table):  # a game paused for want of players
        notifier.publish(outcome)
    _send_seat_view(conn)
    notifier.table_changed(ref.table)  # everyone sees the seat is connected again
    return ok(seat=ref.seat, table=ref.table, name=ref.name)


@handler
def on_watch(conn: Connection, payload):
    validate_payload(payload, {"code": str})
    tables, classes = services().tables, services().classes
    code, kind = services().guard.look_up(
        client_address(), payload["code"],
        lambda c: "class" if classes.find(c) else "table" if tables.find(c) else None,
        facilitator=conn.facilitator_id is not None)
    if kind is None:
        raise ServiceError("unknown_table", N_("There is no table with that code."))
    role = payload.get("role", "board")
    if role not in ("board", "facilitator"):
        raise ServiceError("bad_request", N_("role is 'board' or 'facilitator'."))
    if kind == "class":  # a class code: the class overview
        return _watch_class(conn, code, role)
    if role == "facilitator":  # whose table it is, before anything of it is loaded or sent
        tables.owned(code, _facilitator_of(conn))
    if conn.watching:
        leave_room(f"{'fac' if conn.watching_as == 'facilitator' else 'board'}:{conn.watching}")
    conn.watching, conn.watching_as = code, role
    join_room(f"{'fac' if role == 'facilitator' else 'board'}:{code}")
    payload = tables.view_for(code, role)
    socketio.emit("view", payload, to=request.sid)
    return ok(table=code, version=payload["version"])


def _facilitator_of(conn: Connection) -> int:
    """The facilitator this connection speaks for, or `forbidden`. The handlers then ask
    the service whether the table or class is theirs (`owned`) before they load or send
    anything of it: a refusal must not carry the facilitator's view."""
    if conn.facilitator_id is None:
        raise ServiceError("forbidden", N_("This needs a facilitator login."))
    return conn.facilitator_id


def _watch_class(conn: Connection, code: str, role: str):
    classes = services().classes
    klass = classes.find(code)
    if role == "facilitator":
        classes.owned(code, _facilitator_of(conn))
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
        raise ServiceError("not_joined", LET_GO[conn.let_go] if conn.let_go else
                           N_("Join the table (or resume your seat) before playing."))
    parts = services()
    tables, notifier = parts.tables, parts.notifier
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
    facilitator_id = _facilitator_of(conn)
    code = normalize_code(payload["code"])
    if code is None:
        raise ServiceError("unknown_table", N_("There is no table with that code."))
    tables, notifier = services().tables, services().notifier
    # Whose table it is, first: a stale answer below carries the facilitator view, and a
    # refusal of anything else (a bad scope, a wrong version) would say the table exists.
    tables.owned(code, facilitator_id)
    try:
        outcome = tables.moderate(facilitator_id, code, payload["version"], payload["action"],
                                  scope=payload.get("scope", "table"))
    except ServiceError as exc:
        if exc.code == "stale":
            fresh = tables.view_for(code, "facilitator")
            socketio.emit("view", fresh, to=request.sid)
            return fail(exc, version=fresh["version"])
        raise
    notifier.publish(outcome)
    return ok(version=outcome.version)


AGAIN_SEATS_MAX = 8  # a shared device's other seats (a hotseat table has at most 4)


@handler
def on_again(conn: Connection, payload):
    """Play again, from a phone at a table whose game has ended: this player is ready;
    the last player to agree deals the rematch (app/service/tables/rematch.py), whose
    start reaches every phone through its seat's room. A shared (hotseat) device sends
    the tokens of the other seats it holds at that table in `seats`: one tap, every one
    of its players ready (the seats' tokens move to the new table as phones' do)."""
    validate_payload(payload, {})
    others = payload.get("seats", [])
    if not isinstance(others, list) or len(others) > AGAIN_SEATS_MAX \
            or not all(isinstance(x, str) and 0 < len(x) <= 100 and not has_nul(x) for x in others):
        raise ServiceError("bad_request", N_("The field 'seats' lists the other seats' tokens."))
    if conn.token_hash is None:
        raise ServiceError("not_joined", LET_GO[conn.let_go] if conn.let_go else
                           N_("Join the table (or resume your seat) first."))
    tables, notifier, address = services().tables, services().notifier, client_address()
    # At a table without a teacher, a rematch is a table opened without an account.
    outcome = tables.again(conn.token_hash, admit=lambda: services().demos.admit_again(address),
                           also=tuple(hash_token(x) for x in others))
    notifier.publish(outcome)
    return ok(version=outcome.version, table=outcome.follow[0].code if outcome.follow else None)


@handler
def on_note(conn: Connection, payload):
    """A playtest note; its author's role is the connection's (a seat, the table's
    teacher, its board), never read from the name it carries."""
    validate_payload(payload, {"text": str})
    tables = services().tables
    if conn.token_hash is not None:
        ref = tables.seat_ref(conn.token_hash)
        code, role, author, seat = ref.table, "seat", ref.name, ref.seat
    elif conn.watching is not None and conn.watching_as == "facilitator":
        code, role, seat = conn.watching, "teacher", None
        author = f"Facilitator {services().accounts.get(conn.facilitator_id).name}"
    elif conn.watching is not None:
        code, role, author, seat = conn.watching, "board", "Board", None
    else:
        raise ServiceError("not_joined", N_("Join a table before writing a playtest note."))
    note = tables.add_note(code, payload["text"], role=role, author=author, seat=seat)
    socketio.emit("note", {"ref": f"n{note.id}", "author": note.author, "role": note.role, "text": note.text,
                           "version": note.version, "audience": note.audience, "approved": note.approved},
                  to=f"fac:{code}")
    return ok(version=note.version)


@handler
def on_notes(conn: Connection, payload):
    """The table's playtest notes this connection may read (a game's Table tab lists
    them): a teacher-only note reaches the table's teacher alone."""
    validate_payload(payload, {})
    tables = services().tables
    if conn.token_hash is not None:
        ref = tables.seat_ref(conn.token_hash)
        code, reader = ref.table, ref.seat
    elif conn.watching is not None:
        code, reader = conn.watching, "teacher" if conn.watching_as == "facilitator" else "board"
    else:
        raise ServiceError("not_joined", N_("Join or watch a table to read its playtest notes."))
    notes = [{"ref": f"n{n.id}", "author": n.author, "role": n.role, "text": n.text, "version": n.version,
              "hidden": n.hidden, "approved": n.approved} for n in tables.notes_for(code, reader)]
    return ok(notes=tables.redact_names(code, "facilitator" if reader == "teacher" else reader, notes))


# Events that read no request or session (see `light`): the hot one, every move.
LIGHT = frozenset({"act"})
HANDLERS = {"connect": on_connect, "disconnect": on_disconnect, "join": on_join, "resume": on_resume,
            "watch": on_watch, "act": on_act, "moderate": on_moderate, "again": on_again, "note": on_note,
            "notes": on_notes}
