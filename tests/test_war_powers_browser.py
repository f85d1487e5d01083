"""Power War in a real browser: two phones (360x740) choose loadouts, Ana selects
and uses powers with the keys 1-5 and E and reveals with Space, Ben resolves the
counter window, and the projected board shows energy and the battle's powers."""
from __future__ import annotations

import requests
import pytest

from browser import FACILITATOR_PASSWORD, browser, join_on_phone, no_dialogs, server, shot  # noqa: F401

pytestmark = pytest.mark.browser


def blur(page):
    page.evaluate("document.activeElement && document.activeElement.blur()")


def test_a_power_war_battle_by_keyboard(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    response = requests.post(server.url + "/api/tables", json={"game": "war", "options": {"mode": "power"}},
                             headers={"Authorization": f"Bearer {token}"}, timeout=10)
    code = response.json()["code"]
    board = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    dialogs = no_dialogs(board)
    board.goto(server.url + f"/board/{code}")
    ana, ana_dialogs = join_on_phone(browser, server.url, code, "Ana")
    ben, ben_dialogs = join_on_phone(browser, server.url, code, "Ben")
    ana.get_by_role("button", name="Deal cards & start").click()

    # The loadout picker: toggles with aria-pressed, then Ready.
    ana.locator(".pw-loadout").wait_for()
    board.get_by_text("Choosing powers").wait_for()
    ben.get_by_role("button", name="Ready with the Balanced loadout").click()
    ben.get_by_text("You are ready").wait_for()
    ben.get_by_text("Waiting for Ana to choose.").wait_for()
    for name in ("Shield", "Boost", "Scout"):
        ana.locator(".pw-pick", has_text=name).first.click()
        ana.locator(".pw-pick[aria-pressed=true]", has_text=name).first.wait_for()
    ana.get_by_role("button", name="Ready with these 3").click()

    # Ana: 2 selects Boost, E uses it (3 energy at the start: Boost costs 2).
    panel = ana.locator(".pw-panel")
    panel.wait_for()
    shot(ana, "war-powers-phone-play")
    assert panel.get_by_text("Your energy 3 / 10").count() == 1
    blur(ana)
    ana.keyboard.press("2")
    ana.locator(".pw-power[aria-pressed=true]", has_text="Boost").wait_for()
    ana.keyboard.press("e")
    ana.locator(".pw-power.chosen", has_text="Boost").wait_for()
    panel.get_by_text("Your energy 1 / 10").wait_for()
    # Hidden from Ben and the board: only that Ana has chosen something.
    board.locator(".pw-chip.hidden-choice").wait_for()
    assert "Boost" not in board.locator(".pw-board").inner_text()
    shot(board, "war-powers-board-hidden")
    blur(ana)
    ana.keyboard.press(" ")                                  # Space reveals
    blur(ben)
    ben.keyboard.press(" ")
    # Ben holds a ready Counter and Ana used Boost: his counter window opens.
    window = ben.locator(".pw-window")
    window.wait_for()
    shot(ben, "war-powers-phone-counter-window")
    window.get_by_role("button", name="Resolve the battle (no counter)").click()
    board.locator(".pw-chip", has_text="Boost").wait_for()
    assert "done" in board.locator(".pw-chip", has_text="Boost").inner_text()
    shot(board, "war-powers-board-after")
    ana.locator(".pw-panel").get_by_text("Your energy 2 / 10").wait_for()   # +1 for battle 2
    assert not dialogs and not ana_dialogs and not ben_dialogs
    for page in (board, ana, ben):
        page.context.close()
