"""Spanish in a real browser (Debian's Chromium): phones whose browser asks for Spanish
(Accept-Language: es) get every screen in Spanish, a board made in Spanish speaks it, and
an English phone at the same table still reads English.

The Spanish words are not written here: each is the catalog's translation of the English
(app/i18n.localize), so the test checks that the screens use the catalogs, whatever the
wording; and a list of the interface's English words must not appear on a Spanish screen."""
from __future__ import annotations

import re

import pytest
import requests
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app import i18n
from browser import (FACILITATOR_PASSWORD, PHONE, browser, english_words, join_on_phone,  # noqa: F401
                     no_dialogs, remember_text, seen_text, server, shot)
from games.water_cycle.test_water_cycle_browser import create_table, crisis_owner, tap
from live import end_table
from test_phone_layout import CATCH_SOCKET

pytestmark = pytest.mark.browser

def es(text: str, game: str | None = None) -> str:
    out = i18n.localize(text, "es", game)
    assert out != text, f"the catalog has no Spanish for {text!r}"
    return out


def spanish_phone(browser, url, code, name, script=None):  # noqa: F811
    page = browser.new_context(locale="es-ES", **PHONE).new_page()
    if script:
        page.add_init_script(script)
    dialogs = no_dialogs(page)
    page.goto(url + "/")
    assert page.locator("html").get_attribute("lang") == "es"
    page.get_by_label(es("Table code")).fill(code.lower())
    page.get_by_role("button", name=es("Next")).click()
    page.get_by_label(es("Your name")).fill(name)
    page.get_by_role("button", name=es("Join"), exact=True).click()
    page.get_by_text(es("Waiting for players")).wait_for()
    return page, dialogs


def test_a_spanish_phone_plays_war_beside_an_english_one_on_a_spanish_board(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    made = requests.post(server.url + "/api/tables", json={"game": "war", "options": {}, "language": "es"},
                         headers={"Authorization": f"Bearer {token}"}, timeout=10)
    code = made.json()["code"]
    board = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    board_dialogs = no_dialogs(board)
    board.goto(server.url + f"/board/{code}")
    assert board.locator("html").get_attribute("lang") == "es"

    # A wrong code first: the refusal comes in Spanish.
    ana, ana_dialogs = spanish_phone(browser, server.url, code, "Ana")
    lost = browser.new_context(locale="es-ES", **PHONE).new_page()
    lost.goto(server.url + "/?code=ZZZ999")
    lost.get_by_text(es("There is no table with that code. Check the letters on the board and try again.")).wait_for()
    lost.context.close()
    ben, ben_dialogs = join_on_phone(browser, server.url, code, "Ben")   # an English phone
    assert ben.locator("html").get_attribute("lang") == "en"
    shot(ana, "es-war-phone-lobby")
    assert english_words(ana) == []

    ana.get_by_role("button", name=es("Deal cards & start", "war")).click()
    for page in (ana, ben):
        page.locator(".deck-button").wait_for()
    # A few battles by tapping the deck, on both phones.
    for _ in range(6):
        for page in (ana, ben):
            deck = page.locator(".deck-button:not([disabled])")
            if deck.count():
                deck.first.click()
        board.wait_for_timeout(150)
    shot(ana, "es-war-phone-playing")
    shot(board, "es-war-board-playing")
    assert english_words(ana) == [], ana.locator("body").inner_text()
    assert english_words(board) == [], board.locator("body").inner_text()
    assert ben.get_by_text("Battle", exact=False).count() > 0      # the English phone still reads English

    end_table(server.url, token, code)
    for page in (ana, ben, board):
        page.locator(".result h2").wait_for()
    ana.get_by_role("button", name=es("Play again")).wait_for()
    shot(ana, "es-war-phone-ended")
    shot(board, "es-war-board-ended")
    assert english_words(ana) == [], ana.locator("body").inner_text()
    assert english_words(board) == [], board.locator("body").inner_text()
    assert not ana_dialogs and not ben_dialogs and not board_dialogs
    for page in (ana, ben, board):
        page.context.close()


def test_a_spanish_phone_votes_on_a_water_cycle_crisis_beside_an_english_one(server, browser):  # noqa: F811
    """Water Cycle with the players' vote: an English phone answers a Crisis, the Spanish
    phone sees it and votes in Spanish (the buttons, the tally, the result), the English
    phone reads the same result in English; then a move the Spanish phone sends with an old
    version is refused as stale, in Spanish, and the fresh view comes with the refusal."""
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = create_table(server, token, votes="players", vote_seconds=90)
    ana, ana_dialogs = spanish_phone(browser, server.url, code, "Ana", script=CATCH_SOCKET)
    ben, ben_dialogs = join_on_phone(browser, server.url, code, "Ben")   # an English phone
    assert ben.locator("html").get_attribute("lang") == "en"
    ana.get_by_role("button", name=es("Deal cards & start", "water_cycle")).click()
    for page in (ana, ben):
        page.locator(".wcc-cycle-row").wait_for()
    ana.wait_for_function("() => window.__view && window.__view.status === 'playing'")
    old = ana.evaluate("() => window.__view.version")   # a version of the table the next moves leave behind

    # Play until Ben must answer a Crisis (one that comes to Ana she gives up, in Spanish).
    phones = [(ana,), (ben,)]
    gave_up = []   # the Give up button's text, as Ana tapped it
    for _ in range(600):
        owner = crisis_owner(phones)
        if owner is ben:
            break
        if owner is ana:
            try:    # (the Crisis may have ended meanwhile: a timer of the game's)
                gave_up.append(ana.locator(".wcc-giveup").first.text_content(timeout=1000).strip())
            except PlaywrightTimeout:
                continue
            tap(ana.locator(".wcc-giveup"))
            continue
        for page in (ana, ben):   # draw, defuse the Collapse, answer the Boss, discard when told to
            for control in (".wcc-thumb button.big", ".wcc-answer-btn", ".wcc-take", ".wcc-card-btn.go"):
                tap(page.locator(control), 300)
        ana.wait_for_timeout(100)
    else:
        raise AssertionError("Ben never drew a Crisis")
    assert all(text == es("Give up", "water_cycle") for text in gave_up), gave_up
    ben.locator(".wcc-crisis-name").wait_for()
    english = re.match(r"Crisis: (.+?)\s+—", ben.locator(".wcc-crisis-name").inner_text()).group(1)
    assert ana.locator(".wcc-crisis-name").inner_text().startswith(es(f"Crisis: {english}", "water_cycle"))

    # Ben (in English) uses a card and explains; Ana, the only voter, sees the vote in Spanish.
    ben.locator(".wcc-card-btn", has_text=re.compile(r"^Use$")).first.click()
    ben.locator(".wcc-picked").first.wait_for()
    ben.locator("#wcc-explanation").fill("La recolección guarda el agua de lluvia en tanques para la sequía.")
    ben.get_by_role("button", name="Send explanation").click()
    ana.locator(".wcc-vote.down").wait_for()
    assert ana.locator(".wcc-vote.up").inner_text().strip() == es("It works", "water_cycle")
    assert ana.locator(".wcc-vote.down").inner_text().strip() == es("It doesn't", "water_cycle")
    assert ana.locator(".wcc-tally .wcc-mode").inner_text() == es("The players' vote decides", "water_cycle")
    assert ana.locator(".wcc-tally .wcc-up .wcc-num").inner_text() == "0"
    voters = ana.locator(".wcc-tally .wcc-voters li")   # Ana herself, who has not voted yet
    assert voters.count() == 1 and voters.inner_text().startswith(es("You")), voters.all_inner_texts()
    assert ana.locator(".wcc-clock").count() == 1          # the vote's countdown, by the thumbs
    shot(ana, "es-wcc-phone-vote")
    assert english_words(ana) == [], ana.locator("body").inner_text()
    ben.locator(".wcc-wait", has_text="Waiting for Ana").wait_for()     # the English phone waits, in English

    # Ana votes thumbs down: her phone says so in Spanish, with the result and the tally.
    verdict = es(f"Ben's answer to the {english}: voted down", "water_cycle")
    tally = es("Vote: 0 up, 1 down", "water_cycle")
    remember_text(ana, tally)
    ana.locator(".wcc-vote.down").click()
    ana.locator(".wcc-crisis-result.wrong").wait_for()
    seen_text(ana, tally)
    result = ana.locator(".wcc-crisis-result").first
    assert verdict in result.inner_text(), result.inner_text()
    assert tally in result.inner_text(), result.inner_text()
    shot(ana, "es-wcc-phone-voted")
    assert english_words(ana) == [], ana.locator("body").inner_text()
    ben.locator(".wcc-crisis-result", has_text="voted down").wait_for()   # Ben reads it in English
    assert "Vote: 0 up, 1 down" in ben.locator(".wcc-crisis-result").inner_text()
    assert "vote" in english_words(ben)                                   # (the check sees English where it is)

    # A stale move: Ana's phone sends a move on the version it had at the start. It is
    # refused in Spanish, and the fresh view comes with the refusal.
    ack = ana.evaluate("""(version) => new Promise((done) => window.__socket.timeout(8000)
        .emit('act', {version, action: {type: 'draw'}}, (err, ack) => done(err ? {ok: false, error: {code: 'timeout'}} : ack)))""", old)
    assert not ack["ok"] and ack["error"]["code"] == "stale", ack
    assert ack["error"]["message"] == es("The table changed before your move arrived. Here it is now."), ack
    assert ack["version"] > old
    ana.wait_for_function("(version) => window.__view.version >= version", arg=ack["version"])
    assert english_words(ana) == [], ana.locator("body").inner_text()

    end_table(server.url, token, code)
    for page in (ana, ben):
        page.locator(".wcc-result h2, .result h2").first.wait_for()
    assert english_words(ana) == [], ana.locator("body").inner_text()
    assert not ana_dialogs and not ben_dialogs
    for page in (ana, ben):
        page.context.close()


def test_the_student_picks_another_language_on_the_phone_and_keeps_it(server, browser):  # noqa: F811
    page = browser.new_context(locale="es-ES", **PHONE).new_page()
    page.goto(server.url + "/")
    assert page.locator("html").get_attribute("lang") == "es"
    page.locator(".language-picker select").select_option("en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    page.get_by_label("Table code").wait_for()
    page.reload()
    assert page.locator("html").get_attribute("lang") == "en"
    page.context.close()
