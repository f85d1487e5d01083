"""War by keyboard only, in a real browser: the home page's Quick Match against
the computer (Classic, five minutes), then Space reveals, A toggles auto-play
(back on at the last speed), Alt+2 sets speed 2 (the physical key: Option+2 on
a Mac types another character), P pauses the whole game and its clock and
resumes it, R asks and R again restarts (Esc cancels the question), keys do
nothing while typing a note, and `?` lists every key."""
from __future__ import annotations

import re

import pytest

from browser import PHONE, browser, no_dialogs, shot, start_server  # noqa: F401

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # Computers and auto-play at a quarter of their classroom pace: quick, yet slow
    # enough to see a paused game stand still.
    srv = start_server(tmp_path_factory.mktemp("keys"), BOT_DELAY_SCALE="0.25")
    yield srv
    srv.stop()


def battle(page) -> int:
    return int(re.search(r"Battle (\d+)", page.locator(".war-game .status-line").inner_text()).group(1))


def auto_state(page, text):
    page.locator(".war-auto-state").filter(has_text=re.compile("^" + re.escape(text) + "$")).wait_for()


def test_a_quick_match_played_by_keyboard_only(server, browser):  # noqa: F811
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    dialogs = no_dialogs(page)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + "/")
    page.get_by_role("button", name="Quick Match against the computer: War").click()
    deck = page.locator(".deck-button")
    deck.filter(has_text="Tap your deck").or_(deck.filter(has_text="Reveal your card")).first.wait_for()
    page.locator(".war-clock").filter(has_text=re.compile(r"^Time left [45]:\d\d$")).wait_for()
    assert page.get_by_role("button", name="Pause the game").is_visible()
    assert page.get_by_role("button", name="Restart").is_visible()
    page.locator("body").click(position={"x": 5, "y": 5})   # nothing focused: the page takes the keys

    # Space reveals; the computer answers and the battle is decided (a tie is a war:
    # Space again puts the war cards down, until someone takes the pot).
    first = page.locator(".last-battle").filter(has_text="Battle 1:")
    for _ in range(8):
        page.keyboard.press("Space")
        try:
            first.wait_for(timeout=5_000)
            break
        except Exception:   # still at war: reveal again
            continue
    first.wait_for()

    # A: auto-play on at speed 1; Alt+2 (the physical key) speed 2; A off; A on again at 2.
    page.keyboard.press("a")
    auto_state(page, "Auto-play is on (speed 1)")
    page.keyboard.press("Alt+Digit2")
    auto_state(page, "Auto-play is on (speed 2)")
    page.keyboard.press("a")
    auto_state(page, "Auto-play is off")
    page.keyboard.press("a")
    auto_state(page, "Auto-play is on (speed 2)")
    page.wait_for_function("() => /Battle ([3-9]|\\d\\d)/.test(document.querySelector('.war-game .status-line').textContent)")

    # P pauses: auto-play off, the computer and the clock stand still.
    page.keyboard.press("p")
    page.locator(".war-prompt").filter(has_text="The game is paused. Tap Resume or press P to play on.").wait_for()
    page.locator(".war-clock").filter(has_text="(paused)").wait_for()
    assert page.get_by_role("button", name="Resume the game").is_visible()
    assert page.locator(".deck-button").inner_text().startswith("Your play is paused")
    held_at, clock = battle(page), page.locator(".war-clock").inner_text()
    page.wait_for_timeout(1500)
    assert battle(page) == held_at and page.locator(".war-clock").inner_text() == clock
    page.keyboard.press("Space")   # nothing to reveal while paused
    page.wait_for_timeout(300)
    assert battle(page) == held_at
    shot(page, "war-keys-paused-1920x1080")
    page.set_viewport_size({"width": 360, "height": 740})
    shot(page, "war-keys-paused-360x740")
    page.set_viewport_size({"width": 1920, "height": 1080})

    # P again resumes, auto-play back at speed 2; A stops it.
    page.keyboard.press("p")
    auto_state(page, "Auto-play is on (speed 2)")
    page.locator(".war-clock").filter(has_text=re.compile(r"^Time left \d:\d\d$")).wait_for()
    page.wait_for_function(f"() => !/Battle {held_at}\\b/.test(document.querySelector('.war-game .status-line').textContent)")
    page.keyboard.press("a")
    auto_state(page, "Auto-play is off")
    # Not with Ctrl, Meta or Alt held: those are other keys (Ctrl+A selects the page).
    for chord in ("Control+KeyA", "Meta+KeyP", "Alt+KeyA", "Alt+KeyP"):
        page.keyboard.press(chord)
    page.wait_for_timeout(400)
    assert page.locator(".war-auto-state").inner_text() == "Auto-play is off"
    assert page.get_by_role("button", name="Pause the game").is_visible()

    # R asks; Esc cancels the question (and pauses nothing); R, R restarts.
    confirm = page.locator(".war-confirm")
    page.keyboard.press("r")
    confirm.filter(has_text="Press R again to restart").wait_for()
    page.keyboard.press("Escape")
    confirm.filter(has_text=re.compile("^$")).wait_for(state="attached")
    assert page.get_by_role("button", name="Pause the game").is_visible()
    page.keyboard.press("r")
    confirm.filter(has_text="Press R again to restart").wait_for()
    shot(page, "war-keys-restart-question-1920x1080")
    page.keyboard.press("r")
    page.locator(".log-list li").filter(has_text="Player restarts the game").first.wait_for()
    page.locator(".war-game .status-line").filter(has_text=re.compile(r"^Battle 1\b")).wait_for()
    page.locator(".war-seat.mine .stat").filter(has_text="26 cards").wait_for()
    page.locator(".war-clock").filter(has_text=re.compile(r"^Time left (5:00|4:5\d)$")).wait_for()

    # Typing a note: the keys are letters there.
    page.get_by_text("Playtest note").click()
    note = page.get_by_label("What happened? What was confusing?")
    note.click()
    note.press_sequentially("a p r r ")
    note.press("Alt+Digit2")
    page.wait_for_timeout(500)
    assert note.input_value().startswith("a p r r ")
    assert battle(page) == 1 and page.locator(".war-auto-state").inner_text() == "Auto-play is off"
    assert confirm.inner_text() == "" and page.get_by_role("button", name="Pause the game").is_visible()

    # `?` lists every key.
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    dialog.wait_for()
    text = dialog.inner_text()
    for key in ("Space or Enter", "A", "Alt+1, Alt+2, Alt+4", "P or Esc", "R, then R again", "?"):
        assert key in text, key
    shot(page, "war-keys-help-1920x1080")
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    page.set_viewport_size({"width": 360, "height": 740})
    shot(page, "war-keys-playing-360x740")
    assert dialogs == [] and errors == []
    context.close()


def test_touch_users_pause_resume_and_restart_with_buttons(server, browser):  # noqa: F811
    page = browser.new_context(**PHONE).new_page()
    dialogs = no_dialogs(page)
    page.goto(server.url + "/")
    page.get_by_role("button", name="Quick Match against the computer: War").click()
    page.locator(".deck-button").filter(has_text="Reveal your card").wait_for()
    first = page.locator(".last-battle").filter(has_text="Battle 1:")
    at_war = page.locator(".deck-button:not([disabled])").filter(has_text="three go face down")
    for _ in range(8):                                         # tap the deck (again in a war)
        page.locator(".deck-button").tap()
        first.or_(at_war).first.wait_for()
        if first.is_visible():
            break
    first.wait_for()
    page.get_by_role("button", name="Pause the game").tap()
    page.get_by_role("button", name="Resume the game").wait_for()
    page.locator(".war-seat.mine .badge").filter(has_text="paused").wait_for()
    page.locator(".war-clock").filter(has_text="(paused)").wait_for()
    shot(page, "war-touch-paused-360x740")
    page.get_by_role("button", name="Resume the game").tap()
    page.get_by_role("button", name="Pause the game").wait_for()
    page.get_by_role("button", name="Restart").tap()
    page.locator(".war-confirm").filter(has_text="Tap Restart again to restart").wait_for()
    page.get_by_role("button", name="Restart").tap()
    page.locator(".log-list li").filter(has_text="Player restarts the game").first.wait_for()
    page.locator(".war-seat.mine .stat").filter(has_text="26 cards").wait_for()
    assert page.locator(".keys-hint").is_hidden()            # a touch screen shows no keyboard hints
    assert dialogs == []
    page.context.close()
