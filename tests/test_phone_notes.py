"""Playtest notes from phones (issue 21): the teacher's switch per table and per class, its
effect on the phones' view and on what the server accepts, and the teacher's message
counting the phones it reached."""
from __future__ import annotations

import pytest

from phones import seated

from app.extensions import services
from app.store.models import ClassSession
from test_classes import api, error_of, new_class  # noqa: F401 - the `api` fixture and its helpers


@pytest.fixture
def fac_phone(phone, teacher_token):
    return phone(auth={"token": teacher_token})


def notes_on_table(app, code) -> list[str]:
    return [n.text for n in services(app).tables.notes(code)]


def test_a_class_starts_with_phone_notes_off_and_the_teacher_turns_them_on_for_every_phone(app, api, phone):
    code = new_class(api, table_size=2)
    ana, ben, cara = seated(phone, code, "Ana", "Ben", "Cara")
    first, second = ana.table, cara.table
    assert first != second
    assert ana.pump()["phone_notes"] is False and cara.pump()["phone_notes"] is False
    assert services(app).classes.overview(code)["phone_notes"] is False
    message = error_of(ana.send("note", {"text": "The tie rule confused us"}), "forbidden")
    assert "playtest notes" in message
    assert notes_on_table(app, first) == []

    body = api("post", f"/api/classes/{code}/notes", {"on": True})
    assert sorted(body["changed"]) == sorted([first, second])
    # Live: each phone's next view carries the switch.
    assert ana.pump()["phone_notes"] is True and ben.pump()["phone_notes"] is True
    assert cara.pump()["phone_notes"] is True
    assert ana.send("note", {"text": "The tie rule confused us"})["ok"]
    assert notes_on_table(app, first) == ["The tie rule confused us"]
    # Kept: on the class row, in its overview, and for a table the class opens later.
    with services(app).tables.store.session() as s:
        assert s.get(ClassSession, services(app).classes.get(code).id).phone_notes is True
    assert services(app).classes.overview(code)["phone_notes"] is True
    dan, eve = seated(phone, code, "Dan", "Eve")
    assert eve.table not in (first, second)
    assert eve.pump()["phone_notes"] is True
    # Again on: nothing to change. Off: the phones lose the box and their notes are refused.
    assert api("post", f"/api/classes/{code}/notes", {"on": True})["changed"] == []
    api("post", f"/api/classes/{code}/notes", {"on": False})
    assert ana.pump()["phone_notes"] is False and eve.pump()["phone_notes"] is False
    error_of(eve.send("note", {"text": "late"}), "forbidden")
    assert notes_on_table(app, eve.table) == []
    error_of(api("post", f"/api/classes/{code}/notes", {"on": "yes"}, status=400), "bad_request")


def test_a_teachers_own_table_takes_phone_notes_until_she_turns_them_off(app, phone, fac_phone, war_table):
    code = war_table.code
    ana, ben = seated(phone, code, "Ana", "Ben")
    assert ana.pump()["phone_notes"] is True
    assert ana.send("note", {"text": "first"})["ok"]
    assert fac_phone.send("watch", {"code": code, "role": "facilitator"})["ok"]
    assert fac_phone.view["phone_notes"] is True
    ack = fac_phone.send("moderate", {"code": code, "version": fac_phone.view["version"],
                                      "action": {"type": "notes_off"}})
    assert ack["ok"]
    assert ana.pump()["phone_notes"] is False and ben.pump()["phone_notes"] is False
    error_of(ben.send("note", {"text": "second"}), "forbidden")
    # The teacher's own note is always taken.
    assert fac_phone.send("note", {"text": "Ben looked lost"})["ok"]
    assert notes_on_table(app, code) == ["first", "Ben looked lost"]
    # Stored with the table: a fresh read of the row and of the live copy agree.
    tables = services(app).tables
    tables.forget(code)
    assert tables.get(code).phone_notes is False
    assert tables.view_for(code, 0)["phone_notes"] is False
    assert "already off" in error_of(fac_phone.send("moderate", {"code": code, "version": fac_phone.view["version"],
                                                                 "action": {"type": "notes_off"}}), "illegal")
    # After the game, the moment a note is most worth writing, the switch still works.
    fac_phone.send("moderate", {"code": code, "version": fac_phone.view["version"], "action": {"type": "end"}})
    assert ana.pump()["status"] == "ended"
    assert fac_phone.send("moderate", {"code": code, "version": fac_phone.view["version"],
                                       "action": {"type": "notes_on"}})["ok"]
    assert ana.pump()["phone_notes"] is True
    assert ana.send("note", {"text": "after the game"})["ok"]


def test_the_teachers_message_counts_the_phones_it_reached(api, phone):
    code = new_class(api, table_size=2)
    students = seated(phone, code, *[f"P{k}" for k in range(4)])
    assert api("post", f"/api/classes/{code}/message", {"text": "Hello"})["sent"] == 4
    students[3].close()
    assert api("post", f"/api/classes/{code}/message", {"text": "Tidy up"})["sent"] == 3
    assert [p.received("message")[-1] for p in students[:3]] == [{"text": "Tidy up"}] * 3
