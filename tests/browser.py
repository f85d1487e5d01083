"""Playwright driving Debian's Chromium (never a downloaded browser).

Outside CI a machine without /usr/bin/chromium skips the browser tests; in CI
(CI=true) that is a failure, because scripts/test installs it.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-quic", "--no-first-run"]
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
FACILITATOR_PASSWORD = "browser-pass-1"
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def installed_games() -> list[str]:
    """The games the live server plays: every package under app/engines/, not the test
    games another test module may have registered in this process."""
    from app import engines
    return [key for key in engines.keys() if engines.get(key).__name__.startswith("app.engines.")]


def launch_browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CHROMIUM} is missing in CI: scripts/test should have installed Debian's chromium")
        pytest.skip(f"{CHROMIUM} is not installed (bash scripts/test installs it)")
    from playwright.sync_api import sync_playwright

    manager = sync_playwright().start()
    browser = manager.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
    return manager, browser


_shared: list = []   # [manager, browser]: this process's one Chromium (see `browser`)


def shared_browser():
    """One Chromium per test process (an xdist worker), started by the first browser test and
    stopped when the process's tests end (tests/conftest.py nothing_outlives_the_run): starting it for
    each module cost a second or two of both cores, forty times a run."""
    if _shared and not _shared[1].is_connected():   # it crashed: a fresh one
        stop_shared_browser()
    if not _shared:
        _shared.extend(launch_browser())
    return _shared[1]


def stop_shared_browser():
    if _shared:
        manager, browser = _shared
        _shared.clear()
        try:
            browser.close()
        finally:
            manager.stop()


@pytest.fixture(scope="module")
def browser():
    """The process's Chromium; what a module's tests opened in it (contexts, pages) is
    closed when the module ends, so the next module starts from a clean browser."""
    browser = shared_browser()
    yield browser
    for context in browser.contexts:
        context.close()


def no_dialogs(page):
    """Any alert() means injected HTML ran: fail loudly."""
    fired = []
    page.on("dialog", lambda d: (fired.append(d.message), d.dismiss()))
    return fired


# The page has drawn what it has and stopped moving: its fonts are in, and no animation that
# ends is still running (entrances, flips, fades; an endless one, a pulse or a die's nudge,
# never ends and does not count). Checked over two frames running, as a view's redraw can
# start an entrance in the frame after the last one ended.
SETTLED = """() => {
  const moving = () => document.fonts.status !== 'loaded' || document.getAnimations().some(
    (a) => a.playState === 'running' && a.effect && a.effect.getComputedTiming().endTime !== Infinity);
  window.__stillFor = moving() ? 0 : (window.__stillFor || 0) + 1;
  return window.__stillFor >= 2;
}"""


def settle(page, timeout=30_000):
    """Wait until the page stops moving (SETTLED): what a layout check measures then is what
    a student sees, not a card halfway through its entrance, on a quick machine or a busy one.
    From a page's first settle on, its animations play ten times as fast (Chromium's
    Animation.setPlaybackRate): they end where they would, a layout walk waits less for them."""
    if not getattr(page, "_fast_animations", False):
        page.context.new_cdp_session(page).send("Animation.setPlaybackRate", {"playbackRate": 10})
        page._fast_animations = True
    page.evaluate("() => { window.__stillFor = 0; }")
    page.wait_for_function(SETTLED, timeout=timeout, polling="raf")


def remember_text(page, text):
    """From now on, note whether `text` ever shows on the page. A passing message
    (a few seconds on screen) is then checked by `seen_text` however slowly the
    test gets round to each page: no race against the machine's speed."""
    page.evaluate("""text => {
        window.__seen = window.__seen || {};
        const check = () => {
            if (document.body.innerText.includes(text)) window.__seen[text] = true;
            return window.__seen[text];
        };
        if (check()) return;
        const observer = new MutationObserver(() => { if (check()) observer.disconnect(); });
        observer.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
    }""", text)


def seen_text(page, text, timeout=30_000):
    page.wait_for_function("text => Boolean((window.__seen || {})[text])", arg=text, timeout=timeout)


# Words of the interface (buttons, headings, status lines) that a screen in another
# language never shows (tests/test_i18n_browser.py, the layout walks in Spanish).
ENGLISH_UI_WORDS = ["Reveal", "Battle", "Waiting", "Deck", "cards", "Play again", "Join another game", "won",
                    "Auto-play", "Players", "Your", "Turn", "Table code", "Next", "Join", "the teacher",
                    "Game over", "wins", "Connected", "Help", "Crisis card", "vote", "Vote", "spell", "Jobsite",
                    "You", "Tap", "draw", "Draw", "Pass", "Continue", "Roll", "energy", "Ready"]


def english_words(page) -> list[str]:
    """The interface's English words on the page (see ENGLISH_UI_WORDS)."""
    import re

    text = page.locator("body").inner_text()
    return [w for w in ENGLISH_UI_WORDS if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text)]


# Screenshots are for a person to look at (README: "Looking at the pages"), not for an
# assertion: a run takes them when asked (SCREENSHOTS=1), and a layout check that found a
# problem takes its own. Each one of a 1920×1080 board cost a fifth of a second of a core,
# some six hundred times a run.
SCREENSHOTS = os.environ.get("SCREENSHOTS") == "1"


def shot(page, name, *, screen=False, force=False):
    """A screenshot into test-artifacts/ when the run takes them (SCREENSHOTS=1) or `force`:
    the whole page if it scrolls (a phone), else the screen; `screen`: the screen only
    (what the student sees without scrolling). A whole-page shot stretches the viewport
    for a moment, and a board redraws itself on a resize (table.js fitBoard): a check
    made just after would measure a board laid out for the stretched screen."""
    if not (SCREENSHOTS or force):
        return
    ARTIFACTS.mkdir(exist_ok=True)
    scrolls = not screen and page.evaluate("() => document.documentElement.scrollHeight > innerHeight + 1")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=scrolls)


def join_on_phone(browser, url, code, name, views=None):
    """A student on a 360-px phone: enter the code on the home page, then a name.
    `views`, a list: the page's `view` frames are added to it as they arrive, before the
    page draws them. Returns (page, dialogs seen)."""
    page = browser.new_context(**PHONE).new_page()
    dialogs = no_dialogs(page)
    if views is not None:
        page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: views.append(frame)
                                              if isinstance(frame, str) and frame.startswith('42["view"') else None))
    page.goto(url + "/")
    page.get_by_label("Table code").fill(code.lower())
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Join").click()
    page.get_by_text("Waiting for players").wait_for()
    return page, dialogs


def start_server(tmp, **env):
    """The real server (tests/live.py) with one facilitator, shared by a module's browser tests."""
    from live import LiveServer

    srv = LiveServer(tmp, **env)
    srv.add_facilitator("teacher", FACILITATOR_PASSWORD)
    srv.start()
    return srv


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = start_server(tmp_path_factory.mktemp("browser"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def pseudo_server(tmp_path_factory):
    """The real server that also speaks the pseudo-locale (app/i18n/pseudo.py): every text
    accented, about a third longer and bracketed, so a layout walk in it finds what a longer
    language would cut. `pseudo_root` is its catalogs' folder (for the test's own look-ups:
    `server_speaking`)."""
    from app.i18n import pseudo

    root = tmp_path_factory.mktemp("pseudo-locale")
    pseudo.write(root)
    srv = start_server(tmp_path_factory.mktemp("pseudo-browser"), EXTRA_TRANSLATIONS=str(root))
    srv.pseudo_root = root
    yield srv
    srv.stop()


@contextlib.contextmanager
def server_speaking(request, lang):
    """The module's server, or the pseudo-locale's for `lang` "eo" (with this process's
    app.i18n reading its catalogs too, for labels the test looks up in the page's language)."""
    from app import i18n

    if lang != "eo":
        yield request.getfixturevalue("server")
        return
    srv = request.getfixturevalue("pseudo_server")
    i18n.set_extra_roots([srv.pseudo_root])
    try:
        yield srv
    finally:
        i18n.set_extra_roots([])


@pytest.fixture(scope="module")
def generic_server(tmp_path_factory):
    """The real server told about Dice Race, the test-only game with no UI module of its own."""
    srv = start_server(tmp_path_factory.mktemp("generic"), GAME_MODULES="testgames.dicerace",
                       PYTHONPATH=str(Path(__file__).resolve().parent))
    yield srv
    srv.stop()


def new_game_form(page, url, game, mode="table", more=False):
    """The teacher's short form for a new game (the dashboard's game card leads to it):
    `mode` is the choice table | class | device; logs in on the way if asked to; `more`
    opens the form's More options, where every option of the game is. Returns the form."""
    page.goto(f"{url}/facilitator/new/{game}" + ("" if mode == "table" else f"?as={mode}"))
    if page.get_by_label("Password").count():
        page.get_by_label("Name").fill("teacher")
        page.get_by_label("Password").fill(FACILITATOR_PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"**/facilitator/new/{game}*")
    form = page.locator(f'form.mode-form[data-mode="{mode}"]')
    form.wait_for()
    if more:
        form.locator("details.more-options > summary").click()
    return form
