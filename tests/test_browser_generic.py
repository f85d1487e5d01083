"""A game with no UI module of its own (the test game) is fully playable in the
browser: the generic control offers every labelled action on the phone, the
prompt says what is asked, and the facilitator's page offers the game's own
decisions apart from the platform's moderation."""
from __future__ import annotations

import re

import pytest
import requests

from browser import FACILITATOR_PASSWORD, PHONE, browser, generic_server, no_dialogs, shot  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser


def test_the_generic_control_plays_a_game_without_its_own_ui(generic_server, browser):  # noqa: F811
    server = generic_server
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    made = requests.post(server.url + "/api/tables", json={"game": "dicerace", "options": {"goal": 10}},
                         headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    fac = browser.new_context().new_page()
    fac.goto(server.url + "/facilitator/")
    fac.get_by_label("Name").fill("teacher")
    fac.get_by_label("Password").fill(FACILITATOR_PASSWORD)
    fac.get_by_role("button", name="Log in").click()
    fac.goto(f"{server.url}/facilitator/tables/{code}")

    phones = []
    for name in ["Ana", "Ben"]:
        page = browser.new_context(**PHONE).new_page()
        no_dialogs(page)
        page.goto(f"{server.url}/join/{code}")
        page.get_by_label("Your name").fill(name)
        page.get_by_role("button", name="Join").click()
        page.get_by_text("Waiting for players").wait_for()
        phones.append(page)
    phones[0].get_by_role("button", name="Start the race").click()
    ana, ben = phones
    ana.get_by_role("button", name="Start round 1").wait_for()   # the round leader's labelled action
    ben.locator(".prompt").wait_for()             # and the other phone says what it waits for
    assert "Ana" in ben.locator(".prompt").inner_text()
    shot(ana, "generic-phone")

    # The facilitator's game decisions sit apart from the platform's moderation.
    fac.get_by_role("heading", name="Game decisions").wait_for()
    fac.get_by_role("button", name="Give Ben a +2 bonus").click()
    ben.get_by_text(re.compile("bonus")).first.wait_for()
    assert fac.locator("#mod-buttons").get_by_role("button", name="Pause the game").count() == 1
    assert fac.locator("#game-action-buttons").get_by_role("button", name="Pause the game").count() == 0
    shot(fac, "generic-facilitator")

    # Play on by the labels alone until the race is won.
    for _ in range(400):
        if ana.locator(".result").count() and ben.locator(".result").count():
            break
        for page in phones:
            buttons = page.locator(".generic-actions button")
            if buttons.count():
                try:
                    buttons.first.click(timeout=1000)
                except Exception:  # noqa: BLE001  (replaced by a live update under the finger)
                    pass
        ana.wait_for_timeout(50)
    ana.locator(".result").wait_for()
    assert re.search(r"won!|share the win", ana.locator(".result h2").inner_text())
    shot(ana, "generic-phone-ended")
