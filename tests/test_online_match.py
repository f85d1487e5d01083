"""Online matches (GameSpec.online, app/online.py) and quick starts (GameSpec.starts).

An online match starts from the home page without an account: its creator gets seat 0,
an invitation link for the opponent (it seats seat 1 once and starts the match) and a
private resume link (any number of times, on any device). Link secrets live in URL
fragments and are traded over POST for seat tokens; no token or secret is ever in a
URL's path or query or in a log line. A match expires after its game's deadline (the
Wizard duel: 14 days without a move), fired by `flask --app app matches expire`, and
its links and phone page then say so. The Wizard duel also declares a quick start
against the computer.
"""
from __future__ import annotations

import dataclasses
import logging
import re
import time

import pytest

from app import engines
from app.engines.contract import Demo, GameSpec, Online, Seating
from app.online import invitation_secret, seat_token
from app.security import hash_token
from phones import Phone

GAME = "wizard"
DAY = 86400
TOKEN = re.compile(r'data-token="([A-Za-z0-9_\-]+)"')
SECRET = re.compile(r'data-secret="([A-Za-z0-9_\-]+)"')
CODE = re.compile(r'data-code="([A-Z0-9]{6})"')


def home_csrf(client) -> str:
    client.get("/")
    with client.session_transaction() as sess:
        return sess["csrf"]


def create(client, csrf=None, **kw):
    return client.post(f"/online/{GAME}", data={"csrf": csrf or home_csrf(client)}, **kw)


def created(response) -> tuple[str, str, str]:
    page = response.get_data(as_text=True)
    return CODE.search(page).group(1), TOKEN.search(page).group(1), SECRET.search(page).group(1)


def post(client, code, path, body):
    response = client.post(f"/online/{code}/{path}", json=body)
    assert response.headers["Cache-Control"] == "no-store"
    return response.status_code, response.get_json()


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out")


def match(app):
    """A started online match: (code, creator's resume secret, opponent's resume secret)."""
    client = app.test_client()
    code, _token, resume0 = created(create(client))
    status, ack = post(client, code, "invitation", {"secret": invitation_secret(resume0, code), "accept": True,
                                                    "name": "Bea"})
    assert status == 200 and ack["ok"], ack
    return code, resume0, ack["resume"]


# ------------------------------------------------------------------ the spec
def test_the_wizard_duel_declares_a_computer_start_and_online_matches():
    spec = engines.spec(GAME)
    start = spec.quick_start("computer")
    assert spec.demo is None and spec.quick_starts == (start,)
    assert start.options == {"opponent": "computer"} and start.seats == ("Wizard", "Computer wizard")
    assert start.computers == (1,) and start.label == "Play against the computer"
    assert spec.online.options == {"match": "online"} and spec.online.label == "Start an online match"
    assert spec.online.expiry_days == 14 and spec.online.noun == "wizards"
    listed = {g["key"]: g for g in engines.games()}
    assert listed[GAME]["starts"] == [{"key": "computer", "label": "Play against the computer",
                                       "blurb": start.blurb}]
    assert listed[GAME]["online"]["label"] == "Start an online match"
    assert all(g["online"] is None for k, g in listed.items() if k != GAME)


def test_only_a_two_player_game_declares_online_matches_and_start_keys_are_distinct():
    base = dict(key="x", title="X", blurb="", version="1", seating=Seating(sizes=(2,), default=2, minimum=2))
    with pytest.raises(ValueError):
        GameSpec(min_seats=3, max_seats=4, online=Online(options={}), **base)
    GameSpec(min_seats=2, max_seats=2, online=Online(options={}), **base)
    one = Demo(options={}, seats=("A", "B"), computers=(1,))
    with pytest.raises(ValueError):
        GameSpec(min_seats=2, max_seats=2, demo=one, starts=(one,), **base)
    with pytest.raises(ValueError):
        Online(options={}, seats=("A",))


# ------------------------------------------------------- against the computer
def test_play_against_the_computer_from_the_home_page(app, tables, caplog):
    client = app.test_client()
    home = client.get("/").get_data(as_text=True)
    assert 'aria-label="Play against the computer: Wizard Duel"' in home
    assert f'action="/demo/{GAME}/computer"' in home and f'action="/online/{GAME}"' in home
    assert 'action="/demo/storm_war"' in home  # the guided demo keeps its address
    caplog.set_level(logging.DEBUG)
    response = client.post(f"/demo/{GAME}/computer", data={"csrf": home_csrf(client)})
    assert response.status_code == 201 and "Location" not in response.headers
    assert response.headers["Cache-Control"] == "no-store"
    page = response.get_data(as_text=True)
    code, token = CODE.search(page).group(1), TOKEN.search(page).group(1)
    assert f'data-next="/join/{code}"' in page and token not in caplog.text
    table = tables.get(code)
    assert table.facilitator_id is None and table.demo and table.locked and table.status == "playing"
    assert table.options["opponent"] == "computer" and table.options["match"] == "table"
    assert [(x.seat_index, x.name, x.computer) for x in tables.seats(code)] == \
        [(0, "Wizard", False), (1, "Computer wizard", True)]
    # The stored token resumes the seat (a reload of the same browser), again and again.
    for _ in range(2):
        phone = Phone(app)
        ack = phone.send("resume", {"token": token})
        assert ack["ok"] and ack["seat"] == 0 and ack["table"] == code
        view = phone.pump()
        assert view["status"] == "playing" and "Roll the dice for initiative" in [a["label"] for a in view["actions"]]
        phone.close()
    assert client.post(f"/demo/{GAME}/nosuch", data={"csrf": home_csrf(client)}).status_code == 404
    assert client.post(f"/demo/{GAME}", data={"csrf": home_csrf(client)}).status_code == 404  # no guided demo


# ------------------------------------------------------------ creating a match
def test_creating_a_match_seats_its_creator_and_keeps_every_secret_out_of_urls(app, tables, caplog):
    caplog.set_level(logging.DEBUG)
    client = app.test_client()
    response = create(client)
    assert response.status_code == 201 and "Location" not in response.headers
    assert response.headers["Cache-Control"] == "no-store"
    code, token, resume = created(response)
    page = response.get_data(as_text=True)
    assert f'data-next="/online/{code}"' in page
    table = tables.get(code)
    assert table.facilitator_id is None and not table.demo and table.locked and table.status == "lobby"
    assert table.options["match"] == "online"
    [seat] = tables.seats(code)
    assert (seat.seat_index, seat.name) == (0, "First wizard")
    assert seat.token_hash == hash_token(token) == hash_token(seat_token(resume, code, 0))
    # The link page carries no secret; the invitation's hash alone is stored.
    link_page = client.get(f"/online/{code}").get_data(as_text=True)
    assert resume not in link_page and token not in link_page and 'src="/static/js/online.js"' in link_page
    marker = next(e for e in tables.events(code) if e.action.get("type") == "online")
    assert marker.action["invite"] == hash_token(invitation_secret(resume, code))
    assert all(s not in str(e.action) + str(e.log) for e in tables.events(code)
               for s in (resume, token, invitation_secret(resume, code)))
    # Nobody joins with the code.
    phone = Phone(app)
    assert phone.join(code, "Eve")["error"]["code"] == "forbidden"
    phone.close()
    for secret in (resume, token, invitation_secret(resume, code)):
        assert secret not in caplog.text
    assert client.get("/online/ABCDEF").status_code == 404
    assert create(client, csrf="wrong").status_code == 400
    assert client.post("/online/war", data={"csrf": home_csrf(client)}).status_code == 404


def test_the_resume_link_restores_the_seat_any_number_of_times_from_any_client(app):
    code, token, resume = created(create(app.test_client()))
    for client in (app.test_client(), app.test_client(), app.test_client()):
        status, ack = post(client, code, "resume", {"secret": resume})
        assert status == 200 and ack["ok"] and ack["token"] == token and ack["seat"] == 0
        assert ack["name"] == "First wizard" and ack["invite"] == invitation_secret(resume, code)
        assert ack["status"] == "lobby" and ack["opponent"] is None
    for bad in ("wrong", "", "x" * 500, None, 5):
        status, ack = post(app.test_client(), code, "resume", {"secret": bad})
        assert not ack["ok"] and status in (400, 403)
    status, ack = post(app.test_client(), code, "resume", {"secret": token})  # the token is not a link
    assert status == 403 and "not valid" in ack["error"]["message"]
    assert post(app.test_client(), code, "resume", [])[0] == 400


# -------------------------------------------------------------- the invitation
def test_the_invitation_seats_the_opponent_once_and_starts_the_match(app, tables):
    client = app.test_client()
    code, _token, resume0 = created(create(client))
    invite = invitation_secret(resume0, code)
    status, ack = post(app.test_client(), code, "invitation", {"secret": invite})
    assert status == 200 and ack == {"ok": True, "title": "Wizard Duel", "host": "First wizard", "noun": "wizards",
                                     "open": True, "default_name": "Second wizard"}
    status, ack = post(app.test_client(), code, "invitation", {"secret": "nope", "accept": True})
    assert status == 403 and tables.get(code).status == "lobby"
    status, ack = post(app.test_client(), code, "invitation",
                       {"secret": invite, "accept": True, "name": "first WIZARD"})
    assert status == 409 and ack["error"]["code"] == "name_taken"
    guest = app.test_client()
    status, ack = post(guest, code, "invitation", {"secret": invite, "accept": True, "name": "Bea"})
    assert status == 200 and ack["ok"] and ack["seat"] == 1 and ack["code"] == code
    token1, resume1 = ack["token"], ack["resume"]
    assert resume1 != resume0 and hash_token(token1) == tables.seats(code)[1].token_hash
    table = tables.get(code)
    assert table.status == "playing" and [x.name for x in tables.seats(code)] == ["First wizard", "Bea"]
    # Used: it says that the match already has two wizards, and seats no one.
    for body in ({"secret": invite, "accept": True, "name": "Cid"}, ):
        status, ack = post(app.test_client(), code, "invitation", body)
        assert status == 409 and "already has two wizards" in ack["error"]["message"]
    status, ack = post(app.test_client(), code, "invitation", {"secret": invite})
    assert status == 200 and ack["open"] is False
    assert len(tables.seats(code)) == 2
    # Each player's resume link: their own seat; the creator's no longer offers the invitation.
    status, ack = post(app.test_client(), code, "resume", {"secret": resume0})
    assert ack["seat"] == 0 and ack["invite"] is None and ack["opponent"] == "Bea" and ack["status"] == "playing"
    status, ack = post(app.test_client(), code, "resume", {"secret": resume1})
    assert ack["seat"] == 1 and ack["token"] == token1 and ack["opponent"] == "First wizard"


def test_an_unnamed_opponent_gets_the_default_name(app, tables):
    code, _token, resume0 = created(create(app.test_client()))
    status, ack = post(app.test_client(), code, "invitation",
                       {"secret": invitation_secret(resume0, code), "accept": True, "name": "  "})
    assert status == 200 and [x.name for x in tables.seats(code)] == ["First wizard", "Second wizard"]


# ------------------------------------------------------------- playing online
def test_both_devices_play_and_stale_or_repeated_moves_are_refused(app, tables):
    code, resume0, resume1 = match(app)
    token0 = seat_token(resume0, code, 0)
    token1 = seat_token(resume1, code, 1)
    a, b = Phone(app), Phone(app)
    a2 = Phone(app)  # the creator's second device, resumed by the same link
    for phone, token in ((a, token0), (b, token1), (a2, token0)):
        ack = phone.send("resume", {"token": token})
        assert ack["ok"] and ack["table"] == code
    by_seat = {0: a, 1: b}
    view = a.pump()
    assert view["status"] == "playing"
    moves = 0
    while moves < 6:
        for p in (a, b, a2):
            p.pump()
        seat = next(s for s in (0, 1) if by_seat[s].view["actions"])
        phone = by_seat[seat]
        old = phone.view["version"]
        action = next(x for x in phone.view["actions"] if x["type"] != "cast")
        ack = phone.act(action)
        assert ack["ok"], ack
        moves += 1
        # The same move again from the version it was chosen at (a double tap, or the
        # other device of the same seat): refused as stale, never applied twice.
        again = (a2 if seat == 0 else phone).send("act", {"version": old, "action": action})
        assert not again["ok"] and again["error"]["code"] in ("stale", "not_your_turn", "illegal")
        # The other seat's move from an old view: refused.
        other = by_seat[1 - seat]
        if other.view["actions"]:
            late = other.send("act", {"version": old, "action": other.view["actions"][0]})
            assert not late["ok"] and late["error"]["code"] == "stale"
    assert tables.replay(code) == tables.get(code).state
    # Every accepted move restarts the 14-day clock.
    table = tables.get(code)
    assert abs(table.next_due_at - (time.time() + 14 * DAY)) < 60
    assert list(table.timers) == [f"expire:{table.state['moves']}"]
    for p in (a, b, a2):
        p.close()


# ------------------------------------------------------------------- expiry
def test_the_cli_expires_a_match_after_14_days_without_a_move_and_its_links_say_so(app, tables):
    code, resume0, resume1 = match(app)
    waiting, _t, resume_w = created(create(app.test_client()))  # never accepted: it expires from its creation
    runner = app.test_cli_runner()
    result = runner.invoke(args=["matches", "expire", "--now", str(time.time() + 13 * DAY)])
    assert result.exit_code == 0 and "0 online matches expired." in result.output
    assert tables.get(code).status == "playing"
    result = runner.invoke(args=["matches", "expire", "--now", str(time.time() + 14 * DAY + 60)])
    assert result.exit_code == 0 and "2 online matches expired" in result.output
    assert code in result.output and waiting in result.output
    table = tables.get(code)
    assert table.status == "ended" and table.state["result"]["winners"] == []
    assert table.state["result"]["reason"] == "the match expired after 14 days without a move"
    last = tables.events(code)[-1]
    assert last.actor == "system" and last.action["type"] == "time_up"
    assert tables.replay(code) == table.state
    message = "This match expired after 14 days without a move."
    for path, body in (("resume", {"secret": resume0}), ("resume", {"secret": resume1}),
                       ("invitation", {"secret": invitation_secret(resume0, code)}),
                       ("invitation", {"secret": invitation_secret(resume0, code), "accept": True})):
        status, ack = post(app.test_client(), code, path, body)
        assert status == 410 and ack["error"] == {"code": "game_over", "message": message}
    # The phone page says it too, with or without a seat.
    page = app.test_client().get(f"/join/{code}").get_data(as_text=True)
    assert f'data-closed="{message}"' in page and f'data-ended-note="{message}"' in page
    # A wrong secret learns nothing, and the waiting match is untouched.
    assert post(app.test_client(), code, "resume", {"secret": "wrong"})[0] == 403
    # The match nobody accepted is closed too, and its links say why.
    assert tables.get(waiting).status == "ended" and tables.events(waiting)[-1].action == {"type": "expire"}
    status, ack = post(app.test_client(), waiting, "resume", {"secret": resume_w})
    assert status == 410 and ack["error"]["message"] == message
    assert runner.invoke(args=["matches", "expire", "--now", str(time.time() + 30 * DAY)]).output.startswith("0 ")


def test_the_timer_loop_closes_an_invitation_nobody_accepted_once_across_processes(app, tables, monkeypatch):
    waiting, _t, _resume = created(create(app.test_client()))
    online = app.extensions["online"]
    assert online.expire_due() == []                     # a fresh invitation stays open
    monkeypatch.setattr("app.online.time.time", lambda: time.time_ns() / 1e9 + 14 * DAY + 60)
    assert online.expire_due() == []                     # another look within ONLINE_EXPIRY_EVERY: none
    app.extensions["limits"].reset("online-expiry", "all")
    assert online.expire_due() == [waiting]              # the chore's next look closes it
    assert online.expired(waiting) and tables.get(waiting).status == "ended"
    assert online.expire_unaccepted() == []              # closed once: a second look finds nothing


def test_a_match_that_ends_by_play_is_not_expired(app, tables):
    code, resume0, _ = match(app)
    online = app.extensions["online"]
    assert online.is_online(code) and not online.expired(code)
    teacher_less = tables.get(code)
    assert teacher_less.facilitator_id is None
    assert 'data-ended-note=""' in app.test_client().get(f"/join/{code}").get_data(as_text=True)


# -------------------------------------------------------------- rate limits
@pytest.mark.app_config(DEMO_PER_CLIENT=2, DEMO_WINDOW=600)
def test_a_client_may_start_only_a_few_games_in_ten_minutes(app, tables):
    client = app.test_client()
    csrf = home_csrf(client)
    assert create(client, csrf=csrf).status_code == 201
    assert client.post(f"/demo/{GAME}/computer", data={"csrf": csrf}).status_code == 201  # one shared budget
    refused = create(client, csrf=csrf)
    assert refused.status_code == 429 and refused.headers["Retry-After"]
    assert "Please wait" in refused.get_data(as_text=True)
    assert client.post(f"/demo/{GAME}/computer", data={"csrf": csrf}).status_code == 429
    other = app.test_client()
    assert create(other, csrf=home_csrf(other), environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 201


@pytest.mark.app_config(ONLINE_GLOBAL_MAX=1)
def test_everyone_together_may_have_only_so_many_matches(app):
    statuses = []
    for n in range(2):
        client = app.test_client()
        statuses.append(create(client, csrf=home_csrf(client), environ_base={"REMOTE_ADDR": f"10.0.1.{n}"})
                        .status_code)
    assert statuses == [201, 429]


def test_a_game_without_online_matches_has_no_button(app, monkeypatch):
    from app.engines import _GAMES
    module = _GAMES[GAME]
    monkeypatch.setattr(module, "GAME", dataclasses.replace(module.GAME, online=None))
    client = app.test_client()
    assert f'action="/online/{GAME}"' not in client.get("/").get_data(as_text=True)
    assert create(client).status_code == 404


# ------------------------------------------------------------------ browser
from browser import PHONE, browser, no_dialogs, server, shot  # noqa: E402,F401,F811  (fixtures)


@pytest.mark.browser
def test_an_online_match_resumed_on_a_second_browser_context(server, browser):  # noqa: F811
    host = browser.new_context(**PHONE)
    page = host.new_page()
    dialogs = no_dialogs(page)
    page.goto(server.url + "/")
    page.get_by_role("button", name="Start an online match: Wizard Duel").click()
    page.wait_for_url(re.compile(r"/online/[A-Z0-9]{6}$"))
    code = page.url.rsplit("/", 1)[1]
    page.get_by_text("This link is control of your seat").wait_for()
    invite = page.get_by_role("textbox", name="Invitation link").input_value()
    resume = page.get_by_role("textbox", name="Resume link").input_value()
    assert "#invite=" in invite and "#resume=" in resume and "?" not in invite + resume
    token = page.evaluate("c => localStorage.getItem('cg.seat.' + c)", code)
    assert token and token not in invite + resume + page.url
    page.get_by_role("button", name="Copy resume link").click()
    page.get_by_text(re.compile("Copied|Selected")).first.wait_for()
    shot(page, "online-match-links-360")

    guest = browser.new_context(**PHONE).new_page()
    guest_dialogs = no_dialogs(guest)
    guest.goto(invite.replace("http://class.example:5000", server.url))
    guest.get_by_label("Your name").fill("Bea")
    guest.get_by_role("button", name="Accept the invitation").click()
    guest.get_by_text("This link is control of your seat").wait_for()
    assert "#" not in guest.url  # the secret left the address bar
    assert guest.get_by_role("textbox", name="Invitation link").count() == 0
    guest.get_by_role("link", name="Go to the match").click()
    guest.wait_for_url(re.compile(f"/join/{code}$"))

    # The invitation again, in a third context: already used.
    third = browser.new_context(**PHONE).new_page()
    third.goto(invite.replace("http://class.example:5000", server.url))
    third.get_by_text("the match already has two wizards").wait_for()

    # The creator's resume link on a second browser context restores seat 0.
    other = browser.new_context(**PHONE).new_page()
    other_dialogs = no_dialogs(other)
    other.goto(resume.replace("http://class.example:5000", server.url))
    other.get_by_text("You play as First wizard.").wait_for()
    other.get_by_role("link", name="Go to the match").click()
    other.wait_for_url(re.compile(f"/join/{code}$"))
    pages = {"host": other, "guest": guest}
    # Play the initiative rolls and the first draw from whichever device is asked.
    for label in ("Roll the dice for initiative", "Draw: reveal 1 spell"):
        def asked():
            for who, p in pages.items():
                button = p.get_by_role("button", name=label)
                if button.count() and button.first.is_visible():
                    return who
            return None
        for _ in range(2 if label.startswith("Roll") else 1):
            who = wait_for(asked, timeout=20)
            before = pages[who].get_by_role("button", name=label).count()
            pages[who].get_by_role("button", name=label).first.click()
            wait_for(lambda: pages[who].get_by_role("button", name=label).count() < before or asked() != who
                     or label.startswith("Draw"), timeout=20)
            if label.startswith("Roll") and asked() is None:
                break
    other.get_by_text(re.compile("revealed|reveals|draws", re.I)).first.wait_for()
    shot(other, "online-match-resumed-360")
    assert dialogs == guest_dialogs == other_dialogs == []
    for ctx in (host, guest.context, third.context, other.context):
        ctx.close()
