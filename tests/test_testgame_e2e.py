"""The design's test of "a game is one package": Dice Race, a game that exists
only under tests/ (tests/testgames/dicerace), plays end to end through the
real platform: the JSON API, the lobby, Socket.IO phones, a class session
with a computer player, the facilitator's game and table moderation, replay
and the debrief report. No platform file names it: the app learns of it from
the `GAME_MODULES` setting alone.

Everything here speaks the wire protocol of shared/DESIGN.md; each test is
bounded in time and its players' choices are seeded.
"""
from __future__ import annotations

import json
import random
import time

import pytest

from app.engines.contract import strip_label
from app.extensions import services
from conftest import make_app
from phones import seated

GAME = "dicerace"
PRIVATE_LOG = {"roll", "lucky", "my_vote"}  # log kinds only their own seat may see
TIME_LIMIT = 25.0  # seconds any one race may take


@pytest.fixture
def app(tmp_path):
    """The test app, told about the test-only game by its dotted module name."""
    app = make_app(tmp_path, GAME_MODULES=["testgames.dicerace"])
    yield app
    services(app).stop()


@pytest.fixture
def api(app, teacher_token):
    client = app.test_client()
    auth = {"Authorization": f"Bearer {teacher_token}"}

    def call(method, path, body=None, status=200):
        kwargs = {"headers": auth}
        if body is not None:
            kwargs["json"] = body
        response = getattr(client, method)(path, **kwargs)
        assert response.status_code == status, (method, path, response.status_code, response.get_data(as_text=True))
        return response

    return call


def new_table(api, **options) -> str:
    body = api("post", "/api/tables", {"game": GAME, "options": options} if options else {"game": GAME},
               status=201).get_json()
    return body["code"]


def play_until_ended(phones, rng: random.Random, timeout: float = TIME_LIMIT) -> dict:
    """Each phone picks a random action from its latest view and sends it, until
    the race ends. Computer seats move on their own (background tasks), so a
    phone with nothing to do waits for them. A `stale` answer brings the fresh
    view, which the next pick uses."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        moved = False
        for p in phones:
            view = p.pump()
            if view["status"] == "ended":
                for other in phones:
                    other.pump()
                return view
            if view["status"] != "playing" or view.get("paused") or not view["actions"]:
                continue
            action = strip_label(rng.choice(view["actions"]))
            ack = p.act(action, version=view["version"])
            assert ack["ok"] or ack["error"]["code"] == "stale", (action, ack)
            moved = True
        if not moved:
            time.sleep(0.01)
    raise AssertionError(f"the race did not end within {timeout} seconds")


def check_views(p, seat=None):
    """Every view this connection received: labelled actions, a prompt in words,
    and no other seat's secrets."""
    views = p.received("view")
    assert views, "no view arrived"
    for payload in views:
        assert payload["game"] == GAME
        for action in payload["actions"]:
            assert isinstance(action.get("label"), str) and action["label"].strip(), action
        if payload["status"] != "lobby":
            prompt = payload["view"]["prompt"]
            assert isinstance(prompt["waiting_for"], list) and prompt["text"], prompt
            assert set(payload["view"]) == {"public", "private", "prompt"}
            private = payload["view"]["private"]
            if seat is None:
                assert private == {}
            else:
                assert private["seat"] == seat and 1 <= private["lucky"] <= 5
        for entry in payload["log"]:
            if entry.get("t") in PRIVATE_LOG:
                assert seat is not None and entry.get("seat") == seat, f"{entry} reached {seat!r}"
    return views


def check_replay(tables, code):
    table = tables.get(code)
    assert table.state is not None
    assert tables.replay(code) == table.state


# ------------------------------------------------------------------ the API
def test_the_game_is_listed_and_a_table_is_created_through_the_api(app, api):
    games = {g["key"]: g for g in app.test_client().get("/api/games").get_json()}
    assert GAME in games
    listed = games[GAME]
    assert listed["title"] == "Dice Race" and listed["version"] == "dicerace-1"
    assert (listed["min_seats"], listed["max_seats"]) == (2, 4)
    assert listed["order_free"] == ["move", "vote"]
    assert [(o["key"], o["default"]) for o in listed["options"]] == [("goal", 20)]

    code = new_table(api)
    summary = api("get", f"/api/tables/{code}").get_json()
    assert summary["game"] == GAME and summary["status"] == "lobby"
    assert summary["options"] == {"goal": 20} and summary["engine_version"] == "dicerace-1"
    quick = new_table(api, preset="quick")
    assert api("get", f"/api/tables/{quick}").get_json()["options"] == {"goal": 10}
    refused = api("post", "/api/tables", {"game": GAME, "options": {"goal": 21}}, status=400).get_json()
    assert refused["ok"] is False and refused["error"]["code"] == "bad_request"


# ------------------------------------------------------- one table, 3 phones
def test_three_phones_race_to_the_end_then_replay_and_the_debrief(app, api, phone, tables):
    code = new_table(api)
    board = phone()
    assert board.send("watch", {"code": code})["ok"]
    ana, ben, cara = seated(phone, code, "Ana", "Ben", "Cara")
    assert [p.seat for p in (ana, ben, cara)] == [0, 1, 2]
    lobby_start = ana.pump()["actions"]
    assert [a["type"] for a in lobby_start] == ["start"]
    assert ana.act({"type": "start"})["ok"]  # the lobby's start: a table event

    first = ana.pump()
    assert first["status"] == "playing"
    # The game's own first move is also called "start": the round leader starts round 1.
    assert [strip_label(a) for a in first["actions"]] == [{"type": "start"}]
    assert first["view"]["prompt"] == {"waiting_for": [0], "text": "Start round 1."}
    assert ben.pump()["actions"] == [] and ben.view["view"]["prompt"]["waiting_for"] == [0]

    final = play_until_ended([ana, ben, cara], random.Random(2024))
    result = final["view"]["public"]["result"]
    assert result["reason"] == "goal" and sorted(result["ranking"]) == [0, 1, 2]
    assert max(result["scores"]) >= 20 and result["winners"]
    assert all(p.view["status"] == "ended" and p.view["actions"] == [] for p in (ana, ben, cara))
    refused = ana.act({"type": "move"})
    assert refused["ok"] is False and refused["error"]["code"] == "game_over"

    # Every view had a prompt and labelled actions; nobody saw another seat's secrets.
    for p in (ana, ben, cara):
        check_views(p, p.seat)
        for other in (ana, ben, cara):
            if other is not p:
                assert json.dumps(other.view["view"]["private"]) not in json.dumps(p.view)
    check_views(board)

    # Replay tells the lobby's start (a table event) from the game's start, move and
    # resume (game actions): the rebuilt state is the stored one.
    check_replay(tables, code)
    events = tables.events(code)
    starts = [e.kind for e in events if e.action.get("type") == "start"]
    assert starts.count("table") == 1 and starts.count("game") >= 4  # at least four rounds to reach 20
    game_types = {e.action["type"] for e in events if e.kind == "game"}
    assert {"start", "move", "vote", "resume"} <= game_types  # the checkpoint after round 3 always comes
    assert all("label" not in e.action for e in events)

    log = api("get", f"/api/tables/{code}/log.json").get_json()
    assert log["engine_version"] == "dicerace-1"
    assert {r["id"] for r in log["rulings"]} <= {"dicerace.tie_vote_is_steady"}

    pdf = api("get", f"/api/tables/{code}/debrief.pdf")
    assert pdf.mimetype == "application/pdf" and pdf.data.startswith(b"%PDF")


# ------------------------------------------------------------- concurrency
def test_rolls_and_votes_are_order_free_but_going_on_is_not(api, phone, tables):
    code = new_table(api, goal=30)  # nobody can finish before the first checkpoint
    ana, ben = seated(phone, code, "Ana", "Ben")
    assert ana.act({"type": "start"})["ok"]
    for number in (1, 2, 3):
        leader = (ana, ben)[(number - 1) % 2]
        assert leader.act({"type": "start"})["ok"], number
        old = ben.pump()["version"]
        assert ana.act({"type": "move"})["ok"]
        ack = ben.act({"type": "move"}, version=old)  # chosen before Ana's roll arrived: still counts
        assert ack["ok"], ack
    public = ana.pump()["view"]["public"]
    assert public["phase"] == "vote" and public["vote_open"] and public["round"] == 3

    old = ben.pump()["version"]
    assert ana.act({"type": "vote", "choice": "sprint"})["ok"]
    assert ben.act({"type": "vote", "choice": "steady"}, version=old)["ok"]  # order-free too
    closed = ana.pump()["view"]["public"]["last_vote"]
    assert closed["votes"] == ["sprint", "steady"] and closed["decision"] == "steady"

    old = ben.pump()["version"]
    assert ana.act({"type": "resume"})["ok"]  # the game's "I'm ready", not the teacher's resume
    stale = ben.act({"type": "resume"}, version=old)
    assert stale["ok"] is False and stale["error"]["code"] == "stale"
    assert ben.view["version"] == old + 1  # the fresh view came with the error
    assert ben.act({"type": "resume"})["ok"]
    assert [strip_label(a) for a in ben.pump()["actions"]] == [{"type": "start"}]  # round 4: Ben leads

    log = api("get", f"/api/tables/{code}/log.json").get_json()
    assert [r["id"] for r in log["rulings"]] == ["dicerace.tie_vote_is_steady"]  # one sprint, one steady
    check_replay(tables, code)


# ------------------------------------------------------ facilitator moderation
def test_the_facilitators_game_action_and_the_platforms_moderation(app, api, phone, tables, teacher_token):
    code = new_table(api)
    ana, ben = seated(phone, code, "Ana", "Ben")
    assert ana.act({"type": "start"})["ok"]
    fac = phone(auth={"token": teacher_token})
    assert fac.send("watch", {"code": code, "role": "facilitator"})["ok"]
    offered = [a for a in fac.pump()["actions"] if a.get("type") == "bonus"]
    assert [a["seat"] for a in offered] == [0, 1]
    assert all(a["label"] for a in offered) and offered[1]["label"] == "Give Ben a +2 bonus"

    def moderate(action, **extra):
        fac.pump()
        return fac.send("moderate", dict({"code": code, "version": fac.view["version"], "action": action}, **extra))

    ack = moderate({"type": "bonus", "seat": 1}, scope="game")
    assert ack["ok"], ack
    seen = ben.pump()
    assert seen["view"]["public"]["players"][1]["position"] == 2
    assert any(e.get("t") == "bonus" and e.get("seat") == 1 for e in seen["log"])
    again = moderate({"type": "bonus", "seat": 1}, scope="game")  # once a round
    assert again["ok"] is False and again["error"]["code"] == "illegal"
    # A game action the facilitator may not take is refused, not mistaken for a table event.
    seat_only = moderate({"type": "resume"}, scope="game")
    assert seat_only["ok"] is False and seat_only["error"]["code"] in ("forbidden", "illegal")
    assert not ben.pump()["paused"]

    # The platform's own moderation still works without a scope, even with names the game uses.
    assert moderate({"type": "pause"})["ok"]
    assert ana.pump()["paused"] and ana.view["actions"] == []
    blocked = ana.act({"type": "start"})
    assert blocked["ok"] is False and blocked["error"]["code"] == "forbidden"
    assert moderate({"type": "resume"})["ok"]
    assert not ana.pump()["paused"]
    assert [strip_label(a) for a in ana.view["actions"]] == [{"type": "start"}]
    assert ana.act({"type": "start"})["ok"]  # round 1, the game's start
    for p in (ben, ana):
        assert p.act({"type": "move"})["ok"]
    check_replay(tables, code)

    # The platform's end: the game's finish() ranks by position.
    assert moderate({"type": "end"})["ok"]
    final = ana.pump()
    assert final["status"] == "ended"
    result = final["view"]["public"]["result"]
    positions = [p["position"] for p in final["view"]["public"]["players"]]
    assert result["reason"] == "ended_by_facilitator" and result["scores"] == positions
    assert result["ranking"] == sorted(range(2), key=lambda s: (-positions[s], s))
    check_replay(tables, code)
    kinds = [(e.kind, e.action.get("type")) for e in tables.events(code)]
    assert ("game", "bonus") in kinds and ("table", "pause") in kinds and ("table", "resume") in kinds
    check_views(ana, 0)
    check_views(ben, 1)


# ------------------------------------------------- a class, solo vs computer
def test_a_solo_class_table_plays_against_the_computer(app, api, phone, tables):
    created = api("post", "/api/classes", {"game": GAME, "table_size": "solo"}, status=201).get_json()
    code = created["code"]
    assert api("get", f"/api/classes/{code}").get_json()["table_size"] == "solo"
    zoe, = seated(phone, code, "Zoe")
    assert zoe.table != code and zoe.seat == 0
    assert [(p["name"], p["computer"]) for p in zoe.pump()["players"]] == [("Zoe", False), ("Computer", True)]

    started = api("post", f"/api/classes/{code}/start").get_json()
    assert started["status"] == "playing"
    assert [t["status"] for t in started["tables"]] == ["playing"]
    final = play_until_ended([zoe], random.Random(7))
    result = final["view"]["public"]["result"]
    assert result["reason"] == "goal" and sorted(result["ranking"]) == [0, 1]

    events = tables.events(zoe.table)
    computer = [e for e in events if e.kind == "game" and e.actor.startswith("seat:1")]
    assert {e.action["type"] for e in computer} >= {"move", "vote", "resume"}  # it rolled, voted and went on
    assert {e.action["type"] for e in computer} <= {"start", "move", "vote", "resume"}
    check_replay(tables, zoe.table)
    check_views(zoe, 0)

    overview = api("get", f"/api/classes/{code}/overview").get_json()
    table = next(t for t in overview["tables"] if t["code"] == zoe.table)
    assert table["status"] == "ended" and table["progress"]["goal"] == 20
    assert table["progress"]["value"] == max(result["scores"])
    assert sorted(e["score"] for e in overview["leaders"]) == sorted(result["scores"])

    pdf = api("get", f"/api/classes/{code}/debrief.pdf")
    assert pdf.mimetype == "application/pdf" and pdf.data.startswith(b"%PDF")
