"""Uploaded content banks (GameSpec.uploads): a teacher uploads a trivia CSV for
Water Cycle Challenge, a bad file is refused whole with every bad line listed,
a good one is kept for that teacher only and can be chosen when creating a
table or a class, whose game then asks the teacher's questions."""
from __future__ import annotations

import io
import re

import pytest
from markupsafe import escape
from sqlmodel import Session, select

from app import engines
from app.engines.contract import Upload
from app.extensions import services
from app.store.models import ContentBank
from test_classes import logged_in

GAME = "water_cycle"
HEADER = "question,option_a,option_b,option_c,option_d,correct,explanation,topic\n"
GOOD = HEADER + (
    "What makes rain?,Condensation,Sunlight,Wind,Salt,A,Water vapour condenses into drops that fall.,weather\n"
    "Where is most fresh water?,Rivers,Lakes,Ice and glaciers,Clouds,C,Most fresh water is frozen.,stores\n"
    "What does a plant give off?,Smoke,Water vapour,Sand,Oil,2,Leaves transpire water vapour.,\n"
)
BAD = HEADER + (
    "What makes rain?,Condensation,Sunlight,Wind,Salt,E,Water vapour condenses.,weather\n"   # line 2
    "Fine question?,One,Two,Three,Four,A,Fine.,x\n"                                            # line 3: good
    "<b>Bold</b>?,One,Two,Three,Four,A,Fine.,x\n"                                              # line 4
    "Same options?,One,One,Three,Four,A,,x\n"                                                  # line 5 (two)
)


@pytest.fixture
def teacher_client(app, teacher):
    return logged_in(app)


def upload(client, csrf, data: bytes | str, name="My bank", kind="trivia", game=GAME, filename="bank.csv"):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return client.post("/facilitator/banks", data={
        "csrf": csrf, "game": game, "kind": kind, "name": name,
        "file": (io.BytesIO(data), filename)}, content_type="multipart/form-data")


def stored(app, facilitator_id=None):
    with Session(services(app).db) as s:
        query = select(ContentBank)
        if facilitator_id is not None:
            query = query.where(ContentBank.facilitator_id == facilitator_id)
        return list(s.exec(query).all())


def error_rows(page: str) -> list[tuple[str, str]]:
    return re.findall(r'<tr class="upload-error"><td class="mono">([^<]*)</td><td>([^<]*)</td></tr>', page)


# ------------------------------------------------------------------ the spec
def test_the_game_declares_its_upload_and_the_api_lists_it(app):
    spec = engines.spec(GAME)
    up = spec.upload("trivia")
    assert isinstance(up, Upload) and up.option == "trivia" and up.option in {o.key for o in spec.options}
    items, errors = up.parse(GOOD)
    assert errors == [] and len(items) == 3
    listed = next(g for g in engines.games() if g["key"] == GAME)
    assert [u["kind"] for u in listed["uploads"]] == ["trivia"] and "question" in listed["uploads"][0]["help"]
    assert "parse" not in listed["uploads"][0]
    assert all(g["uploads"] == [] for g in engines.games() if g["key"] != GAME)


def test_no_platform_file_names_a_game():
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    for rel in ("app/service/banks.py", "app/facilitator/banks.py", "templates/facilitator/banks.html",
                "templates/facilitator/_bank_select.html", "app/store/migrations/versions/0003_content_banks.py"):
        text = (root / rel).read_text().lower()
        assert "water" not in text and "trivia" not in text, rel


# ------------------------------------------------------------------ uploading
def test_a_good_file_is_stored_and_listed(app, teacher, teacher_client):
    client, csrf = teacher_client
    response = upload(client, csrf, "\ufeff" + GOOD, name="Year 7 rivers")  # a BOM, as Excel writes it
    assert response.status_code == 303
    page = client.get("/facilitator/banks").get_data(as_text=True)
    assert "Saved \u201cYear 7 rivers\u201d: 3 questions." in page
    (bank,) = stored(app, teacher.id)
    assert (bank.game, bank.kind, bank.name, bank.count) == (GAME, "trivia", "Year 7 rivers", 3)
    assert bank.items == engines.spec(GAME).upload("trivia").parse(GOOD)[0]
    assert bank.items[0]["question"] == "What makes rain?" and bank.items[2]["answer"] == 1
    row = re.search(r'<tr class="bank-row" data-bank="%d">(.*?)</tr>' % bank.id, page, re.S).group(1)
    assert "Year 7 rivers" in row and "<td>3</td>" in row and bank.created_at.strftime("%Y-%m-%d") in row
    # ...and it is offered on every create form of the game's new-game page (table, class, hotseat).
    dash = client.get(f"/facilitator/new/{GAME}").get_data(as_text=True)
    assert dash.count(f'<option value="{bank.id}">Year 7 rivers (3 questions)</option>') == 3
    assert dash.count('name="bank_trivia"') == 3 and "Built-in bank" in dash
    assert 'name="trivia"' not in dash  # the raw option is never a form field


def test_a_bad_file_is_refused_whole_with_every_bad_line(app, teacher, teacher_client):
    client, csrf = teacher_client
    response = upload(client, csrf, BAD)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    rows = error_rows(page)
    expected = engines.spec(GAME).upload("trivia").parse(BAD)[1]
    assert len(expected) >= 4
    assert rows == [(str(line), str(escape(reason))) for line, reason in expected]
    assert {r[0] for r in rows} == {"2", "4", "5"}
    assert "Nothing was saved" in page and stored(app) == []


def test_the_whole_file_problems_are_line_0(app, teacher, teacher_client):
    client, csrf = teacher_client
    latin1 = GOOD.replace("What makes rain?", "Qu\u00e9 hace la lluvia?").encode("latin-1")
    page = upload(client, csrf, latin1).get_data(as_text=True)
    ((line, reason),) = error_rows(page)
    assert line == "whole file" and "not UTF-8" in reason and "line 2" in reason
    ((line, reason),) = error_rows(upload(client, csrf, b"").get_data(as_text=True))
    assert line == "whole file" and "empty" in reason
    ((line, reason),) = error_rows(upload(client, csrf, "question,option_a\nx,y\n").get_data(as_text=True))
    assert line == "1" and "missing" in reason
    big = HEADER + "x" * 200_001
    response = upload(client, csrf, big)
    assert response.status_code == 400, (response.status_code, response.headers.get("Location"))
    ((line, reason),) = error_rows(response.get_data(as_text=True))
    assert line == "whole file" and "larger than 200 kB" in reason
    assert stored(app) == []


def test_a_file_far_over_the_limit_is_refused_politely(app, teacher, teacher_client):
    client, csrf = teacher_client
    response = upload(client, csrf, "x" * 600_000)
    assert response.status_code == 303
    assert "too large" in client.get("/facilitator/banks").get_data(as_text=True) and stored(app) == []


@pytest.mark.parametrize("name,problem", [("<script>x</script>", "HTML"), ("a\x00b", "NUL"),
                                          ("n" * 81, "at most 80"), ("   ", None)])
def test_names_are_checked(app, teacher, teacher_client, name, problem):
    client, csrf = teacher_client
    response = upload(client, csrf, GOOD, name=name)
    if problem is None:  # no name: the file's name
        assert response.status_code == 303 and stored(app)[0].name == "bank"
        return
    assert response.status_code == 400 and problem in response.get_data(as_text=True)
    assert "<script>x" not in response.get_data(as_text=True) and stored(app) == []


def test_uploads_need_login_csrf_and_a_known_upload(app, teacher, teacher_client):
    anonymous = app.test_client()
    assert anonymous.get("/facilitator/banks").status_code == 302
    client, csrf = teacher_client
    assert upload(client, "wrong", GOOD).status_code == 400 and stored(app) == []
    response = upload(client, csrf, GOOD, game="war")
    assert response.status_code == 400 and "takes no uploads" in response.get_data(as_text=True)
    assert upload(client, csrf, GOOD, kind="spells").status_code == 400 and stored(app) == []


def test_text_in_the_file_is_escaped_on_the_page(app, teacher, teacher_client):
    client, csrf = teacher_client
    page = upload(client, csrf, HEADER + '"Q?",A,B,C,D,"<img src=x onerror=alert(1)>",E,x\n').get_data(as_text=True)
    assert "<img src=x" not in page and "&lt;img src=x" in page


def test_delete(app, teacher, teacher_client):
    client, csrf = teacher_client
    upload(client, csrf, GOOD)
    (bank,) = stored(app)
    assert client.post(f"/facilitator/banks/{bank.id}/delete", data={"csrf": csrf}).status_code == 303
    assert stored(app) == []


# ------------------------------------------------------------------ privacy
def test_another_teacher_can_neither_see_nor_use_nor_delete_my_bank(app, teacher, other_teacher, teacher_client):
    client, csrf = teacher_client
    upload(client, csrf, GOOD, name="Mine only")
    (bank,) = stored(app)
    other, other_csrf = logged_in(app, "other")
    assert "Mine only" not in other.get("/facilitator/banks").get_data(as_text=True)
    assert "Mine only" not in other.get("/facilitator/").get_data(as_text=True)
    response = other.post("/facilitator/tables", data={"csrf": other_csrf, "game": GAME, "bank_trivia": str(bank.id)})
    assert response.status_code == 302 and response.headers["Location"].endswith("/facilitator/")
    assert "not yours" in other.get("/facilitator/").get_data(as_text=True)
    response = other.post("/facilitator/classes", data={"csrf": other_csrf, "game": GAME, "bank_trivia": str(bank.id)})
    assert response.headers["Location"].endswith("/facilitator/")
    assert services(app).tables.tables_of(other_teacher.id) == []
    other.post(f"/facilitator/banks/{bank.id}/delete", data={"csrf": other_csrf})
    assert len(stored(app)) == 1


# ------------------------------------------------------------------ playing with a bank
def test_a_table_created_with_my_bank_asks_my_questions(app, teacher, teacher_client):
    client, csrf = teacher_client
    upload(client, csrf, GOOD)
    (bank,) = stored(app)
    response = client.post("/facilitator/tables", data={"csrf": csrf, "game": GAME, "bank_trivia": str(bank.id),
                                                         "crisis_mode": "off"})
    assert response.status_code == 302 and "/facilitator/tables/" in response.headers["Location"]
    code = response.headers["Location"].rsplit("/", 1)[1]
    tables = services(app).tables
    assert tables.get(code).options["trivia"] == bank.items
    tables.join(code, "Ana")
    tables.join(code, "Ben")
    tables.start_now(code)
    live = tables.live(code)
    assert live.state["custom_trivia"] == bank.items
    view = engines.get(GAME).view(live.state, "board")
    assert view["public"]["custom_trivia"] is True
    # Deleting the bank later leaves the table's copy alone.
    client.post(f"/facilitator/banks/{bank.id}/delete", data={"csrf": csrf})
    assert tables.get(code).options["trivia"] == bank.items


def test_the_built_in_bank_is_the_default(app, teacher, teacher_client):
    client, csrf = teacher_client
    response = client.post("/facilitator/tables", data={"csrf": csrf, "game": GAME, "bank_trivia": ""})
    code = response.headers["Location"].rsplit("/", 1)[1]
    assert services(app).tables.get(code).options["trivia"] is None


def test_a_class_created_with_my_bank_gives_every_table_my_questions(app, teacher, teacher_client):
    client, csrf = teacher_client
    upload(client, csrf, GOOD)
    (bank,) = stored(app)
    response = client.post("/facilitator/classes", data={"csrf": csrf, "game": GAME, "bank_trivia": str(bank.id),
                                                          "table_size": "2"})
    assert response.status_code == 302 and "/facilitator/classes/" in response.headers["Location"]
    code = response.headers["Location"].rsplit("/", 1)[1]
    classes = services(app).classes
    assert classes.get(code).options["trivia"] == bank.items
    classes.join_any(code, "Ana")
    (table,) = services(app).tables.tables_of(teacher.id)
    assert table.options["trivia"] == bank.items


def test_the_json_api_takes_a_bank_too(app, teacher, teacher_client, teacher_token, other_teacher):
    client, csrf = teacher_client
    upload(client, csrf, GOOD)
    (bank,) = stored(app)
    api = app.test_client()
    mine = {"Authorization": f"Bearer {teacher_token}"}
    response = api.post("/api/tables", json={"game": GAME, "banks": {"trivia": bank.id}}, headers=mine)
    assert response.status_code == 201
    assert services(app).tables.get(response.get_json()["code"]).options["trivia"] == bank.items
    response = api.post("/api/classes", json={"game": GAME, "banks": {"trivia": bank.id}}, headers=mine)
    assert response.status_code == 201
    assert services(app).classes.get(response.get_json()["code"]).options["trivia"] == bank.items
    theirs = {"Authorization": f"Bearer {services(app).accounts.issue_token(other_teacher.id)}"}
    response = api.post("/api/tables", json={"game": GAME, "banks": {"trivia": bank.id}}, headers=theirs)
    assert response.status_code == 403 and response.get_json()["error"]["code"] == "forbidden"
    response = api.post("/api/tables", json={"game": GAME, "banks": {"spells": bank.id}}, headers=mine)
    assert response.status_code == 400


# ------------------------------------------------------------------ a bank's languages
MIXED = HEADER.rstrip("\n") + ",language\n" + (
    "What makes rain?,Condensation,Sunlight,Wind,Salt,A,Water vapour condenses into drops.,weather,en\n"
    "\u00bfQu\u00e9 forma la lluvia?,La condensaci\u00f3n,El sol,El viento,La sal,A,El vapor se condensa.,,ES\n"
    "\u00bfD\u00f3nde hay m\u00e1s agua dulce?,R\u00edos,Lagos,Hielo,Nubes,C,Casi toda est\u00e1 helada.,,es-MX\n"
    "H2O?,Water,Salt,Sand,Oil,A,H2O is water.,,\n"
    "Where is most fresh water?,Rivers,Lakes,Ice and glaciers,Clouds,C,Most fresh water is frozen.,stores,EN-gb\n"
)
ENGLISH_ONLY = HEADER.rstrip("\n") + ",language\n" + (
    "What makes rain?,Condensation,Sunlight,Wind,Salt,A,Water vapour condenses into drops.,weather,en\n"
    "Where is most fresh water?,Rivers,Lakes,Ice and glaciers,Clouds,C,Most fresh water is frozen.,stores,en\n"
)


def questions_of(items) -> list[str]:
    return [q["question"] for q in items]


def create_table(client, csrf, bank, language):
    response = client.post("/facilitator/tables", data={"csrf": csrf, "game": GAME, "bank_trivia": str(bank.id),
                                                         "crisis_mode": "off", "language": language})
    assert response.status_code == 302 and "/facilitator/tables/" in response.headers["Location"]
    return response.headers["Location"].rsplit("/", 1)[1]


def test_a_language_column_is_kept_and_the_bank_page_counts_each_language(app, teacher, teacher_client):
    client, csrf = teacher_client
    assert upload(client, csrf, MIXED, name="Mixed").status_code == 303
    (bank,) = stored(app)
    assert [q["language"] for q in bank.items] == ["en", "es", "es", None, "en"]
    page = client.get("/facilitator/banks").get_data(as_text=True)
    row = re.search(r'<tr class="bank-row" data-bank="%d">(.*?)</tr>' % bank.id, page, re.S).group(1)
    counts = re.findall(r'<span class="bank-language" data-language="([^"]*)">([^<]*)</span>', row)
    assert counts == [("en", "English: 2"), ("es", "Espa\u00f1ol: 2"), ("", "Any language: 1")]
    assert "<td>5</td>" in row
    help_text = engines.spec(GAME).upload("trivia").help
    assert "language column" in help_text and str(escape(help_text)) in page


def test_an_unknown_language_refuses_the_file_naming_the_line_and_the_app_languages(app, teacher, teacher_client):
    from app import i18n
    client, csrf = teacher_client
    bad = MIXED.replace(",,ES\n", ",,fr\n")
    response = upload(client, csrf, bad)
    assert response.status_code == 400 and stored(app) == []
    ((line, reason),) = error_rows(response.get_data(as_text=True))
    codes = ", ".join(i18n.languages())
    assert line == "3" and "fr" in reason and f"write {codes}," in reason and "es" in codes


def test_a_spanish_table_gets_the_spanish_and_the_language_less_questions(app, teacher, teacher_client):
    client, csrf = teacher_client
    upload(client, csrf, MIXED)
    (bank,) = stored(app)
    code = create_table(client, csrf, bank, "es")
    tables = services(app).tables
    table = tables.get(code)
    assert table.language == "es"
    assert questions_of(table.options["trivia"]) == ["\u00bfQu\u00e9 forma la lluvia?",
                                                     "\u00bfD\u00f3nde hay m\u00e1s agua dulce?", "H2O?"]
    tables.join(code, "Ana")
    tables.join(code, "Ben")
    tables.start_now(code)
    assert questions_of(tables.live(code).state["custom_trivia"]) == questions_of(table.options["trivia"])
    assert tables.replay(code) == tables.live(code).state   # the stored questions' language key replays
    page = client.get(f"/facilitator/tables/{code}").get_data(as_text=True)
    assert "Too few" not in page   # nothing to say: the bank had Spanish questions


def test_an_english_table_gets_the_english_and_the_language_less_questions(app, teacher, teacher_client):
    client, csrf = teacher_client
    upload(client, csrf, MIXED)
    (bank,) = stored(app)
    code = create_table(client, csrf, bank, "en")
    assert questions_of(services(app).tables.get(code).options["trivia"]) == [
        "What makes rain?", "H2O?", "Where is most fresh water?"]


def test_too_few_in_the_language_uses_the_whole_bank_and_says_so(app, teacher, teacher_client):
    client, csrf = teacher_client
    upload(client, csrf, ENGLISH_ONLY, name="Rivers")
    (bank,) = stored(app)
    code = create_table(client, csrf, bank, "es")
    table = services(app).tables.get(code)
    assert table.language == "es" and table.options["trivia"] == bank.items
    page = client.get(f"/facilitator/tables/{code}").get_data(as_text=True)
    assert ("Too few questions in \u201cRivers\u201d are in Espa\u00f1ol or have no language, "
            "so all 2 of its questions are used.") in page
    # The service says the same to any caller that asks, and an English table is not told anything.
    notes: list[str] = []
    options = services(app).banks.with_banks(teacher.id, GAME, {}, {"trivia": bank.id}, language="es", notes=notes)
    assert options["trivia"] == bank.items and len(notes) == 1 and "Rivers" in notes[0]
    notes.clear()
    services(app).banks.with_banks(teacher.id, GAME, {}, {"trivia": bank.id}, language="en", notes=notes)
    assert notes == []


def test_the_api_says_when_a_bank_is_used_whole(app, teacher, teacher_client, teacher_token):
    client, csrf = teacher_client
    upload(client, csrf, ENGLISH_ONLY, name="Rivers")
    (bank,) = stored(app)
    api = app.test_client()
    mine = {"Authorization": f"Bearer {teacher_token}"}
    for path in ("/api/tables", "/api/classes"):
        spanish = api.post(path, json={"game": GAME, "banks": {"trivia": bank.id}, "language": "es"}, headers=mine)
        assert spanish.status_code == 201
        (note,) = spanish.get_json()["notes"]
        assert "Rivers" in note and "Espa\u00f1ol" in note
        english = api.post(path, json={"game": GAME, "banks": {"trivia": bank.id}, "language": "en"}, headers=mine)
        assert english.status_code == 201 and "notes" not in english.get_json()


def test_a_spanish_class_and_the_api_filter_by_language_too(app, teacher, teacher_client, teacher_token):
    client, csrf = teacher_client
    upload(client, csrf, MIXED)
    (bank,) = stored(app)
    spanish = ["\u00bfQu\u00e9 forma la lluvia?", "\u00bfD\u00f3nde hay m\u00e1s agua dulce?", "H2O?"]
    response = client.post("/facilitator/classes", data={"csrf": csrf, "game": GAME, "bank_trivia": str(bank.id),
                                                          "table_size": "2", "language": "es"})
    assert response.status_code == 302
    code = response.headers["Location"].rsplit("/", 1)[1]
    classes = services(app).classes
    assert questions_of(classes.get(code).options["trivia"]) == spanish
    classes.join_any(code, "Ana")
    (table,) = services(app).tables.tables_of(teacher.id)
    assert questions_of(table.options["trivia"]) == spanish
    api = app.test_client()
    mine = {"Authorization": f"Bearer {teacher_token}"}
    response = api.post("/api/tables", json={"game": GAME, "banks": {"trivia": bank.id}, "language": "es"},
                        headers=mine)
    assert response.status_code == 201
    assert questions_of(services(app).tables.get(response.get_json()["code"]).options["trivia"]) == spanish
    response = api.post("/api/classes", json={"game": GAME, "banks": {"trivia": bank.id}}, headers=mine)
    assert response.status_code == 201   # no language: English, the default
    assert questions_of(services(app).classes.get(response.get_json()["code"]).options["trivia"]) == [
        "What makes rain?", "H2O?", "Where is most fresh water?"]
