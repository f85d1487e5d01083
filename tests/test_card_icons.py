"""Card faces with an icon per card kind (issue 21, "Delight"): every game is played by a
real phone (360×740) and scripted ones while boards at 1920×1080 and 1280×720 watch, and at each look every
card face on the board and on the phone (kit.js CARD_FACE: a card, a chip, a card kind's
band) shows its kind's icon (kit.js KIND_ICON: an inline SVG from the game's icons module,
aria-hidden, beside words that say the kind or the name). The card gallery draws the same
icon on every card. Counted per face in the page, not compared as pictures; the looks are
saved as screenshots (test-artifacts/icons-<game>-board-<size>.png, -phone.png)."""
from __future__ import annotations

import random

import pytest

from app import engines
from browser import ARTIFACTS, FACILITATOR_PASSWORD, browser, installed_games, server, settle  # noqa: F401  (fixtures)
from live import LivePhone, by_hand, end_table
from test_phone_layout import filled, phone_act, phone_page, phone_view

pytestmark = pytest.mark.browser

MOVES = 160        # accepted moves per game, at most
LOOK_EVERY = 6     # accepted moves between looks
BOARDS = [(1920, 1080), (1280, 720)]

# Every card face shown on the page: how many, the kinds their icons draw (the icon's
# class names it: "<game>-i-<name>" or its shapes), the smallest icon (px), and each
# face that fails: no kind icon, an icon a screen reader would read, an empty icon,
# no words beside it.
FACES = r"""() => {
  const shown = (el) => !el.closest('[hidden], .visually-hidden') && el.getClientRects().length
    && getComputedStyle(el).visibility !== 'hidden';
  const faces = [...document.querySelectorAll('.card-face')].filter(shown);
  const bad = [];
  const kinds = new Set();
  let smallest = Infinity;
  for (const face of faces) {
    const what = face.className + ' "' + face.textContent.trim().replace(/\s+/g, ' ').slice(0, 30) + '"';
    const icons = [...face.querySelectorAll('svg.kind-icon')];
    if (!icons.length) { bad.push('no kind icon: ' + what); continue; }
    if (!face.textContent.trim()) bad.push('no words beside the icon: ' + what);
    for (const svg of icons) {
      if (svg.getAttribute('aria-hidden') !== 'true') { bad.push('icon not aria-hidden: ' + what); continue; }
      if (!svg.querySelector('path, circle, rect')) { bad.push('empty icon: ' + what); continue; }
      const box = svg.getBoundingClientRect();
      smallest = Math.min(smallest, box.width, box.height);
      kinds.add(svg.innerHTML);
    }
  }
  return {faces: faces.length, kinds: kinds.size, smallest: faces.length ? smallest : null, bad};
}"""


def look(page, where, seen, problems):
    settle(page)  # entrances have ended
    found = page.evaluate(FACES)
    problems.update(f"{where}: {line}" for line in found["bad"])
    if found["faces"] and found["faces"] >= seen[where]["faces"]:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"icons-{where}.png"))  # the look with the most card faces
    seen[where]["faces"] = max(seen[where]["faces"], found["faces"])
    seen[where]["kinds"] = max(seen[where]["kinds"], found["kinds"])
    if found["smallest"] is not None:
        seen[where]["smallest"] = min(seen[where]["smallest"], found["smallest"])


@pytest.mark.parametrize("game", installed_games())
def test_every_card_face_shows_its_kind_icon(server, browser, game):  # noqa: F811
    seats = min(3, engines.spec(game).max_seats)
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token, game)
    boards = {}
    for width, height in BOARDS:
        board = browser.new_context(viewport={"width": width, "height": height}).new_page()
        board.goto(f"{server.url}/board/{code}")
        boards[f"{game}-board-{width}x{height}"] = board
    page = phone_page(browser, server.url, code, "Ana")
    bots = [LivePhone(server.url) for _ in range(seats - 1)]
    for bot, name in zip(bots, ["Ben", "Cara"]):
        bot.join(code, name)
    page.wait_for_function("() => window.__view && window.__view.actions.some((a) => a.type === 'start')")
    assert phone_act(page, phone_view(page), {"type": "start"})["ok"]

    rng = random.Random(f"icons-{game}")
    seen = {where: {"faces": 0, "kinds": 0, "smallest": float("inf")} for where in [*boards, f"{game}-phone"]}
    problems: set[str] = set()
    accepted = idle = 0
    while accepted < MOVES and idle < 50:
        mine = phone_view(page)
        if mine and mine["status"] == "ended":
            break
        ready = [b for b in bots if b.view and b.view["status"] == "playing" and by_hand(b.view["actions"])]
        mine_ready = mine and mine["status"] == "playing" and by_hand(mine["actions"])
        if not ready and not mine_ready:
            idle += 1
            page.wait_for_timeout(100)  # a timer of the game's or a computer seat moves next
            continue
        idle = 0
        if accepted % LOOK_EVERY == 0:
            for where, board in boards.items():
                look(board, where, seen, problems)
            look(page, f"{game}-phone", seen, problems)
        if mine_ready and (not ready or rng.random() < 0.5):
            ack = phone_act(page, mine, filled(rng.choice(by_hand(mine["actions"]))))
        else:
            bot = rng.choice(ready)
            ack = bot.call("act", {"version": bot.view["version"], "action": filled(rng.choice(by_hand(bot.view["actions"])))})
        accepted += bool(ack.get("ok"))
        if accepted >= 4 * LOOK_EVERY and all(s["faces"] and s["kinds"] >= 2 for s in seen.values()):
            break
    if phone_view(page)["status"] == "playing":
        end_table(server.url, token, code)
    for bot in bots:
        bot.close()
    page.context.close()
    for board in boards.values():
        board.context.close()
    print(game, seen)
    assert not problems, "\n".join(sorted(problems))
    for where, s in seen.items():
        assert s["faces"], f"{where}: no card face was ever shown"
        assert s["kinds"] >= 2, f"{where}: every card face showed the same icon"
        assert s["smallest"] >= 14, f"{where}: a kind icon was drawn at {s['smallest']:.1f} px"


@pytest.mark.parametrize("game", [key for key in installed_games() if engines.spec(key).gallery])
def test_every_card_of_the_gallery_shows_its_kind_icon(server, browser, game):  # noqa: F811
    page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    page.goto(f"{server.url}/games/{game}/cards")
    page.locator(".gallery-band .kind-icon").first.wait_for()
    counts = page.evaluate("""() => [...document.querySelectorAll('.gallery-card')].map((card) =>
        [card.dataset.type, card.querySelectorAll('.gallery-band svg.kind-icon[aria-hidden="true"]').length,
         card.querySelector('.gallery-band svg.kind-icon').innerHTML])""")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"icons-{game}-gallery.png"))
    page.context.close()
    assert counts and all(n == 1 for _, n, _ in counts), [c for c in counts if c[1] != 1][:5]
    drawn = {}
    for kind, _, shape in counts:
        drawn.setdefault(kind, set()).add(shape)
    assert all(len(shapes) == 1 for shapes in drawn.values()), "a kind drawn two ways"
    assert len({next(iter(s)) for s in drawn.values()}) == len(drawn), "two kinds share an icon"
