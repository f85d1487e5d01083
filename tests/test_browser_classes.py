"""A class session in a real browser: dashboard form, overview, class board, phones."""
from __future__ import annotations

import re

import pytest

from browser import (FACILITATOR_PASSWORD, browser, join_on_phone, new_game_form, no_dialogs, remember_text,  # noqa: F401
                     seen_text,
                     server, shot)  # (fixtures)
from live import LivePhone

pytestmark = pytest.mark.browser
EVIL_NAME = "<img src=x>Zed"


def test_a_class_session_from_the_overview(server, browser):  # noqa: F811
    teacher = browser.new_context()
    fac = teacher.new_page()
    fac_dialogs = []

    def on_dialog(dialog):
        # The overview asks before ending every table (a confirm); any alert() would be injected HTML.
        if dialog.type == "confirm":
            dialog.accept()
        else:
            fac_dialogs.append(dialog.message)
            dialog.dismiss()

    fac.on("dialog", on_dialog)
    new_game_form(fac, server.url, "war", "class")
    fac.locator("#class-war-size").select_option("3")
    fac.get_by_role("button", name="Create a War class session").click()
    fac.wait_for_url(re.compile(r"/facilitator/classes/[A-Z0-9]{6}$"))
    code = fac.url.rsplit("/", 1)[1]
    fac.get_by_text("No student has joined yet").wait_for()
    assert fac.get_by_role("button", name="Pause every table").is_hidden()

    with fac.expect_popup() as popup:
        fac.get_by_role("link", name="Open the class board in a new window").click()
    board = popup.value
    board_dialogs = no_dialogs(board)
    board.wait_for_load_state()
    assert board.locator(".table-code").inner_text() == code
    assert board.locator("img.qr").evaluate("img => img.complete && img.naturalWidth > 0")

    # Two students on phones in the browser, three more as simulated phones: tables of 3 fill in order.
    phones, dialogs = [], []
    for name in ["Ana", EVIL_NAME]:
        page, seen = join_on_phone(browser, server.url, code, name)
        phones.append(page)
        dialogs.append(seen)
    others = [LivePhone(server.url) for _ in range(3)]
    for sim, name in zip(others, ["Ben", "Cara", "Dan"]):
        sim.join(code, name)

    fac.get_by_text("5 students (5 connected) at 2 tables").wait_for()
    board.get_by_role("heading", name="Table 2").wait_for()
    assert board.get_by_text(EVIL_NAME, exact=True).count() == 1
    assert board.locator(".class-tables img").count() == 0  # the name stayed text
    shot(fac, "class-overview-lobby")
    shot(board, "class-board-lobby")

    # Move Ana (table 1) to a new table with the keyboard only.
    select = fac.get_by_label("Move Ana to")
    select.focus()
    select.select_option(label="A new table")
    fac.keyboard.press("Tab")
    fac.keyboard.press("Enter")
    fac.get_by_text("Ana moved to a new table.").wait_for()
    fac.get_by_role("heading", name=re.compile("^Table 3")).wait_for()

    fac.get_by_role("button", name="Balance and start every waiting table").click()
    fac.get_by_text(re.compile(r"Started \d tables?\.")).wait_for()
    for page in phones:
        page.locator(".deck-button").wait_for()
    fac.get_by_text("0 waiting").wait_for()
    assert fac.get_by_role("button", name="Balance and start every waiting table").is_hidden()

    # A message shows for a few seconds: each page notes it the moment it arrives.
    for page in phones + [board]:
        remember_text(page, "Five minutes left")
    fac.get_by_label("Message to every phone").fill("Five minutes left")
    fac.get_by_role("button", name="Send to every phone").click()
    fac.get_by_text("Sent “Five minutes left” to 5 phones.").wait_for()
    for page in phones + [board]:
        seen_text(page, "Five minutes left")

    fac.get_by_role("button", name="Pause every table").click()
    fac.get_by_text(re.compile(r"Paused \d tables?\.")).wait_for()
    for page in phones:
        page.get_by_text("The teacher has paused the game.").wait_for()
    fac.get_by_role("button", name="Resume every table").click()
    fac.get_by_text(re.compile(r"Resumed \d tables?\.")).wait_for()
    board.get_by_role("heading", name="Leader board").wait_for()
    shot(fac, "class-overview-playing")
    shot(board, "class-board-playing")

    with fac.expect_download() as download:
        fac.get_by_role("link", name="Download the class debrief (PDF)").click()
    assert download.value.suggested_filename == f"class-debrief-{code}.pdf"

    fac.get_by_role("button", name="End every table").click()
    fac.get_by_text("Class closed").wait_for()
    for page in phones:
        page.get_by_text("This game has ended.").wait_for()
    for sim in others:
        sim.close()
    assert fac_dialogs == [] and board_dialogs == [] and all(d == [] for d in dialogs)
