"""The computer wizard's pace through the table service (issue 20, item 5): against
the computer its moves play out on their own after a short, readable pause (a
timer plays the human's Continue), so the human only makes their own moves; with
*Step through* on, each computer move waits for the human's Continue."""
from __future__ import annotations

import dataclasses

from app.engines.contract import strip_label
from app.engines.wizard import GAME
from app.engines.wizard import engine as E
from test_service import service  # noqa: F401  (the fixture: SQLite and PostgreSQL)

OWN_MOVES = ("roll", "draw", "no_defense", "end_turn")   # the human's own moves, never Continue


def duel(service, **options) -> str:
    start = GAME.quick_start("computer")
    start = dataclasses.replace(start, options=dict(start.options, **options))
    table = service.create_table(None, "wizard", demo=start)
    service.join(table.code, "Ana", start=start)   # the computer wizard joins and the duel starts
    return table.code


def listed(service, code) -> list[dict]:
    return [strip_label(a) for a in service.live(code).engine.actions(service.get(code).state, 0)]


def computer_moves(service, code) -> int:
    return sum(1 for e in service.events(code) if e.actor.startswith("seat:1"))


def test_the_computer_plays_on_by_itself_until_the_humans_next_turn(service):
    code = duel(service)   # Step through is off unless asked for
    human_turns = 0
    for _ in range(200):
        row = service.get(code)
        s = row.state
        if s["status"] != "playing":
            break
        service.fire_due(code, now=10**10)   # the computer's moves and the pace timers (no delay in tests)
        row = service.get(code)
        s = row.state
        if s["turn"] == 0 and s["phase"] == "draw" and computer_moves(service, code):
            human_turns += 1
            break
        own = [a for a in listed(service, code) if a["type"] in OWN_MOVES]
        assert own or row.state["status"] != "playing", \
            f"the duel waits for the human with only {listed(service, code)} (phase {s['phase']})"
        service.act(code, 0, row.version, own[-1] if own[-1]["type"] == "end_turn" else own[0])
    assert human_turns == 1, "the human's next turn never came"
    # The computer did move, every pause was closed by the timer, never by the human.
    assert computer_moves(service, code) >= 1
    continues = [e for e in service.events(code) if (e.action or {}).get("type") == "continue"]
    assert continues and all(e.actor == "seat:0:auto" for e in continues)


def test_step_through_waits_for_continue_after_each_computer_move(service):
    code = duel(service, step_through="on")
    for _ in range(50):
        row = service.get(code)
        if row.state["pause"] is not None:
            break
        service.fire_due(code, now=10**10)
        row = service.get(code)
        if row.state["pause"] is not None:
            break
        own = [a for a in listed(service, code) if a["type"] in OWN_MOVES]
        service.act(code, 0, row.version, own[0])
    row = service.get(code)
    assert row.state["pause"] is not None and listed(service, code) == [{"type": "continue"}]
    assert "Press Continue" in E.view(row.state, 0)["prompt"]["text"]
    assert service.fire_due(code, now=10**10) == []          # nothing plays on by itself
    assert service.get(code).version == row.version
    service.act(code, 0, row.version, {"type": "continue"})
    assert service.get(code).state["pause"] is None
