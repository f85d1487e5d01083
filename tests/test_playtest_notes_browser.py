"""Playtest notes from phones and the teacher's message in a real browser (issue 21): a class
phone has no note box until the teacher turns notes on from the class page, then it appears
live; "Sent … to N phones" counts the phones connected, not the seats."""
from __future__ import annotations

import re

import pytest

from browser import browser, join_on_phone, new_game_form, server, shot  # noqa: F401 (fixtures)
from live import LivePhone

pytestmark = pytest.mark.browser


def test_the_teacher_opens_playtest_notes_on_the_class_phones_and_the_message_counts_who_got_it(
        server, browser):  # noqa: F811
    fac = browser.new_context().new_page()
    new_game_form(fac, server.url, "war", "class")
    fac.get_by_role("button", name="Create a War class session").click()
    fac.wait_for_url(re.compile(r"/facilitator/classes/[A-Z0-9]{6}$"))
    code = fac.url.rsplit("/", 1)[1]
    switch = fac.get_by_label("Playtest notes from phones")
    assert not switch.is_checked()  # off by default for a class

    ana, dialogs = join_on_phone(browser, server.url, code, "Ana")
    others = [LivePhone(server.url) for _ in range(2)]
    for sim, name in zip(others, ["Ben", "Cara"]):
        sim.join(code, name)
    fac.get_by_text("3 students (3 connected)").wait_for()
    note_box = ana.locator("#note-box")
    assert note_box.is_hidden()

    switch.check()
    fac.get_by_text("Playtest notes are on").wait_for()
    shot(fac, "class-overview-playtest-notes-on")
    note_box.wait_for(state="visible")  # live, without a reload
    ana.get_by_text("Playtest note", exact=True).click()
    ana.get_by_label("What happened? What was confusing?").fill("The tie rule confused us")
    ana.get_by_role("button", name="Save note").click()
    ana.get_by_text("Saved. Thank you!").wait_for()
    shot(ana, "phone-playtest-note-open")
    # The class keeps the choice: the page says so after a reload.
    fac.reload()
    fac.get_by_text("3 students (3 connected)").wait_for()
    assert fac.get_by_label("Playtest notes from phones").is_checked()

    # One phone goes away: the message reaches the two still connected, and says so.
    others[1].close()
    fac.get_by_text("3 students (2 connected)").wait_for()
    fac.get_by_label("Message to every phone").fill("Two minutes left")
    fac.get_by_role("button", name="Send to every phone").click()
    fac.get_by_text("Sent “Two minutes left” to 2 phones.").wait_for()

    fac.get_by_label("Playtest notes from phones").uncheck()
    fac.get_by_text("Playtest notes are off").wait_for()
    note_box.wait_for(state="hidden")
    assert dialogs == []
    others[0].close()


def test_a_teachers_own_table_has_notes_on_its_phones_until_she_turns_them_off(server, browser):  # noqa: F811
    fac = browser.new_context().new_page()
    new_game_form(fac, server.url, "war").get_by_role("button", name="Create a War table").click()
    fac.wait_for_url(re.compile(r"/facilitator/tables/[A-Z0-9]{6}$"))
    code = fac.url.rsplit("/", 1)[1]
    switch = fac.get_by_label("Playtest notes from phones")
    assert switch.is_checked()
    ana, dialogs = join_on_phone(browser, server.url, code, "Ana")
    note_box = ana.locator("#note-box")
    note_box.wait_for(state="visible")

    switch.uncheck()
    note_box.wait_for(state="hidden")
    # The teacher's page keeps its own note box whatever the phones may do.
    fac.get_by_label("Add a note (saved with the current game version)").fill("Ana waits for a partner")
    fac.get_by_role("button", name="Save note").click()
    fac.get_by_text("Saved.", exact=True).wait_for()
    fac.reload()
    assert not fac.get_by_label("Playtest notes from phones").is_checked()
    fac.get_by_label("Playtest notes from phones").check()
    note_box.wait_for(state="visible")
    assert dialogs == []
