"""A timed War match in a real browser: the teacher picks "3 minutes" on the
create form, and the board and the phones count down the server's clock,
which stands still while the teacher pauses the table."""
from __future__ import annotations

import re

import pytest

from browser import FACILITATOR_PASSWORD, browser, join_on_phone, new_game_form, no_dialogs, server  # noqa: F401

pytestmark = pytest.mark.browser


def test_a_three_minute_match_shows_its_clock(server, browser):  # noqa: F811
    fac = browser.new_context().new_page()
    no_dialogs(fac)
    form = new_game_form(fac, server.url, "war", more=True)
    lengths = form.get_by_label("Match length")
    assert lengths.locator("option").all_inner_texts() == [
        "Fits a lesson", "Full elimination", "First to 30 cards", "First to 40 cards", "First to 45 cards",
        "3 minutes", "5 minutes", "10 minutes", "First to 25 points", "First to 50 points",
        "First to 100 points"]
    lengths.select_option(label="3 minutes")
    form.get_by_role("button", name="Create a War table").click()
    fac.wait_for_url(re.compile(r"/facilitator/tables/[A-Z0-9]{6}$"))
    code = fac.url.rsplit("/", 1)[1]
    with fac.expect_popup() as popup:
        fac.get_by_role("link", name="Open the board in a new window").click()
    board = popup.value
    board.wait_for_load_state()

    phones = [join_on_phone(browser, server.url, code, name)[0] for name in ("Ana", "Ben")]
    phones[0].get_by_role("button", name="Deal cards & start").click()
    clock = board.locator(".war-clock")
    clock.wait_for()
    assert re.fullmatch(r"Time left (3:00|2:5\d)", clock.inner_text()), clock.inner_text()
    phones[1].locator(".war-clock").filter(has_text=re.compile(r"^Time left [23]:\d\d$")).wait_for()
    first = clock.inner_text()
    board.wait_for_function("first => document.querySelector('.war-clock').textContent !== first", arg=first,
                            timeout=5000)   # it counts down by itself

    fac.get_by_role("button", name="Pause the game").click()
    board.locator(".war-clock").filter(has_text="(paused)").wait_for()
    paused = board.locator(".war-clock").inner_text()
    board.wait_for_timeout(1500)
    assert board.locator(".war-clock").inner_text() == paused   # stands still while paused
    fac.get_by_role("button", name="Resume the game").click()
    board.locator(".war-clock").filter(has_text=re.compile(r"^Time left \d:\d\d$")).wait_for()
    for page in phones + [board, fac]:
        page.context.close()
