"""Storm War through the table service (SQLite and PostgreSQL): a pass is not
order-free — sent before a new play was seen, it is refused as stale — and a
whole game replays to its snapshot."""
from __future__ import annotations

from app.engines.contract import strip_label

from test_service import facilitator_id, seat_players, service  # noqa: F401  (fixtures)


def test_a_pass_that_did_not_see_a_new_play_is_stale(service, facilitator_id):  # noqa: F811
    table = service.create_table(facilitator_id, "storm_war", {})
    seat_players(service, table.code, ["Ana", "Ben", "Cara"])
    service.act(table.code, 0, service.get(table.code).version, {"type": "start"})
    for _ in range(300):
        t = service.get(table.code)
        board = service.view_for(table.code, "board")["view"]
        seat = board["prompt"]["waiting_for"][0]
        listed = [strip_label(a) for a in service.view_for(table.code, seat)["actions"]]
        if t.state["phase"] == "manage" and not t.state["choices"]:
            service.act(table.code, seat, t.version, {"type": "challenge", "risk": "toxic"})
            continue
        if t.state["phase"] == "respond" and not t.state["choices"]:
            players = [p for p in board["prompt"]["waiting_for"] if p != t.state["challenge"]["seat"]]
            for player in players:
                plays = [strip_label(a) for a in service.view_for(table.code, player)["actions"]
                         if a["type"] == "play"]
                other = next((p for p in players if p != player), None)
                if plays and other is not None:
                    version = t.version
                    service.act(table.code, player, version, plays[0])
                    stale = service.view_for(table.code, other)
                    try:
                        service.act(table.code, other, version, {"type": "pass"})
                    except Exception as exc:  # noqa: BLE001
                        assert getattr(exc, "code", None) == "stale", exc
                    else:
                        raise AssertionError("a pass from before the play counted")
                    assert stale["version"] == version + 1
                    assert service.act(table.code, other, version + 1, {"type": "pass"}).version == version + 2
                    assert service.replay(table.code) == service.get(table.code).state
                    return
        service.act(table.code, seat, t.version, {"type": "pass"} if {"type": "pass"} in listed else listed[0])
    raise AssertionError("no trainee ever had a Chaos card to play")
