"""Wager Battle in a real browser: chips on the phones and the projected board,
and a war's betting played from a 360-px phone with the C key and the buttons."""
from __future__ import annotations

import re

import pytest
import requests

from browser import (ARTIFACTS, FACILITATOR_PASSWORD, browser, join_on_phone, no_dialogs, remember_text,  # noqa: F401
                     seen_text, server, shot)

pytestmark = pytest.mark.browser


def board_page(browser, url, code, width, height):  # noqa: F811
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    no_dialogs(page)
    page.goto(f"{url}/board/{code}")
    return page


def deal_wager_table(server, browser, token):  # noqa: F811
    """A Wager Battle table: two boards, three phones, Ana dealing, Ben and Cara on auto-play."""
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
    return boards, phones


def reveal_until_asked_to_bet(ana) -> bool:
    """Ana reveals until she is asked to bet in a war: False when the game ends first
    (the deal is random, so now and then Ana is never at war before Ben and Cara
    take her chips; CI saw it once)."""
    bet = ana.locator(".wager-buttons")
    for _ in range(400):
        if bet.count() and bet.is_visible():
            return True
        # One read of the deck button, so a redraw between two reads cannot wait on it.
        deck = ana.evaluate("() => { const d = document.querySelector('.deck-button'); return d ? !d.disabled : null; }")
        if deck is None:            # the deck goes when the game is over
            return False
        if deck:
            ana.keyboard.press("Space")
        ana.wait_for_timeout(150)
    pytest.fail("Ana was neither asked to bet in a war nor saw the game end")


def test_a_wager_battle_bets_in_a_war_on_the_phone_and_shows_chips_on_the_board(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    for attempt in range(4):
        boards, phones = deal_wager_table(server, browser, token)
        ana = phones[0]
        if attempt == 0:
            # Every seat shows its chips; the chip pot holds the first battle's antes.
            boards[0].locator(".wager-pot-amount").filter(has_text="30 chips").wait_for()
            assert boards[0].locator(".wager-seat").count() == 3
            ana.locator(".wager-mine").filter(has_text="You: 90 chips").wait_for()
            ana.screenshot(path=str(ARTIFACTS / "wager-phone-battle-screen.png"))
        if reveal_until_asked_to_bet(ana):
            break
        for page in phones + boards:
            page.context.close()
    else:
        pytest.fail("in four deals Ana was never asked to bet in a war")
    bet = ana.locator(".wager-buttons")
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
    # Ben and Cara stop auto-playing before Ana bets, so the table comes to rest after her
    # bet, whatever the machine's speed: on auto-play they could bet, finish the war and
    # reveal the next battle before the board's next frame (it draws the newest view once
    # a frame), and Ana's bet would be gone from its screen before it was ever drawn.
    for phone in phones[1:]:
        phone.get_by_role("button", name="Turn auto-play off").click()
        phone.get_by_role("button", name="Turn auto-play on (speed 4)").wait_for()
    # The phone's log says so (the board's log gives its room to the chip pot while
    # betting, and the board marks Ana's seat "checked" or "called" instead).
    # The board shows the bet: Ana's seat marked while Ben or Cara has still to bet, or,
    # when Ana bets last, its log's line.
    mark = "· checked" if expected == "Ana checks." else "· called"
    remember_text(ana, expected)
    remember_text(boards[0], mark)
    remember_text(boards[0], expected)
    ana.keyboard.press("c")                                      # C calls, or checks
    seen_text(ana, expected)
    boards[0].wait_for_function("texts => texts.some((text) => (window.__seen || {})[text])", arg=[mark, expected],
                                timeout=30_000)
    for page in phones + boards:
        page.context.close()
