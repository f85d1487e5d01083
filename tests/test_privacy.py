"""Student privacy (app/service/privacy.py): names removed after the retention period, a table
or a class deleted with all its data, and no page referring to another host."""
from __future__ import annotations

import json
import random
import re
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from app import engines
from app.engines.contract import strip_label
from app.errors import ServiceError
from app.extensions import services
from app.store.models import Event, GameTable, Note, Refusal, Seat, utcnow
from conftest import PASSWORD
from phones import seated

ROOT = Path(__file__).resolve().parent.parent
STUDENTS = ["Alice Moreau", "Bob", "Chloé", "Dev"]


# ------------------------------------------------------------------ helpers
def age(app, code: str, days: float) -> None:
    """Pretend the table last changed `days` ago."""
    with services(app).db.begin() as conn:
        conn.execute(update(GameTable).where(GameTable.code == code)
                     .values(updated_at=utcnow() - timedelta(days=days)))


def play_some(tables, code: str, moves: int, rng: random.Random, names: list[str]) -> None:
    """Legal moves by every seat and the facilitator, chosen by the game's own bot; free
    text (an explanation, a word of power) mentions another student by name."""
    for _ in range(moves):
        table = tables.get(code)
        if table.status != "playing":
            return
        engine = engines.get(table.game)
        movers = [(p, engine.actions(table.state, p)) for p in range(len(names))]
        movers = [(p, a) for p, a in movers if a]
        if not movers:
            fac_actions = engine.actions(table.state, "facilitator")
            if fac_actions:
                choice = strip_label(engine.bot(engine.view(table.state, "facilitator"), fac_actions, rng)
                                     or fac_actions[0])
                tables.moderate(table.facilitator_id, code, table.version, choice, scope="game")
                continue
            if not tables.fire_due(code, now=time.time() + 3600):
                return
            continue
        seat, offered = rng.choice(movers)
        choice = engine.bot(engine.view(table.state, seat), offered, rng) or offered[0]
        choice = strip_label(choice)
        for key, value in list(choice.items()):
            if isinstance(value, str) and key != "type" and value == "":
                choice[key] = f"Because {names[(seat + 1) % len(names)]} said so"
        try:
            tables.act(code, seat, table.version, choice)
        except ServiceError as exc:
            if exc.code not in ("illegal", "stale"):
                raise


def everything_about(app, code: str) -> str:
    """Every stored and derived text about a table, as one string to search."""
    tables = services(app).tables
    from app.reports import debrief_html
    from app.reports.exports import log_csv

    table = tables.get(code)
    with app.app_context():
        report = debrief_html(tables, code)
    dump = lambda value: json.dumps(value, ensure_ascii=False)  # noqa: E731 ("Chloé" as typed, not escaped)
    parts = [dump(table.state), dump(table.timers), dump([(s.name, s.seat_index) for s in _all_seats(app, table.id)]),
             dump(tables.log_json(code)), dump(tables.summary(code)), report,
             log_csv([tables.log_json(code)])]
    return "\n".join(parts)


def _all_seats(app, table_id: int) -> list[Seat]:
    from sqlmodel import Session

    with Session(services(app).db) as s:
        return list(s.scalars(select(Seat).where(Seat.table_id == table_id)).all())


def _count(app, model, table_id: int) -> int:
    with services(app).db.connect() as conn:
        return conn.execute(select(func.count()).select_from(model).where(model.table_id == table_id)).scalar()


def _ended_table(app, teacher, game: str, names: list[str], moves: int = 25, seed: int = 1) -> str:
    tables = services(app).tables
    code = tables.create_table(teacher.id, game, {}).code
    for name in names:
        tables.join(code, name)
    tables.act(code, 0, tables.get(code).version, {"type": "start"})
    play_some(tables, code, moves, random.Random(seed), names)
    tables.add_note(code, f"{names[1]} explained the rules to me, {names[0]}.", role="seat", author=names[0], seat=0)
    tables.add_note(code, f"Watch {names[1]}: {names[1]}'s turns were slow.", role="teacher",
                    author=f"Facilitator {teacher.name}")
    table = tables.get(code)
    if table.status != "ended":
        tables.moderate(teacher.id, code, table.version, {"type": "end"})
    return code


def _seats_for(game: str) -> int:
    return 2 if game == "wizard" else 3


# ---------------------------------------------------------------- retention
@pytest.mark.parametrize("game", sorted(engines.keys()))
def test_retention_removes_every_name_and_replay_still_rebuilds_the_table(app, teacher, game):
    names = STUDENTS[:_seats_for(game)]
    code = _ended_table(app, teacher, game, names)
    tables, privacy = services(app).tables, services(app).privacy
    before = everything_about(app, code)
    for name in names:  # the test means something: each name was in the state, the log and the report
        assert before.count(name) >= 3, name

    age(app, code, 31)
    assert privacy.cleanup() == [code]

    after = everything_about(app, code)
    for name in names:
        assert not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", after), name
    placeholders = [f"Player {i + 1}" for i in range(len(names))]
    assert [s.name for s in sorted(tables.seats(code), key=lambda s: s.seat_index)] == placeholders
    assert tables.get(code).names_removed_at is not None
    assert tables.events(code)[-1].version == tables.get(code).version  # no event added, none lost
    # The teacher's own name is not a student's: it stays on their notes.
    notes = tables.notes(code)
    assert [n.author for n in notes] == ["Player 1", f"Facilitator {teacher.name}"]
    assert notes[0].text == "Player 2 explained the rules to me, Player 1."
    # Replay from the rewritten log rebuilds the rewritten snapshot exactly.
    assert tables.replay(code) == tables.get(code).state
    # The live copy (what a board still open would be sent) says the same.
    assert all(p["name"].startswith("Player ") for p in tables.view_for(code, "board")["players"])


def test_retention_leaves_recent_and_unfinished_tables_and_runs_once(app, teacher):
    tables, privacy = services(app).tables, services(app).privacy
    recent = _ended_table(app, teacher, "war", ["Ana", "Ben"], moves=3)
    old = _ended_table(app, teacher, "war", ["Cara", "Dan"], moves=3, seed=2)
    playing = tables.create_table(teacher.id, "war", {}).code
    tables.join(playing, "Eve")
    tables.join(playing, "Finn")
    tables.act(playing, 0, tables.get(playing).version, {"type": "start"})
    age(app, recent, 29)
    age(app, old, 31)
    age(app, playing, 90)

    assert privacy.cleanup() == [old]
    assert privacy.cleanup() == []  # marked: never redone
    assert [s.name for s in tables.seats(recent)] == ["Ana", "Ben"]
    assert [s.name for s in tables.seats(playing)] == ["Eve", "Finn"]
    assert [s.name for s in tables.seats(old)] == ["Player 1", "Player 2"]
    # A cleaned table's version is unchanged: a phone still holding it is not told "stale".
    assert tables.get(old).version == tables.events(old)[-1].version


def test_a_student_named_like_a_placeholder_and_a_removed_student_are_renamed_consistently(app, teacher):
    """Names are swapped all at once ("Player 2" at seat 0 becomes "Player 1", not "Player 2"
    twice), a part of a longer word is left alone, and a student removed in the lobby (no
    seat any more) is numbered after the seats."""
    tables, privacy = services(app).tables, services(app).privacy
    code = tables.create_table(teacher.id, "war", {}).code
    for name in ["Player 2", "Al", "Zed", "Kim"]:
        tables.join(code, name)
    tables.moderate(teacher.id, code, tables.get(code).version, {"type": "kick", "seat": 2})  # Zed, in the lobby
    tables.add_note(code, "Also Al beat Player 2 and Zed left", role="seat", author="Al", seat=0)
    tables.moderate(teacher.id, code, tables.get(code).version, {"type": "end"})
    age(app, code, 40)
    privacy.cleanup()
    rows = {s.id: s.name for s in _all_seats(app, tables.get(code).id)}
    assert sorted(rows.values()) == ["Player 1", "Player 2", "Player 3", "Player 4"]
    assert tables.notes(code)[0].text == "Also Player 2 beat Player 1 and Player 4 left"
    texts = " ".join(e["text"] for ev in tables.events(code) for e in ev.log)
    assert "Player 4 was removed by the teacher." in texts and "Zed" not in texts and "Kim" not in texts


def test_computer_players_keep_their_names(app, teacher):
    """A filler computer is not a student; a student the teacher removed mid-game
    (the computer plays the seat) is, and loses the name."""
    tables, privacy = services(app).tables, services(app).privacy
    code = tables.create_table(teacher.id, "war", {}).code
    for name in ["Ana", "Ben", "Cy"]:
        tables.join(code, name)
    tables.act(code, 0, tables.get(code).version, {"type": "start"})
    tables.moderate(teacher.id, code, tables.get(code).version, {"type": "kick", "seat": 1})
    tables.moderate(teacher.id, code, tables.get(code).version, {"type": "end"})
    computer = _ended_class_with_computer(app, teacher)
    for c in (code, computer):
        age(app, c, 31)
    privacy.cleanup()
    assert [s.name for s in tables.seats(code)] == ["Player 1", "Player 2", "Player 3"]
    names = [s.name for s in tables.seats(computer)]
    assert names[0] == "Player 1" and any(n.startswith("Computer") for n in names[1:]), names


def _ended_class_with_computer(app, teacher) -> str:
    classes, tables = services(app).classes, services(app).tables
    klass = classes.create(teacher.id, "war", {}, "2", True)
    seat = classes.join_any(klass.code, "Solo Sam")
    classes.start(teacher.id, klass.code)
    code = seat["table"]
    table = tables.get(code)
    tables.moderate(teacher.id, code, table.version, {"type": "end"})
    return code


def test_class_overview_and_class_debrief_lose_the_names_too(app, teacher):
    classes, tables, privacy = services(app).classes, services(app).tables, services(app).privacy
    klass = classes.create(teacher.id, "war", {}, "2", False)
    for name in STUDENTS:
        classes.join_any(klass.code, name)
    classes.start(teacher.id, klass.code)
    classes.moderate(teacher.id, klass.code, "end")
    summary = classes.summary(klass.code)
    assert len(summary["tables"]) == 2
    for t in summary["tables"]:
        age(app, t["code"], 31)
    assert sorted(privacy.cleanup()) == sorted(t["code"] for t in summary["tables"])

    from app.reports.classes import class_debrief_html

    with app.app_context():
        texts = json.dumps(ensure_ascii=False, obj=[classes.summary(klass.code), classes.overview(klass.code),
                            classes.public_overview(klass.code)]) + class_debrief_html(classes, tables, klass.code)
    texts = re.sub(r"<style>.*?</style>", "", texts, flags=re.S)   # the font stack names "Noto Sans Devanagari"
    for name in STUDENTS:
        assert name not in texts
    assert "Player 1" in texts and "Player 2" in texts


def test_the_cli_cleans_up_with_the_default_or_given_period(app, teacher):
    code = _ended_table(app, teacher, "war", ["Ana", "Ben"], moves=2)
    age(app, code, 10)
    runner = app.test_cli_runner()
    result = runner.invoke(args=["privacy", "cleanup"])
    assert result.exit_code == 0 and "0 tables" in result.output
    result = runner.invoke(args=["privacy", "cleanup", "--days", "7"])
    assert result.exit_code == 0 and f"1 table: {code}." in result.output, result.output
    assert [s.name for s in services(app).tables.seats(code)] == ["Player 1", "Player 2"]
    assert runner.invoke(args=["privacy", "cleanup", "--days", "-1"]).exit_code != 0


def test_the_scheduled_cleanup_runs_once_per_window_across_services(app, teacher):
    """Two services sharing the limiter (two processes sharing Redis) clean one batch per window."""
    from app.service.privacy import PrivacyService

    tables = services(app).tables
    limiter = services(app).limits
    config = {"PRIVACY_CLEANUP_EVERY": 3600, "PRIVACY_CLEANUP_BATCH": 1}
    one = PrivacyService(tables, services(app).classes, limiter, config)
    two = PrivacyService(tables, services(app).classes, limiter, config)
    codes = [_ended_table(app, teacher, "war", [f"Kid{i}a", f"Kid{i}b"], moves=1, seed=i) for i in range(2)]
    for code in codes:
        age(app, code, 31)
    limiter.reset("privacy-cleanup", "all")
    assert one.cleanup_due() == [codes[0]]  # one batch (of 1)
    assert two.cleanup_due() == [] and one.cleanup_due() == []  # this window is used
    assert [s.name for s in tables.seats(codes[1])] == ["Kid1a", "Kid1b"]


@pytest.mark.app_config(PRIVACY_CLEANUP_EVERY=0)
def test_the_timer_loop_runs_the_cleanup(app, teacher):
    code = _ended_table(app, teacher, "war", ["Ana", "Ben"], moves=1)
    age(app, code, 31)
    services(app).limits.reset("privacy-cleanup", "all")
    services(app).notifier.scheduler.start()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and services(app).tables.get(code).names_removed_at is None:
        time.sleep(0.1)
    assert [s.name for s in services(app).tables.seats(code)] == ["Player 1", "Player 2"]


def test_the_dashboard_states_the_retention_period(app, teacher):
    page = _logged_in(app, teacher).get("/facilitator/").get_data(as_text=True)
    assert "30 days after a" in page and "Player 1" in page


# ----------------------------------------------------------------- deletion
def _rows_of(app, table_id: int) -> dict:
    return {m.__name__: _count(app, m, table_id) for m in (Event, Seat, Note, Refusal)}


def _bearer(app, facilitator) -> dict:
    return {"Authorization": "Bearer " + services(app).accounts.issue_token(facilitator.id)}


def test_api_deletes_a_table_with_all_its_data_and_tells_who_is_still_connected(app, teacher, other_teacher, phone):
    tables = services(app).tables
    code = tables.create_table(teacher.id, "war", {}).code
    ana, ben = seated(phone, code, "Ana", "Ben")
    assert ana.act({"type": "start"})["ok"]
    ana.act({"type": "nonsense"})  # a refusal row
    tables.add_note(code, "fun", role="seat", author="Ana", seat=0)
    board = phone()
    assert board.send("watch", {"code": code})["ok"]
    table_id = tables.get(code).id
    assert all(_rows_of(app, table_id).values())
    client = app.test_client()

    assert client.delete(f"/api/tables/{code}").status_code == 401
    refused = client.delete(f"/api/tables/{code}", headers=_bearer(app, other_teacher))
    assert refused.status_code == 403 and tables.find(code) is not None

    done = client.delete(f"/api/tables/{code.lower()}", headers=_bearer(app, teacher))
    assert done.status_code == 200 and done.get_json() == {"ok": True, "deleted": [code]}
    assert tables.find(code) is None
    assert _rows_of(app, table_id) == {"Event": 0, "Seat": 0, "Note": 0, "Refusal": 0}
    for p in (ana, ben):
        assert [m["message"] for m in p.received("removed")] == [
            "This table was deleted by its teacher. Ask your teacher for a new code."]
    assert board.received("deleted")
    # The code is unknown now, to everyone, everywhere.
    assert client.get(f"/api/tables/{code}", headers=_bearer(app, teacher)).status_code == 404
    assert ben.act({"type": "reveal"}, version=99)["error"]["code"] in ("not_joined", "unknown_table")
    assert phone().join(code, "Cy")["error"]["code"] == "unknown_table"
    assert phone().send("watch", {"code": code})["error"]["code"] == "unknown_table"
    assert phone().send("resume", {"token": ana.token})["error"]["code"] == "not_joined"
    assert client.delete(f"/api/tables/{code}", headers=_bearer(app, teacher)).status_code == 404


def test_api_deletes_a_class_with_all_its_tables(app, teacher, other_teacher, phone):
    classes, tables = services(app).classes, services(app).tables
    klass = classes.create(teacher.id, "war", {}, "2", False)
    phones = seated(phone, klass.code, *STUDENTS)
    classes.start(teacher.id, klass.code)
    codes = [t["code"] for t in classes.summary(klass.code)["tables"]]
    ids = [tables.get(c).id for c in codes]
    client = app.test_client()
    # A class's table goes with its class, not alone.
    alone = client.delete(f"/api/tables/{codes[0]}", headers=_bearer(app, teacher))
    assert alone.status_code == 403 and tables.find(codes[0]) is not None
    assert client.delete(f"/api/classes/{klass.code}", headers=_bearer(app, other_teacher)).status_code == 403

    done = client.delete(f"/api/classes/{klass.code}", headers=_bearer(app, teacher))
    assert done.status_code == 200 and sorted(done.get_json()["tables"]) == sorted(codes)
    assert classes.find(klass.code) is None and all(tables.find(c) is None for c in codes)
    assert all(v == 0 for i in ids for v in _rows_of(app, i).values())
    for p in phones:
        assert p.received("removed")[-1]["message"].startswith("This class was deleted")
    assert phone().join(klass.code, "Late")["error"]["code"] == "unknown_table"
    assert client.get(f"/api/classes/{klass.code}", headers=_bearer(app, teacher)).status_code == 404


def _logged_in(app, facilitator):
    client = app.test_client()
    client.get("/facilitator/login")
    with client.session_transaction() as sess:
        csrf = sess["csrf"]
    assert client.post("/facilitator/login", data={"name": facilitator.name, "password": PASSWORD,
                                                   "csrf": csrf}).status_code == 302
    with client.session_transaction() as sess:
        sess["csrf"] = "known-csrf"
    return client


def test_the_table_page_deletes_after_a_confirmation_with_csrf(app, teacher, other_teacher):
    tables = services(app).tables
    code = tables.create_table(teacher.id, "war", {}).code
    tables.join(code, "Ana")
    client = _logged_in(app, teacher)
    page = client.get(f"/facilitator/tables/{code}").get_data(as_text=True)
    assert f"/facilitator/tables/{code}/delete" in page
    confirm = client.get(f"/facilitator/tables/{code}/delete")
    assert confirm.status_code == 200 and "cannot be undone" in confirm.get_data(as_text=True)
    assert tables.find(code) is not None  # looking is not deleting
    assert client.post(f"/facilitator/tables/{code}/delete", data={"csrf": "wrong"}).status_code == 400
    assert _logged_in(app, other_teacher).post(f"/facilitator/tables/{code}/delete",
                                               data={"csrf": "known-csrf"}).status_code == 404
    assert tables.find(code) is not None
    done = client.post(f"/facilitator/tables/{code}/delete", data={"csrf": "known-csrf"}, follow_redirects=True)
    assert done.status_code == 200 and f"Table {code} and everything recorded about it were deleted." \
        in done.get_data(as_text=True)
    assert tables.find(code) is None
    assert client.get(f"/facilitator/tables/{code}").status_code == 404


def test_the_class_page_deletes_the_class_after_a_confirmation(app, teacher):
    classes, tables = services(app).classes, services(app).tables
    klass = classes.create(teacher.id, "war", {}, "2", False)
    for name in STUDENTS[:2]:
        classes.join_any(klass.code, name)
    code = classes.summary(klass.code)["tables"][0]["code"]
    client = _logged_in(app, teacher)
    assert f"/facilitator/classes/{klass.code}/delete" in client.get(
        f"/facilitator/classes/{klass.code}").get_data(as_text=True)
    # Its table's page offers no delete of its own, and refuses one.
    assert "/delete" not in client.get(f"/facilitator/tables/{code}").get_data(as_text=True)
    assert client.post(f"/facilitator/tables/{code}/delete", data={"csrf": "known-csrf"}).status_code == 404
    assert "1 table" in client.get(f"/facilitator/classes/{klass.code}/delete").get_data(as_text=True)
    assert client.post(f"/facilitator/classes/{klass.code}/delete", data={}).status_code == 400
    done = client.post(f"/facilitator/classes/{klass.code}/delete", data={"csrf": "known-csrf"})
    assert done.status_code == 302 and classes.find(klass.code) is None and tables.find(code) is None


# ----------------------------------------------------- no external requests
# An address to another host in markup, a stylesheet or a script would make every
# student's phone reveal itself to that host. Comments and licence headers may name sites.
URL = re.compile(r"""https?://[^\s"'<>)`]+""", re.I)
COMMENTS = {
    ".js": re.compile(r"/\*.*?\*/|(?<![:\"'\\])//[^\n]*", re.S),
    ".css": re.compile(r"/\*.*?\*/", re.S),
    ".html": re.compile(r"<!--.*?-->|\{#.*?#\}", re.S),
    ".svg": re.compile(r"<!--.*?-->", re.S),
}
ALLOWED_HOSTS = {"www.w3.org"}  # XML namespace names (SVG), never fetched
# (file, address) pairs that are text, not requests: Socket.IO's error message for a v2 server.
ALLOWED_IN_FILE = {("static/vendor/socket.io.min.js", "https://socket.io/docs/v3/migrating-from-2-x-to-3-0/")}
BINARY = {".ttf", ".woff", ".woff2", ".png", ".jpg", ".ico"}


def external_urls(text: str, suffix: str) -> list[str]:
    pattern = COMMENTS.get(suffix)
    code = pattern.sub("", text) if pattern else text
    return [u for u in URL.findall(code) if u.split("/")[2].split(":")[0].lower() not in ALLOWED_HOSTS]


def test_the_url_finder_finds_what_it_should():
    assert external_urls('<script src="https://cdn.example.com/x.js"></script>', ".html") == [
        "https://cdn.example.com/x.js"]
    assert external_urls("a { background: url(http://evil.test/a.png) }", ".css") == ["http://evil.test/a.png"]
    assert external_urls("// see https://example.com\nlet a = 1; /* https://x.test */", ".js") == []
    assert external_urls('<svg xmlns="http://www.w3.org/2000/svg"></svg>', ".svg") == []


def test_no_template_or_static_file_refers_to_another_host():
    found = {}
    files = [p for folder in ("templates", "static") for p in (ROOT / folder).rglob("*")
             if p.is_file() and p.suffix not in BINARY
             and p.name != "LICENSE" and not p.name.endswith("OFL.txt")]  # a licence names its sites
    assert len(files) > 50
    for path in files:
        name = path.relative_to(ROOT).as_posix()
        urls = [u for u in external_urls(path.read_text(encoding="utf-8", errors="replace"), path.suffix)
                if (name, u) not in ALLOWED_IN_FILE]
        if urls:
            found[name] = urls
    assert found == {}


def test_a_report_fetches_nothing_but_its_own_fonts(app, caplog):
    """The PDF renderer (WeasyPrint) would follow an address in the HTML: it is given a
    fetcher that loads the shipped fonts only."""
    import socket
    import threading

    from app.reports import render_worker

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.settimeout(0.2)
    port, hits, stop = listener.getsockname()[1], [], threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            hits.append(conn.recv(200))
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    fonts = Path(app.static_folder, "fonts")
    html = (f'<style>@font-face {{ font-family: T; src: url("{fonts.resolve().as_uri()}/DejaVuSans.ttf") }} '
            f'body {{ font-family: T }}</style><link rel="stylesheet" href="http://127.0.0.1:{port}/s.css">'
            f'<p>Hello <img src="http://127.0.0.1:{port}/pixel.png"></p>')
    try:
        pdf = render_worker.render([html], str(fonts))
    finally:
        stop.set()
        thread.join(2)
        listener.close()
    assert pdf.startswith(b"%PDF") and hits == []
    refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refused) == 2 and all(f"127.0.0.1:{port}" in m for m in refused)  # the sheet and the image
    assert not [r for r in caplog.records if "DejaVuSans" in r.getMessage()]  # the shipped font still loads


def test_a_run_stops_starting_tables_after_its_time_slice(app, teacher):
    privacy = services(app).privacy
    codes = [_ended_table(app, teacher, "war", [f"Kid{i}a", f"Kid{i}b"], moves=1, seed=i) for i in range(3)]
    for code in codes:
        age(app, code, 31)
    assert privacy.cleanup(seconds=0.0) == []  # the slice is over before the first
    assert privacy.cleanup(seconds=60) == codes


@pytest.fixture
def pg_app(tmp_path):
    """The app on a private schema of the machine's PostgreSQL (as CI runs it scaled)."""
    import uuid

    from sqlalchemy import text

    from app.store.db import make_engine
    from conftest import make_app

    schema = "privacy_" + uuid.uuid4().hex[:10]
    admin = make_engine("postgresql://postgres@127.0.0.1:5432/test", migrate=False)  # it only makes schemas
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    app = make_app(tmp_path, DATABASE_URL=f"postgresql://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{schema}")
    yield app
    services(app).stop()
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


def test_on_postgresql_two_cleanups_at_once_rewrite_a_table_once_and_deletion_empties_it(pg_app):
    import threading

    from app.service.privacy import PrivacyService

    app = pg_app
    teacher = services(app).accounts.add("teacher", PASSWORD)
    tables = services(app).tables
    code = _ended_table(app, teacher, "war", ["Ana", "Ben"], moves=20)
    age(app, code, 31)
    table_id = tables.get(code).id
    classes = services(app).classes
    cleaners = [PrivacyService(tables, classes) for _ in range(2)]
    barrier, results = threading.Barrier(2), []

    def run(service):
        barrier.wait()
        results.append(service.anonymize(table_id))

    threads = [threading.Thread(target=run, args=(s,)) for s in cleaners]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results, key=lambda r: r is None) == [code, None]  # one rewrote it, the other found it taken
    assert [s.name for s in tables.seats(code)] == ["Player 1", "Player 2"]
    assert tables.notes(code)[0].text == "Player 2 explained the rules to me, Player 1."
    assert tables.replay(code) == tables.get(code).state

    deleted = services(app).privacy.delete_table(teacher.id, code)
    assert deleted.codes == [code] and tables.find(code) is None
    assert _rows_of(app, table_id) == {"Event": 0, "Seat": 0, "Note": 0, "Refusal": 0}
