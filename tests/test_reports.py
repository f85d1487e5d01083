"""Reports: debrief sheets per table (every game), the class debrief, the playtest report
and the exports, read back from the PDFs with pypdf; one page rendered with pdftoppm.

Games are seeded through the table service (tests/report_seed.py): computer logic in
every seat, the teacher deciding what waits for them, notes written along the way.
"""
from __future__ import annotations

import io
import re
import shutil
import subprocess
from datetime import datetime, timedelta, timezone

import pypdf
import pytest
from sqlmodel import Session, select

from app import engines
from app.extensions import services
from app.store.models import Event, GameTable
from report_seed import play

TEACHER_NOTE = "Teacher only: Ben needed a hint about the Bucket."
STUDENT_NOTE = "The Crisis card names were confusing."
NOTES = (("Facilitator teacher", TEACHER_NOTE), ("Ana", STUDENT_NOTE))
GAMES = {
    "water_cycle": (["Ana", "Ben", "Cara", "Dev"], {"crisis_mode": "on"}),
    "storm_war": (["Ana", "Ben", "Cara"], {}),
    "wizard": (["Ana", "Ben"], {}),
    "war": (["Ana", "Ben", "Cara"], {}),
    "dicerace": (["Ana", "Ben", "Cara"], {}),
}
# The conftest's app, told about the test-only game too.
pytestmark = pytest.mark.app_config(GAME_MODULES=["testgames.dicerace"])


def text_of(pdf: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return "\n".join(page.extract_text() for page in reader.pages)


def flat(text: str) -> str:
    """PDF text with line breaks and hyphenation undone, for substring checks."""
    return re.sub(r"\s+", " ", text)


def contains(text: str, wanted: str) -> bool:
    squash = lambda s: re.sub(r"\s+", "", s)  # noqa: E731 - a table cell wraps anywhere
    return squash(wanted) in squash(text)


def fonts_of(pdf: bytes) -> set[str]:
    fonts = set()
    for page in pypdf.PdfReader(io.BytesIO(pdf)).pages:
        for font in (page["/Resources"].get("/Font") or {}).values():
            fonts.add(str(font.get_object()["/BaseFont"]).split("+")[-1])
    return fonts


def text_of_page(pdf: bytes, index: int) -> str:
    return pypdf.PdfReader(io.BytesIO(pdf)).pages[index].extract_text()


def pages(pdf: bytes) -> int:
    return len(pypdf.PdfReader(io.BytesIO(pdf)).pages)


def seeded(tables, teacher, game, **kw):
    names, options = GAMES[game]
    return play(tables, teacher.id, game, names, options=options, notes=NOTES, **kw)


# ------------------------------------------------------------------ the hook
def test_every_game_has_a_report_hook_and_no_platform_file_names_a_game(app):
    for key in engines.keys():
        assert engines.report_hook(key) is not None, key
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    for path in [*(root / "app/reports").glob("*.py"), *(root / "templates/reports").glob("*.html"),
                 root / "app/api/reports.py"]:
        text = path.read_text()
        for key in engines.keys():
            assert not re.search(rf"\b{key}\b", text, re.I), f"{path} names {key}"


def test_hooks_cope_with_no_entries_and_unknown_kinds(app):
    for key in engines.keys():
        hook = engines.report_hook(key)
        empty = hook({"names": [], "computers": [], "options": {}, "state": None, "result": None,
                      "entries": [], "events": []})
        assert isinstance(empty, dict)
        odd = hook({"names": ["Ana", "Ben"], "computers": [], "options": {}, "state": None, "result": None,
                    "entries": [{"t": "power_surge", "text": "?", "seat": 7, "version": 1},
                                {"t": "wager", "seat": "x", "version": 2}], "events": []})
        assert isinstance(odd, dict)


# --------------------------------------------------------------- debriefs
@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_games_debrief_holds_names_winner_rulings_notes_and_its_section(app, tables, teacher, auth, game):
    code = seeded(tables, teacher, game, moves=500)  # a lesson's length (a longer game's sheet is tightened)
    client = app.test_client()
    response = client.get(f"/api/tables/{code}/debrief.pdf", headers=auth)
    assert response.status_code == 200 and response.data.startswith(b"%PDF")
    pdf = response.data
    text = text_of(pdf)
    assert 1 <= pages(pdf) <= 3
    for name in GAMES[game][0]:
        assert name in text
    with app.test_request_context():
        from app.reports import debrief_context
        ctx = debrief_context(tables, code)
    assert contains(text, ctx["outcome"]["sentence"].split(" (")[0])
    if ctx["result"]:
        for winner in ctx["outcome"]["winners"]:
            assert winner in text
    main, _, appendix = text.partition("Appendix for the game")
    assert not appendix and not ctx["rulings"]   # the teacher's sheet holds no rulings and no ids
    first = text_of_page(pdf, 0)
    assert "Questions for the class" in first and "Students to check on" in first and "The game in brief" in first
    designer = client.get(f"/api/tables/{code}/debrief.pdf?version=designer", headers=auth).data
    dtext = text_of(designer)
    with app.test_request_context():
        dctx = debrief_context(tables, code, designer=True)
    for ruling in dctx["rulings"]:
        assert contains(dtext, ruling["title"]) and ruling["id"] in dtext and ruling["id"] not in text
    assert "Appendix for the game" in dtext
    assert contains(text, TEACHER_NOTE) and contains(text, STUDENT_NOTE)
    from app.reports import LEVELS
    shown = ctx["learning"] if "Trivia questions (the first" not in text else ctx["learning"][:LEVELS[2]["learning"]]
    for q in shown:   # every question, unless a long game's sheet says it lists only the first ones
        assert contains(text, q["question"])
    assert not ctx["votes"] or any(contains(text, v["title"]) for v in ctx["votes"])
    assert ctx["chart"] is not None or not ctx["series"] or not any(
        any(vals) for _, vals in ctx["series"].get("points", []))
    assert "Questions for the class" in text and "Page 1 of" in text and "Classroom Games" in text
    assert not re.search(r"\bv\d+\b", main)   # no "v24": moments are told by the clock

    student = client.get(f"/api/tables/{code}/debrief.pdf?version=student", headers=auth).data
    stext = text_of(student)
    assert not contains(stext, TEACHER_NOTE) and contains(stext, STUDENT_NOTE)
    assert "Appendix for the game" not in stext
    for v in ctx["votes"]:
        if v.get("hidden") and v.get("explanation"):
            assert not contains(stext, v["explanation"]) and contains(text, v["explanation"])


def test_water_cycle_debrief_shows_trivia_answers_and_moderated_explanations(app, tables, teacher):
    names, _ = GAMES["water_cycle"]
    code = play(tables, teacher.id, "water_cycle", names, options={"crisis_mode": "on", "votes": "teacher", "rounds": 0},
                moves=250, notes=NOTES)
    for _ in range(20):   # the deal is random: play on until a Boss challenge and two judged Crises
        log = [e for ev in tables.events(code) for e in ev.log]
        judged = sum(1 for e in log if e.get("t") == "moderation" and e.get("decision") in ("accept", "reject"))
        if (any(e.get("t") == "trivia" for e in log) and judged >= 2) or tables.get(code).status != "playing":
            break
        play(tables, teacher.id, "water_cycle", [], code=code, moves=100)
    with app.test_request_context():
        from app.reports import debrief_context, debrief_pdf
        ctx = debrief_context(tables, code)
        pdf = debrief_pdf(tables, code)
        student = debrief_pdf(tables, code, student=True)
    assert ctx["learning"], "the seeded game asked trivia"
    assert all(q["answer"] and q["explanation"] for q in ctx["learning"])
    decided = [v for v in ctx["votes"] if v["decision"]]
    assert decided and any(v["hidden"] for v in decided) and any(v["decision"] == "rejected" for v in decided)
    text, stext = text_of(pdf), text_of(student)
    q = ctx["learning"][0]
    assert contains(text, q["question"]) and contains(text, q["explanation"])
    hidden = next(v for v in ctx["votes"] if v["hidden"] and v["explanation"])
    assert contains(text, hidden["explanation"]) and not contains(stext, hidden["explanation"])
    for v in decided:   # every explanation the teacher judged is on the sheet, with its decision
        assert contains(text, v["title"]) and contains(text, v["decision"].capitalize() + " by the teacher")
    assert "Hidden by the teacher" in stext
    assert ctx["figures"]["columns"][:2] == ["Trophies", "Trivia right"]


def test_first_page_renders_to_png_without_a_blank_page_or_overflow(app, tables, teacher, tmp_path):
    if not shutil.which("pdftoppm"):
        pytest.fail("pdftoppm is missing: apt-get install poppler-utils (scripts/test --all does)")
    code = seeded(tables, teacher, "war")
    tables.add_note(code, "x" * 300, role="seat", author="Ana", seat=0)  # an unbroken word must wrap, not overflow its cell
    with app.test_request_context():
        from app.reports import debrief_html
        html = debrief_html(tables, code)
    from weasyprint import HTML
    document = HTML(string=html).render()
    for page in document.pages:
        right = page.width
        for box in page._page_box.descendants():
            if getattr(box, "width", None) is not None and hasattr(box, "position_x"):
                assert box.position_x + box.margin_width() <= right + 1, f"overflow: {box!r}"
    pdf = tmp_path / "debrief.pdf"
    pdf.write_bytes(document.write_pdf())
    subprocess.run(["pdftoppm", "-f", "1", "-l", "1", "-r", "50", "-gray", "-png", str(pdf), str(tmp_path / "p")],
                   check=True)
    from PIL import Image
    image = Image.open(next(tmp_path.glob("p*.png")))
    histogram = image.histogram()
    inked = sum(histogram[:250]) / sum(histogram)   # anything not paper-white
    assert inked > 0.02, f"page 1 is blank ({inked:.4f} inked)"


def test_paper_size_is_the_teachers_choice_and_remembered(app, tables, teacher, auth):
    code = seeded(tables, teacher, "dicerace")
    client = app.test_client()
    size = lambda pdf: tuple(round(float(x)) for x in pypdf.PdfReader(io.BytesIO(pdf)).pages[0].mediabox[2:])  # noqa
    assert size(client.get(f"/api/tables/{code}/debrief.pdf", headers=auth).data) == (595, 842)
    assert client.post("/api/preferences", json={"paper": "tabloid"}, headers=auth).status_code == 400
    assert client.post("/api/preferences", json={"paper": "letter"}, headers=auth).get_json() == {"paper": "letter"}
    assert size(client.get(f"/api/tables/{code}/debrief.pdf", headers=auth).data) == (612, 792)
    assert size(client.get(f"/api/tables/{code}/debrief.pdf?paper=a4", headers=auth).data) == (595, 842)
    assert services(app).accounts.get(teacher.id).paper == "letter"


def test_pdf_is_tagged_and_uses_the_shipped_font_only(app, tables, teacher):
    code = seeded(tables, teacher, "wizard")
    with app.test_request_context():
        from app.reports import debrief_pdf
        pdf = debrief_pdf(tables, code)
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    root = reader.trailer["/Root"]
    assert "/StructTreeRoot" in root and root["/MarkInfo"]["/Marked"]
    fonts = fonts_of(pdf)
    # "Report Sans" is the @font-face of static/fonts/DejaVuSans*.ttf: no system font crept in
    assert fonts and all(f.startswith("Report-Sans") for f in fonts), fonts


# ------------------------------------------------------------- robustness
def test_reports_never_fail_on_odd_data(app, tables, teacher, auth):
    client = app.test_client()
    empty = tables.create_table(teacher.id, "war", {}).code            # nobody joined
    closed = tables.create_table(teacher.id, "war", {}).code
    tables.join(closed, "Ana")
    tables.moderate(teacher.id, closed, tables.get(closed).version, {"type": "end"})
    emoji = "😀🎲🌧💧🔥🌊🐸🦉🍀⭐" * 2   # 20 emoji
    odd = play(tables, teacher.id, "war", [emoji[:20], "Ben"], moves=60)
    many = play(tables, teacher.id, "dicerace", ["Ana", "Ben"], moves=30)
    for i in range(500):
        tables.add_note(many, f"Note number {i}", role="seat" if i % 2 else "teacher",
                        author="Ana" if i % 2 else "Facilitator teacher", seat=0)
    kicked = play(tables, teacher.id, "storm_war", ["Ana", "Ben", "Cara"], moves=60, kick=1)
    abandoned = play(tables, teacher.id, "wizard", ["Ana", "Ben"], moves=10)
    old = play(tables, teacher.id, "war", ["Ana", "Ben"], moves=20)
    with Session(services(app).db) as s:
        long_ago = datetime.now(timezone.utc) - timedelta(hours=3)
        for ev in s.exec(select(Event).join(GameTable).where(GameTable.code == abandoned)).all():
            ev.at = long_ago
            s.add(ev)
        table = s.exec(select(GameTable).where(GameTable.code == old)).one()
        table.engine_version, table.data_versions = "war-1", {"rulings.json": "war-rulings-0"}
        s.add(table)
        s.commit()
    tables.forget(old)
    tables.forget(abandoned)
    texts = {}
    for code in (empty, closed, odd, many, kicked, abandoned, old):
        for suffix in ("", "?version=student"):
            response = client.get(f"/api/tables/{code}/debrief.pdf{suffix}", headers=auth)
            assert response.status_code == 200, (code, response.data[:300])
        texts[code] = flat(text_of(response.data if not suffix else client.get(
            f"/api/tables/{code}/debrief.pdf", headers=auth).data))
        assert pages(response.data) <= 3, code
        for export in ("log.csv", "notes.csv", "log.json"):
            assert client.get(f"/api/tables/{code}/{export}", headers=auth).status_code == 200
    odd_pdf = client.get(f"/api/tables/{odd}/debrief.pdf", headers=auth).data
    assert all(f.startswith("Report-Sans") for f in fonts_of(odd_pdf)), fonts_of(odd_pdf)
    assert "[game die]" in texts[odd] and "□" not in texts[odd]   # emoji the font lacks are named, not boxes
    assert "Not started yet" in texts[empty] and "nobody joined" in texts[empty]
    assert "Closed before it started" in texts[closed]
    assert "Abandoned" in texts[abandoned]
    assert "removed by the teacher" in texts[kicked]
    assert "war-1" in texts[old]
    assert "Note number 499" in texts[many] or "more notes" in texts[many]
    notes = client.get(f"/api/tables/{many}/notes.csv", headers=auth).data.decode()
    assert notes.count("\r\n") == 501 and "Note number 499" in notes


# ------------------------------------------------------------------ class
def test_class_debrief_results_leaders_learning_votes_and_moderation(app, tables, teacher, auth):
    classes = services(app).classes
    klass = classes.create(teacher.id, "water_cycle", {"crisis_mode": "on"}, 2, True)
    classes.set_phone_notes(teacher.id, klass.code, True)  # Ana's note below comes from her phone
    for name in ("Ana", "Ben", "Cara", "Dev", "Eve", "Finn"):
        classes.join_any(klass.code, name)
    classes.start(teacher.id, klass.code)
    codes = [t["code"] for t in classes.summary(klass.code)["tables"]]
    assert len(codes) == 3
    play(tables, teacher.id, "water_cycle", [], code=codes[0], moves=3000, notes=NOTES)   # to the end
    play(tables, teacher.id, "water_cycle", [], code=codes[1], moves=30)
    tables.moderate(teacher.id, codes[1], tables.get(codes[1]).version, {"type": "end"})   # ended by the teacher
    tables.moderate(teacher.id, codes[2], tables.get(codes[2]).version, {"type": "pause"})
    client = app.test_client()
    response = client.get(f"/api/classes/{klass.code}/debrief.pdf", headers=auth)
    assert response.status_code == 200
    text = flat(text_of(response.data))
    assert "No result yet" not in text
    assert "Ended by the teacher" in text and "Every table's result" in text and "Leader board" in text
    for name in ("Ana", "Ben", "Cara", "Dev", "Eve", "Finn"):
        assert name in text
    assert "The teacher paused the game." in text and "What the teacher did" in text
    with app.test_request_context():
        from app.reports.classes import class_debrief_context
        ctx = class_debrief_context(classes, tables, klass.code)
    asked = sum(1 for c in codes for ev in tables.events(c) for e in ev.log if e.get("t") == "trivia")
    assert ctx["asked"] == asked and bool(ctx["topics"]) == bool(asked)   # the deal decides whether any was asked
    for q in ctx["missed"]:
        assert contains(text, q["question"])
    for v in ctx["rejected"][:3] + ctx["accepted"][:3]:
        assert contains(text, v["title"])
    assert contains(text, TEACHER_NOTE)
    student = flat(text_of(client.get(f"/api/classes/{klass.code}/debrief.pdf?version=student",
                                      headers=auth).data))
    assert not contains(student, TEACHER_NOTE) and contains(student, STUDENT_NOTE)
    log = client.get(f"/api/classes/{klass.code}/log.csv", headers=auth)
    assert log.status_code == 200 and all(c in log.data.decode() for c in codes)
    assert client.get(f"/api/classes/{klass.code}/log.json", headers=auth).get_json()["code"] == klass.code
    assert STUDENT_NOTE in client.get(f"/api/classes/{klass.code}/notes.csv", headers=auth).data.decode()


# ---------------------------------------------------------------- exports
def test_exports_have_the_documented_columns_and_the_owners_access_only(app, tables, teacher, other_teacher, auth):
    code = seeded(tables, teacher, "war", moves=100)
    tables.add_note(code, "=HYPERLINK(\"x\")", role="seat", author="Ana", seat=0)
    client = app.test_client()
    log = client.get(f"/api/tables/{code}/log.csv", headers=auth).data.decode("utf-8-sig")
    assert log.splitlines()[0] == "table,move,at,event_kind,actor,action,entry_kind,text,seat,visible_to,ruling_id,data"
    assert ",ruling," in log and "war.commitment_order_is_tap_order" in log
    notes = client.get(f"/api/tables/{code}/notes.csv", headers=auth).data.decode("utf-8-sig")
    assert notes.splitlines()[0] == "table,move,at,game_version,author,role,teacher_only,hidden,text"
    assert "'=HYPERLINK" in notes and ",yes," in notes and ",no," in notes
    from app.reports.exports import LOG_COLUMNS, NOTE_COLUMNS
    from pathlib import Path
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    for column in LOG_COLUMNS + NOTE_COLUMNS:
        assert f"`{column}`" in readme
    other = {"Authorization": f"Bearer {services(app).accounts.issue_token(other_teacher.id)}"}
    for path in ("debrief.pdf", "log.csv", "notes.csv", "log.json"):
        assert client.get(f"/api/tables/{code}/{path}", headers=other).status_code == 403
        assert client.get(f"/api/tables/{code}/{path}").status_code == 401


# --------------------------------------------------------------- playtest
def test_playtest_report_over_a_date_range_with_refusals_and_csv(app, tables, teacher, auth):
    codes = [seeded(tables, teacher, "war", seed=s, moves=400) for s in range(3)]
    tables.add_note(codes[0], "Who puts the pot under the deck first?", role="seat", author="Ana", seat=0)
    live = tables.live(codes[1])
    if live.status == "playing":
        waiting = engines.get("war").view(live.state, "board")["prompt"]["waiting_for"]
        idle = next(s for s in range(len(live.state["decks"])) if s not in waiting) if \
            len(waiting) < len(live.state["decks"]) else None
        if idle is not None:
            with pytest.raises(Exception):
                tables.act(codes[1], idle, live.version, {"type": "reveal"})
    refused = sum(len(tables.refusals(c)) for c in codes)
    client = app.test_client()
    today = datetime.now(timezone.utc).date()
    response = client.get(f"/api/playtest.pdf?game=war&from={today - timedelta(days=1)}&to={today}", headers=auth)
    assert response.status_code == 200
    text = flat(text_of(response.data))
    assert "War: playtest report" in text and "Who wins" in text and "Rulings applied" in text
    assert "Who puts the pot under the deck first?" in text and "war-rulings" in text
    assert ("No move was refused" in text) == (refused == 0)
    for code in codes:
        assert code in text
    csv = client.get(f"/api/playtest.csv?game=war&from={today}&to={today}", headers=auth).data.decode("utf-8-sig")
    assert csv.splitlines()[0].startswith("table,created,status,setting,options") and len(csv.splitlines()) == 4
    past = client.get("/api/playtest.csv?game=war&from=2020-01-01&to=2020-01-31", headers=auth).data.decode("utf-8-sig")
    assert len(past.splitlines()) == 1
    assert client.get("/api/playtest.pdf?game=nope", headers=auth).status_code == 400


def test_a_refused_move_is_recorded_with_its_error_code(app, tables, teacher):
    code = seeded(tables, teacher, "wizard", moves=0)
    live = tables.live(code)
    waiting = engines.get("wizard").view(live.state, "board")["prompt"]["waiting_for"]
    idle = 1 - waiting[0] if waiting else 0
    with pytest.raises(Exception):
        tables.act(code, idle, live.version, {"type": "end_turn"})
    assert [r.code for r in tables.refusals(code)] and tables.refusals(code)[0].action_type == "end_turn"


# -------------------------------------------------------------- dashboard
def test_dashboard_offers_paper_size_playtest_report_and_table_exports(app, tables, teacher):
    from test_classes import logged_in
    client, csrf = logged_in(app)
    page = client.get("/facilitator/").data.decode()
    assert 'name="paper"' in page and "/api/playtest.pdf" in page and 'type="date"' in page
    assert client.post("/facilitator/preferences", data={"paper": "letter", "csrf": csrf}).status_code == 302
    assert services(app).accounts.get(teacher.id).paper == "letter"
    code = seeded(tables, teacher, "dicerace", moves=10)
    table_page = client.get(f"/facilitator/tables/{code}").data.decode()
    assert "version=student" in table_page and f"/api/tables/{code}/log.csv" in table_page
    pdf = client.get(f"/facilitator/tables/{code}/debrief.pdf?version=student")
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    # the session cookie opens the API's report links too
    assert client.get(f"/api/tables/{code}/notes.csv").status_code == 200
    today = datetime.now(timezone.utc).date()
    assert client.get(f"/api/playtest.csv?game=dicerace&from={today}&to={today}").status_code == 200


def test_the_demo_cleanup_deletes_a_demos_refused_moves_too(app, tables):
    from test_demo import _age, home_csrf, open_demo, opened
    from app.store.models import Refusal
    client = app.test_client()
    code, _ = opened(open_demo(client, csrf=home_csrf(client)))
    table = tables.get(code)
    with Session(services(app).db) as s:
        s.add(Refusal(table_id=table.id, version=table.version, actor="seat:0", action_type="play", code="illegal"))
        s.commit()
    _age(app, code, 25)
    assert services(app).demos.cleanup() == [code]
    with Session(services(app).db) as s:
        assert s.exec(select(Refusal).where(Refusal.table_id == table.id)).all() == []


def test_the_render_worker_script_turns_a_json_job_into_a_pdf(app):
    """What the eventlet server runs for every report (app/reports/render_worker.py)."""
    import json
    import sys
    from pathlib import Path

    from app.reports import render_worker
    fonts = str(Path(app.static_folder, "fonts"))
    long_page = "<p>" + "A line. " * 4000 + "</p>"
    job = {"htmls": [long_page, "<p>Short 🎲</p>"], "font_dir": fonts, "max_pages": 1}
    done = subprocess.run([sys.executable, render_worker.__file__], input=json.dumps(job).encode(),
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-500:]
    text = text_of(done.stdout)
    assert pages(done.stdout) == 1 and "Short [game die]" in text   # the tighter version was used


def _run_worker_with(prelude: str, job: dict) -> subprocess.CompletedProcess:
    """The render worker's `main` as the server runs it, after `prelude` has set a trap
    (a crash at exit, a crash while rendering) in the same process."""
    import json
    import sys

    from app.reports import render_worker
    script = (f"import atexit, ctypes, os, runpy, signal\n{prelude}\n"
              f"main = runpy.run_path({render_worker.__file__!r})['main']\n"
              "globals().get('before_main', lambda worker: None)(main.__globals__)\n"
              "main()\n")
    return subprocess.run([sys.executable, "-c", script], input=json.dumps(job).encode(),
                          capture_output=True, timeout=120)


def test_a_crash_in_the_workers_teardown_does_not_lose_a_finished_report(app):
    """Native finalizers (Pango, fontconfig) once crashed the worker at exit after it had
    written a whole PDF: the report failed though it was made. The worker now leaves as
    soon as the PDF is out, so a crash planted in the interpreter's teardown never runs."""
    from pathlib import Path
    fonts = str(Path(app.static_folder, "fonts"))
    done = _run_worker_with("atexit.register(os.kill, os.getpid(), signal.SIGSEGV)",
                            {"htmls": ["<p>Table 3's debrief</p>"], "font_dir": fonts})
    assert done.returncode == 0, done.stderr.decode()[-500:]
    assert done.stdout.startswith(b"%PDF") and "Table 3's debrief" in text_of(done.stdout)


def test_a_crash_while_rendering_says_where_on_stderr(app):
    """A crash inside the native libraries fails the report (render_pdf raises with the
    worker's stderr), and that stderr says where Python was, for whoever reads the log."""
    from pathlib import Path
    fonts = str(Path(app.static_folder, "fonts"))
    prelude = ("def before_main(worker):\n"
               "    def render_into_a_null_pointer(*args):\n"
               "        return ctypes.string_at(0)\n"
               "    worker['render'] = render_into_a_null_pointer\n")
    done = _run_worker_with(prelude, {"htmls": ["<p>Never drawn</p>"], "font_dir": fonts})
    err = done.stderr.decode()
    assert done.returncode == -11 and done.stdout == b""
    assert "Segmentation fault" in err and "render_into_a_null_pointer" in err, err[-500:]


def test_class_learning_adds_up_trivia_per_topic_and_the_most_missed_questions(app, tables, teacher, auth,
                                                                               monkeypatch):
    """The class-wide figures from the games' sections, with sections fixed (a deal is random)."""
    classes = services(app).classes
    klass = classes.create(teacher.id, "dicerace", {}, 2, True)
    for name in ("Ana", "Ben", "Cara", "Dev"):
        classes.join_any(klass.code, name)
    classes.start(teacher.id, klass.code)

    def section(game, data):
        q = lambda text, topic, right: {"question": text, "answer_given": "A: yes", "correct": right,  # noqa: E731
                                        "answer": "B: no", "explanation": f"Because of {topic}.", "seat": 0,
                                        "topic": topic}
        return {"learning": [q("Where does rain go?", "rivers", False), q("What is fog?", "weather", True),
                             q("Where does rain go?", "rivers", False)],
                "learning_noun": ["trivia question", "trivia questions"],   # the game's words for its rows
                "votes": [{"seat": 0, "title": "The big flood", "cards": ["Dam"], "explanation": "A dam holds it.",
                           "up": 2, "down": 0, "decision": "accepted", "decided_by": "the class vote",
                           "hidden": False},
                          {"seat": 1, "title": "The long drought", "cards": [], "explanation": "Secret reason.",
                           "up": 0, "down": 2, "decision": "rejected", "decided_by": "the teacher",
                           "hidden": True}]}

    import app.reports.classes as class_reports
    monkeypatch.setattr(class_reports, "game_section", section)
    client = app.test_client()
    text = flat(text_of(client.get(f"/api/classes/{klass.code}/debrief.pdf", headers=auth).data))
    assert "6 trivia questions asked" in text
    assert contains(text, "rivers 0 4 0") and contains(text, "weather 2 0 100")
    assert contains(text, "Where does rain go? 4 0")      # the most-missed question, with its count
    assert "2 accepted, 2 rejected" in text and "The big flood" in text and "The long drought" in text
    assert "Secret reason." in text
    student = flat(text_of(client.get(f"/api/classes/{klass.code}/debrief.pdf?version=student", headers=auth).data))
    assert "Secret reason." not in student and "Hidden by the teacher" in student


@pytest.mark.parametrize("seed", [1, 2])
def test_a_very_long_game_still_fits_three_pages(app, tables, teacher, auth, seed):
    # Thousands of moves, every Crisis judged, notes: the sheet tightens until it fits.
    # A table's deal is random: the odd game ends early, so play until one is long.
    for attempt in range(6):
        code = play(tables, teacher.id, "water_cycle", ["Ana", "Ben", "Cara", "Dev"],
                    options={"crisis_mode": "on", "rounds": 0}, moves=3000, seed=seed * 10 + attempt, notes=NOTES)
        if len(tables.log_json(code)["events"]) > 300:
            break
    assert len(tables.log_json(code)["events"]) > 300
    response = app.test_client().get(f"/api/tables/{code}/debrief.pdf", headers=auth)
    assert response.status_code == 200 and pages(response.data) <= 3
    assert "Ana" in text_of(response.data)


def test_a_ruling_moment_is_numbered_in_the_games_words():
    """The debrief says when a ruling applied with the first of the game's moment
    counters the entry carries (GameSpec.moment_counters: "battle 7" for a game that
    counts battles); a game that declares none counts turns and rounds."""
    from types import SimpleNamespace

    from app.engines.contract import GameSpec
    from app.reports import ruling_rows

    entry = {"t": "ruling", "id": "r1", "text": "A ruling.", "version": 12, "at": None, "seat": 0,
             "battle": 7, "turn": 3}
    data = {"start": None, "entries": [entry]}
    battles = SimpleNamespace(rulings=(), moment_counters=("battle", "turn", "round"))
    turns = SimpleNamespace(rulings=(), moment_counters=GameSpec.moment_counters)
    assert ruling_rows(battles, data, ["Ana"])[0]["moments"] == ["move 12, Ana, battle 7"]
    assert ruling_rows(turns, data, ["Ana"])[0]["moments"] == ["move 12, Ana, turn 3"]
