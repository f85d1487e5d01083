"""The projected board's log is for the back row: the rulings (long clarifications of
the rules, e.g. War's "a match length that fits a lesson") stay off it and show on the
teacher's table page, where the teacher can explain them (issue 21)."""
from __future__ import annotations

import pytest

from browser import FACILITATOR_PASSWORD, browser, server  # noqa: F401  (fixtures)
from games.water_cycle.test_water_cycle_browser import teacher_page
from live import LivePhone, play_live

pytestmark = pytest.mark.browser


def test_a_ruling_is_on_the_teachers_page_not_on_the_projected_board(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token, "war")   # default length: three players play to 45 cards, a ruling
    phones = [LivePhone(server.url) for _ in range(3)]
    for phone, name in zip(phones, ("Ana", "Ben", "Cara")):
        phone.join(code, name)
    phones[0].wait_for(lambda v: len(v["players"]) == 3 and any(a["type"] == "start" for a in v["actions"]))
    assert phones[0].call("act", {"version": phones[0].view["version"], "action": {"type": "start"}})["ok"]
    phones[0].wait_for(lambda v: v["status"] == "playing")
    # The first battle's resolution logs the ruling.
    play_live(phones, until=lambda v: any(e.get("t") == "ruling" for e in v["log"]))
    ruling = next(e for e in phones[0].view["log"] if e.get("t") == "ruling")
    assert ruling["id"] == "war.length_fits_a_lesson"

    board = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    board.goto(f"{server.url}/board/{code}")
    board.locator(".log-list li", has_text="reveals").first.wait_for()
    assert board.locator(".log-list li.log-ruling").count() == 0
    assert ruling["text"] not in board.locator(".log-list").inner_text()

    fac, errors = teacher_page(server, browser, code)
    fac.locator(".log-list li.log-ruling", has_text=ruling["text"][:40]).first.wait_for()
    assert errors == []
    for phone in phones:
        phone.close()
