"""The facts a report states, checked against the game it reports (issue 22): the place
column matches the figure that decided it, prompts are tie-aware, a result is said once,
counts agree with the lists they head, nothing is cut off silently, times are the
teacher's clock times, and every name prints in its own script."""
from __future__ import annotations

import io
import re
import shutil
import subprocess

import pypdf
import pytest

from app import engines
from app.extensions import services
from report_seed import play
from test_reports import contains, flat, fonts_of, text_of, text_of_page


# ------------------------------------------------------------------ the facts
def test_a_wager_games_places_sit_beside_the_figure_that_decided_them(app, tables, teacher, auth):
    code = play(tables, teacher.id, "war", ["Ana", "Ben", "Cara"],
                options={"mode": "power_wager", "length": "first_to_25_points"}, moves=3000, seed=3)
    with app.test_request_context():
        from app.reports import debrief_context
        ctx = debrief_context(tables, code)
    assert ctx["result"], "the seeded game ends"
    standing = ctx["standings"]
    assert standing["columns"] == ["Points", "Chips"]
    state = tables.get(code).state
    by_place = [r["values"][0] for r in standing["rows"]]
    assert by_place == [state["points"][r["seat"]] for r in standing["rows"]]
    assert by_place == sorted(by_place, reverse=True)    # 1st never has fewer points than 2nd
    text = text_of(app.test_client().get(f"/api/tables/{code}/debrief.pdf", headers=auth).data)
    assert "Place Player Points Chips" in flat(text)


def test_war_prompts_say_a_tie_in_battles_as_a_tie():
    hook = engines.report_hook("war")
    wins = [{"t": "win", "seat": s, "battle": i, "version": i, "count": 2, "cards": []}
            for i, s in enumerate([0, 1] * 21)]
    base = {"names": ["Tom", "Ana", "Cara"], "computers": [], "options": {}, "state": None, "events": [],
            "entries": wins}
    tied = hook(dict(base, result={"winners": [2], "ranking": [2, 0, 1], "scores": [1, 1, 50]}))
    assert not any("Tom won the most battles" in p for p in tied["prompts"])
    assert any("Tom and Ana each won 21 battles" in p for p in tied["prompts"])
    clear = hook(dict(base, entries=wins + [dict(wins[0], battle=99, version=99)],
                      result={"winners": [2], "ranking": [2, 0, 1], "scores": [1, 1, 50]}))
    assert any("Tom won the most battles" in p for p in clear["prompts"])


def test_a_wizard_result_is_said_once_and_its_score_is_willpower(app, tables, teacher, auth):
    code = play(tables, teacher.id, "wizard", ["Bassem", "Dana"], moves=3000, seed=2)
    pdf = app.test_client().get(f"/api/tables/{code}/debrief.pdf", headers=auth).data
    text = flat(text_of(pdf))
    assert tables.get(code).state["result"], "the seeded duel ends"
    assert "won (Bassem won" not in text and "won (Dana won" not in text
    assert "Place Player Willpower" in text
    assert "Counterspells" in text_of(pdf)     # a column heading is never broken mid-word


def test_times_are_the_teachers_clock_and_a_bad_zone_is_refused(app, tables, teacher, auth):
    code = play(tables, teacher.id, "war", ["Ana", "Ben"], moves=20)
    client = app.test_client()
    bad = client.get(f"/api/tables/{code}/debrief.pdf?tz=Mars/Olympus", headers=auth)
    assert bad.status_code == 400 and "tz" in bad.get_json()["error"]["message"]
    from zoneinfo import ZoneInfo
    started = next(e for e in tables.events(code) if e.kind == "table" and e.action.get("type") == "start").at
    from app.reports import as_utc
    tokyo = as_utc(started).astimezone(ZoneInfo("Asia/Tokyo")).strftime("%H:%M")
    text = flat(text_of(client.get(f"/api/tables/{code}/debrief.pdf?tz=Asia/Tokyo", headers=auth).data))
    assert f"started {tokyo} (Asia/Tokyo)" in text
    assert " move " not in text.split("Appendix")[0].lower()   # moments by the clock, never by move number


def test_the_student_copy_hides_whose_explanation_was_hidden(app, tables, teacher, auth, monkeypatch):
    classes = services(app).classes
    klass = classes.create(teacher.id, "war", {}, 2, True)
    for name in ("Ana", "Ben"):
        classes.join_any(klass.code, name)
    classes.start(teacher.id, klass.code)
    import app.reports.classes as class_reports
    monkeypatch.setattr(class_reports, "game_section", lambda game, data: {"votes": [
        {"seat": 1, "title": "The long drought", "cards": [], "explanation": "Secret reason.", "up": 0, "down": 2,
         "decision": "rejected", "decided_by": "the teacher", "hidden": True}]})
    client = app.test_client()
    teacher_text = flat(text_of(client.get(f"/api/classes/{klass.code}/debrief.pdf", headers=auth).data))
    student = flat(text_of(client.get(f"/api/classes/{klass.code}/debrief.pdf?version=student", headers=auth).data))
    who = next(n for n in ("Ana", "Ben") if f"{n}: The long drought" in teacher_text)
    assert f"{who}: The long drought" not in student and "The long drought" in student


def test_the_class_debrief_counts_lists_every_action_and_credits_no_removed_student(app, tables, teacher, auth):
    classes = services(app).classes
    klass = classes.create(teacher.id, "war", {}, 2, True)
    students = [f"Student {i}" for i in range(6)]
    for name in students:
        classes.join_any(klass.code, name)
    classes.start(teacher.id, klass.code)
    codes = [t["code"] for t in classes.summary(klass.code)["tables"]]
    play(tables, teacher.id, "war", [], code=codes[0], moves=25, kick=0)   # a removal at the 21st move
    for _ in range(25):   # more teacher actions than the old 40-line cap, across tables
        for c in codes[1:]:
            for kind in ("pause", "resume"):
                if tables.get(c).status == "playing" or kind == "resume":
                    try:
                        tables.moderate(teacher.id, c, tables.get(c).version, {"type": kind})
                    except Exception:  # noqa: BLE001 - a table that ended meanwhile
                        pass
    play(tables, teacher.id, "war", [], code=codes[0], moves=3000)
    with app.test_request_context():
        from app.reports.classes import class_debrief_context
        ctx = class_debrief_context(classes, tables, klass.code)
    assert ctx["moderation_total"] > 40 and len(ctx["moderation"]) == ctx["moderation_total"]
    assert any("remov" in m["text"].lower() or m["what"] == "kick" for m in ctx["moderation"])
    assert ctx["students"] == len(ctx["leaders"]) == len(students)
    removed = [b for b in ctx["leaders"] if b["removed"]]
    assert len(removed) == 1 and not removed[0]["won"] and removed[0]["place"] is None and removed[0]["score"] is None
    assert any(c["name"] == removed[0]["name"] and "removed by the teacher" in c["reasons"][0]
               for c in ctx["check_on"])
    client = app.test_client()
    text = flat(text_of(client.get(f"/api/classes/{klass.code}/debrief.pdf", headers=auth).data))
    assert f"{len(students)} students" in text and "Students to check on" in text
    assert "The first 40" not in text
    csv = client.get(f"/api/classes/{klass.code}/students.csv", headers=auth).data.decode("utf-8-sig")
    lines = csv.splitlines()
    assert lines[0].startswith("student,table,status,won,place,score,score_unit,removed,questions_asked")
    assert len(lines) == 1 + len(students) and all(any(line.startswith(n) for line in lines) for n in students)
    assert "removed by the teacher" in next(line for line in lines if line.startswith(removed[0]["name"]))


# -------------------------------------------------------------- every name
NAMES = {"Chinese": "李明", "Japanese": "さくら", "Korean": "김민준", "Devanagari": "प्रिया",
         "Thai": "สมชาย", "Arabic": "مريم", "Hebrew": "נועה"}


def test_names_in_every_script_are_drawn_in_their_own_glyphs(app, tables, teacher, auth, tmp_path):
    if not shutil.which("pdftoppm"):
        pytest.fail("pdftoppm is missing: apt-get install poppler-utils (scripts/test --all does)")
    from app.reports.render_worker import missing_fonts
    assert not missing_fonts(), "scripts/venv.sh installs fonts-noto-core and fonts-noto-cjk"
    names = list(NAMES.values())
    code = play(tables, teacher.id, "war", names[:4], moves=80)
    code2 = play(tables, teacher.id, "war", names[4:], moves=80)
    client = app.test_client()
    for table, shown in ((code, names[:4]), (code2, names[4:])):
        pdf = client.get(f"/api/tables/{table}/debrief.pdf", headers=auth).data
        first = text_of_page(pdf, 0)
        assert "[" not in first.split("Generated")[0], "no name became its Unicode name in brackets"
        for name in shown:
            assert name in first or name[::-1] in first, name   # pypdf may give RTL text in visual order
        assert {"Noto-Sans-CJK-SC", "Noto-Sans-Devanagari"} <= fonts_of(pdf) if table == code else \
            {"Noto-Sans-Thai"} <= fonts_of(pdf)
    # Drawn, not boxes: each name, set large on a page of its own, is drawn by a font that
    # has its script's glyphs (embedded in the PDF), inks the page, and differs from the same
    # number of an unassigned character (which prints as boxes).
    from flask import render_template_string

    from app.reports import render_pdf
    with app.test_request_context():
        for script, name in NAMES.items():
            images = []
            for label, shown in (("name", name), ("tofu", "\u0378" * len(name))):
                html = render_template_string("<html><head>{{ style }}</head><body style='font-size:40pt'>"
                                              "<p><bdi>{{ shown }}</bdi></p></body></html>",
                                              style=_style(app), shown=shown)
                pdf = render_pdf(html)
                path = tmp_path / f"{script}-{label}"
                path.with_suffix(".pdf").write_bytes(pdf)
                subprocess.run(["pdftoppm", "-r", "40", "-gray", "-png", "-singlefile", str(path.with_suffix(".pdf")),
                                str(path)], check=True)
                from PIL import Image
                images.append(Image.open(path.with_suffix(".png")).convert("L").tobytes())
                if label == "name":
                    text = pypdf.PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
                    assert name in text or name[::-1] in text, script
                    assert any(f.startswith(FONT_OF[script]) for f in fonts_of(pdf)), (script, fonts_of(pdf))
            assert sum(1 for v in images[0] if v < 128) > 20, f"{script}: nothing drawn"
            assert images[0] != images[1], f"{script} printed as boxes"


# The font each script's glyphs come from: DejaVu (shipped, "Report Sans") has Arabic and
# Hebrew; Noto (installed by scripts/venv.sh) the rest.
FONT_OF = {"Chinese": "Noto-Sans-CJK", "Japanese": "Noto-Sans-CJK", "Korean": "Noto-Sans-CJK",
           "Devanagari": "Noto-Sans-Devanagari", "Thai": "Noto-Sans-Thai",
           "Arabic": ("Report-Sans", "Noto-Sans-Arabic"),
           "Hebrew": ("Report-Sans", "Noto-Sans-Hebrew")}


def _style(app):
    from markupsafe import Markup

    from app.reports import FONT_STACK
    from pathlib import Path
    return Markup(app.jinja_env.get_template("reports/_style.html").render(
        font_dir_url=Path(app.static_folder, "fonts").resolve().as_uri(), font_stack=FONT_STACK,
        generated="", platform_version=""))


# ---------------------------------------------------------------- playtest
def test_the_playtest_report_splits_by_setting_counts_ended_games_apart_and_names_no_student(
        app, tables, teacher, auth):
    notes = (("Facilitator teacher", "Tomasz folded every war"), ("Tomasz", "Tomasz thinks the pot rule is odd"))
    for seed in range(2):
        play(tables, teacher.id, "war", ["Tomasz", "Ana"], options={"mode": "wager"}, seed=seed, moves=3000,
             notes=notes)
    play(tables, teacher.id, "war", ["Tomasz", "Ana", "Cy"], seed=5, moves=3000, notes=notes)
    ended = play(tables, teacher.id, "war", ["Tomasz", "Ana", "Cy"], seed=6, moves=30)
    tables.moderate(teacher.id, ended, tables.get(ended).version, {"type": "end"})
    from datetime import date

    from app.reports.playtest import playtest_context, wilson
    with app.test_request_context():
        ctx = playtest_context(tables, services(app).db, teacher.id, "war", date.today(), date.today())
    assert len(ctx["settings"]) == 2     # wager for two, classic for three: never pooled
    wager = next(g for g in ctx["settings"] if "mode: wager" in g["label"])
    classic = next(g for g in ctx["settings"] if "mode: classic" in g["label"])
    assert wager["finished"] == 2 and [r["games"] for r in wager["seats"]] == [2, 2]
    assert classic["tables"] == 2 and classic["finished"] == 1 and ("Ended by the teacher", 1) in classic["apart"]
    assert all(r["games"] == 1 and r["fair"] == 33 for r in classic["seats"])   # the ended game is not counted
    low, high = wilson(1, 1)
    assert 0.2 < low < 0.21 and high == 1.0
    winner = next(r for r in classic["seats"] if r["wins"])
    assert (winner["low"], winner["high"]) == (21, 100)
    client = app.test_client()
    text = flat(text_of(client.get("/api/playtest.pdf?game=war", headers=auth).data))
    assert "Tomasz" not in text and "folded every war" not in text
    assert "Player 1 thinks the pot rule is odd" in text and "95 % interval" in text
    csv = client.get("/api/playtest.csv?game=war", headers=auth).data.decode("utf-8-sig")
    assert "Tomasz" not in csv
    rows = csv.splitlines()[1:]
    assert len(rows) == 4 and all("mode=" in row and "length=" in row for row in rows)
    assert "█" not in text


def test_the_balance_lab_plays_each_setting_at_each_level_beside_the_class(app, tables, teacher, auth):
    play(tables, teacher.id, "wizard", ["Ana", "Ben"], moves=3000, seed=1)
    from datetime import date

    from app.reports.lab import LAB_MAX
    from app.reports.playtest import playtest_context
    with app.test_request_context():
        ctx = playtest_context(tables, services(app).db, teacher.id, "wizard", date.today(), date.today(), lab=4)
    runs = ctx["settings"][0]["lab"]
    assert [r["level"] for r in runs] == list(engines.spec("wizard").bot_levels)
    for r in runs:
        assert r["games"] == 4 and 0 <= r["finished"] <= 4
        assert sum(x["wins"] for x in r["seats"]) >= r["finished"] and all(x["games"] == r["finished"]
                                                                            for x in r["seats"])
    client = app.test_client()
    text = flat(text_of(client.get("/api/playtest.pdf?game=wizard&lab=2", headers=auth).data))
    assert "Balance lab, computer players at level “novice”" in text and "2 games per level and setting" in text
    for bad in ("abc", "-1", str(LAB_MAX + 1)):
        response = client.get(f"/api/playtest.pdf?game=wizard&lab={bad}", headers=auth)
        assert response.status_code == 400 and "lab" in response.get_json()["error"]["message"]
    assert "Balance lab" not in flat(text_of(client.get("/api/playtest.pdf?game=wizard", headers=auth).data))


def test_under_eventlet_the_lab_runs_in_a_process_of_its_own_with_the_same_figures(monkeypatch):
    import app.reports.playtest as playtest
    from app.reports import lab
    settings = [{"id": "A", "options": {}, "players": 2}]
    here = lab.run("wizard", settings, 2)
    monkeypatch.setattr(playtest, "on_eventlet", lambda: True)
    monkeypatch.setattr(lab, "run", lambda *a: pytest.fail("the lab ran in the server's process"))
    assert playtest.balance_lab("wizard", settings, 2) == here   # seeded: the same games


def figures_without_alt(pdf: bytes) -> tuple[int, int]:
    """(figures, figures without /Alt) in the PDF's structure tree."""
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    seen, figures, bare = set(), 0, 0
    stack = [reader.trailer["/Root"]["/StructTreeRoot"]]
    while stack:
        node = stack.pop()
        node = node.get_object() if hasattr(node, "get_object") else node
        if isinstance(node, pypdf.generic.ArrayObject):
            stack.extend(node)
            continue
        if not isinstance(node, pypdf.generic.DictionaryObject) or id(node) in seen:
            continue
        seen.add(id(node))
        if node.get("/S") == "/Figure":
            figures += 1
            bare += "/Alt" not in node
        if "/K" in node:
            stack.append(node["/K"])
    return figures, bare


def test_every_figure_carries_alternative_text(app, tables, teacher, auth):
    code = play(tables, teacher.id, "war", ["Ana", "Ben", "Cara"], moves=200)
    pdf = app.test_client().get(f"/api/tables/{code}/debrief.pdf", headers=auth).data
    figures, bare = figures_without_alt(pdf)
    assert figures >= 4 and bare == 0     # the race chart and each line of its legend
    assert "█" not in text_of(pdf)


def test_students_to_check_on_come_with_their_reasons():
    from datetime import datetime, timedelta, timezone
    from types import SimpleNamespace as NS

    from app.reports import check_on
    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
    def ev(minute, actor, kind="game", action=None):
        return NS(kind=kind, actor=actor, at=t0 + timedelta(minutes=minute), action=action or {"type": "play"})
    events = [ev(0, "facilitator", "table", {"type": "start"})]
    events += [ev(m, f"seat:{m % 3}") for m in range(1, 12)]          # everyone moves for 11 minutes
    events += [ev(m + 0.5, "seat:1") for m in range(12, 20)]          # then Ben alone (Ana and Cara silent)
    events += [ev(21, "seat:0"), ev(22, "facilitator", "table", {"type": "kick", "seat": 2})]
    data = {"names": ["Ana", "Ben", "Cara", "Bot"], "computers": [3], "removed": [2], "events": events,
            "refusals": [NS(actor="seat:1")] * 6}
    section = {"learning": [{"seat": 1, "correct": False}, {"seat": 1, "correct": True}, {"seat": 1, "correct": False},
                            {"seat": 0, "correct": True}, {"seat": 0, "correct": False}],
               "learning_noun": ["trivia question", "trivia questions"],
               "votes": [{"seat": 0, "decision": "rejected"}, {"seat": 1, "decision": "accepted"}]}
    got = {c["name"]: c["reasons"] for c in check_on(data, section)}
    assert set(got) == {"Ana", "Ben", "Cara"}                          # never the computer seat
    assert "1 explanation rejected" in got["Ana"] and any(r == "no move for 12 min from 09:09"
                                                           for r in got["Ana"])
    assert "6 moves refused by the rules" in got["Ben"] and "1 of 3 trivia questions right" in got["Ben"]
    assert got["Cara"] == ["removed by the teacher at 09:22", "no move for 10 min from 09:11"]
    assert not any("trivia" in r for r in got["Ana"])                  # 1 of 2 is not below half


def test_the_dashboards_debrief_link_takes_the_zone_and_the_designers_copy_too(app, tables, teacher):
    from test_classes import logged_in
    client, _ = logged_in(app)
    code = play(tables, teacher.id, "war", ["Ana", "Ben"], moves=40)
    assert client.get(f"/facilitator/tables/{code}/debrief.pdf?tz=Nowhere/Land").status_code == 400
    response = client.get(f"/facilitator/tables/{code}/debrief.pdf?tz=America/New_York&version=designer")
    assert response.status_code == 200 and "-designers.pdf" in response.headers["Content-Disposition"]
    text = flat(text_of(response.data))
    assert "(America/New York)" in text and "Appendix for the game" in text


@pytest.mark.slow   # (a PDF per copy, each page drawn to PNG: seconds each, in CI)
@pytest.mark.parametrize("game", ["war", "wizard", "storm_war", "water_cycle"])
def test_every_copy_of_every_games_debrief_renders_to_png_with_no_blank_page(app, tables, teacher, auth, game,
                                                                             tmp_path):
    if not shutil.which("pdftoppm"):
        pytest.fail("pdftoppm is missing: apt-get install poppler-utils (scripts/test --all does)")
    names = {"wizard": ["Ana", "Ben"], "water_cycle": ["Ana", "Ben", "Cara", "Dev"]}.get(game, ["Ana", "Ben", "Cara"])
    options = {"crisis_mode": "on"} if game == "water_cycle" else {}
    code = play(tables, teacher.id, game, names, options=options, moves=300,
                notes=(("Facilitator teacher", "Teacher only: a hint for Ben."), ("Ana", "Fun.")))
    from PIL import Image
    client = app.test_client()
    for version in ("", "student", "designer"):
        pdf = client.get(f"/api/tables/{code}/debrief.pdf?version={version}", headers=auth).data
        first = text_of_page(pdf, 0)
        assert "Questions for the class" in first and all(name in first for name in names)
        assert ("Students to check on" in first) == (version != "student")
        assert ("Teacher only" in text_of(pdf)) == (version != "student")
        path = tmp_path / f"{version or 'teacher'}.pdf"
        path.write_bytes(pdf)
        subprocess.run(["pdftoppm", "-r", "30", "-gray", "-png", str(path), str(tmp_path / (version or "teacher"))],
                       check=True)
        pngs = sorted(tmp_path.glob(f"{version or 'teacher'}-*.png"))
        assert len(pngs) == len(pypdf.PdfReader(io.BytesIO(pdf)).pages)
        for index, png in enumerate(pngs):
            histogram = Image.open(png).histogram()
            assert sum(histogram[:250]) / sum(histogram) > 0.002, f"{png.name} is blank"
            assert text_of_page(pdf, index).split("Generated ")[0].strip(), f"{png.name} holds only the footer"
        for heading in ("Counterspells", "Attacks", "Player"):    # a column heading never breaks mid-word
            assert heading not in text_of(pdf) or not re.search(heading[:-1] + r"\s+" + heading[-1], text_of(pdf))
