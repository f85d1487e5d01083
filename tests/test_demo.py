"""The guided demo (GameSpec.demo, app/service/demo.py) and the card gallery (GameSpec.gallery).

Demo: anyone opens one from the home page without an account (a table without a
facilitator); the seat token reaches the browser only in the POST's answer; the
computer seat plays through the platform's timers; a client may open a few per
ten minutes and everyone together a bounded number; day-old ones are deleted
with their seats and events, and nothing else is. A facilitator's demo table is
theirs: the first phone to join with its code plays it.

Gallery: /games/<key>/cards lists every card of a game with a gallery (Storm
War: 143 cards, 21 Environments, 5 reference-only cards), escaped; 404 otherwise.
The browser tests play the demo from the home page through the phone page's
controls and filter the gallery.
"""
from __future__ import annotations

import logging
import re
import time
from datetime import timedelta

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlmodel import Session, select

from app import engines
from app.edge.security import hash_token
from app.extensions import services
from app.store import migrations
from app.store.db import make_engine
from app.store.models import Event, GameTable, Note, Seat, utcnow
from conftest import PASSWORD
from phones import Phone

GAME = "storm_war"
TOKEN = re.compile(r'data-token="([A-Za-z0-9_\-]+)"')
CODE = re.compile(r'data-code="([A-Z0-9]{6})"')


def home_csrf(client) -> str:
    client.get("/")
    with client.session_transaction() as sess:
        return sess["csrf"]


def open_demo(client, game=GAME, csrf=None, **kw):
    return client.post(f"/demo/{game}", data={"csrf": csrf or home_csrf(client)}, **kw)


def opened(response) -> tuple[str, str]:
    page = response.get_data(as_text=True)
    return CODE.search(page).group(1), TOKEN.search(page).group(1)


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out")


def by_label(view, label):
    return next(a for a in view["actions"] if a["label"] == label)


DEMO_STEPS = ["Apply Check Dam to your Jobsite", "Apply Biochar to your Jobsite",
              "Apply Sgt. Stormwater to your Jobsite", "Equip Sgt's Shield on yourself",
              "Challenge City's Toxic risk (12) with your Toxic defense (12)", "Pass"]


# ------------------------------------------------------------------ the spec
def test_storm_war_declares_a_demo_and_a_gallery():
    spec = engines.spec(GAME)
    assert spec.demo.seats == ("Trainee", "Practice rival") and spec.demo.computers == (1,)
    assert spec.demo.options == {"demo": True} and spec.demo.label == "Try the guided demo"
    listed = {g["key"]: g for g in engines.games()}
    assert listed[GAME]["demo"]["label"] == "Try the guided demo" and listed[GAME]["gallery"] is True
    assert all(g["demo"] is None and g["gallery"] is False for k, g in listed.items() if k != GAME)


def test_a_demo_seats_one_person_before_its_computers():
    from app.engines.contract import Demo
    with pytest.raises(ValueError):
        Demo(options={}, seats=("Rival", "You"), computers=(0,))
    with pytest.raises(ValueError):
        Demo(options={}, seats=("A", "B"), computers=())


# ------------------------------------------------------- opening a demo
def test_anyone_opens_a_demo_from_the_home_page_and_the_token_never_is_in_a_url(app, tables, caplog):
    client = app.test_client()
    home = client.get("/").get_data(as_text=True)
    assert "Try the guided demo" in home and f'action="/demo/{GAME}"' in home
    assert f'href="/games/{GAME}/cards"' in home
    caplog.set_level(logging.DEBUG)
    response = open_demo(client)
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    code, token = opened(response)
    # The token is in the page's body only: no redirect, no URL, no log line carries it.
    assert "Location" not in response.headers
    page = response.get_data(as_text=True)
    assert f'href="/join/{code}"' in page and token not in re.sub(r'data-token="[^"]*"', "", page)
    assert token not in caplog.text
    table = tables.get(code)
    assert table.facilitator_id is None and table.demo and table.status == "playing" and table.locked
    seats = tables.seats(code)
    assert [(x.seat_index, x.name, x.computer) for x in seats] == [(0, "Trainee", False), (1, "Practice rival", True)]
    assert seats[0].token_hash == hash_token(token)
    # The phone page resumes the seat with it.
    phone = Phone(app)
    ack = phone.send("resume", {"token": token})
    assert ack["ok"] and ack["seat"] == 0 and ack["table"] == code
    view = phone.pump()
    assert view["status"] == "playing" and "Step 1 of 6" in view["view"]["prompt"]["text"]
    assert [a["label"] for a in view["actions"]] == ["Apply Check Dam to your Jobsite"]
    phone.close()
    # Without the home page's CSRF token: refused.
    assert client.post(f"/demo/{GAME}", data={"csrf": "wrong"}).status_code == 400
    # A game without a demo, or no game: not found.
    assert open_demo(client, game="war").status_code == 404
    assert open_demo(client, game="nosuchgame").status_code == 404


def test_the_practice_rival_passes_by_itself_and_the_demo_is_won(app, tables):
    client = app.test_client()
    code, token = opened(open_demo(client))
    phone = Phone(app)
    assert phone.send("resume", {"token": token})["ok"]
    for label in DEMO_STEPS:
        view = wait_for(lambda: (v := phone.pump()) and any(a["label"] == label for a in v["actions"]) and v)
        ack = phone.act(by_label(view, label))
        assert ack["ok"], ack
    view = wait_for(lambda: (v := phone.pump()) and v["status"] == "ended" and v)
    assert view["result"]["winners"] == [0]
    rival = [e for e in tables.events(code) if e.actor == "seat:1:auto"]
    assert [e.action["type"] for e in rival] == ["pass"]  # the computer seat moved by the platform's timer
    assert tables.replay(code) == tables.get(code).state
    phone.close()


def test_an_anonymous_connection_cannot_watch_or_moderate_a_demo_as_facilitator(app):
    code, _token = opened(open_demo(app.test_client()))
    phone = Phone(app)
    ack = phone.send("watch", {"code": code, "role": "facilitator"})
    assert not ack["ok"] and ack["error"]["code"] == "forbidden"
    ack = phone.send("moderate", {"code": code, "version": 0, "action": {"type": "end"}})
    assert not ack["ok"] and ack["error"]["code"] == "forbidden"
    assert phone.send("watch", {"code": code})["ok"]  # the public board: anyone
    phone.close()


@pytest.mark.app_config(DEMO_PER_CLIENT=2, DEMO_WINDOW=600)
def test_a_client_may_open_only_a_few_demos_in_ten_minutes(app, tables):
    client = app.test_client()
    csrf = home_csrf(client)
    for _ in range(2):
        assert open_demo(client, csrf=csrf).status_code == 201
    refused = open_demo(client, csrf=csrf)
    assert refused.status_code == 429 and refused.headers["Retry-After"]
    assert "Please wait" in refused.get_data(as_text=True) and "try again" in refused.get_data(as_text=True)
    # Another address still may.
    other = app.test_client()
    assert open_demo(other, csrf=home_csrf(other), environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 201
    with Session(services(app).db) as s:
        assert len(s.exec(select(GameTable)).all()) == 3


@pytest.mark.app_config(DEMO_GLOBAL_MAX=2)
def test_everyone_together_may_open_only_so_many(app):
    statuses = []
    for n in range(3):
        client = app.test_client()
        statuses.append(open_demo(client, csrf=home_csrf(client),
                                  environ_base={"REMOTE_ADDR": f"10.0.0.{n + 1}"}).status_code)
    assert statuses == [201, 201, 429]


# ------------------------------------------------------------- clean-up
def _age(app, code, hours):
    with Session(services(app).db) as s:
        row = s.exec(select(GameTable).where(GameTable.code == code)).one()
        row.created_at = utcnow() - timedelta(hours=hours)
        s.add(row)
        s.commit()


def test_the_cleanup_deletes_day_old_demos_and_nothing_else(app, tables, teacher):
    client = app.test_client()
    csrf = home_csrf(client)
    old, _ = opened(open_demo(client, csrf=csrf))
    fresh, _ = opened(open_demo(client, csrf=csrf))
    tables.add_note(old, "a note", role="seat", author="You", seat=0)
    theirs = services(app).demos.create_for(teacher.id, GAME).code  # a facilitator's demo: theirs to keep
    ordinary = tables.create_table(teacher.id, "war", {}).code
    for code in (old, theirs, ordinary):
        _age(app, code, 25)
    _age(app, fresh, 23)
    old_id = tables.get(old).id
    assert services(app).demos.cleanup() == [old]
    assert tables.find(old) is None
    with Session(services(app).db) as s:
        for model in (Seat, Event, Note):
            assert s.exec(select(model).where(model.table_id == old_id)).all() == []
    for code in (fresh, theirs, ordinary):
        assert tables.find(code) is not None
    assert tables.events(fresh) and tables.seats(fresh)
    assert services(app).demos.cleanup() == []


def test_opening_a_demo_and_the_timer_loop_clean_up_too(app, tables):
    client = app.test_client()
    csrf = home_csrf(client)
    old, _ = opened(open_demo(client, csrf=csrf))
    _age(app, old, 25)
    opened(open_demo(client, csrf=csrf))
    assert tables.find(old) is None
    another, _ = opened(open_demo(client, csrf=csrf))
    _age(app, another, 25)
    demos = services(app).demos
    demos._last_cleanup = float("-inf")  # never: the timer loop's next poll cleans up (monotonic() may be small)
    services(app).notifier.scheduler.start()
    wait_for(lambda: tables.find(another) is None)


def test_the_cli_cleans_up(app, tables):
    client = app.test_client()
    old, _ = opened(open_demo(client))
    _age(app, old, 25)
    result = app.test_cli_runner().invoke(args=["demos", "cleanup"])
    assert result.exit_code == 0 and "Deleted 1 guided demo table." in result.output
    assert tables.find(old) is None


# --------------------------------------------------- the facilitator's demo
def logged_in(app):
    client = app.test_client()
    client.get("/facilitator/login")
    with client.session_transaction() as sess:
        csrf = sess["csrf"]
    client.post("/facilitator/login", data={"name": "teacher", "password": PASSWORD, "csrf": csrf})
    client.get("/facilitator/")
    with client.session_transaction() as sess:
        return client, sess["csrf"]


def test_a_facilitator_creates_a_demo_table_to_project_and_a_phone_plays_it(app, tables, teacher):
    client, csrf = logged_in(app)
    dashboard = client.get("/facilitator/").get_data(as_text=True)
    assert f'href="/games/{GAME}/cards"' in dashboard and f'href="/facilitator/new/{GAME}"' in dashboard
    assert "Create a Storm War guided demo table" in client.get(f"/facilitator/new/{GAME}").get_data(as_text=True)
    response = client.post("/facilitator/demo", data={"game": GAME, "csrf": csrf})
    assert response.status_code == 302
    code = response.headers["Location"].rstrip("/").rsplit("/", 1)[1]
    table = tables.get(code)
    assert table.facilitator_id == teacher.id and table.demo and table.status == "lobby"
    assert code in [t.code for t in tables.tables_of(teacher.id)]
    assert "guided demo" in client.get("/facilitator/").get_data(as_text=True)
    assert client.post("/facilitator/demo", data={"game": "war", "csrf": csrf}).status_code == 302
    assert len(tables.tables_of(teacher.id)) == 1  # War has no demo: nothing created

    board = Phone(app)
    assert board.send("watch", {"code": code})["ok"]
    student = Phone(app)
    ack = student.join(code, "Ana")
    assert ack["ok"] and ack["seat"] == 0
    view = wait_for(lambda: (v := student.pump()) and v["status"] == "playing" and v)
    assert [p["name"] for p in view["players"]] == ["Ana", "Practice rival"]
    assert "Step 1 of 6" in view["view"]["prompt"]["text"]
    assert wait_for(lambda: (v := board.pump()) and v["status"] == "playing")
    late = Phone(app)
    assert late.join(code, "Ben")["error"]["code"] in ("forbidden", "table_full")
    for p in (board, student, late):
        p.close()


def test_a_table_made_with_the_demo_preset_is_the_guided_demo_and_refuses_a_second_phone(app, tables, teacher):
    """The table form's "demo" preset made a plain table: a second and third phone joined,
    were offered "Deal cards & start", and the game refused it. Now that table is the guided
    demo, and the second phone is refused at join with the game's word for it."""
    code = tables.create_table(teacher.id, GAME, {"demo": True, "computer_level": "easy"}).code
    assert tables.get(code).demo and tables.get(code).options["computer_level"] == "easy"
    first, second = Phone(app), Phone(app)
    assert first.join(code, "Ana")["ok"]
    assert wait_for(lambda: (v := first.pump()) and v["status"] == "playing")
    ack = second.join(code, "Ben")
    assert ack["error"] == {"code": "table_full", "message": "The guided demo is one trainee and the practice rival."}
    assert [x.name for x in tables.seats(code)] == ["Ana", "Practice rival"]
    for p in (first, second):
        p.close()


def test_a_visitor_cannot_take_the_computers_name(app, tables, teacher):
    code = services(app).demos.create_for(teacher.id, GAME).code
    phone = Phone(app)
    ack = phone.join(code, "practice RIVAL")
    assert not ack["ok"] and ack["error"]["code"] == "name_taken"
    assert tables.get(code).status == "lobby" and tables.seats(code) == []
    assert phone.join(code, "Ana")["ok"]
    phone.close()


# ------------------------------------------------------------- migration
@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_revision_0004_keeps_every_table_and_allows_facilitator_less_demos(kind, tmp_path):
    import uuid

    from test_migrations import POSTGRES

    admin, schema = None, None
    if kind == "sqlite":
        url = f"sqlite:///{tmp_path / 'm.db'}"
    else:
        admin = create_engine(POSTGRES.replace("postgresql://", "postgresql+psycopg://"))
        schema = "d_" + uuid.uuid4().hex[:12]
        with admin.begin() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        url = f"{POSTGRES}?options=-csearch_path%3D{schema}"
    try:
        db = make_engine(url, migrate=False)
        from alembic import command
        with db.begin() as conn:
            command.upgrade(migrations.config(conn), "0003")
        with db.begin() as conn:
            conn.execute(text("INSERT INTO facilitator (name, password_hash, created_at) VALUES ('t', 'x', :at)"),
                         {"at": utcnow()})
            conn.execute(text("INSERT INTO game_table (code, game, engine_version, data_versions, options, seed, "
                              "status, version, locked, paused, timers, facilitator_id, created_at, updated_at) "
                              "VALUES ('ABCDEF', 'war', 'v', '{}', '{}', 1, 'lobby', 0, false, false, '{}', 1, "
                              ":at, :at)"), {"at": utcnow()})
        assert migrations.upgrade(db).action == "upgraded"
        columns = {c["name"]: c for c in inspect(db).get_columns("game_table")}
        assert columns["facilitator_id"]["nullable"] and not columns["demo"]["nullable"]
        with Session(db) as s:
            kept = s.exec(select(GameTable)).one()
            assert kept.facilitator_id == 1 and kept.demo is False
            s.add(GameTable(code="DEMO23", game=GAME, engine_version="v", options={}, seed=2, demo=True))
            s.commit()
        with db.begin() as conn:  # down again: the facilitator-less demo goes, the teacher's table stays
            command.downgrade(migrations.config(conn), "0003")
        with db.connect() as conn:
            assert [r[0] for r in conn.execute(text("SELECT code FROM game_table"))] == ["ABCDEF"]
        db.dispose()
    finally:
        if admin is not None:
            with admin.begin() as conn:
                conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
            admin.dispose()


# --------------------------------------------------------------- gallery
def test_the_gallery_lists_every_storm_war_card_environment_and_reference(app):
    page = app.test_client().get(f"/games/{GAME}/cards")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    items = re.findall(r'<li class="gallery-card tone-\d+" data-type="([a-z_]+)">', html)
    assert len(items) == 143 + 21 + 5
    assert items.count("environment") == 21 and items.count("reference") == 5
    assert len([t for t in items if t not in ("environment", "reference")]) == 143
    for title in ("BMPs", "Preventative Actions", "Permanent Chaos", "Mentors", "Defenders", "Tools",
                  "Degraders", "One-time Chaos", "Environments", "Reference-only cards"):
        assert f">{title} <span" in html
    assert "a reconstruction for review" in html
    assert html.count("Never dealt in this game.") == 5
    assert "Check Dam" in html and "Why it works" in html and "Toxic defense" in html
    assert not re.search(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]", html)  # no emoji


def test_the_gallery_escapes_text_and_is_missing_for_games_without_one(app, monkeypatch):
    client = app.test_client()
    assert client.get("/games/war/cards").status_code == 404
    assert client.get("/games/nosuchgame/cards").status_code == 404
    import dataclasses

    from app.engines import _GAMES
    module = _GAMES[GAME]
    evil = {"title": "<b>T</b>", "intro": "i", "sections": [{"key": "s", "title": "S", "items": [
        {"name": "<script>alert(1)</script>", "type": "x", "type_label": "X<i>", "numbers": {"<n>": "<v>"},
         "text": "a & b", "science": "<img src=x onerror=alert(1)>"}]}]}
    monkeypatch.setattr(module, "GAME", dataclasses.replace(module.GAME, gallery=lambda: evil))
    html = client.get(f"/games/{GAME}/cards").get_data(as_text=True)
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "&lt;n&gt;" in html and "a &amp; b" in html and "<b>T</b>" not in html


# ------------------------------------------------------------------ browser
from browser import PHONE, browser, no_dialogs, server, shot  # noqa: E402,F401,F811  (fixtures)


@pytest.mark.browser
def test_the_guided_demo_from_the_home_page_to_the_win(server, browser):  # noqa: F811
    context = browser.new_context(**PHONE)
    page = context.new_page()
    dialogs = no_dialogs(page)
    page.goto(server.url + "/")
    page.get_by_role("button", name="Try the guided demo: Storm War").click()
    page.wait_for_url(re.compile(r"/join/[A-Z0-9]{6}$"))
    code = page.url.rsplit("/", 1)[1]
    stored = page.evaluate("c => localStorage.getItem('cg.seat.' + c)", code)
    assert stored and stored not in page.url
    page.get_by_text("Step 1 of 6").first.wait_for()
    for n, label in enumerate(DEMO_STEPS, 1):
        page.get_by_text(f"Step {n} of 6").first.wait_for()
        page.get_by_role("button", name=label, exact=True).click()
    page.get_by_text("You won!").first.wait_for()
    shot(page, "storm-war-demo-won-360")
    # A reload keeps the seat (the stored token resumes it).
    page.reload()
    page.get_by_text("You won!").first.wait_for()
    assert dialogs == []
    context.close()


@pytest.mark.browser
def test_the_card_gallery_filters_and_passes_axe(server, browser):  # noqa: F811
    from test_accessibility import violations

    for viewport, name in ((PHONE, "360"), ({"viewport": {"width": 1280, "height": 900}}, "desktop")):
        context = browser.new_context(bypass_csp=True, reduced_motion="reduce", **viewport)
        page = context.new_page()
        page.goto(server.url + "/")
        page.get_by_role("link", name="See every Storm War card").click()
        cards = page.locator(".gallery-card")
        page.get_by_label("Search by name or text").wait_for()
        assert cards.count() == 169
        visible = lambda: page.locator(".gallery-card:visible").count()  # noqa: E731
        assert visible() == 169
        assert violations(page) == []
        page.get_by_role("button", name="Environment (21)").click()
        assert visible() == 21 and page.get_by_role("heading", name=re.compile("^Environments")).is_visible()
        assert page.get_by_role("heading", name=re.compile("^BMPs")).is_hidden()
        page.get_by_role("button", name="Reference only (5)").click()
        assert visible() == 5
        page.get_by_role("button", name=re.compile(r"^All \(169\)")).click()
        page.get_by_label("Search by name or text").fill("check dam")
        assert visible() >= 1 and page.locator(".gallery-card:visible .gallery-name").first.inner_text() == "Check Dam"
        assert "Showing" in page.locator("#gallery-count").inner_text()
        page.get_by_label("Search by name or text").fill("zzzz no such card")
        assert visible() == 0 and page.get_by_text("No card matches").is_visible()
        page.get_by_label("Search by name or text").fill("")
        assert visible() == 169
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= page.viewport_size["width"], f"horizontal scroll at {name}"
        assert violations(page) == []
        shot(page, f"gallery-{name}")
        context.close()
