"""Brakes one hostile student cannot turn against the class (issue 18, items 4 and 11).

Anonymous games (guided demos, Quick Match, Tournament, Survival, online matches):
their per-address budget is one count for an IPv6 /64 and is shared by every
process (the limiter; Redis when configured); a game nobody is connected to
pauses after IDLE_GRACE seconds, its clock standing still, and plays on when a
player comes back; it is ended DEMO_PLAY_MAX seconds after it was created,
however often it was restarted.

Logins: students guessing their teacher's password (many wrong passwords from
many addresses) are braked, but do not lock the teacher out: the right password
from an address that has not failed, or from a browser the teacher logged in
with before, gets in. Every per-address count keys an IPv6 client by its /64.
"""
from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
import requests
from sqlmodel import Session, select

from app import engines
from app.edge.security import hash_token
from app.extensions import services
from app.service.accounts import LoginLimited
from app.store.models import GameTable, utcnow
from conftest import PASSWORD, make_app
from phones import Phone
from test_auth import api_login, form_login
from test_demo import home_csrf, wait_for


@pytest.fixture(params=["sqlite", "postgresql"])
def any_app(request, tmp_path):
    """The app on a SQLite file or on a private PostgreSQL schema."""
    marker = request.node.get_closest_marker("app_config")
    overrides = dict(marker.kwargs if marker else {})
    if request.param == "postgresql":
        overrides["DATABASE_URL"] = request.getfixturevalue("postgres_schema")
    app = make_app(tmp_path, **overrides)
    yield app
    services(app).stop()


def open_quick_match(app, address="10.0.0.1", start="quick_match", client=None):
    client = client or app.test_client()
    return client.post(f"/demo/war/{start}", data={"csrf": home_csrf(client)},
                       environ_base={"REMOTE_ADDR": address})


def code_and_token(response) -> tuple[str, str]:
    page = response.get_data(as_text=True)
    return re.search(r'data-code="([A-Z0-9]{6})"', page).group(1), re.search(r'data-token="([^"]+)"', page).group(1)


# ----------------------------------------------------------- the anonymous budget
@pytest.mark.app_config(DEMO_PER_CLIENT=2)
def test_the_anonymous_game_budget_counts_an_ipv6_64_as_one_client(app):
    assert open_quick_match(app, "2001:db8:5:6::1").status_code == 201
    assert open_quick_match(app, "2001:db8:5:6::2").status_code == 201
    assert open_quick_match(app, "2001:db8:5:6:ffff::3").status_code == 429  # the same /64
    assert open_quick_match(app, "2001:db8:5:7::1").status_code == 201       # another /64


def test_the_anonymous_game_budget_is_the_limiters_so_a_new_process_does_not_reset_it(app):
    """Two demo services on one Redis limiter stand for two workers (the live test is below)."""
    import uuid

    from app.service.demo import DemoLimited, DemoService
    from app.edge.limits import Limiter

    queue = f"redis://127.0.0.1:6379/{1 + uuid.uuid4().int % 15}"
    workers = [DemoService(services(app).tables, {"DEMO_PER_CLIENT": 2}, Limiter(queue)) for _ in range(2)]
    address = f"2001:db8:{uuid.uuid4().int % 65536:x}::7"  # this run's own key in Redis
    workers[0].admit(address)
    workers[1].admit(address)
    with pytest.raises(DemoLimited):
        workers[0].admit(address)
    with pytest.raises(DemoLimited):
        workers[1].admit(address)


# ------------------------------------------------------------- idle tables
def _quick_match(app):
    opened = services(app).demos.open("war", "10.0.0.1", "quick_match")
    return opened["code"], hash_token(opened["token"])


def _clock(tables, code) -> dict:
    return next(t for key, t in tables.live(code).timers.items() if key.startswith("clock:"))


def test_a_game_nobody_is_connected_to_pauses_after_the_grace_with_its_clock_standing(any_app):
    app = any_app
    tables, demos, presence = services(app).tables, services(app).demos, services(app).presence
    code, seat = _quick_match(app)
    now = time.time()
    assert demos.brake(code, now=now) == []                    # nobody here: the grace starts
    assert demos.brake(code, now=now + 10) == []               # still within it
    assert not tables.live(code).paused
    paused = demos.brake(code, now=now + 10 + demos.grace)
    assert paused and tables.live(code).paused
    assert tables.events(code)[-1].actor == "system" and tables.events(code)[-1].kind == "table"
    left = _clock(tables, code)["left"]
    assert 200 < left <= 300 and _clock(tables, code)["due"] is None
    # The five-minute clock does not run out while nobody is here; nothing fires at all.
    assert tables.fire_due(code, now=now + 3600) == []
    assert tables.find(code).next_due_at is None and tables.find(code).status == "playing"
    # The player comes back: play goes on with the time that was left.
    presence.connect(seat)
    assert demos.wake(code)
    assert not tables.live(code).paused
    assert _clock(tables, code)["due"] == pytest.approx(time.time() + left, abs=5)
    assert tables.replay(code) == tables.find(code).state


def test_a_game_someone_is_connected_to_never_pauses(any_app):
    app = any_app
    tables, demos, presence = services(app).tables, services(app).demos, services(app).presence
    code, seat = _quick_match(app)
    presence.connect(seat)
    now = time.time()
    for later in (0, 100, 1000):
        assert demos.brake(code, now=now + later) == []
    assert not tables.live(code).paused


def test_a_teachers_table_is_not_paused_by_the_idle_brake(app, teacher):
    tables, demos = services(app).tables, services(app).demos
    table = tables.create_table(teacher.id, "war", {})
    tables.join(table.code, "Ana")
    tables.join(table.code, "Ben")
    tables.start_now(table.code)
    now = time.time()
    assert demos.brake(table.code, now=now) == [] and demos.brake(table.code, now=now + 1000) == []
    assert not tables.live(table.code).paused


@pytest.mark.app_config(IDLE_GRACE=0.3, BOT_DELAY_SCALE=0.2)
def test_the_timer_loop_pauses_an_auto_playing_game_its_player_left_and_resume_wakes_it(app):
    tables = services(app).tables
    code, token = code_and_token(open_quick_match(app))
    phone = Phone(app)
    assert phone.send("resume", {"token": token})["ok"]
    assert phone.act({"type": "autoplay", "speed": 4})["ok"]
    phone.close()  # the tab is closed; auto-play would go on for ever
    wait_for(lambda: tables.find(code).paused)
    version = tables.find(code).version
    time.sleep(1.0)
    assert tables.find(code).version == version  # no move while nobody is here
    back = Phone(app)
    assert back.send("resume", {"token": token})["ok"]
    wait_for(lambda: not tables.find(code).paused)
    wait_for(lambda: tables.find(code).version > version + 2 or tables.find(code).status == "ended")
    back.close()


def test_an_online_match_is_left_to_its_own_deadline(app):
    tables, demos, online = services(app).tables, services(app).demos, services(app).online
    made = online.create("wizard", "10.0.0.1", "Ana")
    online.accept(made["code"], online_invite(made), "Ben")
    now = time.time()
    assert tables.find(made["code"]).status == "playing"
    assert demos.brake(made["code"], now=now) == [] and demos.brake(made["code"], now=now + 1000) == []
    assert not tables.live(made["code"]).paused


def online_invite(made) -> str:
    from app.service.online import invitation_secret

    return invitation_secret(made["resume"], made["code"])


# ------------------------------------------------------ the anonymous lifetime
def _created_ago(app, code, seconds):
    with Session(services(app).db) as s:
        row = s.exec(select(GameTable).where(GameTable.code == code)).one()
        row.created_at = utcnow() - timedelta(seconds=seconds)
        s.add(row)
        s.commit()
    services(app).tables.forget(code)


def test_restarting_does_not_extend_an_anonymous_games_life(any_app):
    app = any_app
    tables, demos, presence = services(app).tables, services(app).demos, services(app).presence
    opened = demos.open("war", "10.0.0.1", "quick_match")
    code, seat = opened["code"], hash_token(opened["token"])
    presence.connect(seat)  # someone is playing all along
    _created_ago(app, code, demos.play_max + 1)
    version = tables.live(code).version
    assert tables.act_as(seat, version, {"type": "restart"}).version == version + 1
    assert demos.end_overdue() == [code]
    table = tables.find(code)
    assert table.status == "ended" and tables.events(code)[-1].actor == "system"
    assert tables.replay(code) == table.state
    # A young one plays on.
    young = demos.open("war", "10.0.0.2", "quick_match")
    assert demos.end_overdue() == [] and tables.find(young["code"]).status == "playing"


@pytest.mark.parametrize("game, start", [("war", "quick_match"), ("war", "survival"), ("storm_war", "demo"),
                                         ("wizard", "computer")])
def test_an_overdue_demo_says_it_ran_too_long_not_that_a_teacher_ended_it(app, game, start):
    """The brakes end a teacher-less game with the engine's "time_limit" cause: its log and
    its result say the game ran too long and was stopped (no teacher is named), the table
    event records the cause, and replay reaches the same end."""
    tables, demos = services(app).tables, services(app).demos
    code = demos.open(game, "10.0.0.1", start)["code"]
    _created_ago(app, code, demos.play_max + 1)
    assert demos.end_overdue() == [code]
    table = tables.find(code)
    end = tables.events(code)[-1]
    assert table.status == "ended" and end.actor == "system"
    assert end.action == {"type": "end", "cause": "time_limit"}
    texts = " ".join(e.get("text", "") for e in end.log if e.get("t") != "ruling")  # (a tie's ruling states the rule)
    assert "ran too long" in texts and "teacher" not in texts.lower() and "lesson" not in texts.lower(), texts
    assert not any(e.get("id", "").endswith((".lesson_clock", ".facilitator_end")) for e in end.log)
    reason = engines.get(game).result(table.state)["reason"]
    assert "too long" in reason.replace("_", " ") and "teacher" not in reason
    assert tables.replay(code) == table.state


# ------------------------------------------------------------ logins
def test_students_cannot_lock_their_teacher_out(any_app):
    app = any_app
    services(app).accounts.add("teacher", PASSWORD)
    laptop = app.test_client()
    assert form_login(laptop, "teacher", PASSWORD, address="10.9.0.1").status_code == 302  # last week
    students = app.test_client()
    for n in range(50):  # 50 wrong passwords from 11 addresses (within each address's own limit)
        assert api_login(students, "teacher", f"guess-{n}", address=f"10.5.0.{n % 11}").status_code == 401
    # The right password from an address that has not failed gets in...
    assert api_login(app.test_client(), "teacher", PASSWORD, address="10.6.0.1").status_code == 200
    # ...and so does the teacher's own browser, even from an address the students used up.
    assert form_login(laptop, "teacher", PASSWORD, address="10.5.0.0").status_code == 302
    # The guessers are still braked: an address that failed gets no more tries...
    assert api_login(students, "teacher", PASSWORD, address="10.5.0.3").status_code == 429
    # ...and a fresh address has one, then it is braked too.
    assert api_login(students, "teacher", "guess-x", address="10.6.0.2").status_code == 401
    assert api_login(students, "teacher", PASSWORD, address="10.6.0.2").status_code == 429


@pytest.mark.app_config(LOGIN_PER_ACCOUNT_ADDRESS=3, LOGIN_PER_ADDRESS=100, LOGIN_PER_ACCOUNT=100)
def test_login_failures_count_an_ipv6_64_as_one_address(app, teacher):
    accounts = services(app).accounts
    for n in range(3):
        assert accounts.authenticate("teacher", "wrong-password", f"2001:db8:1:2::{n + 1}") is None
    with pytest.raises(LoginLimited):
        accounts.authenticate("teacher", PASSWORD, "2001:db8:1:2:aaaa::99")
    assert accounts.authenticate("teacher", PASSWORD, "2001:db8:1:3::1")


@pytest.mark.app_config(LOGIN_PER_ACCOUNT_ADDRESS=3, LOGIN_PER_ADDRESS=100, LOGIN_PER_ACCOUNT=100)
def test_a_forged_known_browser_cookie_is_no_key(app, teacher):
    client = app.test_client()
    for _ in range(3):
        assert form_login(client, "teacher", "wrong-password").status_code == 401
    client.set_cookie("cg_device", "forged.value.here")
    assert form_login(client, "teacher", PASSWORD).status_code == 429


# ------------------------------------------------------------ two workers
@pytest.mark.live
def test_two_workers_share_the_anonymous_game_budget(cluster):
    servers = cluster(count=2, DEMO_PER_CLIENT="2")
    http = requests.Session()

    def open_on(server):
        page = http.get(server.url + "/").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        return http.post(server.url + "/demo/war/quick_match", data={"csrf": csrf}).status_code

    assert open_on(servers[0]) == 201
    assert open_on(servers[1]) == 201
    assert open_on(servers[0]) == 429
    assert open_on(servers[1]) == 429


from test_scaled import cluster  # noqa: E402,F401  (the two-worker fixture)
