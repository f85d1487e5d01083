"""The phone page says why a name was refused (app/edge/names.py), in a real browser."""
from __future__ import annotations

import pytest

from browser import FACILITATOR_PASSWORD, PHONE, browser, no_dialogs, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser


def test_the_phone_says_why_a_name_was_refused_and_then_joins(server, browser):  # noqa: F811
    code = server.create_table(server.api_token(password=FACILITATOR_PASSWORD))
    page = browser.new_context(**PHONE).new_page()
    dialogs = no_dialogs(page)
    page.goto(f"{server.url}/join/{code}")
    error = page.locator("#join-error")
    for name, says in [("\u3164\u3164", "Please type a name with letters or digits"),
                       ("Z\u0334\u0321\u031b\u0324o\u0338", "without extra marks"),
                       ("B1tch", "Please choose a different name: that one might upset someone.")]:
        page.get_by_label("Your name").fill(name)
        page.get_by_role("button", name="Join").click()
        page.wait_for_function("says => document.getElementById('join-error').innerText.includes(says)", arg=says)
        assert error.is_visible() and "itch" not in error.inner_text()
    page.get_by_label("Your name").fill("Ana")
    page.get_by_role("button", name="Join").click()
    page.get_by_text("Waiting for players").wait_for()
    assert dialogs == []
    page.context.close()
