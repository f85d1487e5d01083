"""Class sessions: the API, joining with a class code, moves, steering every table,
the overview and the class debrief (the Socket.IO side through simulated phones)."""
from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest

from phones import seated
from sqlalchemy import update
from sqlmodel import Session

from app.edge.security import CODE_ALPHABET
from app.extensions import services
from app.store.models import Event, utcnow
from conftest import PASSWORD

SHORT_WAR_SEEDS = [7, 60, 29]  # four-player War games of at most 31 battles (found by simulating seeds)


@pytest.fixture
def api(app, auth):
    client = app.test_client()

    def call(method, path, body=None, headers=None, status=200):
        kwargs = {"headers": auth if headers is None else headers}
        if body is not None:
            kwargs["json"] = body
        response = getattr(client, method)(path, **kwargs)
        assert response.status_code == status, (response.status_code, response.get_json())
        return response.get_json()

    return call


@pytest.fixture
def classes(app):
    return services(app).classes


def new_class(api, **body):
    return api("post", "/api/classes", dict({"game": "war"}, **body), status=201)["code"]


def seat_students(phone, code, names):
    return seated(phone, code, *names)


def tables_of(api, code):
    return {t["code"]: [s["name"] for s in t["seats"]] for t in api("get", f"/api/classes/{code}")["tables"]}


def error_of(body, code):
    assert body["ok"] is False and body["error"]["code"] == code and body["error"]["message"], body
    return body["error"]["message"]


def logged_in(app, name="teacher"):
    """A browser session of a facilitator: (client, its CSRF token, as the pages embed it)."""
    client = app.test_client()
    client.get("/facilitator/login")
    with client.session_transaction() as sess:
        csrf = sess["csrf"]
    client.post("/facilitator/login", data={"name": name, "password": PASSWORD, "csrf": csrf})
    client.get("/facilitator/")  # logging in starts a fresh session; a page issues its CSRF token
    with client.session_transaction() as sess:
        return client, sess["csrf"]


def wait_for(predicate, timeout=10.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


# ------------------------------------------------------------------- API
def test_create_join_balance_and_start_through_the_api(api, phone, tables):
    created = api("post", "/api/classes", {"game": "war", "options": {"mode": "classic"}, "table_size": 4},
                  status=201)
    code = created["code"]
    assert re.fullmatch(f"[{CODE_ALPHABET}]{{6}}", code)
    assert created["overview_url"].endswith(f"/facilitator/classes/{code}")
    assert created["join_url"] == f"http://class.example:5000/join/{code}"
    empty = api("get", f"/api/classes/{code}")
    assert empty["tables"] == [] and empty["status"] == "lobby" and empty["table_size"] == 4

    phones = seat_students(phone, code, [f"S{k}" for k in range(13)])
    assert [len(names) for names in tables_of(api, code).values()] == [4, 4, 4, 1]  # in order of arrival
    started = api("post", f"/api/classes/{code}/start")
    assert started["status"] == "playing"
    assert [len(t["seats"]) for t in started["tables"]] == [4, 3, 3, 3]
    assert all(t["status"] == "playing" for t in started["tables"])
    assert all(set(t) >= {"code", "seats", "status"} for t in started["tables"])
    seated = {s["name"]: t["code"] for t in started["tables"] for s in t["seats"]}
    for p in phones:  # every phone shows its own table, also the two students balancing moved
        view = p.pump()
        assert view["code"] == seated[p.name] and view["status"] == "playing"
        assert view["players"][view["seat"]]["name"] == p.name
        assert p.act({"type": "reveal"})["ok"], p.name  # and acts there, for its own seat
    assert api("post", f"/api/classes/{code}/start")["changed"] == []  # a second start changes nothing
    for t in started["tables"]:
        assert tables.replay(t["code"]) is not None


def test_solo_and_fill_with_computer(api, phone, tables):
    code = new_class(api, table_size="solo")
    assert api("get", f"/api/classes/{code}")["table_size"] == "solo"
    ana, ben = seat_students(phone, code, ["Ana", "Ben"])
    assert ana.table != ben.table
    for p in (ana, ben):  # alone with a computer opponent, and may deal at once
        assert [(x["name"], x["computer"]) for x in p.view["players"]] == [(p.name, False), ("Computer", True)]
        assert p.view["actions"] == [{"type": "start", "label": "Deal cards & start"}]
    assert ana.act({"type": "start"})["ok"]
    # The computer opponent reveals by itself (it may beat Ana to it: then her first try is stale).
    wait_for(lambda: any(e.actor == "seat:1:auto" for e in tables.events(ana.table)), what="the computer's reveal")
    wait_for(lambda: ana.can("reveal") and ana.act({"type": "reveal"})["ok"], what="Ana's reveal")

    filled = new_class(api, table_size=3, fill_with_computer=True)
    seat_students(phone, filled, ["Cara", "Dan", "Eve", "Fay"])  # 3 + 1, balanced to 2 + 2 by moving Eve
    body = api("post", f"/api/classes/{filled}/start")
    assert [[(s["name"], s["computer"]) for s in t["seats"]] for t in body["tables"]] == [
        [("Cara", False), ("Dan", False), ("Computer", True)], [("Fay", False), ("Eve", False), ("Computer", True)]]


@pytest.mark.parametrize("body, words", [
    ({"game": "chess"}, "chess"), ({"game": "go_fish"}, "go_fish"), ({}, "game"),
    ({"game": "war", "table_size": 7}, "must be one of"), ({"game": "war", "table_size": 1}, "must be one of"),
    ({"game": "war", "table_size": "four"}, "must be one of"), ({"game": "war", "table_size": True}, "must be one of"),
    ({"game": "war", "options": {"mode": "nuclear"}}, "mode"), ({"game": "war", "options": "classic"}, "options"),
    ({"game": "war", "fill_with_computer": "yes"}, "true or false")])
def test_bad_class_requests_are_clear_400s_and_change_nothing(api, classes, teacher, body, words):
    error = api("post", "/api/classes", body, status=400)
    assert words in error_of(error, "bad_request")
    assert classes.classes_of(teacher.id) == []


def test_api_auth_ownership_and_csrf(app, api, phone, other_teacher, teacher):
    code = new_class(api)
    seat_students(phone, code, ["Ana", "Ben"])
    other = {"Authorization": "Bearer " + services(app).accounts.issue_token(other_teacher.id)}
    assert api("get", f"/api/classes/{code}", headers={}, status=401)
    assert api("post", f"/api/classes/{code}/start", headers={"Authorization": "Bearer forged"}, status=401)
    for method, path in [("get", ""), ("post", "/start"), ("post", "/pause"), ("get", "/overview"),
                         ("get", "/debrief.pdf")]:
        error_of(api(method, f"/api/classes/{code}{path}", headers=other, status=403), "forbidden")
    error_of(api("post", f"/api/classes/{code}/message", {"text": "hi"}, headers=other, status=403), "forbidden")
    error_of(api("get", "/api/classes/ZZZZZZ", status=404), "unknown_table")
    assert api("get", f"/api/classes/{code}")["status"] == "lobby"  # nothing was started by the stranger

    # The overview page's way in: the session cookie, plus the CSRF header for changes.
    browser, csrf = logged_in(app)
    assert browser.get(f"/api/classes/{code}").status_code == 200
    refused = browser.post(f"/api/classes/{code}/start")
    assert refused.status_code == 400 and "expired" in error_of(refused.get_json(), "bad_request")
    assert browser.post(f"/api/classes/{code}/start", headers={"X-CSRF-Token": "wrong"}).status_code == 400
    assert api("get", f"/api/classes/{code}")["status"] == "lobby"
    assert browser.post(f"/api/classes/{code}/start", headers={"X-CSRF-Token": csrf}).status_code == 200


# --------------------------------------------------------------- joining
def test_join_with_a_class_code_acks_the_table_and_resume_returns_to_it(api, phone, tables):
    code = new_class(api, table_size=2)
    ana, ben, cara = seat_students(phone, code, ["Ana", "Ben", "Cara"])
    assert ana.table == ben.table != cara.table
    assert tables.get(cara.table).class_id is not None and cara.table != code
    assert cara.view["code"] == cara.table and cara.view["status"] == "lobby"
    # Names are unique across the whole class, whatever table the newcomer would get.
    assert "in this class" in error_of(phone().join(code, "ANA"), "name_taken")
    cara.close()
    again = phone()
    assert again.send("resume", {"token": cara.token}) == {"ok": True, "seat": 0, "table": cara.table,
                                                           "name": "Cara"}
    assert again.view["code"] == cara.table
    error_of(phone().join(code, ""), "bad_request")


def test_a_move_sends_the_new_tables_view_and_the_token_stays_valid(api, phone, tables, app):
    code = new_class(api, table_size=4)
    api("post", f"/api/classes/{code}/notes", {"on": True})  # Dan writes a note below: the class's tables take it
    students = seat_students(phone, code, ["Ana", "Ben", "Cara", "Dan", "Eve"])
    first, second = students[0].table, students[4].table
    dan = students[3]
    summary = api("get", f"/api/classes/{code}")
    version = summary["tables"][0]["version"]
    # A seat number from an older view of the table is refused, and so is a full table.
    error_of(api("post", f"/api/classes/{code}/move", {"table": first, "seat": 3, "to": second,
                                                       "version": version - 1}, status=409), "stale")
    error_of(api("post", f"/api/classes/{code}/move", {"table": second, "seat": 0, "to": first}, status=409),
             "table_full")
    error_of(api("post", f"/api/classes/{code}/move", {"table": first, "seat": 9, "to": second}, status=400),
             "bad_request")
    error_of(api("post", f"/api/classes/{code}/move", {"table": first, "seat": "3", "to": second}, status=400),
             "bad_request")
    body = api("post", f"/api/classes/{code}/move", {"table": first, "seat": 3, "to": second, "version": version})
    assert sorted(body["changed"]) == sorted([first, second])
    assert tables_of(api, code) == {first: ["Ana", "Ben", "Cara"], second: ["Eve", "Dan"]}
    view = dan.pump()
    assert view["code"] == second and view["seat"] == 1 and [p["name"] for p in view["players"]] == ["Eve", "Dan"]
    assert students[4].pump()["actions"] == [{"type": "start", "label": "Deal cards & start"}]  # Eve now has company and may deal
    # Same token, new table: resume, notes and moves all follow Dan.
    assert phone().send("resume", {"token": dan.token})["table"] == second
    assert dan.send("resume", {"token": dan.token})["ok"]  # his phone takes the seat back (one device plays it)
    assert dan.send("note", {"text": "moved here"})["ok"]
    assert [n.text for n in tables.notes(second)] == ["moved here"]
    error_of(dan.act({"type": "start"}), "not_your_turn")  # seat 1 now, not seat 3 of the old table
    # To a new table: Ana is alone there, so starting balances her back into the fewest
    # tables (a table the teacher wants kept as it is, they lock). Everyone plays where
    # the overview says.
    body = api("post", f"/api/classes/{code}/move", {"table": first, "seat": 0, "to": "new"})
    ana_table = next(c for c in body["changed"] if c not in (first, second))
    assert students[0].pump()["code"] == ana_table
    started = api("post", f"/api/classes/{code}/start")
    assert {t["code"]: [s["name"] for s in t["seats"]] for t in started["tables"]} == {
        first: ["Ben", "Cara"], second: ["Eve", "Dan", "Ana"]}
    for p in students:
        p.pump()
        assert p.view["status"] == "playing"
    assert students[0].view["code"] == second
    assert tables.replay(second)["names"] == ["Eve", "Dan", "Ana"]
    assert [e.action["type"] for e in tables.events(first)] == ["join"] * 4 + ["move", "move", "start"]


def test_a_late_arrival_gets_a_lobby_table_an_alert_and_a_computer(api, phone, classes):
    code = new_class(api, table_size=4)
    seat_students(phone, code, ["Ana", "Ben", "Cara"])
    api("post", f"/api/classes/{code}/start")
    zoe, = seat_students(phone, code, ["Zoe"])
    overview = classes.overview(code)
    late = next(t for t in overview["tables"] if t["code"] == zoe.table)
    assert late["status"] == "lobby" and late["can"]["start"]
    assert [a["kind"] for a in overview["alerts"]] == ["waiting"]
    assert "Zoe is waiting to start" in overview["alerts"][0]["text"]
    body = api("post", f"/api/classes/{code}/tables/{zoe.table}/start")  # a lone student plays the computer
    late = next(t for t in body["tables"] if t["code"] == zoe.table)
    assert late["status"] == "playing" and [s["computer"] for s in late["seats"]] == [False, True]
    assert zoe.pump()["status"] == "playing"
    # Computer players can be added by hand to a short lobby table, within the table size.
    yan, = seat_students(phone, code, ["Yan"])
    api("post", f"/api/classes/{code}/tables/{yan.table}/computer")
    assert yan.pump()["actions"] == [{"type": "start", "label": "Deal cards & start"}]
    for _ in range(2):
        api("post", f"/api/classes/{code}/tables/{yan.table}/computer")
    error_of(api("post", f"/api/classes/{code}/tables/{yan.table}/computer", status=409), "table_full")
    error_of(api("post", f"/api/classes/{code}/tables/{zoe.table}/computer", status=422), "illegal")


def test_a_student_removed_in_the_lobby_leaves_the_class_consistent(api, phone, teacher_token, tables):
    code = new_class(api, table_size=4)
    students = seat_students(phone, code, ["Ana", "Ben", "Cara", "Dan", "Eve"])
    fac = phone(auth={"token": teacher_token})
    eve_table = students[4].table
    fac.send("watch", {"code": eve_table, "role": "facilitator"})
    assert fac.send("moderate", {"code": eve_table, "version": fac.view["version"],
                                 "action": {"type": "kick", "seat": 0}})["ok"]
    assert students[4].received("removed")
    summary = api("get", f"/api/classes/{code}")
    assert [[s["name"] for s in t["seats"]] for t in summary["tables"]] == [["Ana", "Ben", "Cara", "Dan"]]
    assert summary["students"] == 4
    fresh, = seat_students(phone, code, ["Fay"])  # the emptied table is reused, not a third one
    assert fresh.table == eve_table
    started = api("post", f"/api/classes/{code}/start")
    assert [len(t["seats"]) for t in started["tables"]] == [3, 2]
    assert error_of(phone().send("resume", {"token": students[4].token}), "forbidden")


# ------------------------------------------------------- steering tables
def test_pause_resume_and_message_reach_every_phone_at_every_table(api, phone):
    code = new_class(api, table_size=2)
    students = seat_students(phone, code, [f"P{k}" for k in range(6)])
    assert len({p.table for p in students}) == 3
    api("post", f"/api/classes/{code}/start")
    body = api("post", f"/api/classes/{code}/pause")
    assert len(body["changed"]) == 3 and all(t["paused"] for t in body["tables"])
    for p in students:
        assert p.pump()["paused"] and p.view["actions"] == []
        error_of(p.act({"type": "reveal"}), "forbidden")
    sent = api("post", f"/api/classes/{code}/message", {"text": "  Five   minutes left "})
    assert sent == {"ok": True, "text": "Five minutes left", "sent": 6}
    for p in students:
        assert p.received("message") == [{"text": "Five minutes left"}]
    assert "140" in error_of(api("post", f"/api/classes/{code}/message", {"text": "x" * 141}, status=400),
                             "bad_request")
    error_of(api("post", f"/api/classes/{code}/message", {"text": "   "}, status=400), "bad_request")
    error_of(api("post", f"/api/classes/{code}/message", {"words": "hi"}, status=400), "bad_request")
    # One table at a time, too.
    one = students[0].table
    body = api("post", f"/api/classes/{code}/resume", {"table": one})
    assert body["changed"] == [one]
    assert not students[0].pump()["paused"] and students[2].pump()["paused"]
    assert "not paused" in error_of(api("post", f"/api/classes/{code}/resume", {"table": one}, status=422),
                                    "illegal")
    api("post", f"/api/classes/{code}/resume")
    assert not any(p.pump()["paused"] for p in students)
    assert students[0].act({"type": "reveal"})["ok"]


def test_ending_every_table_closes_the_class(api, phone):
    code = new_class(api, table_size=2)
    students = seat_students(phone, code, ["Ana", "Ben", "Cara"])
    api("post", f"/api/classes/{code}/start")
    body = api("post", f"/api/classes/{code}/end", {"table": students[0].table})
    assert body["changed"] == [students[0].table] and students[0].pump()["status"] == "ended"
    assert students[2].pump()["status"] == "playing"
    body = api("post", f"/api/classes/{code}/end")
    assert body["status"] == "ended" and all(t["status"] == "ended" for t in body["tables"])
    error_of(phone().join(code, "Late"), "game_over")
    error_of(api("post", f"/api/classes/{code}/start", status=409), "game_over")


# ------------------------------------------------------------- overview
def test_overview_alerts_for_idle_tables_and_disconnected_students(app, api, phone, classes, tables):
    code = new_class(api, table_size=2)
    ana, ben = seat_students(phone, code, ["Ana", "Ben"])
    api("post", f"/api/classes/{code}/start")
    assert classes.overview(code)["alerts"] == []
    table = tables.get(ana.table)
    with Session(services(app).db) as s:  # the last move was five minutes ago
        s.execute(update(Event).where(Event.table_id == table.id).values(at=utcnow() - timedelta(minutes=5)))
        s.commit()
    tables.forget(ana.table)  # the overview reads the live copy: reloaded, it has the time too
    ben.close()
    classes.overview(code)  # the overview notices Ben is gone…
    token_hash = next(x.token_hash for x in tables.seats(ana.table) if x.name == "Ben")
    classes.overviews.away_since[token_hash] -= 90  # …and a minute and a half passes
    overview = classes.overview(code)
    kinds = {a["kind"]: a for a in overview["alerts"]}
    assert kinds["idle"]["text"] == "No move for 5 minutes" and kinds["idle"]["number"] == 1
    assert kinds["disconnected"]["text"] == "Ben has been disconnected for over a minute"
    assert overview["tables"][0]["idle_seconds"] >= 300 and overview["counts"]["connected"] == 1
    api("post", f"/api/classes/{code}/end")
    kinds = [a["kind"] for a in classes.overview(code)["alerts"]]
    assert kinds == ["finished"]  # ended tables raise neither idle nor disconnection alerts


def test_a_class_of_twelve_plays_three_war_tables_to_the_end(app, api, phone, classes, tables, teacher_token,
                                                            monkeypatch):
    seeds = iter(SHORT_WAR_SEEDS)
    monkeypatch.setattr(tables.deals, "next", lambda *key: next(seeds))  # short games: the deals are known
    code = new_class(api, table_size=4)
    fac = phone(auth={"token": teacher_token})
    assert fac.send("watch", {"code": code, "role": "facilitator"}) == {"ok": True, "class_code": code}
    board = phone()
    assert board.send("watch", {"code": code})["ok"]
    students = seat_students(phone, code, [f"Student {k}" for k in range(12)])
    assert len({p.table for p in students}) == 3
    api("post", f"/api/classes/{code}/start")
    monkeypatch.undo()

    for _ in range(3):  # a few battles by hand at every table…
        for p in students:
            if p.can("reveal"):
                assert p.act({"type": "reveal"})["ok"]
    for p in students:  # …then every phone switches to auto-play (retrying while the table moves on)
        for _ in range(50):
            if not p.can("autoplay") or p.view["view"]["private"]["autoplay"] == 4:
                break
            ack = p.act({"type": "autoplay", "speed": 4})
            assert ack["ok"] or ack["error"]["code"] == "stale", ack
            if ack["ok"]:
                break
    codes = sorted({p.table for p in students})
    wait_for(lambda: all(tables.get(c).status == "ended" for c in codes), timeout=60, what="every game to end")

    overview = classes.overview(code)
    assert overview["counts"] == {"students": 12, "connected": 12, "tables": 3, "lobby": 0, "playing": 0,
                                  "ended": 3}
    by_code = {t["code"]: t for t in overview["tables"]}
    def final_view(table_code):
        views = [p.pump() for p in students if p.table == table_code]
        return next((v for v in views if v["status"] == "ended"), None)

    for c in codes:
        own = wait_for(lambda: final_view(c), what="the final view")
        mine = by_code[c]
        public = own["view"]["public"]
        assert mine["status"] == own["status"] == "ended"
        assert [p["name"] for p in mine["players"]] == [p["name"] for p in own["players"]]
        assert mine["result"]["winners"] == [public["players"][s]["name"] for s in public["result"]["winners"]]
        # A table of four plays the default length, first to 45 cards (war.length_fits_a_lesson).
        assert mine["progress"]["value"] == max(p["cards"] for p in public["players"]) >= 45
        assert any(a["kind"] == "finished" and a["table"] == c for a in overview["alerts"])
        assert tables.replay(c) == tables.get(c).state
    winners = [e for e in overview["leaders"] if e["winner"]]
    assert len(winners) == 3 and all(e["score"] >= 45 for e in winners)
    # The leader board ranks the three winners by the cards they finished with.
    assert [e["score"] for e in sorted(winners, key=lambda e: e["rank"])] == sorted(
        (e["score"] for e in winners), reverse=True)
    assert len(overview["leaders"]) == 12
    # The pushed overview and the class board catch up with the last change.
    pushed = wait_for(lambda: next((o for o in reversed(fac.received("overview"))
                                    if o["counts"]["ended"] == 3), None), what="the pushed overview")
    assert [t["result"] for t in pushed["tables"]] == [t["result"] for t in overview["tables"]]
    shown = wait_for(lambda: next((v for v in reversed(board.received("class_view"))
                                   if v["counts"]["ended"] == 3), None), what="the class board")
    assert "alerts" not in shown and all("code" not in t for t in shown["tables"])
    assert len(shown["leaders"]) == 10

    pdf = app.test_client().get(f"/api/classes/{code}/debrief.pdf",
                                headers={"Authorization": f"Bearer {teacher_token}"})
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF") and pdf.mimetype == "application/pdf"
    with app.test_request_context():
        from app.reports.classes import class_debrief_html
        html = class_debrief_html(classes, tables, code)
    for number in (1, 2, 3):
        assert f"Table {number}" in html
    assert html.count('class="table-page"') == 3 and "war.facilitator_end" not in html


# ------------------------------------------------------------------ pages
def test_dashboard_form_overview_page_and_class_board(app, phone, teacher, other_teacher, classes):
    client, csrf = logged_in(app)
    form = client.get("/facilitator/new/war?as=class").data.decode()   # the dashboard's War card leads here
    assert "A whole class" in form and 'name="table_size"' in form
    assert "Solo: each student against a computer" in form
    assert client.post("/facilitator/classes", data={"game": "war", "table_size": "3"}).status_code == 400  # no CSRF
    bad = client.post("/facilitator/classes", data={"game": "war", "table_size": "9", "csrf": csrf})
    assert bad.status_code == 302 and classes.classes_of(teacher.id) == []
    made = client.post("/facilitator/classes", data={"game": "war", "mode": "classic", "table_size": "3",
                                                     "fill_with_computer": "1", "csrf": csrf})
    code = made.headers["Location"].rsplit("/", 1)[1]
    klass = classes.get(code)
    assert (klass.table_size, klass.fill_with_computer, klass.facilitator_id) == (3, True, teacher.id)
    page = client.get(f"/facilitator/classes/{code}")
    html = page.data.decode()
    assert page.status_code == 200 and f'content="{csrf}"' in html and "overview.js" in html
    assert "<style" not in html and all("src=" in s for s in re.findall(r"<script[^>]*>", html))
    assert f'href="/board/{code}"' in html and f"/api/classes/{code}/debrief.pdf" in html
    assert code in client.get("/facilitator/").data.decode()
    assert client.get(f"/facilitator/classes/{code.lower()}").status_code == 302

    board = app.test_client().get(f"/board/{code}").data.decode()
    assert "classboard.js" in board and f"/qr/{code}.svg" in board and f"/join/{code}" in board
    assert app.test_client().get(f"/join/{code}").status_code == 200

    stranger, _csrf = logged_in(app, "other")
    assert stranger.get(f"/facilitator/classes/{code}").status_code == 404
    # The overview socket room is the owner's only.
    outsider = phone(auth={"token": services(app).accounts.issue_token(other_teacher.id)})
    error_of(outsider.send("watch", {"code": code, "role": "facilitator"}), "forbidden")


# ------------------------------------------------------------ found by trying it
def test_students_moved_by_balancing_see_and_play_their_new_table(api, phone, tables):
    code = new_class(api, table_size=4)
    students = seat_students(phone, code, [f"S{i:02d}" for i in range(13)])
    api("post", f"/api/classes/{code}/start")
    seated_at = {s["name"]: (t["code"], s["seat"]) for t in api("get", f"/api/classes/{code}")["tables"]
                 for s in t["seats"]}
    moved = [p for p in students if seated_at[p.name][0] != p.table]
    assert len(moved) >= 2  # 13 at tables of 4 arrive as 4, 4, 4, 1 and start as 4, 3, 3, 3
    for p in students:
        table_code, seat = seated_at[p.name]
        view = p.pump()
        assert (view["code"], view["seat"], view["status"]) == (table_code, seat, "playing"), p.name
        assert p.name in [x["name"] for x in view["players"]]
    for p in moved:  # and their moves count at the new table
        assert p.act({"type": "reveal"})["ok"]
        assert tables.events(seated_at[p.name][0])[-1].actor == f"seat:{seated_at[p.name][1]}"


def test_a_class_table_cannot_be_joined_with_its_own_code(api, phone):
    code = new_class(api, table_size=2)
    ana, = seat_students(phone, code, ["Ana"])
    ben = phone()
    message = error_of(ben.join(ana.table, "Ben"), "forbidden")
    assert code in message  # told to use the class code instead
    assert tables_of(api, code) == {ana.table: ["Ana"]}
    assert seat_students(phone, code, ["Ben"])[0].table == ana.table  # through the class it works


def test_a_solo_water_cycle_table_plays_against_computers_that_vote(api, phone, tables):
    """Water Cycle's seating: solo tables seat a student with two computer players,
    who take their turns, answer prompts and vote on the student's Crisis answers."""
    code = new_class(api, game="water_cycle", table_size="solo", options={"rounds": 10})
    (ana,) = seat_students(phone, code, ["Ana"])
    assert [x["computer"] for x in ana.view["players"]] == [False, True, True]
    assert ana.act({"type": "start"})["ok"]
    answered = 0
    deadline = time.monotonic() + 60
    while ana.pump()["status"] != "ended" and time.monotonic() < deadline:
        listed = {a["type"]: a for a in ana.view["actions"]}
        if not listed:
            time.sleep(0.02)
            continue
        if "explain" in listed:
            action = dict(listed["explain"], text="The rain refills the reservoir.")
            answered += 1
        elif "pick" in listed:
            action = listed["pick"]
        else:
            action = listed.get("draw") or next(iter(listed.values()))
        ack = ana.act({k: v for k, v in action.items() if k != "label"})
        assert ack["ok"] or ack["error"]["code"] == "stale", ack
    assert ana.view["status"] == "ended", "ten rounds were not played within a minute"
    actors = {e.actor for e in tables.events(ana.table)}
    assert {"seat:1:auto", "seat:2:auto"} <= actors
    votes = [e for e in tables.events(ana.table) if e.action.get("type") == "vote"]
    assert not answered or votes, "the computers never voted on Ana's Crisis answers"


def test_a_guided_demo_class_seats_every_student_with_the_practice_rival(api, phone):
    """The guided demo is one trainee and the practice rival: a class with the demo preset
    seats each student alone with the rival, whatever table size the form sent."""
    code = new_class(api, game="storm_war", options={"demo": True}, table_size=2)
    assert api("get", f"/api/classes/{code}")["table_size"] == "solo"
    ana, ben = seat_students(phone, code, ["Ana", "Ben"])
    assert ana.table != ben.table
    for p in (ana, ben):
        assert [x["computer"] for x in p.view["players"]] == [False, True]
        assert [a["type"] for a in p.view["actions"]] == ["start"]
    assert ana.act({"type": "start"})["ok"]


def test_the_leader_board_ranks_a_tables_winner_above_the_tie_it_broke(api, phone, classes):
    """Two pairs of War ended by the teacher before a battle: every student holds 26 cards,
    and each table's winner is who the rule sheet's tie-break (total rank value, ...) names.
    The leader board across tables agrees with the winner badges: the winners share the
    first rank, the others the next one, and nobody who lost sits level with a winner."""
    code = api("post", "/api/classes", {"game": "war", "options": {"mode": "classic"}, "table_size": 2},
               status=201)["code"]
    seat_students(phone, code, ["Ana", "Ben", "Cara", "Dan"])
    for t in api("post", f"/api/classes/{code}/start")["tables"]:
        api("post", f"/api/classes/{code}/end", {"table": t["code"]})
    leaders = classes.overview(code)["leaders"]
    assert len(leaders) == 4 and {e["score"] for e in leaders} == {26}
    winners = [e for e in leaders if e["winner"]]
    others = [e for e in leaders if not e["winner"]]
    assert 2 <= len(winners) <= 4   # a table whose players tie on every tie-break shares the win
    assert leaders[:len(winners)] == winners and all(e["rank"] == 1 for e in winners)
    assert all(e["rank"] == len(winners) + 1 for e in others)
