"""Guided demos and quick starts (GameSpec.demo, GameSpec.starts): a table anyone may
open from the home page.

`DemoService.open(game, client, start)` creates a table with the start's options
and no facilitator, seats the visitor (a fresh seat token, returned once, in the
answer to the POST that asked for it: never in a URL) and the demo's computer
seats, and starts the game (the join does that: see TableService.join). The
computer seats move through the platform's timers like any computer player.

Limits: each client address may open DEMO_PER_CLIENT demos per DEMO_WINDOW
seconds (counted in this process: with several processes behind a load
balancer with sticky sessions a client meets the same process), and at most
DEMO_GLOBAL_MAX facilitator-less demos exist at once (counted in the database,
so across processes). `cleanup()` deletes facilitator-less demos created more
than DEMO_MAX_AGE seconds ago with their seats, events and notes; it runs on
every `open`, from the timer loop (app/realtime.py) about every
DEMO_CLEANUP_EVERY seconds, and from `flask --app app demos cleanup`.

A facilitator's demo (created from the dashboard to project for the class) is an
ordinary table of theirs with the demo flag: the first phone to join with its
code takes the visitor's seat, the computers join and it starts. It is never
cleaned up: it is the teacher's, like their other tables.

Nothing here knows a game.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from datetime import timedelta

from sqlalchemy import func, select

from app import engines
from app.models import GameTable, utcnow
from app.tables import ServiceError, TableService

DEFAULTS = {
    "DEMO_PER_CLIENT": 5,          # demos one client address may open ...
    "DEMO_WINDOW": 600,            # ... per this many seconds
    "DEMO_GLOBAL_MAX": 500,        # facilitator-less demos at once, all clients together
    "DEMO_MAX_AGE": 86400,         # seconds a facilitator-less demo is kept
    "DEMO_CLEANUP_EVERY": 600,     # seconds between the timer loop's clean-ups
}


class DemoLimited(ServiceError):
    """Too many demos: from this client (`scope` "client") or everyone ("global")."""

    def __init__(self, scope: str, message: str):
        super().__init__("rate_limited", message)
        self.scope = scope


def demo_games() -> list[dict]:
    """The games anyone may start from the home page: {key, title, label, blurb} (the first
    quick start's), "starts": [{key, label, blurb}] and "online": {label, blurb} or None."""
    out = []
    for key in engines.keys():
        spec = engines.spec(key)
        starts = [{"key": d.key, "label": d.label, "blurb": d.blurb} for d in spec.quick_starts]
        online = {"label": spec.online.label, "blurb": spec.online.blurb} if spec.online else None
        if starts or online:
            first = starts[0] if starts else dict(online, key=None)
            out.append({"key": key, "title": spec.title, "label": first["label"], "blurb": first["blurb"],
                        "starts": starts, "online": online})
    return out


class DemoService:
    def __init__(self, tables: TableService, config: dict | None = None):
        self.tables = tables
        self.config = {k: (config or {}).get(k, v) for k, v in DEFAULTS.items()}
        self._recent: dict[str, deque] = {}
        self._lock = threading.Lock()
        self._last_cleanup = float("-inf")   # never: the first poll cleans up, however young the machine

    # ------------------------------------------------------------- limits
    def admit(self, client: str) -> None:
        """Count one table opened without an account (a demo, a quick start, an online
        match: they share one budget) for this client, or refuse it (DemoLimited)."""
        self._admit(client)

    def _admit(self, client: str) -> None:
        now = time.monotonic()
        window, allowed = float(self.config["DEMO_WINDOW"]), int(self.config["DEMO_PER_CLIENT"])
        with self._lock:
            if len(self._recent) > 10_000:  # forget clients whose window has passed
                for key in [k for k, q in self._recent.items() if not q or now - q[-1] >= window]:
                    del self._recent[key]
            stamps = self._recent.setdefault(client, deque())
            while stamps and now - stamps[0] >= window:
                stamps.popleft()
            if len(stamps) >= allowed:
                wait = max(1, int(window - (now - stamps[0]) + 59) // 60)
                raise DemoLimited("client", f"You have started {allowed} games in a short time. "
                                            f"Please wait {wait} minute{'s' if wait != 1 else ''} and try again.")
            stamps.append(now)

    def _open_count(self) -> int:
        with self.tables._session() as s:
            return s.execute(select(func.count()).select_from(GameTable)
                             .where(GameTable.facilitator_id == None, GameTable.demo == True)  # noqa: E711,E712
                             ).scalar_one()

    # --------------------------------------------------------------- open
    def open(self, game, client: str, start: str = "demo") -> dict:
        """A started table of the game's quick start `start` (its guided demo by default)
        with the visitor seated. Returns {code, seat, token}."""
        try:
            spec = engines.spec(game)
        except Exception:
            raise ServiceError("bad_request", "There is no such game.")
        demo = spec.quick_start(start) if isinstance(start, str) else None
        if demo is None:
            raise ServiceError("bad_request", f"{spec.title} has no such quick start.")
        self.cleanup()
        if self._open_count() >= int(self.config["DEMO_GLOBAL_MAX"]):
            raise DemoLimited("global", "Many people are trying the demo right now. Please try again in a few "
                                        "minutes, or ask a teacher to open one for the class.")
        self._admit(client)
        table = self.tables.create_table(None, spec.key, demo=demo)
        seated = self.tables.join(table.code, demo.seats[demo.humans[0]], start=demo)
        return {"code": table.code, "seat": seated["seat"], "token": seated["token"]}

    def create_for(self, facilitator_id: int, game) -> GameTable:
        """A facilitator's demo table in its lobby: a phone joining with the code plays it."""
        if not isinstance(game, str) or game not in engines.keys():
            raise ServiceError("bad_request", "Choose a game that can be played.")
        return self.tables.create_table(facilitator_id, game, demo=True)

    # ------------------------------------------------------------ cleanup
    def cleanup(self, *, max_age: float | None = None) -> list[str]:
        """Delete the facilitator-less demos older than `max_age` seconds (default
        DEMO_MAX_AGE), with their seats, events and notes. Returns their codes."""
        self._last_cleanup = time.monotonic()
        age = float(self.config["DEMO_MAX_AGE"] if max_age is None else max_age)
        cutoff = utcnow() - timedelta(seconds=age)
        with self.tables._session() as s:
            rows = s.execute(select(GameTable.id, GameTable.code)
                             .where(GameTable.facilitator_id == None, GameTable.demo == True,  # noqa: E711,E712
                                    GameTable.created_at < cutoff)).all()
            if not rows:
                return []
            tokens = self.tables.purge(s, [r.id for r in rows])
            s.commit()
        for r in rows:
            self.tables.forget(r.code)
        for token_hash in tokens:
            self.tables._by_token.pop(token_hash, None)
        return [r.code for r in rows]

    def cleanup_due(self) -> list[str]:
        """`cleanup` if the last one was DEMO_CLEANUP_EVERY seconds ago (the timer loop asks often)."""
        if time.monotonic() - self._last_cleanup < float(self.config["DEMO_CLEANUP_EVERY"]):
            return []
        return self.cleanup()
