"""axe-core (vendored under tests/vendor) checks every page for WCAG A/AA problems:
contrast, labels, names of controls, landmarks. Runs in Debian's Chromium, with
reduced motion: axe measures contrast on what is painted, and a card caught
mid-animation (fading in) would read as low contrast."""
from __future__ import annotations

from pathlib import Path

import pytest
import requests

from browser import FACILITATOR_PASSWORD, PHONE, browser, new_game_form, server, shot  # noqa: F401  (fixture)
from live import LivePhone

pytestmark = pytest.mark.browser
AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"


def violations(page):
    # The CSP (rightly) forbids injected scripts, so the audit context bypasses it.
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => {
        const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa']}});
        return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 3)}));
    }""")
    return [v for v in found if v["impact"] in ("serious", "critical")]


def test_pages_pass_axe_wcag_aa(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token, lesson_minutes=20)  # its pages show the lesson clock
    phones = [LivePhone(server.url) for _ in range(2)]
    for phone, name in zip(phones, ["Ana", "Ben"]):
        phone.join(code, name)
    phones[0].wait_for(lambda v: len(v["players"]) == 2 and v["actions"])
    phones[0].call("act", {"version": phones[0].view["version"], "action": {"type": "start"}})
    for phone in phones:
        phone.wait_for(lambda v: v["status"] == "playing")
    phones[1].call("act", {"version": phones[1].view["version"], "action": {"type": "reveal"}})

    teacher = browser.new_context(bypass_csp=True, reduced_motion="reduce")
    fac = teacher.new_page()
    fac.goto(server.url + "/facilitator/login")
    problems = {"login": violations(fac)}
    fac.get_by_label("Name").fill("teacher")
    fac.get_by_label("Password").fill(FACILITATOR_PASSWORD)
    fac.get_by_role("button", name="Log in").click()
    fac.get_by_role("heading", name="New game").wait_for()
    problems["dashboard"] = violations(fac)
    for mode in ("table", "class", "device"):
        new_game_form(fac, server.url, "war", mode, more=True)
        problems[f"new game ({mode})"] = violations(fac)
    fac.goto(f"{server.url}/facilitator/tables/{code}")
    fac.locator(".war-seat").first.wait_for()
    problems["facilitator table"] = violations(fac)

    created = requests.post(f"{server.url}/api/classes", json={"game": "war", "options": {}, "table_size": 2},
                            headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
    klass = created["code"]
    students = [LivePhone(server.url) for _ in range(3)]
    for student, name in zip(students, ["Cy", "Di", "Ed"]):
        student.join(klass, name)
    fac.goto(f"{server.url}/facilitator/classes/{klass}")
    fac.locator(".class-table").first.wait_for()
    problems["class overview"] = violations(fac)

    board = browser.new_context(bypass_csp=True, reduced_motion="reduce").new_page()
    board.goto(f"{server.url}/board/{klass}")
    board.get_by_text("Cy").first.wait_for()
    problems["class board"] = violations(board)

    board.goto(f"{server.url}/board/{code}")
    board.locator(".war-seat").first.wait_for()
    board.locator("#lesson-clock .countdown").wait_for()
    problems["board"] = violations(board)

    phone_ctx = browser.new_context(bypass_csp=True, reduced_motion="reduce", **PHONE)
    phone = phone_ctx.new_page()
    phone.goto(server.url + "/")
    problems["home"] = violations(phone)
    phone.goto(f"{server.url}/join/{klass}")  # still seating: the name form shows
    phone.get_by_label("Your name").wait_for()
    problems["join"] = violations(phone)
    phone.goto(f"{server.url}/join/{code}")  # started: a latecomer is told so
    phone.get_by_text("This game has already started.").wait_for()
    problems["join, table started"] = violations(phone)
    phone.evaluate("t => localStorage.setItem('cg.seat.' + t[0], t[1])", [code, phones[0].token])
    phone.reload()
    phone.locator(".deck-button").wait_for()
    problems["phone playing"] = violations(phone)
    for p in phones + students:
        p.close()
    assert {page: found for page, found in problems.items() if found} == {}


def seated_page(context, url, code, token):
    """A browser page resuming a seat that a scripted phone took."""
    page = context.new_page()
    page.goto(f"{url}/join/{code}")
    page.evaluate("t => localStorage.setItem('cg.seat.' + t[0], t[1])", [code, token])
    page.reload()
    page.locator(".deck-button").wait_for()
    return page


def test_question_mark_lists_the_keys_where_there_is_a_keyboard(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token)
    phones = [LivePhone(server.url) for _ in range(2)]
    for phone, name in zip(phones, ["Ana", "Ben"]):
        phone.join(code, name)
    phones[0].wait_for(lambda v: len(v["players"]) == 2 and v["actions"])
    phones[0].call("act", {"version": phones[0].view["version"], "action": {"type": "start"}})
    phones[0].wait_for(lambda v: v["status"] == "playing")

    # A laptop: keyboard hints, and `?` opens a modal list of the keys.
    laptop = browser.new_context(bypass_csp=True, reduced_motion="reduce", viewport={"width": 390, "height": 844})
    page = seated_page(laptop, server.url, code, phones[0].token)
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    assert page.locator(".keys-hint").is_visible()
    origin = page.locator(".war-auto button").first
    origin.focus()
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    dialog.wait_for()
    assert dialog.get_attribute("aria-modal") == "true"
    text = dialog.inner_text()
    assert "Space or Enter" in text and "Reveal your next card" in text and "Esc" in text
    inside = "() => Boolean(document.activeElement && document.activeElement.closest('dialog'))"
    assert page.evaluate(inside)
    for key in ["Tab", "Tab", "Shift+Tab"]:  # focus stays in the dialog
        page.keyboard.press(key)
        assert page.evaluate(inside), key
    page.keyboard.press(" ")  # a key of the game does nothing behind the dialog: it only closes it (its button)
    dialog.wait_for(state="detached")
    page.keyboard.press("?")
    dialog.wait_for()
    shot(page, "help-overlay-390x844")
    assert violations(page) == []
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    assert page.evaluate("() => document.activeElement.dataset.focusKey") == "auto1"  # back where it came from
    assert phones[0].view["view"]["private"]["cards"] == 26  # nothing was revealed meanwhile
    assert errors == []

    # A phone: no keyboard, no hints, and `?` shows nothing.
    phone = seated_page(browser.new_context(**PHONE), server.url, code, phones[1].token)
    assert phone.locator(".keys-hint").is_hidden()
    phone.keyboard.press("?")
    phone.wait_for_timeout(300)
    assert phone.locator("dialog").count() == 0
    for p in phones:
        p.close()


@pytest.mark.parametrize("game", ["water_cycle", "storm_war", "wizard"])
def test_every_game_passes_axe_mid_game(server, browser, game):  # noqa: F811
    """Each game's own phone, board and teacher pages, a few moves into a game."""
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token, game)
    browsers = browser.new_context(bypass_csp=True, reduced_motion="reduce", **PHONE)
    phone = browsers.new_page()
    phone.goto(f"{server.url}/join/{code}")
    phone.get_by_label("Your name").fill("Ana")
    phone.get_by_role("button", name="Join").click()
    other = LivePhone(server.url)
    try:
        other.join(code, "Ben")
        phone.get_by_role("button", name=GAME_START[game]).click()
        other.wait_for(lambda v: v["status"] == "playing")
        # A few moves by whoever the game waits for: the first offered action, as a bot might.
        for _ in range(6):
            view = other.wait_for(lambda v: v["status"] == "playing")
            if view["actions"]:
                action = {k: v for k, v in view["actions"][0].items() if k != "label"}
                other.call("act", {"version": view["version"], "action": action})
            phone.wait_for_timeout(150)
        phone.wait_for_timeout(400)
        problems = {"phone": violations(phone)}
        board = browser.new_context(bypass_csp=True, reduced_motion="reduce",
                                    viewport={"width": 1920, "height": 1080}).new_page()
        board.goto(f"{server.url}/board/{code}")
        board.locator("#game-root *").first.wait_for()
        board.wait_for_timeout(400)
        problems["board"] = violations(board)
        fac = browser.new_context(bypass_csp=True, reduced_motion="reduce").new_page()
        fac.goto(server.url + "/facilitator/login")
        fac.get_by_label("Name").fill("teacher")
        fac.get_by_label("Password").fill(FACILITATOR_PASSWORD)
        fac.get_by_role("button", name="Log in").click()
        fac.get_by_role("heading", name="New game").wait_for()
        fac.goto(f"{server.url}/facilitator/tables/{code}")
        fac.locator("#game-root *").first.wait_for()
        fac.wait_for_timeout(400)
        problems["teacher"] = violations(fac)
        fac.goto(f"{server.url}/games/{game}/cards")
        if fac.locator("h1").count():
            problems["gallery"] = violations(fac) if "cards" in fac.url else []
        shot(phone, f"axe-{game}-phone")
        assert problems == {k: [] for k in problems}, problems
    finally:
        other.close()


GAME_START = {"water_cycle": "Deal cards & start", "storm_war": "Deal cards & start", "wizard": "Begin the duel"}
