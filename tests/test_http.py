"""Pages, the facilitator JSON API, the CLI and the first-run set-up link."""
from __future__ import annotations

import re

import pytest

from app import engines
from app.extensions import services

from conftest import PASSWORD, make_app


def login(client, name="teacher", password=PASSWORD):
    client.get("/facilitator/login")
    with client.session_transaction() as sess:
        csrf = sess["csrf"]
    return client.post("/facilitator/login", data={"name": name, "password": password, "csrf": csrf})


def csrf_of(client):
    with client.session_transaction() as sess:
        return sess["csrf"]


# ------------------------------------------------------------------ pages
def test_home_accepts_a_code_in_any_case_and_explains_unknown_codes(app, war_table):
    client = app.test_client()
    assert b"Join a game" in client.get("/").data
    response = client.get("/?code=" + war_table.code.lower()[:3] + " " + war_table.code.lower()[3:])
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/join/{war_table.code}")
    missing = client.get("/?code=ZZZZZZ")
    assert missing.status_code == 404 and b"no table with that code" in missing.data


def test_join_page_normalises_the_code_and_404s_unknown_ones(app, war_table):
    client = app.test_client()
    assert client.get(f"/join/{war_table.code.lower()}").headers["Location"].endswith(f"/join/{war_table.code}")
    page = client.get(f"/join/{war_table.code}")
    assert page.status_code == 200 and b'id="join-form"' in page.data
    assert client.get("/join/ZZZZZZ").status_code == 404


def test_board_shows_code_and_qr_of_the_public_join_address(app, war_table):
    client = app.test_client()
    page = client.get(f"/board/{war_table.code}").data.decode()
    assert war_table.code in page and f"/qr/{war_table.code}.svg" in page
    assert f"http://class.example:5000/join/{war_table.code}" in page
    svg = client.get(f"/qr/{war_table.code}.svg")
    assert svg.mimetype == "image/svg+xml" and b"<svg" in svg.data
    assert client.get("/qr/ZZZZZZ.svg").status_code == 404


def test_qr_never_points_at_localhost_without_public_url(tmp_path):
    app = make_app(tmp_path / "x", PUBLIC_URL="")
    from app.edge.netaddr import lan_address
    with app.test_request_context("/", base_url="http://127.0.0.1:5000"):
        from app.edge.netaddr import join_url
        url = join_url("ABCDEF")
    lan = lan_address()
    if lan:  # a machine with a network interface: the QR uses it
        assert url == f"http://{lan}:5000/join/ABCDEF"
    assert "localhost" not in url and (lan is None or "127.0.0.1" not in url)


def test_every_page_has_a_csp_and_no_inline_script(app, war_table, teacher):
    client = app.test_client()
    login(client)
    for path in ["/", f"/join/{war_table.code}", f"/board/{war_table.code}", "/facilitator/",
                 f"/facilitator/tables/{war_table.code}", "/facilitator/login"]:
        response = client.get(path)
        assert "script-src 'self'" in response.headers["Content-Security-Policy"], path
        scripts = re.findall(r"<script[^>]*>", response.data.decode())
        assert scripts and all("src=" in s for s in scripts) or not scripts, path
        assert "<style" not in response.data.decode(), path


def test_socketio_client_is_served_locally(app):
    response = app.test_client().get("/static/vendor/socket.io.min.js")
    assert response.status_code == 200 and b"io" in response.data[:2000]


# ------------------------------------------------------------ facilitator
def test_login_dashboard_and_create_a_war_table(app, teacher, tables):
    client = app.test_client()
    assert client.get("/facilitator/").status_code == 302
    assert login(client, password="wrong").status_code == 401
    assert login(client).headers["Location"].endswith("/facilitator/")
    page = client.get("/facilitator/").data.decode()
    for game in engines.games():  # every registered game, and only those, can be created
        assert f'value="{game["key"]}"' in page and game["title"] in page
    response = client.post("/facilitator/tables", data={"game": "war", "mode": "classic", "csrf": csrf_of(client)})
    code = response.headers["Location"].rsplit("/", 1)[1]
    assert tables.get(code).facilitator_id == teacher.id
    table_page = client.get(f"/facilitator/tables/{code}").data.decode()
    assert f'href="/board/{code}"' in table_page and 'target="_blank"' in table_page


def test_forms_need_the_csrf_token(app, teacher, tables):
    client = app.test_client()
    login(client)
    assert client.post("/facilitator/tables", data={"game": "war"}).status_code == 400
    assert tables.tables_of(teacher.id) == []


def test_facilitators_only_see_their_own_tables(app, war_table, other_teacher):
    client = app.test_client()
    login(client, "other")
    assert client.get(f"/facilitator/tables/{war_table.code}").status_code == 404
    assert war_table.code not in client.get("/facilitator/").data.decode()


def test_first_run_setup_link_works_once(app):
    accounts = services(app).accounts
    token = accounts.setup_link_token()
    client = app.test_client()
    assert client.get(f"/facilitator/setup/{token}").status_code == 200
    bad = client.post(f"/facilitator/setup/{token}", data={"name": "Ms K", "password": "short",
                                                            "csrf": csrf_of(client)})
    assert bad.status_code == 400 and accounts.count() == 0
    ok = client.post(f"/facilitator/setup/{token}", data={"name": "Ms K", "password": "long enough pw",
                                                           "csrf": csrf_of(client)})
    assert ok.headers["Location"].endswith("/facilitator/") and accounts.count() == 1
    assert app.test_client().get(f"/facilitator/setup/{token}").status_code == 410
    assert accounts.setup_link_token() is None  # no second link once an account exists


def test_cli_adds_a_facilitator(app):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["facilitator", "add", "Mr Lee", "--password", "s3cret-pass"])
    assert result.exit_code == 0, result.output
    assert services(app).accounts.authenticate("Mr Lee", "s3cret-pass")
    again = runner.invoke(args=["facilitator", "add", "Mr Lee", "--password", "s3cret-pass"])
    assert again.exit_code != 0 and "already exists" in again.output


# -------------------------------------------------------------------- API
def api_login(client, name="teacher", password=PASSWORD):
    return client.post("/api/login", json={"name": name, "password": password})


def test_api_login_and_create_table(app, teacher):
    client = app.test_client()
    assert api_login(client, password="nope").status_code == 401
    token = api_login(client).get_json()["token"]
    assert client.post("/api/tables", json={"game": "war"}).status_code == 401
    response = client.post("/api/tables", json={"game": "war"}, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 201
    body = response.get_json()
    assert body["join_url"] == f"http://class.example:5000/join/{body['code']}"
    assert body["board_url"].endswith(f"/board/{body['code']}")
    assert re.fullmatch(r"[A-HJKMNP-Z2-9]{6}", body["code"])


@pytest.mark.parametrize("body", [{"game": "chess"}, {"game": "war", "options": {"mode": "nuclear"}},
                                  {"game": "war", "options": {"colour": "red"}}, {"options": {}},
                                  {"game": "war", "options": "classic"}, ["war"]])
def test_api_rejects_bad_table_requests(app, teacher_token, body):
    response = app.test_client().post("/api/tables", json=body,
                                      headers={"Authorization": f"Bearer {teacher_token}"})
    assert response.status_code == 400 and response.get_json()["error"]["code"] == "bad_request"


def test_api_games_lists_every_game_with_defaults(app):
    games = {g["key"]: g for g in app.test_client().get("/api/games").get_json()}
    assert set(games) == set(engines.keys()) and "war" in games
    assert games["war"]["playable"] and games["war"]["options"][0] == {
        "key": "mode", "label": "Mode", "default": "classic",
        "choices": ["classic", "power", "wager", "power_wager", "tournament", "survival"],
        "help": games["war"]["options"][0]["help"]}
    assert games["war"]["presets"]["power_war"]["mode"] == "power"


def test_api_table_summary_log_and_debrief(app, teacher_token, war_table, tables, other_teacher):
    auth = {"Authorization": f"Bearer {teacher_token}"}
    client = app.test_client()
    a = tables.join(war_table.code, "Ana")
    tables.join(war_table.code, "Ben")
    tables.act(war_table.code, 0, 2, {"type": "start"})
    tables.add_note(war_table.code, "Fun!", role="seat", author="Ana", seat=0)
    summary = client.get(f"/api/tables/{war_table.code}", headers=auth).get_json()
    assert summary["status"] == "playing" and [s["name"] for s in summary["seats"]] == ["Ana", "Ben"]
    assert a["token"] not in str(summary)
    log = client.get(f"/api/tables/{war_table.code}/log.json", headers=auth).get_json()
    assert [e["action"]["type"] for e in log["events"]] == ["join", "join", "start"]
    assert log["notes"][0]["text"] == "Fun!" and log["notes"][0]["game_version"] == engines.spec("war").version
    pdf = client.get(f"/api/tables/{war_table.code}/debrief.pdf", headers=auth)
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    other = {"Authorization": "Bearer " + services(app).accounts.issue_token(other_teacher.id)}
    assert client.get(f"/api/tables/{war_table.code}", headers=other).status_code == 403
    assert client.get("/api/tables/ZZZZZZ", headers=auth).status_code == 404


def test_unknown_pages_get_a_friendly_page_or_json(app):
    client = app.test_client()
    page = client.get("/board/ZZZZZZ")
    assert page.status_code == 404 and b"Check the code on the board" in page.data and b"<h1>Not found" in page.data
    api = client.get("/api/does-not-exist")
    assert api.status_code == 404 and api.get_json()["ok"] is False


def test_join_page_says_at_once_when_a_newcomer_cannot_join(app, war_table, tables):
    client = app.test_client()
    assert 'data-closed=""' in client.get(f"/join/{war_table.code}").data.decode()
    tables.join(war_table.code, "Ana")
    tables.join(war_table.code, "Ben")
    tables.act(war_table.code, 0, 2, {"type": "start"})
    page = client.get(f"/join/{war_table.code}").data.decode()
    assert 'data-closed="This game has already started. Ask your teacher for a new code."' in page


# ------------------------------------------------------- NUL bytes, on PostgreSQL
@pytest.fixture(params=["sqlite", "postgresql"])
def any_db_app(request, tmp_path):
    """The app on SQLite and on a private schema of the machine's PostgreSQL (which,
    unlike SQLite, refuses NUL in text: these inputs gave HTTP 500 there)."""
    if request.param == "sqlite":
        app = make_app(tmp_path)
        yield app
        services(app).stop()
        return
    import uuid

    from sqlalchemy import create_engine, text

    schema = "nul_" + uuid.uuid4().hex[:10]
    admin = create_engine("postgresql+psycopg://postgres@127.0.0.1:5432/test")
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    app = make_app(tmp_path, DATABASE_URL=f"postgresql://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{schema}")
    yield app
    services(app).stop()
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


def test_a_nul_byte_anywhere_is_bad_input_not_a_server_error(any_db_app):
    from phones import Phone

    app = any_db_app
    teacher = services(app).accounts.add("teacher", PASSWORD)
    token = services(app).accounts.issue_token(teacher.id)
    table = services(app).tables.create_table(teacher.id, "war", {})
    client = app.test_client()
    bearer = {"Authorization": f"Bearer {token}"}
    responses = {
        "api login": client.post("/api/login", json={"name": "teach\x00er", "password": PASSWORD}),
        "form login": client.post("/facilitator/login", data={"name": "teach\x00er", "password": PASSWORD}),
        "join page": client.get(f"/join/{table.code[:3]}%00{table.code[4:]}"),
        "board page": client.get("/board/AB%00DEF"),
        "api table": client.get("/api/tables/AB%00DEF", headers=bearer),
        "api create": client.post("/api/tables", json={"game": "war\x00"}, headers=bearer),
        "api class": client.post("/api/classes", json={"game": "war", "options": {"mode": "classic\x00"}},
                                 headers=bearer),
        "bearer": client.get(f"/api/tables/{table.code}", headers={"Authorization": "Bearer ab\x00cd"}),
    }
    for what, response in responses.items():
        assert 400 <= response.status_code < 500, (what, response.status_code)
    phone = Phone(app)
    assert phone.join(table.code, "Ana")["ok"]
    for event, payload in [("note", {"text": "bad \x00 note"}), ("join", {"code": "AB\x00DEF", "name": "Ben"}),
                           ("join", {"code": table.code, "name": "B\x00en"}), ("resume", {"token": "x\x00y"}),
                           ("watch", {"code": table.code + "\x00"})]:
        ack = phone.send(event, payload)
        assert ack["ok"] is False and ack["error"]["code"] in ("bad_request", "unknown_table"), (event, ack)
    assert [n.text for n in services(app).tables.notes(table.code)] == []
    assert [s.name for s in services(app).tables.seats(table.code)] == ["Ana"]
    phone.close()


@pytest.mark.parametrize("public, host, lan, expected, warns", [
    ("https://games.school.example", "127.0.0.1", None, "https://games.school.example", None),
    ("", "0.0.0.0", "192.168.1.20", "http://192.168.1.20:8000", None),
    ("", "10.0.0.5", None, "http://10.0.0.5:8000", None),
    ("", "127.0.0.1", "192.168.1.20", "http://127.0.0.1:8000", "--host 0.0.0.0"),
    ("", "0.0.0.0", None, "http://127.0.0.1:8000", "classroom Wi-Fi"),
])
def test_the_start_message_names_an_address_phones_reach_or_says_why_not(public, host, lan, expected, warns):
    from app.edge.netaddr import where_phones_connect

    address, reason = where_phones_connect(public, host, 8000, lan)
    assert address == expected
    assert (reason is None) == (warns is None) and (warns is None or warns in reason)
