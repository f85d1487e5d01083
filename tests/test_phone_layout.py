"""The phone at 360×740 (issue 21, "The phone"): each game is played through its states
(the lobby, each new kind of choice the phone is offered — a turn, a Crisis's cards to
Use —, the end) by one real phone and scripted ones. At each moment the phone is scrolled
to its foot and every text and control is checked clear of the action bar that sticks
to the bottom of the screen (the log's last entry above it, not cut under it), and no
text on the phone is cut (a name clipped or ellipsised, a log cut by its own box).
Words on the phone are for touch: no "Click"."""
from __future__ import annotations

import random
import re

import pytest

from app import engines, i18n
from app.engines.contract import strip_label
from browser import (ARTIFACTS, FACILITATOR_PASSWORD, PHONE, browser, english_words,  # noqa: F401
                     installed_games, pseudo_server, server, server_speaking, settle, shot)  # noqa: F401  (fixtures)
from live import LivePhone, by_hand, end_table
from test_layout import CLIPPED_BY

pytestmark = pytest.mark.browser

MOVES = 160          # accepted moves per game, at most
LOOKS = 12           # looks at the phone when it may move, at most

# The phone page's socket, caught as the page makes it, so the test plays the real
# phone's seat with the moves the server offers it (window.__view: its newest view).
CATCH_SOCKET = """(() => {
  let io;
  Object.defineProperty(window, 'io', {configurable: true, get: () => io, set: (made) => {
    io = (...args) => {
      const socket = made(...args);
      window.__socket = socket;
      socket.on('view', (view) => {
        const last = window.__view;
        if (!last || last.code !== view.code || view.version >= last.version) window.__view = view;
      });
      return socket;
    };
    Object.assign(io, made);
  }});
})();"""

# The phone scrolled to its foot (`foot`), or at its first screen, as a new view shows
# it: every element of the page with text of its own, and every control, that lies
# (partly) under a bar stuck to the bottom of the screen (the bar is on top at one of
# its points). Also how many such bars the page has.
UNDER_THE_BAR = r"""(foot) => {
  window.scrollTo(0, foot ? document.documentElement.scrollHeight : 0);
  const shown = (el) => !el.closest('.visually-hidden, .skip-link, [hidden], [aria-hidden="true"]')
    && el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden';
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '')
    + ' "' + el.textContent.trim().replace(/\s+/g, ' ').slice(0, 40) + '"';
  const bars = [...document.querySelectorAll('body *')].filter((el) => {
    const s = getComputedStyle(el);
    return (s.position === 'fixed' || s.position === 'sticky') && s.bottom !== 'auto' && shown(el)
      && el.getBoundingClientRect().height > 0;
  });
  const found = [];
  for (const el of document.querySelectorAll('body *')) {
    if (!shown(el) || bars.some((bar) => bar.contains(el) || el.contains(bar))) continue;
    const control = el.matches('button, input, select, textarea, a[href], summary');
    const texts = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
    if (!control && !texts.length) continue;
    const rects = control ? [el.getBoundingClientRect()] : texts.flatMap((node) => {
      const range = document.createRange();
      range.selectNodeContents(node);
      return [...range.getClientRects()];
    });
    for (let r of rects) {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {  // the part not clipped away
        const s = getComputedStyle(a);
        if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
        const box = a.getBoundingClientRect();
        r = new DOMRect(Math.max(r.left, box.left), Math.max(r.top, box.top),
                        Math.min(r.right, box.right) - Math.max(r.left, box.left), Math.min(r.bottom, box.bottom) - Math.max(r.top, box.top));
      }
      if (r.width <= 4 || r.height <= 1) continue;
      const y = r.top + r.height / 2;
      const bar = [r.left + 2, r.left + r.width / 2, r.right - 2].map((x) => document.elementFromPoint(x, y))
        .map((top) => top && bars.find((b) => b.contains(top))).find(Boolean);
      if (bar) { found.push('under ' + name(bar).split(' "')[0] + ': ' + name(el)); break; }
    }
  }
  return {bars: bars.length, found};
}"""

# Every element of the phone with text of its own whose text is cut: ellipsised, clipped
# by itself or an ancestor, or running off the side of the screen.
CUT = r"""() => {""" + CLIPPED_BY + r"""
  const found = [];
  const vw = document.documentElement.clientWidth;
  const shown = (el) => !el.closest('.visually-hidden, .skip-link, [hidden], [aria-hidden="true"]')
    && el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden';
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '')
    + ' "' + el.textContent.trim().replace(/\s+/g, ' ').slice(0, 40) + '"';
  for (const el of document.querySelectorAll('body *')) {
    const texts = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
    if (!texts.length || !shown(el)) continue;
    const style = getComputedStyle(el);
    if (style.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1) { found.push('ellipsised: ' + name(el)); continue; }
    if (style.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1) { found.push('cut across: ' + name(el)); continue; }
    if (style.overflowY !== 'visible' && !style.webkitLineClamp.match(/^\d/) && el.scrollHeight > el.clientHeight + 1) {
      found.push('cut below: ' + name(el)); continue;
    }
    let sideways = false;  // a row the thumb scrolls sideways (Storm War's hand): off the screen by design
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
      if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX) && a.scrollWidth > a.clientWidth + 1) { sideways = true; break; }
    if (sideways) continue;
    for (const node of texts) {
      const range = document.createRange();
      range.selectNodeContents(node);
      let bad = null;
      for (const r of [...range.getClientRects()].filter((r) => r.width > 1 && r.height > 1)) {
        if (r.left < -1 || r.right > vw + 1) { bad = 'off the screen'; break; }
        const clip = clippedBy(el, r);
        if (clip) { bad = 'clipped by ' + name(clip).split(' "')[0]; break; }
      }
      if (bad) { found.push(bad + ': ' + name(el)); break; }
    }
  }
  return found;
}"""


def phone_page(browser, url, code, name, lang="en"):  # noqa: F811
    """A student's phone whose browser asks for `lang`; its screens are in it."""
    page = browser.new_context(locale=lang, **PHONE).new_page()
    page.add_init_script(CATCH_SOCKET)
    page.goto(f"{url}/join/{code}")
    page.get_by_label(i18n.localize("Your name", lang)).fill(name)
    page.get_by_role("button", name=i18n.localize("Join", lang), exact=True).click()
    page.get_by_text(i18n.localize("Waiting for players", lang)).wait_for()
    return page


def look(page, game, stage, problems):
    settle(page)  # entrances have ended
    before = len(problems)
    under = page.evaluate(UNDER_THE_BAR, True)
    shot(page, f"phone-layout-{game}-{stage}-foot", screen=True, force=bool(under["found"]))  # the screen at the foot
    for problem in under["found"]:
        problems.add(f"{game} {stage}: {problem}")
    page.evaluate("() => window.scrollTo(0, 0)")
    for problem in page.evaluate(CUT):
        problems.add(f"{game} {stage}: {problem}")
    problems.update(f"{game} {stage}: {line}" for line in mouse_words(page))
    if game.endswith(("-es", "-eo")):  # a Spanish (or pseudo) phone shows no English interface words
        problems.update(f"{game} {stage}: English on a {game[-2:]} screen: {word}" for word in english_words(page))
    shot(page, f"phone-layout-{game}-{stage}", force=len(problems) > before)
    return under["bars"]


def mouse_words(page):
    """Each line of the phone's text that asks for a click: a phone is tapped."""
    return [line for line in page.evaluate("() => document.body.innerText").splitlines()
            if re.search(r"\bclick|\bhaz clic|\bclic\b", line, re.IGNORECASE)]


def filled(action: dict) -> dict:
    return {k: ("The water soaks into the ground and the plants use it." if v == "" else v)
            for k, v in strip_label(action).items()}


def phone_view(page):
    return page.evaluate("() => window.__view && {status: window.__view.status, version: window.__view.version,"
                         " actions: window.__view.actions}")


def phone_act(page, view, action):
    return page.evaluate("""([version, action]) => new Promise((done) =>
        window.__socket.timeout(8000).emit('act', {version, action}, (err, ack) => done(err ? {ok: false} : ack)))""",
                         [view["version"], action])


# Every game, in English and in Spanish.
# English, Spanish and the pseudo-locale "eo" (app/i18n/pseudo.py: every text a third longer).
WALKS = [(game, lang) for game in installed_games() for lang in ("en", "es", "eo")]


@pytest.mark.parametrize(("game", "lang"), WALKS)
def test_nothing_on_the_phone_is_under_its_bar_or_cut(request, browser, game, lang):  # noqa: F811
    """Each game on a 360-px phone, in English, in Spanish and in the pseudo-locale (the
    browser asks for it)."""
    with server_speaking(request, lang) as server:
        walk_the_phone(server, browser, game, lang)


def walk_the_phone(server, browser, game, lang):  # noqa: F811
    seats = min(4, engines.spec(game).max_seats)
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token, game, lesson_minutes=40)  # the lesson clock in the header, too
    page = phone_page(browser, server.url, code, "Benedikt-Alexander", lang)
    game = game if lang == "en" else f"{game}-{lang}"   # names the screenshots and the problems
    bots = [LivePhone(server.url) for _ in range(seats - 1)]
    for bot, name in zip(bots, ["Ana", "Chloé", "Dmitri"]):
        bot.join(code, name)
    problems: set[str] = set()
    look(page, game, "lobby", problems)
    # (the view with every seat in it: one from before the last join is stale once it lands)
    page.wait_for_function("(n) => window.__view && window.__view.players.length === n"
                           " && window.__view.actions.some((a) => a.type === 'start')", arg=seats)
    assert phone_act(page, phone_view(page), {"type": "start"})["ok"]  # the first to join starts

    rng = random.Random(f"phone-{game}")
    accepted = looks = idle = bars = 0
    seen: set[frozenset] = set()
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
        if mine_ready and (not ready or rng.random() < 0.5):
            kinds = frozenset(a["type"] for a in mine["actions"])
            if looks < LOOKS and kinds not in seen:  # each new kind of choice (a turn, a Crisis's cards to Use…)
                seen.add(kinds)
                bars += look(page, game, f"turn{accepted}", problems)
                looks += 1
            ack = phone_act(page, mine, filled(rng.choice(by_hand(mine["actions"]))))
        else:
            bot = rng.choice(ready)
            ack = bot.call("act", {"version": bot.view["version"], "action": filled(rng.choice(by_hand(bot.view["actions"])))})
        accepted += bool(ack.get("ok"))
    if phone_view(page)["status"] == "playing":
        end_table(server.url, token, code)
    page.locator(".end-screen, .result").first.wait_for()
    look(page, game, "ended", problems)
    for bot in bots:
        bot.close()
    page.context.close()
    assert looks and bars, f"{game}: the phone never had its turn with its bar shown"
    assert not problems, "\n".join(sorted(problems))


def test_the_wizard_demo_header_names_the_computer_in_full(server, browser):  # noqa: F811
    """The guided Wizard demo on a phone: its rival's name, "Computer wizard", is not cut, and
    the dice it must roll first say "Tap", not "Click"."""
    page = browser.new_context(**PHONE).new_page()
    page.goto(server.url + "/")
    page.get_by_role("button", name=re.compile(r": Wizard Duel$")).first.click()
    page.locator(".wiz-duelists .wiz-head").nth(1).wait_for()
    page.get_by_text("Computer wizard").first.wait_for()
    settle(page)
    shot(page, "phone-layout-wizard-demo")
    problems = page.evaluate(CUT) + mouse_words(page)
    # The initiative rolled: both names over their dice and totals.
    page.locator(".wiz-thumb .wiz-dice.clickable").click()  # (not lost if the dice are redrawn meanwhile: dom.js)
    page.locator(".wiz-dice-initiative.rolled").first.wait_for()
    settle(page)
    shot(page, "phone-layout-wizard-demo-rolled")
    problems += page.evaluate(CUT) + mouse_words(page)
    page.context.close()
    assert not problems, "\n".join(problems)


# The moves that bring a Water Cycle Crisis soonest: defuse the Collapse, draw, hand a
# Crisis back (the scripted phone gives up its own), answer and vote on anything else.
CRISIS_SOON = ["defuse", "draw", "give_up", "answer", "vote", "discard", "leak", "take", "respond"]


def soonest(actions, rng):
    for kind in CRISIS_SOON:
        listed = [a for a in actions if a["type"] == kind]
        if listed:
            return rng.choice(listed)
    return rng.choice(actions)


def test_the_crisis_cards_to_use_are_clear_of_the_bar(server, browser):  # noqa: F811
    """Water Cycle's Crisis on the phone at 360×740, its first screen (choose the cards to
    use): neither as the Crisis comes (the page at its top) nor at the foot of the page
    does a Use button, a card or a log line lie under a bar at the bottom of the screen,
    nor is any text cut."""
    token = server.api_token("teacher", FACILITATOR_PASSWORD)
    code = server.create_table(token, "water_cycle")
    page = phone_page(browser, server.url, code, "Benedikt-Alexander")
    bot = LivePhone(server.url)
    bot.join(code, "Ana")
    page.wait_for_function("() => window.__view && window.__view.actions.some((a) => a.type === 'start')")
    assert phone_act(page, phone_view(page), {"type": "start"})["ok"]
    rng = random.Random("crisis")
    for _ in range(600):
        mine = phone_view(page)
        assert mine["status"] == "playing", "the game ended before the phone drew a Crisis"
        if any(a["type"] == "pick" for a in mine["actions"]) and not any(a["type"] == "explain" for a in mine["actions"]):
            break
        if mine["actions"]:
            phone_act(page, mine, filled(soonest(mine["actions"], rng)))
        elif bot.view and bot.view["actions"]:
            bot.call("act", {"version": bot.view["version"], "action": filled(soonest(bot.view["actions"], rng))})
        else:
            page.wait_for_timeout(100)  # a timer of the game's moves next
    else:
        raise AssertionError("the phone never drew a Crisis")
    page.locator(".wcc-thumb .wcc-giveup").wait_for()
    problems: set[str] = set()
    look(page, "water_cycle", "crisis-choose", problems)
    first = page.evaluate(UNDER_THE_BAR, False)   # the screen as the Crisis comes
    page.screenshot(path=str(ARTIFACTS / "phone-layout-water_cycle-crisis-choose-first.png"))
    problems.update(f"first screen: {problem}" for problem in first["found"])
    assert page.locator(".wcc-card-btn", has_text="Use").count(), "no card to Use"
    bot.close()
    page.context.close()
    assert not problems, "\n".join(sorted(problems))
