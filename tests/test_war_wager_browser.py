"""Wager Battle in a real browser: chips on the phones and the projected board,
and a war's betting played from a 360-px phone with the C key and the buttons."""
from __future__ import annotations

import re

import pytest

from browser import (ARTIFACTS, FACILITATOR_PASSWORD, browser, join_on_phone, no_dialogs, remember_text,  # noqa: F401
                     seen_text, server, shot)

pytestmark = pytest.mark.browser


def board_page(browser, url, code, width, height):  # noqa: F811
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    no_dialogs(page)
    page.goto(f"{url}/board/{code}")
    return page


def test_a_wager_battle_bets_in_a_war_on_the_phone_and_shows_chips_on_the_board(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    import requests
    response = requests.post(server.url + "/api/tables", json={"game": "war", "options": {"mode": "wager"}},
                             headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert response.status_code == 201, response.text
    code = response.json()["code"]
    boards = [board_page(browser, server.url, code, w, h) for w, h in ((1920, 1080), (1280, 720))]
    phones = [join_on_phone(browser, server.url, code, name)[0] for name in ("Ana", "Ben", "Cara")]
    ana, others = phones[0], phones[1:]
    ana.get_by_role("button", name="Deal cards & start").click()
    for phone in others:
        phone.get_by_role("button", name="Turn auto-play on (speed 4)").click()
    # Every seat shows its chips; the chip pot holds the first battle's antes.
    boards[0].locator(".wager-pot-amount").filter(has_text="30 chips").wait_for()
    assert boards[0].locator(".wager-seat").count() == 3
    ana.locator(".wager-mine").filter(has_text="You: 90 chips").wait_for()
    ana.screenshot(path=str(ARTIFACTS / "wager-phone-battle-screen.png"))
    # Ana reveals until she is asked to bet in a war.
    bet = ana.locator(".wager-buttons")
    for _ in range(400):
        if bet.count() and bet.is_visible():
            break
        deck = ana.locator(".deck-button")
        if deck.is_enabled():
            ana.keyboard.press("Space")
        ana.wait_for_timeout(150)
    else:
        pytest.fail("Ana was never asked to bet in a war")
    labels = bet.locator("button").all_inner_texts()
    assert any(re.match(r"(Check|Call \d+ chips?)", t) for t in labels) and any(t.startswith("Fold") for t in labels)
    assert ana.locator(".wager-turn").inner_text().startswith("It is your turn to bet")
    for board in boards:
        board.locator(".wager-turn").filter(has_text="It is Ana's turn to bet").wait_for()
    shot(ana, "wager-phone-bet")
    shot(boards[0], "wager-board-1920-bet")
    shot(boards[1], "wager-board-1280-bet")
    ana.screenshot(path=str(ARTIFACTS / "wager-phone-bet-screen.png"))   # what the student sees
    expected = "Ana checks." if "Check" in " ".join(labels) else "Ana calls"
    remember_text(boards[0], expected)
    ana.keyboard.press("c")                                      # C calls, or checks
    seen_text(boards[0], expected)
    for page in phones + boards:
        page.context.close()
