"""The teacher's pages: the shipped font and icons, the dashboard's first steps, the
moderation panel's grouping, the class overview's "waiting on" alert and the class board."""
from __future__ import annotations

import re
import subprocess
import zlib
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import Session

from app.extensions import services
from app.store.models import Event, GameTable, utcnow
from phones import seated
from test_classes import api, classes, logged_in, new_class  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parent.parent
FONTS = ROOT / "static" / "fonts"
OWNED = ["templates/base.html", "templates/home.html", "templates/facilitator", "templates/classes",
         "templates/reports", "static/js/facilitator.js", "static/js/overview.js", "static/js/classboard.js",
         "static/css/classes.css", "static/css/fonts.css"]


def _owned_text():
    for entry in OWNED:
        path = ROOT / entry
        for f in ([path] if path.is_file() else sorted(path.rglob("*"))):
            if f.is_file():
                yield f, f.read_text(encoding="utf-8")


# ------------------------------------------------------------ fonts and icons
def test_the_font_ships_with_its_licence_and_covers_every_glyph_the_pages_use():
    ttLib = pytest.importorskip("fontTools.ttLib")
    assert (FONTS / "DejaVuSans.ttf").is_file() and (FONTS / "DejaVuSans-Bold.ttf").is_file()
    licence = (FONTS / "LICENSE").read_text()
    assert "Permission is hereby granted" in licence and "Bitstream" in licence
    covered = [set(ttLib.TTFont(FONTS / name).getBestCmap()) for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")]
    files = subprocess.run(["git", "ls-files", "templates", "static/js", "static/css", "static/games", "app"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    missing = {}
    for name in files:
        if name.endswith((".min.js", ".ttf", ".svg", ".png")):
            continue
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for ch in set(text):
            if ord(ch) > 127 and not all(ord(ch) in c for c in covered):
                missing.setdefault(ch, []).append(name)
    assert not missing, f"glyphs the shipped font lacks (use an icon from static/icons/): {missing}"


def test_the_teacher_pages_use_icons_not_emoji_and_no_outside_assets():
    emoji = re.compile("[\u2600-\u27bf\U0001f000-\U0001faff\u2139]")
    allowed = set("●○◆♠♣♥♦")  # drawn by the shipped font (checked above)
    for path, text in _owned_text():
        found = {ch for ch in emoji.findall(text) if ch not in allowed}
        assert not found, f"{path}: {found}"
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), f"{path} loads an outside asset"
        assert "@import url(http" not in text and "fonts.googleapis" not in text
    for name in ("trophy", "warning", "info", "message"):
        svg = (ROOT / "static" / "icons" / f"{name}.svg").read_text()
        assert svg.startswith("<svg") and "http://www.w3.org/2000/svg" in svg and "href" not in svg


def test_every_page_links_the_font_sheet_which_serves_the_files(app):
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    assert "/static/css/fonts.css" in page
    css = client.get("/static/css/fonts.css").get_data(as_text=True)
    assert "@font-face" in css and "../fonts/DejaVuSans.ttf" in css and "../fonts/DejaVuSans-Bold.ttf" in css
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "LICENSE"):
        assert client.get(f"/static/fonts/{name}").status_code == 200
    for name in ("trophy", "warning", "info", "message"):
        response = client.get(f"/static/icons/{name}.svg")
        assert response.status_code == 200 and response.mimetype == "image/svg+xml"


def test_the_reports_embed_the_shipped_font(app, teacher_token, war_table):
    pytest.importorskip("weasyprint")
    client = app.test_client()
    pdf = client.get(f"/api/tables/{war_table.code}/debrief.pdf",
                     headers={"Authorization": f"Bearer {teacher_token}"})
    assert pdf.status_code == 200
    streams = [pdf.data]
    for raw in re.findall(rb"stream\r?\n(.*?)endstream", pdf.data, re.S):
        try:
            streams.append(zlib.decompress(raw))
        except zlib.error:
            pass
    fonts = {m for s in streams for m in re.findall(rb"/(?:BaseFont|FontName)\s*/[A-Z]+\+([A-Za-z\-]+)", s)}
    # Only the shipped files (embedded under their @font-face family), page numbers included.
    assert fonts and all(f.startswith(b"Report-Sans") for f in fonts), fonts
    from app.reports import debrief_html
    with app.app_context():
        html = debrief_html(services(app).tables, war_table.code)
    assert f"{FONTS.resolve().as_uri()}/DejaVuSans.ttf" in html


# ------------------------------------------------------------------ dashboard
def test_the_dashboard_welcomes_a_teacher_without_tables_with_the_next_steps(app, teacher, tables):
    client, _csrf = logged_in(app)
    page = client.get("/facilitator/").get_data(as_text=True)
    assert 'id="first-steps"' in page
    steps = re.findall(r'<li class="step">(.*?)</li>', page, re.S)
    assert len(steps) == 3
    assert "table" in steps[0] and "class" in steps[0]
    assert "board" in steps[1] and "projector" in steps[1]
    assert "code" in steps[2] and "QR" in steps[2]
    tables.create_table(teacher.id, "war", {})
    page = client.get("/facilitator/").get_data(as_text=True)
    assert 'id="first-steps"' not in page


# ------------------------------------------------------------ moderation page
def test_the_moderation_page_keeps_safe_and_risky_controls_apart(app, teacher, war_table):
    client, _csrf = logged_in(app)
    page = client.get(f"/facilitator/tables/{war_table.code}").get_data(as_text=True)
    for element in ("mod-buttons", "mod-danger", "mod-players", "table-status", "mod-error", "game-actions",
                    "game-action-buttons"):
        assert f'id="{element}"' in page, element
    assert page.index('id="mod-buttons"') < page.index('id="mod-danger"')
    script = client.get("/static/js/facilitator.js").get_data(as_text=True)
    assert "window.confirm" in script and "End this game for everyone?" in script


# -------------------------------------------------------------- class overview
def _age_events(app, table_id, seconds):
    with Session(services(app).db) as s:
        s.execute(update(Event).where(Event.table_id == table_id).values(at=utcnow() - timedelta(seconds=seconds)))
        code = s.get(GameTable, table_id).code
        s.commit()
    services(app).tables.forget(code)  # the overview reads the live copy: reloaded, it has the time too


def test_an_alert_names_the_students_a_table_has_waited_on_for_30_seconds(app, api, phone, classes, tables):
    code = new_class(api, table_size=2)
    ana, ben = seated(phone, code, "Ana", "Ben")
    api("post", f"/api/classes/{code}/start")
    table = tables.get(ana.table)

    def stalled():
        return [a for a in classes.overview(code)["alerts"] if a["kind"] == "stalled"]

    _age_events(app, table.id, 10)
    assert stalled() == []  # ten seconds is thinking time
    _age_events(app, table.id, 45)
    [alert] = stalled()
    assert alert["level"] == "attention" and alert["number"] == 1 and alert["table"] == ana.table
    assert alert["text"] in ("Waiting on Ana and Ben for 45 s", "Waiting on Ana and Ben for 46 s")
    assert sorted(alert["seats"]) == [0, 1]

    assert ana.can("reveal") and ana.act({"type": "reveal"})["ok"]
    assert stalled() == []  # a move restarts the clock
    _age_events(app, table.id, 40)  # Ana played: only Ben is waited on
    [alert] = stalled()
    assert alert["text"].startswith("Waiting on Ben for 4") and alert["seats"] == [ben.seat]

    api("post", f"/api/classes/{code}/pause")
    assert stalled() == []  # a paused table waits on no one
    api("post", f"/api/classes/{code}/resume")
    _age_events(app, table.id, 200)
    texts = {a["kind"]: a["text"] for a in classes.overview(code)["alerts"]}
    assert texts["stalled"].endswith("for 3 minutes") and "idle" in texts
    api("post", f"/api/classes/{code}/end")
    assert stalled() == []


def test_no_waiting_alert_for_computer_seats(app, api, phone, classes, tables):
    code = new_class(api, table_size=2, fill_with_computer=True)
    [ana] = seated(phone, code, "Ana")
    api("post", f"/api/classes/{code}/start")
    table = tables.get(ana.table)
    _age_events(app, table.id, 60)
    for alert in classes.overview(code)["alerts"]:
        if alert["kind"] == "stalled":
            assert alert["text"].startswith("Waiting on Ana for ")


# ------------------------------------------------------------------ class board
def test_the_class_board_hides_a_message_as_the_phones_do_and_says_when_closed(app):
    script = (ROOT / "static" / "js" / "classboard.js").read_text()
    phone_script = (ROOT / "static" / "js" / "play.js").read_text()
    phone_ms = re.search(r"flash\.timer = setTimeout\(.*, (\d+)\);", phone_script)
    board_ms = re.search(r"const MESSAGE_MS = (\d+)", script)
    assert phone_ms and board_ms and phone_ms.group(1) == board_ms.group(1)
    assert 'data.status === "ended"' in script and "closed-banner" in script
    page = (ROOT / "templates" / "classes" / "board.html").read_text()
    assert 'id="closed-banner"' in page and "closed" in page


# ------------------------------------------------------------------ in a browser
@pytest.mark.browser
def test_the_teacher_pages_in_a_browser(tmp_path_factory):
    """Dashboard welcome, overview alert with icons, moderation panel, class board message and
    closed state; no request leaves the server. Screenshots land in test-artifacts/."""
    import sqlite3

    from browser import FACILITATOR_PASSWORD, new_game_form, shared_browser, shot
    from live import LivePhone, LiveServer
    from test_accessibility import violations

    srv = LiveServer(tmp_path_factory.mktemp("teacher"))
    srv.add_facilitator("teacher", FACILITATOR_PASSWORD)
    srv.start()
    browser = shared_browser()
    try:
        outside = []
        context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)  # for axe
        context.on("request", lambda r: None if r.url.startswith((srv.url, "data:", "blob:"))
                   else outside.append(r.url))
        fac = context.new_page()
        fac.on("dialog", lambda d: d.accept())
        fac.goto(srv.url + "/facilitator/")
        fac.get_by_label("Name").fill("teacher")
        fac.get_by_label("Password").fill(FACILITATOR_PASSWORD)
        fac.get_by_role("button", name="Log in").click()
        fac.get_by_role("heading", name=re.compile("three steps to your first game")).wait_for()
        assert fac.locator("#first-steps li.step").count() == 3
        assert fac.evaluate("document.fonts.check('16px \"DejaVu Sans\"', '●○◆')")
        shot(fac, "teacher-dashboard-welcome")
        problems = {"dashboard welcome": violations(fac)}

        new_game_form(fac, srv.url, "war", "class")
        fac.locator("#class-war-size").select_option("2")
        fac.get_by_role("button", name="Create a War class session").click()
        fac.wait_for_url(re.compile(r"/facilitator/classes/[A-Z0-9]{6}$"))
        code = fac.url.rsplit("/", 1)[1]
        with fac.expect_popup() as popup:
            fac.get_by_role("link", name="Open the class board in a new window").click()
        board = popup.value
        board.set_viewport_size({"width": 1280, "height": 720})
        phones = [LivePhone(srv.url) for _ in range(2)]
        for sim, name in zip(phones, ["Ana", "Ben"]):
            sim.join(code, name)
        fac.get_by_text("2 students (2 connected) at 1 table").wait_for()
        fac.get_by_role("button", name="Balance and start every waiting table").click()
        fac.locator(".status-badge.status-playing").first.wait_for()

        # The last move was 45 s ago: the server reads the times of its live tables when it
        # loads them, so it is stopped while the database is backdated (phones and board reconnect).
        # The board notes when it is back in its class's room: connected again, then a class
        # view (the watch's answer, sent once the room is joined). A message sent before that
        # would not reach it (a shuffled run saw it).
        board.evaluate("""() => { const badge = document.getElementById('connection');
            let away = false;
            new MutationObserver(() => { if (badge.dataset.state !== 'online') away = true;
                                         else if (away) window.__online = true; })
                .observe(badge, {attributes: true, attributeFilter: ['data-state']});
            new MutationObserver(() => { if (window.__online) window.__rejoined = true; })
                .observe(document.getElementById('tables'), {childList: true}); }""")
        srv.stop()
        db = sqlite3.connect(srv.instance / "live.db")
        db.execute("UPDATE event SET at = datetime('now', '-45 seconds')")
        db.commit()
        db.close()
        srv.start()
        fac.reload()
        # 45 s or more: a restart and a reload on a loaded machine take seconds of their own.
        waiting = fac.get_by_text(re.compile(r"Waiting on Ana and Ben for \d+ (s|min)")).first
        waiting.wait_for()
        seconds = re.search(r"for (\d+) s", waiting.inner_text())
        assert seconds is None or int(seconds.group(1)) >= 45, waiting.inner_text()
        icon = fac.locator(".alert-item.level-attention .alert-icon img").first
        assert icon.evaluate("img => img.complete && img.naturalWidth > 0")
        shot(fac, "teacher-overview-waiting-alert")
        problems["overview with an alert"] = violations(fac)

        # How long the board shows the message, timed by the page itself (its `hidden` flips).
        board.evaluate("""() => { const box = document.getElementById('message');
            new MutationObserver(() => { window.__messageTimes = (window.__messageTimes || []).concat(
                [[box.hidden, performance.now()]]); }).observe(box, {attributes: true, attributeFilter: ['hidden']}); }""")
        board.wait_for_function("() => window.__rejoined === true")
        fac.get_by_label("Message to every phone").fill("Five minutes left")
        fac.get_by_role("button", name="Send to every phone").click()
        message = board.locator("#message")
        message.wait_for(state="visible")
        assert "Five minutes left" in message.inner_text()
        shot(board, "teacher-classboard-message")
        message.wait_for(state="hidden")
        times = board.evaluate("window.__messageTimes")
        shown_at = next(t for hidden, t in times if not hidden)
        hidden_at = next(t for hidden, t in times if hidden and t > shown_at)
        assert 3900 <= hidden_at - shown_at < 10_000, times  # classboard.js MESSAGE_MS: 4 s, as on the phones

        table_url = fac.locator(".class-table a", has_text="Moderation panel").first.get_attribute("href")
        mod = context.new_page()
        mod.on("dialog", lambda d: d.accept())
        mod.goto(srv.url + table_url)
        mod.locator("#mod-buttons").get_by_role("button", name="Pause the game").wait_for()
        assert mod.locator("#mod-danger").get_by_role("button", name="End the game").count() == 1
        assert mod.locator("#mod-buttons").get_by_role("button", name="End the game").count() == 0
        assert mod.get_by_role("button", name="Remove Ana").count() == 1
        shot(mod, "teacher-table-moderation")
        problems["moderation panel"] = violations(mod)

        fac.get_by_role("button", name="End every table").click()
        board.get_by_role("heading", name="This class session is closed").wait_for()
        assert board.locator("#join-strip").is_hidden()
        board.locator(".result-line img.icon").first.wait_for()
        shot(board, "teacher-classboard-closed")
        problems["closed class board"] = violations(board)
        assert not any(problems.values()), problems
        for sim in phones:
            sim.close()
        assert outside == [], outside
    finally:
        for context in browser.contexts:
            context.close()
        srv.stop()
