"""Authorization (issue 18): a teacher's credentials reach only that teacher's tables
and classes (item 6), and only while they are current (item 7)."""
from __future__ import annotations

import pytest

from conftest import PASSWORD, make_app
from test_auth import db_url  # noqa: F401  (the fixture: SQLite and a PostgreSQL schema)
from test_http import csrf_of

from app.extensions import services


@pytest.fixture
def db_app(db_url, tmp_path):  # noqa: F811
    app = make_app(tmp_path, DATABASE_URL=db_url, CODE_GUESS_LIMIT=3)
    yield app
    services(app).stop()


def session_cookie(client) -> str:
    return client.get_cookie("session").value


# ---------------------------------------------------------------- item 7
def test_a_logged_out_teachers_cookie_does_not_lift_the_code_guess_limit(db_app):
    services(db_app).accounts.add("teacher", PASSWORD)
    browser = db_app.test_client()
    browser.get("/facilitator/login")
    browser.post("/facilitator/login", data={"name": "teacher", "password": PASSWORD, "csrf": csrf_of(browser)})
    browser.get("/facilitator/")  # a page issues the session's CSRF token
    copied = session_cookie(browser)
    browser.post("/facilitator/logout", data={"csrf": csrf_of(browser)})

    replay = db_app.test_client()
    replay.set_cookie("session", copied)
    assert replay.get("/facilitator/").status_code == 302  # the login is over...
    guesses = [replay.get(f"/join/ZZZZZ{c}").status_code for c in "ABCDEFGH"]
    # ...so its cookie is an anonymous guesser's: 3 wrong codes a minute (CODE_GUESS_LIMIT), then 429.
    assert guesses[:3] == [404] * 3 and set(guesses[3:]) == {429}, guesses


def test_a_current_login_still_passes_the_code_guess_limit(db_app):
    services(db_app).accounts.add("teacher", PASSWORD)
    browser = db_app.test_client()
    browser.get("/facilitator/login")
    browser.post("/facilitator/login", data={"name": "teacher", "password": PASSWORD, "csrf": csrf_of(browser)})
    assert {browser.get(f"/join/ZZZZZ{c}").status_code for c in "ABCDEFGH"} == {404}


# ---------------------------------------------------------------- item 6
# What only teacher B may read: a note B wrote at B's table (B's table page, exports and
# reports), B's students' names (B's pages and exports; a board shows them, but no
# teacher page of A's may), and a label only a facilitator's view carries.
MARK = "B-private-note-7q3"
STUDENTS = ("Quintessa", "Bartholomew")
FACILITATOR_ONLY = "Lock the table (no one else can join)"

# Routes anyone may use by design, so another teacher's use of them shows nothing private.
PUBLIC = {
    "player.home": "the code entry page: a student's",
    "player.join": "a table's join page: whoever has the code (a student) may join",
    "player.board": "the projected board: public information only",
    "player.qr": "the QR code of the join address on the board",
    "player.hotseat": "the hotseat device page; its secret is in the link's fragment",
    "player.hotseat_claim": "needs the hotseat link's secret, which only B was shown",
    "player.online_page": "an online match's page: the players' own",
    "player.online_invitation": "needs the invitation secret",
    "player.online_resume": "needs the resume secret",
    "player.online_new_link": "needs the resume secret in its body (400 without it)",
    "player.open_online": "opens a new online match, no teacher's resource",
    "player.open_demo": "opens a new guided demo, no teacher's resource",
    "player.open_start": "opens a new quick start, no teacher's resource",
    "player.gallery": "a game's card gallery",
    "api.games": "the list of games",
    "api.rulings": "a game's ruling catalogue",
    "api.login": "logging in",
    "api.logout": "revokes the caller's own token only",
    "facilitator.login": "logging in",
    "facilitator.logout": "ends the caller's own login only",
    "facilitator.setup": "the first-run link, refused once an account exists",
    "facilitator.new_game": "a game's new-game form: the teacher's own page; its key names a game, nothing of B's",
    "i18n.catalog": "a language's translations for the browser modules, the same for everyone",
    "i18n.use": "sets the caller's own language cookie (CSRF-checked)",
}


@pytest.fixture
def rivals(db_app):
    """Teacher B with a playing table, a started class, a hotseat table, a content bank and
    an API token; teacher A (the hostile one) with a class of their own and both ways in."""
    from app.service.hotseat import HotseatService
    from test_uploads import GOOD

    accounts, tables, classes = services(db_app).accounts, services(db_app).tables, services(db_app).classes
    b, a = accounts.add("teacher", PASSWORD), accounts.add("other", PASSWORD)

    table = tables.create_table(b.id, "war", {}).code
    for name in STUDENTS:
        tables.join(table, name)
    tables.act(table, 0, tables.get(table).version, {"type": "start"})
    tables.add_note(table, MARK, role="teacher", author="Facilitator teacher")

    klass = classes.create(b.id, "war", {}, 2).code
    for name in STUDENTS:
        classes.join_any(klass, name)
    classes.start(b.id, klass)
    class_table = next(t.code for t in tables.tables_of(b.id) if t.class_id is not None)
    tables.add_note(class_table, MARK, role="teacher", author="Facilitator teacher")

    hotseat, _secret = HotseatService(tables).create(b.id, "war", {}, list(STUDENTS))
    bank = services(db_app).banks.create(b.id, "water_cycle", "trivia", "B bank", GOOD.encode())
    b_token = accounts.issue_token(b.id)
    # A playtest report B is having made (app/reports/jobs.py): its PDF carries B's mark.
    job = services(db_app).reports.start(b.id, lambda progress: f"%PDF-1.7 {MARK}".encode(), filename="b.pdf", lab=1)

    own_class = classes.create(a.id, "war", {}, 2).code
    browser = db_app.test_client()
    browser.get("/facilitator/login")
    browser.post("/facilitator/login", data={"name": "other", "password": PASSWORD, "csrf": csrf_of(browser)})
    browser.get("/facilitator/")  # a page issues the session's CSRF token
    return dict(app=db_app, b=b, a=a, table=table, klass=klass, class_table=class_table, hotseat=hotseat,
                bank=bank.id, job=job.id, b_token=b_token, b_token_id=accounts.tokens_of(b.id)[0].id, own_class=own_class,
                a_token=accounts.issue_token(a.id), browser=browser, csrf=csrf_of(browser))


def b_state(w) -> dict:
    """Everything of B's that A's requests could change."""
    app = w["app"]
    tables = services(app).tables
    return {"tables": {code: (t.version, t.status, t.locked, t.paused)
                       for code in (w["table"], w["class_table"], w["hotseat"]) for t in [tables.get(code)]},
            "class": services(app).classes.find(w["klass"]).status,
            "notes": [n.text for n in tables.notes(w["table"])],
            "token": services(app).accounts.by_token(w["b_token"]) is not None,
            "bank": [x.id for x in services(app).banks.banks_of(w["b"].id)],
            "job": services(app).reports.get(w["b"].id, w["job"]) is not None}


def leaks(text: str) -> list[str]:
    return [m for m in (MARK, FACILITATOR_ONLY, *STUDENTS) if m in text]


def http_cases(w, rule) -> list[str]:
    """The paths by which A names B's things through this route (every combination)."""
    b_codes = [w["table"], w["class_table"], w["klass"], w["hotseat"]]
    values = {"code": b_codes + [w["own_class"]] if "table" in rule.arguments else b_codes,
              "table": [w["class_table"]], "token_id": [w["b_token_id"]], "bank_id": [w["bank"]],
              "job_id": [w["job"]]}
    unknown = set(rule.arguments) - set(values)
    assert not unknown, f"{rule.rule}: say which of B's things {unknown} names, or list the route in PUBLIC"
    paths = [rule.rule]
    for arg in rule.arguments:
        paths = [p.replace(f"<int:{arg}>", str(v)).replace(f"<{arg}>", str(v)) for p in paths for v in values[arg]]
    # A's own class with B's table is still B's table.
    return [p for p in paths if not (w["own_class"] in p and w["class_table"] not in p)]


def test_another_teachers_credentials_reach_nothing_of_b_over_http(rivals):
    w = rivals
    app = w["app"]
    before = b_state(w)
    rules = [r for r in app.url_map.iter_rules() if r.endpoint != "static" and r.endpoint not in PUBLIC]
    assert len(rules) > 40
    # The bodies name B's things too (a class action's table, a move's student...).
    form = {"csrf": w["csrf"], "table": w["class_table"], "code": w["table"], "paper": "a4", "text": "hi"}
    body = {"table": w["class_table"], "seat": 0, "to": w["class_table"], "version": 1, "text": "hi",
            "paper": "a4"}
    bearer = {"Authorization": f"Bearer {w['a_token']}"}
    for rule in rules:
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            for path in http_cases(w, rule) if rule.arguments else [rule.rule]:
                # Pages take the login cookie (forms: the CSRF field); the API takes a Bearer
                # token, and its class and report calls the cookie too (the CSRF header).
                api = path.startswith("/api/")
                responses = [w["browser"].open(path, method=method, headers={"X-CSRF-Token": w["csrf"]},
                                               **({"json": body} if api else {"data": form}))]
                if api:
                    responses.append(app.test_client().open(path, method=method, json=body, headers=bearer))
                where = (method, path)
                for response in responses:
                    assert response.status_code < 500, where
                    assert not leaks(response.get_data(as_text=True)), (where, leaks(response.get_data(as_text=True)))
                if rule.arguments:  # it names B's table, class, token or bank: refused
                    # The token-only API answers the cookie 401; at least one way in must be taken.
                    statuses = {r.status_code for r in responses}
                    assert statuses & {403, 404} and statuses <= {401, 403, 404}, (where, statuses)
    assert b_state(w) == before  # nothing of B's changed


def socket_cases(w, version) -> list[tuple[str, dict]]:
    """Every event, with A's credentials, against each of B's tables and B's class."""
    b_codes = [w["table"], w["class_table"], w["hotseat"], w["klass"]]
    cases = [("join", {"code": code, "name": "Spy"}) for code in (w["table"], w["class_table"], w["hotseat"])]
    cases += [("resume", {"token": w["a_token"]}), ("resume", {"token": w["b_token"]})]
    cases += [("watch", {"code": code, "role": "facilitator"}) for code in b_codes]
    cases += [("act", {"version": version(w["table"]), "action": {"type": "reveal"}})]
    for code in b_codes:
        for seen in (version(code), version(code) - 1, version(code) + 1, 10 ** 6):
            for scope in ("table", "game", "class"):
                for action in ({"type": "lock"}, {"type": "pause"}, {"type": "end"}, {"type": "kick", "seat": 0},
                               {"type": "start"}):
                    cases.append(("moderate", {"code": code, "version": seen, "action": action, "scope": scope}))
    cases += [("note", {"text": "A was here"}), ("notes", {})]
    return cases


@pytest.fixture
def phone(db_app):
    """Simulated phones on this test's app (tests/phones.py), disconnected at the end."""
    from phones import Phone

    made = []

    def make(**kw):
        made.append(Phone(db_app, **kw))
        return made[-1]

    yield make
    for p in made:
        p.close()


def test_another_teachers_sockets_get_nothing_of_b(rivals, phone):
    import json

    w = rivals
    app = w["app"]
    tables = services(app).tables
    before = b_state(w)

    def version(code):
        found = tables.find(code)
        return found.version if found is not None else 1

    by_token = phone(auth={"token": w["a_token"]})
    by_cookie = phone(flask_client=w["browser"])
    for spy in (by_token, by_cookie):
        for event, payload in socket_cases(w, version):
            ack = spy.send(event, payload)
            assert ack["ok"] is False and ack["error"]["code"] in ("forbidden", "unknown_table", "not_joined"), \
                (event, payload, ack)
            assert not leaks(json.dumps(ack)), (event, payload, ack)
    assert b_state(w) == before  # nothing of B's changed
    # B then moderates and writes at B's table: none of it reaches A's sockets.
    owner = phone(auth={"token": w["b_token"]})
    watched = owner.send("watch", {"code": w["table"], "role": "facilitator"})
    assert watched["ok"], watched
    assert owner.send("note", {"text": MARK})["ok"]
    paused = owner.send("moderate", {"code": w["table"], "version": version(w["table"]), "action": {"type": "pause"}})
    assert paused["ok"], paused
    for spy in (by_token, by_cookie):
        spy.pump()
        sent = json.dumps(spy.events)
        b_codes = (w["table"], w["klass"], w["class_table"], w["hotseat"])
        assert not leaks(sent) and not any(code in sent for code in b_codes), spy.events
