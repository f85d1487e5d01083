"""Layout on the projector and on phones (issue 7): the board fits one screen
with no scrolling and text readable from the back of the room; a phone shows
the outcome of the last move and the next action without scrolling."""
from __future__ import annotations

import re

import pytest
import requests

from browser import (FACILITATOR_PASSWORD, PHONE, browser, generic_server, join_on_phone,  # noqa: F401
                     server, settle, shot)  # (fixtures)
from app.engines.contract import join_names, strip_label
from live import LivePhone, end_table, play_live

pytestmark = pytest.mark.browser

BOARDS = [(1920, 1080, 32), (1280, 720, 21)]
PHONES = [(360, 740), (390, 844)]

# Every element whose box sticks out of the viewport or of an ancestor that clips it.
OVERFLOW = """() => {
    const bad = [];
    const vw = document.documentElement.clientWidth;
    for (const el of document.querySelectorAll('body *')) {
        if (el.closest('.visually-hidden, .skip-link, [hidden]')) continue;
        const r = el.getBoundingClientRect();
        if (!r.width && !r.height) continue;
        if (r.right > vw + 1 || r.left < -1) bad.push(el.tagName + '.' + el.className + ' ' + r.left + '..' + r.right);
        const style = getComputedStyle(el);  // an ellipsis is a deliberate cut
        if (el.scrollWidth > el.clientWidth + 1 && style.overflowX !== 'visible' && style.textOverflow !== 'ellipsis'
            && el.clientWidth > 0) bad.push('scrolls: ' + el.tagName + '.' + el.className);
    }
    return bad.slice(0, 5);
}"""

FONT = "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))"

# A page-script function for the layout tests that look for cut text (the board's,
# tests/test_board_layout.py, and the phone's, tests/test_phone_layout.py): the nearest
# ancestor of `el` that clips (its overflow is not visible) and cuts the rectangle `r`
# (a line of el's text), or null. Put it inside a script's body: `() => {${CLIPPED_BY} ...}`.
CLIPPED_BY = r"""
  const clippedBy = (el, r) => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const box = a.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) return a;
    }
    return null;
  };
"""


def errors_of(page):
    seen = []
    # A failed request is reported by its response (the browser's own /favicon.ico probe aside).
    page.on("console", lambda msg: seen.append(msg.text)
            if msg.type == "error" and not msg.text.startswith("Failed to load resource") else None)
    page.on("response", lambda r: seen.append(f"{r.status} {r.url}")
            if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)
    page.on("pageerror", lambda exc: seen.append(str(exc)))
    return seen


def open_boards(browser, url, code):  # noqa: F811
    boards = []
    for width, height, minimum in BOARDS:
        # The 720p projector asks for reduced motion: nothing may move there.
        motion = "reduce" if height == 720 else "no-preference"
        page = browser.new_context(viewport={"width": width, "height": height}, reduced_motion=motion).new_page()
        errors = errors_of(page)
        page.goto(f"{url}/board/{code}")
        boards.append((page, errors, width, height, minimum))
    return boards


# How far a crowded board region's type may step down rather than cut its text (kit.js
# FIT_FLOOR: 24 px at 1920x1080, 16 px at 1280x720, still read from the back row).
FIT_FLOOR = 0.72

# The texts a room reads on a table's board: the game and the banner (not the join corner, nor the site's header).
TABLE_TEXTS = "#game-root *, #banner"


def check_board(page, width, height, minimum, stage, selectors, texts=TABLE_TEXTS):
    settle(page)  # animations have ended
    shot(page, f"layout-board-{stage}-{width}x{height}")
    scroll = page.evaluate("() => [document.documentElement.scrollHeight, innerHeight]")
    assert scroll[0] <= scroll[1], f"{stage} {width}x{height}: the board scrolls ({scroll})"
    assert page.evaluate(OVERFLOW) == [], f"{stage} {width}x{height}: something overflows"
    small = page.evaluate("""([minimum, texts]) => {
        const found = [];
        for (const el of document.querySelectorAll(texts)) {
            if (el.closest('.visually-hidden, [hidden]')) continue;
            const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
            if (!own || !el.getClientRects().length) continue;
            const size = parseFloat(getComputedStyle(el).fontSize);
            if (size < minimum) found.push(el.tagName + '.' + el.className + ' ' + size + ' ' + el.textContent.slice(0, 20));
        }
        return found.slice(0, 5);
    }""", [minimum, texts])
    assert small == [], f"{stage} {width}x{height}: small text {small}"
    sizes = {}
    for selector in selectors:
        found = page.locator(selector)
        assert found.count(), f"{stage}: no {selector}"
        sizes[selector] = min(found.evaluate_all(FONT))
        assert sizes[selector] >= minimum, f"{stage} {width}x{height}: {selector} is {sizes[selector]} px"
    return sizes


def check_phone(page, width, height, stage, selectors):
    settle(page)   # measured at rest, not mid-redraw (the screenshots before it used to give it time)
    shot(page, f"layout-phone-{stage}-{width}x{height}")
    shot(page, f"layout-phone-{stage}-{width}x{height}-screen", screen=True)  # what the student sees
    for selector in selectors:
        page.locator(selector).first.wait_for(state="visible", timeout=10_000)
        box = page.locator(selector).first.bounding_box()
        assert box, f"{stage}: {selector} is not shown"
        assert box["y"] >= 0 and box["y"] + box["height"] <= height + 1, f"{stage} {width}x{height}: {selector} {box}"
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, f"{stage} {width}x{height}: {selector} {box}"
    assert page.evaluate(OVERFLOW) == [], f"{stage} {width}x{height}: something overflows"


def in_thumb_reach(page, selector, width, height):
    """The phone's primary action: wholly on screen, in the bottom 40% where a thumb reaches."""
    box = page.locator(selector).first.bounding_box()
    assert box, f"{selector} is not shown"
    assert height * 0.6 <= box["y"] and box["y"] + box["height"] <= height + 1, f"{width}x{height}: {selector} {box}"
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, f"{width}x{height}: {selector} {box}"


def check_end_phone(page, width, height, stage, names, result, you):
    """A phone after the game: the winner celebrated (an SVG trophy, no emoji), the
    full ranking, and what comes next (issue 21: Play again, Join another game) and
    nothing else to tap, all on one screen."""
    page.locator(".end-screen h2").wait_for()
    page.wait_for_timeout(1300)  # the trophy's entrance settles
    check_phone(page, width, height, stage, [".end-screen h2", ".end-screen .ranking"])
    assert page.evaluate("() => document.documentElement.scrollHeight") <= height, f"{stage} {width}x{height} scrolls"
    assert page.locator(".end-screen img.trophy").get_attribute("src").endswith("/static/icons/trophy.svg")
    assert page.locator("#game-root button, #game-root input").all_inner_texts() == ["Play again",
                                                                                     "Join another game"]
    winners = result["winners"]
    heading = page.locator(".end-screen h2").inner_text()
    if winners == [you]:
        assert heading == "You won!"
    elif len(winners) == 1:
        assert heading == f"{names[winners[0]]} won!"
    elif you in winners:   # names joined as the game's own log joins them: "Ana, Ben and Cara"
        assert heading == f"You share the win with {join_names([names[s] for s in winners if s != you])}!"
    else:
        assert heading == f"{join_names([names[s] for s in winners])} share the win!"
    rows = page.locator(".end-screen .ranking li").all_inner_texts()
    assert len(rows) == len(result["ranking"])
    for row, seat in zip(rows, result["ranking"]):
        place, name, score = row.split("\n")
        assert re.fullmatch(r"\d\.", place) and name.startswith(names[seat]) and score.strip(), row
    assert page.locator(".end-screen .ranking li.mine").inner_text().split("\n")[1] == f"{names[you]} (you)"


def test_board_and_phones_fit_their_screens(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token)
    boards = open_boards(browser, server.url, code)

    # Two real phones (the sizes of the issue), four scripted ones: six players.
    phones = []
    for (width, height), name in zip(PHONES, ["Ana", "Ben"]):
        page, _ = join_on_phone(browser, server.url, code, name)
        page.set_viewport_size({"width": width, "height": height})
        if name == "Ben":
            page.emulate_media(reduced_motion="reduce")
        phones.append((page, errors_of(page), width, height))
    bots = [LivePhone(server.url) for _ in range(4)]
    for bot, name in zip(bots, ["Cy", "Dana-Maria", "Ed", "Flo"]):
        bot.join(code, name)
    for page, *_ in boards:
        page.get_by_text("Players joined: 6 of 6").wait_for()
        assert page.locator(".lobby-next").inner_text() == "Ana taps “Deal cards & start” on their phone."
    sizes = {}
    for page, _errors, width, height, minimum in boards:
        sizes[("lobby", width)] = check_board(page, width, height, minimum, "lobby",
                                              [".player-name", ".lobby h2", ".lobby-next", ".table-code"])
    for index, (page, _errors, width, height) in enumerate(phones):
        page.get_by_text(f"War · table {code}").wait_for()
        check_phone(page, width, height, "lobby", [".lobby-game"] + (["button:has-text('Deal cards & start')"] if index == 0 else []))

    # Locked: no one else can join, so the join code and QR go away.
    teacher = LivePhone(server.url, auth={"token": token})
    teacher.call("watch", {"code": code, "role": "facilitator"})
    view = teacher.wait_for(lambda v: v["code"] == code and len(v["players"]) == 6)
    assert teacher.call("moderate", {"code": code, "version": view["version"], "action": {"type": "lock"}})["ok"]
    for page, _errors, width, height, minimum in boards:
        page.get_by_text("The table is locked").wait_for()
        assert page.locator(".join-strip").is_hidden()
        check_board(page, width, height, minimum, "lobby-locked", [".player-name", ".lobby-next"])

    phones[0][0].get_by_role("button", name="Deal cards & start").click()
    for page, *_ in phones:
        page.locator(".deck-button").wait_for()
        page.locator(".war-auto button").first.wait_for()
        assert page.locator(".keys-hint").count() == 1 and page.locator(".keys-hint").is_hidden()  # no keyboard

    # Play (scripted phones and real phones alike) until a war is on the table.
    for bot in bots:
        bot.wait_for(lambda v: v["status"] == "playing")
    view = teacher.wait_for(lambda v: v["status"] == "playing")
    assert teacher.call("moderate", {"code": code, "version": view["version"], "action": {"type": "unlock"}})["ok"]
    for page, *_ in boards:
        page.locator(".join-strip").wait_for()  # open again: in its corner now

    def war_on(view):
        pub = view["view"]["public"]
        return pub["stage"] != "battle" and pub["showing"] and pub["last"]
    for _ in range(40):
        for page, *_ in phones:
            deck = page.locator(".deck-button:not([disabled])")
            if deck.count():
                try:
                    deck.click(timeout=1000)
                except Exception:  # noqa: BLE001  (replaced under the finger)
                    pass
        play_live(bots, until=lambda v: war_on(v) or not any(b.can("reveal") for b in bots), limit=200)
        if war_on(bots[0].view):
            break
    for page, _errors, width, height, minimum in boards:
        page.locator(".last-battle").wait_for()
        sizes[("playing", width)] = check_board(page, width, height, minimum, "playing",
                                                [".war-seat h3", ".war-seat .stat", ".status-line"])
    moving = "() => document.getAnimations().length"
    assert boards[1][0].evaluate(moving) == 0  # reduced motion: no animation at all
    for page, _errors, width, height in phones:
        page.locator(".last-battle").wait_for()
        still_in = page.locator(".war-auto button").count() > 0  # (a player may be out already)
        check_phone(page, width, height, "playing", [".last-battle", ".deck-button"] + ([".war-auto button"] if still_in else []))
        in_thumb_reach(page, ".deck-button", width, height)

    # The teacher pauses: the banner stays in view however far the phone has
    # scrolled, and a refused tap is never silent (the error shows by the control).
    view = teacher.wait_for(lambda v: v["status"] == "playing")
    assert teacher.call("moderate", {"code": code, "version": view["version"], "action": {"type": "pause"}})["ok"]
    for page, _errors, width, height in phones:
        page.get_by_text("The teacher has paused the game.").wait_for()
        page.mouse.wheel(0, 3000)
        page.wait_for_timeout(200)
        assert page.evaluate("() => scrollY") > 0
        check_phone(page, width, height, "paused", ["#banner"])
        # A tap that reaches the server just after the pause (the page's own act()).
        page.evaluate("() => import('/static/js/play.js').then((m) => m.act({type: 'reveal'}))")
        error = page.locator(".war-controls .act-error")
        error.filter(has_text="paused").wait_for()
        page.evaluate("() => scrollTo(0, 0)")
        check_phone(page, width, height, "refused", [".war-controls .act-error", ".deck-button"])
        in_thumb_reach(page, ".deck-button", width, height)
    view = teacher.wait_for(lambda v: v["paused"])
    assert teacher.call("moderate", {"code": code, "version": view["version"], "action": {"type": "resume"}})["ok"]

    # The teacher ends the game.
    view = teacher.wait_for(lambda v: not v["paused"])
    ack = teacher.call("moderate", {"code": code, "version": view["version"], "action": {"type": "end"}})
    assert ack["ok"], ack
    for page, _errors, width, height, minimum in boards:
        page.locator(".result h2").wait_for()
        sizes[("ended", width)] = check_board(page, width, height, minimum, "ended", [".result h2", ".result li"])
        assert page.locator(".join-strip").is_hidden()
        assert re.fullmatch(r".+ (won!|share the win!)", page.locator(".result h2").inner_text())
    assert boards[1][0].evaluate(moving) == 0
    final = teacher.wait_for(lambda v: v["status"] == "ended" and v["result"])
    names = {p["seat"]: p["name"] for p in final["players"]}
    seat_of = {name: seat for seat, name in names.items()}
    for (page, _errors, width, height), name in zip(phones, ["Ana", "Ben"]):
        check_end_phone(page, width, height, "ended", names, final["result"], seat_of[name])
    assert phones[1][0].evaluate(moving) == 0  # this phone asks for reduced motion: the trophy stands still

    print("font sizes", sizes)
    for page, errors, *_ in boards + phones:
        assert errors == [], errors
    for bot in bots + [teacher]:
        bot.close()


def act_any(bots):
    """Each scripted phone takes its first listed action, if it has one."""
    for bot in bots:
        if bot.view and bot.view["status"] == "playing" and bot.view["actions"]:
            bot.call("act", {"version": bot.view["version"], "action": strip_label(bot.view["actions"][0])})


def test_a_game_without_its_own_ui_fits_the_board_and_the_thumb(generic_server, browser):  # noqa: F811
    """Dice Race has no board or phone module: the generic view must fit the projector
    as War does, and its first action sit under the phone's thumb."""
    server = generic_server
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token, game="dicerace")
    boards = open_boards(browser, server.url, code)
    phones = []
    for (width, height), name in zip(PHONES, ["Ana", "Ben"]):
        page, _ = join_on_phone(browser, server.url, code, name)
        page.set_viewport_size({"width": width, "height": height})
        phones.append((page, errors_of(page), width, height))
    bots = [LivePhone(server.url) for _ in range(2)]
    for bot, name in zip(bots, ["Dana-Maria", "Ed"]):
        bot.join(code, name)
    phones[0][0].get_by_role("button", name="Start the race").click()

    sizes = {}
    for page, _errors, width, height, minimum in boards:
        page.locator(".generic-game .prompt").wait_for()
        sizes[("generic", width)] = check_board(page, width, height, minimum, "generic-playing",
                                                [".prompt", ".player-name", ".log-list li"])
    # Each phone, once it has an action: the first one in thumb reach. Then play it.
    reached = set()
    for _ in range(100):
        for page, _errors, width, height in phones:
            buttons = page.locator(".generic-actions button")
            if not buttons.count():
                continue
            if width not in reached:
                check_phone(page, width, height, "generic-playing", [".prompt", ".generic-actions button"])
                in_thumb_reach(page, ".generic-actions button", width, height)
                reached.add(width)
            try:
                buttons.first.click(timeout=1000)
            except Exception:  # noqa: BLE001  (replaced under the finger)
                pass
        if len(reached) == len(phones):
            break
        act_any(bots)
        phones[0][0].wait_for_timeout(100)
    assert len(reached) == len(phones), reached

    final = end_table(server.url, token, code)
    for page, _errors, width, height, minimum in boards:
        page.locator(".end-screen h2").wait_for()
        sizes[("generic-ended", width)] = check_board(page, width, height, minimum, "generic-ended",
                                                      [".end-screen h2", ".ranking li"])
    names = {p["seat"]: p["name"] for p in final["players"]}
    for (page, _errors, width, height), you in zip(phones, [0, 1]):
        check_end_phone(page, width, height, "generic-ended", names, final["result"], you)
    print("font sizes", sizes)
    for page, errors, *_ in boards + phones:
        assert errors == [], errors
    for bot in bots:
        bot.close()


# 32 students, names long and short, seated at eight tables of four.
STUDENTS = ["Ana", "Ben", "Cy", "Dana-Maria", "Ed", "Flo", "Gustavo", "Hana", "Ivo", "Jules", "Kemal", "Lea",
            "Maximilian", "Noor", "Oskar", "Pia", "Quentin", "Rosa", "Sven", "Tala", "Umar", "Vera", "Wen", "Xavier",
            "Yusuf", "Zoe", "Alexandra", "Bo", "Chiara", "Dev", "Esperanza", "Finn"]
# What the room reads on the class board: everything but the join corner and the site's header.
CLASS_TEXTS = "#app > :not(.class-board-head), #app > :not(.class-board-head) *, .class-board-heading *"


def test_the_class_board_fits_eight_tables_of_four(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    headers = {"Authorization": f"Bearer {token}"}
    made = requests.post(f"{server.url}/api/classes", json={"game": "war", "options": {}, "table_size": 4},
                         headers=headers, timeout=10)
    assert made.status_code == 201, made.text
    klass = made.json()["code"]
    boards = open_boards(browser, server.url, klass)
    students = [LivePhone(server.url) for _ in STUDENTS]
    for student, name in zip(students, STUDENTS):
        student.join(klass, name)

    sizes = {}
    for page, _errors, width, height, minimum in boards:
        page.get_by_text("32 students at 8 tables").wait_for()
        sizes[("class-lobby", width)] = check_board(
            page, width, height, minimum, "class-lobby",
            [".class-board-title", ".class-table-head h2", ".player-name", ".status-badge"], CLASS_TEXTS)
    started = requests.post(f"{server.url}/api/classes/{klass}/start", headers=headers, timeout=10)
    assert started.status_code == 200, started.text
    for page, _errors, width, height, minimum in boards:
        page.locator(".class-table.table-playing").nth(7).wait_for()
        sizes[("class-playing", width)] = check_board(
            page, width, height, minimum, "class-playing",
            [".class-table-head h2", ".player-name", ".status-badge", ".turn-line"], CLASS_TEXTS)

    ended = requests.post(f"{server.url}/api/classes/{klass}/end", headers=headers, timeout=10)
    assert ended.status_code == 200, ended.text
    for page, _errors, width, height, minimum in boards:
        page.locator("#closed-banner").wait_for()
        page.locator(".class-table.table-ended").nth(7).wait_for()
        sizes[("class-ended", width)] = check_board(
            page, width, height, minimum, "class-ended",
            [".closed-banner h2", ".closed-banner p", ".result-line", ".board-leaders .player-name"], CLASS_TEXTS)
    print("font sizes", sizes)
    for page, errors, *_ in boards:
        assert errors == [], errors
    for student in students:
        student.close()
