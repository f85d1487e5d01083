"""Brakes on what an anonymous client may do by the code on the board, per client address.

Wrong codes. Every entry point that takes a table or class code from someone
without a login (the socket `join` and `watch`, and the pages /, /join, /board,
/qr, /hotseat and /online) counts a well-formed code that names nothing against
the client's address, in scopes of the limiter (app/edge/limits.py) that they all
share, so a new connection or another route does not start the count again. While an
address is over the limit, every code from it is refused before it is looked
up: otherwise a guess beyond the limit would still learn whether it was right.

    Why these numbers: CODE_GUESS_LIMIT = 60 per CODE_GUESS_WINDOW = 60 s, and
    CODE_GUESS_HOURLY = 600 per hour. A class of 35 behind one school NAT address can
    all mistype the code in the same minute at the start of a lesson (35, a few twice:
    under 60), and a school of several classes stays under 600 an hour; only wrong
    codes count. While an address is over, every student there is refused even with
    the right code, so the burst limit must be above what a class does, not at it.
    A guesser gets at most 600 x 24 = 14,400 guesses a day (twice that across the
    Redis limiter's window boundaries) among 31^6 = 887,503,681 codes: finding one
    given class's code takes on average 887,503,681 / 2 / 14,400 = about 30,800 days
    (84 years), and with 100 codes open at once a whole day of guessing finds one
    of them with a chance of 14,400 x 100 / 887,503,681 = 0.16 %. Many addresses (a
    botnet) divide that, which no per-address brake prevents.

New seats. A `join` that seats a student counts against its address
(SEATS_PER_ADDRESS per SEATS_WINDOW: 120 a minute, three classes of 35 arriving
at once behind one address), so that one client cannot fill the database with
tables and seats (a solo class makes one table per new name). Refusals count
nothing: a class retrying a full table is not punished.
"""
from __future__ import annotations

from typing import Callable, TypeVar

from app.edge.limits import subject
from app.edge.security import normalize_code
from app.errors import ServiceError
from app.engines.text import N_

T = TypeVar("T")

CODE_SCOPE = "code-guess"
SEAT_SCOPE = "new-seat"
TOO_MANY_CODES = (N_("Too many wrong codes came from this network. Wait a minute, then check the code "
                  "on the board and try again."))
TOO_MANY_SEATS = N_("Too many students joined from this network just now. Wait a minute and try again.")


class Guard:
    def __init__(self, limiter, config: dict):
        self.limiter = limiter
        self.config = config  # the app's: CODE_GUESS_LIMIT/_WINDOW/_HOURLY, SEATS_PER_ADDRESS/SEATS_WINDOW

    def _codes(self) -> list[tuple[str, dict]]:
        # Two scopes: the memory limiter forgets a key's counts older than the window it is asked about.
        return [(CODE_SCOPE, {"limit": int(self.config["CODE_GUESS_LIMIT"]),
                              "window": float(self.config["CODE_GUESS_WINDOW"])}),
                (CODE_SCOPE + "-hour", {"limit": int(self.config["CODE_GUESS_HOURLY"]), "window": 3600.0})]

    def _seats(self) -> dict:
        return {"limit": int(self.config["SEATS_PER_ADDRESS"]), "window": float(self.config["SEATS_WINDOW"])}

    # ------------------------------------------------------------ codes
    def check_code(self, address: str) -> None:
        """Refuse (`rate_limited`) any code from an address over the wrong-code limit."""
        if not all(self.limiter.peek(scope, subject(address), **rule) for scope, rule in self._codes()):
            raise ServiceError("rate_limited", TOO_MANY_CODES)

    def wrong_code(self, address: str) -> None:
        for scope, rule in self._codes():
            self.limiter.hit(scope, subject(address), **rule)

    def look_up(self, address: str, raw, find: Callable[[str], T | None], *,
                facilitator: bool = False) -> tuple[str | None, T | None]:
        """(the normalized code or None, what `find` says of it or None), refusing an
        address over the limit first and counting a well-formed code `find` does not
        know. A malformed code is not counted: it cannot be a guess. A logged-in
        `facilitator` is not braked: the teacher's board and overview must keep working
        while the class behind the same address is over the limit."""
        if not facilitator:
            self.check_code(address)
        code = normalize_code(raw)
        found = find(code) if code else None
        if code and found is None and not facilitator:
            self.wrong_code(address)
        return code, found

    def counting(self, address: str, work: Callable[[], T]) -> T:
        """Run `work`, which looks a code up by itself, counting its `unknown_table` refusal."""
        self.check_code(address)
        try:
            return work()
        except ServiceError as exc:
            if exc.code == "unknown_table":
                self.wrong_code(address)
            raise

    # ------------------------------------------------------------ seats
    def check_seat(self, address: str) -> None:
        if not self.limiter.peek(SEAT_SCOPE, subject(address), **self._seats()):
            raise ServiceError("rate_limited", TOO_MANY_SEATS)

    def seated(self, address: str) -> None:
        self.limiter.hit(SEAT_SCOPE, subject(address), **self._seats())
