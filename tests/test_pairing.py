"""Class sessions of a two-seat game (the Wizard duel): students are paired as they
arrive, an odd student plays the computer, the class board shows every match's
figures (its `lines`: each wizard's leader and client willpower, the last dice roll),
and the teacher re-pairs students before a match starts and ends matches from the
overview. Nothing here is Wizard-specific in the platform: the game's spec (tables of
2, a solo computer) and its figures decide it."""
from __future__ import annotations

import time

import pytest

from phones import seated

from app.extensions import services

GAME = "wizard"


@pytest.fixture
def api(app, teacher_token):
    client = app.test_client()
    auth = {"Authorization": f"Bearer {teacher_token}"}

    def call(method, path, body=None, status=200):
        kwargs = {"headers": auth}
        if body is not None:
            kwargs["json"] = body
        response = getattr(client, method)(path, **kwargs)
        assert response.status_code == status, (response.status_code, response.get_json())
        return response.get_json()

    return call


@pytest.fixture
def classes(app):
    return services(app).classes


def layout(api, code):
    return [[(s["name"], s["computer"]) for s in t["seats"]] for t in api("get", f"/api/classes/{code}")["tables"]]


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out")


def roll_initiative(phones):
    """Each phone rolls while the game asks it to, until nobody is asked to roll."""
    for _ in range(20):
        asked = [p for p in phones if p.can("roll")]
        if not asked:
            return
        assert asked[0].act(next(a for a in asked[0].view["actions"] if a["type"] == "roll"))["ok"]
    raise AssertionError("initiative never settled")


def test_students_are_paired_as_they_arrive_and_an_odd_one_plays_the_computer(api, phone, tables):
    code = api("post", "/api/classes", {"game": GAME, "fill_with_computer": True}, status=201)["code"]
    assert api("get", f"/api/classes/{code}")["table_size"] == 2  # the spec's default: pairs
    students = seated(phone, code, "Ana", "Ben", "Cara", "Dan", "Eve")
    assert layout(api, code) == [[("Ana", False), ("Ben", False)], [("Cara", False), ("Dan", False)],
                                 [("Eve", False)]]
    assert students[0].table == students[1].table != students[2].table
    started = api("post", f"/api/classes/{code}/start")
    assert [[(s["name"], s["computer"]) for s in t["seats"]] for t in started["tables"]] == [
        [("Ana", False), ("Ben", False)], [("Cara", False), ("Dan", False)], [("Eve", False), ("Computer", True)]]
    assert all(t["status"] == "playing" for t in started["tables"])
    for p in students:
        assert p.pump()["status"] == "playing"
        assert tables.get(p.table).options["match"] == "table"
    # Eve's duel is against the computer: it pauses for her Continue and she rolls every die.
    eve = tables.get(students[4].table)
    assert eve.state["options"]["opponent"] == "computer" and tables.replay(eve.code) == eve.state
    assert tables.get(students[0].table).state["options"]["opponent"] == "human"


def test_a_late_arrival_waits_for_a_partner_or_plays_the_computer(api, phone):
    code = api("post", "/api/classes", {"game": GAME}, status=201)["code"]
    seated(phone, code, "Ana", "Ben")
    api("post", f"/api/classes/{code}/start")
    zoe, = seated(phone, code, "Zoe")
    yan, = seated(phone, code, "Yan")  # the next arrival is Zoe's partner
    assert zoe.table == yan.table
    assert yan.pump()["players"][0]["name"] == "Zoe"
    xia, = seated(phone, code, "Xia")  # alone: the teacher starts her against the computer
    body = api("post", f"/api/classes/{code}/tables/{xia.table}/start")
    table = next(t for t in body["tables"] if t["code"] == xia.table)
    assert [(s["name"], s["computer"]) for s in table["seats"]] == [("Xia", False), ("Computer", True)]
    assert xia.pump()["status"] == "playing"


def test_the_teacher_re_pairs_students_before_their_match_starts(api, phone):
    code = api("post", "/api/classes", {"game": GAME}, status=201)["code"]
    ana, ben, cara = seated(phone, code, "Ana", "Ben", "Cara")
    # Ben joins Cara, whose partner never came; Ana now waits alone.
    body = api("post", f"/api/classes/{code}/move", {"table": ana.table, "seat": 1, "to": cara.table})
    assert sorted(body["changed"]) == sorted([ana.table, cara.table])
    assert layout(api, code) == [[("Ana", False)], [("Cara", False), ("Ben", False)]]
    assert ben.pump()["code"] == cara.table
    # A pair is full: a third wizard cannot be moved in.
    body = api("post", f"/api/classes/{code}/move", {"table": ana.table, "seat": 0, "to": cara.table}, status=409)
    assert body["error"]["code"] == "table_full"
    # And a match under way keeps its pair.
    api("post", f"/api/classes/{code}/tables/{cara.table}/start")
    body = api("post", f"/api/classes/{code}/move", {"table": cara.table, "seat": 1, "to": ana.table}, status=422)
    assert body["error"]["code"] == "illegal"


def test_the_class_board_shows_every_match_and_the_teacher_ends_one(app, api, phone, classes, tables):
    code = api("post", "/api/classes", {"game": GAME, "fill_with_computer": True}, status=201)["code"]
    ana, ben, cara = seated(phone, code, "Ana", "Ben", "Cara")
    api("post", f"/api/classes/{code}/start")
    roll_initiative([ana, ben])
    board = classes.public_overview(code)
    first = next(t for t in board["tables"] if t["players"][0]["name"] == "Ana")
    assert first["status"] == "playing" and len(first["lines"]) == 3
    assert first["lines"][0].startswith("Ana (leader ") and "willpower in 1 client" in first["lines"][0]
    assert first["lines"][1].startswith("Ben (leader ")
    assert {"Apa Nochis", "Sarapion"} <= set(" ".join(first["lines"]).replace("(leader ", "|").replace(")", "|")
                                             .split("|"))
    assert first["lines"][2].startswith("Last roll: initiative Ana ")
    solo = next(t for t in board["tables"] if t["players"][0]["name"] == "Cara")
    assert [p["computer"] for p in solo["players"]] == [False, True]
    # The facilitator's overview has the same lines, plus its controls.
    overview = classes.overview(code)
    mine = next(t for t in overview["tables"] if t["code"] == ana.table)
    assert mine["lines"] == first["lines"] and mine["can"]["end"]
    assert [e["name"] for e in overview["leaders"]][:2] and all(e["label"].endswith("willpower")
                                                                or "leader" in e["label"] for e in overview["leaders"])
    # An attack's roll replaces the initiative on the board once it is resolved.
    player = next(p for p in (ana, ben) if p.can("draw"))
    assert player.act(next(a for a in player.view["actions"] if a["type"] == "draw"))["ok"]
    # The teacher ends Ana and Ben's match from the overview: the board names its winners.
    api("post", f"/api/classes/{code}/end", {"table": ana.table})
    board = classes.public_overview(code)
    ended = next(t for t in board["tables"] if t["players"][0]["name"] == "Ana")
    assert ended["status"] == "ended" and ended["result"]["winners"]
    assert set(ended["result"]["winners"]) <= {"Ana", "Ben"}
    assert "most willpower" in ended["result"]["reason"]
    assert ana.pump()["status"] == "ended" and ben.pump()["status"] == "ended"
    assert next(t for t in board["tables"] if t["players"][0]["name"] == "Cara")["status"] == "playing"
    assert tables.replay(ana.table) == tables.get(ana.table).state
    # The projected board's page and the overview page load.
    assert app.test_client().get(f"/board/{code}").status_code == 200


def test_a_game_without_lines_shows_none(api, phone, classes):
    code = api("post", "/api/classes", {"game": "war", "table_size": 2}, status=201)["code"]
    seated(phone, code, "Ana", "Ben")
    api("post", f"/api/classes/{code}/start")
    assert all(t["lines"] == [] for t in classes.public_overview(code)["tables"])


# ------------------------------------------------- re-pairing after a match
@pytest.fixture
def app_context(app):
    """The debrief's data names the teacher, read through the app's accounts."""
    with app.app_context():
        yield


def record(tables, code):
    """Everything an ended table says about its match: the stored game, its events,
    replay, the board's and facilitator's views, the API summary and the debrief's data."""
    from app.reports import debrief_context

    t = tables.get(code)
    ctx = debrief_context(tables, code)
    views = {viewer: tables.view_for(code, viewer) for viewer in ("board", "facilitator")}
    return {"row": (t.status, t.version, t.state, t.options, t.seed),
            "events": [(e.version, e.kind, e.actor, e.action, e.log) for e in tables.events(code)],
            "replay": tables.replay(code),
            "seats": [(s["seat"], s["name"], s["computer"]) for s in tables.summary(code)["seats"]],
            "views": {viewer: (v["status"], v["result"], v["view"], v["log"], v["actions"],
                               [(p["seat"], p["name"], p["computer"]) for p in v["players"]])
                      for viewer, v in views.items()},
            "debrief": {k: ctx[k] for k in ("names", "result", "moments", "moves", "rulings", "notes")}}


def test_after_a_match_ends_the_teacher_re_pairs_its_students_for_the_next_one(app, api, phone, classes, tables, app_context):
    code = api("post", "/api/classes", {"game": GAME}, status=201)["code"]
    ana, ben, cara = seated(phone, code, "Ana", "Ben", "Cara")
    api("post", f"/api/classes/{code}/start")
    roll_initiative([ana, ben])
    old = ana.table
    # A match being played keeps its players: the teacher is told to end it first.
    body = api("post", f"/api/classes/{code}/move", {"table": old, "seat": 0, "to": "new"}, status=422)
    assert body["error"]["code"] == "illegal" and "end it first" in body["error"]["message"]
    api("post", f"/api/classes/{code}/end", {"table": old})
    assert ana.pump()["status"] == "ended"
    before = record(tables, old)
    assert before["seats"] == [(0, "Ana", False), (1, "Ben", False)] and before["debrief"]["result"]
    overview = classes.overview(code)
    card = next(t for t in overview["tables"] if t["code"] == old)
    assert card["can"]["move"] and not card["can"]["move_here"]

    # Ana to a new table, then Ben to hers: their phones follow, seat by seat.
    body = api("post", f"/api/classes/{code}/move", {"table": old, "seat": 0, "to": "new"})
    fresh = next(c for c in body["changed"] if c != old)
    view = ana.pump()
    assert view["code"] == fresh and view["status"] == "lobby" and view["seat"] == 0
    body = api("post", f"/api/classes/{code}/move", {"table": old, "seat": 1, "to": fresh})
    assert sorted(body["changed"]) == sorted([old, fresh])
    view = ben.pump()
    assert view["code"] == fresh and view["seat"] == 1 and [p["name"] for p in view["players"]] == ["Ana", "Ben"]
    # The finished match still lists who played; the new pair waits at its own table.
    assert layout(api, code) == [[("Ana", False), ("Ben", False)], [("Cara", False), ("Computer", True)],
                                 [("Ana", False), ("Ben", False)]]
    assert api("get", f"/api/classes/{code}")["students"] == 3
    overview = classes.overview(code)
    card = next(t for t in overview["tables"] if t["code"] == old)
    assert [p["moved"] for p in card["players"]] == [True, True] and not card["can"]["move"]
    assert card["moved"] == 2 and overview["counts"]["students"] == 3
    assert next(t for t in overview["tables"] if t["code"] == fresh)["can"]["move_here"]
    # A student who has moved on cannot be moved again from the old match.
    body = api("post", f"/api/classes/{code}/move", {"table": old, "seat": 0, "to": "new"}, status=422)
    assert "already moved" in body["error"]["message"]

    # The old token resumes at the new table, on any device.
    again = phone()
    assert again.send("resume", {"token": ana.token}) == {"ok": True, "seat": 0, "table": fresh, "name": "Ana"}
    assert again.view["code"] == fresh
    assert ana.send("resume", {"token": ana.token})["ok"]  # her phone takes the seat back (one device plays it)
    # And the new match starts and plays.
    assert ana.can("start")  # she is seat 0 with a partner now
    assert ana.act(next(a for a in ana.view["actions"] if a["type"] == "start"))["ok"]
    assert ana.pump()["status"] == "playing" and ben.pump()["status"] == "playing"
    roll_initiative([ana, ben])
    assert tables.replay(fresh) == tables.get(fresh).state
    assert [e.action for e in tables.events(fresh) if e.action["type"] == "start"][0]["seats"] == ["Ana", "Ben"]

    # The ended match's record is exactly as it was: game, events, replay, views, report.
    assert record(tables, old) == before
    # Its old seat cannot be taken over any more (its row kept a token nobody holds).
    assert all(s.token_hash not in (tables.seats(fresh)[0].token_hash, tables.seats(fresh)[1].token_hash)
               for s in tables.seats(old))
    with app.app_context():
        from app.reports import debrief_html
        html = debrief_html(tables, old)
    assert "Ana" in html and "Ben" in html


def test_re_pairing_refuses_bad_moves_and_changes_nothing(api, phone, classes, tables, other_teacher, app, app_context):
    """War tables of two: a student of a finished match joins a student of another."""
    code = api("post", "/api/classes", {"game": "war", "table_size": 2}, status=201)["code"]
    ana, ben, cara, dan = seated(phone, code, "Ana", "Ben", "Cara", "Dan")
    api("post", f"/api/classes/{code}/start")
    first, second = ana.table, cara.table
    api("post", f"/api/classes/{code}/end", {"table": first})
    other = classes.create(other_teacher.id, "war", {}, 2)
    intruder, = seated(phone, other.code, "Zed")

    def snapshot():
        return (api("get", f"/api/classes/{code}"), record(tables, first),
                [(s.id, s.table_id, s.seat_index, s.token_hash, s.moved_to) for c in (first, second)
                 for s in tables.seats(c)])

    before = snapshot()
    refusals = [
        ({"table": first, "seat": 5, "to": "new"}, 400, "bad_request"),         # nobody in that seat
        ({"table": first, "seat": "0", "to": "new"}, 400, "bad_request"),
        ({"table": first, "seat": 0, "to": intruder.table}, 404, "unknown_table"),  # another class's table
        ({"table": intruder.table, "seat": 0, "to": "new"}, 404, "unknown_table"),
        ({"table": "NOPE42", "seat": 0, "to": "new"}, 404, "unknown_table"),
        ({"table": first, "seat": 0, "to": second}, 422, "illegal"),             # a match under way takes no one
        ({"table": second, "seat": 0, "to": "new"}, 422, "illegal"),             # nor gives anyone up
        ({"table": first, "seat": 0, "to": first}, 422, "illegal"),              # an ended table takes no one
    ]
    for body, status, error in refusals:
        answer = api("post", f"/api/classes/{code}/move", body, status=status)
        assert answer["error"]["code"] == error, (body, answer)
    assert snapshot() == before
    assert tables.seats(intruder.table)[0].name == "Zed" and len(tables.seats(intruder.table)) == 1

    # Ana goes to a new table; Cara joins her once her own match has ended; the pair plays War.
    body = api("post", f"/api/classes/{code}/move", {"table": first, "seat": 0, "to": "new"})
    fresh = next(c for c in body["changed"] if c != first)
    api("post", f"/api/classes/{code}/end", {"table": second})
    api("post", f"/api/classes/{code}/move", {"table": second, "seat": 0, "to": fresh})
    assert ana.pump()["code"] == fresh and cara.pump()["code"] == fresh
    assert [p["name"] for p in cara.view["players"]] == ["Ana", "Cara"]
    # Ana's table is full now: Ben and Dan cannot both join it.
    body = api("post", f"/api/classes/{code}/move", {"table": first, "seat": 1, "to": fresh}, status=409)
    assert body["error"]["code"] == "table_full"
    body = api("post", f"/api/classes/{code}/tables/{fresh}/start")
    assert next(t for t in body["tables"] if t["code"] == fresh)["status"] == "playing"
    assert ana.pump()["status"] == "playing" and cara.pump()["status"] == "playing"
    assert ana.can("reveal") and ana.act({"type": "reveal"})["ok"]
    assert tables.replay(fresh) == tables.get(fresh).state
    assert record(tables, first)["row"] == before[1]["row"]
    assert record(tables, first)["events"] == before[1]["events"]
    # Ben is still at the finished table's record, and may still be moved on.
    api("post", f"/api/classes/{code}/move", {"table": first, "seat": 1, "to": "new"})
    assert ben.pump()["code"] not in (first, fresh) and ben.view["status"] == "lobby"
