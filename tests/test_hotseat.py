"""Local hotseat: one device for 2-4 players (app/service/hotseat.py, static/js/hotseat.js).

HTTP: creating a hotseat table needs a login, validates the names like a join
(and refuses markup), and hands the seats over only through the one-time link:
its secret sits in the URL fragment, the device trades it once (POST) for fresh
seat tokens. Browser: War and Water Cycle turns on one device, with the pass screen.
"""
from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from app.edge.security import hash_token
from app.service.hotseat import HotseatService, derive
from conftest import PASSWORD

LINK = re.compile(r'href="(http://[^"]+/hotseat/([A-Z0-9]{6})#([A-Za-z0-9_\-]+))"')


def logged_in(app):
    client = app.test_client()
    client.get("/facilitator/login")
    with client.session_transaction() as sess:
        csrf = sess["csrf"]
    client.post("/facilitator/login", data={"name": "teacher", "password": PASSWORD, "csrf": csrf})
    client.get("/facilitator/")  # a fresh session: the dashboard's forms carry its CSRF token
    with client.session_transaction() as sess:
        return client, sess["csrf"]


def create(client, csrf, names, game="war", **options):
    data = {"game": game, "csrf": csrf, **options}
    data.update({f"player{i + 1}": name for i, name in enumerate(names)})
    return client.post("/facilitator/hotseat", data=data)


def created_link(response):
    match = LINK.search(response.get_data(as_text=True))
    assert match, "the page shows the hotseat link"
    return match.group(1), match.group(2), match.group(3)


def test_creating_a_hotseat_table_needs_a_login(app, teacher, tables):
    client = app.test_client()
    response = client.post("/facilitator/hotseat", data={"game": "war", "player1": "Ann", "player2": "Bob"})
    assert response.status_code in (302, 400)
    assert tables.tables_of(teacher.id) == []
    # Logged in but without the form's CSRF token: refused too.
    client, _csrf = logged_in(app)
    assert create(client, "wrong", ["Ann", "Bob"]).status_code == 400
    assert tables.tables_of(teacher.id) == []
    assert client.get("/facilitator/").status_code == 200
    assert b"Create a War hotseat game" in client.get("/facilitator/new/war?as=device").data  # the shared-device form


@pytest.mark.parametrize("names, message", [
    (["Ann"], "Type 2 to 4 names"),
    (["Ann", "   "], "Type 2 to 4 names"),
    (["Ann", "Bob", "Cy", "Di", "Ed"], None),  # only four fields are read: a fifth is ignored
    (["Ann", "ann"], "Two players are called"),
    (["Ann", "<b>Bob</b>"], "contains &lt; or &gt;"),
    (["Ann", "B" * 21], "at most 20 characters"),
])
def test_names_are_validated(app, teacher, tables, names, message):
    client, csrf = logged_in(app)
    response = create(client, csrf, names)
    if message is None:
        assert response.status_code == 201
        return
    assert response.status_code == 302 and "#hotseat-title" in response.headers["Location"]
    assert message in client.get("/facilitator/").get_data(as_text=True)
    assert tables.tables_of(teacher.id) == []


def test_a_nul_in_a_name_is_refused(app, teacher, tables):
    client, csrf = logged_in(app)
    assert create(client, csrf, ["Ann", "Bo\x00b"]).status_code == 400
    assert tables.tables_of(teacher.id) == []


def test_the_table_is_seated_locked_and_not_started(app, teacher, tables):
    client, csrf = logged_in(app)
    response = create(client, csrf, ["Ann", "Bob", "Cy"])
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    link, code, secret = created_link(response)
    table = tables.get(code)
    assert (table.status, table.locked, table.game) == ("lobby", True, "war")
    assert [(x.seat_index, x.name) for x in tables.seats(code)] == [(0, "Ann"), (1, "Bob"), (2, "Cy")]
    # The secret is in the fragment only: not in the path or the query a server would log.
    parts = urlsplit(link)
    assert parts.path == f"/hotseat/{code}" and parts.query == "" and parts.fragment == secret
    assert secret not in tables.log_json(code).__repr__()
    # The page holds no seat token (only the secret they are derived from) and a QR image.
    page = response.get_data(as_text=True)
    assert 'class="hotseat-qr" src="data:image/svg+xml;base64,' in page
    # Nobody can join it with the code.
    with pytest.raises(Exception) as refused:
        tables.join(code, "Zed")
    assert "locked" in str(refused.value)


def test_the_secret_is_traded_once_for_fresh_tokens(app, teacher, tables, phone):
    client, csrf = logged_in(app)
    _link, code, secret = created_link(create(client, csrf, ["Ann", "Bob"]))
    device = app.test_client()  # the shared device: no login
    assert device.get(f"/hotseat/{code}").status_code == 200
    assert device.get("/hotseat/ZZZZZZ").status_code == 404

    wrong = device.post(f"/hotseat/{code}/claim", json={"secret": secret[:-2] + "xx"})
    assert wrong.status_code == 403 and wrong.json["error"]["code"] == "forbidden"
    assert device.post(f"/hotseat/{code}/claim", json={"secret": ""}).status_code == 400
    assert device.post(f"/hotseat/{code}/claim", data="not json").status_code == 400

    first = device.post(f"/hotseat/{code}/claim", json={"secret": secret})
    assert first.status_code == 200 and first.headers["Cache-Control"] == "no-store"
    seats = first.json["seats"]
    assert [(x["seat"], x["name"]) for x in seats] == [(0, "Ann"), (1, "Bob")]
    # The tokens are fresh: not the ones the secret stands for, so the link is now worthless.
    for x in seats:
        assert x["token"] != derive(secret, code, x["seat"])
        assert len(x["token"]) >= 22  # 128 bits or more
    again = device.post(f"/hotseat/{code}/claim", json={"secret": secret})
    assert again.status_code == 403 and "already been used" in again.json["error"]["message"]
    stored = {x.token_hash for x in tables.seats(code)}
    assert stored == {hash_token(x["token"]) for x in seats}

    # Each token resumes its seat over its own connection, as a phone would; the first starts.
    ann, bob = phone(), phone()
    assert ann.send("resume", {"token": seats[0]["token"]})["seat"] == 0
    assert bob.send("resume", {"token": seats[1]["token"]})["seat"] == 1
    assert [a["type"] for a in ann.view["actions"]] == ["start"]
    assert bob.view["actions"] == []
    assert ann.act({"type": "start"})["ok"]
    bob.pump()
    assert bob.view["status"] == "playing"
    # A token derived from the secret resumes nothing.
    stranger = phone()
    assert not stranger.send("resume", {"token": derive(secret, code, 0)})["ok"]


def test_a_new_link_retires_the_old_one_and_the_device_that_used_it(app, teacher, tables, phone):
    client, csrf = logged_in(app)
    _link, code, secret = created_link(create(client, csrf, ["Ann", "Bob"]))
    device = app.test_client()
    seats = device.post(f"/hotseat/{code}/claim", json={"secret": secret}).json["seats"]
    # The table page leads back to the link page (the teacher may have closed it).
    assert f'href="/facilitator/hotseat/{code}"' in client.get(f"/facilitator/tables/{code}").get_data(as_text=True)
    assert client.get(f"/facilitator/hotseat/{code}").status_code == 200
    response = client.post(f"/facilitator/hotseat/{code}/link", data={"csrf": csrf})
    assert response.status_code == 200
    _link2, code2, secret2 = created_link(response)
    assert code2 == code and secret2 != secret
    old = phone()
    assert old.send("resume", {"token": seats[0]["token"]})["error"]["code"] == "not_joined"
    fresh = device.post(f"/hotseat/{code}/claim", json={"secret": secret2})
    assert fresh.status_code == 200


def test_only_the_owner_sees_or_relinks_a_hotseat_table(app, teacher, other_teacher, tables):
    client, csrf = logged_in(app)
    _link, code, _secret = created_link(create(client, csrf, ["Ann", "Bob"]))
    other = app.test_client()
    other.get("/facilitator/login")
    with other.session_transaction() as sess:
        other_csrf = sess["csrf"]
    other.post("/facilitator/login", data={"name": "other", "password": PASSWORD, "csrf": other_csrf})
    other.get("/facilitator/")
    with other.session_transaction() as sess:
        other_csrf = sess["csrf"]
    assert other.get(f"/facilitator/hotseat/{code}").status_code == 404
    assert other.post(f"/facilitator/hotseat/{code}/link", data={"csrf": other_csrf}).status_code == 404
    # An ordinary table has no hotseat page.
    plain = tables.create_table(teacher.id, "war", {})
    assert client.get(f"/facilitator/hotseat/{plain.code}").status_code == 404


def _ended_hotseat_game(app, client, csrf, tables, teacher, phone, names):
    """A hotseat table claimed by its device, each seat resumed over its own connection,
    started and ended by the teacher: (code, tokens, connections)."""
    from app.extensions import services
    _link, code, secret = created_link(create(client, csrf, names))
    tokens = [x["token"] for x in app.test_client().post(f"/hotseat/{code}/claim", json={"secret": secret}).json["seats"]]
    conns = [phone() for _ in tokens]
    for conn, token in zip(conns, tokens):
        assert conn.send("resume", {"token": token})["ok"]
    assert conns[0].act({"type": "start"})["ok"]
    with app.app_context():
        services(app).notifier.publish(tables.moderate(teacher.id, code, tables.get(code).version, {"type": "end"}))
    for conn in conns:
        assert conn.pump()["status"] == "ended" and conn.view["again"]["offered"] is True
    return code, tokens, conns


def test_the_shared_device_plays_again_with_one_tap_and_follows_the_new_table(app, teacher, tables, phone):
    """Play again on the hotseat device (static/js/hotseat.js): one `again` from one seat's
    connection names the device's other seats; every player is ready at once, so the
    rematch is dealt (no "wants to play again" one by one), every seat's token moves to
    the new table, each connection gets its view, and the new table is a hotseat table
    whose link page the teacher can reach."""
    client, csrf = logged_in(app)
    code, tokens, (ann, bob, cy) = _ended_hotseat_game(app, client, csrf, tables, teacher, phone,
                                                        ["Ann", "Bob", "Cy"])
    # Seats of another table, or a token that is not a string, are refused: nothing changes.
    _other, other_tokens, _conns = _ended_hotseat_game(app, client, csrf, tables, teacher, phone, ["Dee", "Eve"])
    refused = ann.send("again", {"seats": [tokens[1], other_tokens[0]]})
    assert not refused["ok"] and refused["error"]["code"] == "forbidden"
    assert ann.send("again", {"seats": [7]})["error"]["code"] == "bad_request"
    assert tables.live(code, fresh=True).again == frozenset() and tables.live(code).successor is None

    ack = ann.send("again", {"seats": tokens[1:]})
    assert ack["ok"] and ack["table"] and ack["table"] != code
    new = ack["table"]
    row = tables.get(new)
    assert (row.status, row.locked, row.facilitator_id) == ("playing", True, teacher.id)
    assert [(x.seat_index, x.name, x.computer) for x in tables.seats(new)] == [(0, "Ann", False), (1, "Bob", False),
                                                                                 (2, "Cy", False)]
    assert {x.token_hash for x in tables.seats(new)} == {hash_token(t) for t in tokens}
    assert not any(e.get("t") == "again" for ev in tables.events(code) for e in ev.log)
    for conn in (ann, bob, cy):
        assert conn.pump()["code"] == new and conn.view["status"] == "playing"
    assert HotseatService(tables).is_hotseat(new)
    assert f'href="/facilitator/hotseat/{new}"' in client.get(f"/facilitator/tables/{new}").get_data(as_text=True)
    # The same tokens play on: the device's seats are the new table's.
    assert any(conn.can("reveal") for conn in (ann, bob, cy))


def test_a_device_holding_some_seats_counts_them_all_in_one_event(app, teacher, tables, phone):
    """`again` with `seats` from a device that holds only some of the seats: every one of
    them is ready (one event listing them; a reload counts them too), the others still asked."""
    client, csrf = logged_in(app)
    code, tokens, (ann, bob, cy) = _ended_hotseat_game(app, client, csrf, tables, teacher, phone,
                                                        ["Ann", "Bob", "Cy"])
    ack = ann.send("again", {"seats": [tokens[1]]})
    assert ack["ok"] and ack["table"] is None
    assert cy.pump()["again"]["ready"] == [0, 1]
    assert tables.events(code)[-1].action == {"type": "again", "seats": [0, 1]}
    tables.forget(code)
    assert tables.live(code, fresh=True).again == frozenset({0, 1})
    assert not bob.send("again", {})["ok"]  # Bob is ready already
    done = cy.send("again", {})
    assert done["ok"] and done["table"]


def test_a_game_for_one_cannot_be_a_hotseat_game(tables, teacher):
    from app.engines.contract import GameSpec
    from app.service.hotseat import supports
    import dataclasses
    from app import engines
    solo = dataclasses.replace(engines.spec("war"), min_seats=1, max_seats=1)
    assert isinstance(solo, GameSpec) and not supports(solo)
    with pytest.raises(Exception):
        HotseatService(tables).create(teacher.id, "nosuchgame", {}, ["Ann", "Bob"])


# ------------------------------------------------------------------ browser
from browser import (FACILITATOR_PASSWORD, PHONE, browser, new_game_form, no_dialogs,  # noqa: E402,F401,F811
                     server, shot)
from test_accessibility import violations  # noqa: E402

DESKTOP = {"viewport": {"width": 1280, "height": 720}}


def _hotseat_link(browser, server, game_key, title, names, options=None):  # noqa: F811
    """The teacher logs in, creates a hotseat table from the dashboard: (teacher page, link)."""
    fac = browser.new_context(**DESKTOP, bypass_csp=True).new_page()
    new_game_form(fac, server.url, game_key, "device", more=bool(options))
    for i, name in enumerate(names, start=1):
        fac.locator(f"#hotseat-{game_key}-player{i}").fill(name)
    for key, value in (options or {}).items():
        fac.locator(f"#hotseat-{game_key}-{key}").select_option(value)
    fac.get_by_role("button", name=f"Create a {title} hotseat game").click()
    fac.get_by_role("link", name="Open the game on this device").wait_for()
    link = fac.get_by_role("link", name="Open the game on this device").get_attribute("href")
    assert fac.locator("img.hotseat-qr").evaluate("img => img.complete && img.naturalWidth > 0")
    return fac, link


def _pass_to(device, name):
    """The pass screen asks for `name`; nothing of a seat's view is on the page meanwhile."""
    dialog = device.get_by_role("dialog", name=f"Pass the device to {name}")
    dialog.wait_for()
    button = device.get_by_role("button", name=f"I'm {name} \u2014 continue")
    assert button.evaluate("b => document.activeElement === b")
    assert device.locator("#game-root").evaluate("r => r.children.length") == 0
    assert device.locator(".hotseat-view").count() == 0
    return button


def _continue(device, name):
    _pass_to(device, name).click()
    device.get_by_role("heading", name=f"{name}'s turn").wait_for()
    assert device.get_by_role("dialog").count() == 0


@pytest.mark.browser
def test_war_on_one_device_passes_between_the_players(server, browser):  # noqa: F811
    fac, link = _hotseat_link(browser, server, "war", "War", ["Ann", "Bob"])
    shot(fac, "hotseat-link-1280")
    assert violations(fac) == []

    device = browser.new_context(**PHONE, bypass_csp=True).new_page()
    dialogs = no_dialogs(device)
    device.goto(link)
    # The lobby: both names and the first player's Start button; the secret left the address bar.
    start = device.get_by_role("button", name="Deal cards & start")
    start.wait_for()
    assert "#" not in device.url
    assert device.locator(".player-list").inner_text().split("\n").count("Ann") == 1
    shot(device, "hotseat-war-lobby-360")
    start.click()

    # The first turn: Ann's, behind her pass screen.
    _pass_to(device, "Ann")
    shot(device, "hotseat-war-pass-ann-360")
    assert violations(device) == []
    _continue(device, "Ann")
    shot(device, "hotseat-war-ann-360")
    assert violations(device) == []
    device.get_by_role("button", name=re.compile("Reveal your card")).click()

    # Ann has revealed: the device goes to Bob, and Ann's view is gone from the page.
    _pass_to(device, "Bob")
    assert device.get_by_text("Ann's turn").count() == 0
    shot(device, "hotseat-war-pass-bob-360")
    _continue(device, "Bob")
    device.get_by_role("button", name=re.compile("Reveal your card")).click()
    # The battle is resolved: the next round starts with Ann again.
    _pass_to(device, "Ann")
    assert dialogs == []

    # A reload keeps the seats (localStorage), and the used link is worth nothing now.
    device.reload()
    _pass_to(device, "Ann")
    # The same game opened in a second tab takes every seat; the first tab steps aside, its
    # hand hidden, until "Use here" takes the seats back (behind the pass screen again).
    second = device.context.new_page()
    second.goto(link.split("#")[0])
    _pass_to(second, "Ann")
    device.get_by_text("This game is open in another tab or on another device").wait_for()
    assert device.locator("#game-panel").is_hidden() and device.locator("#pass-screen").is_hidden()
    shot(device, "hotseat-taken-over-360")
    device.get_by_role("button", name="Use here").click()
    _pass_to(device, "Ann")
    second.get_by_text("This game is open in another tab or on another device").wait_for()
    second.close()
    other = browser.new_context(**PHONE).new_page()
    other.goto(link)
    other.get_by_text("already been used").wait_for()

    # The same game at laptop size.
    device.set_viewport_size(DESKTOP["viewport"])
    _continue(device, "Ann")
    shot(device, "hotseat-war-ann-1280")
    device.context.close()
    other.context.close()
    fac.context.close()


@pytest.mark.browser
def test_water_cycle_hotseat_turn_with_its_pass_screen(server, browser):  # noqa: F811
    fac, link = _hotseat_link(browser, server, "water_cycle", "Water Cycle Challenge", ["Mia", "Noor", "Omar"],
                              options={"crisis_mode": "off"})
    device = browser.new_context(**PHONE, bypass_csp=True).new_page()
    dialogs = no_dialogs(device)
    device.goto(link)
    device.locator(".hotseat-lobby button.primary").click()
    _continue(device, "Mia")
    shot(device, "hotseat-water-mia-360")
    assert violations(device) == []
    device.get_by_role("button", name=re.compile("Draw 2 cards and end your turn")).click()
    _pass_to(device, "Noor")
    shot(device, "hotseat-water-pass-noor-360")
    _continue(device, "Noor")
    device.set_viewport_size(DESKTOP["viewport"])
    shot(device, "hotseat-water-noor-1280")
    assert violations(device) == []
    assert dialogs == []
    device.context.close()
    fac.context.close()


@pytest.mark.browser
def test_a_crisis_vote_is_taken_in_turn_each_behind_its_pass_screen(server, browser):  # noqa: F811
    import sqlite3

    fac, link = _hotseat_link(browser, server, "water_cycle", "Water Cycle Challenge", ["Mia", "Noor", "Omar"],
                              options={"vote_seconds": "0"})
    code = urlsplit(link).path.rsplit("/", 1)[1]
    # Seed 1 deals Mia a Crisis on her first draw (the table has not started: nothing is cached yet).
    with sqlite3.connect(server.instance / "live.db") as db:
        db.execute("UPDATE game_table SET seed = 1 WHERE code = ?", (code,))
    device = browser.new_context(**PHONE, bypass_csp=True).new_page()
    dialogs = no_dialogs(device)
    device.goto(link)
    device.locator(".hotseat-lobby button.primary").click()
    _continue(device, "Mia")
    device.get_by_role("button", name="Draw 2 cards and end your turn").click()
    # The Crisis is Mia's to answer: same player, no pass screen.
    device.get_by_role("button", name="Use Condensation").first.click()
    explain = device.get_by_label(re.compile("Explain how your card helps"))
    explain.fill("Condensation turns the vapour into clouds we can plan for.")
    device.get_by_role("button", name="Send explanation").click()
    # Both others vote, one at a time in seat order, each behind a pass screen.
    _continue(device, "Noor")
    device.get_by_text("Vote thumbs up or down").wait_for()
    shot(device, "hotseat-water-vote-noor-360")
    device.get_by_role("button", name=re.compile("Thumbs up")).click()
    _continue(device, "Omar")
    assert device.get_by_text("Noor's turn").count() == 0
    device.get_by_role("button", name=re.compile("Thumbs up")).click()
    # The vote is over: the device goes on to whoever the game waits for now.
    device.get_by_role("dialog").wait_for()
    assert dialogs == []
    device.context.close()
    fac.context.close()


@pytest.mark.browser
def test_the_shared_device_offers_play_again_and_follows_the_new_table(server, browser):  # noqa: F811
    """The end screen of a hotseat game offers Play again: one tap deals the rematch for
    every player on the device, which follows the new table (its address too) and
    passes the device to the first player again; a reload stays at the new table."""
    from live import end_table

    fac, link = _hotseat_link(browser, server, "war", "War", ["Ann", "Bob", "Cy"])
    code = urlsplit(link).path.rsplit("/", 1)[1]
    device = browser.new_context(**PHONE, bypass_csp=True, reduced_motion="reduce").new_page()
    dialogs, errors = no_dialogs(device), []
    device.on("pageerror", lambda exc: errors.append(str(exc)))
    device.goto(link)
    device.get_by_role("button", name="Deal cards & start").click()
    _pass_to(device, "Ann")
    end_table(server.url, server.api_token("teacher", FACILITATOR_PASSWORD), code)  # the teacher ends it

    again = device.get_by_role("button", name="Play again")
    again.wait_for()
    device.get_by_text("The same players on this device: Ann, Bob, Cy.").wait_for()
    # Nobody's seat: the winner by name, and no reason code.
    assert "You" not in device.locator(".hotseat-end h1").inner_text()
    assert device.get_by_text("ended_by_facilitator").count() == 0
    device.wait_for_timeout(300)
    shot(device, "hotseat-end-play-again-360x740")
    assert violations(device) == []
    device.set_viewport_size(DESKTOP["viewport"])
    device.wait_for_timeout(300)
    shot(device, "hotseat-end-play-again-1280x720")
    assert violations(device) == []
    device.set_viewport_size(PHONE["viewport"])

    again.click()
    # The new table: dealt at once, the device's address follows, the first player's turn.
    device.wait_for_function("code => !location.pathname.endsWith(code)", arg=code, timeout=20_000)
    new = urlsplit(device.url).path.rsplit("/", 1)[1]
    assert re.fullmatch(r"[A-Z0-9]{6}", new) and new != code
    _continue(device, "Ann")
    device.get_by_role("button", name=re.compile("Reveal your card")).click()
    _pass_to(device, "Bob")
    assert device.evaluate("Object.keys(localStorage).filter(k => k.startsWith('cg.hotseat.'))") == [
        f"cg.hotseat.{new}"]
    device.reload()
    _continue(device, "Bob")
    # The teacher's page of the new table leads to its hotseat link page.
    fac.goto(f"{server.url}/facilitator/tables/{new}")
    fac.get_by_role("link", name="Its link and QR code").wait_for()
    assert dialogs == [] and errors == []
    device.context.close()
    fac.context.close()
