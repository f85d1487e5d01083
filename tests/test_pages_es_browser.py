"""Every student-facing page in Spanish, in a real browser (Debian's Chromium): a phone
whose browser asks for Spanish (Accept-Language: es) walks the shared-device (hotseat)
game from the teacher's creation to its end, a Quick Match against the computer to its
end, the first table of a Tournament and of a Survival run, an online match's link page,
a card gallery and the guided demo's hand-over page. On each screen: no English interface
words (tests/browser.py), nothing off a 360×740 screen or cut, and the language picker
where the student starts (the lobby, the join panel, the link page's card), never in a
footer below a game screen. Screenshots: test-artifacts/pages-es-*.png.

The Spanish is not written here: each text is the catalog's translation of the English
(app/i18n.localize), so the test checks that the pages use the catalogs."""
from __future__ import annotations

import re

import pytest

from app import engines, i18n
from browser import (FACILITATOR_PASSWORD, PHONE, browser, english_words, installed_games, new_game_form, no_dialogs,  # noqa: F401
                     shot, start_server)
from live import end_table
from test_layout import OVERFLOW
from test_phone_layout import CUT

pytestmark = pytest.mark.browser

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The real server; this one address opens more tables from the home page than a pupil's may."""
    srv = start_server(tmp_path_factory.mktemp("pages-es"), DEMO_PER_CLIENT="50")
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def short_server(tmp_path_factory):
    """The real server where a game opened from the home page lasts 25 seconds: the platform
    then ends it (its time limit), so a Quick Match reaches its end screen in a test."""
    srv = start_server(tmp_path_factory.mktemp("pages-es-short"), DEMO_PLAY_MAX="25", DEMO_CLEANUP_EVERY="1")
    yield srv
    srv.stop()


ES_PHONE = {**PHONE, "locale": "es-ES", "extra_http_headers": {"Accept-Language": "es-ES,es;q=0.9"}}


def es(text: str, game: str | None = None, **fields) -> str:
    out = i18n.localize(text, "es", game)
    assert out != text, f"the catalog has no Spanish for {text!r}"
    for key, value in fields.items():
        out = out.replace("{" + key + "}", value)
    return out


def look(page, stage, *, one_screen=False):
    """The screen in Spanish, on a 360×740 phone: no English interface words, nothing off
    the side or cut; `one_screen`: no scrolling either. A screenshot for a person to look at."""
    page.wait_for_timeout(400)  # entrances settle
    shot(page, f"pages-es-{stage}")
    assert page.locator("html").get_attribute("lang") == "es", stage
    assert english_words(page) == [], f"{stage}: {page.locator('body').inner_text()}"
    # The default seat names of the home page's games, and a join line of the log.
    text = page.locator("body").inner_text()
    assert not re.search(r"\b(Computer|Challenger|Survivor|First wizard|Second wizard|joined)\b", text), f"{stage}: {text}"
    # (A long link in a text box scrolls inside it, as every text box does.)
    overflows = [line for line in page.evaluate(OVERFLOW) if not line.startswith("scrolls: INPUT")]
    assert overflows == [], f"{stage}: something overflows"
    page.evaluate("() => window.scrollTo(0, 0)")
    assert page.evaluate(CUT) == [], f"{stage}: text is cut"
    if one_screen:
        height = page.evaluate("() => document.documentElement.scrollHeight")
        assert height <= PHONE["viewport"]["height"], f"{stage}: {height} px tall"


def spanish_phone(browser, **extra):  # noqa: F811
    page = browser.new_context(**ES_PHONE, **extra).new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, no_dialogs(page), errors


def pass_to(device, name):
    device.get_by_role("dialog", name=es("Pass the device to {name}", name=name)).wait_for()
    return device.get_by_role("button", name=es("I'm {name} — continue", name=name))


def test_the_shared_device_plays_war_in_spanish_from_the_lobby_to_the_end(server, browser):  # noqa: F811
    teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    new_game_form(teacher, server.url, "war", "device")
    teacher.locator("#hotseat-war-player1").fill("Ana")
    teacher.locator("#hotseat-war-player2").fill("Beto")
    teacher.get_by_role("button", name="Create a War hotseat game").click()
    link = teacher.get_by_role("link", name="Open the game on this device").get_attribute("href")
    code = link.split("#")[0].rsplit("/", 1)[1]

    device, dialogs, errors = spanish_phone(browser)
    device.goto(link)
    start = device.get_by_role("button", name=es("Deal cards & start", "war"))
    start.wait_for()
    # The language picker is in the lobby, and nowhere else on the page.
    lobby = device.locator(".hotseat-lobby")
    assert lobby.locator("form.language-picker select").is_visible()
    assert device.locator("form.language-picker").count() == 1 and device.locator("footer .language-picker").count() == 0
    look(device, "hotseat-lobby", one_screen=True)
    # A switch of language there reloads the lobby in it, the device's seats kept; and back.
    lobby.locator("form.language-picker select").select_option("en")
    device.wait_for_function("() => document.documentElement.lang === 'en'")
    device.get_by_role("button", name="Deal cards & start").wait_for()
    device.locator(".hotseat-lobby form.language-picker select").select_option("es")
    device.wait_for_function("() => document.documentElement.lang === 'es'")
    start.wait_for()
    start.click()

    # A few turns, each behind its pass screen.
    for name in ["Ana", "Beto", "Ana", "Beto"]:
        button = pass_to(device, name)
        if name == "Ana" and device.locator("#game-root *").count() == 0 and not device.locator(
                "form.language-picker").is_visible():
            look(device, "hotseat-pass")
        button.click()
        device.get_by_role("heading", name=es("{name}'s turn", name=name)).wait_for()
        assert device.locator("form.language-picker").is_visible() is False  # not on a game screen
        look(device, f"hotseat-turn-{name.lower()}")
        device.get_by_role("button", name=re.compile(re.escape(es("Reveal your card", "war")))).click()

    end_table(server.url, server.api_token("teacher", FACILITATOR_PASSWORD), code)
    again = device.get_by_role("button", name=es("Play again"))
    again.wait_for()
    device.wait_for_timeout(600)
    look(device, "hotseat-end")
    box = again.bounding_box()
    assert box["y"] + box["height"] <= PHONE["viewport"]["height"], f"Play again is below the screen: {box}"
    assert device.locator("form.language-picker").is_visible() is False
    assert dialogs == [] and errors == []
    device.context.close()
    teacher.context.close()


def start_from_home(page, url, start):
    """The home page's quick start `start` of War: the hand-over page moves on to the phone page."""
    page.goto(url + "/")
    assert page.locator("html").get_attribute("lang") == "es"
    page.locator(f'form[action="/demo/war/{start}"] button').click()
    page.wait_for_url(re.compile(r"/join/[A-Z0-9]{6}$"))
    page.locator("#game-panel").wait_for()


def test_a_quick_match_against_the_computer_in_spanish_to_its_end(short_server, browser):  # noqa: F811
    page, dialogs, errors = spanish_phone(browser, reduced_motion="reduce")
    start_from_home(page, short_server.url, "quick_match")
    page.locator(".deck-button").first.wait_for()
    look(page, "quick-match-table")
    # A few battles; then the match plays on until it ends (by its cards, or the platform's
    # time limit for a game without a teacher, 25 seconds here).
    ended = page.locator(".end-screen h2")
    for _ in range(8):
        deck = page.locator(".deck-button:not([disabled])")
        if ended.count():
            break
        if deck.count():
            try:
                deck.first.click(timeout=2000)
            except Exception:  # noqa: BLE001 - redrawn under the tap: the next round taps again
                pass
        page.wait_for_timeout(300)
    look(page, "quick-match-playing")
    ended.wait_for(timeout=60_000)
    page.wait_for_timeout(1300)  # the trophy's entrance settles
    look(page, "quick-match-end", one_screen=True)
    page.get_by_role("button", name=es("Play again")).wait_for()
    assert dialogs == [] and errors == []
    page.context.close()


@pytest.mark.parametrize("run", ["tournament", "survival"])
def test_a_war_run_starts_in_spanish_and_shows_its_first_table(server, browser, run):  # noqa: F811
    page, dialogs, errors = spanish_phone(browser)
    start_from_home(page, server.url, run)
    page.locator("#game-root button").first.wait_for()
    look(page, f"{run}-start")
    # Into the first table: the run's first button (enter, pay the entry) until a deck shows.
    for _ in range(4):
        if page.locator(".deck-button").count():
            break
        page.locator("#game-root button.primary, #game-root button").first.click()
        page.wait_for_timeout(500)
    page.locator(".deck-button").first.wait_for()
    look(page, f"{run}-first-table")
    assert dialogs == [] and errors == []
    page.context.close()


def test_the_gallery_the_demo_start_and_an_online_link_page_in_spanish(server, browser):  # noqa: F811
    page, dialogs, errors = spanish_phone(browser)
    galleries = [key for key in installed_games() if engines.spec(key).gallery]
    assert galleries
    for key in galleries:
        page.goto(server.url + f"/games/{key}/cards")
        page.locator("#gallery-tools").wait_for()
        look(page, f"gallery-{key}")
        labels = page.locator(".gallery-numbers dt").all_inner_texts()
        assert not [label for label in labels if re.search(r"\b(defense|risk|points?|cost)\b", label, re.I)], labels

    # The guided demo's hand-over page, as a browser without scripts keeps it on screen.
    still = browser.new_context(**ES_PHONE, java_script_enabled=False).new_page()
    still.goto(server.url + "/")
    still.locator('form[action="/demo/storm_war"] button').first.click()
    still.locator("#demo-start").wait_for()
    look(still, "demo-start")
    still.goto(server.url + "/")
    still.locator('form[action="/online/wizard"] button').click()
    still.locator("#demo-start").wait_for()
    assert still.locator("h1").inner_text() == es("Your online match is ready")
    look(still, "online-start")
    still.context.close()

    # An online match's link page: the picker in its card; a switch to English keeps the seat.
    page.goto(server.url + "/")
    page.locator('form[action="/online/wizard"] button').click()
    page.wait_for_url(re.compile(r"/online/[A-Z0-9]{6}$"))
    page.get_by_role("textbox", name=es("Resume link")).wait_for()
    assert page.locator("#online-root form.language-picker select").is_visible()
    look(page, "online-links")
    invite = page.get_by_role("textbox", name=es("Invitation link")).input_value()

    guest, guest_dialogs, guest_errors = spanish_phone(browser)
    guest.goto(invite.replace("http://class.example:5000", server.url))
    guest.get_by_role("button", name=es("Accept the invitation")).wait_for()
    look(guest, "online-invitation", one_screen=True)
    # The guest switches to English before accepting: the invitation is still there.
    guest.locator("#online-root form.language-picker select").select_option("en")
    guest.wait_for_function("() => document.documentElement.lang === 'en'")
    guest.get_by_role("button", name="Accept the invitation").wait_for()
    guest.locator("#online-root form.language-picker select").select_option("es")
    guest.wait_for_function("() => document.documentElement.lang === 'es'")
    guest.get_by_label(es("Your name")).fill("Bea")
    guest.get_by_role("button", name=es("Accept the invitation")).click()
    guest.get_by_role("link", name=es("Go to the match")).click()
    guest.wait_for_url(re.compile(r"/join/[A-Z0-9]{6}$"))
    guest.locator("#game-root button").first.wait_for()
    look(guest, "online-match-table")
    assert dialogs == guest_dialogs == [] and errors == guest_errors == []
    page.context.close()
    guest.context.close()
