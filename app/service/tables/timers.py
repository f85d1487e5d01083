"""A table's timers: the game's deadlines and the computer seats' moves.

They are kept in the table row (`timers`, `next_due_at`), so any process can fire
them, a restart keeps them, and the version compare-and-swap fires each once. The
functions work the timers out after a change (the move path calls `after_change`);
`TimerFiring` fires the due ones (app/realtime/scheduler.py calls it).
"""
from __future__ import annotations

import random
import time

from app.errors import ServiceError
from app.engines.contract import strip_label
from app.service.tables.common import Live, Outcome, actor_name, is_int
from app.service.tables.live import LiveTables
from app.engines.text import N_

COMPUTER_DELAY = 1.0   # seconds a computer-played seat "thinks" before moving


def after_change(live: Live, state, status: str, paused: bool, *, fired: str | None,
                 mover: int | None, now: float, scale: float) -> dict:
    """The table's timers after a change: the game's deadlines plus one per computer
    seat the game waits for, and the platform's own (`platform`: the lesson clock,
    lesson.py), which every change keeps as they are. A timer still listed keeps its
    due time (a deadline is absolute), except the one that just fired and the mover's
    own computer timer.
    A timer the game lists as "held" stands still under its key, keeping the time it
    had left (as the table's pause does for all of them), until listed again unheld.
    `scale` stretches the computers' thinking time (0 in tests)."""
    if status != "playing" or state is None:
        return {}
    engine = live.engine
    listed = {}
    for t in (engine.timers(state) if hasattr(engine, "timers") else []):
        after = float(t.get("after", 0)) * (scale if t.get("pace") else 1.0)
        listed[t["key"]] = {"actor": t.get("actor", "system"), "action": t.get("action"), "after": after,
                            "held": bool(t.get("held"))}
        if t.get("pace"):
            listed[t["key"]]["pace"] = True   # a playing pace, not a deadline: no screen counts down to it
    if any(x.computer for x in live.seats):  # who the game waits for, from the board's view
        board = engine.view(state, "board")
        live.board_view = (state, board)  # reused for the board's payload (Views.viewer_parts)
        waiting = board.get("prompt", {}).get("waiting_for", [])
        for x in live.seats:
            if x.computer and x.index in waiting:
                listed[f"bot:{x.index}"] = {"actor": x.index, "bot": True, "after": COMPUTER_DELAY * scale}
    out = {}
    for key, t in listed.items():
        old = live.timers.get(key)
        held = t.pop("held", False)
        if old is not None and key != fired and not (old.get("bot") and old.get("actor") == mover):
            out[key] = held_timer(old, held, paused, now)
            continue
        entry = {k: v for k, v in t.items() if k != "after"}
        if paused or held:
            entry.update(due=None, left=t["after"])
        else:
            entry.update(due=now + t["after"])
        if held:
            entry["held"] = True
        out[key] = entry
    for key, t in live.timers.items():  # the platform's own (the lesson clock): no engine lists them
        if t.get("platform") and key != fired and key not in out:
            out[key] = t
    return out


def held_timer(old: dict, held: bool, paused: bool, now: float) -> dict:
    """A listed timer the game now holds (it stops, keeping the time left) or no
    longer holds (it runs on from there, unless the table is paused)."""
    if held == bool(old.get("held")):
        return old
    t = dict(old)
    if held:
        t["held"] = True
        if t.get("due") is not None:
            t.update(left=max(0.0, t["due"] - now), due=None)
        return t
    del t["held"]
    if not paused:
        t.update(due=now + t.pop("left", 0.0))
    return t


def deadlines(timers: dict | None) -> dict:
    """The game's own deadlines for the views, by timer key: a timed match's clock,
    a vote's, a seat's (Power War's last player choosing a loadout), never a playing
    pace (auto-play, a computer's thinking time). {"due": epoch seconds} while
    running, {"left": seconds} while the table is paused or the game holds it.
    Every viewer gets them: a game's timer key names nothing secret."""
    out = {}
    for key, t in (timers or {}).items():
        if t.get("bot") or t.get("dead") or t.get("pace"):
            continue
        out[key] = {"due": t["due"]} if t.get("due") is not None else {"left": t.get("left", 0.0)}
    return out


def next_due(timers: dict) -> float | None:
    dues = [t["due"] for t in timers.values() if t.get("due") is not None]
    return min(dues) if dues else None


def paused_timers(timers: dict, paused: bool, now: float) -> dict:
    """Every timer stopped (keeping the time it had left) or running on from there."""
    out = {}
    for key, t in timers.items():
        t = dict(t)
        if paused and t.get("due") is not None:
            t.update(left=max(0.0, t["due"] - now), due=None)
        elif not paused and t.get("due") is None and not t.get("held"):
            t.update(due=now + t.pop("left", 0.0))
        out[key] = t
    return out


class TimerFiring:
    """Fires the due timers of a table through the move path (`Moves.game_move`)."""

    def __init__(self, cache: LiveTables, moves):
        self.cache = cache
        self.moves = moves

    def fire_due(self, code: str, *, now: float | None = None, check_db: bool = False,
                 limit: int = 100) -> list[Outcome]:
        """Fire the table's timers that are due (a computer's move, an auto-play reveal,
        a deadline), one change each, at most `limit`. Returns the outcomes to publish.
        `check_db`: the database says a timer is due (another process set it): catch up
        with it first."""
        if check_db:
            try:
                self.cache.current(code)
            except ServiceError:
                return []
        outcomes = []
        for _ in range(limit):
            try:
                outcome = self.cache.with_live(code, lambda live: self._fire_one(live, now))
            except ServiceError:
                break
            if outcome is None:
                break
            outcomes.append(outcome)
        return outcomes

    def _fire_one(self, live: Live, now: float | None) -> Outcome | None:
        now = time.time() if now is None else now
        if live.status != "playing" or live.paused:
            return None
        due = sorted((t["due"], key) for key, t in live.timers.items()
                     if t.get("due") is not None and t["due"] <= now and not t.get("dead"))
        for _due, key in due:
            timer = live.timers[key]
            actor = timer.get("actor", "system")
            if timer.get("platform"):  # the lesson clock ran out: the game ends by its tie-break
                cause = (timer.get("action") or {}).get("cause", "teacher")
                try:
                    return self.moves.finish(live, actor="system", text=N_("The lesson clock ran out."), cause=cause,
                                             fired=key)
                except ServiceError:
                    timer["dead"] = True  # the game cannot end so (its engine refused): leave it be
                    continue
            if timer.get("bot"):
                seat = actor
                view = live.engine.view(live.state, seat)
                listed = live.engine.actions(live.state, seat)
                rng = random.Random(f"{live.seed}:{seat}:{live.version}")
                choice = live.engine.bot(view, listed, rng) if listed else None
                if choice is None:
                    timer["dead"] = True  # nothing to do; the next change lists it again
                    continue
                action, label = strip_label(choice), actor_name(seat, auto=True)
            else:
                action = dict(timer.get("action") or {"type": "time_up"})
                label = actor_name(actor, auto=True) if is_int(actor) else str(actor)
            try:
                return self.moves.game_move(live, actor, action, actor_label=label, fired=key)
            except ServiceError:
                timer["dead"] = True  # no longer applies; forget it until the next change
        return None

    def due_tables(self, now: float | None = None, limit: int = 200) -> list[tuple[str, float]]:
        """Tables with a timer due by `now` (any process may have scheduled it)."""
        return self.cache.store.due(time.time() if now is None else now, limit)
