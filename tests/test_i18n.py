"""Languages (app/i18n): the catalogs are complete and compiled, a reader gets the
language it should, and an English text is translated from the catalogs' templates."""
from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from app import i18n
from app.i18n.localizer import Localizer

ROOT = Path(__file__).resolve().parent.parent
FIELD = re.compile(r"\{(\w+)\}")
CATALOGS = sorted(ROOT.glob("app/translations/*/LC_MESSAGES/*.po")) + sorted(
    ROOT.glob("app/engines/*/translations/*/LC_MESSAGES/*.po"))


def write_po(path: Path, entries: list[tuple], lang: str = "es") -> Path:
    """A small catalog: (msgid, msgstr) or ((singular, plural), [forms])."""
    lines = ['msgid ""', 'msgstr ""', '"Content-Type: text/plain; charset=UTF-8\\n"',
             '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"', f'"Language: {lang}\\n"', ""]
    q = lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'  # noqa: E731
    for msgid, msgstr in entries:
        if isinstance(msgid, tuple):
            lines += [f"msgid {q(msgid[0])}", f"msgid_plural {q(msgid[1])}"]
            lines += [f"msgstr[{i}] {q(s)}" for i, s in enumerate(msgstr)]
        else:
            lines += [f"msgid {q(msgid)}", f"msgstr {q(msgstr)}"]
        lines.append("")
    path.write_text("\n".join(lines), "utf-8")
    return path


@pytest.fixture
def spanish(tmp_path):
    po = write_po(tmp_path / "game.po", [
        ("Reveal", "Revelar"),
        ("Boost", "Impulso"),
        ("{name} reveals {card}.", "{name} revela {card}."),
        ("Use {power} ({cost} energy)", "Usar {power} ({cost} de energía)"),
        ("{name} wins the battle and takes {cards}.", "{name} gana la batalla y se lleva {cards}."),
        (("{n} card", "{n} cards"), ["{n} carta", "{n} cartas"]),
        ("{name} and {other} tie.", "Empate entre {name} y {other}."),
    ])
    data = tmp_path / "data"
    (data / "es").mkdir(parents=True)
    (data / "cards.json").write_text('{"cards": [{"id": "seven", "name": "Seven of Rain", "type": "bmp"}]}')
    (data / "es" / "cards.json").write_text('{"cards": [{"id": "seven", "name": "Siete de Lluvia", "type": "bmp"}]}')
    return Localizer("es", [po], data_folder=data)


def test_a_catalog_text_its_templates_and_their_fields(spanish):
    assert spanish.text("Reveal") == "Revelar"
    assert spanish.text("Ana reveals Seven of Rain.") == "Ana revela Siete de Lluvia."   # a field from the data
    assert spanish.text("Use Boost (2 energy)") == "Usar Impulso (2 de energía)"
    # A field that is itself a template (a plural), and the word order of the language.
    assert spanish.text("Ben wins the battle and takes 3 cards.") == "Ben gana la batalla y se lleva 3 cartas."
    assert spanish.text("Ben wins the battle and takes 1 card.") == "Ben gana la batalla y se lleva 1 carta."
    assert spanish.text("Ana and Ben tie.") == "Empate entre Ana y Ben."
    # What the catalogs do not hold stays as it is: a student's name, an id, a new sentence.
    for text in ("Ana", "seven", "Something nobody wrote a template for.", ""):
        assert spanish.text(text) == text


def test_a_payload_is_translated_but_what_a_phone_sends_back_is_not(spanish):
    payload = {"code": "ABC123", "status": "playing", "players": [{"seat": 0, "name": "Ana"}],
               "view": {"prompt": {"text": "Reveal"}, "card": {"id": "seven", "name": "Seven of Rain", "type": "bmp"}},
               "actions": [{"type": "reveal", "label": "Reveal", "battle": 3},
                           {"type": "use", "power": "Boost", "label": "Use Boost (2 energy)"}],
               "log": [{"t": "reveal", "text": "Ana reveals Seven of Rain.", "v": 4}]}
    out = spanish.payload(payload)
    assert out["view"]["prompt"]["text"] == "Revelar"
    assert out["view"]["card"] == {"id": "seven", "name": "Siete de Lluvia", "type": "bmp"}
    assert out["actions"] == [{"type": "reveal", "label": "Revelar", "battle": 3},
                              {"type": "use", "power": "Boost", "label": "Usar Impulso (2 de energía)"}]
    assert out["log"][0]["text"] == "Ana revela Siete de Lluvia."
    assert out["code"] == "ABC123" and out["players"] == payload["players"]
    assert payload["actions"][0]["label"] == "Reveal"  # the English payload is not changed in place


@pytest.mark.parametrize("po", CATALOGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_catalog_entry_is_translated_with_its_fields_and_compiled(po):
    with po.open("rb") as f:
        catalog = read_po(f)
    problems = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, (list, tuple)) else [message.id]
        strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
        if message.fuzzy:
            problems.append(f"fuzzy: {ids[0]!r}")
        if not all(strings):
            problems.append(f"untranslated: {ids[0]!r}")
            continue
        wanted = set(FIELD.findall(ids[-1])) | set(FIELD.findall(ids[0]))
        for s in strings:
            # A plural form may leave the number out ("una carta"); no other field may be lost or made up.
            got = set(FIELD.findall(s))
            if got - wanted or (wanted - {"n"}) - got:
                problems.append(f"fields {sorted(wanted)} -> {sorted(got)}: {ids[0]!r} -> {s!r}")
    assert not problems, "\n".join(problems[:30])
    mo = po.with_suffix(".mo")
    assert mo.is_file(), f"{mo} is missing: run bash scripts/i18n"
    with mo.open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    for message in catalog:
        if message.id and not isinstance(message.id, (list, tuple)) and message.string:
            assert compiled.gettext(message.id) == message.string, f"{mo} is older than its .po: run bash scripts/i18n"


def test_languages_and_what_a_reader_gets(app):
    assert i18n.languages()[0] == "en"
    assert i18n.known("es-MX") == ("es" if "es" in i18n.languages() else None)
    assert i18n.known("xx") is None and i18n.known(None) is None
    with app.test_request_context("/", headers={"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}):
        from flask import request
        assert i18n.from_request(request) == "en"


def test_a_phone_reads_its_browsers_language_unless_its_student_picked_another(app):
    client = app.test_client()
    page = client.get("/", headers={"Accept-Language": "es-ES,es;q=0.9"}).get_data(as_text=True)
    assert '<html lang="es"' in page and "/i18n/es.js" in page
    assert '<html lang="en"' in client.get("/", headers={"Accept-Language": "en-GB"}).get_data(as_text=True)
    # The student's pick (the page's picker, with its CSRF token) wins over the browser and is
    # kept for a year; the form goes back where it was. Without the token: refused, nothing set.
    token = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    refused = client.post("/i18n/use", data={"lang": "en", "next": "/"})
    assert refused.status_code == 400 and "Set-Cookie" not in refused.headers
    answer = client.post("/i18n/use", data={"lang": "en", "next": "/?code=ABC123", "csrf": token})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/?code=ABC123")
    assert "cg_lang=en" in answer.headers["Set-Cookie"] and "Max-Age=31536000" in answer.headers["Set-Cookie"]
    assert '<html lang="en"' in client.get("/", headers={"Accept-Language": "es"}).get_data(as_text=True)
    # Never off the site.
    assert client.post("/i18n/use", data={"lang": "es", "next": "//evil.example/", "csrf": token}
                       ).headers["Location"] == "/"
    script = client.get("/i18n/es.js")
    assert script.status_code == 200 and script.get_data(as_text=True).startswith("window.CG_I18N = {")
    assert client.get("/i18n/xx.js").status_code == 404


def test_a_board_language_must_be_one_we_speak(app, auth):
    client = app.test_client()
    answer = client.post("/api/tables", json={"game": "war", "options": {}, "language": "xx"}, headers=auth)
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == "bad_request"
    made = client.post("/api/tables", json={"game": "war", "options": {}}, headers=auth)
    assert made.status_code == 201


def test_each_phone_reads_its_own_language_and_the_board_the_tables(app, phone, tables, teacher):
    """At one War table, a phone that speaks Spanish gets Spanish labels, log and refusals;
    an English phone the same game in English; the board the table's language."""
    from phones import Phone  # noqa: F401 - the fixture's class

    table = tables.create_table(teacher.id, "war", {}, language="es")
    board = phone()
    assert board.send("watch", {"code": table.code})["ok"]
    ana, ben = phone(auth={"lang": "es"}), phone()
    assert ana.join(table.code, "Ana")["ok"] and ben.join(table.code, "Ben")["ok"]
    assert ana.act({"type": "start"})["ok"]
    for p in (ana, ben, board):
        p.pump()
    spanish, english = ana.view, ben.view
    assert english["actions"] and spanish["actions"]
    for es, en in zip(spanish["actions"], english["actions"]):
        assert {k: v for k, v in es.items() if k != "label"} == {k: v for k, v in en.items() if k != "label"}
        assert es["label"] == i18n.localize(en["label"], "es", "war") != en["label"]
    assert spanish["view"]["prompt"] != english["view"]["prompt"]
    # The board speaks the table's language: its names joined with the catalog's "y".
    board_prompt = board.view["view"]["prompt"]["text"]
    assert "Ana y Ben" in board_prompt and not re.search(r"\b(Waiting|reveal|and)\b", board_prompt)
    # A move sent as listed (its Spanish label and all) is the same move.
    assert ana.act(spanish["actions"][0])["ok"]
    # A refusal in the phone's language: the same wrong move from each phone.
    wrong = {"version": spanish["version"], "action": {"type": "no_such_move"}}
    refused_es, refused_en = ana.send("act", wrong), ben.send("act", wrong)
    assert refused_es["ok"] is refused_en["ok"] is False
    assert refused_es["error"]["code"] == refused_en["error"]["code"]
    assert refused_es["error"]["message"] == i18n.localize(refused_en["error"]["message"], "es", "war")
    assert refused_es["error"]["message"] != refused_en["error"]["message"]


def test_a_joined_list_in_a_field_is_translated_item_by_item(tmp_path):
    po = write_po(tmp_path / "g.po", [("and", "y"), ("Rain", "Lluvia"), ("Snow", "Nieve"),
                                      ("You saw: {cards}.", "Viste: {cards}."), ("{names} win.", "Ganan {names}.")])
    tr = Localizer("es", [po])
    assert tr.text("You saw: Rain, Snow.") == "Viste: Lluvia, Nieve."
    assert tr.text("You saw: Rain, Snow and Rain.") == "Viste: Lluvia, Nieve y Lluvia."
    assert tr.text("Ana, Ben and Cara win.") == "Ganan Ana, Ben y Cara."


def test_a_count_field_takes_only_a_number_and_rulings_stay_as_the_designers_wrote_them(tmp_path):
    po = write_po(tmp_path / "g.po", [("Environment", "Entorno"),
                                      (("{n} Environment", "{n} Environments"), ["{n} Entorno", "{n} Entornos"])])
    tr = Localizer("es", [po])
    assert tr.text("3 Environments") == "3 Entornos"
    assert tr.text("Degraders go on the Environment") == "Degraders go on the Environment"
    entry = {"t": "ruling", "id": "x.y", "text": "3 Environments"}
    assert tr.payload({"log": [entry]})["log"] == [entry]
    known = {"t": "ruling", "id": "x.y", "text": "Environment"}
    assert tr.payload({"log": [known]})["log"] == [dict(known, text="Entorno")]


def test_numbers_split_a_line_of_names_and_numbers_at_the_numbers(tmp_path):
    po = write_po(tmp_path / "g.po", [
        ("Last roll: {name} {attack} against {villager} {defense} (success)",
         "Última tirada: {name} {attack} contra {villager} {defense} (éxito)")])
    tr = Localizer("es", [po])
    assert tr.text("Last roll: Apa Nochis 12 against Psan son of Euprepri 10 (success)") == \
        "Última tirada: Apa Nochis 12 contra Psan son of Euprepri 10 (éxito)"


def test_a_list_of_known_texts_is_a_list_before_it_is_a_short_template(tmp_path):
    po = write_po(tmp_path / "g.po", [("and", "y"), ("Counter", "Contraataque"), ("Swap", "Cambio"),
                                      ("{length} match", "partida {length}"), ("Unlocked: {powers}.", "Desbloqueado: {powers}.")])
    tr = Localizer("es", [po])
    assert tr.text("Unlocked: Counter, Swap and Counter.") == "Desbloqueado: Contraataque, Cambio y Contraataque."
