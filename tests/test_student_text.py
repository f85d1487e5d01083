"""Issue 18, items 5 and 8: who may read a playtest note (by the author's role, never
a name), and the text students type that others see: one filter for every game's
free text, the teacher's one-tap hide, and "student text appears only after I approve it".
Service tests run on SQLite and PostgreSQL (the `service` fixture of test_service.py)."""
from __future__ import annotations

import json
import random

import pytest

from app import engines
from app.engines.contract import strip_label
from app.errors import ServiceError
from app.extensions import services
from app.service.student_text import HIDDEN, WAITING
from test_service import facilitator_id, service  # noqa: F401  (fixtures: SQLite and PostgreSQL)

RUDE = "you stupid bitch"
WORDS = "Abracadabra zingalong"
EXPLANATION = "The rain garden soaks up the storm water before it floods the street"


def play_until_offered(tables, code: str, kind: str, seed: int = 3) -> int:
    """Let the computer logic play every seat until one is offered a `kind` action;
    returns that seat."""
    live = tables.live(code)
    engine, rng = live.engine, random.Random(seed)
    for _ in range(3000):
        live = tables.live(code)
        assert live.status == "playing", f"the game ended before anyone could {kind}"
        waiting = engine.view(live.state, "board")["prompt"]["waiting_for"]
        for seat in waiting:
            if any(a["type"] == kind for a in engine.actions(live.state, seat)):
                return seat
        seat = waiting[rng.randrange(len(waiting))]
        choice = engine.bot(engine.view(live.state, seat), engine.actions(live.state, seat), rng)
        tables.act(code, seat, live.version, strip_label(choice))
    raise AssertionError(f"no seat was offered {kind}")


def started(tables, fid, game, names, **create):
    code = tables.create_table(fid, game, {}, **create).code
    for name in names:
        tables.join(code, name)
    tables.moderate(fid, code, tables.get(code).version, {"type": "start"})
    return code


def cast_with_words(tables, fid, words, **create):
    """A Wizard duel up to a cast with these words of power; returns (code, caster)."""
    code = started(tables, fid, "wizard", ["Ana", "Ben"], **create)
    seat = play_until_offered(tables, code, "cast")
    live = tables.live(code)
    cast = next(strip_label(a) for a in live.engine.actions(live.state, seat) if a["type"] == "cast")
    tables.act(code, seat, live.version, dict(cast, words=words))
    return code, seat


def text_of(payload) -> str:
    return json.dumps({"view": payload["view"], "log": payload["log"]}, ensure_ascii=False)


# -------------------------------------------------------------- the filter
def test_rude_words_of_power_are_refused_when_the_tables_filter_is_on(service, facilitator_id):  # noqa: F811
    code = started(service, facilitator_id, "wizard", ["Ana", "Ben"])
    seat = play_until_offered(service, code, "cast")
    live = service.live(code)
    cast = next(strip_label(a) for a in live.engine.actions(live.state, seat) if a["type"] == "cast")
    with pytest.raises(ServiceError) as refused:
        service.act(code, seat, live.version, dict(cast, words="  you   STUPID b1tch "))
    assert refused.value.code == "bad_request" and "stupid" not in refused.value.message.lower()
    assert "another way" in refused.value.message
    assert service.get(code).version == live.version  # nothing was written
    service.act(code, seat, live.version, dict(cast, words=WORDS))
    assert WORDS in text_of(service.view_for(code, "board"))


def test_rude_words_pass_where_the_teacher_switched_the_filter_off(service, facilitator_id):  # noqa: F811
    code, _seat = cast_with_words(service, facilitator_id, RUDE, name_filter=False)
    assert RUDE in text_of(service.view_for(code, "facilitator"))


def test_a_rude_crisis_explanation_is_refused(service, facilitator_id):  # noqa: F811
    code = started(service, facilitator_id, "water_cycle", ["Ana", "Ben"])
    seat = play_until_offered(service, code, "explain")
    live = service.live(code)
    with pytest.raises(ServiceError) as refused:
        service.act(code, seat, live.version, {"type": "explain", "text": f"It is a {RUDE}"})
    assert refused.value.code == "bad_request" and "bitch" not in refused.value.message
    service.act(code, seat, live.version, {"type": "explain", "text": EXPLANATION})
    assert EXPLANATION in text_of(service.view_for(code, "board"))


def test_a_rude_note_is_refused_but_the_teachers_own_note_is_the_teachers(service, facilitator_id):  # noqa: F811
    code = started(service, facilitator_id, "war", ["Ana", "Ben"])
    with pytest.raises(ServiceError) as refused:
        service.add_note(code, RUDE, role="seat", author="Ana", seat=0)
    assert refused.value.code == "bad_request" and "bitch" not in refused.value.message
    with pytest.raises(ServiceError):
        service.add_note(code, RUDE, role="board", author="Board")
    assert service.add_note(code, "Ben called Ana a bitch", role="teacher", author="Facilitator t").id


# ------------------------------------------------------------ who reads notes
def test_each_note_is_read_by_its_roles_readers(service, facilitator_id):  # noqa: F811
    code = started(service, facilitator_id, "war", ["Ana", "Facilitator Rivera"])
    teacher = service.add_note(code, "TEACHER-ONLY: Ann seems upset", role="teacher", author="Facilitator bob")
    forged = service.add_note(code, "I am the teacher now", role="seat", author="Facilitator Rivera", seat=1)
    board = service.add_note(code, "typed at the board", role="board", author="Board")
    assert (teacher.audience, forged.audience, board.audience) == ("teacher", "table", "teacher")
    texts = lambda reader: [n.text for n in service.notes_for(code, reader)]  # noqa: E731
    assert texts("teacher") == [teacher.text, forged.text, board.text]
    assert texts(0) == texts(1) == texts("board") == [forged.text]


# ------------------------------------------------------------- hide and approve
def test_the_teacher_hides_words_of_power_from_the_board_and_phones(service, facilitator_id):  # noqa: F811
    code, caster = cast_with_words(service, facilitator_id, WORDS)
    teacher = service.view_for(code, "facilitator")
    [item] = teacher["texts"]
    assert item["text"] == WORDS and item["seat"] == caster and not item["hidden"]
    outcome = service.moderate(facilitator_id, code, teacher["version"] - 3,  # an older screen: still taken
                               {"type": "hide_text", "ref": item["ref"]})
    sent = dict(outcome.views)
    for viewer in ["board", 0, 1]:
        payload = service.view_for(code, viewer)
        assert WORDS not in text_of(payload) and HIDDEN in text_of(payload)
    for key, payload in sent.items():  # what the change sent replaces what they had, log included
        if key != "facilitator":
            assert WORDS not in text_of(payload) and payload["log_reset"]
    teacher = service.view_for(code, "facilitator")
    assert WORDS in text_of(teacher) and teacher["texts"][0]["hidden"]
    assert WORDS in json.dumps(service.log_json(code))  # the teacher's log and report keep it
    assert service.replay(code) == service.get(code).state  # the game itself never heard of it
    service.moderate(facilitator_id, code, service.get(code).version, {"type": "show_text", "ref": item["ref"]})
    assert WORDS in text_of(service.view_for(code, "board"))
    with pytest.raises(ServiceError) as unknown:
        service.moderate(facilitator_id, code, service.get(code).version, {"type": "hide_text", "ref": "e999999"})
    assert unknown.value.code == "bad_request"


def test_a_hidden_crisis_explanation_leaves_the_board(service, facilitator_id):  # noqa: F811
    code = started(service, facilitator_id, "water_cycle", ["Ana", "Ben"])
    seat = play_until_offered(service, code, "explain")
    service.act(code, seat, service.get(code).version, {"type": "explain", "text": EXPLANATION})
    ref = service.view_for(code, "facilitator")["texts"][0]["ref"]
    service.moderate(facilitator_id, code, service.get(code).version, {"type": "hide_text", "ref": ref})
    for viewer in ["board", 0, 1]:
        assert EXPLANATION not in text_of(service.view_for(code, viewer))
    assert EXPLANATION in text_of(service.view_for(code, "facilitator"))


def test_with_approval_first_only_the_author_and_teacher_see_the_text_until_approved(
        service, facilitator_id):  # noqa: F811
    code, caster = cast_with_words(service, facilitator_id, WORDS, text_approval=True)
    other = 1 - caster
    assert WORDS in text_of(service.view_for(code, caster))
    for viewer in ["board", other]:
        payload = service.view_for(code, viewer)
        assert WORDS not in text_of(payload) and WAITING in text_of(payload)
    [item] = service.view_for(code, "facilitator")["texts"]
    assert not item["approved"]
    note = service.add_note(code, "the dice felt slow", role="seat", author="Ana", seat=0)
    assert [n.text for n in service.notes_for(code, 0)] == [note.text]
    assert service.notes_for(code, 1) == [] and service.notes_for(code, "board") == []
    for ref in (item["ref"], f"n{note.id}"):
        service.moderate(facilitator_id, code, service.get(code).version, {"type": "approve_text", "ref": ref})
    assert WORDS in text_of(service.view_for(code, "board")) and WORDS in text_of(service.view_for(code, other))
    assert [n.text for n in service.notes_for(code, "board")] == [note.text]
    service.moderate(facilitator_id, code, service.get(code).version, {"type": "hide_text", "ref": f"n{note.id}"})
    assert service.notes_for(code, 0) == [] and [n.text for n in service.notes_for(code, "teacher")] == [note.text]
    assert service.replay(code) == service.get(code).state


def test_numbers_in_a_sentence_are_numbers_but_leetspeak_words_are_words():
    from app.edge.security import InputError, check_polite
    check_polite("We measured 455 mm of rain", "text")
    with pytest.raises(InputError):
        check_polite("u r a b1tch", "text")
    with pytest.raises(InputError):
        check_polite("455")  # a name of digits can only be spelling a word


# ------------------------------------------------------------ over the sockets
@pytest.fixture
def fac_phone(phone, teacher_token):
    return phone(auth={"token": teacher_token})


def test_only_the_teacher_reads_the_teachers_note_whatever_a_student_is_called(app, phone, fac_phone, war_table):
    assert fac_phone.send("watch", {"code": war_table.code, "role": "facilitator"})["ok"]
    assert fac_phone.send("note", {"text": "TEACHER-ONLY: Ann seems upset"})["ok"]
    rivera = phone()
    assert rivera.join(war_table.code, "Facilitator Rivera")["ok"]
    assert rivera.send("note", {"text": "The tie rule confused us"})["ok"]
    watcher = phone()
    assert watcher.send("watch", {"code": war_table.code})["ok"]
    assert watcher.send("note", {"text": "written on the board"})["ok"]
    for reader in (rivera, watcher):
        got = reader.send("notes", {})
        assert got["ok"] and [n["text"] for n in got["notes"]] == ["The tie rule confused us"], got
        assert all(n["role"] == "seat" for n in got["notes"])
    teacher = fac_phone.send("notes", {})["notes"]
    assert [(n["role"], n["text"]) for n in teacher] == [
        ("teacher", "TEACHER-ONLY: Ann seems upset"), ("seat", "The tie rule confused us"),
        ("board", "written on the board")]
    notes = services(app).tables.notes(war_table.code)
    assert [(n.author, n.role, n.audience) for n in notes] == [
        ("Facilitator teacher", "teacher", "teacher"), ("Facilitator Rivera", "seat", "table"),
        ("Board", "board", "teacher")]


def test_a_tap_on_hide_takes_the_words_off_the_board_and_the_phones(app, phone, fac_phone, teacher):
    tables = services(app).tables
    code, caster = cast_with_words(tables, teacher.id, WORDS)
    board = phone()
    assert board.send("watch", {"code": code})["ok"]
    assert fac_phone.send("watch", {"code": code, "role": "facilitator"})["ok"]
    assert WORDS in text_of(board.view)
    ref = fac_phone.view["texts"][0]["ref"]
    ack = fac_phone.send("moderate", {"code": code, "version": fac_phone.view["version"],
                                      "action": {"type": "hide_text", "ref": ref}})
    assert ack["ok"], ack
    board.pump()
    fac_phone.pump()
    assert WORDS not in text_of(board.view) and HIDDEN in text_of(board.view)
    assert WORDS in text_of(fac_phone.view) and fac_phone.view["texts"][0]["hidden"]
    stranger = phone()
    refused = stranger.send("moderate", {"code": code, "version": 0, "action": {"type": "show_text", "ref": ref}})
    assert not refused["ok"] and refused["error"]["code"] == "forbidden"


# ------------------------------------------------------------ reports and exports
def test_the_student_report_leaves_out_teacher_notes_and_hidden_text(app, tables, teacher, teacher_token):
    code, _caster = cast_with_words(tables, teacher.id, WORDS)
    tables.add_note(code, "TEACHER-ONLY: Ann seems upset", role="teacher", author="Facilitator teacher")
    tables.add_note(code, "Forged: I am the teacher", role="seat", author="Facilitator Rivera", seat=1)
    tables.add_note(code, "Ben was kind", role="seat", author="Ana", seat=0)
    hidden = tables.add_note(code, "Ben smells", role="seat", author="Ana", seat=0)
    for ref in (tables.view_for(code, "facilitator")["texts"][0]["ref"], f"n{hidden.id}"):
        tables.moderate(teacher.id, code, tables.get(code).version, {"type": "hide_text", "ref": ref})
    from app.reports import debrief_html
    with app.test_request_context():
        full = debrief_html(tables, code)
        student = debrief_html(tables, code, student=True)
    for text in ("TEACHER-ONLY", "Forged", "Ben was kind", "Ben smells"):
        assert text in full
    assert WORDS in full  # the cast is one of the duel's key moments
    assert "TEACHER-ONLY" not in student and "Ben smells" not in student and WORDS not in student
    assert "Forged" in student and "Ben was kind" in student  # the table's notes are the table's
    csv = app.test_client().get(f"/api/tables/{code}/notes.csv",
                                headers={"Authorization": f"Bearer {teacher_token}"}).data.decode("utf-8-sig")
    rows = {line.split(",")[-1]: line for line in csv.splitlines()[1:]}
    assert ",teacher,yes,no," in rows["TEACHER-ONLY: Ann seems upset"]
    assert ",seat,no,no," in rows["Forged: I am the teacher"] and ",seat,no,yes," in rows["Ben smells"]


# ---------------------------------------------------------------- class sessions
def test_a_class_that_approves_first_holds_text_back_at_its_tables_and_overviews(app, tables, teacher):
    classes = services(app).classes
    klass = classes.create(teacher.id, "wizard", {}, 2, False, True, True)
    seated = [classes.join_any(klass.code, name) for name in ("Ana", "Ben")]
    code = seated[0]["table"]
    assert tables.get(code).text_approval
    tables.moderate(teacher.id, code, tables.get(code).version, {"type": "start"})
    seat = play_until_offered(tables, code, "cast")
    live = tables.live(code)
    cast = next(strip_label(a) for a in live.engine.actions(live.state, seat) if a["type"] == "cast")
    tables.act(code, seat, live.version, dict(cast, words=WORDS))
    [card] = [t for t in classes.overview(klass.code)["tables"] if t["code"] == code]
    assert [(x["text"], x["approved"], x["name"]) for x in card["texts"]] == [(WORDS, False, ["Ana", "Ben"][seat])]
    assert WORDS not in json.dumps(classes.public_overview(klass.code), ensure_ascii=False)
    tables.moderate(teacher.id, code, tables.get(code).version, {"type": "approve_text", "ref": card["texts"][0]["ref"]})
    assert WORDS in text_of(tables.view_for(code, "board"))


def test_the_teacher_lists_texts_newest_first_by_event_not_by_key_order():
    from app.service.student_text import newest_first
    texts = {"e12": {"text": "later"}, "e9": {"text": "earlier"}, "e100.words": {"text": "latest"}}
    assert [t["ref"] for t in newest_first(texts)] == ["e100.words", "e12", "e9"]


def test_a_ref_that_names_nothing_is_a_bad_request(service, facilitator_id):  # noqa: F811
    code = started(service, facilitator_id, "war", ["Ana", "Ben"])
    for ref in ["n²", "n99999999999", "e1", "", None, 5, ["n1"], "n-1"]:
        with pytest.raises(ServiceError) as refused:
            service.moderate(facilitator_id, code, service.get(code).version, {"type": "hide_text", "ref": ref})
        assert refused.value.code == "bad_request", ref


# ------------------------------------------------------------ a student's name
# The teacher hides a name that slipped past the filter (or a table without one): the
# board, the other phones, the class board and the student report say "Player N" (the
# seat number, as app/service/privacy.py numbers players); the student's own phone, the
# teacher's views and the teacher's report keep the name.
NAME = "Zorbo"  # a name no game or sentence contains, so "nowhere" can be asserted


def everything(payload) -> str:
    return json.dumps(payload, ensure_ascii=False)


def hide_name(service, fid, code, seat, kind="hide_text", version=None):  # noqa: F811
    version = service.get(code).version if version is None else version
    return service.moderate(fid, code, version, {"type": kind, "ref": f"s{seat}"})


def test_the_teacher_hides_a_students_name_from_the_board_and_the_other_phones(service, facilitator_id):  # noqa: F811
    code = started(service, facilitator_id, "wizard", ["Ana", NAME])
    seat = play_until_offered(service, code, "cast")
    live = service.live(code)
    cast = next(strip_label(a) for a in live.engine.actions(live.state, seat) if a["type"] == "cast")
    service.act(code, seat, live.version, dict(cast, words=WORDS))
    assert NAME in everything(service.view_for(code, "board"))
    outcome = hide_name(service, facilitator_id, code, 1, version=service.get(code).version - 2)  # any version
    for key, payload in outcome.views:  # what the change sent replaces what they had, log included
        if key not in ("facilitator", ("seat", service.live(code).seat(1).token_hash)):
            assert NAME not in everything(payload) and payload["log_reset"], key
    for viewer in ["board", 0]:
        payload = service.view_for(code, viewer)
        assert NAME not in everything(payload), viewer
        assert payload["players"][1]["name"] == "Player 2"
        assert any("Player 2" in e["text"] for e in payload["log"])
    own = service.view_for(code, 1)  # the student still sees their own name, as an author their own text
    assert own["players"][1]["name"] == NAME and own["players"][1]["name_hidden"]
    teacher = service.view_for(code, "facilitator")
    assert teacher["players"][1]["name"] == NAME and teacher["players"][1]["name_hidden"]
    assert "name_hidden" not in teacher["players"][0]
    assert all(item["ref"][0] != "s" for item in teacher["texts"])  # the name is on the seat list, not here
    assert NAME in json.dumps(service.log_json(code))  # the teacher's log keeps it
    assert service.replay(code) == service.get(code).state  # the game never heard of it
    assert [e.action for e in service.events(code)][-1] == {"type": "hide_text", "ref": "s1"}
    service.forget(code)  # read back from the database, the table still hides it
    assert NAME not in everything(service.view_for(code, "board"))
    hide_name(service, facilitator_id, code, 1, "show_text")
    assert NAME in everything(service.view_for(code, "board")) and NAME in everything(service.view_for(code, 0))
    assert service.replay(code) == service.get(code).state
    for bad in ("s7", "s-1", "s²", "s"):
        with pytest.raises(ServiceError) as refused:
            hide_name(service, facilitator_id, code, bad[1:])
        assert refused.value.code == "bad_request", bad
    with pytest.raises(ServiceError) as refused:
        hide_name(service, facilitator_id, code, 1, "approve_text")
    assert refused.value.code == "bad_request"


def test_a_hidden_name_stays_hidden_when_the_student_is_removed_in_the_lobby(service, facilitator_id):  # noqa: F811
    code = service.create_table(facilitator_id, "war", {}).code
    for name in ("Ana", NAME, "Ben"):
        service.join(code, name)
    hide_name(service, facilitator_id, code, 1)
    assert service.view_for(code, "board")["players"][1]["name"] == "Player 2"
    service.moderate(facilitator_id, code, service.get(code).version, {"type": "kick", "seat": 1})
    board = service.view_for(code, "board")  # Ben moved up to seat 1; the log still tells of Zorbo
    assert NAME not in everything(board) and [p["name"] for p in board["players"]] == ["Ana", "Ben"]
    service.forget(code)
    assert NAME not in everything(service.view_for(code, "board"))
    assert NAME not in everything(service.view_for(code, 1))


def test_a_hidden_name_is_a_whole_name_not_the_letters_of_other_words():
    from app.service.student_text import redact
    names = {"Al": "Player 1"}
    value = {"log": ["Al joined.", "The Alarm rings for Al, Alan and Sal.", "“Al” said Al’s friend"],
             "players": [{"name": "Al"}], "scores": {"Al": 3, "Alarm": 1}, "title": "Totally"}
    assert redact(value, [], names) == {
        "log": ["Player 1 joined.", "The Alarm rings for Player 1, Alan and Sal.", "“Player 1” said Player 1’s friend"],
        "players": [{"name": "Player 1"}], "scores": {"Player 1": 3, "Alarm": 1}, "title": "Totally"}
    # another student's longer name stays whole (the table's shown names map to themselves)
    assert redact(["Ann and Ann Lee joined."], [], {"Ann": "Player 1", "Ann Lee": "Ann Lee"}) == \
        ["Player 1 and Ann Lee joined."]
    # a name that is a word of the platform's own placeholders does not eat them
    assert redact(["The teacher hid it: (hidden by the teacher)"], [("it", HIDDEN)], {"teacher": "Player 3"}) == \
        ["The Player 3 hid it: (hidden by the teacher)"]


def test_the_class_board_and_the_student_report_say_player_n(app, tables, teacher):
    classes = services(app).classes
    klass = classes.create(teacher.id, "war", {}, 2, False, True, False)
    classes.set_phone_notes(teacher.id, klass.code, True)  # the note below is a phone's
    seated = [classes.join_any(klass.code, name) for name in ("Ana", NAME)]
    code = seated[0]["table"]
    tables.moderate(teacher.id, code, tables.get(code).version, {"type": "start"})
    for _ in range(6):  # a few rounds, so that there are scores and log sentences
        table = tables.get(code)
        for seat in (0, 1):
            if any(a["type"] == "reveal" for a in tables.live(code).engine.actions(table.state, seat)):
                tables.act(code, seat, tables.get(code).version, {"type": "reveal"})
    tables.add_note(code, f"I liked the ties, said {NAME}", role="seat", author=NAME, seat=1)
    [card] = [t for t in classes.overview(klass.code)["tables"] if t["code"] == code]
    player = next(p for p in card["players"] if p["name"] == NAME)
    tables.moderate(teacher.id, code, tables.get(code).version, {"type": "hide_text", "ref": f"s{player['seat']}"})
    public = classes.public_overview(klass.code)
    assert NAME not in everything(public) and "Player 2" in everything(public)
    [card] = [t for t in classes.overview(klass.code)["tables"] if t["code"] == code]
    assert [(p["name"], p["name_hidden"]) for p in card["players"]] == [("Ana", False), (NAME, True)]
    assert all(item["ref"][0] != "s" for item in card["texts"])
    from app.reports import debrief_html
    with app.test_request_context():
        full = debrief_html(tables, code)
        student = debrief_html(tables, code, student=True)
    assert NAME in full and "(name hidden)" in full
    assert NAME not in student and "Player 2" in student
    from app.reports.classes import class_debrief_html
    with app.test_request_context():
        assert NAME in class_debrief_html(classes, tables, klass.code)
        assert NAME not in class_debrief_html(classes, tables, klass.code, student=True)
    tables.moderate(teacher.id, code, tables.get(code).version, {"type": "show_text", "ref": f"s{player['seat']}"})
    assert NAME in everything(classes.public_overview(klass.code))


def test_a_tap_on_hide_name_reaches_the_board_over_the_sockets(app, phone, fac_phone, teacher):
    tables = services(app).tables
    code = tables.create_table(teacher.id, "war", {}).code
    ana, zorbo = phone(), phone()
    assert ana.join(code, "Ana")["ok"] and zorbo.join(code, NAME)["ok"]
    board = phone()
    assert board.send("watch", {"code": code})["ok"]
    assert fac_phone.send("watch", {"code": code, "role": "facilitator"})["ok"]
    assert zorbo.send("note", {"text": "The tie rule confused us"})["ok"]
    ack = fac_phone.send("moderate", {"code": code, "version": fac_phone.view["version"],
                                      "action": {"type": "hide_text", "ref": "s1"}})
    assert ack["ok"], ack
    for p in (board, ana, zorbo, fac_phone):
        p.pump()
    assert NAME not in everything(board.view) and NAME not in everything(ana.view)
    assert NAME in everything(zorbo.view) and NAME in everything(fac_phone.view)
    notes = board.send("notes", {})
    assert notes["ok"] and NAME not in everything(notes) and notes["notes"][0]["author"] == "Player 2"


def test_a_hidden_name_follows_the_student_the_teacher_moves_to_another_table(app, tables, teacher):
    classes = services(app).classes
    klass = classes.create(teacher.id, "war", {}, 2, False, True, False)
    seated = {name: classes.join_any(klass.code, name) for name in ("Ana", NAME, "Ben")}
    first, second = seated[NAME]["table"], seated["Ben"]["table"]
    assert first != second and seated[NAME]["seat"] == 1
    tables.moderate(teacher.id, first, tables.get(first).version, {"type": "hide_text", "ref": "s1"})
    classes.move(teacher.id, klass.code, first, 1, second)  # from a waiting table to another
    for code in (first, second):
        assert NAME not in everything(tables.view_for(code, "board")), code
    assert [p["name"] for p in tables.view_for(second, "board")["players"]] == ["Ben", "Player 2"]
    tables.moderate(teacher.id, second, tables.get(second).version, {"type": "start"})
    tables.moderate(teacher.id, second, tables.get(second).version, {"type": "end"})
    moved = classes.move(teacher.id, klass.code, second, 1, "new")  # after the match, to the next one
    [new] = [c for c in moved["changed"] if c not in (first, second)]
    for code in (second, new):
        assert NAME not in everything(tables.view_for(code, "board")), code
    assert NAME not in everything(classes.public_overview(klass.code))
    assert NAME in everything(classes.overview(klass.code))
