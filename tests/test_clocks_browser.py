"""Every clock is visible (issue 21): a game's deadline counts down on the
board, the phones and the teacher's page, from the last view (countdown.js);
the lesson clock (issue 20) in every page's header, the class's on its pages.
Water Cycle's Crisis vote says "Vote closes in 0:42" on the board, on the
voting phones and on the teacher's moderation panel; a timed War match shows its
clock on the board and the phones. The last seconds are highlighted."""
from __future__ import annotations

import re

import pytest
import requests

from browser import (ARTIFACTS, FACILITATOR_PASSWORD, browser, join_on_phone, server, shot,  # noqa: F401  (fixtures)
                     start_server)
from games.water_cycle.test_water_cycle_browser import play_until_crisis, teacher_page

pytestmark = pytest.mark.browser

VOTE_CLOCK = re.compile(r"^Vote closes in [01]:\d\d$")
# The seconds a clock shows ("… 1:30" -> 90).
SECONDS = """sel => {
    const m = document.querySelector(sel).textContent.match(/(\\d+):(\\d\\d)/);
    return Number(m[1]) * 60 + Number(m[2]);
}"""


def create_table(server, token, game, **options):
    response = requests.post(server.url + "/api/tables", json={"game": game, "options": options},
                             headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()["code"]


def open_board(browser, url, code):  # noqa: F811
    page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    page.goto(f"{url}/board/{code}")
    return page


def counts_down(page, selector):
    """The clock under `selector` shows a time, then a smaller one, with no new view."""
    first = page.evaluate(SECONDS, selector)
    page.wait_for_function(f"first => ({SECONDS})({selector!r}) < first", arg=first)


def test_the_crisis_vote_counts_down_on_the_board_the_phones_and_the_teacher_page(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = create_table(server, token, "water_cycle", votes="confirm", vote_seconds=90)
    board = open_board(browser, server.url, code)
    fac, _errors = teacher_page(server, browser, code)
    phones = [(join_on_phone(browser, server.url, code, name)[0],) for name in ("Ana", "Ben", "Cara")]
    board.get_by_text("Players joined: 3 of 4").wait_for()
    phones[0][0].get_by_role("button", name="Deal cards & start").click()
    for (page,) in phones:
        page.locator(".wcc-cycle-row").wait_for()

    owner = play_until_crisis(phones, board)
    # While the player picks and explains, no clock runs: none is shown.
    board.locator(".wcc-crisis .wcc-waiting").wait_for()
    assert board.locator(".countdown").count() == 0
    owner.locator(".wcc-card-btn", has_text=re.compile(r"^Use$")).first.click()
    owner.locator(".wcc-picked").first.wait_for()
    owner.locator("#wcc-explanation").fill("Collection stores the rain so the town still has water to drink.")
    owner.get_by_role("button", name="Send explanation").click()

    voter = next(page for (page,) in phones if page is not owner)
    voter.locator(".wcc-vote.down").wait_for()
    for page in (board, voter, owner, fac):
        clock = page.locator(".wcc-clock")
        clock.wait_for()
        assert clock.get_attribute("role") == "timer"
        assert VOTE_CLOCK.match(clock.inner_text()), clock.inner_text()
        assert page.evaluate(SECONDS, ".wcc-clock") <= 90
    # The voter sees it beside the thumbs; every screen shows one clock, counting down by itself.
    assert voter.locator(".wcc-thumb .wcc-clock").count() == 1
    for page in (board, voter, fac):
        assert page.locator(".countdown").count() == 1
        counts_down(page, ".wcc-clock")
    shot(board, "clocks-wcc-vote-board-1920x1080")
    voter.locator(".wcc-thumb").scroll_into_view_if_needed()
    voter.screenshot(path=str(ARTIFACTS / "clocks-wcc-vote-phone-360x740.png"))   # what the voter sees
    shot(fac, "clocks-wcc-vote-teacher")

    # Once every player has voted the vote is closed: its clock goes from every screen.
    for page in [p for (p,) in phones if p is not owner]:
        page.locator(".wcc-vote.down").click()
    for page in (board, voter, fac):
        page.locator(".wcc-tally .wcc-review").wait_for()
        assert page.locator(".countdown").count() == 0
    for page in [board, fac] + [p for (p,) in phones]:
        page.context.close()


def test_the_last_ten_seconds_are_highlighted(server, browser):  # noqa: F811
    """countdown.js itself, on a page that serves it: a deadline 5 s away is
    highlighted, one 5 minutes away is not, and a paused one says so."""
    page = browser.new_context(viewport={"width": 360, "height": 740}).new_page()
    page.goto(server.url + "/")
    drawn = page.evaluate("""async () => {
        const { countdown } = await import('/static/js/countdown.js');
        const now = Date.now() / 1000;
        const payload = { deadlines: { near: { due: now + 5 }, far: { due: now + 300 }, held: { left: 42 } } };
        const opts = { label: "Vote closes in", name: "Time left to vote" };
        const draw = (key) => { const el = countdown(payload, key, opts); document.body.append(el);
                                return [el.textContent, el.classList.contains("soon")]; };
        return { near: draw("near"), far: draw("far"), held: draw("held"), none: countdown(payload, "gone", opts) };
    }""")
    assert drawn["near"] == ["Vote closes in 0:05", True]
    assert drawn["far"] == ["Vote closes in 5:00", False]
    assert drawn["held"] == ["Vote closes in 0:42 (paused)", False]
    assert drawn["none"] is None
    page.locator(".countdown.soon").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "clocks-soon-360x740.png"))
    page.context.close()


def test_a_timed_war_match_shows_its_clock_on_the_board_and_the_phones(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = create_table(server, token, "war", length="3_minutes")
    board = open_board(browser, server.url, code)
    phones = [join_on_phone(browser, server.url, code, name)[0] for name in ("Ana", "Ben")]
    phones[0].get_by_role("button", name="Deal cards & start").click()
    for page in [board] + phones:
        clock = page.locator(".war-clock.countdown")
        clock.wait_for()
        assert re.fullmatch(r"Time left [0-3]:\d\d", clock.inner_text()), clock.inner_text()
        counts_down(page, ".war-clock")
    shot(board, "clocks-war-board-1920x1080")
    shot(phones[1], "clocks-war-phone-360x740")
    for page in [board] + phones:
        page.context.close()


# A lesson minute of 1.5 s (the LESSON_MINUTE setting): a 15-minute lesson runs out in 22.5 s.
LESSON_CLOCK = re.compile(r"^Lesson ends in \d+:\d\d$")


@pytest.fixture(scope="module")
def short_lessons(tmp_path_factory):
    srv = start_server(tmp_path_factory.mktemp("lessons"), LESSON_MINUTE="1.5")
    yield srv
    srv.stop()


def test_the_lesson_clock_counts_down_everywhere_and_ends_the_game(short_lessons, browser):  # noqa: F811
    """A War table made with a 15-minute lesson: from the deal its clock counts down in the
    header of the board, the phones and the teacher's page; the teacher's +5 min reaches
    every screen; when it runs out the game ends with a winner on every screen."""
    server = short_lessons
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token, "war", lesson_minutes=15)
    board = open_board(browser, server.url, code)
    fac, _errors = teacher_page(server, browser, code)
    phones = [join_on_phone(browser, server.url, code, name)[0] for name in ("Ana", "Ben")]
    board.get_by_text("Players joined: 2 of").wait_for()
    assert board.locator("#lesson-clock .countdown").count() == 0  # not before the deal
    phones[0].get_by_role("button", name="Deal cards & start").click()
    pages = [board, fac] + phones
    for page in pages:
        clock = page.locator("#lesson-clock .countdown")
        clock.wait_for()
        assert clock.get_attribute("role") == "timer"
        assert LESSON_CLOCK.match(clock.inner_text()), clock.inner_text()
        assert page.locator(".site-header #lesson-clock").is_visible()  # one element, in the header chrome
    counts_down(board, "#lesson-clock .countdown")
    shot(board, "clocks-lesson-board-1920x1080")
    board.set_viewport_size({"width": 1280, "height": 720})
    board.wait_for_function("() => innerWidth === 1280")
    board.locator("#lesson-clock .countdown").wait_for()
    shot(board, "clocks-lesson-board-1280x720")
    phones[1].screenshot(path=str(ARTIFACTS / "clocks-lesson-phone-360x740.png"))
    shot(fac, "clocks-lesson-teacher")
    # The teacher's +5 min: every screen's clock jumps up (5 lesson minutes: 7.5 s here).
    shown = {id(page): page.evaluate(SECONDS, "#lesson-clock .countdown") for page in pages}
    fac.get_by_role("button", name="+5 min on the lesson clock").click()
    for page in pages:
        page.wait_for_function(f"before => ({SECONDS})('#lesson-clock .countdown') > before + 3",
                               arg=shown[id(page)])
    # It runs out: the game ends with a winner everywhere, and the clock goes.
    for page in [board] + phones:
        page.locator(".end-screen").wait_for(timeout=90_000)
        assert page.locator("#lesson-clock .countdown").count() == 0
    for page in [board] + phones:  # and says why
        assert page.locator("#banner").inner_text() == "This game has ended. The lesson clock ran out."
    fac.get_by_text("The lesson clock ran out.").first.wait_for()
    assert re.search(r"won!|share the win!", board.locator(".end-screen h2").inner_text())
    shot(board, "clocks-lesson-ended-board-1920x1080")
    for page in pages:
        page.context.close()


def test_the_class_clock_shows_on_the_overview_and_the_class_board(short_lessons, browser):  # noqa: F811
    """A class with a 20-minute lesson: once the class starts, the overview and the class
    board count down to the class's clock, and the overview's +5 min moves it."""
    server = short_lessons
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    made = requests.post(server.url + "/api/classes", json={"game": "war", "table_size": 2, "lesson_minutes": 20},
                         headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    phones = [join_on_phone(browser, server.url, code, name)[0] for name in ("Ana", "Ben")]
    fac, _errors = teacher_page(server, browser, code)
    fac.goto(f"{server.url}/facilitator/classes/{code}")
    classboard = open_board(browser, server.url, code)
    fac.get_by_role("button", name="Balance and start every waiting table").click()
    for page in [fac, classboard] + phones:
        clock = page.locator("#lesson-clock .countdown")
        clock.wait_for()
        assert LESSON_CLOCK.match(clock.inner_text()), clock.inner_text()
    shown = fac.evaluate(SECONDS, "#lesson-clock .countdown")
    fac.get_by_role("button", name="+5 min on the lesson clock").click()
    fac.wait_for_function(f"before => ({SECONDS})('#lesson-clock .countdown') > before + 3", arg=shown)
    shot(classboard, "clocks-lesson-classboard-1920x1080")
    shot(fac, "clocks-lesson-class-overview")
    for page in [fac, classboard] + phones:
        page.context.close()
