"""Power War through the table service (SQLite and PostgreSQL): loadout picks are order-free,
a computer seat chooses its loadout and answers counter windows, auto-playing
seats never hold the table up, and a whole game replays to its snapshot."""
from __future__ import annotations

import pytest

from app.engines.contract import strip_label
from app.errors import ServiceError
from test_no_leak import set_seed
from test_service import facilitator_id, service  # noqa: F401  (fixtures: SQLite and PostgreSQL)


def listed(service, code, seat):
    """The seat's moves without labels, nor the battle number the battle's moves carry
    (the moves below are sent bare, from the current version)."""
    return [{k: v for k, v in strip_label(a).items() if k != "battle"}
            for a in service.view_for(code, seat)["actions"]]


def test_a_power_game_with_a_computer_and_auto_play_runs_to_the_end(service, facilitator_id):
    table = service.create_table(facilitator_id, "war", {"mode": "power", "length": "first_to_30_cards",
                                                          "computer_level": "hard"})
    code = table.code
    # A seeded deal: whether a counter window opens depends on the cards and the computer's
    # choices; this deal opens one (a random one missed it about one run in six).
    set_seed(service, code, 7)
    for name in ("Ana", "Ben", "Cara"):
        service.join(code, name)
    service.act(code, 0, service.get(code).version, {"type": "start"})
    version = service.get(code).version
    # Ana and Ben pick at the same time: a pick sent from an older version is still
    # accepted, since it is on offer now (loadout is order-free).
    service.act(code, 0, version, {"type": "loadout", "powers": ["shield"], "ready": False})
    service.act(code, 1, version, {"type": "loadout", "powers": ["boost"], "ready": False})
    assert service.view_for(code, 1)["view"]["private"]["powers"]["draft"] == ["boost"]
    with pytest.raises(ServiceError) as err:    # a move that is not on offer needs the current version
        service.act(code, 0, version, {"type": "loadout", "powers": ["mirror", "swap"], "ready": True})
    assert err.value.code == "stale"
    service.act(code, 0, service.get(code).version,
                {"type": "loadout", "powers": ["shield", "counter", "boost"], "ready": True})
    # The computer takes Cara's seat and picks its level's loadout.
    service.moderate(facilitator_id, code, service.get(code).version, {"type": "kick", "seat": 2})
    service.fire_due(code)
    state = service.get(code).state
    assert state["powers"]["ready"] == [True, False, True]
    assert "loadout:1:1" in service.get(code).timers     # Ben, the last one choosing, has 30 seconds
    assert state["powers"]["loadout"][2] == ["counter", "shield", "double_stakes", "scout", "boost"]
    # Ben turns auto-play on without tapping Ready: he keeps his pick and the battles begin.
    service.act(code, 1, service.get(code).version, {"type": "autoplay", "speed": 4})
    state = service.get(code).state
    assert state["powers"]["phase"] == "play" and state["powers"]["loadout"][1] == ["boost"]
    # Ana uses a power, reveals, then lets auto-play finish the match with the computer.
    seen_window = False
    for _ in range(3000):
        row = service.get(code)
        if row.status != "playing":
            break
        acts = listed(service, code, 0)
        if {"type": "activate", "power": "boost", "target": None} in acts:
            service.act(code, 0, row.version, {"type": "activate", "power": "boost", "target": None})
        elif {"type": "resolve"} in acts:
            seen_window = True
            service.act(code, 0, row.version, {"type": "resolve"})
        elif {"type": "reveal"} in acts:
            service.act(code, 0, row.version, {"type": "reveal"})
        elif row.state["battle"] > 12 and row.state["autoplay"][0] == 0:
            service.act(code, 0, row.version, {"type": "autoplay", "speed": 4})
        if not service.fire_due(code, now=10**10) and row.version == service.get(code).version:
            waiting = service.view_for(code, "board")["view"]["prompt"]["waiting_for"]
            assert waiting == [0] or row.state["autoplay"][0] == 0, f"the table is stuck waiting for {waiting}"
    row = service.get(code)
    assert row.status == "ended", "the game did not end"
    assert service.replay(code) == row.state
    actors = {e.actor for e in service.events(code)}
    assert {"seat:1:auto", "seat:2:auto"} <= actors
    used = [e for e in service.events(code) if e.kind == "game" and e.action.get("type") == "activate"]
    assert any(e.actor == "seat:2:auto" for e in used), "the hard computer never used a power"
    assert seen_window or any(e.action.get("type") in ("counter", "resolve") for e in service.events(code))
