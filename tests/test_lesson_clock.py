"""The lesson clock (issue 20 item 3; app/service/tables/lesson.py): a table's lesson length
runs from the deal as the platform's `lesson` timer; when it runs out the game ends with a
winner by the game's tie-break and its `<game>.lesson_clock` ruling; the table's pause stops
it; the teacher adds five minutes; a class's clock drives every table of the class. Timers are
fired by the service with an explicit `now` (the scheduler's path), so nothing here waits."""
from __future__ import annotations

import time

import pytest

from phones import seated

from app import engines
from app.errors import ServiceError
from app.extensions import services
from app.reports import outcome, table_data
from app.service.tables import TableService
from conftest import PASSWORD

NAMES = ["Ana", "Ben", "Cara", "Dev"]


def started(tables, teacher, game, minutes=15, options=None):
    """A table of `game` with a lesson clock of `minutes`, its fewest players seated and dealt."""
    table = tables.create_table(teacher.id, game, options or {}, lesson_minutes=minutes)
    fewest = engines.spec(game).seat_range(table.options)[0]
    for name in NAMES[:fewest]:
        tables.join(table.code, name)
    tables.act(table.code, 0, tables.get(table.code).version, {"type": "start"})
    return table.code


def logged_in(app):
    """A facilitator's browser session: (client, its CSRF token)."""
    client = app.test_client()
    client.get("/facilitator/login")
    with client.session_transaction() as sess:
        csrf = sess["csrf"]
    client.post("/facilitator/login", data={"name": "teacher", "password": PASSWORD, "csrf": csrf})
    client.get("/facilitator/")  # logging in starts a fresh session; a page issues its CSRF token
    with client.session_transaction() as sess:
        return client, sess["csrf"]


def lesson_timer(tables, code):
    return tables.get(code).timers.get("lesson")


def rulings(tables, code):
    return [r["id"] for r in tables.log_json(code)["rulings"]]


def reveal_once(tables, code):
    """One War reveal by whichever seat may (the game goes on)."""
    row = tables.get(code)
    seat = next(s for s in range(2) if any(a["type"] == "reveal" for a in engines.get("war").actions(row.state, s)))
    tables.act(code, seat, row.version, {"type": "reveal"})


# ------------------------------------------------------------------ a table's clock
def test_the_clock_starts_at_the_deal_not_when_the_table_is_made(tables, teacher):
    table = tables.create_table(teacher.id, "war", {}, lesson_minutes=20)
    assert tables.get(table.code).timers == {}
    tables.join(table.code, "Ana")
    tables.join(table.code, "Ben")
    lobby = tables.view_for(table.code, "board")
    assert lobby["deadlines"] == {} and lobby["lesson_minutes"] == 20
    before = time.time()
    tables.act(table.code, 0, tables.get(table.code).version, {"type": "start"})
    clock = lesson_timer(tables, table.code)
    assert before + 20 * 60 <= clock["due"] <= time.time() + 20 * 60
    assert clock["actor"] == "system" and tables.get(table.code).next_due_at == clock["due"]
    for viewer in ("board", "facilitator", 0, 1):  # every view counts down to it
        assert tables.view_for(table.code, viewer)["deadlines"]["lesson"] == {"due": clock["due"]}


@pytest.mark.parametrize("game", ["war", "water_cycle", "storm_war", "wizard"])
def test_when_the_clock_runs_out_the_game_ends_with_a_winner_and_the_ruling(tables, teacher, game):
    code = started(tables, teacher, game)
    due = lesson_timer(tables, code)["due"]
    assert tables.fire_due(code, now=due - 1) == []  # not yet
    fired = tables.fire_due(code, now=due + 1)
    assert len(fired) == 1 and tables.fire_due(code, now=due + 2) == []
    row = tables.get(code)
    result = engines.get(game).result(row.state)
    assert row.status == "ended" and result["winners"] and set(result["winners"]) <= set(range(len(result["ranking"])))
    assert "lesson clock" in result["reason"].replace("_", " ")  # the debrief says what ended it
    last = tables.events(code)[-1]
    assert (last.kind, last.actor, last.action) == ("table", "system", {"type": "end", "cause": "lesson_clock"})
    assert f"{game}.lesson_clock" in rulings(tables, code)
    catalogue = {r["id"]: r for r in engines.spec(game).rulings}
    assert catalogue[f"{game}.lesson_clock"]["kind"] == "provisional"
    assert row.timers == {} and row.next_due_at is None
    assert tables.replay(code) == row.state  # replay of the events equals the snapshot
    # The debrief's result line says the lesson clock ended it.
    data = table_data(tables, code)
    said = outcome(row, result, data["names"], data)
    assert said["label"] == "The lesson clock ran out" and said["winners"]


def test_the_clock_survives_every_move_and_another_process_fires_it(tables, teacher):
    code = started(tables, teacher, "war")
    due = lesson_timer(tables, code)["due"]
    for _ in range(4):
        reveal_once(tables, code)
    assert lesson_timer(tables, code)["due"] == due  # the engine lists no such timer: the platform keeps it
    # A process that read nothing of this table (a restart, or another worker) finds and fires it.
    other = TableService(tables.db, bot_delay_scale=0)
    assert (code, due) in other.due_tables(now=due + 1)
    fired = other.fire_due(code, now=due + 1, check_db=True)
    assert [o.version for o in fired] == [tables.get(code).version] and tables.get(code).status == "ended"
    assert tables.replay(code) == tables.get(code).state


def test_the_tables_pause_stops_the_clock(tables, teacher):
    code = started(tables, teacher, "war")
    version = tables.get(code).version
    tables.moderate(teacher.id, code, version, {"type": "pause"})
    clock = lesson_timer(tables, code)
    assert clock["due"] is None and 0 < clock["left"] <= 15 * 60
    assert tables.view_for(code, "board")["deadlines"]["lesson"] == {"left": clock["left"]}
    assert tables.fire_due(code, now=time.time() + 10**6) == []  # paused: it never runs out
    assert tables.get(code).status == "playing"
    before = time.time()
    tables.moderate(teacher.id, code, version + 1, {"type": "resume"})
    due = lesson_timer(tables, code)["due"]
    assert before + clock["left"] <= due <= time.time() + clock["left"]


def test_five_more_minutes_moves_the_due_and_every_view_updates(tables, teacher):
    code = started(tables, teacher, "war")
    tables.watched = lambda _code, _viewer: True  # a board and the teacher's page are open
    due = lesson_timer(tables, code)["due"]
    facilitator = tables.view_for(code, "facilitator")
    assert {"type": "lesson_more", "label": "+5 min on the lesson clock"} in facilitator["moderation"]
    out = tables.moderate(teacher.id, code, facilitator["version"], {"type": "lesson_more"})
    assert lesson_timer(tables, code)["due"] == due + 300
    sent = {key if isinstance(key, str) else key[0]: payload for key, payload in out.views}
    assert set(sent) == {"board", "facilitator", "seat"} and len(out.views) == 4
    assert all(p["deadlines"]["lesson"] == {"due": due + 300} for _key, p in out.views)
    assert tables.events(code)[-1].log[0]["text"] == "The teacher added 5 minutes to the lesson."
    assert tables.fire_due(code, now=due + 1) == []  # the old time passes: the game goes on
    # While paused, the five minutes go onto the time left.
    tables.moderate(teacher.id, code, out.version, {"type": "pause"})
    left = lesson_timer(tables, code)["left"]
    tables.moderate(teacher.id, code, out.version + 1, {"type": "lesson_more"})
    assert lesson_timer(tables, code) == dict(lesson_timer(tables, code), due=None, left=left + 300)
    assert tables.replay(code) == tables.get(code).state


def test_end_now_ends_as_the_teacher_and_the_clock_goes(tables, teacher):
    code = started(tables, teacher, "war")
    tables.moderate(teacher.id, code, tables.get(code).version, {"type": "end"})
    row = tables.get(code)
    assert row.status == "ended" and row.timers == {} and "lesson" not in tables.view_for(code, "board")["deadlines"]
    assert engines.get("war").result(row.state)["reason"] == "ended_by_facilitator"
    assert "war.lesson_clock" not in rulings(tables, code) and "war.facilitator_end" in rulings(tables, code)
    with pytest.raises(ServiceError) as refused:  # nothing left to add time to
        tables.moderate(teacher.id, code, row.version, {"type": "lesson_more"})
    assert refused.value.code == "game_over"


def test_refusals_are_clear_and_change_nothing(tables, teacher):
    for bad in (25, "twenty", True, -15, 15.5, [15]):
        with pytest.raises(ServiceError) as refused:
            tables.create_table(teacher.id, "war", {}, lesson_minutes=bad)
        assert refused.value.code == "bad_request" and "lesson length" in refused.value.message
    plain = started(tables, teacher, "war", minutes=0)  # no clock: no timer, no button
    assert lesson_timer(tables, plain) is None
    assert not any(a["type"] == "lesson_more" for a in tables.view_for(plain, "facilitator")["moderation"])
    version = tables.get(plain).version
    with pytest.raises(ServiceError) as refused:
        tables.moderate(teacher.id, plain, version, {"type": "lesson_more"})
    assert refused.value.code == "illegal" and refused.value.message == "This table has no lesson clock."
    lobby = tables.create_table(teacher.id, "war", {}, lesson_minutes=30)
    with pytest.raises(ServiceError) as refused:
        tables.moderate(teacher.id, lobby.code, 0, {"type": "lesson_more"})
    assert refused.value.code == "illegal" and "starts at the deal" in refused.value.message
    assert tables.get(plain).version == version and tables.get(lobby.code).version == 0


def test_the_api_and_the_forms_take_the_lesson_length(app, teacher, teacher_token, tables):
    client = app.test_client()
    auth = {"Authorization": f"Bearer {teacher_token}"}
    old = client.post("/api/tables", json={"game": "war"}, headers=auth)  # the API without it, as before
    assert old.status_code == 201 and tables.get(old.get_json()["code"]).lesson_minutes == 0
    made = client.post("/api/tables", json={"game": "wizard", "lesson_minutes": 40}, headers=auth)
    assert made.status_code == 201 and tables.get(made.get_json()["code"]).lesson_minutes == 40
    bad = client.post("/api/tables", json={"game": "war", "lesson_minutes": 45}, headers=auth)
    assert bad.status_code == 400 and "lesson length" in bad.get_json()["error"]["message"]
    klass = client.post("/api/classes", json={"game": "war", "lesson_minutes": 15}, headers=auth)
    assert klass.status_code == 201
    assert client.get(f"/api/classes/{klass.get_json()['code']}", headers=auth).get_json()["lesson_minutes"] == 15

    page, csrf = logged_in(app)
    html = page.get("/facilitator/new/war").get_data(as_text=True)
    assert html.count('name="lesson_minutes"') == 3  # a table, a class and one shared device
    assert '<option value="0" selected>Off</option>' in html and '<option value="40">40 minutes</option>' in html
    known = {t.code for t in tables.tables_of(teacher.id)}
    page.post("/facilitator/tables", data={"csrf": csrf, "game": "war", "lesson_minutes": "20"})
    page.post("/facilitator/hotseat", data={"csrf": csrf, "game": "war", "player1": "Ana", "player2": "Ben",
                                            "lesson_minutes": "30"})
    refused = page.post("/facilitator/tables", data={"csrf": csrf, "game": "war", "lesson_minutes": "25"},
                        follow_redirects=True)
    assert "The lesson length is off or one of 15, 20, 30, 40 minutes." in refused.get_data(as_text=True)
    made = sorted(t.lesson_minutes for t in tables.tables_of(teacher.id) if t.code not in known)
    assert made == [20, 30]  # the refused form made no table
    page.post("/facilitator/classes", data={"csrf": csrf, "game": "war", "table_size": "2", "lesson_minutes": "40"})
    assert [k.lesson_minutes for k in services(app).classes.classes_of(teacher.id)] == [40, 15]


# ------------------------------------------------------------------ a class's clock
@pytest.fixture
def api(app, teacher_token):
    client = app.test_client()

    def call(method, path, body=None, status=200):
        response = getattr(client, method)(path, json=body, headers={"Authorization": f"Bearer {teacher_token}"})
        assert response.status_code == status, (response.status_code, response.get_json())
        return response.get_json()

    return call


def class_due(api, code):
    return api("get", f"/api/classes/{code}")["deadlines"].get("lesson")


def test_the_class_clock_drives_every_table_and_late_tables_get_its_due(app, api, phone, tables):
    code = api("post", "/api/classes", {"game": "war", "table_size": 2, "lesson_minutes": 30}, status=201)["code"]
    seated(phone, code, *NAMES)
    assert class_due(api, code) is None  # not before the class starts
    before = time.time()
    body = api("post", f"/api/classes/{code}/start")
    due = class_due(api, code)["due"]
    assert before + 30 * 60 <= due <= time.time() + 30 * 60
    playing = [t["code"] for t in body["tables"]]
    assert len(playing) == 2 and all(lesson_timer(tables, t)["due"] == due for t in playing)
    overview = services(app).classes.overview(code)
    assert overview["deadlines"] == {"lesson": {"due": due}}
    assert services(app).classes.public_overview(code)["deadlines"] == {"lesson": {"due": due}}
    # A late student's table starts later, and runs to the same time.
    zoe, = seated(phone, code, "Zoe")
    api("post", f"/api/classes/{code}/tables/{zoe.table}/start")
    assert lesson_timer(tables, zoe.table)["due"] == due
    assert zoe.pump()["deadlines"]["lesson"] == {"due": due}
    # The teacher's +5 min on the class page: the class and every table.
    done = api("post", f"/api/classes/{code}/lesson_more")
    assert sorted(done["changed"]) == sorted(playing + [zoe.table])
    assert class_due(api, code) == {"due": due + 300}
    assert all(lesson_timer(tables, t)["due"] == due + 300 for t in playing + [zoe.table])
    # It runs out: every table ends with a winner, by the lesson clock.
    for t in playing + [zoe.table]:
        assert tables.fire_due(t, now=due + 301)
        row = tables.get(t)
        assert row.status == "ended" and engines.get("war").result(row.state)["winners"]
        assert tables.events(t)[-1].action == {"type": "end", "cause": "lesson_clock"}
        assert tables.replay(t) == row.state


def test_pausing_every_table_stops_the_class_clock(app, api, phone, tables):
    code = api("post", "/api/classes", {"game": "war", "table_size": 2, "lesson_minutes": 15}, status=201)["code"]
    seated(phone, code, *NAMES[:2])
    table = api("post", f"/api/classes/{code}/start")["tables"][0]["code"]
    api("post", f"/api/classes/{code}/pause")
    stopped = class_due(api, code)
    assert set(stopped) == {"left"} and 0 < stopped["left"] <= 15 * 60
    assert lesson_timer(tables, table)["due"] is None
    api("post", f"/api/classes/{code}/lesson_more")  # five more minutes, kept while stopped
    assert class_due(api, code)["left"] == stopped["left"] + 300
    own = lesson_timer(tables, table)["left"]  # the table's own clock, five minutes longer too
    assert own > 300
    before = time.time()
    api("post", f"/api/classes/{code}/resume")
    after = time.time()
    due = class_due(api, code)["due"]
    assert before + stopped["left"] + 300 <= due <= after + stopped["left"] + 300
    assert before + own <= lesson_timer(tables, table)["due"] <= after + own  # each runs on from its time left


def test_class_clock_refusals(api, phone):
    plain = api("post", "/api/classes", {"game": "war", "table_size": 2}, status=201)["code"]
    seated(phone, plain, *NAMES[:2])
    api("post", f"/api/classes/{plain}/start")
    refused = api("post", f"/api/classes/{plain}/lesson_more", status=422)["error"]
    assert refused["code"] == "illegal" and refused["message"] == "This class has no lesson clock."
    waiting = api("post", "/api/classes", {"game": "war", "lesson_minutes": 20}, status=201)["code"]
    refused = api("post", f"/api/classes/{waiting}/lesson_more", status=422)["error"]
    assert refused["message"] == "The lesson clock starts when you start the class."
    bad = api("post", "/api/classes", {"game": "war", "lesson_minutes": "soon"}, status=400)["error"]
    assert bad["code"] == "bad_request" and "lesson length" in bad["message"]
