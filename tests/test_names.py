"""Look-alike names (issue 18, item 13): names are compared by their UTS #39 skeleton,
computed from Unicode's own confusables table, and characters that draw nothing
(Unicode's Default_Ignorable_Code_Point, plus the blank glyphs) do not count.

Each example below looks like "Ann" on a phone and on the projected board, so it is
refused `name_taken` where an Ann sits: at one table and in a class (on SQLite and
PostgreSQL, as the names are compared against seats read from the database).
"""
from __future__ import annotations

import uuid

import pytest

from app.edge import names
from app.extensions import services
from conftest import make_app
from phones import Phone

TWINS_OF_ANN = {
    "empty musical glyph": "Ann\U0001d159",   # MUSICAL SYMBOL NULL NOTEHEAD: draws nothing
    "Cherokee": "\u13aann",                   # Ꭺnn
    "Lisu": "\ua4eenn",                       # ꓮnn
    "Canadian syllabics": "\u15c5nn",         # ᗅnn
    "small capital": "\u1d00nn",              # ᴀnn
    "Cyrillic": "\u0410nn",
    "Greek capitals": "\u0391\u039d\u039d",
    "fullwidth": "\uff21\uff4e\uff4e",
    "mathematical bold": "\U0001d400nn",
    "capitals": "ANN",
}


@pytest.fixture(params=["sqlite", "postgresql"])
def db_app(request, tmp_path):
    """The app on a fresh SQLite file, or on a private schema of the machine's PostgreSQL."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'names.db'}"
    else:
        from sqlalchemy import create_engine, text

        schema = "names_" + uuid.uuid4().hex[:10]
        admin = create_engine("postgresql+psycopg://postgres@127.0.0.1:5432/test")
        with admin.begin() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        url = f"postgresql://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{schema}"
    app = make_app(tmp_path, DATABASE_URL=url)
    yield app
    services(app).stop()
    if request.param == "postgresql":
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def refused(ack) -> str:
    assert ack["ok"] is False, ack
    return ack["error"]["code"]


@pytest.mark.parametrize("twin", TWINS_OF_ANN.values(), ids=TWINS_OF_ANN.keys())
def test_a_look_alike_of_ann_is_taken_at_a_table_and_in_a_class(db_app, twin):
    accounts, tables, classes = services(db_app).accounts, services(db_app).tables, services(db_app).classes
    teacher = accounts.add("teacher", "correct-horse-1")
    phones = []

    def join(code, name):
        phone = Phone(db_app)
        phones.append(phone)
        return phone.join(code, name)

    try:
        table = tables.create_table(teacher.id, "war", {})
        assert join(table.code, "Ann")["ok"]
        assert refused(join(table.code, twin)) == "name_taken"
        assert [s.name for s in tables.seats(table.code)] == ["Ann"]

        klass = classes.create(teacher.id, "war", {}, table_size=2)
        assert join(klass.code, "Ann")["ok"]
        assert join(klass.code, "Ben")["ok"]  # that table is full: the twin would sit at another one
        assert refused(join(klass.code, twin)) == "name_taken"
    finally:
        for phone in phones:
            phone.close()


def test_a_name_of_empty_glyphs_shows_nothing():
    assert names.visible_text("Ann\U0001d159") == "Ann"
    assert not names.shows_something(names.visible_text("\U0001d159\u2800"))


@pytest.mark.parametrize("twin", TWINS_OF_ANN.values(), ids=TWINS_OF_ANN.keys())
def test_every_look_alike_has_anns_skeleton(twin):
    assert names.skeleton(twin) == names.skeleton("Ann")


def test_names_that_differ_to_the_eye_keep_different_skeletons():
    distinct = ["Ann", "Anne", "Ánn", "Анна", "Άννα", "Ana", "Amm", "Bea", "李小龍", "김민준", "Zoë", "Zoe"]
    assert len({names.skeleton(n) for n in distinct}) == len(distinct)
