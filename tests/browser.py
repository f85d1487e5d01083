"""Playwright driving Debian's Chromium (never a downloaded browser).

Outside CI a machine without /usr/bin/chromium skips the browser tests; in CI
(CI=true) that is a failure, because scripts/test installs it.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-quic", "--no-first-run"]
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
FACILITATOR_PASSWORD = "browser-pass-1"
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def launch_browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CHROMIUM} is missing in CI: scripts/test should have installed Debian's chromium")
        pytest.skip(f"{CHROMIUM} is not installed (bash scripts/test installs it)")
    from playwright.sync_api import sync_playwright

    manager = sync_playwright().start()
    browser = manager.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
    return manager, browser


@pytest.fixture(scope="module")
def browser():
    manager, browser = launch_browser()
    yield browser
    browser.close()
    manager.stop()


def no_dialogs(page):
    """Any alert() means injected HTML ran: fail loudly."""
    fired = []
    page.on("dialog", lambda d: (fired.append(d.message), d.dismiss()))
    return fired


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


def shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def join_on_phone(browser, url, code, name):
    """A student on a 360-px phone: enter the code on the home page, then a name.
    Returns (page, dialogs seen)."""
    page = browser.new_context(**PHONE).new_page()
    dialogs = no_dialogs(page)
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
def generic_server(tmp_path_factory):
    """The real server told about Dice Race, the test-only game with no UI module of its own."""
    srv = start_server(tmp_path_factory.mktemp("generic"), GAME_MODULES="testgames.dicerace",
                       PYTHONPATH=str(Path(__file__).resolve().parent))
    yield srv
    srv.stop()
