"""One moderation queue across every table of a class session, on the class
overview: a table whose game waits on the teacher (a Water Cycle Crisis answer)
has a queue item with what is asked, the game's details (the explanation, even
hidden, the cards and the tally) and its labelled actions; the projected class
board never carries any of it; deciding from the overview's socket works."""
from __future__ import annotations

import json
import random

import pytest

from app import engines
from app.engines.contract import strip_label
from app.extensions import services

GAME = "water_cycle"


@pytest.fixture
def crisis_class(app, teacher):
    """A class of two Water Cycle tables of two; table A is driven (by the bots'
    choices, through the table service) to a Crisis answer being voted on."""
    classes, tables = services(app).classes, services(app).tables
    klass = classes.create(teacher.id, GAME, {"crisis_mode": "on", "votes": "confirm", "vote_seconds": 0}, "2")
    for name in ("Ana", "Ben", "Cai", "Dee"):
        classes.join_any(klass.code, name)
    classes.start(teacher.id, klass.code)
    codes = sorted(t.code for t in tables.tables_of(teacher.id) if t.class_id == klass.id)
    assert len(codes) == 2
    engine = engines.get(GAME)
    rng = random.Random(7)
    for _ in range(5000):
        live = tables.live(codes[0])
        p = live.state["pending"]
        if p and p["kind"] == "crisis" and p["stage"] == "vote":
            break
        seat = live.state and engine.view(live.state, "board")["prompt"]["waiting_for"][0]
        action = engine.bot(engine.view(live.state, seat), engine.actions(live.state, seat), rng)
        tables.act(codes[0], seat, live.version, strip_label(action))
        assert tables.get(codes[0]).status == "playing", "the game ended before any Crisis"
    else:
        pytest.fail("no Crisis vote within 5000 moves")
    return klass, codes


def test_the_overview_queues_the_crisis_table_and_only_it(app, crisis_class):
    klass, (a, b) = crisis_class
    tables, classes = services(app).tables, services(app).classes
    state = tables.live(a).state
    p = state["pending"]
    overview = classes.overview(klass.code)
    (item,) = overview["queue"]
    number = next(t["number"] for t in overview["tables"] if t["code"] == a)
    assert (item["table"], item["number"], item["version"]) == (a, number, tables.get(a).version)
    assert item["prompt"] == engines.get(GAME).view(state, "facilitator")["prompt"]["text"]
    assert item["actions"] == engines.get(GAME).actions(state, "facilitator")
    assert {x["type"] for x in item["actions"]} >= {"accept", "reject", "hide", "close"}
    assert next(x for x in item["actions"] if x["type"] == "reject")["reason"] == ""
    details = {d["title"]: d for d in item["details"]}
    name = next(iter(d for d in details if d.startswith("Crisis: ")))
    assert name == "Crisis: " + engines.get(GAME).view(state, "board")["public"]["crisis"]["crisis"]["name"]
    explained = next(d for d in item["details"] if d["quote"] is not None)
    assert explained["quote"] == p["explanation"] and p["explanation"]
    assert details["Cards spent"]["detail"] and "0 up, 0 down (0 of 1 voted so far)" in details["Vote"]["detail"]
    assert all(x["table"] != b for x in overview["queue"])


def test_a_hidden_explanation_stays_in_the_queue_and_never_reaches_the_class_board(app, teacher, crisis_class):
    klass, (a, _b) = crisis_class
    tables, classes = services(app).tables, services(app).classes
    explanation = tables.live(a).state["pending"]["explanation"]
    board_before = json.dumps(classes.public_overview(klass.code))
    assert explanation not in board_before and "queue" not in classes.public_overview(klass.code)
    tables.moderate(teacher.id, a, tables.get(a).version, {"type": "hide"}, scope="game")
    (item,) = classes.overview(klass.code)["queue"]
    quoted = next(d for d in item["details"] if d["quote"] is not None)
    assert quoted["quote"] == explanation and "hidden" in quoted["title"]
    assert {"type": "show"} in [strip_label(x) for x in item["actions"]]
    board = classes.public_overview(klass.code)
    assert explanation not in json.dumps(board) and "queue" not in board
    assert all("queue" not in t for t in board["tables"])


def test_deciding_from_the_overview_socket_empties_the_queue(app, teacher, teacher_token, crisis_class, phone):
    klass, (a, _b) = crisis_class
    tables, classes = services(app).tables, services(app).classes
    overview_page = phone(auth={"token": teacher_token})
    assert overview_page.send("watch", {"code": klass.code, "role": "facilitator"})["ok"]
    shown = [payload for name, payload in overview_page.events if name == "overview"][-1]
    (item,) = shown["queue"]
    reject = next(x for x in item["actions"] if x["type"] == "reject")
    # An old version is refused as stale (nothing changes)...
    ack = overview_page.send("moderate", {"code": item["table"], "version": item["version"] - 1,
                                          "action": dict(reject, reason="Too short"), "scope": "game"})
    assert ack["ok"] is False and ack["error"]["code"] == "stale"
    # ...the item's own version, with the typed reason, is the teacher's decision.
    ack = overview_page.send("moderate", {"code": item["table"], "version": item["version"],
                                          "action": dict(reject, reason="Say which cards store water."),
                                          "scope": "game"})
    assert ack["ok"] is True, ack
    state = tables.live(a).state
    assert state["pending"] is None or state["pending"]["kind"] != "crisis"
    moderation = [e for e in tables.events(a) if e.actor == "facilitator"][-1]
    assert moderation.action == {"type": "reject", "reason": "Say which cards store water."}
    assert classes.overview(klass.code)["queue"] == []


def test_another_teacher_cannot_decide(app, other_teacher, crisis_class, phone):
    klass, (a, _b) = crisis_class
    stranger = phone(auth={"token": services(app).accounts.issue_token(other_teacher.id)})
    ack = stranger.send("watch", {"code": klass.code, "role": "facilitator"})
    assert ack["ok"] is False and ack["error"]["code"] == "forbidden"
    ack = stranger.send("moderate", {"code": a, "version": services(app).tables.get(a).version,
                                     "action": {"type": "accept"}, "scope": "game"})
    assert ack["ok"] is False and ack["error"]["code"] == "forbidden"
