"""A pseudo-locale run (issue 23): a third language is catalogs and data files only, and
every text a student reads goes through them.

`app/i18n/pseudo.py` writes the pseudo-locale "eo" (every catalog and content text
accented, a third longer and bracketed: "[Ŵåîţîñĝ ƒöŕ {name}. ·····]") into a folder of
the test's own; the app reads it from there (EXTRA_TRANSLATIONS), never from the package.
Pseudo text has no ASCII letters left, so any run of ASCII letters a phone gets in a text
field is English nobody marked or the translation layer missed — unless it is on the short
ALLOWED list below (what is rightly never translated: the players' names, the table's code).
"""
from __future__ import annotations

import json
import random
import re
from html.parser import HTMLParser

import pytest

from app import i18n
from app.i18n import pseudo
from app.i18n.localizer import ACTION_TEXT, EXACT_ONLY_ENTRIES, KEEP
from browser import installed_games  # the games of app/engines/, not a test game another module registered

LANG = pseudo.PSEUDO_LANG
NAMES = ("Ana", "Ben", "Cara")
# Rightly not translated (besides the players' names and the table's code, added per table):
ALLOWED = frozenset({
    # War's computer opponents are player names (docs/i18n/glossary-es.md).
    "Moss", "Nova", "Pip", "Quill", "Rook", "Vale",
    # The language picker names each language in itself.
    "English", "Español",
    # The home page's example code (the code field's placeholder), and a code no table has.
    "ABC234", "ZZZZZZ",
})
# Moves a random player never makes: they end its part in the game.
QUIT = frozenset({"leave", "quit", "concede", "resign", "forfeit"})
ASCII_WORD = re.compile(r"[A-Za-z]{2,}")
# Not texts: values a page matches on (the Localizer leaves them too), addresses.
NOT_TEXT = re.compile(r"^[a-z0-9_\-.]+$|^/|^https?://")


@pytest.fixture(scope="module")
def pseudo_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("pseudo")
    pseudo.write(root)
    return root


@pytest.fixture
def app(tmp_path, pseudo_root):
    """This module's app (the `phone` fixture's too) reads the pseudo-locale's root."""
    from conftest import make_app

    from app.extensions import services

    app = make_app(tmp_path, EXTRA_TRANSLATIONS=str(pseudo_root))
    yield app
    services(app).stop()
    i18n.set_extra_roots([])  # the next app of this process speaks only the package's languages


def texts(value, key=None, in_action=False, path=""):
    """(where, text) of every readable text in a payload, as the Localizer sees them."""
    if isinstance(value, str):
        if key not in KEEP:
            yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            if value.get("t") in EXACT_ONLY_ENTRIES and k not in ("text", "title"):
                continue  # a ruling's data fields: its text is what is read
            if in_action and k not in ACTION_TEXT:
                continue
            yield from texts(v, k, in_action=in_action or k == "actions", path=f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from texts(v, key, in_action=in_action, path=f"{path}[{i}]")


def english_left(text: str, allowed: set[str]) -> list[str]:
    if NOT_TEXT.match(text):
        return []
    text = re.sub(r"https?://\S+", "", text)
    for word in sorted(allowed, key=len, reverse=True):  # a name, a code: never a reason
        text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", " ", text)
    return ASCII_WORD.findall(text)


def test_the_pseudo_locale_keeps_fields_and_is_a_language_of_its_own(pseudo_root, app):
    english = "Waiting for {name}, %(n)s <b>now</b>."
    text = pseudo.pseudo(english)
    assert text.startswith("[Ŵåîţîñĝ ƒöŕ {name}, %(n)s <b>ñöŵ</b>. ·") and text.endswith("·]")
    assert 1.3 * len(english) <= len(text) <= 1.4 * len(english) + 2 and pseudo.is_pseudo(text)
    assert LANG in i18n.languages() and "es" in i18n.languages()
    # Nothing of it is in the package: the app was told where it is.
    assert not (i18n.PLATFORM_TRANSLATIONS / LANG).exists()
    for key in installed_games():
        assert (pseudo_root / key / "translations" / LANG / "LC_MESSAGES" / f"{key}.mo").is_file()
    assert pseudo.is_pseudo(i18n.localize("Waiting for players to join.", LANG))
    assert pseudo.is_pseudo(i18n.localize("Storm War cards", LANG, "storm_war"))


@pytest.mark.parametrize("game", installed_games())
def test_a_pseudo_phone_reads_no_english_at_any_game(app, phone, game):
    """Three phones in the pseudo language play a game at random for a while: every text
    they are sent (prompts, action labels, log lines, cards, refusals) is pseudo."""
    from app.extensions import services

    tables = services(app).tables
    teacher = services(app).accounts.add("teacher", "a-long-test-password")
    table = tables.create_table(teacher.id, game, {}, language=LANG)
    board = phone()
    assert board.send("watch", {"code": table.code})["ok"]
    phones = []
    for name in NAMES:
        p = phone(auth={"lang": LANG})
        if p.join(table.code, name)["ok"]:
            phones.append(p)
    assert len(phones) >= 2
    allowed = set(ALLOWED) | set(NAMES) | {table.code}
    rng = random.Random(23)
    found: dict[str, str] = {}

    read = []

    def look(who, payload):
        for where, text in texts(payload):
            read.append(text)
            if english_left(text, allowed):
                found.setdefault(text, f"{who}{where}")

    start = phones[0].act({"type": "start"})
    assert start["ok"], start
    for _ in range(40):  # enough for every kind of turn, log line and prompt of a round or two
        moved = False
        for p in phones:
            view = p.pump()
            actions = [a for a in view["actions"] if a.get("type") not in QUIT]
            if actions:
                ack = p.act(rng.choice(actions))
                if not ack["ok"]:
                    look("refusal", ack["error"])
                moved = True
        if phones[0].pump()["status"] == "ended" or not moved:
            break
    wrong = phones[0].send("act", {"version": phones[0].view["version"], "action": {"type": "no_such_move"}})
    assert wrong["ok"] is False
    look("refusal", wrong["error"])
    for p in [*phones, board]:
        for payload in p.received("view"):
            look("view", payload)
    # It read a game, not an empty page: prompts, labels and log lines, in pseudo.
    assert sum(pseudo.is_pseudo(t) for t in read) > 50, read[:20]
    assert not found, f"{game}: {len(found)} English texts a pseudo reader got:\n" + "\n".join(
        f"  {where}: {text!r}" for text, where in sorted(found.items(), key=lambda kv: kv[1]))


class _Text(HTMLParser):
    """A page's visible text and its readable attributes (title, placeholder, aria-label, alt)."""

    def __init__(self):
        super().__init__()
        self.out: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        for name, value in attrs:
            if name in ("title", "placeholder", "aria-label", "alt") and value:
                self.out.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip and data.strip():
            self.out.append(data.strip())


def page_english(html: str, allowed: set[str]) -> list[str]:
    parser = _Text()
    parser.feed(html)
    return [t for t in parser.out if english_left(t, allowed)]


def test_the_student_pages_and_their_script_catalog_are_pseudo(app):
    from app.extensions import services

    tables = services(app).tables
    teacher = services(app).accounts.add("teacher", "a-long-test-password")
    client = app.test_client()
    client.set_cookie(i18n.COOKIE, LANG)
    found = {}
    made = {game: tables.create_table(teacher.id, game, {}, language=LANG) for game in installed_games()}
    allowed = set(ALLOWED) | {table.code for table in made.values()}
    for game, table in made.items():
        for url in ("/", "/?code=ZZZZZZ", "/join/ZZZZZZ", f"/join/{table.code}", f"/games/{game}/cards",
                    f"/board/{table.code}"):
            answer = client.get(url)
            if answer.status_code not in (200, 404) or "html" not in answer.content_type:
                continue
            html = answer.get_data(as_text=True)
            assert f'lang="{LANG}"' in html, url
            for text in page_english(html, allowed):
                found.setdefault(text, url)
    script = client.get(f"/i18n/{LANG}.js")
    assert script.status_code == 200
    body = script.get_data(as_text=True)
    messages = json.loads(body[len("window.CG_I18N = "):].rstrip().rstrip(";"))["messages"]
    assert messages, "the browser's catalog is empty"
    for english, translated in messages.items():
        for form in ([translated] if isinstance(translated, str) else translated):
            if not pseudo.is_pseudo(form):
                found.setdefault(form, f"/i18n/{LANG}.js")
    assert not found, f"{len(found)} English texts on the student pages:\n" + "\n".join(
        f"  {where}: {text!r}" for text, where in sorted(found.items(), key=lambda kv: kv[1]))


def test_a_name_holding_a_templates_words_is_read_as_the_name(tmp_path):
    """Found by the pseudo run: "Play Downpour on Bare Soil" is "Play {card}" with a card
    named "Downpour on Bare Soil", not "Play {card} on {target}"; a split whose fields are
    all known texts wins over the first match, and a name still stays a name."""
    from test_i18n import write_po

    from app.i18n.localizer import Localizer

    po = write_po(tmp_path / "g.po", [
        ("Play {card}", "Jugar {card}"), ("Play {card} on {target}", "Jugar {card} sobre {target}"),
        ("Downpour on Bare Soil", "Chaparrón sobre Suelo Desnudo"), ("Stream", "Arroyo"),
        ("Downpour", "Chaparrón"), ("{name} joined.", "{name} se unió.")])
    tr = Localizer("es", [po])
    assert tr.text("Play Downpour on Bare Soil") == "Jugar Chaparrón sobre Suelo Desnudo"
    assert tr.text("Play Downpour on Bare Soil on Stream") == "Jugar Chaparrón sobre Suelo Desnudo sobre Arroyo"
    assert tr.text("Play Downpour on Stream") == "Jugar Chaparrón sobre Arroyo"
    assert tr.text("Ana on Ben joined.") == "Ana on Ben se unió."
