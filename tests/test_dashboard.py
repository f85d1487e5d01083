"""Issue 21, the teacher's dashboard: what is running first (codes, one click to its
board), a picker of game cards leading to one short form per game (table / class /
one device as a choice, presets first, the rest under More options), friendly names,
every time in the teacher's own zone (the cg_tz cookie), and the app's icons, manifest
and display font."""
from __future__ import annotations

import html
import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy import update
from sqlmodel import Session

from app import engines
from app.extensions import services
from app.facilitator.clock import valid_zone
from app.store.models import GameTable
from test_classes import logged_in

ROOT = Path(__file__).resolve().parent.parent


def visible_text(page: str) -> str:
    """What a reader sees: no tags, no scripts, no attribute values."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def created_at(app, code: str, moment: datetime) -> None:
    with Session(services(app).db) as s:
        s.execute(update(GameTable).where(GameTable.code == code).values(created_at=moment))
        s.commit()


# ------------------------------------------------------------------ time zone
@pytest.mark.parametrize("name", ["Europe/Paris", "America/Argentina/Buenos_Aires", "UTC", "Etc/GMT+5"])
def test_a_real_zone_is_accepted(name):
    assert valid_zone(name) == name


@pytest.mark.parametrize("name", ["", None, "Mars/Olympus_Mons", "../../etc/passwd", "/etc/localtime",
                                  "Europe/Paris\x00", "Europe//Paris", "Europe/Paris; path=/", "A" * 80,
                                  "europe paris"])
def test_anything_else_is_refused(name):
    assert valid_zone(name) is None


def test_times_show_in_the_teachers_zone_and_report_links_carry_it(app, teacher, tables):
    client, _ = logged_in(app)
    table = tables.create_table(teacher.id, "war", {})
    created_at(app, table.code, datetime(2025, 7, 4, 15, 30, tzinfo=timezone.utc))
    client.set_cookie("cg_tz", "America/New_York")
    page = client.get("/facilitator/").get_data(as_text=True)
    assert '<time datetime="2025-07-04T15:30:00+00:00">4 Jul 2025 11:30</time>' in page   # EDT is UTC-4
    assert "Times are shown in America/New_York" in page
    moderation = client.get(f"/facilitator/tables/{table.code}").get_data(as_text=True)
    assert f'href="/facilitator/tables/{table.code}/debrief.pdf?tz=America/New_York"' in moderation
    assert f'href="/api/tables/{table.code}/log.csv?tz=America/New_York"' in moderation

    # A name zoneinfo does not know is ignored: UTC, and the page says so.
    client.set_cookie("cg_tz", "../../etc/passwd")
    page = client.get("/facilitator/").get_data(as_text=True)
    assert ">4 Jul 2025 15:30 UTC</time>" in page
    assert "tz=" not in client.get(f"/facilitator/tables/{table.code}").get_data(as_text=True)


# ------------------------------------------------------------------ dashboard
def test_running_games_come_first_with_their_codes_friendly_names_and_board(app, teacher, tables):
    client, _ = logged_in(app)
    running = [tables.create_table(teacher.id, game, {}) for game in ("war", "storm_war", "wizard", "water_cycle")]
    finished = tables.create_table(teacher.id, "war", {})
    with Session(services(app).db) as s:
        s.execute(update(GameTable).where(GameTable.code == finished.code).values(status="ended"))
        s.commit()
    klass = services(app).classes.create(teacher.id, "storm_war", {}, None, False, True, False)
    page = client.get("/facilitator/").get_data(as_text=True)
    head = page[:page.index('id="new-game-title"')]
    for t in running:
        assert f">{t.code}</span>" in head
        assert f'href="/board/{t.code}" target="_blank"' in head
    assert f">{klass.code}</span>" in head and f'href="/facilitator/classes/{klass.code}"' in head
    assert finished.code not in head   # finished games come after the picker
    assert page.index(f">{finished.code}</span>") > page.index('id="new-game-title"')
    text = visible_text(page)
    assert "storm_war" not in text and "water_cycle" not in text
    assert "Storm War" in text and "Water Cycle Challenge" in text and "Waiting for players" in text
    # The old page repeated every game's whole form three times; the dashboard has none.
    assert 'name="table_size"' not in page and 'name="player1"' not in page


def test_the_picker_shows_each_game_as_a_card_leading_to_its_form(app, teacher):
    client, _ = logged_in(app)
    page = client.get("/facilitator/").get_data(as_text=True)
    cards = re.findall(r'<li class="card game-card">(.*?)</li>\s*(?=<li class="card game-card">|</ul>)', page, re.S)
    playable = [g for g in engines.games() if g["playable"]]
    assert len(cards) == len(playable)
    for game, card in zip(playable, cards):
        assert f'href="/facilitator/new/{game["key"]}">{html.escape(game["title"])}</a>' in card
        assert "Players" in card and game["seats"] in card
    war = next(c for g, c in zip(playable, cards) if g["key"] == "war")
    assert re.search(r"Minutes</span> 5–15", war) and re.search(r"Ages</span> 6\+", war)


def test_the_new_game_form_offers_table_class_and_one_device(app, teacher):
    client, _ = logged_in(app)
    page = client.get("/facilitator/new/war").get_data(as_text=True)
    assert re.findall(r'<input type="radio" name="as" id="as-(\w+)" value="\w+"( checked)?>', page) == [
        ("table", " checked"), ("class", ""), ("device", "")]
    for action, button in (("/facilitator/tables", "Create a War table"),
                           ("/facilitator/classes", "Create a War class session"),
                           ("/facilitator/hotseat", "Create a War hotseat game")):
        form = re.search(rf'<form method="post" action="{action}"(.*?)</form>', page, re.S).group(1)
        assert button in form
        # Presets first; the options after them, folded under More options.
        assert form.index("data-presets") < form.index("More options") < form.index('name="mode"')
    assert re.search(r'id="as-class" value="class" checked',
                     client.get("/facilitator/new/war?as=class").get_data(as_text=True))
    assert re.search(r'id="as-table" value="table" checked',
                     client.get("/facilitator/new/war?as=nonsense").get_data(as_text=True))
    assert client.get("/facilitator/new/no_such_game").status_code == 404


def test_logging_in_returns_to_the_page_asked_for_with_its_query(app, teacher):
    client = app.test_client()
    response = client.get("/facilitator/new/war?as=device")
    assert response.status_code == 302
    assert "next=/facilitator/new/war?as%3Ddevice" in response.headers["Location"]
    client.get("/facilitator/login")
    with client.session_transaction() as sess:
        csrf = sess["csrf"]
    from conftest import PASSWORD
    done = client.post("/facilitator/login?next=/facilitator/new/war?as%3Ddevice",
                       data={"name": "teacher", "password": PASSWORD, "csrf": csrf})
    assert done.headers["Location"] == "/facilitator/new/war?as=device"


# ------------------------------------------------------------------ icons, manifest, display font
def test_the_app_has_a_favicon_an_app_icon_and_a_manifest(app):
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    assert '<link rel="icon" href="/static/icons/app.svg" type="image/svg+xml">' in page
    assert '<link rel="manifest" href="/static/manifest.json">' in page
    assert '<link rel="apple-touch-icon" href="/static/icons/apple-touch-icon.png">' in page
    manifest = json.loads(client.get("/static/manifest.json").get_data(as_text=True))
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone" and manifest["name"]
    sizes = {}
    for icon in manifest["icons"]:
        response = client.get(icon["src"])
        assert response.status_code == 200, icon
        if icon["type"] == "image/png":
            sizes[icon["sizes"]] = Image.open(ROOT / icon["src"].lstrip("/")).size
    assert sizes["192x192"] == (192, 192) and sizes["512x512"] == (512, 512)   # what "add to home screen" needs
    assert any(i.get("purpose") == "maskable" for i in manifest["icons"])


def test_the_display_font_ships_with_its_open_font_licence(app):
    client = app.test_client()
    css = client.get("/static/css/fonts.css").get_data(as_text=True)
    assert 'font-family: "Fredoka"' in css and "../fonts/Fredoka-600.woff2" in css
    font = client.get("/static/fonts/Fredoka-600.woff2")
    assert font.status_code == 200 and font.data[:4] == b"wOF2"
    licence = (ROOT / "static" / "fonts" / "Fredoka-OFL.txt").read_text()
    assert "SIL Open Font License, Version 1.1" in licence and "Fredoka Project Authors" in licence
