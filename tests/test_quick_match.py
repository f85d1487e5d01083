"""Quick Match on the create forms: every game's presets (GameSpec.presets) are a
row of buttons above its options on the table, class and hotseat forms, each
carrying the value of every option field (the preset's, else the default);
every option is on the form with its help text; the form submits without
JavaScript. War's home-page entry offers a Quick Match against the computer."""
from __future__ import annotations

import html
import json
import re

from app import engines
from app.extensions import services
from app.facilitator import form_presets, preset_label

from conftest import PASSWORD


def logged_in(app):
    client = app.test_client()
    client.get("/facilitator/login")
    with client.session_transaction() as sess:
        csrf = sess["csrf"]
    client.post("/facilitator/login", data={"name": "teacher", "password": PASSWORD, "csrf": csrf})
    client.get("/facilitator/")
    with client.session_transaction() as sess:
        return client, sess["csrf"]


def preset_rows(page: str) -> dict:
    """{(form prefix, game key): [(button label, values)]} from a dashboard page."""
    rows = {}
    for prefix, key, body in re.findall(
            r'<div class="preset-row" role="group" aria-labelledby="(\w+)-(\w+)-presets" data-presets hidden>(.*?)</div>\s*</div>',
            page, re.S):
        buttons = re.findall(r"<button type=\"button\" class=\"small\" data-preset='([^']*)' "
                             r"data-preset-name=\"(\w+)\" aria-pressed=\"false\">([^<]*)</button>", body)
        rows[(prefix, key)] = [(html.unescape(label), json.loads(html.unescape(values)))
                               for values, _name, label in buttons]
    return rows


def test_preset_labels_read_well():
    assert [preset_label(k) for k in ("classic", "power_war", "wager_battle", "power_and_wager", "tournament",
                                      "survival", "vs_computer", "first_lesson")] == [
        "Classic", "Power War", "Wager Battle", "Power and Wager", "Tournament", "Survival", "vs. Computer",
        "First Lesson"]


def test_every_form_lists_the_games_presets_with_every_option_value(app, teacher):
    client, _ = logged_in(app)
    # Each game's short form is on its own page, the dashboard's game card leads there.
    page = "".join(client.get(f"/facilitator/new/{game['key']}").get_data(as_text=True)
                   for game in engines.games() if game["playable"])
    rows = preset_rows(page)
    war = next(g for g in engines.games() if g["key"] == "war")
    fields = [o["key"] for o in war["options"]]
    for prefix in ("opt", "class", "hotseat"):
        labels = [label for label, _ in rows[(prefix, "war")]]
        assert labels == ["Classic", "Power War", "Wager Battle", "Power and Wager", "Tournament", "Survival"]
    values = dict(rows[("opt", "war")])
    assert all(set(v) == set(fields) for v in values.values())   # every option field
    assert values["Power War"] == {"mode": "power", "computer_level": "standard", "energy_start": "3",
                                   "energy_per_battle": "1", "energy_max": "10", "bankroll": "100",
                                   "raise_amount": "10", "length": "first_to_40_cards"}
    assert values["Tournament"]["mode"] == "tournament" and values["Tournament"]["length"] == "fits_a_lesson"
    # Every game with presets gets its row, generically (the platform names no game).
    for game in engines.games():
        if form_presets(game):
            assert [label for label, _ in rows[("opt", game["key"])]] == [p["label"] for p in form_presets(game)]
    # Every option is on the form, with its help text, and the presets' script is there once per form kind.
    for option in war["options"]:
        assert f'id="opt-war-{option["key"]}"' in page and option["help"] in html.unescape(page)
    assert page.count('src="/static/js/presets.js"') >= 3


def test_a_preset_leaves_out_options_the_form_does_not_show():
    game = next(g for g in engines.games() if g["key"] == "water_cycle")
    for preset in form_presets(game):
        assert "trivia" not in preset["values"]          # filled by an uploaded bank, not a field
    bare = {"key": "x", "options": [{"key": "a", "default": 1, "choices": [1, 2]}], "uploads": [],
            "presets": {"nothing_here": {"b": 2}, "two": {"a": 2}}}
    assert form_presets(bare) == [{"name": "two", "label": "Two", "values": {"a": "2"}}]


def test_a_form_filled_as_a_preset_says_submits_without_javascript(app, teacher):
    client, csrf = logged_in(app)
    page = client.get("/facilitator/new/war").get_data(as_text=True)
    values = dict(preset_rows(page)[("opt", "war")])["Wager Battle"]
    response = client.post("/facilitator/tables", data={"csrf": csrf, "game": "war", **values})
    assert response.status_code == 302 and "/facilitator/tables/" in response.headers["Location"]
    code = response.headers["Location"].rsplit("/", 1)[1]
    options = services(app).tables.get(code).options
    assert options["mode"] == "wager" and options["bankroll"] == 100 and options["energy_start"] == 3


def test_wars_home_page_entry_offers_a_quick_match_against_the_computer(app):
    page = app.test_client().get("/").get_data(as_text=True)
    assert 'aria-label="Quick Match against the computer: War"' in page
    assert "/demo/war/quick_match" in page
