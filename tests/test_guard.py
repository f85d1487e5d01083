"""Brakes found by probing the running server (app/edge/guard.py, app/edge/names.py).

* Wrong codes count per client address, in one scope shared by the socket `join`
  and `watch` and every anonymous page that takes a code, across connections.
* New seats count per address; a class session has at most CLASS_TABLES_MAX tables.
* Names: invisible-only names and stacked combining marks are refused, look-alike
  letters make the same name, and rude names are refused unless the teacher
  switched the filter off for the table or class.
"""
from __future__ import annotations

import time

import pytest

from app.edge.security import CODE_ALPHABET, new_code
from app.extensions import services


def error_code(ack):
    assert ack["ok"] is False, ack
    assert set(ack["error"]) == {"code", "message"} and ack["error"]["message"]
    return ack["error"]["code"]


def client_at(app, address: str):
    """An HTTP client whose requests come from `address` (as request.remote_addr)."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


@pytest.fixture
def phone_at(app, phone):
    """A new phone (its own Socket.IO connection) whose handshake came from `address`."""
    return lambda address, **kw: phone(flask_client=client_at(app, address), **kw)


def wrong_codes(tables, classes, count: int) -> list[str]:
    """Well-formed codes that name no table or class."""
    out = []
    while len(out) < count:
        code = new_code()
        if tables.find(code) is None and classes.find(code) is None and code not in out:
            out.append(code)
    return out


@pytest.fixture
def api(app, teacher_token):
    client = app.test_client()

    def call(method, path, body=None, status=200):
        response = getattr(client, method)(path, headers={"Authorization": f"Bearer {teacher_token}"}, json=body)
        assert response.status_code == status, (response.status_code, response.get_json())
        return response.get_json()

    return call


# ------------------------------------------------------------ code guessing
def test_wrong_codes_count_per_address_across_connections_and_routes(app, phone_at, war_table):
    """The default limit: 60 wrong codes a minute per address, whatever carried them."""
    tables, classes = services(app).tables, services(app).classes
    wrong = iter(wrong_codes(tables, classes, 60))
    first, second = phone_at("10.0.0.1"), phone_at("10.0.0.1")
    http = client_at(app, "10.0.0.1")
    for _ in range(20):
        assert error_code(first.join(next(wrong), "Ana")) == "unknown_table"
    for _ in range(20):
        assert error_code(second.send("watch", {"code": next(wrong)})) == "unknown_table"
    for route in ("/join/{}", "/qr/{}.svg", "/board/{}", "/?code={}") * 5:
        assert http.get(route.format(next(wrong))).status_code == 404
    # 60 wrong codes: now even the right code is refused from this address, on any route and
    # on a brand-new connection, so a guess beyond the limit learns nothing.
    third = phone_at("10.0.0.1")
    ack = third.join(war_table.code, "Ana")
    assert error_code(ack) == "rate_limited" and "wrong codes" in ack["error"]["message"]
    assert error_code(third.send("watch", {"code": war_table.code})) == "rate_limited"
    for route in ("/join/{}", "/qr/{}.svg", "/board/{}", "/hotseat/{}", "/?code={}"):
        response = http.get(route.format(war_table.code))
        assert response.status_code == 429 and response.headers["Retry-After"] == "60"
        assert b"Too many wrong codes" in response.data
    assert tables.seats(war_table.code) == []  # the refused join seated nobody
    # Another address (another school) is not affected.
    assert phone_at("10.0.0.2").join(war_table.code, "Ana")["ok"]
    assert client_at(app, "10.0.0.2").get(f"/qr/{war_table.code}.svg").status_code == 200


def test_malformed_and_right_codes_are_not_counted(app, phone_at, war_table):
    p = phone_at("10.0.0.3")
    for _ in range(40):  # a malformed code cannot be a guess
        assert error_code(p.join("AB", "Ana")) == "unknown_table"
        assert p.send("watch", {"code": war_table.code})["ok"]
    http = client_at(app, "10.0.0.3")
    for _ in range(40):
        assert http.get(f"/qr/{war_table.code}.svg").status_code == 200
        assert http.get("/join/0OIL1").status_code == 404
    assert p.join(war_table.code, "Ana")["ok"]


@pytest.mark.app_config(CODE_GUESS_LIMIT=6, CODE_GUESS_WINDOW=1.0)
def test_hotseat_and_online_links_count_too_and_the_limit_passes_with_its_window(app, war_table):
    tables, classes = services(app).tables, services(app).classes
    wrong = iter(wrong_codes(tables, classes, 7))
    http = client_at(app, "10.0.0.4")
    assert http.get(f"/hotseat/{next(wrong)}").status_code == 404
    assert http.post(f"/hotseat/{next(wrong)}/claim", json={"secret": "s" * 32}).status_code == 404
    assert http.get(f"/online/{next(wrong)}").status_code == 404
    assert http.post(f"/online/{next(wrong)}/resume", json={"secret": "s" * 32}).status_code == 404
    assert http.post(f"/online/{next(wrong)}/invitation", json={"secret": "s" * 32}).status_code == 404
    assert http.get(f"/join/{next(wrong)}").status_code == 404
    limited = http.post(f"/online/{next(wrong)}/resume", json={"secret": "s" * 32})
    assert limited.status_code == 429 and limited.get_json()["error"]["code"] == "rate_limited"
    assert http.post(f"/hotseat/{war_table.code}/claim", json={"secret": "s" * 32}).status_code == 429
    assert http.get(f"/join/{war_table.code}").status_code == 429
    time.sleep(1.1)
    assert http.get(f"/join/{war_table.code}").status_code == 200


@pytest.mark.app_config(CODE_GUESS_LIMIT=2)
def test_an_ipv6_client_is_counted_by_its_64_network(app, war_table):
    """A client chooses any address in its /64: moving within it does not start again."""
    wrong = wrong_codes(services(app).tables, services(app).classes, 2)
    assert client_at(app, "2001:db8:1:2::a").get(f"/join/{wrong[0]}").status_code == 404
    assert client_at(app, "2001:db8:1:2:ffff::9").get(f"/join/{wrong[1]}").status_code == 404
    assert client_at(app, "2001:db8:1:2::77").get(f"/join/{war_table.code}").status_code == 429
    assert client_at(app, "2001:db8:1:3::a").get(f"/join/{war_table.code}").status_code == 200  # another /64
    assert client_at(app, "::ffff:10.0.5.1").get(f"/join/{wrong[0]}").status_code == 404  # IPv4 in IPv6 form...
    assert client_at(app, "10.0.5.1").get(f"/join/{wrong[1]}").status_code == 404  # ...is that IPv4 address
    assert client_at(app, "10.0.5.1").get(f"/join/{war_table.code}").status_code == 429


@pytest.mark.app_config(CODE_GUESS_LIMIT=2)
def test_the_teachers_board_and_overview_keep_working_behind_a_braked_address(app, phone, phone_at, api, teacher):
    from test_classes import logged_in

    code = api("post", "/api/classes", {"game": "war", "table_size": 4}, status=201)["code"]
    wrong = wrong_codes(services(app).tables, services(app).classes, 2)
    student = phone_at("10.0.3.1")
    for guess in wrong:
        assert error_code(student.join(guess, "Ana")) == "unknown_table"
    assert error_code(student.join(code, "Ana")) == "rate_limited"
    assert client_at(app, "10.0.3.1").get(f"/board/{code}").status_code == 429
    teacher_browser, _csrf = logged_in(app)
    teacher_browser.environ_base["REMOTE_ADDR"] = "10.0.3.1"
    assert teacher_browser.get(f"/board/{code}").status_code == 200
    overview = phone_at("10.0.3.1", auth={"token": services(app).accounts.issue_token(teacher.id)})
    assert overview.send("watch", {"code": code, "role": "facilitator"})["ok"]
    board = phone(flask_client=teacher_browser)  # the projected board: the teacher's logged-in browser
    assert board.send("watch", {"code": code})["ok"]


@pytest.mark.live
def test_two_server_processes_share_the_wrong_code_count_through_redis(tmp_path, postgres_schema):
    """Scaled: a guesser reaching two processes (one address) meets one count, in Redis.
    An odd window (3599 s) keeps this test's Redis keys apart from other tests' guesses;
    its counts for 127.0.0.1 are cleared before and after (they outlive the servers)."""
    import uuid

    import requests

    from app.config import redis_namespace
    from app.edge.guard import CODE_SCOPE
    from app.edge.limits import Limiter
    from live import LivePhone, LiveServer

    queue = "redis://127.0.0.1:6379/0"
    shared = {"DATABASE_URL": postgres_schema, "SOCKETIO_MESSAGE_QUEUE": queue,
              "SECRET_KEY": "guard-" + uuid.uuid4().hex, "CODE_GUESS_LIMIT": "4", "CODE_GUESS_WINDOW": "3599"}
    first, second = LiveServer(tmp_path / "a", **shared), LiveServer(tmp_path / "b", **shared)
    phones, redis_counts = [], Limiter(queue, namespace=redis_namespace(shared))  # the servers' own keys

    def clear():
        for scope in (CODE_SCOPE, CODE_SCOPE + "-hour"):
            redis_counts.reset(scope, "127.0.0.1")

    clear()
    try:
        first.add_facilitator()
        first.start()
        second.start()
        code = first.create_table(first.api_token())
        phones = [LivePhone(first.url), LivePhone(second.url)]
        guesses = [c for c in (new_code() for _ in range(20)) if c != code][:4]
        assert phones[0].call("join", {"code": guesses[0], "name": "Ana"})["error"]["code"] == "unknown_table"
        assert phones[1].call("watch", {"code": guesses[1]})["error"]["code"] == "unknown_table"
        assert requests.get(f"{first.url}/join/{guesses[2]}", timeout=5).status_code == 404
        assert requests.get(f"{second.url}/qr/{guesses[3]}.svg", timeout=5).status_code == 404
        assert phones[0].call("join", {"code": code, "name": "Ana"})["error"]["code"] == "rate_limited"
        assert requests.get(f"{second.url}/join/{code}", timeout=5).status_code == 429
    finally:
        for phone in phones:
            phone.close()
        first.stop()
        second.stop()
        clear()


def test_a_class_of_35_behind_one_address_mistyping_once_each_all_join(app, phone_at, api):
    """A whole class behind one school NAT address: each student mistypes the code once."""
    code = api("post", "/api/classes", {"game": "war", "table_size": 4}, status=201)["code"]
    mistyped = code[:-1] + next(c for c in CODE_ALPHABET if c != code[-1])
    students = []
    for n in range(35):
        p = phone_at("192.168.1.1")
        assert error_code(p.join(mistyped, f"Student {n}")) == "unknown_table"
        assert p.join(code, f"Student {n}")["ok"]
        students.append(p)
    summary = api("get", f"/api/classes/{code}")
    assert sum(len(t["seats"]) for t in summary["tables"]) == 35


# --------------------------------------------------------------- join flooding
@pytest.mark.app_config(SEATS_PER_ADDRESS=4)
def test_new_seats_per_address_are_limited_and_refusals_do_not_count(app, phone_at, war_table, api):
    code = api("post", "/api/classes", {"game": "war", "table_size": "solo"}, status=201)["code"]
    classes = services(app).classes
    seated_names = ["Ana", "Ben", "Cat", "Dan"]
    for name in seated_names[:3]:
        assert phone_at("10.0.1.1").join(code, name)["ok"]
    for _ in range(3):  # refused joins are not new seats: they count nothing
        assert error_code(phone_at("10.0.1.1").join(code, "Ana")) == "name_taken"
    assert phone_at("10.0.1.1").join(code, seated_names[3])["ok"]
    ack = phone_at("10.0.1.1").join(code, "Eve")
    assert error_code(ack) == "rate_limited" and "Wait a minute" in ack["error"]["message"]
    assert error_code(phone_at("10.0.1.1").join(war_table.code, "Eve")) == "rate_limited"  # any table
    tables = classes.summary(code)["tables"]
    assert sorted(s["name"] for t in tables for s in t["seats"] if not s["computer"]) == seated_names
    assert phone_at("10.0.1.2").join(code, "Eve")["ok"]  # another address


@pytest.mark.app_config(CLASS_TABLES_MAX=3)
def test_a_class_has_at_most_class_tables_max_tables(app, phone_at, api, teacher):
    """A solo class opens a table per new name: the cap stops a flood of made-up names."""
    code = api("post", "/api/classes", {"game": "war", "table_size": "solo"}, status=201)["code"]
    for n, name in enumerate(["Ana", "Ben", "Cat"]):
        assert phone_at(f"10.0.2.{n}").join(code, name)["ok"]
    ack = phone_at("10.0.2.9").join(code, "Dan")
    assert error_code(ack) == "table_full"
    assert "3 tables" in ack["error"]["message"] and "teacher" in ack["error"]["message"]
    summary = api("get", f"/api/classes/{code}")
    assert len(summary["tables"]) == 3
    assert [s["name"] for t in summary["tables"] for s in t["seats"] if not s["computer"]] == ["Ana", "Ben", "Cat"]
    # The teacher's overview still works, over the socket and as a page.
    fac = phone_at("10.0.2.10", auth={"token": services(app).accounts.issue_token(teacher.id)})
    assert fac.send("watch", {"code": code, "role": "facilitator"})["ok"]
    overview = fac.received("overview")[-1]
    assert len(overview["tables"]) == 3
    assert api("get", f"/api/classes/{code}/overview")


# ------------------------------------------------------------------- names
INVISIBLE_NAMES = ["\u3164", "\u115f\u1160", "\uffa0\uffa0", "\u2800\u2800\u2800", "\u200b\u200c\u200d",
                   "\u2060\ufeff", "\u00ad", "\u3000\u3164\u2003", "\u3164 \u2800", "\u034f\ufe0f", "\u0301\u0301"]
ZALGO = ["Z\u0334\u0321\u031b\u0324a\u0338l", "A\u0301\u0300\u0302", "Ann\u0303\u0303", "\u0e2a\u0e49\u0e49\u0e49",
         "a" + "\u0489" * 5]
REAL_NAMES = ["Nguyễn Thị Ánh", "Trần Đức Hương", "Phạm Ngọc Ẩn", "Ọ̀ṣọ́ Adéọlá", "שָׁלוֹם שִׁמְשׁוֹן",
              "སྒྲོལ་མ", "สมศักดิ์", "ปิ่น", "प्रिया", "مُحَمَّد", "Zoë Ørsted", "Ĳsbrand Ŀuís", "José María",
              "李小龍", "김민준", "Åsa-Lena O'Neil", "😀 Sam"]


@pytest.mark.parametrize("name", INVISIBLE_NAMES)
def test_a_name_of_invisible_characters_is_refused(phone, war_table, tables, name):
    ack = phone().join(war_table.code, name)
    assert error_code(ack) == "bad_request" and "invisible characters do not show" in ack["error"]["message"]
    assert tables.seats(war_table.code) == []


def test_a_name_of_blank_spaces_is_refused(phone, war_table, tables):
    for name in ["", "   ", "\u3000\u2003", "\u00a0\u202f\n"]:
        ack = phone().join(war_table.code, name)
        assert error_code(ack) == "bad_request" and ack["error"]["message"] == "Please type a name."
    assert tables.seats(war_table.code) == []


@pytest.mark.parametrize("name", ZALGO)
def test_marks_stacked_on_one_letter_are_refused(phone, war_table, tables, name):
    ack = phone().join(war_table.code, name)
    assert error_code(ack) == "bad_request" and "marks" in ack["error"]["message"]
    assert tables.seats(war_table.code) == []


def test_real_names_with_accents_and_marks_pass_composed_or_not(app, api, phone):
    import unicodedata

    code = api("post", "/api/classes", {"game": "war", "table_size": 4}, status=201)["code"]
    names = REAL_NAMES + [unicodedata.normalize("NFD", "Nguyễn Văn Bảo")]
    for name in names:
        ack = phone().join(code, name)
        assert ack["ok"], (name, ack)
    seated_names = {s["name"] for t in api("get", f"/api/classes/{code}")["tables"] for s in t["seats"]}
    assert seated_names == {unicodedata.normalize("NFC", n) for n in names}


def test_invisible_characters_inside_a_name_are_dropped_so_it_is_the_same_name(phone, war_table, tables):
    assert phone().join(war_table.code, "Ann")["ok"]
    for twin in ["Ann\u3164", "A\u200bnn", "\u2800Ann", "An\u00adn", "Ann\ufe0f"]:
        assert error_code(phone().join(war_table.code, twin)) == "name_taken"
    assert [s.name for s in tables.seats(war_table.code)] == ["Ann"]


LOOK_ALIKES = ["\u0410nn", "ANN", "\u0391\u039d\u039d", "\uff21\uff4e\uff4e", "A\u0578\u0578", "\U0001d400nn"]


@pytest.mark.parametrize("twin", LOOK_ALIKES)
def test_look_alike_letters_make_the_same_name_at_a_table_and_in_a_class(phone, war_table, api, twin):
    assert phone().join(war_table.code, "Ann")["ok"]
    ack = phone().join(war_table.code, twin)
    assert error_code(ack) == "name_taken"
    code = api("post", "/api/classes", {"game": "war", "table_size": 2}, status=201)["code"]
    assert phone().join(code, "Ann")["ok"]
    assert phone().join(code, "Ben")["ok"]  # the first table is full: the twin would sit at another
    assert error_code(phone().join(code, twin)) == "name_taken"


def test_different_names_in_other_scripts_stay_different(phone, war_table):
    for name in ["Ann", "Анна", "Άννα", "Anne", "Ánn"]:
        assert phone().join(war_table.code, name)["ok"], name


# -------------------------------------------------------------- rude names
RUDE = ["Fuck", "FUUUCK", "Fück", "\uff26\uff35\uff23\uff2b", "f.u.c.k", "5h1t", "B1TCH", "a55", "BigDick",
        "Dick Smith", "d i c k", "\u0430ss", "Mr Fuckface"]
POLITE = ["Scunthorpe", "Dickens", "Cassandra", "Hancock", "Yamashita", "Sexton", "Cumming", "Essex",
          "Assia", "Fukuda", "Pornchai", "Matsushita"]


def test_rude_names_are_refused_kindly_without_repeating_the_word(phone, war_table, tables):
    for name in RUDE:
        ack = phone().join(war_table.code, name)
        assert error_code(ack) == "bad_request", name
        message = ack["error"]["message"]
        assert message == "Please choose a different name: that one might upset someone."
    assert tables.seats(war_table.code) == []


def test_names_that_only_contain_a_rude_word_pass(app, api, phone):
    code = api("post", "/api/classes", {"game": "war", "table_size": 4}, status=201)["code"]
    for name in POLITE:
        assert phone().join(code, name)["ok"], name


def test_the_teacher_can_switch_the_filter_off_per_table_and_per_class(app, api, phone, tables):
    on = api("post", "/api/tables", {"game": "war"}, status=201)["code"]
    off = api("post", "/api/tables", {"game": "war", "name_filter": False}, status=201)["code"]
    assert error_code(phone().join(on, "Dick")) == "bad_request"
    assert phone().join(off, "Dick")["ok"]
    klass_on = api("post", "/api/classes", {"game": "war", "table_size": "solo"}, status=201)["code"]
    klass_off = api("post", "/api/classes", {"game": "war", "table_size": "solo", "name_filter": False},
                    status=201)["code"]
    assert error_code(phone().join(klass_on, "Dick")) == "bad_request"
    assert api("get", f"/api/classes/{klass_on}")["tables"] == []  # no table was opened for it
    assert phone().join(klass_off, "Dick")["ok"]
    for body in ({"game": "war", "name_filter": "no"}, {"game": "war", "name_filter": 0}):
        assert api("post", "/api/tables", body, status=400)["error"]["message"] == "name_filter must be true or false."
        api("post", "/api/classes", body, status=400)


def test_the_create_forms_offer_refuse_rude_names_ticked(app, teacher, tables, phone):
    from test_classes import logged_in

    client, csrf = logged_in(app)
    page = client.get("/facilitator/new/war").get_data(as_text=True)   # the short form a game card leads to
    forms = page.count('action="/facilitator/tables"') + page.count('action="/facilitator/classes"')
    assert forms >= 2 and page.count('name="name_filter" value="1" checked> Refuse rude names') == forms
    made = {}
    for label, sent in (("ticked", ["0", "1"]), ("unticked", ["0"]), ("absent", None)):
        data = {"game": "war", "csrf": csrf, **({"name_filter": sent} if sent else {})}
        table = client.post("/facilitator/tables", data=data)
        klass = client.post("/facilitator/classes", data=dict(data, table_size="solo"))
        made[label] = (table.headers["Location"].rsplit("/", 1)[1], klass.headers["Location"].rsplit("/", 1)[1])
    classes = services(app).classes
    assert {k: (tables.get(t).name_filter, classes.get(c).name_filter) for k, (t, c) in made.items()} == {
        "ticked": (True, True), "unticked": (False, False), "absent": (True, True)}
    assert error_code(phone().join(made["ticked"][1], "Twat")) == "bad_request"
    assert phone().join(made["unticked"][1], "Twat")["ok"]


def test_an_online_match_refuses_rude_names_too(app, tables):
    """Online matches (app/service/online.py) have no teacher to switch the filter off: it stays on."""
    from app.errors import ServiceError

    online = services(app).online
    with pytest.raises(ServiceError) as refused:
        online.create("wizard", "10.0.4.1", "B1tch")
    assert refused.value.code == "bad_request" and "different name" in refused.value.message
    assert tables.tables_of(None) == []  # refused before a table was opened for it
    made = online.create("wizard", "10.0.4.1", "Ana")
    assert tables.get(made["code"]).name_filter is True
