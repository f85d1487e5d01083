"""Water Cycle Challenge through the table service, on SQLite and PostgreSQL:
every phone votes on a Crisis at once and every vote is accepted; the teacher's
moderation is a game action with scope "game"; the vote clock is a scheduled
system action fired once; the whole game replays to the snapshot."""
from __future__ import annotations

from app.engines.contract import strip_label

from test_service import _at_once, facilitator_id, seat_players, service  # noqa: F401  (fixtures)


def until_crisis(service, code, explainer_text="The rain refills the reservoir."):
    """Play plain turns (draw, and the first answer to any other prompt) until
    somebody must answer a Crisis; they pick a card and explain. Returns the seat."""
    for _ in range(400):
        table = service.get(code)
        s = table.state
        p = s["pending"]
        if p and p["kind"] == "crisis" and p["stage"] == "choose":
            seat = p["seat"]
            pick = next(a for a in service.view_for(code, seat)["actions"] if a["type"] == "pick")
            service.act(code, seat, table.version, strip_label(pick))
            service.act(code, seat, table.version + 1, {"type": "explain", "text": explainer_text})
            return seat
        waiting = service.view_for(code, "board")["view"]["prompt"]["waiting_for"]
        seat = waiting[0]
        listed = [strip_label(a) for a in service.view_for(code, seat)["actions"]]
        action = {"type": "draw"} if {"type": "draw"} in listed else listed[0]
        service.act(code, seat, table.version, action)
    raise AssertionError("no Crisis in 400 moves")


def start(service, facilitator_id, **options):  # noqa: F811
    table = service.create_table(facilitator_id, "water_cycle", options)
    seat_players(service, table.code, ["Ana", "Ben", "Cara", "Dev"])
    service.act(table.code, 0, service.get(table.code).version, {"type": "start"})
    return table.code


def test_every_phone_votes_at_once_and_every_vote_counts(service, facilitator_id):  # noqa: F811
    code = start(service, facilitator_id, votes="players", vote_seconds=0)
    explainer = until_crisis(service, code)
    version = service.get(code).version
    version_crisis = service.get(code).state["pending"]["no"]
    voters = [s for s in range(4) if s != explainer]
    outcomes = _at_once(3, lambda i: service.act(code, voters[i], version, {"type": "vote", "crisis": version_crisis, "up": i != 0}))
    assert [c for c, _ in outcomes] == ["ok"] * 3, outcomes
    table = service.get(code)
    assert table.version == version + 3 and table.state["last_crisis"]["up"] == 2
    assert table.state["last_crisis"]["passed"] and table.state["last_crisis"]["down"] == 1
    assert service.replay(code) == table.state


def test_the_teacher_overrides_a_vote_as_a_game_action(service, facilitator_id):  # noqa: F811
    code = start(service, facilitator_id, votes="confirm", vote_seconds=0)
    explainer = until_crisis(service, code)
    facilitator = service.view_for(code, "facilitator")
    assert [a["type"] for a in facilitator["actions"]][:2] == ["accept", "reject"]
    for seat in range(4):
        if seat != explainer:
            service.act(code, seat, service.get(code).version, {"type": "vote", "crisis": service.get(code).state["pending"]["no"], "up": False})
    assert service.get(code).state["pending"]["stage"] == "review"
    service.moderate(facilitator_id, code, service.get(code).version,
                     {"type": "reject", "reason": "Say how the water gets there."}, scope="game")
    table = service.get(code)
    assert table.state["last_crisis"]["reason"] == "Say how the water gets there."
    last = service.events(code)[-1]
    assert last.actor == "facilitator" and last.kind == "game"
    assert service.replay(code) == table.state


def test_the_vote_clock_fires_once_and_closes_the_vote(service, facilitator_id):  # noqa: F811
    code = start(service, facilitator_id, votes="players", vote_seconds=30)
    until_crisis(service, code)
    table = service.get(code)
    (key,) = [k for k in table.timers if k.startswith("vote:")]
    assert service.fire_due(code, now=table.timers[key]["due"] - 1) == []    # not yet
    fired = service.fire_due(code, now=table.timers[key]["due"] + 1)
    assert len(fired) == 1 and service.events(code)[-1].actor == "system"
    assert service.fire_due(code, now=table.timers[key]["due"] + 2) == []    # once
    after = service.get(code)
    assert after.state["last_crisis"] is not None and not any(k.startswith("vote:") for k in after.timers)
    assert service.replay(code) == after.state


def test_a_vote_for_crisis_one_arriving_after_crisis_two_opened_is_refused_stale(service, facilitator_id):  # noqa: F811
    """Issue 20: a vote is order-free, so the platform takes it from an old view only while
    the exact action is still listed. The listed vote names its Crisis, so a thumbs-down
    sent during Crisis #1 cannot be recorded as that phone's vote in Crisis #2."""
    from app.errors import ServiceError
    import pytest
    code = start(service, facilitator_id, votes="players", vote_seconds=0)
    first = until_crisis(service, code)
    seen = service.get(code).version
    late_voter = (first + 1) % 4
    late = next(strip_label(a) for a in service.view_for(code, late_voter)["actions"]
                if a["type"] == "vote" and not a["up"])
    assert late["crisis"] == service.get(code).state["pending"]["no"]
    # The vote of Crisis #1 closes without that phone (the teacher closes it), and play goes on.
    service.moderate(facilitator_id, code, service.get(code).version, {"type": "close"}, scope="game")
    second = until_crisis(service, code)
    table = service.get(code)
    assert table.state["pending"]["stage"] == "vote" and table.state["pending"]["no"] == late["crisis"] + 1
    with pytest.raises(ServiceError) as err:
        service.act(code, late_voter, seen, late)
    assert err.value.code == "stale"
    after = service.get(code)
    assert (after.version, after.state) == (table.version, table.state)   # nothing was recorded
    if late_voter != second:   # the same phone's vote for the open Crisis, from the same old view, counts
        fresh = dict(late, crisis=late["crisis"] + 1)
        service.act(code, late_voter, seen, fresh)
        assert service.get(code).state["pending"]["votes"].get(str(late_voter)) is False \
            or service.get(code).state["last_crisis"]["down"] >= 1
    assert service.replay(code) == service.get(code).state
