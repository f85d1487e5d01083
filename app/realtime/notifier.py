"""The notifier: emits what the services produced to every screen concerned.

A service hands back an `Outcome` (the new version and each viewer's payload) and
knows no sockets; `Notifier.publish` emits each viewer its own payload, encoded
once (app/wire.py), to the rooms of app/realtime/sockets.py, pushes the class
overview, and hands the table's next timer to the scheduler. The HTTP routes use
the notifier too, so they never import Socket.IO code.
"""
from __future__ import annotations

import functools
import logging
import threading
import time

from app.extensions import services, socketio
from app.realtime.fanout import call_everywhere, emit_many
from app.realtime.scheduler import Scheduler
from app.realtime.sockets import SEAT_TAKEN, connections, end_facilitator_sockets, let_go_of_seat, room_of, seat_room
from app.service.tables import Outcome
from app.wire import Encoded

log = logging.getLogger(__name__)


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
        self._stopped = False

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
        for other in outcome.follow:  # another table the change made (a rematch's new table)
            self.publish(other)

    def deleted(self, deleted) -> None:
        """A table or class was deleted (app/service/privacy.py `Deleted`): every phone, board and
        facilitator page still open on it is told, and stops asking."""
        from app.service.privacy import CLASS_DELETED_MESSAGE, DELETED_MESSAGE

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

    def link_replaced(self, token_hash: str) -> None:
        """A seat's token was replaced (an online match's new private link): the connections
        holding the old one, in every process, lose the seat and are told."""
        presence = services(self.app).presence
        call_everywhere(socketio, SEAT_TAKEN, functools.partial(let_go_of_seat, presence),
                        token_hash, None, None, "link")

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
        """The facilitator's short message to every phone of the class and its board. Returns
        how many phones it reached: the seats with a live connection (in any process,
        app/realtime/presence.py), not every seat, so the teacher learns who missed it."""
        seats = self.classes.student_seats(class_code)
        for token_hash in seats:  # every seat's room: a phone connecting this instant gets it too
            socketio.emit("message", {"text": text}, to=seat_room(token_hash))
        socketio.emit("message", {"text": text}, to=f"classboard:{class_code}")
        presence = services(self.app).presence
        return sum(presence.connected(token_hash) for token_hash in seats)

    def push_class(self, class_code: str) -> None:
        """Push the class overview and board at most once per CLASS_PUSH_INTERVAL (1 s):
        a class of busy tables changes many times a second, and each push builds the
        overview of every table (from the live copies, app/service/classes/overview.py). A change inside the interval is sent at its end."""
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

    def stop(self) -> None:
        """Stop the timer loop and drop the class pushes still waiting: the app is going
        away (a test's, whose database goes next), and nothing it started may run on."""
        self.scheduler.stop()
        with self._class_lock:
            self._stopped = True

    def _push_class_later(self, class_code: str, wait: float) -> None:
        socketio.sleep(wait)
        with self.app.app_context():
            with self._class_lock:
                if self._stopped:
                    return
                self._class_waiting.discard(class_code)
                self._class_pushed_at[class_code] = time.monotonic()
            try:
                self._push_class(class_code)
            except Exception:
                log.exception("class overview push for %s failed", class_code)
