"""Play again (issue 21, "Endings that lead somewhere"): a rematch is a new table with the
same game, options, settings and seats; every human seat's token moves there, so phones
land in the new game without joining again; the old table keeps its record and report;
the players agree one by one (the teacher at once); a removed student is not carried over.
In a class: Play again for all, and a new round at new tables."""
from __future__ import annotations

import pytest

from phones import seated
from sqlmodel import Session, select

from app.edge.security import hash_token
from app.errors import ServiceError
from app.extensions import services
from app.reports import table_data
from app.store.models import GameTable, Seat

OPTIONS = {"mode": "classic", "length": "5_minutes"}


def publish(app, outcome):
    """What a handler does with a service's outcome: every screen gets its view."""
    with app.app_context():
        services(app).notifier.publish(outcome)


def ended_table(app, tables, teacher, phone, names=("Ana", "Ben", "Cara"), computers=0, **settings):
    """A teacher's War table whose game was played a little and then ended by the teacher."""
    table = tables.create_table(teacher.id, "war", dict(OPTIONS), **settings)
    phones = seated(phone, table.code, *names)
    for _ in range(computers):
        services(app).classes.add_computer_seat(table.code)
    publish(app, tables.moderate(teacher.id, table.code, tables.get(table.code).version, {"type": "start"}))
    assert phones[1].act({"type": "reveal"})["ok"]
    publish(app, tables.moderate(teacher.id, table.code, tables.get(table.code).version, {"type": "end"}))
    for p in phones:
        assert p.pump()["status"] == "ended"
    return table.code, phones


def count_tables(app) -> int:
    with Session(services(app).db) as s:
        return len(s.exec(select(GameTable.id)).all())


def board_of(phone, code):
    board = phone()
    assert board.send("watch", {"code": code})["ok"]
    return board


def test_the_teachers_play_again_opens_a_new_table_with_the_same_seats_and_moves_every_token(
        app, tables, teacher, phone):
    code, (ana, ben, cara) = ended_table(app, tables, teacher, phone, computers=1, name_filter=False,
                                         text_approval=True, phone_notes=False, lesson_minutes=20)
    before = tables.get(code)
    events_before = [(e.version, e.kind, e.action) for e in tables.events(code)]
    with app.app_context():
        report_before = table_data(tables, code)
    board = board_of(phone, code)
    assert board.view["again"] == {"offered": True, "ready": [], "players": [0, 1, 2], "next": None}
    assert tables.view_for(code, "facilitator")["moderation"] == [{"type": "again", "label": "Play again"}]

    # From any version the teacher saw: playing again means the same whatever the view showed.
    outcome = tables.moderate(teacher.id, code, 0, {"type": "again"})
    publish(app, outcome)
    new = outcome.follow[0].code
    assert new != code
    row = tables.get(new)
    assert (row.game, row.options, row.facilitator_id, row.class_id, row.name_filter, row.text_approval,
            row.phone_notes, row.lesson_minutes, row.status) == (
        "war", before.options, teacher.id, None, False, True, False, 20, "playing")
    assert "lesson" in tables.view_for(new, "board")["deadlines"]  # its own lesson clock, from its deal
    assert [(x.seat_index, x.name, x.computer) for x in tables.seats(new)] == [
        (0, "Ana", False), (1, "Ben", False), (2, "Cara", False), (3, "Computer", True)]
    assert tables.replay(new)["names"] == ["Ana", "Ben", "Cara", "Computer"]

    # Each phone is in the new game, and its old token plays there (a resume too).
    for p in (ana, ben, cara):
        view = p.pump()
        assert (view["code"], view["status"], view["players"][view["seat"]]["name"]) == (new, "playing", p.name)
    # The reveal as listed (naming its battle): the computer seat may have moved since Ben looked.
    reveal = next(a for a in ben.pump()["actions"] if a["type"] == "reveal")
    assert ben.act({k: v for k, v in reveal.items() if k != "label"})["ok"]
    assert phone().send("resume", {"token": cara.token})["table"] == new

    # The old table: the same state, the same game events, the same report; its seats are its record.
    old = tables.get(code)
    assert old.status == "ended" and old.state == before.state
    assert [(e.version, e.kind, e.action) for e in tables.events(code)][:-1] == events_before
    assert tables.events(code)[-1].action == {"type": "rematch", "to": new}
    with app.app_context():
        report_after = table_data(tables, code)
    assert [e.version for e in report_after["events"]] == [e.version for e in report_before["events"]]
    assert report_after["names"] == report_before["names"]
    with Session(services(app).db) as s:
        old_seats = s.exec(select(Seat).where(Seat.table_id == before.id).order_by(Seat.seat_index)).all()
        new_ids = {x.id for x in tables.seats(new)}
    assert [x.name for x in old_seats] == ["Ana", "Ben", "Cara", "Computer"]
    assert all(x.moved_to in new_ids for x in old_seats[:3]) and old_seats[3].moved_to is None
    assert hash_token(ana.token) not in {x.token_hash for x in old_seats}

    # Its board and teacher's page learn where everyone went, and follow.
    assert board.pump()["again"]["next"] == new
    assert tables.view_for(code, "facilitator")["moderation"] == []
    with pytest.raises(ServiceError) as twice:
        tables.moderate(teacher.id, code, tables.get(code).version, {"type": "again"})
    assert twice.value.code == "illegal" and new in twice.value.message
    assert len(tables.tables_of(teacher.id)) == 2  # nothing more was opened


def test_the_players_agree_one_by_one_and_the_last_tap_deals(app, tables, teacher, phone):
    code, (ana, ben, cara) = ended_table(app, tables, teacher, phone, computers=1)
    board = board_of(phone, code)
    ack = ana.send("again", {})
    assert ack["ok"] and ack["table"] is None
    assert board.pump()["again"]["ready"] == [0]
    assert ben.pump()["again"]["ready"] == [0]  # every phone counts "1 of 3"
    twice = ana.send("again", {})
    assert not twice["ok"] and twice["error"]["code"] == "illegal"
    assert ben.send("again", {})["ok"]
    assert cara.pump()["again"] == {"offered": True, "ready": [0, 1], "players": [0, 1, 2], "next": None}
    assert tables.get(code).status == "ended" and len(tables.tables_of(teacher.id)) == 1  # not yet
    last = cara.send("again", {})
    assert last["ok"] and last["table"] not in (None, code)
    new = last["table"]
    for p in (ana, ben, cara):
        assert p.pump()["code"] == new and p.view["status"] == "playing"
    assert board.pump()["again"]["next"] == new
    follower = board_of(phone, new)  # the board that followed sees the new game
    assert follower.view["status"] == "playing" and [x["name"] for x in follower.view["players"]] == [
        "Ana", "Ben", "Cara", "Computer"]
    # A late tap from the old end screen: the game is being played, nothing changes.
    late = ana.send("again", {})
    assert not late["ok"] and late["error"]["code"] == "illegal"
    # The taps are table events of the ended table, left out of its report.
    assert [e.action["type"] for e in tables.events(code)][-3:] == ["again", "again", "rematch"]
    with app.app_context():
        assert not any(e.action.get("type") in ("again", "rematch") for e in table_data(tables, code)["events"])


def test_play_again_is_refused_before_the_end_and_where_no_game_was_played(app, tables, teacher, phone):
    table = tables.create_table(teacher.id, "war", dict(OPTIONS))
    ana, ben = seated(phone, table.code, "Ana", "Ben")
    early = ana.send("again", {})
    assert not early["ok"] and early["error"]["code"] == "illegal"
    assert ana.act({"type": "start"})["ok"]
    version = tables.get(table.code).version
    playing = ben.send("again", {})
    assert not playing["ok"] and "ended" in playing["error"]["message"]
    with pytest.raises(ServiceError) as teacher_early:
        tables.moderate(teacher.id, table.code, version, {"type": "again"})
    assert teacher_early.value.code == "illegal"
    assert tables.get(table.code).version == version and len(tables.tables_of(teacher.id)) == 1
    assert not phone().send("again", {})["ok"]  # a connection without a seat
    assert not ana.send("again", [])["ok"]      # not an object
    # A table the teacher closed before its game started: nothing to play again.
    closed = tables.create_table(teacher.id, "war", dict(OPTIONS))
    (dan,) = seated(phone, closed.code, "Dan")
    publish(app, tables.moderate(teacher.id, closed.code, tables.get(closed.code).version, {"type": "end"}))
    refused = dan.send("again", {})
    assert not refused["ok"] and "closed" in refused["error"]["message"]
    assert "again" not in dan.pump()  # its end screen offers nothing to play again


def test_a_removed_student_is_not_carried_over(app, tables, teacher, phone):
    table = tables.create_table(teacher.id, "war", dict(OPTIONS))
    ana, ben, cara = seated(phone, table.code, "Ana", "Ben", "Cara")
    assert ana.act({"type": "start"})["ok"]
    publish(app, tables.moderate(teacher.id, table.code, tables.get(table.code).version, {"type": "kick", "seat": 2}))
    publish(app, tables.moderate(teacher.id, table.code, tables.get(table.code).version, {"type": "end"}))
    assert ana.pump()["again"]["players"] == [0, 1]  # Cara is not asked
    assert ana.send("again", {})["ok"]
    new = ben.send("again", {})["table"]
    assert [(x.name, x.computer) for x in tables.seats(new)] == [("Ana", False), ("Ben", False), ("Computer", True)]
    refused = phone().send("resume", {"token": cara.token})  # her token stayed with the old table, removed
    assert not refused["ok"] and refused["error"]["code"] == "forbidden"


@pytest.mark.parametrize("start, seats", [
    ("quick_match", [("Player", False), ("Computer", True)]),   # Quick Match, Tournament and Survival:
    ("tournament", [("Challenger", False)]),                     # the home page's quick starts
    ("survival", [("Survivor", False)])])
def test_a_table_without_a_teacher_plays_again_by_the_players_agreement(app, tables, phone, start, seats):
    demos = services(app).demos
    opened = demos.open("war", "203.0.113.9", start)
    me = phone()
    assert me.send("resume", {"token": opened["token"]})["ok"]
    with app.app_context():
        services(app).notifier.publish(tables.end_teacherless(opened["code"], "Time is up."))
    assert me.pump()["again"]["players"] == [0]
    # The rematch is a table opened without an account: a refused budget changes nothing.
    def refuse():
        raise ServiceError("rate_limited", "Please wait a few minutes.")
    with pytest.raises(ServiceError):
        tables.again(hash_token(opened["token"]), admit=refuse)
    assert tables.live(opened["code"], fresh=True).successor is None and count_tables(app) == 1
    ack = me.send("again", {})  # alone with the computer: one tap deals
    assert ack["ok"] and ack["table"]
    row = tables.get(ack["table"])
    assert (row.facilitator_id, row.demo, row.status, row.options) == (None, True, "playing",
                                                                       tables.get(opened["code"]).options)
    assert [(x.name, x.computer) for x in tables.seats(ack["table"])] == seats
    assert me.pump()["code"] == ack["table"]


def test_the_guided_demo_ends_with_an_invitation_not_a_rematch(app, tables, phone):
    opened = services(app).demos.open("storm_war", "203.0.113.10")
    me = phone()
    assert me.send("resume", {"token": opened["token"]})["ok"]
    with app.app_context():
        services(app).notifier.publish(tables.end_teacherless(opened["code"], "Time is up."))
    view = me.pump()
    assert view["guided"] is True and "again" not in view
    refused = me.send("again", {})
    assert not refused["ok"] and "home page" in refused["error"]["message"]


# ----------------------------------------------------------------------------- classes
@pytest.fixture
def api(app, teacher_token):
    client = app.test_client()

    def call(method, path, body=None, status=200):
        response = getattr(client, method)(path, headers={"Authorization": f"Bearer {teacher_token}"},
                                           **({"json": body} if body is not None else {}))
        assert response.status_code == status, (response.status_code, response.get_json())
        return response.get_json()

    return call


def pairs(api, code):
    return {t["code"]: [s["name"] for s in t["seats"]] for t in api("get", f"/api/classes/{code}")["tables"]
            if t["status"] == "playing"}


def end_each(api, code):
    for t in api("get", f"/api/classes/{code}")["tables"]:
        if t["status"] == "playing":
            api("post", f"/api/classes/{code}/end", {"table": t["code"]})


def test_a_class_plays_again_for_all_then_a_new_round_at_new_tables(app, api, phone, tables):
    code = api("post", "/api/classes", {"game": "war", "options": OPTIONS, "table_size": 2}, status=201)["code"]
    students = seated(phone, code, "Ana", "Ben", "Cara", "Dan")
    by_name = {p.name: p for p in students}
    api("post", f"/api/classes/{code}/start")
    first = pairs(api, code)
    assert sorted(first.values()) == [["Ana", "Ben"], ["Cara", "Dan"]]
    refused = api("post", f"/api/classes/{code}/again", status=422)  # nothing has finished yet
    assert refused["error"]["code"] == "illegal"
    end_each(api, code)
    overview = services(app).classes.overview(code)
    assert all(t["can"]["again"] for t in overview["tables"])

    # Play again for all: each table again, with the same players, at a new table.
    body = api("post", f"/api/classes/{code}/again")
    assert len(body["started"]) == 2
    again = pairs(api, code)
    assert set(again) == set(body["started"]) and set(again).isdisjoint(first)
    assert sorted(again.values()) == sorted(first.values())
    for p in students:
        view = p.pump()
        assert view["code"] in again and p.name in again[view["code"]] and view["status"] == "playing"
    assert not any(t["can"]["again"] for t in services(app).classes.overview(code)["tables"]
                   if t["code"] in first)
    # The class board shows where they play now; the finished matches are the teacher's record.
    board = services(app).classes.public_overview(code)["tables"]
    assert [t["status"] for t in board] == ["playing", "playing"]
    assert len(services(app).classes.overview(code)["tables"]) == 4

    # A new round: the students of the finished tables at new tables, new pairs (tablemates part).
    end_each(api, code)
    body = api("post", f"/api/classes/{code}/round")
    assert len(body["started"]) == 2
    third = pairs(api, code)
    assert set(third) == set(body["started"]) and set(third).isdisjoint(set(first) | set(again))
    assert sorted(sorted(v) for v in third.values()) == [["Ana", "Cara"], ["Ben", "Dan"]]
    for name, p in by_name.items():
        view = p.pump()
        assert view["code"] in third and name in third[view["code"]] and view["status"] == "playing"
        assert p.act({"type": "reveal"})["ok"], name  # and plays there
    # Once the class is closed, neither is offered.
    api("post", f"/api/classes/{code}/end")
    assert api("post", f"/api/classes/{code}/again", status=409)["error"]["code"] == "game_over"
    assert api("post", f"/api/classes/{code}/round", status=409)["error"]["code"] == "game_over"
