"""Real time: Socket.IO handlers, the notifier, the timer loop, presence and fan-out.

    handlers.py   the Socket.IO events (join, resume, watch, act, moderate, note, notes): thin
    sockets.py    which connection speaks for which seat, and the rooms views go to
    notifier.py   emits a service's `Outcome` to every screen concerned
    scheduler.py  the timer loop: computer moves, deadlines, housekeeping
    presence.py   which seats are connected, across the processes
    fanout.py     one publish per change through the message queue (scaled set-up)

With a message queue the emits reach every process's sockets, and which seats are
connected is counted across the processes (presence.py). `register` is what
create_app() calls once the Socket.IO server exists.
"""
from __future__ import annotations

import functools

from flask.sessions import SecureCookieSessionInterface

from app.extensions import services
from app.realtime.fanout import heard, register_call
from app.realtime.handlers import HANDLERS, LIGHT, guard_packets, light
from app.realtime.notifier import Notifier
from app.realtime.presence import make_presence, refresher as presence_refresher
from app.realtime.sockets import FORGET_TABLE, SEAT_TAKEN, end_facilitator_sockets, let_go_of_seat, room_of


def register(app, sio) -> None:
    """Bind the handlers to the server init_app() just created (one per app), and
    give the app its presence and notifier."""
    parts = services(app)
    presence = make_presence(app.config, spawn=sio.start_background_task, sleep=sio.sleep)
    presence.on_change = presence_refresher(app)  # other processes' phones came or went
    parts.tables.connected = presence.connected
    # A table's board and teacher's views are built only while a socket can receive them.
    parts.tables.watched = lambda code, viewer: heard(sio, room_of(viewer, code))
    parts.presence = presence
    parts.notifier = Notifier(app, parts.tables, parts.classes)
    parts.demos.publish = parts.notifier.publish  # demos its clean-up ended
    parts.accounts.on_credentials_ended.append(parts.notifier.credentials_ended)
    register_call(sio, "end-facilitator-sockets", end_facilitator_sockets)
    register_call(sio, SEAT_TAKEN, functools.partial(let_go_of_seat, presence))
    register_call(sio, FORGET_TABLE, parts.tables.forget)
    if parts.queue_health is not None:  # after a queue outage, views were lost: resend
        parts.queue_health.on_back = parts.notifier.resync
    for event, fn in HANDLERS.items():
        if event in LIGHT:  # no request context (handlers.light)
            sio.server.on(event, light(app, fn), namespace="/")
        else:
            sio.on(event)(fn)
    guard_packets(app, sio)
    if type(app.session_interface) is SecureCookieSessionInterface:
        app.session_interface = SocketEventSessions()


class SocketEventSessions(SecureCookieSessionInterface):
    """Flask's cookie sessions, except that a Socket.IO event after the connect does not
    open the cookie again. Flask-SocketIO runs each event in a request context built
    from the connection's environ, whose push verifies and decodes the session cookie
    (an HMAC and a JSON load: students carry the cookie of the home page's CSRF token),
    then replaces that session at once with the copy it saved at the connect
    (`environ["saved_session"]`, manage_session). Handing that copy back here is the
    same session without the work: about 0.1 ms of every `act`."""

    def open_session(self, app, request):
        saved = request.environ.get("saved_session")
        if saved is not None:
            return saved
        return super().open_session(app, request)
