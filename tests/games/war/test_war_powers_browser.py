"""Power War in a real browser: two phones (360x740) choose loadouts, Ana selects
and uses powers with the keys 1-5 and E and reveals with Space, Ben resolves the
counter window, and the projected board shows energy and the battle's powers."""
from __future__ import annotations

import requests
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

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
    # The board showed Ana's Boost as chosen ("1 Boost") while Ben's window was open; it
    # reads done once the battle resolves (a view or a frame later: wait for it, not the chip).
    board.locator(".pw-chip", has_text="Boost").filter(has_text="done").wait_for()
    shot(board, "war-powers-board-after")
    # +1 for battle 2. The deal is random: a tie is a war, and both reveal on until it is won.
    energy = ana.locator(".pw-panel").get_by_text("Your energy 2 / 10")
    for _ in range(8):
        try:
            energy.wait_for(timeout=4000)
            break
        except PlaywrightTimeout:
            for phone in (ana, ben):
                blur(phone)
                phone.keyboard.press(" ")
    energy.wait_for()
    assert not dialogs and not ana_dialogs and not ben_dialogs
    for page in (board, ana, ben):
        page.context.close()


# The clock's deadline (countdown.js keeps it in data-due, epoch seconds) and the seconds it shows.
CLOCK = """(el) => ({due: Number(el.dataset.due), seconds: (([m, s]) => 60 * Number(m) + Number(s))(
    el.textContent.match(/(\\d+):(\\d\\d)/).slice(1))})"""


def test_the_loadout_deadline_counts_down_on_the_phones_and_the_board(server, browser):  # noqa: F811
    """Once everyone else is ready, the last player choosing a loadout has 30 seconds: her
    phone, the others' and the board count them down (countdown.js, the view's
    powers.clock_key); a pick starts her time again; Ready ends the clock. The 13 powers
    of the picker each show an icon of their own."""
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    response = requests.post(server.url + "/api/tables", json={"game": "war", "options": {"mode": "power"}},
                             headers={"Authorization": f"Bearer {token}"}, timeout=10)
    code = response.json()["code"]
    board = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    board.goto(server.url + f"/board/{code}")
    ana, _ = join_on_phone(browser, server.url, code, "Ana")
    ben, _ = join_on_phone(browser, server.url, code, "Ben")
    ana.get_by_role("button", name="Deal cards & start").click()
    ana.locator(".pw-loadout").wait_for()
    ben.locator(".pw-loadout").wait_for()
    board.get_by_text("Choosing powers").wait_for()
    icons = ana.locator(".pw-pick svg.kind-icon[aria-hidden=true]")
    assert icons.count() == ana.locator(".pw-pick").count() == 13
    assert len(set(icons.evaluate_all("els => els.map((e) => e.innerHTML)"))) == 13   # a shape per power
    for page in (ana, ben, board):       # both still choosing: no deadline yet
        assert page.locator(".pw-clock").count() == 0

    ben.get_by_role("button", name="Ready with the Balanced loadout").click()
    ben.get_by_text("Waiting for Ana to choose.").wait_for()
    mine = ana.locator(".pw-ready-row .pw-clock[role=timer]")
    mine.wait_for()
    assert mine.inner_text().startswith("Time left to choose: 0:")
    theirs = ben.locator(".pw-loadout .pw-clock[role=timer]", has_text="Ana's time to choose: 0:")
    projected = board.locator(".pw-board .pw-clock[role=timer]", has_text="Ana's time to choose: 0:")
    theirs.wait_for()
    projected.wait_for()
    first = projected.evaluate(CLOCK)
    assert 20 <= first["seconds"] <= 30
    for clock in (theirs, mine):                     # one deadline on every screen
        assert clock.evaluate(CLOCK)["due"] == first["due"]
    board.wait_for_function("(s) => { const m = document.querySelector('.pw-board .pw-clock').textContent"
                            ".match(/(\\d+):(\\d\\d)/); return 60 * m[1] + Number(m[2]) < s; }", arg=first["seconds"])
    shot(ana, "war-powers-phone-loadout-clock")
    shot(board, "war-powers-board-loadout-clock")

    # A pick starts her time again: a later deadline, on her phone and on the board.
    ana.locator(".pw-pick", has_text="Boost").first.click()
    ana.locator(".pw-pick[aria-pressed=true]", has_text="Boost").first.wait_for()
    board.wait_for_function("(due) => Number(document.querySelector('.pw-board .pw-clock').dataset.due) > due",
                            arg=first["due"])
    again = board.locator(".pw-board .pw-clock").evaluate(CLOCK)["due"]
    ana.wait_for_function("(due) => Number(document.querySelector('.pw-ready-row .pw-clock').dataset.due) === due",
                          arg=again)

    # Ready: the battles begin and no clock is left.
    ana.get_by_role("button", name="Ready with these 1").click()
    # (Each screen draws the battle when its own view arrives: Ben's phone may still show
    # Ana's clock for a moment after hers and the board moved on, as in CI on 7dbe194.)
    for page in (ana, ben):
        page.locator(".pw-panel").wait_for()
    board.locator(".pw-board", has_text="Energy").wait_for()
    for page in (ana, ben, board):
        expect(page.locator(".pw-clock")).to_have_count(0)
    for page in (board, ana, ben):
        page.context.close()
