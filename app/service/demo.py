"""Guided demos and quick starts (GameSpec.demo, GameSpec.starts): a table anyone may
open from the home page.

`DemoService.open(game, client, start)` creates a table with the start's options
and no facilitator, seats the visitor (a fresh seat token, returned once, in the
answer to the POST that asked for it: never in a URL) and the demo's computer
seats, and starts the game (the join does that: see TableService.join). The
computer seats move through the platform's timers like any computer player.

Limits: each client address may open DEMO_PER_CLIENT tables without an account
(demos, quick starts, online matches: one budget) per DEMO_WINDOW seconds,
counted by the shared limiter (app/edge/limits.py: in Redis when several processes
run, so another worker does not start the count again; an IPv6 client by its
/64), and at most DEMO_GLOBAL_MAX facilitator-less demos exist at once (counted
in the database, so across processes). The budget counts a table when it is
opened: a restart inside the game opens nothing and counts nothing.

Brakes on the demos and quick starts without a facilitator, which nobody
stands behind while the server plays their computer seats and auto-play by
itself:

* idle: a game in progress to which no person has been connected for
  IDLE_GRACE seconds is paused (`brake`, asked by the timer loop before it
  plays the table's timers), as the teacher's pause does it: a table event by
  "system", every timer stopped with the time it had left, so a timed match's
  clock does not run out while nobody is there. A player resuming their seat
  plays on (`wake`);
* lifetime: a guided demo or quick start still playing DEMO_PLAY_MAX seconds
  after its table was created is ended (`end_overdue`, with the clean-up),
  however often its game was restarted: a restart deals again but the table,
  and its creation time, stay.

A teacher's tables are the teacher's to pause and end. An online match (two
people, no computer seats) is left to its own deadline: paused, it would never
expire.

`cleanup()` deletes facilitator-less demos created more
than DEMO_MAX_AGE seconds ago with their seats, events and notes; it runs on
every `open`, from the timer loop (app/realtime/scheduler.py) about every
DEMO_CLEANUP_EVERY seconds, and from `flask --app app demos cleanup`.

A facilitator's demo (created from the dashboard to project for the class) is an
ordinary table of theirs with the demo flag: the first phone to join with its
code takes the visitor's seat, the computers join and it starts. It is never
cleaned up: it is the teacher's, like their other tables.

Nothing here knows a game.
"""
from __future__ import annotations

import math
import threading
import time
from datetime import timedelta

from sqlalchemy import func, select

from app import engines
from app.edge.limits import Limiter, subject
from app.errors import ServiceError
from app.service.tables import Outcome, TableService
from app.store.models import GameTable, utcnow
from app.engines.text import N_, NP_

BUDGET_SCOPE = "anonymous-tables"

DEFAULTS = {
    "DEMO_PER_CLIENT": 5,          # demos one client address may open ...
    "DEMO_WINDOW": 600,            # ... per this many seconds
    "DEMO_GLOBAL_MAX": 500,        # facilitator-less demos at once, all clients together
    "DEMO_MAX_AGE": 86400,         # seconds a facilitator-less demo is kept
    "DEMO_CLEANUP_EVERY": 600,     # seconds between the timer loop's clean-ups
    "IDLE_GRACE": 30,              # seconds nobody is connected before a teacherless game pauses
    "DEMO_PLAY_MAX": 7200,         # seconds after its creation a demo's game is ended
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
    def __init__(self, tables: TableService, config: dict | None = None, limiter: Limiter | None = None):
        self.tables = tables
        self.config = {k: (config or {}).get(k, v) for k, v in DEFAULTS.items()}
        self.limiter = limiter or Limiter()
        self.grace = float(self.config["IDLE_GRACE"])
        self.play_max = float(self.config["DEMO_PLAY_MAX"])
        self.publish = lambda outcome: None  # the notifier's (app/realtime), for games ended by the clean-up
        self._alone_since: dict[str, float] = {}  # table code -> when this process first saw nobody there
        self._lock = threading.Lock()
        self._last_cleanup = float("-inf")   # never: the first poll cleans up, however young the machine

    # ------------------------------------------------------------- limits
    def admit(self, client: str) -> None:
        """Count one table opened without an account (a demo, a quick start, an online
        match: they share one budget) for this client address, or refuse it (DemoLimited)."""
        rule = {"limit": int(self.config["DEMO_PER_CLIENT"]), "window": float(self.config["DEMO_WINDOW"])}
        key = subject(client)
        if self.limiter.hit(BUDGET_SCOPE, key, **rule):
            return
        self.limiter.undo(BUDGET_SCOPE, key, window=rule["window"])  # a refusal uses up nothing
        wait = max(1, math.ceil(self.limiter.retry_after(BUDGET_SCOPE, key, **rule) / 60))
        raise DemoLimited("client", (NP_("You have started {n} games in a short time. Please wait {wait} minute and try again.",
                                        "You have started {n} games in a short time. Please wait {wait} minutes and try again.",
                                        wait).format(n=rule['limit'], wait=wait)))

    def admit_again(self, client: str) -> None:
        """A player at a table without a teacher asks to play again (app/service/tables/rematch.py):
        the rematch is a table opened without an account, so it counts as one (the client's
        budget) and waits while DEMO_GLOBAL_MAX such tables exist."""
        if self._open_count() >= int(self.config["DEMO_GLOBAL_MAX"]):
            raise DemoLimited("global", N_("Many people are playing right now. Please try again in a few minutes."))
        self.admit(client)

    # ----------------------------------------------------- nobody there
    def brake(self, code: str, *, now: float | None = None) -> list[Outcome]:
        """Pause a demo or quick start without a facilitator that no person has been
        connected to for IDLE_GRACE seconds, as this process has seen it (the timer loop
        asks before it plays the table's timers). Returns the outcome to publish, if it
        paused the table."""
        now = time.time() if now is None else now
        try:
            live = self.tables.live(code)
        except ServiceError:  # deleted meanwhile: the timer loop finds nothing to fire either
            return []
        if not self._braked(live) or live.status != "playing" or live.paused or self.tables.humans_connected(code):
            self._alone_since.pop(code, None)
            return []
        with self._lock:
            if len(self._alone_since) > 10_000:  # tables deleted while alone: forget the long-gone
                for key in [k for k, t in self._alone_since.items() if now - t > 10 * self.grace]:
                    del self._alone_since[key]
            since = self._alone_since.setdefault(code, now)
        if now - since < self.grace:
            return []
        self._alone_since.pop(code, None)
        outcome = self.tables.pause_teacherless(code, True, N_("Nobody is connected: the game waits for a player."))
        return [outcome] if outcome else []

    def wake(self, code: str) -> list[Outcome]:
        """A player is back (they resumed their seat): a game the idle brake paused plays on."""
        self._alone_since.pop(code, None)
        if not self._braked(self.tables.live(code)):
            return []
        # Asked even when this process's copy says it is not paused: another process may have paused it.
        outcome = self.tables.pause_teacherless(code, False, N_("A player is back: the game goes on."))
        return [outcome] if outcome else []

    @staticmethod
    def _braked(live) -> bool:
        """The idle brake's tables: demos and quick starts without a facilitator. An online
        match is left to its own deadline (a paused one would never expire), and a
        teacher's table to the teacher."""
        return live.facilitator_id is None and live.demo

    def _open_count(self) -> int:
        with self.tables.store.session() as s:
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
            raise ServiceError("bad_request", N_("There is no such game."))
        demo = spec.quick_start(start) if isinstance(start, str) else None
        if demo is None:
            raise ServiceError("bad_request", N_("{game} has no such quick start.").format(game=spec.title))
        self.cleanup()
        if self._open_count() >= int(self.config["DEMO_GLOBAL_MAX"]):
            raise DemoLimited("global", N_("Many people are trying the demo right now. Please try again in a few "
                                        "minutes, or ask a teacher to open one for the class."))
        self.admit(client)
        table = self.tables.create_table(None, spec.key, demo=demo)
        seated = self.tables.join(table.code, demo.seats[demo.humans[0]], start=demo)
        return {"code": table.code, "seat": seated["seat"], "token": seated["token"]}

    def create_for(self, facilitator_id: int, game) -> GameTable:
        """A facilitator's demo table in its lobby: a phone joining with the code plays it."""
        if not isinstance(game, str) or game not in engines.keys():
            raise ServiceError("bad_request", N_("Choose a game that can be played."))
        return self.tables.create_table(facilitator_id, game, demo=True)

    # ------------------------------------------------------------ cleanup
    def cleanup(self, *, max_age: float | None = None) -> list[str]:
        """Delete the facilitator-less demos older than `max_age` seconds (default
        DEMO_MAX_AGE), with their seats, events and notes. Returns their codes."""
        self._last_cleanup = time.monotonic()
        age = float(self.config["DEMO_MAX_AGE"] if max_age is None else max_age)
        cutoff = utcnow() - timedelta(seconds=age)
        with self.tables.store.session() as s:
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
            self.tables.forget_seat(token_hash)
        return [r.code for r in rows]

    def end_overdue(self) -> list[str]:
        """End the facilitator-less demos still playing DEMO_PLAY_MAX seconds after their
        table was created (a restart inside the game does not make the table younger).
        Returns their codes; their outcomes go to `publish`."""
        cutoff = utcnow() - timedelta(seconds=self.play_max)
        with self.tables.store.session() as s:
            codes = s.execute(select(GameTable.code).where(
                GameTable.facilitator_id == None, GameTable.demo == True,  # noqa: E711,E712
                GameTable.status == "playing", GameTable.created_at < cutoff)).scalars().all()
        ended = []
        for code in codes:
            outcome = self.tables.end_teacherless(code, N_("This game has run for a long time and is over. "
                                                        "Start a new one from the home page."), cause="time_limit")
            if outcome is not None:
                ended.append(code)
                self.publish(outcome)
        return ended

    def cleanup_due(self) -> list[str]:
        """`end_overdue` and `cleanup` if the last ones were DEMO_CLEANUP_EVERY seconds ago
        (the timer loop asks often)."""
        if time.monotonic() - self._last_cleanup < float(self.config["DEMO_CLEANUP_EVERY"]):
            return []
        self.end_overdue()
        return self.cleanup()
