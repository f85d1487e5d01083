"""War's battle moves name their battle (issue 20, item 1): a reveal (or a power
move) is order-free, so a tap from an older view must not count in a later
battle. `actions` lists these moves with the battle's number; one naming a battle
that is over is refused `stale` and changes nothing; one naming the current battle
counts even from an older version; a bare one is checked against the version."""
from __future__ import annotations

import pytest

from app.engines import war
from app.engines.contract import IllegalAction, strip_label
from app.errors import ServiceError
from test_service import facilitator_id, seat_players, service  # noqa: F401  (fixtures: SQLite and PostgreSQL)

from .test_war_powers import powered
from .test_war_rules import REVEAL, act, rig


def test_every_battle_move_is_listed_with_its_battle():
    state = powered("9 2 3", "T 4 5")
    listed = [strip_label(a) for a in war.actions(state, 0)]
    battle_moves = [a for a in listed if a["type"] in ("reveal", "activate")]
    assert battle_moves and all(a["battle"] == state["battle"] for a in battle_moves)
    assert all("battle" not in a for a in listed if a["type"] in ("autoplay", "hold"))


def test_a_reveal_naming_a_finished_battle_is_refused_stale_and_changes_nothing():
    state, _ = act(rig("Q 3 7", "5 4 8"), 0, 1)          # battle 1 is over
    assert state["battle"] == 2
    before = repr(state)
    with pytest.raises(IllegalAction) as refused:
        war.apply(state, 1, dict(REVEAL, battle=1))
    assert refused.value.code == "stale" and repr(state) == before
    after, log = war.apply(state, 1, dict(REVEAL, battle=2))
    assert log[0]["battle"] == 2 and after["taps"] == [1]


def started(service, facilitator_id) -> str:  # noqa: F811
    table = service.create_table(facilitator_id, "war", {"mode": "classic"})
    seat_players(service, table.code, ["Ana", "Ben", "Cara"])
    service.act(table.code, 0, service.get(table.code).version, {"type": "start"})
    return table.code


def test_through_the_service_a_late_tap_counts_only_in_its_own_battle(service, facilitator_id):  # noqa: F811
    code = started(service, facilitator_id)
    old = service.get(code).version
    [listed] = [strip_label(a) for a in war.actions(service.get(code).state, 0) if a["type"] == "reveal"]
    assert listed == {"type": "reveal", "battle": 1}
    service.act(code, 1, old, dict(REVEAL, battle=1))
    # Ana's tap from the older view names battle 1, which is still on: it counts.
    service.act(code, 0, old, dict(REVEAL, battle=1))
    # A bare reveal from an older view is no longer order-free: the version decides.
    with pytest.raises(ServiceError) as refused:
        service.act(code, 2, old, REVEAL)
    assert refused.value.code == "stale"
    service.act(code, 2, service.get(code).version, REVEAL)
    while service.get(code).state["battle"] == 1:   # a tie: battle 1 goes to war first
        row = service.get(code)
        seat = next(p for p in range(3) if war.actions(row.state, p)[0]["type"] == "reveal")
        service.act(code, seat, row.version, strip_label(war.actions(row.state, seat)[0]))
    row = service.get(code)
    assert row.state["battle"] == 2
    # A second tap of battle 1 arrives after battle 2 began: refused, and nothing changes.
    for version in (old, row.version):
        with pytest.raises(ServiceError) as refused:
            service.act(code, 0, version, dict(REVEAL, battle=1))
        assert refused.value.code == "stale"
    assert service.get(code).version == row.version and service.get(code).state["taps"] == []
