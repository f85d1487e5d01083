"""The teacher's one tap that hides a student's words of power (issue 18, item 8), in
Chromium: the table page at 1280×720 shows the words with a Hide button; one tap takes
them off the projected board and a student's phone (360×740), and the table page shows
them greyed, "hidden from board". Screenshots land in test-artifacts/."""
from __future__ import annotations

import random
import re
import time

import pytest
import requests

from app import engines
from app.engines.contract import strip_label
from browser import FACILITATOR_PASSWORD, PHONE, browser, no_dialogs, server, shot  # noqa: F401  (fixtures)
from live import LivePhone

pytestmark = pytest.mark.browser

WORDS = "Zingalong the bright"


def cast_live(ana: LivePhone, ben: LivePhone, timeout: float = 90.0) -> None:
    """Both students play (the computer logic choosing for them, from what their phone
    shows) until one casts a spell, saying WORDS. A phone acts once on each view it is
    sent, as a student taps once per screen: acting again on a view already answered
    would only be refused `stale`, and on a loaded machine a loop of such refusals ran
    into the socket's rate limit (10 messages/s) before the next view arrived."""
    engine, rng = engines.get("wizard"), random.Random(5)
    answered: dict[int, int] = {}  # id(phone) -> the view version it acted on
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        moved = False
        for p in (ana, ben):
            view = p.view
            if not view or not view["actions"] or answered.get(id(p)) == view["version"]:
                continue
            cast = next((a for a in view["actions"] if a["type"] == "cast"), None)
            action = dict(strip_label(cast), words=WORDS) if cast else strip_label(
                engine.bot(view["view"], view["actions"], rng))
            ack = p.call("act", {"version": view["version"], "action": action})
            if ack["ok"] and cast:
                return
            if ack["ok"] or ack["error"]["code"] == "stale":
                answered[id(p)] = view["version"]  # wait for the next view
            else:
                assert ack["error"]["code"] in ("not_your_turn", "rate_limited"), ack
            moved = moved or ack["ok"]
        if not moved:
            time.sleep(0.02)  # wait for the broadcast of the move
    raise AssertionError("nobody cast a spell")


def test_one_tap_hides_words_of_power_from_the_board_and_the_phones(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    made = requests.post(server.url + "/api/tables", headers={"Authorization": f"Bearer {token}"}, timeout=10,
                         json={"game": "wizard"})
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    ana, ben = LivePhone(server.url), LivePhone(server.url)
    try:
        ana.join(code, "Ana")
        ben.join(code, "Ben")
        ana.wait_for(lambda v: any(a["type"] == "start" for a in v["actions"]))
        assert ana.call("act", {"version": ana.view["version"], "action": {"type": "start"}})["ok"]
        ana.wait_for(lambda v: v["status"] == "playing")
        cast_live(ana, ben)

        teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        dialogs = no_dialogs(teacher)
        teacher.goto(server.url + "/facilitator/")
        teacher.get_by_label("Name").fill("teacher")
        teacher.get_by_label("Password").fill(FACILITATOR_PASSWORD)
        teacher.get_by_role("button", name="Log in").click()
        teacher.goto(f"{server.url}/facilitator/tables/{code}")
        item = teacher.locator("#student-texts .student-text", has_text=WORDS)
        item.wait_for()

        # The words are in the page; whether the board shows them depends on room: a crowded
        # duel's centre takes its tight layout, which leaves them out (wizard.css
        # wiz-center-tight), at 1280×720 about one deal in ten, now and then at 1920×1080 too.
        board = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
        board.goto(f"{server.url}/board/{code}")
        board.get_by_text(WORDS).first.wait_for(state="attached")
        phone = browser.new_context(**PHONE).new_page()  # Ben's phone, his seat taken over from the socket
        phone.add_init_script(f"localStorage.setItem('cg.seat.{code}', {ben.token!r})")
        phone.goto(f"{server.url}/join/{code}")
        phone.get_by_text(WORDS).first.wait_for(state="attached")
        item.scroll_into_view_if_needed()
        shot(teacher, "student-text-table-page-before-hide")

        item.get_by_role("button", name="Hide").click()  # the one tap
        teacher.locator("#student-texts .student-text.is-hidden", has_text=WORDS).wait_for()
        assert "hidden from board" in item.inner_text()
        for page in (board, phone):
            page.get_by_text("(hidden by the teacher)").first.wait_for(state="attached")
            assert WORDS not in page.content()  # not merely out of sight: gone from the page
        shot(teacher, "student-text-table-page-hidden")
        shot(phone, "student-text-phone-hidden")
        shot(board, "student-text-board-hidden")
        assert dialogs == []
    finally:
        ana.close()
        ben.close()


def test_on_the_class_overview_one_tap_approves_and_one_tap_hides(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    headers = {"Authorization": f"Bearer {token}"}
    made = requests.post(server.url + "/api/classes", headers=headers, timeout=10,
                         json={"game": "wizard", "table_size": 2, "text_approval": True})
    assert made.status_code == 201, made.text
    klass = made.json()["code"]
    ana, ben = LivePhone(server.url), LivePhone(server.url)
    try:
        code = ana.join(klass, "Ana")["table"]
        ben.join(klass, "Ben")
        assert requests.post(f"{server.url}/api/classes/{klass}/start", headers=headers, timeout=10).ok
        ana.wait_for(lambda v: v["status"] == "playing")
        cast_live(ana, ben)

        board = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        board.goto(f"{server.url}/board/{code}")
        board.get_by_text("(waiting for the teacher)").filter(visible=True).first.wait_for()
        assert WORDS not in board.inner_text("body")

        teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        dialogs = no_dialogs(teacher)
        teacher.goto(server.url + "/facilitator/")
        teacher.get_by_label("Name").fill("teacher")
        teacher.get_by_label("Password").fill(FACILITATOR_PASSWORD)
        teacher.get_by_role("button", name="Log in").click()
        teacher.goto(f"{server.url}/facilitator/classes/{klass}")
        item = teacher.locator(".class-texts .student-text", has_text=WORDS)
        item.wait_for()
        assert "waiting for your approval" in item.inner_text()
        item.scroll_into_view_if_needed()
        shot(teacher, "student-text-class-overview-waiting")
        item.get_by_role("button", name="Approve").click()
        board.get_by_text(WORDS).filter(visible=True).first.wait_for()
        item.get_by_role("button", name="Hide").click()
        teacher.locator(".class-texts .student-text.is-hidden", has_text=WORDS).wait_for()
        board.get_by_text("(hidden by the teacher)").filter(visible=True).first.wait_for()
        assert WORDS not in board.inner_text("body")
        shot(teacher, "student-text-class-overview-hidden")

        # One tap beside Ben's name on the overview: the class board and his table's board say "Player N".
        classboard = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
        classboard.goto(f"{server.url}/board/{klass}")
        classboard.get_by_text("Ben").first.wait_for()
        player = teacher.locator(".class-player", has_text="Ben")
        seat = next(p["seat"] for p in ben.view["players"] if p["name"] == "Ben")
        player.get_by_role("button", name="Hide name").click()
        player.get_by_role("button", name="Show name").wait_for()
        for page in (classboard, board):
            page.get_by_text(f"Player {seat + 1}").first.wait_for()
            assert not re.search(r"\bBen\b", page.inner_text("body"))
        player.scroll_into_view_if_needed()
        shot(teacher, "hidden-name-class-overview")
        shot(classboard, "hidden-name-class-board")
        assert dialogs == []
    finally:
        ana.close()
        ben.close()


def test_one_tap_hides_a_students_name_from_the_board_and_the_other_phones(server, browser):  # noqa: F811
    """A student joined as a name the teacher does not want projected: one tap on "Hide
    name" beside it on the table page's seat list; the board (1920×1080) and the other
    phone say "Player 2"; the student's own phone and the table page keep the name."""
    name = "Zorbo"
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    made = requests.post(server.url + "/api/tables", headers={"Authorization": f"Bearer {token}"}, timeout=10,
                         json={"game": "wizard"})
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    ana, zorbo = LivePhone(server.url), LivePhone(server.url)
    try:
        ana.join(code, "Ana")
        zorbo.join(code, name)
        ana.wait_for(lambda v: any(a["type"] == "start" for a in v["actions"]))
        assert ana.call("act", {"version": ana.view["version"], "action": {"type": "start"}})["ok"]
        ana.wait_for(lambda v: v["status"] == "playing")

        teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        dialogs = no_dialogs(teacher)
        teacher.goto(server.url + "/facilitator/")
        teacher.get_by_label("Name").fill("teacher")
        teacher.get_by_label("Password").fill(FACILITATOR_PASSWORD)
        teacher.get_by_role("button", name="Log in").click()
        teacher.goto(f"{server.url}/facilitator/tables/{code}")
        seat = teacher.locator("#mod-players li", has_text=name)
        seat.wait_for()

        board = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
        board.goto(f"{server.url}/board/{code}")
        board.get_by_text(name).first.wait_for()
        phone = browser.new_context(**PHONE).new_page()  # Ana's phone
        phone.add_init_script(f"localStorage.setItem('cg.seat.{code}', {ana.token!r})")
        phone.goto(f"{server.url}/join/{code}")
        phone.get_by_text(name).first.wait_for()

        seat.get_by_role("button", name="Hide name").click()  # the one tap
        seat.get_by_role("button", name="Show name").wait_for()
        assert name in seat.inner_text() and "Player 2 on the board" in seat.inner_text()
        for page in (board, phone):
            page.get_by_text("Player 2").first.wait_for()
            assert name not in page.inner_text("body")
        zorbo.wait_for(lambda v: v["players"][1].get("name_hidden"))  # absent until hidden
        assert zorbo.view["players"][1]["name"] == name  # their own phone still says who they are
        seat.scroll_into_view_if_needed()
        shot(teacher, "hidden-name-table-page")
        shot(board, "hidden-name-board")
        shot(phone, "hidden-name-phone")

        seat.get_by_role("button", name="Show name").click()
        board.get_by_text(name).first.wait_for()
        assert dialogs == []
    finally:
        ana.close()
        zorbo.close()
