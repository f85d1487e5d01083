"""The protocol's refusals: `ServiceError` and its error codes (DESIGN.md "Wire protocol").

Every part raises or answers these: the services refuse with them, the Socket.IO
handlers turn them into `{"ok": false, "error": {code, message}}` acks, the HTTP
routes into JSON or pages. This module imports nothing of the app, so any part,
the door's guards and the store included, can use it without pulling in another.
"""
from __future__ import annotations

# The codes a client may receive, each with what it means to the one who sent the message.
ERROR_CODES = frozenset({
    "bad_request",    # the message or form was malformed or a field was wrong
    "unknown_table",  # no table or class with that code
    "not_joined",     # join (or resume) a seat first
    "not_your_turn",
    "illegal",        # the game does not allow that action now
    "stale",          # the table changed since the sender's view; the fresh view comes with it
    "game_over",
    "forbidden",      # not yours (another teacher's table, a locked table, a removed seat)
    "table_full",
    "name_taken",
    "rate_limited",
    "unavailable",    # the database or the message queue is out; try again
})


class ServiceError(Exception):
    """An error with one of the protocol's codes and a sentence for the user."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message}
