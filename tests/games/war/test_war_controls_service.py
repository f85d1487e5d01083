"""War's hold and restart through the table service: a Quick Match against the
computer (War's home-page quick start, five minutes). While the player holds,
the match clock stands still with exactly the time it had left (the game lists
it "held"; the platform keeps what is left) and no computer move is scheduled;
resuming runs it on from there. A restart gets a fresh, full clock. Replaying
the event log gives the same state."""
from __future__ import annotations

import pytest

from app.engines import war
from app.service.tables.timers import paused_timers
from test_service import service  # noqa: F401  (the fixture: SQLite and PostgreSQL)

HOLD, RESUME, RESTART, REVEAL = {"type": "hold"}, {"type": "resume"}, {"type": "restart"}, {"type": "reveal"}


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = Clock(1_000_000.0)
    monkeypatch.setattr("app.service.tables.moves.time.time", fake)
    return fake


def quick_match(service) -> str:
    start = war.GAME.quick_start("quick_match")
    assert start.options == {"mode": "classic", "length": "5_minutes"} and start.computers == (1,)
    table = service.create_table(None, "war", demo=start)
    service.join(table.code, "Ana", start=start)   # the computer joins and the game starts
    return table.code


def test_holding_stops_the_clock_with_its_time_left_and_the_computer(service, clock):
    code = quick_match(service)
    row = service.get(code)
    assert row.status == "playing" and row.state["computers"] == [1]
    due = row.timers["clock:300"]["due"]
    assert due == clock.now + 300
    clock.now += 60
    service.act(code, 0, row.version, REVEAL)
    service.fire_due(code)                                 # the computer reveals (no delay in tests)
    clock.now += 40
    row = service.get(code)
    service.act(code, 0, row.version, HOLD)
    row = service.get(code)
    assert row.timers == {"clock:300": {"actor": "system", "action": {"type": "time_up"},
                                        "due": None, "left": 200.0, "held": True}}
    assert row.next_due_at is None                          # nothing to fire: no computer move either
    assert service.view_for(code, 0)["deadlines"] == {"clock:300": {"left": 200.0}}
    clock.now += 1000                                       # long past the old deadline
    assert service.fire_due(code) == [] and service.get(code).status == "playing"
    assert service.view_for(code, 0)["actions"] == [{"type": "resume", "label": "Resume the game"},
                                                    {"type": "restart", "label": "Restart with a fresh deal"}]
    service.act(code, 0, row.version, RESUME)
    row = service.get(code)
    assert row.timers["clock:300"] == {"actor": "system", "action": {"type": "time_up"}, "due": clock.now + 200}
    # The match still lasts exactly five minutes of play: 100 s before the hold, 200 s after it.
    clock.now += 199
    service.fire_due(code)
    assert service.get(code).status == "playing"
    clock.now += 2
    fired = service.fire_due(code)
    row = service.get(code)
    assert fired and row.status == "ended" and row.state["result"]["reason"] == "time_up"
    assert service.replay(code) == row.state


def test_the_teachers_pause_and_a_hold_together_keep_the_time_left(service, clock):
    """A teacher's pause and resume meanwhile leave a held clock held."""
    code = quick_match(service)
    row = service.get(code)
    service.act(code, 0, row.version, HOLD)
    clock.now += 30
    live = service.live(code)
    live.timers = paused_timers(live.timers, True, clock.now)    # the table pauses...
    live.timers = paused_timers(live.timers, False, clock.now + 50)  # ...and resumes
    assert live.timers["clock:300"] == {"actor": "system", "action": {"type": "time_up"}, "due": None,
                                        "left": 300.0, "held": True}


def test_a_restart_deals_again_with_a_full_clock_and_replays(service, clock):
    code = quick_match(service)
    row = service.get(code)
    service.act(code, 0, row.version, REVEAL)
    service.fire_due(code)
    clock.now += 120
    row = service.get(code)
    service.act(code, 0, row.version, RESTART)
    row = service.get(code)
    assert row.state["restarts"] == 1 and row.state["battle"] == 1 and row.status == "playing"
    assert "clock:300" not in row.timers
    assert row.timers["clock:300:r1"]["due"] == clock.now + 300
    assert service.view_for(code, 0)["view"]["public"]["length"]["clock_key"] == "clock:300:r1"
    assert any(e.get("id") == "war.restart" for e in service.events(code)[-1].log)
    service.fire_due(code)   # the computer plays the fresh deal
    assert service.replay(code) == service.get(code).state
