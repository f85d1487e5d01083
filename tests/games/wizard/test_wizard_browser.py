"""The Wizard duel in a real browser (issue 10, "Screens" and "Ways to play"):
a student on a 360×740 phone plays the computer wizard. The student clicks the
dice for initiative, draws from the stack, casts a spell with words of power,
clicks the dice and sees the result stay, and ends the turn; with *Step through*
on, every computer move pauses with its description and a Continue button (off,
the pause ends by itself: tests/games/wizard/test_wizard_pace_service.py), and the student
clicks the dice when the computer attacks. The chronicle records it all. On
the way the board is checked at 1920×1080 and 1280×720 (one screen, text
≥ 32 / 21 px) and the phone at 360×740 and 390×844 (the last outcome and the
next action on screen without scrolling, the action in thumb reach)."""
from __future__ import annotations

import pytest
import requests
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import test_layout as layout
from browser import FACILITATOR_PASSWORD, browser, join_on_phone, server, shot  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

WORDS = "By the holy name of Michael, hear me"


def solo_table(server, token):
    """A solo class session: the student who joins sits alone against the computer wizard."""
    headers = {"Authorization": f"Bearer {token}"}
    response = requests.post(server.url + "/api/classes", headers=headers, timeout=10,
                             json={"game": "wizard", "table_size": "solo", "options": {"opponent": "computer", "step_through": "on"}})
    assert response.status_code == 201, response.text
    return response.json()["code"]


def table_of(server, token, klass):
    body = requests.get(f"{server.url}/api/classes/{klass}", headers={"Authorization": f"Bearer {token}"},
                        timeout=10).json()
    (table,) = body["tables"]
    assert [(s["name"], s["computer"]) for s in table["seats"]] == [("Ana", False), ("Computer", True)]
    return table["code"]


def visible(page, selector):
    found = page.locator(selector)
    return found.count() > 0 and found.first.is_visible()


def click(page, selector, timeout=3000):
    """Click a control that a live update may replace at any moment; True when clicked."""
    try:
        page.locator(selector).first.click(timeout=timeout)
        return True
    except PlaywrightTimeout:
        return False


def check_phone(page, width, height, stage, selectors):
    """As the student sees it: Playwright scrolls the page to reach a control in the
    sticky bottom bar (a finger does not), so look from the top of the page."""
    page.evaluate("() => scrollTo(0, 0)")
    layout.check_phone(page, width, height, stage, selectors)


def chronicle(page):
    return page.locator(".wiz-chronicle .log-list").inner_text()


def test_a_duel_against_the_computer_on_a_phone(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    klass = solo_table(server, token)
    phone, dialogs = join_on_phone(browser, server.url, klass, "Ana")
    errors = layout.errors_of(phone)
    code = table_of(server, token, klass)
    boards = layout.open_boards(browser, server.url, code)
    phone.get_by_role("button", name="Begin the duel").click()

    # Initiative: the dice control, both wizards' pairs, clicked until someone wins it (ties roll again).
    phone.locator(".wiz-thumb .wiz-dice.clickable").wait_for()
    assert phone.locator(".wiz-thumb .wiz-dice .wiz-die").count() == 4
    for page, *_ in boards:
        page.locator(".wiz-dice-initiative").wait_for()
    check_phone(phone, 360, 740, "wiz-initiative", [".wiz-prompt", ".wiz-thumb .wiz-dice"])
    layout.in_thumb_reach(phone, ".wiz-thumb .wiz-dice", 360, 740)
    for _ in range(10):
        click(phone, ".wiz-thumb .wiz-dice.clickable")
        phone.wait_for_function("() => !document.querySelector('.wiz-phase-initiative') || "
                                "document.querySelector('.wiz-dice-initiative.rolled')")
        if not visible(phone, ".wiz-phase-initiative"):
            break
        phone.wait_for_timeout(300)
    phone.locator(".wiz-dice-initiative.rolled .wiz-total").first.wait_for()
    assert "Initiative:" in chronicle(phone)
    leaders = phone.locator(".wiz-char.leader").count()
    assert leaders == 2

    did = {"draw": 0, "cast_words": 0, "my_roll": 0, "end": 0, "pauses": [], "computer_roll": 0, "defense": 0,
           "layout": False, "initiative": 0}

    def my_turn_cast():
        """Cast the first offered spell at the first target, with words of power."""
        phone.locator(".wiz-choose").first.click()
        phone.locator("#wiz-words").fill(WORDS)
        check_phone(phone, 360, 740, "wiz-cast-target", [".wiz-duelists", ".wiz-targets", "#wiz-words"])
        phone.locator(".wiz-target").first.click()
        phone.locator(".wiz-attack .wiz-words", has_text=WORDS).wait_for()
        did["cast_words"] += 1

    cast_this_turn = False
    # Play on until every step has been seen: Ana's deck is shuffled, so her first
    # revealed spells may all be defenses and her first cast may come a turn later.
    for _ in range(400):
        if did["end"] >= 2 and did["computer_roll"] and len(did["pauses"]) >= 4 and did["cast_words"] \
                and did["my_roll"]:
            break
        if visible(phone, ".wiz-result") or phone.locator(".end-screen").count():
            break
        if visible(phone, ".wiz-continue"):
            text = phone.locator(".wiz-pause-text").inner_text()
            assert text.strip(), "a pause without a description"
            did["pauses"].append(text)
            for page, *_ in boards:   # (while an attack waits, the board names it once, in the attack panel)
                page.locator(".wiz-pause .wiz-pause-title").wait_for()
            if not did["layout"] and len(did["pauses"]) >= 2:
                did["layout"] = True
                for page, _errors, width, height, minimum in boards:
                    # A wizard's column and the centre step their type down rather than cut it (kit.js fitRegion).
                    sizes = layout.check_board(page, width, height, minimum * layout.FIT_FLOOR, "wiz-pause",
                                       [".wiz-pause-title", ".wiz-name", ".wiz-wp", ".wiz-char-name", ".wiz-spell-title"])
                    print("font sizes", width, sizes)
                check_phone(phone, 360, 740, "wiz-pause", [".wiz-pause-text", ".wiz-continue"])
                layout.in_thumb_reach(phone, ".wiz-continue", 360, 740)
            click(phone, ".wiz-continue")
            phone.wait_for_timeout(150)
            continue
        if visible(phone, ".wiz-thumb .wiz-dice-initiative.clickable"):  # a later round's initiative
            did["initiative"] += 1
            click(phone, ".wiz-thumb .wiz-dice.clickable")
            phone.wait_for_timeout(300)
            continue
        if visible(phone, ".wiz-thumb .wiz-dice.clickable"):
            attacker = phone.locator(".wiz-attack-line").inner_text() if visible(phone, ".wiz-attack-line") else ""
            by_computer = attacker.startswith("Computer")
            before = chronicle(phone)
            click(phone, ".wiz-thumb .wiz-dice.clickable")
            try:
                # The roll adds a line to the chronicle. The phone shows only its last 8 lines,
                # so the number of attacks in view may stay the same: wait for the text to change.
                phone.wait_for_function("t => document.querySelector('.wiz-chronicle .log-list').innerText !== t",
                                        arg=before, timeout=10_000)
            except PlaywrightTimeout:
                shot(phone, "wiz-debug")
                raise
            if by_computer:
                did["computer_roll"] += 1
                # The computer's next move pauses at once: the phone keeps the roll in view meanwhile.
                phone.locator(".wiz-dice-attack.rolled .wiz-verdict").wait_for()
                shot(phone, "wiz-phone-computer-attack-rolled")
            else:
                did["my_roll"] += 1
                # The faces and totals stay in view until play continues.
                phone.wait_for_timeout(1200)
                result = phone.locator(".wiz-dice-attack.rolled")
                assert result.is_visible() and result.locator(".wiz-die").count() == 4
                assert result.locator(".wiz-total").count() == 2
                assert WORDS in chronicle(phone)
                if did["my_roll"] == 1:
                    check_phone(phone, 360, 740, "wiz-rolled", [".wiz-dice-attack.rolled", ".wiz-thumb .wiz-end"])
                    for page, _errors, width, height, minimum in boards:
                        page.locator(".wiz-dice-attack.rolled").wait_for()
                        sizes = layout.check_board(page, width, height, minimum * layout.FIT_FLOOR, "wiz-rolled",
                                           [".wiz-total", ".wiz-verdict", ".wiz-side-who", ".wiz-name"])
                        print("font sizes", width, sizes)
                    phone.set_viewport_size({"width": 390, "height": 844})
                    check_phone(phone, 390, 844, "wiz-rolled", [".wiz-dice-attack.rolled", ".wiz-thumb .wiz-end"])
                    layout.in_thumb_reach(phone, ".wiz-thumb .wiz-end", 390, 844)
                    phone.set_viewport_size({"width": 360, "height": 740})
            continue
        if visible(phone, ".wiz-draw"):
            layout.in_thumb_reach(phone, ".wiz-draw", 360, 740)
            if not did["draw"]:
                check_phone(phone, 360, 740, "wiz-draw", [".wiz-duelists", ".wiz-prompt", ".wiz-draw"])
            click(phone, ".wiz-draw")
            phone.locator(".wiz-draw").wait_for(state="detached")
            did["draw"] += 1
            cast_this_turn = False
            continue
        if visible(phone, ".wiz-nodefense"):
            did["defense"] += 1
            click(phone, ".wiz-defend" if visible(phone, ".wiz-defend") else ".wiz-nodefense")
            continue
        if visible(phone, ".wiz-choose") and not cast_this_turn:
            cast_this_turn = True
            my_turn_cast()
            continue
        if visible(phone, ".wiz-end"):
            click(phone, ".wiz-end")
            phone.locator(".wiz-thumb:not(.active), .wiz-continue, .wiz-thumb .wiz-dice.clickable").first.wait_for()
            did["end"] += 1
            assert "Ana ends the turn." in chronicle(phone)
            continue
        phone.wait_for_timeout(200)

    assert did["draw"] >= 1 and did["cast_words"] >= 1 and did["my_roll"] >= 1 and did["end"] >= 1, did
    assert len(did["pauses"]) >= 3, did
    assert any(p.startswith("Computer revealed") for p in did["pauses"]), did["pauses"]
    assert any("Computer ends the turn" in p for p in did["pauses"]), did["pauses"]
    assert did["computer_roll"] >= 1, f"the computer never attacked: {did}"

    # The chronicle: the newest moves, the words of power in the log of the board and the phone.
    log = chronicle(phone)
    assert "Computer ends the turn." in log or "Computer" in log
    # A board's chronicle keeps the newest lines that fit its screen (table.js fitLog), the
    # rule clarifications left to the phones and the teacher: the phone's newest line first,
    # then others of the phone's in the same order, once both have the last view.
    def in_order(some, every):
        rest = iter(every)
        return all(line in rest for line in some)

    def lines(page, rulings=True):
        return page.locator(".wiz-chronicle .log-list li" + ("" if rulings else ":not(.log-ruling)")).all_inner_texts()

    phone_lines = []
    for page, *_ in boards:
        for _ in range(50):
            phone_lines = lines(phone, rulings=False)
            board_lines = lines(page)
            if in_order(board_lines, phone_lines) and board_lines[:1] in ([], phone_lines[:1]):
                break
            page.wait_for_timeout(200)
        else:
            raise AssertionError(f"the board's chronicle {board_lines} is not the phone's newest {phone_lines}")
    shot(phone, "wiz-phone-end-of-test")
    assert errors == [] and dialogs == []
    for page, page_errors, *_ in boards:
        assert page_errors == [], page_errors
