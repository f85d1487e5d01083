"""Play again in a real browser (issue 21): three phones at a War table see the end
screen with Play again and Join another game, the board counts who is ready, and
when all three tapped, every phone and the projected board are in the new game at a
new table. Join another game takes a phone to the home page's code entry, its seat
forgotten. Screenshots of the end screens; axe on them."""
from __future__ import annotations

import re

import pytest
import requests

from browser import ARTIFACTS, FACILITATOR_PASSWORD, PHONE, browser, no_dialogs, server  # noqa: F401
from live import end_table
from test_accessibility import violations

pytestmark = pytest.mark.browser

NAMES = ("Ana", "Ben", "Cara")


def test_three_phones_play_again_and_the_board_follows(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token)
    looks = {"bypass_csp": True, "reduced_motion": "reduce"}  # axe runs on these pages
    errors, dialogs, phones = [], [], []
    for name in NAMES:
        page = browser.new_context(**PHONE, **looks).new_page()
        dialogs.append(no_dialogs(page))
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{server.url}/join/{code}")
        page.get_by_label("Your name").fill(name)
        page.get_by_role("button", name="Join").click()
        page.get_by_role("heading", name="Waiting for players").wait_for()
        phones.append(page)
    board = browser.new_context(viewport={"width": 1920, "height": 1080}, **looks).new_page()
    board.on("pageerror", lambda exc: errors.append(str(exc)))
    board.goto(f"{server.url}/board/{code}")
    board.get_by_text("Players joined: 3 of 6").wait_for()
    phones[0].get_by_role("button", name="Deal cards & start").click()
    end_table(server.url, token, code)  # the teacher ends the game (its record stays)

    for page in phones:
        page.get_by_role("button", name="Play again").wait_for()
        page.get_by_role("button", name="Join another game").wait_for()
    board.get_by_text("Play again? Nobody has asked yet. Tap Play again on your phone.").wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    phones[0].wait_for_timeout(300)
    phones[0].screenshot(path=str(ARTIFACTS / "rematch-phone-end-360x740.png"))
    assert violations(phones[0]) == []

    phones[0].get_by_role("button", name="Play again").click()
    phones[0].get_by_text("You are ready. Waiting for Ben and Cara (1 of 3 want to play again).").wait_for()
    phones[1].get_by_role("button", name="Play again").click()
    board.get_by_text("Play again? 2 of 3 want to play again. Tap Play again on your phone.").wait_for()
    phones[2].get_by_text("2 of 3 want to play again.").wait_for()
    board.wait_for_timeout(300)
    board.screenshot(path=str(ARTIFACTS / "rematch-board-end-1920x1080.png"))
    assert violations(board) == []
    board.set_viewport_size({"width": 1280, "height": 720})
    board.wait_for_timeout(300)
    board.screenshot(path=str(ARTIFACTS / "rematch-board-end-1280x720.png"))
    phones[1].screenshot(path=str(ARTIFACTS / "rematch-phone-ready-360x740.png"))

    phones[2].get_by_role("button", name="Play again").click()
    # The board follows by itself to the new table's board; every phone is in the new game.
    board.wait_for_url(re.compile(r"/board/[A-Z0-9]{6}$"), timeout=20_000)
    board.wait_for_function("code => !location.pathname.endsWith(code)", arg=code)
    new = board.url.rsplit("/", 1)[1]
    assert new != code
    board.locator(".war-game").wait_for()
    for page in phones:
        page.locator(".war-game").wait_for()
        assert page.locator(".end-screen").count() == 0
    table = requests.get(f"{server.url}/api/tables/{new}", headers={"Authorization": f"Bearer {token}"},
                         timeout=10).json()
    assert table["status"] == "playing" and [s["name"] for s in table["seats"]] == list(NAMES)
    phones[0].screenshot(path=str(ARTIFACTS / "rematch-phone-new-game-360x740.png"))
    board.screenshot(path=str(ARTIFACTS / "rematch-board-new-game-1280x720.png"))

    # Join another game: the phone forgets its seat and goes to the home page's code entry.
    end_table(server.url, token, new)
    phones[0].get_by_role("button", name="Join another game").click()
    phones[0].get_by_label("Table code").wait_for()
    assert phones[0].evaluate("Object.keys(localStorage).filter(k => k.startsWith('cg.seat.'))") == []
    phones[0].goto(f"{server.url}/join/{new}")  # a reload does not bring the seat back: the page says the game is over
    phones[0].locator("#fatal").wait_for()
    phones[0].wait_for_timeout(500)
    assert phones[0].locator(".end-screen").count() == 0
    assert errors == [] and all(d == [] for d in dialogs)
    for page in phones + [board]:
        page.context.close()


def login(browser, url):
    page = browser.new_context(viewport={"width": 1280, "height": 720}, bypass_csp=True,
                               reduced_motion="reduce").new_page()
    page.goto(url + "/facilitator/login")
    page.get_by_label("Name").fill("teacher")
    page.get_by_label("Password").fill(FACILITATOR_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="New game").wait_for()
    return page


def test_the_teachers_play_again_and_the_class_overviews_new_round(server, browser):  # noqa: F811
    from live import LivePhone

    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    auth = {"Authorization": f"Bearer {token}"}
    code = server.create_table(token)
    phones = [LivePhone(server.url) for _ in range(2)]
    teacher = login(browser, server.url)
    errors = []
    teacher.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        for p, name in zip(phones, ("Ana", "Ben")):
            p.join(code, name)
        phones[0].wait_for(lambda v: v["actions"])
        phones[0].call("act", {"version": phones[0].view["version"], "action": {"type": "start"}})
        end_table(server.url, token, code)
        teacher.goto(f"{server.url}/facilitator/tables/{code}")
        button = teacher.locator("#mod-buttons").get_by_role("button", name="Play again")
        button.wait_for()
        teacher.screenshot(path=str(ARTIFACTS / "rematch-teacher-end-1280x720.png"))
        assert violations(teacher) == []
        button.click()
        # The teacher's page goes to the new table; the phones are there already.
        teacher.wait_for_function("code => /\\/facilitator\\/tables\\/[A-Z0-9]{6}$/.test(location.pathname)"
                                  " && !location.pathname.endsWith(code)", arg=code)
        new = teacher.url.rsplit("/", 1)[1]
        for p in phones:
            assert p.wait_for(lambda v: v["code"] == new)["status"] == "playing"

        # A class: two pairs finish; the overview offers Play again for all and New round.
        klass = requests.post(f"{server.url}/api/classes", json={"game": "war", "table_size": 2}, headers=auth,
                              timeout=10).json()["code"]
        students = [LivePhone(server.url) for _ in range(4)]
        phones += students
        for p, name in zip(students, ("Cara", "Dan", "Eve", "Finn")):
            p.join(klass, name)
        requests.post(f"{server.url}/api/classes/{klass}/start", headers=auth, timeout=10).raise_for_status()
        first = {}
        for p in students:
            first[p.wait_for(lambda v: v["status"] == "playing")["code"]] = True
        for table in first:
            requests.post(f"{server.url}/api/classes/{klass}/end", json={"table": table}, headers=auth,
                          timeout=10).raise_for_status()
        # A finished table of the class: its debrief leads; with nobody to remove, no game to
        # end and its data deleted with the class's, the risky group is not shown at all.
        teacher.goto(f"{server.url}/facilitator/tables/{next(iter(first))}")
        teacher.locator("#reports-ended").wait_for()
        teacher.locator("#mod-buttons").get_by_role("button", name="Play again").wait_for()
        assert teacher.locator("#mod-risky").is_hidden() and teacher.locator("#delete-table").count() == 0
        assert violations(teacher) == []
        teacher.goto(f"{server.url}/facilitator/classes/{klass}")
        teacher.get_by_role("button", name="Play again for all").wait_for()
        teacher.get_by_role("button", name="New round").wait_for()
        teacher.screenshot(path=str(ARTIFACTS / "rematch-class-overview-1280x720.png"), full_page=True)
        assert violations(teacher) == []
        teacher.once("dialog", lambda d: d.accept())
        teacher.get_by_role("button", name="New round").click()
        teacher.get_by_text("New round: 2 tables started.").wait_for()
        seen = {}
        for p in students:
            view = p.wait_for(lambda v: v["code"] not in first and v["status"] == "playing")
            seen.setdefault(view["code"], []).append(view["players"][view["seat"]]["name"])
        assert sorted(sorted(v) for v in seen.values()) == [["Cara", "Eve"], ["Dan", "Finn"]]
        assert errors == []
    finally:
        for p in phones:
            p.close()
        teacher.context.close()


def test_the_guided_demo_ends_with_an_invitation_to_a_real_game(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    response = requests.post(f"{server.url}/api/tables", json={"game": "storm_war", "options": {"demo": True}},
                             headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert response.status_code == 201, response.text
    code = response.json()["code"]
    page = browser.new_context(**PHONE, bypass_csp=True, reduced_motion="reduce").new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server.url}/join/{code}")
    page.get_by_label("Your name").fill("Trainee Ana")
    page.get_by_role("button", name="Join").click()
    end_table(server.url, token, code)
    page.get_by_role("heading", name="Ready for a real game?").wait_for()
    assert page.get_by_role("button", name="Play again").count() == 0
    page.wait_for_timeout(300)
    page.screenshot(path=str(ARTIFACTS / "rematch-guided-demo-end-360x740.png"))
    assert violations(page) == []
    page.get_by_role("link", name="Enter a game code").click()
    page.get_by_label("Table code").wait_for()
    page.get_by_role("heading", name="No code? Try a game").wait_for()  # the home page's quick starts
    assert errors == []
    page.context.close()
