"""The students' copy of a debrief prints in the table's language (issue 23); the teacher's
copy stays English."""
from __future__ import annotations

import re

from app import i18n
from app.extensions import services
from app.reports import debrief_context, debrief_html
from report_seed import play

HEADINGS = ("Questions for the class", "The game in brief", "Key moments", "Playtest notes")


def spanish_war_table(app, teacher) -> str:
    tables = services(app).tables
    code = tables.create_table(teacher.id, "war", {}, language="es").code
    for name in ("Ana", "Ben", "Cara"):
        tables.join(code, name)
    tables.moderate(teacher.id, code, tables.get(code).version, {"type": "start"})
    play(tables, teacher.id, "war", [], code=code, moves=400, notes=(("Ana", "The war pile was fun."),))
    if tables.get(code).status == "playing":   # a long war: the teacher ends it
        tables.moderate(teacher.id, code, tables.get(code).version, {"type": "end"})
    return code


def test_student_copy_prints_in_the_tables_language(app, tables, teacher):
    code = spanish_war_table(app, teacher)
    with app.test_request_context():
        student = debrief_html(tables, code, student=True)
        teacher_copy = debrief_html(tables, code)
        designers = debrief_html(tables, code, designer=True)
        english = debrief_context(tables, code, student=True)
    assert '<html lang="es">' in student
    for heading in HEADINGS:
        spanish = i18n.localize(heading, "es")
        assert spanish != heading, heading                      # the catalog has it
        assert heading not in student, heading
        assert heading in teacher_copy and heading in designers, heading
    assert i18n.localize("Questions for the class", "es") in student
    assert "Preguntas para la clase" in student
    # The story and the result are Spanish; the names and the note as they were written.
    assert english["story"][0] not in student and " jugaron " in student
    assert english["outcome"]["sentence"] not in student
    for name in ("Ana", "Ben", "Cara"):
        assert name in student
    assert "The war pile was fun." in student
    # The date in Spanish's long form, the page footer too.
    assert re.search(r"\d{1,2} de \w+ de \d{4}", student)
    assert "Página" in student and "Generado" in student
    # The teacher's and the designers' copies stay English.
    for copy in (teacher_copy, designers):
        assert '<html lang="en">' in copy and "Preguntas para la clase" not in copy and "Página" not in copy
        assert english["outcome"]["sentence"] in copy


def test_an_english_table_prints_its_student_copy_in_english(app, tables, teacher):
    code = play(tables, teacher.id, "war", ["Ana", "Ben"], moves=60)
    with app.test_request_context():
        student = debrief_html(tables, code, student=True)
    assert '<html lang="en">' in student and "Questions for the class" in student
