"""Quick Match in a real browser: on the dashboard's create forms a preset button
fills every option field of its own form (and only that form), shows itself
pressed while the fields hold its values, and the table is created with them."""
from __future__ import annotations

import re

import pytest

import requests

from browser import ARTIFACTS, FACILITATOR_PASSWORD, browser, new_game_form, no_dialogs, server  # noqa: F401

pytestmark = pytest.mark.browser


def test_a_preset_fills_every_field_of_its_form(server, browser):  # noqa: F811
    page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    dialogs = no_dialogs(page)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    form = new_game_form(page, server.url, "war", more=True)
    presets = form.get_by_role("group", name="Presets (fill every option below)")
    presets.get_by_role("button", name="Classic").wait_for()   # the row shows once presets.js has run
    assert presets.get_by_role("button").all_inner_texts() == [
        "Classic", "Power War", "Wager Battle", "Power and Wager", "Tournament", "Survival"]
    assert presets.get_by_role("button", name="Classic").get_attribute("aria-pressed") == "true"  # the defaults

    form.get_by_label("Starting energy (Power War)").select_option("0")
    assert presets.get_by_role("button", name="Classic").get_attribute("aria-pressed") == "false"
    presets.get_by_role("button", name="Power War").click()
    assert form.get_by_label("Mode").input_value() == "power"
    assert form.get_by_label("Match length").input_value() == "first_to_40_cards"
    assert form.get_by_label("Starting energy (Power War)").input_value() == "3"
    assert form.get_by_label("Computer players").input_value() == "standard"
    assert presets.get_by_role("button", name="Power War").get_attribute("aria-pressed") == "true"
    # Only this form: the class form's War fields keep their defaults.
    klass = page.locator('form.mode-form[data-mode="class"]')  # hidden until chosen, its fields still there
    assert klass.get_by_label("Mode").input_value() == "classic"

    presets.get_by_role("button", name="Wager Battle").click()
    assert (form.get_by_label("Mode").input_value(), form.get_by_label("Match length").input_value(),
            form.get_by_label("Starting chips (Wager Battle)").input_value()) == ("wager", "full_elimination", "100")
    form.get_by_label("Raise (Wager Battle)").select_option("20")   # a preset is a start: change anything
    assert presets.get_by_role("button", name="Wager Battle").get_attribute("aria-pressed") == "false"
    ARTIFACTS.mkdir(exist_ok=True)
    form.screenshot(path=str(ARTIFACTS / "quick-match-presets-1920x1080.png"))
    page.set_viewport_size({"width": 360, "height": 740})
    form.screenshot(path=str(ARTIFACTS / "quick-match-presets-360x740.png"))
    form.get_by_role("button", name="Create a War table").click()
    page.wait_for_url(re.compile(r"/facilitator/tables/[A-Z0-9]{6}$"))
    code = page.url.rsplit("/", 1)[1]
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    table = requests.get(f"{server.url}/api/tables/{code}", headers={"Authorization": f"Bearer {token}"},
                         timeout=10).json()
    assert table["options"] == {"mode": "wager", "computer_level": "standard", "energy_start": 3,
                                "energy_per_battle": 1, "energy_max": 10, "bankroll": 100, "raise_amount": 20,
                                "length": "full_elimination"}
    assert dialogs == [] and errors == []
    page.context.close()
