"""What every part of the class service shares: its limits, the retry loop for
changes that lose a compare-and-swap (`settle`), and `Final`, an error not to retry."""
from __future__ import annotations

import random
import time
from datetime import datetime, timezone

from app.errors import ServiceError
from app.engines.text import N_

IDLE_SECONDS = 180     # a playing table without a move this long needs the teacher
AWAY_SECONDS = 60      # a student disconnected this long needs the teacher
STALL_SECONDS = 30     # a playing table waiting this long on named students: say who
MESSAGE_MAX = 140      # a message to every phone: one line on a phone screen
RETRIES = 12           # a class change that lost a compare-and-swap is retried this often
LEADERS_ON_BOARD = 10  # the projected leader board lists this many players
LINES_MAX = 4          # a game's public lines (figures "lines") on a table's card
PLAYING_MOVE = (N_("That match is still being played: its students can be moved once it has ended "
                "(end it first), or before it starts."))


def utc(moment: datetime | None) -> datetime | None:
    # SQLite hands datetimes back without their zone; every stored time is UTC.
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment


class Final(Exception):
    """An error `settle` must not retry, even a `stale` one."""

    def __init__(self, error: ServiceError):
        super().__init__(error.message)
        self.error = error


def settle(attempt, busy: str = N_("The class is very busy; please try again.")):
    """Run `attempt` until it stops losing compare-and-swaps (`stale`) to simultaneous
    changes, stepping aside briefly between tries; `attempt` re-reads what it needs.
    A `Final` error (say, the facilitator acted on an old view) is not retried."""
    for _ in range(RETRIES):
        try:
            return attempt()
        except Final as exc:
            raise exc.error
        except ServiceError as exc:
            if exc.code != "stale":
                raise
        time.sleep(random.uniform(0.005, 0.03))
    raise ServiceError("rate_limited", busy)
