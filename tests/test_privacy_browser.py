"""In a real browser: no page makes a request to anywhere but the server itself (a
student's phone must not reveal itself to a CDN, a font host or an analytics site),
and deleting a table tells the board and the phones still open on it."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest
import requests

from browser import FACILITATOR_PASSWORD, PHONE, browser, server, shot  # noqa: F401  (fixture)
from live import LivePhone

pytestmark = pytest.mark.browser


class Recorder:
    """Every request (and WebSocket) a browser context makes, by the page that made it."""

    def __init__(self, origin: str):
        self.origin = origin
        self.page = "?"
        self.seen: list[tuple[str, str]] = []

    def watch(self, context):
        context.on("request", lambda r: self.seen.append((self.page, r.url)))
        context.on("page", lambda p: p.on("websocket", lambda ws: self.seen.append((self.page, ws.url))))
        return context

    def foreign(self) -> list[tuple[str, str]]:
        own = urlsplit(self.origin)
        out = []
        for page, url in self.seen:
            parts = urlsplit(url)
            if parts.scheme in ("data", "blob"):
                continue
            if parts.hostname != own.hostname or (parts.port or 80) != own.port:
                out.append((page, url))
        return out


def _login(page, url):
    page.goto(url + "/facilitator/login")
    page.get_by_label("Name").fill("teacher")
    page.get_by_label("Password").fill(FACILITATOR_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="New game").wait_for()


def _started_table(server, token, game, browser, recorder):  # noqa: F811
    """A started table of `game`: a scripted phone in seat 0 and a browser phone in seat 1."""
    code = server.create_table(token, game)
    first = LivePhone(server.url)
    first.join(code, "Ana")
    context = recorder.watch(browser.new_context(**PHONE))
    page = context.new_page()
    recorder.page = f"phone at {game}"
    page.goto(f"{server.url}/join/{code}")
    page.get_by_label("Your name").fill("Ben")
    page.get_by_role("button", name="Join").click()
    page.get_by_text("Waiting for players").wait_for()
    first.wait_for(lambda v: len(v["players"]) == 2 and v["actions"])
    ack = first.call("act", {"version": first.view["version"], "action": {"type": "start"}})
    assert ack["ok"], ack
    page.wait_for_function("() => !document.body.innerText.includes('Waiting for players')", timeout=20_000)
    page.wait_for_timeout(500)  # the game's own modules and images load
    return code, first, page


def test_no_page_requests_anything_from_another_host(server, browser):  # noqa: F811
    recorder = Recorder(server.url)
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    games = requests.get(server.url + "/api/games", timeout=10).json()
    keep = []

    visitor = recorder.watch(browser.new_context(**PHONE)).new_page()
    recorder.page = "home"
    visitor.goto(server.url + "/")
    visitor.wait_for_load_state("networkidle")

    codes = {}
    for game in [g["key"] for g in games if g.get("playable", True)]:
        code, first, page = _started_table(server, token, game, browser, recorder)
        codes[game] = code
        keep += [first, page]

    created = requests.post(f"{server.url}/api/classes", json={"game": "war", "options": {}, "table_size": 2},
                            headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
    klass = created["code"]
    students = [LivePhone(server.url) for _ in range(2)]
    for student, name in zip(students, ["Cy", "Di"]):
        student.join(klass, name)

    recorder.page = "join"
    visitor.goto(f"{server.url}/join/{klass}")
    visitor.get_by_label("Your name").wait_for()

    projector = recorder.watch(browser.new_context(viewport={"width": 1280, "height": 720})).new_page()
    for name, path in [("board", f"/board/{codes['war']}"), ("class board", f"/board/{klass}")]:
        recorder.page = name
        projector.goto(server.url + path)
        projector.wait_for_load_state("networkidle")
        projector.wait_for_timeout(500)

    teacher = recorder.watch(browser.new_context(viewport={"width": 1280, "height": 720})).new_page()
    recorder.page = "dashboard"
    _login(teacher, server.url)
    for name, path in [("facilitator table", f"/facilitator/tables/{codes['war']}"),
                       ("class overview", f"/facilitator/classes/{klass}"),
                       ("delete confirmation", f"/facilitator/tables/{codes['war']}/delete")]:
        recorder.page = name
        teacher.goto(server.url + path)
        teacher.wait_for_load_state("networkidle")
        teacher.wait_for_timeout(300)
    galleries = [g["key"] for g in games if g.get("gallery")]
    assert galleries
    for key in galleries:
        recorder.page = f"{key} cards"
        visitor.goto(f"{server.url}/games/{key}/cards")
        visitor.wait_for_load_state("networkidle")

    recorder.page = "guided demo"
    visitor.goto(server.url + "/")
    visitor.locator("form[action^='/demo/'] button").first.click()
    visitor.wait_for_load_state("networkidle")
    visitor.wait_for_timeout(1500)  # the demo's game starts and draws

    pages = {page for page, _url in recorder.seen}
    assert {"home", "join", "board", "class board", "dashboard", "facilitator table", "class overview",
            "guided demo"} <= pages and all(f"phone at {g}" in pages for g in codes), pages
    assert len(recorder.seen) > 50  # it did record (scripts, styles, sockets, images...)
    assert recorder.foreign() == []
    for phone in students + [k for k in keep if isinstance(k, LivePhone)]:
        phone.close()


def test_deleting_a_table_tells_the_board_and_the_phones(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token, "war")
    other = LivePhone(server.url)
    other.join(code, "Ana")
    phone = browser.new_context(**PHONE).new_page()
    phone.goto(f"{server.url}/join/{code}")
    phone.get_by_label("Your name").fill("Ben")
    phone.get_by_role("button", name="Join").click()
    phone.get_by_text("Waiting for players").wait_for()
    board = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    board.goto(f"{server.url}/board/{code}")
    board.get_by_text("Ben").first.wait_for()

    teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    _login(teacher, server.url)
    teacher.goto(f"{server.url}/facilitator/tables/{code}")
    shot(teacher, "privacy-table-page")
    teacher.get_by_role("link", name="Delete this table and its data…").click()
    teacher.get_by_role("heading", name=f"Delete table {code}").wait_for()
    shot(teacher, "privacy-delete-confirm")
    teacher.get_by_role("button", name=f"Delete table {code} for good").click()
    teacher.get_by_text(f"Table {code} and everything recorded about it were deleted.").wait_for()
    shot(teacher, "privacy-deleted-dashboard")

    board.get_by_text("This table was deleted by its teacher.").wait_for(timeout=10_000)
    phone.get_by_text("This table was deleted by its teacher.").wait_for(timeout=10_000)
    shot(board, "privacy-deleted-board")
    shot(phone, "privacy-deleted-phone")
    phone.reload()  # the code is unknown now: the page says so (and offers the code form)
    phone.get_by_text(f"There is no table with the code {code}.").wait_for(timeout=10_000)
    assert requests.get(f"{server.url}/api/tables/{code}", headers={"Authorization": f"Bearer {token}"},
                        timeout=10).status_code == 404
    other.close()


def test_deleting_a_class_tells_its_board(server, browser):  # noqa: F811
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    klass = requests.post(f"{server.url}/api/classes", json={"game": "war", "options": {}, "table_size": 2},
                          headers={"Authorization": f"Bearer {token}"}, timeout=10).json()["code"]
    students = [LivePhone(server.url) for _ in range(2)]
    for student, name in zip(students, ["Cy", "Di"]):
        student.join(klass, name)
    board = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    board.goto(f"{server.url}/board/{klass}")
    board.get_by_text("Cy").first.wait_for()
    teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    _login(teacher, server.url)
    shot(teacher, "privacy-dashboard")
    teacher.goto(f"{server.url}/facilitator/classes/{klass}")
    teacher.locator(".class-table").first.wait_for()
    shot(teacher, "privacy-class-page")
    teacher.get_by_role("link", name="Delete this class and its data…").click()
    teacher.get_by_role("button", name=f"Delete class {klass} for good").click()
    teacher.get_by_text(f"Class {klass}, its 1 table and everything recorded about them were deleted.").wait_for()
    board.get_by_text("This class was deleted by its teacher.").wait_for(timeout=10_000)
    shot(board, "privacy-deleted-class-board")
    for student in students:
        student.close()
