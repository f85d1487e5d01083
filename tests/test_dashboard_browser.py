"""Issue 21 in Debian's Chromium: the dashboard at 1280×720 (what runs within the first
screen, at most three screens tall with four tables running, times in the browser's
zone), the game picker and its short form, the board's sound (off until turned on) and
the celebration of a win (none under reduced motion); issue 22's playtest report with
the default balance lab, made in the background while the dashboard shows how far it
has got. Screenshots in test-artifacts/."""
from __future__ import annotations

import re
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest
import requests

from app import engines

from browser import (FACILITATOR_PASSWORD, PHONE, browser, new_game_form, remember_text, seen_text,  # noqa: F401
                     server, shot, start_server)
from live import LivePhone, end_table, play_live
from test_accessibility import violations
from test_reports import flat, text_of

pytestmark = pytest.mark.browser
DESKTOP = {"viewport": {"width": 1280, "height": 720}}
ZONE = "Asia/Tokyo"   # far from the server's UTC: a time in the wrong zone cannot pass

# Counts the tones the page plays: every note is an oscillator started on an AudioContext.
COUNT_TONES = """
window.__tones = 0;
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) { window.__tones += 1; return start.apply(this, args); };
"""


def log_in(page, url, name="teacher"):
    page.goto(url + "/facilitator/login")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill(FACILITATOR_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/facilitator/$"))


def test_the_dashboard_shows_what_runs_in_the_first_screen_in_the_teachers_time(server, browser):  # noqa: F811
    # A teacher of its own: what the module's other tests left running on the shared server
    # (in whatever order they ran) is not on this dashboard.
    server.add_facilitator("first-screen", FACILITATOR_PASSWORD)
    token = server.api_token("first-screen", FACILITATOR_PASSWORD)
    codes = [server.create_table(token, game) for game in ("war", "storm_war", "wizard", "water_cycle")]
    klass = requests.post(server.url + "/api/classes", json={"game": "war", "table_size": 2},
                          headers={"Authorization": f"Bearer {token}"}, timeout=10).json()["code"]
    context = browser.new_context(**DESKTOP, timezone_id=ZONE, bypass_csp=True)   # bypass_csp: for axe
    page = context.new_page()
    log_in(page, server.url, "first-screen")
    assert {c["name"]: c["value"] for c in context.cookies()}["cg_tz"] == ZONE   # the browser told the server
    page.reload()

    # What is running, with its code and its board, is in the first screen.
    page.get_by_role("heading", name="Running now").wait_for()
    for code in [klass] + codes:
        item = page.locator(".running-item", has_text=code)
        board = item.get_by_role("link", name=re.compile(r"^Open board"))
        assert board.get_attribute("href") == f"/board/{code}" and board.get_attribute("target") == "_blank"
    first = page.locator(".running-item").first.bounding_box()
    assert first["y"] + first["height"] <= 720
    last_board = page.locator(".running-item").last.get_by_role("link", name=re.compile("^Open board")).bounding_box()
    assert last_board["y"] + last_board["height"] <= 720, "every running board is one click from the first screen"
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height <= 3 * 720, height
    # Friendly names, the time in the teacher's zone.
    text = page.inner_text("main")
    assert "storm_war" not in text and "water_cycle" not in text and "Water Cycle Challenge" in text
    now = datetime.now(timezone.utc).astimezone(ZoneInfo(ZONE))
    stamps = page.locator(".running-item time").all_inner_texts()
    assert stamps and all(re.search(r"\d\d:\d\d", s) for s in stamps) and not any("UTC" in s for s in stamps)
    shown = [int(re.search(r"(\d\d):\d\d", s).group(1)) for s in stamps]
    assert now.hour in shown or (now.hour - 1) % 24 in shown, (stamps, now)   # created a moment ago, in Tokyo
    assert f"Times are shown in {ZONE}" in text
    shot(page, "dashboard-1280x720")
    assert violations(page) == []

    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360   # nothing runs off the side
    shot(page, "dashboard-360x740")
    page.set_viewport_size({"width": 1280, "height": 720})

    # A game card leads to the game's one short form; the choice shows one way to play at a time.
    page.get_by_role("link", name="War", exact=True).click()
    page.wait_for_url(re.compile(r"/facilitator/new/war$"))
    table_form = page.locator('form.mode-form[data-mode="table"]')
    class_form = page.locator('form.mode-form[data-mode="class"]')
    assert table_form.is_visible() and class_form.is_hidden()
    assert table_form.get_by_label("Match length").is_hidden()          # under More options until opened
    table_form.get_by_text("More options").click()
    assert table_form.get_by_label("Match length").is_visible()
    page.get_by_role("radio", name=re.compile("A whole class")).check()
    assert class_form.is_visible() and table_form.is_hidden()
    shot(page, "new-game-war-class-1280x720")
    assert violations(page) == []
    class_form.get_by_role("button", name="Create a War class session").click()
    page.wait_for_url(re.compile(r"/facilitator/classes/[A-Z0-9]{6}$"))
    context.close()


def _won_war(server):
    """A War table two phones have played until one of them leads: (code, phones, token)."""
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token)
    phones = [LivePhone(server.url) for _ in range(2)]
    for phone, name in zip(phones, ["Ana", "Ben"]):
        phone.join(code, name)
    phones[0].wait_for(lambda v: len(v["players"]) == 2 and v["actions"])
    return code, phones, token


def _leads(view):
    cards = [p["cards"] for p in view["view"]["public"]["players"]]
    return view["status"] == "playing" and len(set(cards)) > 1


def test_the_board_sounds_only_once_turned_on_and_every_screen_celebrates_the_winner(server, browser):  # noqa: F811
    code, phones, token = _won_war(server)
    context = browser.new_context(**DESKTOP)
    context.add_init_script(COUNT_TONES)
    board = context.new_page()
    board.goto(f"{server.url}/board/{code}")
    toggle = board.get_by_role("button", name=re.compile("^Sound"))
    assert toggle.get_attribute("aria-pressed") == "false" and toggle.inner_text() == "Sound off"   # off by default
    phones[0].call("act", {"version": phones[0].view["version"], "action": {"type": "start"}})
    board.locator("body.playing").wait_for()
    started = phones[0].wait_for(lambda v: v["status"] == "playing")["version"]
    play_live(phones, until=lambda v: v["version"] >= started + 2, limit=500)   # a first battle: silence
    board.get_by_text(re.compile(r"wins \d+ cards|War!")).first.wait_for()
    board.wait_for_timeout(500)
    assert board.evaluate("window.__tones") == 0

    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true" and toggle.inner_text() == "Sound on"
    board.reload()   # the choice is remembered on this computer
    toggle = board.get_by_role("button", name=re.compile("^Sound"))
    assert toggle.get_attribute("aria-pressed") == "true"
    board.locator("body.playing").wait_for()
    player = browser.new_context(**DESKTOP).new_page()   # the teacher's page of the table celebrates too
    log_in(player, server.url)
    player.goto(f"{server.url}/facilitator/tables/{code}")
    player.locator("#table-status").get_by_text(re.compile("[Pp]lay")).wait_for()
    calm = browser.new_context(**PHONE, reduced_motion="reduce").new_page()   # a second board, reduced motion
    calm.goto(f"{server.url}/board/{code}")
    calm.locator("body.playing").wait_for()
    # The browser only plays sound after a gesture on the page: the teacher's click on the toggle.
    board.get_by_role("button", name=re.compile("^Sound")).click()
    board.get_by_role("button", name=re.compile("^Sound")).click()
    assert board.get_by_role("button", name=re.compile("^Sound")).get_attribute("aria-pressed") == "true"
    before = board.evaluate("window.__tones")
    now = phones[0].view["version"]
    play_live(phones, until=lambda v: v["version"] >= now + 2 and _leads(v), limit=2000)
    board.wait_for_function("n => window.__tones > n", arg=before)   # the reveals and the won battle sound

    # Note a celebration however briefly it shows (it removes itself after 1.8 s).
    watch = "() => { window.__cheered = false; const o = new MutationObserver(() => {" \
            " const shown = Boolean(document.querySelector('canvas.celebration'));" \
            " if (shown && !window.__cheered) { window.__cheered = true; window.__cheerFrom = performance.now(); }" \
            " if (!shown && window.__cheered && !window.__cheerTo) window.__cheerTo = performance.now(); });" \
            " o.observe(document.body, {childList: true}); }"
    for page in (board, player, calm):
        page.evaluate(watch)
    tones = board.evaluate("window.__tones")
    final = end_table(server.url, token, code)
    assert final["result"]["winners"], final["result"]
    board.wait_for_function("() => window.__cheered")
    shot(board, "board-winner-celebration-1280x720")
    player.wait_for_function("() => window.__cheered")
    calm.locator("body.ended").wait_for()
    calm.wait_for_timeout(500)
    assert calm.evaluate("window.__cheered") is False   # reduced motion: no confetti
    board.wait_for_function("n => window.__tones >= n + 4", arg=tones)   # the winner's four notes
    # The burst goes by itself after its 1.8 s (cheer.js), measured in the page's own time: a
    # busy machine may run its last frame late, but it does not keep the confetti up.
    board.wait_for_function("() => window.__cheerTo")
    shown_for = board.evaluate("window.__cheerTo - window.__cheerFrom")
    assert 1700 <= shown_for < 10_000, shown_for
    for phone in phones:
        phone.close()
    context.close()


# ------------------------------------------------------------------ the playtest report's balance lab
@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    """The real server, its dashboard's lab default made small (LAB_DEFAULT, as on a slow machine)."""
    srv = start_server(tmp_path_factory.mktemp("lab"), LAB_DEFAULT="3")
    yield srv
    srv.stop()


def test_the_playtest_report_with_the_default_lab_shows_its_progress_then_the_pdf(lab_server, browser):  # noqa: F811
    token = lab_server.api_token("teacher", FACILITATOR_PASSWORD)
    code = lab_server.create_table(token, "wizard")
    phones = [LivePhone(lab_server.url) for _ in range(2)]   # two players: a setting the lab can play
    for phone, name in zip(phones, ["Ana", "Ben"]):
        phone.join(code, name)
    for phone in phones:
        phone.close()
    context = browser.new_context(**DESKTOP, bypass_csp=True)   # bypass_csp: for axe
    page = context.new_page()
    log_in(page, lab_server.url)
    page.get_by_text("Playtest report for a game's authors").click()
    form = page.locator("form[data-playtest-jobs]")
    form.get_by_label("Game", exact=True).select_option(label="Wizard Duel")
    lab = form.get_by_label("Simulate N computer games per setting and level")
    assert lab.input_value() == "3"     # the default (200 unless the server says otherwise)
    download = form.get_by_role("button", name="Download the playtest report (PDF)")
    box = page.locator("#playtest-job")

    # The default lab: the page shows the job under way (its gauge, the time so far), then the PDF.
    remember_text(page, "so far")
    download.click()
    seen_text(page, "so far")
    ready = box.get_by_role("link", name="Download the finished report (PDF)")
    ready.wait_for(timeout=180_000)
    assert box.get_by_role("status").inner_text() == "Your playtest report is ready."
    shot(page, "dashboard-playtest-done-1280x720")
    assert violations(page) == []
    pdf = page.request.get(lab_server.url + ready.get_attribute("href"))
    assert pdf.ok and pdf.headers["content-type"] == "application/pdf"
    text = flat(text_of(pdf.body()))
    assert "balance lab: 3 games per level and setting" in text
    assert "Balance lab, computer players at level “novice”: 3 games" in text

    # A long lab: the games played and the percent, a Stop button that stops it.
    lab.fill("1000")
    remember_text(page, "Playing 1000 games per level and setting")
    download.click()
    seen_text(page, "Playing 1000 games per level and setting", timeout=120_000)
    games = 1000 * len(engines.spec("wizard").bot_levels)   # one setting (2 players), each level
    figures = re.compile(rf"^\d+ % · \d+ of {games} games played · \d+:\d\d so far")
    box.locator(".job-figures").get_by_text(figures).wait_for()
    assert box.locator("progress").get_attribute("max") == str(games)
    shot(page, "dashboard-playtest-running-1280x720")
    assert violations(page) == []
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    shot(page, "dashboard-playtest-running-360x740")
    page.set_viewport_size({"width": 1280, "height": 720})
    box.get_by_role("button", name="Stop").click()
    box.get_by_text("You stopped the report.").wait_for(timeout=120_000)

    # Started again, then the server restarts: the job is gone, and the page says so and offers to start again.
    box.get_by_role("button", name="Start it again").click()
    box.get_by_text(re.compile(rf"of {games} games played")).wait_for(timeout=120_000)
    lab_server.stop()
    lab_server.start()
    box.get_by_text("The server no longer has this report").wait_for(timeout=60_000)
    assert box.get_by_role("button", name="Start it again").is_visible()
    page.reload()   # said once: a reload does not ask about the lost job again
    page.get_by_text("Playtest report for a game's authors").wait_for()
    assert box.is_hidden()
    context.close()
