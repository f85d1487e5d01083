"""End to end in a real browser: facilitator, projected board, three phones."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from browser import (FACILITATOR_PASSWORD, PHONE, browser, join_on_phone, new_game_form, no_dialogs,  # noqa: F401
                     server, shot)  # (browser, server: fixtures)
from live import end_table

pytestmark = pytest.mark.browser
EVIL_NAME = "<img src=x>Zed"           # HTML that would render an image if parsed
EVIL_NOTE = "<img src=x onerror=alert(1)>"  # the example (too long for a name: 28 characters)


def tap(locator):
    """Tap a control that a live update may replace or disable at any moment."""
    try:
        locator.click(timeout=1500)
    except PlaywrightTimeout:
        pass  # it changed under the finger (someone else's move); the caller looks again


def _facilitator_page(server, browser):  # noqa: F811
    """A logged-in facilitator who just created a War table: (page, table code)."""
    fac = browser.new_context().new_page()
    new_game_form(fac, server.url, "war").get_by_role("button", name="Create a War table").click()
    fac.wait_for_url(re.compile(r"/facilitator/tables/[A-Z0-9]{6}$"))
    return fac, fac.url.rsplit("/", 1)[1]


def test_a_class_plays_war_in_the_browser(server, browser):  # noqa: F811
    fac, code = _facilitator_page(server, browser)
    fac_dialogs = no_dialogs(fac)

    with fac.expect_popup() as popup:
        fac.get_by_role("link", name="Open the board in a new window").click()
    board = popup.value
    board_dialogs = no_dialogs(board)
    board.wait_for_load_state()
    assert board.locator(".table-code").inner_text() == code
    assert board.locator("img.qr").evaluate("img => img.complete && img.naturalWidth > 0")
    assert "1" not in code and "0" not in code and "O" not in code and "I" not in code

    phones, dialogs = [], []
    for name in ["Ana", "Ben", EVIL_NAME]:
        page, seen = join_on_phone(browser, server.url, code, name)
        phones.append(page)
        dialogs.append(seen)

    # The board lists the players live, the HTML name as plain text.
    board.get_by_text("Players joined: 3 of 6").wait_for()
    assert board.get_by_text(EVIL_NAME, exact=True).count() == 1
    assert board.locator(".player-list img").count() == 0
    shot(board, "board-lobby")
    shot(phones[0], "phone-lobby")

    phones[0].get_by_role("button", name="Deal cards & start").click()
    for page in phones:
        page.locator(".deck-button").wait_for()
    board.get_by_text("Battle 1").wait_for()

    # A latecomer (no seat on this phone) is told at once, without a name form.
    late = browser.new_context(**PHONE).new_page()
    late.goto(f"{server.url}/join/{code}")
    late.get_by_text("This game has already started.").wait_for()
    assert late.locator("#join-panel").is_hidden()
    late.context.close()

    # Three battles by tapping the deck (one phone uses the keyboard).
    def resolved(n):
        return board.locator(".last-battle h2").filter(has_text=re.compile(rf"^Battle {n}: ")).count() > 0

    for battle in range(1, 4):
        for _ in range(200):
            if resolved(battle):
                break
            for i, page in enumerate(phones):
                deck = page.locator(".deck-button:not([disabled])")
                if deck.count():
                    if i == 1:
                        page.locator("body").press("Space")
                    else:
                        tap(deck)
            board.wait_for_timeout(100)
        assert resolved(battle), f"battle {battle} was not resolved on the board"
    shot(phones[0], "phone-playing")
    shot(board, "board-playing")
    # While the game runs, the teacher's page keeps the debrief at its foot and explains the
    # controls that cannot be undone beside them.
    assert fac.evaluate("document.querySelector('#app').lastElementChild.id") == "reports"
    assert fac.locator("#reports-ended").is_hidden() and fac.locator("#mod-risky-hint").is_visible()
    assert fac.get_by_role("button", name="End the game").is_visible()
    assert re.match(r"Playing · 3 players\b", fac.locator("#table-status").inner_text())   # the class overview's words

    # Phone 2 reloads mid-game and keeps its seat: no join form, same name, still 3 players.
    phones[1].reload()
    phones[1].locator(".deck-button").wait_for()
    assert phones[1].locator("#join-panel").is_hidden()
    assert phones[1].locator(".war-seat", has_text="you").locator("h3").inner_text().startswith("Ben")
    assert board.locator(".war-seat").count() == 3

    # A playtest note with the HTML example shows as text for the facilitator.
    phones[2].locator("summary", has_text="Playtest note").click()
    phones[2].get_by_label("What happened? What was confusing?").fill(EVIL_NOTE)
    phones[2].get_by_role("button", name="Save note").click()
    phones[2].get_by_text("Saved. Thank you!").wait_for()
    fac.locator("#notes li", has_text=EVIL_NOTE).wait_for()
    assert fac.locator("#notes img").count() == 0

    # Auto-play plays on by itself: a few battles go by with no tap. How long a
    # whole game of War lasts is chance (and the machine's load), so the test
    # does not wait for its natural end: the teacher ends it, as in class.
    battle = """() => {
        const line = document.querySelector('.status-line');  // gone once the game is over
        const found = /battle (\\d+)/i.exec(line ? line.textContent : '');
        return found ? Number(found[1]) : Infinity;
    }"""
    played = board.evaluate(battle)
    for page in phones:
        button = page.get_by_role("button", name="Turn auto-play on (speed 4)")
        if button.count():
            button.click()
            page.get_by_text("Auto-play is on (speed 4)").wait_for()
    board.wait_for_function(f"() => ({battle})() >= {played + 3}", timeout=60_000)
    end_table(server.url, server.api_token("teacher", FACILITATOR_PASSWORD), code)
    ended = re.compile(r"won!|share the win")
    board.locator(".result h2").filter(has_text=ended).wait_for()
    for page in phones:
        page.locator(".result h2").filter(has_text=ended).wait_for()
    shot(board, "board-ended")
    shot(phones[0], "phone-ended")
    fac.locator("#table-status", has_text=re.compile(r"^Finished · \d players?")).wait_for()
    fac.locator(".end-screen h2").filter(has_text=ended).wait_for()  # the teacher: the result above the table
    # What the teacher needs next leads the page: the debrief card, under the title, its
    # PDF a primary button; the risky group no longer explains controls it lacks.
    assert fac.evaluate("document.querySelector('.table-head').nextElementSibling.id") == "reports"
    assert fac.locator("#reports-ended").is_visible()
    assert fac.locator("#debrief-link").get_attribute("class") == "button primary"
    assert fac.locator("#mod-risky-hint").is_hidden() and fac.locator("#delete-table").is_visible()
    assert fac.locator(".war-seat").count() == 3
    assert not fac_dialogs and not board_dialogs and not any(dialogs)


def _press(page, control):
    """Press the mouse button on `control` and keep it down."""
    box = control.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()


def _until_drawn(page, views, count):
    """Wait until the page received more than `count` views, and had time to draw the last
    (its socket's task, then a frame)."""
    deadline = 300  # tenths of a second (Playwright hears the frames while it waits)
    while len(views) <= count and deadline:
        page.wait_for_timeout(100)
        deadline -= 1
    assert len(views) > count, "the view never arrived"
    page.evaluate("() => new Promise((done) => setTimeout(() => requestAnimationFrame(() => setTimeout(done))))")


def test_a_tap_begun_before_a_classmate_joins_still_starts_the_game(server, browser):  # noqa: F811
    """A press and its release can straddle a view: Cy joins between them. The lobby is not
    redrawn under the finger (dom.js heldByPress), so the release clicks Start; a lobby drawn
    again mid-press would take the button away and the tap with it (the game never started)."""
    fac, code = _facilitator_page(server, browser)
    views = []
    ana, _ = join_on_phone(browser, server.url, code, "Ana", views)
    ben, _ = join_on_phone(browser, server.url, code, "Ben")
    start = ana.get_by_role("button", name="Deal cards & start")
    start.wait_for()
    _press(ana, start)
    before = len(views)
    cy, _ = join_on_phone(browser, server.url, code, "Cy")
    _until_drawn(ana, views, before)
    ana.mouse.up()
    for page in (ana, ben, cy):
        page.locator(".deck-button").wait_for()
    for page in (fac, ana, ben, cy):
        page.context.close()


def test_a_reveal_pressed_while_another_player_reveals_is_not_lost(server, browser):  # noqa: F811
    """The same in play: Ana presses her deck while Ben reveals, and her phone gets the view
    with Ben's card before she lets go. Her reveal still counts: the battle is played."""
    fac, code = _facilitator_page(server, browser)
    views = []
    ana, _ = join_on_phone(browser, server.url, code, "Ana", views)
    ben, _ = join_on_phone(browser, server.url, code, "Ben")
    ana.get_by_role("button", name="Deal cards & start").click()
    deck = ana.locator(".deck-button")
    deck.wait_for()
    ben.locator(".deck-button").wait_for()
    ana.get_by_role("button", name=re.compile("auto-play", re.I)).first.focus()  # the press moves the focus
    _press(ana, deck)
    before = len(views)
    ben.locator(".deck-button").click()
    _until_drawn(ana, views, before)
    ana.mouse.up()
    ben.get_by_text("Battle 2").first.wait_for()
    for page in (fac, ana, ben):
        page.context.close()


def _errors(page):
    seen = []
    page.on("pageerror", lambda exc: seen.append(str(exc)))
    return seen


def test_closing_a_table_in_its_lobby_tells_the_phone_without_errors(server, browser):  # noqa: F811
    fac, code = _facilitator_page(server, browser)
    fac_errors = _errors(fac)
    phone, _dialogs = join_on_phone(browser, server.url, code, "Ana")
    phone_errors = _errors(phone)
    phone.get_by_text("Waiting for players").wait_for()
    fac.once("dialog", lambda dialog: dialog.accept())
    fac.get_by_role("button", name="Close the table").click()
    phone.get_by_text("This table was closed").wait_for()
    assert phone.get_by_text("Waiting for players").count() == 0
    assert phone.get_by_text("This game has ended.").count() == 0  # not both messages at once
    fac.locator("#table-status", has_text=re.compile(r"^Finished · \d players?")).wait_for()
    assert phone_errors == [] and fac_errors == []


def test_a_removed_student_is_told_so_and_still_after_a_reload(server, browser):  # noqa: F811
    fac, code = _facilitator_page(server, browser)
    ana, _ = join_on_phone(browser, server.url, code, "Ana")
    ben, _ = join_on_phone(browser, server.url, code, "Ben")
    ana.get_by_role("button", name="Deal cards & start").click()
    ben.locator(".deck-button").wait_for()
    fac.once("dialog", lambda dialog: dialog.accept())
    fac.get_by_role("button", name="Remove Ben").click()
    ben.get_by_text("Your teacher removed you from this table.").wait_for()
    ben.wait_for_timeout(500)  # nothing that arrives later brings the game back
    assert ben.locator(".deck-button").is_hidden() and ben.locator("#game-panel").is_hidden()
    ben.reload()
    ben.get_by_text("Your teacher removed you from this table.").wait_for()
    assert ben.get_by_text("has already started").count() == 0 and ben.locator("#join-panel").is_hidden()
