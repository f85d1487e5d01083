"""The Socket.IO protocol of DESIGN.md: every event and every error code."""
from __future__ import annotations

import json

import pytest

from app import engines
from app.extensions import services
from phones import play_to_end, seated


@pytest.fixture
def fac_phone(phone, teacher_token):
    return phone(auth={"token": teacher_token})


def started(phone, code, *names):
    phones = seated(phone, code, *names)
    ack = phones[0].act({"type": "start"})
    assert ack["ok"], ack
    for p in phones:
        p.pump()
    return phones


def error_code(ack):
    assert ack["ok"] is False, ack
    assert set(ack["error"]) == {"code", "message"} and ack["error"]["message"]
    return ack["error"]["code"]


# ------------------------------------------------------------------- join
def test_join_acknowledges_seat_token_and_table_and_everyone_sees_it(phone, war_table):
    board = phone()
    assert board.send("watch", {"code": war_table.code})["ok"]
    ana = phone()
    ack = ana.join(war_table.code.lower(), "  Ana  ")
    assert ack["ok"] and ack["seat"] == 0 and ack["table"] == war_table.code
    assert len(ack["token"]) >= 22  # ≥128 random bits, URL-safe
    view = ana.view
    assert view["seat"] == 0 and view["status"] == "lobby" and view["code"] == war_table.code
    assert set(view) >= {"code", "game", "version", "status", "seat", "view", "actions", "log"}
    assert [p["name"] for p in view["players"]] == ["Ana"]
    board.pump()
    assert board.view["players"][0] == {"seat": 0, "name": "Ana", "connected": True, "computer": False}
    assert board.view["seat"] is None and board.view["actions"] == []


def test_start_is_offered_to_the_first_player_once_two_have_joined(phone, war_table):
    ana, = seated(phone, war_table.code, "Ana")
    assert ana.view["actions"] == []
    ben, = seated(phone, war_table.code, "Ben")
    assert ana.pump()["actions"] == [{"type": "start", "label": "Deal cards & start"}]
    assert ben.view["actions"] == []
    assert error_code(ben.act({"type": "start"})) == "not_your_turn"


@pytest.mark.parametrize("payload", [None, "ABC", 42, [], {}, {"code": "ABCDEF"}, {"name": "x"},
                                     {"code": 5, "name": "Ana"}, {"code": "ABCDEF", "name": ["Ana"]}])
def test_join_with_a_bad_payload_is_bad_request(phone, payload):
    assert error_code(phone().send("join", payload)) == "bad_request"


@pytest.mark.parametrize("name", ["", "   ", "x" * 21])
def test_join_rejects_bad_names(phone, war_table, name):
    assert error_code(phone().join(war_table.code, name)) == "bad_request"
    assert phone().join(war_table.code, "Ana")["seat"] == 0  # nothing was seated


def test_unknown_and_malformed_codes(phone):
    p = phone()
    assert error_code(p.join("ZZZZZZ", "Ana")) == "unknown_table"
    assert error_code(p.join("not a code!", "Ana")) == "unknown_table"
    assert error_code(p.send("watch", {"code": "ZZZZZZ"})) == "unknown_table"


def test_name_taken_is_case_insensitive_and_changes_nothing(phone, war_table, tables):
    seated(phone, war_table.code, "Ana")
    assert error_code(phone().join(war_table.code, "ANA")) == "name_taken"
    assert [s.name for s in tables.seats(war_table.code)] == ["Ana"]


def test_table_full_after_six(phone, war_table):
    seated(phone, war_table.code, *[f"P{i}" for i in range(6)])
    assert error_code(phone().join(war_table.code, "Seventh")) == "table_full"


def test_joining_a_started_locked_or_ended_table(phone, war_table, fac_phone):
    a, b = seated(phone, war_table.code, "Ana", "Ben")
    fac_phone.send("watch", {"code": war_table.code, "role": "facilitator"})
    ack = fac_phone.send("moderate", {"code": war_table.code, "version": fac_phone.view["version"],
                                      "action": {"type": "lock"}})
    assert ack["ok"], ack
    locked = phone().join(war_table.code, "Cara")
    assert error_code(locked) == "forbidden" and "locked" in locked["error"]["message"]
    a.act({"type": "start"})
    started_ack = phone().join(war_table.code, "Dan")
    assert error_code(started_ack) == "forbidden" and "started" in started_ack["error"]["message"]
    fac_phone.pump()
    fac_phone.send("moderate", {"code": war_table.code, "version": fac_phone.view["version"],
                                "action": {"type": "end"}})
    assert error_code(phone().join(war_table.code, "Eve")) == "game_over"


def test_html_in_a_name_is_kept_as_text(phone, war_table):
    evil = "<img src=x onerror=f>"[:20]
    ana, = seated(phone, war_table.code, evil)
    assert ana.view["players"][0]["name"] == evil  # escaping is the renderer's job: textContent only
    # The issue's full example is 28 characters: too long for a name, refused with a clear message.
    ack = phone().join(war_table.code, "<img src=x onerror=alert(1)>")
    assert error_code(ack) == "bad_request" and "20 characters" in ack["error"]["message"]


# ----------------------------------------------------------------- resume
def test_resume_returns_to_the_same_seat_without_a_duplicate(app, phone, war_table, tables):
    ana = phone()
    token = ana.join(war_table.code, "Ana")["token"]
    ana.close()
    again = phone()
    ack = again.send("resume", {"token": token})
    assert ack == {"ok": True, "seat": 0, "table": war_table.code, "name": "Ana"}
    assert again.view["seat"] == 0
    assert len(tables.seats(war_table.code)) == 1


def test_resume_errors(phone):
    p = phone()
    assert error_code(p.send("resume", {"token": "not-a-real-token"})) == "not_joined"
    assert error_code(p.send("resume", {})) == "bad_request"
    assert error_code(p.send("resume", "token")) == "bad_request"


def test_board_shows_who_is_connected(phone, war_table):
    board = phone()
    board.send("watch", {"code": war_table.code})
    ana, ben = seated(phone, war_table.code, "Ana", "Ben")
    ben.close()
    board.pump()
    assert [p["connected"] for p in board.view["players"]] == [True, False]


# -------------------------------------------------------------------- act
def test_act_before_joining_is_not_joined(phone):
    assert error_code(phone().send("act", {"version": 0, "action": {"type": "reveal"}})) == "not_joined"


@pytest.mark.parametrize("payload", [None, [], {"version": "1", "action": {"type": "reveal"}},
                                     {"version": 1}, {"version": 1, "action": "reveal"},
                                     {"version": True, "action": {"type": "reveal"}},
                                     {"version": 1, "action": {"kind": "reveal"}}])
def test_act_with_a_bad_payload_is_bad_request(phone, war_table, payload):
    ana, ben = started(phone, war_table.code, "Ana", "Ben")
    before = ana.view["version"]
    assert error_code(ana.send("act", payload)) == "bad_request"
    assert ana.pump()["version"] == before


def test_an_order_free_reveal_from_an_old_version_counts_while_it_is_still_legal(phone, war_table):
    ana, ben = started(phone, war_table.code, "Ana", "Ben")
    old = ana.view["version"]
    first = {"type": "reveal", "battle": 1}   # as listed: the reveal names its battle
    assert ben.act(first)["ok"]
    ack = ana.send("act", {"version": old, "action": first})  # Ana had not seen Ben's reveal
    assert ack["ok"] and ack["version"] == old + 2
    # A bare reveal from the old version is checked against the version: stale.
    assert error_code(ana.send("act", {"version": old, "action": {"type": "reveal"}})) == "stale"
    while ana.pump()["view"]["public"]["battle"] == 1:   # a tie: battle 1 goes to war first
        for p in (ana, ben):
            if p.can("reveal"):
                assert p.act({"type": "reveal"})["ok"]
    # Once battle 2 has begun, a second tap of battle 1 from the old view is stale.
    assert error_code(ana.send("act", {"version": old, "action": first})) == "stale"
    assert ana.act({"type": "reveal", "battle": 2})["ok"]


def test_a_stale_move_gets_the_fresh_view_with_the_error(phone, war_table):
    ana, ben = seated(phone, war_table.code, "Ana", "Ben")
    old = ana.pump()["version"]
    cara, = seated(phone, war_table.code, "Cara")  # the lobby changed after Ana looked
    ack = ana.send("act", {"version": old, "action": {"type": "start"}})
    assert error_code(ack) == "stale" and ack["version"] == old + 1
    assert ana.view["version"] == old + 1 and len(ana.view["players"]) == 3  # the fresh view came with it
    assert ana.act({"type": "start"})["ok"]


def test_a_seat_cannot_reveal_twice_or_play_illegal_actions(phone, war_table):
    ana, ben, cara = started(phone, war_table.code, "Ana", "Ben", "Cara")
    assert ana.act({"type": "reveal"})["ok"]
    assert error_code(ana.act({"type": "reveal"})) == "not_your_turn"
    assert error_code(ben.act({"type": "fly"})) == "illegal"
    assert error_code(ben.act({"type": "autoplay", "speed": 3})) == "illegal"
    assert error_code(ben.act({"type": "end"})) == "illegal"  # ending is the facilitator's, not a move


# A two-seat War deal that ends after 126 reveals (found by simulating seeds): a game played
# to its end in a known number of moves, not in however long the fixed deal of the day lasts
# (one ran 5,166 reveals, 80 s).
SHORT_TWO_SEAT_WAR = 34


def test_game_played_to_the_end_then_game_over(phone, tables, teacher, monkeypatch):
    monkeypatch.setattr(tables.deals, "next", lambda *key: SHORT_TWO_SEAT_WAR)
    war_table = tables.create_table(teacher.id, "war", {})
    ana, ben = started(phone, war_table.code, "Ana", "Ben")
    final = play_to_end([ana, ben])
    result = final["view"]["public"]["result"]
    assert final["status"] == "ended" and result["winners"] and sorted(result["ranking"]) == [0, 1]
    assert error_code(ana.act({"type": "reveal"})) == "game_over"


def test_views_never_carry_another_seats_private_data(phone, war_table):
    board = phone()
    board.send("watch", {"code": war_table.code})
    ana, ben = started(phone, war_table.code, "Ana", "Ben")
    for _ in range(30):
        for p in (ana, ben):
            if p.can("reveal"):
                p.act({"type": "reveal"})
    board.pump()
    assert board.view["view"]["private"] == {}
    assert ana.view["view"]["private"]["seat"] == 0 and ben.view["view"]["private"]["seat"] == 1
    for p, other in ((ana, ben), (ben, ana)):
        assert json.dumps(other.view["view"]["private"]) not in json.dumps(p.view)


# ---------------------------------------------------------------- watch
def test_watch_as_facilitator_needs_the_owner(phone, war_table, app, other_teacher):
    stranger = phone(auth={"token": services(app).accounts.issue_token(other_teacher.id)})
    assert error_code(stranger.send("watch", {"code": war_table.code, "role": "facilitator"})) == "forbidden"
    assert error_code(phone().send("watch", {"code": war_table.code, "role": "facilitator"})) == "forbidden"
    assert error_code(phone().send("watch", {"code": war_table.code, "role": "king"})) == "bad_request"
    assert error_code(phone().send("watch", {"code": 7})) == "bad_request"


# ------------------------------------------------------------- moderate
def moderate(fac, code, action, version=None):
    fac.pump()
    return fac.send("moderate", {"code": code, "version": fac.view["version"] if version is None else version,
                                 "action": action})


def test_moderation_needs_the_tables_facilitator(phone, war_table, app, other_teacher):
    seated(phone, war_table.code, "Ana")
    assert error_code(phone().send("moderate", {"code": war_table.code, "version": 1,
                                                "action": {"type": "lock"}})) == "forbidden"
    stranger = phone(auth={"token": services(app).accounts.issue_token(other_teacher.id)})
    assert error_code(stranger.send("moderate", {"code": war_table.code, "version": 1,
                                                 "action": {"type": "lock"}})) == "forbidden"
    wrong_token = phone(auth={"token": "forged"})
    assert error_code(wrong_token.send("moderate", {"code": war_table.code, "version": 1,
                                                    "action": {"type": "lock"}})) == "forbidden"


def test_moderation_errors(fac_phone, war_table, phone):
    fac_phone.send("watch", {"code": war_table.code, "role": "facilitator"})
    assert error_code(moderate(fac_phone, war_table.code, {"type": "lock"}, version=99)) == "stale"
    assert error_code(fac_phone.send("moderate", {"code": war_table.code, "action": {"type": "lock"}})) == "bad_request"
    assert error_code(moderate(fac_phone, war_table.code, {"type": "kick", "seat": 4})) == "bad_request"
    assert error_code(moderate(fac_phone, war_table.code, {"type": "teleport"})) == "illegal"
    assert error_code(moderate(fac_phone, "ZZZZZZ", {"type": "lock"}, version=0)) == "unknown_table"


def test_kick_in_lobby_refuses_the_token_and_renumbers(fac_phone, war_table, phone, tables):
    fac_phone.send("watch", {"code": war_table.code, "role": "facilitator"})
    ana, ben, cara = seated(phone, war_table.code, "Ana", "Ben", "Cara")
    assert moderate(fac_phone, war_table.code, {"type": "kick", "seat": 1})["ok"]
    assert ben.received("removed")
    assert error_code(ben.act({"type": "start"}, version=fac_phone.pump()["version"])) == "forbidden"
    assert error_code(phone().send("resume", {"token": ben.token})) == "forbidden"
    assert [(s.seat_index, s.name) for s in tables.seats(war_table.code)] == [(0, "Ana"), (1, "Cara")]
    assert cara.pump()["seat"] == 1
    assert cara.send("note", {"text": "still here"})["ok"]


def test_kicked_player_cannot_resume_and_the_computer_plays_their_seat(fac_phone, war_table, phone, tables):
    fac_phone.send("watch", {"code": war_table.code, "role": "facilitator"})
    ana, ben = started(phone, war_table.code, "Ana", "Ben")
    assert moderate(fac_phone, war_table.code, {"type": "kick", "seat": 1})["ok"]
    assert error_code(phone().send("resume", {"token": ben.token})) == "forbidden"
    assert error_code(ben.act({"type": "reveal"}, version=ana.pump()["version"])) == "forbidden"
    assert [p["computer"] for p in ana.pump()["players"]] == [False, True]
    final = play_to_end([ana])  # Ben's seat reveals by itself
    assert final["status"] == "ended"
    assert any(e.actor == "seat:1:auto" for e in tables.events(war_table.code))


def test_lock_unlock_pause_resume_and_end(fac_phone, war_table, phone):
    fac_phone.send("watch", {"code": war_table.code, "role": "facilitator"})
    ana, ben = started(phone, war_table.code, "Ana", "Ben")
    assert moderate(fac_phone, war_table.code, {"type": "pause"})["ok"]
    assert ana.pump()["paused"] and ana.view["actions"] == []
    assert error_code(ana.act({"type": "reveal"})) == "forbidden"
    assert moderate(fac_phone, war_table.code, {"type": "resume"})["ok"]
    assert ana.act({"type": "reveal"})["ok"]
    assert moderate(fac_phone, war_table.code, {"type": "end"})["ok"]
    final = ana.pump()
    assert final["status"] == "ended" and final["view"]["public"]["result"]["reason"] == "ended_by_facilitator"
    assert error_code(moderate(fac_phone, war_table.code, {"type": "lock"})) == "game_over"


# ------------------------------------------------------------------ note
def test_notes_from_a_player_and_the_facilitator(fac_phone, war_table, phone, tables):
    fac_phone.send("watch", {"code": war_table.code, "role": "facilitator"})
    ana, ben = started(phone, war_table.code, "Ana", "Ben")
    assert ana.send("note", {"text": "The war animation was confusing."})["ok"]
    assert fac_phone.send("note", {"text": "Ana asked about ties."})["ok"]
    notes = tables.notes(war_table.code)
    assert [(n.author, n.game_version) for n in notes] == [("Ana", engines.spec("war").version),
                                                           ("Facilitator teacher", engines.spec("war").version)]
    assert notes[0].version == ana.view["version"]
    assert fac_phone.received("note")[0]["text"] == "The war animation was confusing."


def test_note_errors(phone, war_table):
    assert error_code(phone().send("note", {"text": "hello"})) == "not_joined"
    ana, = seated(phone, war_table.code, "Ana")
    assert error_code(ana.send("note", {"text": "   "})) == "bad_request"
    assert error_code(ana.send("note", {"text": "x" * 1001})) == "bad_request"
    assert error_code(ana.send("note", {"words": "hi"})) == "bad_request"


# ------------------------------------------------------------ rate limit
@pytest.mark.app_config(SOCKET_RATE=10.0, SOCKET_BURST=30.0)
def test_flooding_is_rate_limited(phone, war_table):
    p = phone()
    codes = [p.send("watch", {"code": war_table.code}).get("error", {}).get("code") for _ in range(60)]
    assert "rate_limited" in codes
    assert codes[0] is None  # the first messages were served


@pytest.mark.app_config(SOCKET_RATE=10.0, SOCKET_BURST=30.0, CODE_GUESS_LIMIT=10)
def test_guessing_codes_is_rate_limited(phone):
    p = phone()
    codes = [error_code(p.join(f"ZZZZZ{c}", "Ana")) for c in "23456789ABCDE"]
    assert codes[:10] == ["unknown_table"] * 10 and codes[-1] == "rate_limited"


@pytest.mark.app_config(SOCKET_RATE=0.001, SOCKET_BURST=5.0)
def test_reserved_event_names_cannot_be_sent_by_a_client(phone, war_table):
    p = phone()
    for _ in range(5):
        assert p.send("watch", {"code": war_table.code})["ok"]
    assert error_code(p.send("watch", {"code": war_table.code})) == "rate_limited"
    p.client.emit("disconnect", {})  # an ordinary event with a reserved name...
    p.client.emit("connect", {})
    assert p.client.is_connected()
    assert error_code(p.send("watch", {"code": war_table.code})) == "rate_limited"  # ...reset nothing


def test_a_socket_event_reuses_the_connections_session_and_opens_no_cookie(app, teacher, war_table, monkeypatch):
    """Flask-SocketIO replaces each event's session with the one saved at the connect;
    the cookie is verified once, at the connect, and the teacher is still known after."""
    from flask.sessions import SecureCookieSessionInterface

    from phones import Phone
    from test_http import login

    browser = app.test_client()
    assert login(browser).status_code == 302
    opened = []
    cookie_open = SecureCookieSessionInterface.open_session
    monkeypatch.setattr(SecureCookieSessionInterface, "open_session",
                        lambda self, app_, request: opened.append(request.path) or cookie_open(self, app_, request))
    page = Phone(app, flask_client=browser)
    assert opened == ["/socket.io"]
    for _ in range(3):
        assert page.send("watch", {"code": war_table.code, "role": "facilitator"})["ok"]  # the teacher's own
    assert page.send("moderate", {"code": war_table.code, "version": page.view["version"],
                                  "action": {"type": "lock"}})["ok"]
    assert opened == ["/socket.io"]
    assert browser.get("/facilitator/").status_code == 200  # HTTP requests open their cookie as before
    assert len(opened) == 2
