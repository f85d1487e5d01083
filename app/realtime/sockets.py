"""Which socket speaks for what, and the rooms views are sent to.

`connections` maps this process's Socket.IO sids to their `Connection` (the
facilitator it speaks for, the seat it bound, the table it watches). Rooms:
`board:<CODE>` (public view), `fac:<CODE>` (facilitator view), one room per
seat (`seat_room(token_hash)`: a seat moved to another table keeps its token),
`class:<CODE>` and `classboard:<CODE>`. A seat is played from one connection at a
time: the newest to `join` or `resume` it; the older ones (another tab, another
device), in whichever process, leave the room and are told (`replaced`,
`let_go_of_seat`). The handlers fill this in; the notifier reads it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from app.extensions import socketio
from app.service.online import REPLACED as LINK_REPLACED

# Only the newest connection to bind a seat controls it (a second tab, a second device):
# the older ones, in every process, are told why they let go.
SEAT_TAKEN = "seat-taken"  # the call every process runs (app/realtime/fanout.py call_everywhere)
FORGET_TABLE = "forget-table"  # every process drops its live copy of a table (a change with no new version)
LET_GO = {
    "tab": "This game is open in another tab or on another device. Tap “Use here” to play here.",
    "link": LINK_REPLACED,
}


def seat_room(token_hash: str) -> str:
    return "seat:" + token_hash[:32]


def room_of(viewer_key, code: str) -> str:
    if viewer_key == "board":
        return f"board:{code}"
    if viewer_key == "facilitator":
        return f"fac:{code}"
    return seat_room(viewer_key[1])


@dataclass
class Connection:
    """What one socket connection speaks for."""

    sid: str = ""                        # its Socket.IO sid (the key in `connections`)
    facilitator_id: int | None = None
    token_hash: str | None = None        # the seat it joined or resumed
    watching: str | None = None          # table code, as board or facilitator
    watching_as: str | None = None
    bound_at: float = 0.0                # when it bound its seat: the newest binding controls the seat
    let_go: str | None = None            # why it lost its seat to a newer binding (LET_GO's key)
    tokens: float = 30.0
    stamp: float = field(default_factory=time.monotonic)
    malformed: int = 0                   # packets refused as malformed (MALFORMED_MAX)
    language: str = "en"                 # what its page reads (app/i18n): refusals are sent in it

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


def end_facilitator_sockets(facilitator_id) -> None:
    """Disconnect this process's sockets that speak for this facilitator."""
    for sid, conn in list(connections.items()):
        if conn.facilitator_id == facilitator_id:
            socketio.server.disconnect(sid, ignore_queue=True)


def let_go_of_seat(presence, token_hash: str, keeper: str | None, since: float | None, reason: str) -> None:
    """This process's connections bound to the seat before `keeper` did (at `since`), or
    all of them without a keeper, stop controlling it: they leave its room (no more
    views), stop counting as its presence, and are told why (event `replaced`)."""
    for sid, conn in list(connections.items()):
        if conn.token_hash != token_hash or sid == keeper:
            continue
        if keeper is not None and (conn.bound_at, sid) > (since, keeper):
            continue  # bound after the keeper (two processes' calls crossing): this one is the newest
        socketio.server.leave_room(sid, seat_room(token_hash), namespace="/")
        presence.disconnect(token_hash)
        conn.token_hash, conn.let_go = None, reason
        socketio.emit("replaced", {"reason": reason, "message": LET_GO[reason]}, to=sid)
