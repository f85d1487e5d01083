"""No cut or covered text on any game's projected board (issue 21): every game is
played by scripted phones through its states (lobby, many moments of play, the
end) while a board at 1920×1080 and one at 1280×720 watch; at each moment every
element that shows text is checked, and the test reports each one whose text is
cut (clipped, ellipsised, scrolled away, off the screen) or lies under another
element. A game added under app/engines/ is walked the same way."""
from __future__ import annotations

import random
import time

import pytest

from app import engines
from app.engines.contract import strip_label
from browser import (FACILITATOR_PASSWORD, browser, english_words, installed_games, pseudo_server, server,  # noqa: F401
                     server_speaking, settle, shot)  # noqa: F401  (fixtures)
from live import LivePhone, by_hand, end_table
from test_layout import CLIPPED_BY

pytestmark = pytest.mark.browser

SCREENS = [(1920, 1080), (1280, 720)]
MOVES = 160          # accepted moves per game, at most
CHECK_EVERY = 20     # a look at the boards every so many accepted moves

# Every element with text of its own on the board (the site header aside), and why it fails:
# its text is clipped by itself or an ancestor, it lies (partly) outside the screen, or the
# element on top at one of its text's points is neither it nor inside it.
CUT_OR_COVERED = r"""() => {""" + CLIPPED_BY + r"""
  const found = [];
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  const shown = (el) => !el.closest('.visually-hidden, .skip-link, [hidden], [aria-hidden="true"], .site-header')
    && el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden';
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '')
    + ' "' + el.textContent.trim().replace(/\s+/g, ' ').slice(0, 40) + '"';
  for (const el of document.querySelectorAll('body *')) {
    const texts = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
    if (!texts.length || !shown(el)) continue;
    let opacity = 1;
    for (let a = el; a; a = a.parentElement) opacity *= parseFloat(getComputedStyle(a).opacity);
    if (opacity < 0.05) continue;  // faded out (an animation's end)
    const style = getComputedStyle(el);
    if (style.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1) { found.push('ellipsised: ' + name(el)); continue; }
    if (style.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1) { found.push('cut across: ' + name(el)); continue; }
    if (style.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 1) { found.push('cut below: ' + name(el)); continue; }
    for (const node of texts) {
      const range = document.createRange();
      range.selectNodeContents(node);
      const rects = [...range.getClientRects()].filter((r) => r.width > 1 && r.height > 1);
      let bad = null;
      for (const r of rects) {
        if (r.left < -1 || r.top < -1 || r.right > vw + 1 || r.bottom > vh + 1) { bad = 'off the screen'; break; }
        const clip = clippedBy(el, r);
        if (clip) { bad = 'clipped by ' + name(clip).split(' "')[0]; break; }
        for (const [x, y] of [[r.left + 2, r.top + r.height / 2], [r.right - 2, r.top + r.height / 2],
                              [r.left + r.width / 2, r.top + r.height / 2]]) {
          const top = document.elementFromPoint(x, y);
          if (top && top !== el && !el.contains(top) && !top.contains(el)) { bad = 'under ' + name(top).split(' "')[0]; break; }
        }
        if (bad) break;
      }
      if (bad) { found.push(bad + ': ' + name(el)); break; }
    }
  }
  return found;
}"""


def look(boards, game, stage, problems):
    for page, (width, height) in boards:
        settle(page)  # entrances and flips have ended
        before = len(problems)
        for problem in page.evaluate(CUT_OR_COVERED):
            problems.add(f"{game} {stage} {width}x{height}: {problem}")
        if game.endswith(("-es", "-eo")):  # a Spanish (or pseudo) board shows no English interface words
            problems.update(f"{game} {stage}: English on a {game[-2:]} board: {word}" for word in english_words(page))
        shot(page, f"board-layout-{game}-{stage}-{width}x{height}", force=len(problems) > before)


def filled(action: dict) -> dict:
    return {k: ("The water soaks into the ground and the plants use it." if v == "" else v)
            for k, v in strip_label(action).items()}


def play_a_while(phones, rng, moves):
    """Random legal moves from the phones until `moves` were accepted or nobody may move."""
    accepted = 0
    idle = 0
    while accepted < moves and idle < 50:
        ready = [p for p in phones if p.view and p.view["status"] == "playing" and by_hand(p.view["actions"])]
        if not ready:
            if phones[0].view and phones[0].view["status"] == "ended":
                return accepted
            idle += 1
            time.sleep(0.1)  # a timer of the game's (a vote closing) or a computer seat moves next
            continue
        idle = 0
        phone = rng.choice(ready)
        action = filled(rng.choice(by_hand(phone.view["actions"])))
        ack = phone.call("act", {"version": phone.view["version"], "action": action})
        if ack.get("ok"):
            accepted += 1
    return accepted


BOARD_WALKS = [(game, lang) for game in installed_games() for lang in ("en", "es", "eo")]


@pytest.mark.parametrize(("game", "lang"), BOARD_WALKS)
def test_no_text_is_cut_or_covered_on_the_board(request, browser, game, lang):  # noqa: F811
    """Each game's board in English, in Spanish (a board made in Spanish; its texts run a
    fifth to a third longer) and in the pseudo-locale "eo" (every text a third longer,
    accented and bracketed: app/i18n/pseudo.py)."""
    with server_speaking(request, lang) as server:
        walk_the_board(server, browser, game, lang)


def walk_the_board(server, browser, game, lang):  # noqa: F811
    seats = min(4, engines.spec(game).max_seats)
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    # The lesson clock in the header, too.
    code = server.create_table(token, game, lesson_minutes=40, language=lang)
    game_lang = game if lang == "en" else f"{game}-{lang}"
    boards = []
    for width, height in SCREENS:
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        page.goto(f"{server.url}/board/{code}")
        boards.append((page, (width, height)))
    phones = [LivePhone(server.url) for _ in range(seats)]
    for phone, name in zip(phones, ["Ana", "Benedikt-Alexander", "Chloé", "Dmitri"]):
        phone.join(code, name)
    problems: set[str] = set()
    for page, _ in boards:
        for name in ["Ana", "Benedikt-Alexander", "Chloé", "Dmitri"][:seats]:
            page.get_by_text(name).first.wait_for()
    look(boards, game_lang, "lobby", problems)

    # The view with every seat in it: one from before the last join is stale once it lands (CI,
    # war-eo on a busy machine: the start refused).
    start = phones[0].wait_for(lambda v: len(v["players"]) == seats and any(a["type"] == "start" for a in v["actions"]))
    assert phones[0].call("act", {"version": start["version"], "action": {"type": "start"}})["ok"]
    rng = random.Random(f"layout-{game}")
    played = 0
    while played < MOVES:
        step = play_a_while(phones, rng, CHECK_EVERY)
        played += step
        if step == 0 or phones[0].view["status"] != "playing":
            break
        look(boards, game_lang, f"move{played}", problems)
    if phones[0].view["status"] == "playing":
        end_table(server.url, token, code)
    for page, _ in boards:
        page.locator(".result h2").wait_for()
    look(boards, game_lang, "ended", problems)
    for phone in phones:
        phone.close()
    for page, _ in boards:
        page.context.close()
    assert not problems, "\n".join(sorted(problems))


# The text sizes on a board, smallest first: nothing the room reads may fall under the
# fit floor (kit.js FIT_FLOOR, .72 of the board's type: 24 px at 1080, 16 px at 720).
SMALLEST_TEXT = """() => [...document.querySelectorAll('#game-root *')]
  .filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) && el.getClientRects().length
    && !el.closest('.visually-hidden, [hidden]'))
  .map((el) => parseFloat(getComputedStyle(el).fontSize)).sort((a, b) => a - b).slice(0, 1)"""

# The board drawn from a crafted view (table.js render, as board.js does on each view).
DRAW = """async (payload) => {
  const table = await import('/static/js/table.js');
  await table.render(document.getElementById('game-root'), payload,
                     {role: 'board', current: () => payload, log: () => payload.log});
}"""


@pytest.mark.parametrize(("many", "clients", "lang"), [(10, 6, "en"), (30, 6, "en"), (30, 10, "eo")])
def test_a_crowded_wizard_board_gets_denser_not_cut(request, browser, many, clients, lang):  # noqa: F811
    """Issue 21's crowded column: a wizard with 6 clients and 10 revealed spells (the
    longest titles), the other with 4 and 10, a long name, a long log. The columns get
    denser (kit.js fitRegion) and nothing is cut, covered or under the floor size.
    With 30 spells (they pile up: no hand limit) no layout holds them all: the oldest
    give way to one line that counts them (kit.js trimList). In the pseudo-locale, with
    every villager that wizard's client, that line is itself whole: a shuffled run once
    found it clipped on a wizard-eo board at move 120 (stop 31)."""
    with server_speaking(request, lang) as server:
        crowd_the_wizard_board(server, browser, many, clients, lang)


def crowd_the_wizard_board(server, browser, many, clients, lang):  # noqa: F811
    from app.engines.wizard import content
    from app.i18n import pseudo
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token, "wizard", language=lang)
    phones = [LivePhone(server.url) for _ in range(2)]
    for phone, name in zip(phones, ["Ana", "Benedikt-Alexander"]):
        phone.join(code, name)
    start = phones[0].wait_for(lambda v: any(a["type"] == "start" for a in v["actions"]))
    assert phones[0].call("act", {"version": start["version"], "action": {"type": "start"}})["ok"]
    payload = phones[0].wait_for(lambda v: v["status"] == "playing")
    pub = payload["view"]["public"]
    spells = sorted(content.SPELLS.values(), key=lambda s: -len(s["title"]))
    for seat, (first, count, owned) in enumerate([(0, 10, 4), (10, many, clients)]):
        wizard = pub["wizards"][seat]
        wizard["revealed"] = [{k: s[k] for k in ("number", "title", "kind", "strength", "gender")}
                              for s in spells[first:first + count]]
        wizard["clients"] = owned
    longest = sorted(pub["village"], key=lambda c: -len(c["name"]))
    for i, character in enumerate(longest):
        character["owner"] = 1 if i < clients else 0
    payload = {**payload, "seat": None, "actions": [],
               "log": [{"v": i, "t": "cast", "text": f"Benedikt-Alexander casts “{s['title']}” on Ioannia daughter of Marthe."}
                       for i, s in enumerate(spells[:12])]}
    problems: set[str] = set()
    for width, height in SCREENS:
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        page.goto(f"{server.url}/board/{code}")
        page.locator(".wiz-col").first.wait_for()
        page.evaluate(DRAW, payload)
        shown = page.locator(".wiz-col.w1 .wiz-spell").count()
        if many == 10:
            assert shown == 10
        else:
            more = page.locator(".wiz-col.w1 .fit-more").inner_text(timeout=2000) if page.locator(".wiz-col.w1 .fit-more").count() else None
            said = "+ {n} older revealed spells" if lang == "en" else pseudo.pseudo("+ {n} older revealed spells")
            assert 0 < shown < many and more == said.replace("{n}", str(many - shown)), (shown, more)
        for problem in page.evaluate(CUT_OR_COVERED):
            problems.add(f"crowded {width}x{height}: {problem}")
        shot(page, f"board-layout-wizard-crowded-{many}-{width}x{height}")
        smallest = page.evaluate(SMALLEST_TEXT)[0]
        assert smallest >= 0.72 * min(width * 0.0175, height * 0.031) - 0.5, f"{width}x{height}: text of {smallest} px"
        page.context.close()
    for phone in phones:
        phone.close()
    assert not problems, "\n".join(sorted(problems))
