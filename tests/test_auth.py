"""Facilitator authentication: login brakes, even timing, logout, API tokens, first-run set-up."""
from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import Session, select

from app.edge.security import hash_token, new_token
from app.extensions import services
from app.service.accounts import Accounts
from app.store.db import make_engine
from app.store.models import ApiToken, SetupToken, utcnow

from conftest import PASSWORD, make_app
from phones import Phone
from test_http import csrf_of, login

QUICK_BRAKES = {"LOGIN_PER_ACCOUNT_ADDRESS": 3, "LOGIN_PER_ADDRESS": 5, "LOGIN_PER_ACCOUNT": 4}


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh database: a SQLite file, or a private schema of the machine's PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'auth.db'}"
        return
    import uuid

    from sqlalchemy import create_engine, text

    schema = "auth_" + uuid.uuid4().hex[:10]
    admin = create_engine("postgresql+psycopg://postgres@127.0.0.1:5432/test")
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    yield f"postgresql://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


@pytest.fixture
def db_app(db_url, tmp_path):
    app = make_app(tmp_path, DATABASE_URL=db_url)
    yield app
    services(app).stop()


def counting_hashes(app) -> list:
    """Record every password hash or check the accounts service runs."""
    accounts = services(app).accounts
    accounts._dummy()  # made once per process, at its first login: not one of the test's
    calls, inner = [], accounts.offload

    def offload(fn, *args, **kwargs):
        calls.append(fn.__name__)
        return inner(fn, *args, **kwargs)

    accounts.offload = offload
    return calls


def form_login(client, name, password, address="10.0.0.1"):
    client.get("/facilitator/login", environ_base={"REMOTE_ADDR": address})
    return client.post("/facilitator/login", data={"name": name, "password": password, "csrf": csrf_of(client)},
                       environ_base={"REMOTE_ADDR": address})


def api_login(client, name, password, address="10.0.0.1"):
    return client.post("/api/login", json={"name": name, "password": password},
                       environ_base={"REMOTE_ADDR": address})


# ------------------------------------------------------------------ login brakes
@pytest.mark.app_config(**QUICK_BRAKES)
@pytest.mark.parametrize("how", [form_login, api_login], ids=["form", "api"])
def test_wrong_passwords_for_a_name_lock_that_address_out_before_any_hashing(app, teacher, how):
    hashes = counting_hashes(app)
    client = app.test_client()
    for _ in range(3):
        assert how(client, "teacher", "wrong-password").status_code == 401
    assert len(hashes) == 3
    refused = how(client, "teacher", PASSWORD)  # even the right password waits
    assert refused.status_code == 429
    assert len(hashes) == 3  # refused before hashing
    assert 60 < int(refused.headers["Retry-After"]) <= 900
    text = refused.get_json()["error"]["message"] if how is api_login else refused.get_data(as_text=True)
    assert "Too many wrong passwords for this name from this device. Try again in 15 minutes." in text
    if how is api_login:
        assert refused.get_json()["error"]["code"] == "rate_limited"
    # The teacher at the classroom computer (another address) is not locked out by it,
    # and getting in there does not lift the lockout of the guessing address.
    assert how(app.test_client(), "teacher", PASSWORD, address="10.0.0.2").status_code in (200, 302)
    assert how(client, "teacher", PASSWORD).status_code == 429


@pytest.mark.app_config(LOGIN_PER_ACCOUNT_ADDRESS=3, LOGIN_PER_ADDRESS=20, LOGIN_PER_ACCOUNT=20)
def test_a_correct_password_clears_its_own_address_failures_only(app, teacher):
    accounts = services(app).accounts
    for address in ("a", "b"):
        for _ in range(2):
            assert accounts.authenticate("teacher", "wrong-password", address) is None
    assert accounts.authenticate("teacher", PASSWORD, "a")  # a typo or two, then the right one
    for _ in range(2):  # a's count starts again...
        assert accounts.authenticate("teacher", "wrong-password", "a") is None
    assert accounts.authenticate("teacher", "wrong-password", "b") is None  # ...b's does not: its third
    with pytest.raises(Exception, match="Too many"):
        accounts.authenticate("teacher", PASSWORD, "b")


@pytest.mark.app_config(**QUICK_BRAKES)
def test_correct_logins_use_up_no_budget(app, teacher, other_teacher):
    """Teachers behind one school address, or a script logging in for each run."""
    client = app.test_client()
    for i in range(7):  # more than every limit
        assert api_login(client, ("teacher", "other")[i % 2], PASSWORD).status_code == 200
    for _ in range(3):
        assert api_login(client, "teacher", "wrong-password").status_code == 401
    assert api_login(client, "teacher", PASSWORD).status_code == 429  # failures still count


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_the_limiter_takes_back_a_counted_attempt_and_says_when_to_retry(store):
    import uuid

    from app.edge.limits import Limiter

    limiter = Limiter("redis://127.0.0.1:6379/0" if store == "redis" else None)
    scope, key = "test-undo", uuid.uuid4().hex
    assert limiter.hit(scope, key, limit=2, window=600) and limiter.hit(scope, key, limit=2, window=600)
    assert not limiter.peek(scope, key, limit=2, window=600)
    assert 0 < limiter.retry_after(scope, key, limit=2, window=600) <= 600
    limiter.undo(scope, key, window=600)
    assert limiter.peek(scope, key, limit=2, window=600)
    assert limiter.retry_after(scope, key, limit=2, window=600) == 0
    limiter.reset(scope, key)


@pytest.mark.app_config(**QUICK_BRAKES)
def test_one_address_trying_many_names_is_braked_and_unknown_names_count(app, teacher):
    client = app.test_client()
    for i in range(5):
        assert api_login(client, f"nobody-{i}", "guess-guess").status_code == 401
    refused = api_login(client, "someone-else", "guess-guess")
    assert refused.status_code == 429 and "from this device" in refused.get_json()["error"]["message"]
    assert api_login(client, "teacher", PASSWORD, address="10.0.0.9").status_code == 200


@pytest.mark.app_config(**QUICK_BRAKES)
def test_many_addresses_on_one_name_are_braked(app, teacher):
    client = app.test_client()
    for i in range(4):
        assert api_login(client, "teacher", "wrong-password", address=f"10.1.0.{i}").status_code == 401
    refused = api_login(client, "teacher", PASSWORD, address="10.1.0.0")  # an address that failed on the name
    assert refused.status_code == 429
    assert "Too many failed logins for this name." in refused.get_json()["error"]["message"]
    # A fresh address has one try (the teacher's right password gets in: tests/test_brakes.py), then it is
    # braked too.
    assert api_login(client, "teacher", "wrong-password", address="10.1.0.99").status_code == 401
    assert api_login(client, "teacher", PASSWORD, address="10.1.0.99").status_code == 429
    # The same for a name that does not exist (the brake is no oracle of names).
    for i in range(4):
        assert api_login(client, "ghost", "wrong-password", address=f"10.2.0.{i}").status_code == 401
    assert api_login(client, "ghost", "x" * 8, address="10.2.0.0").status_code == 429
    assert api_login(client, "ghost", "x" * 8, address="10.2.0.99").status_code == 401
    assert api_login(client, "ghost", "x" * 8, address="10.2.0.99").status_code == 429


# Only the one brake here: with several, simultaneous attempts may take their places in
# them in different orders, and a burst may then hash fewer than the limit (never more).
@pytest.mark.app_config(LOGIN_PER_ACCOUNT_ADDRESS=3, LOGIN_PER_ADDRESS=100, LOGIN_PER_ACCOUNT=100)
def test_a_burst_of_simultaneous_guesses_hashes_no_more_than_the_limit(app, teacher):
    accounts = services(app).accounts
    hashes = counting_hashes(app)
    start, results = threading.Barrier(8), []

    def guess():
        start.wait()
        try:
            results.append(accounts.authenticate("teacher", "wrong-password", "10.3.0.1"))
        except Exception as exc:  # noqa: BLE001
            results.append(type(exc).__name__)

    threads = [threading.Thread(target=guess) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(hashes) == 3
    assert sorted(map(str, results)) == ["LoginLimited"] * 5 + ["None"] * 3


@pytest.mark.app_config(LOGIN_PER_ACCOUNT_ADDRESS=1000, LOGIN_PER_ADDRESS=1000, LOGIN_PER_ACCOUNT=1000)
def test_an_unknown_name_costs_the_same_hash_as_a_known_one(app, teacher):
    """A login for a name nobody has runs the same password check, at the same cost, as one
    for a real name: its answer takes as long, so the time tells no names. Checked by what
    runs, not by a stopwatch (a busy machine would blur a timing; it was 3 ms against 143 ms)."""
    client = app.test_client()
    accounts = services(app).accounts
    accounts._dummy()
    checked, inner = [], accounts.offload

    def offload(fn, *args, **kwargs):
        checked.append((fn.__name__, args[0].rsplit("$", 2)[0] if args else None))
        return inner(fn, *args, **kwargs)

    accounts.offload = offload
    assert api_login(client, "teacher", "wrong-password").status_code == 401
    known, checked[:] = list(checked), []
    assert api_login(client, "nobody", "wrong-password").status_code == 401
    unknown = list(checked)
    method = teacher.password_hash.rsplit("$", 2)[0]  # e.g. scrypt:32768:8:1 (pbkdf2:sha256:1000 in the tests)
    assert known == [("check_password_hash", method)]
    assert unknown == known, (unknown, known)


def test_no_more_hashes_run_at_once_than_the_offload_allows():
    from app.edge.offload import Offload

    offload, running, most, lock = Offload("threading", 2), [0], [0], threading.Lock()

    def hash_like():
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1

    threads = [threading.Thread(target=offload, args=(hash_like,)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 2


# ------------------------------------------------------------------ logging out
def test_logging_out_ends_the_session_even_for_a_saved_copy_of_the_cookie(app, teacher, war_table):
    browser, other_browser = app.test_client(), app.test_client()
    assert login(browser).status_code == 302
    assert login(other_browser).status_code == 302
    saved = browser.get_cookie("session").value
    assert browser.get("/facilitator/").status_code == 200
    assert Phone(app, flask_client=browser).send(
        "moderate", {"code": war_table.code, "version": 0, "action": {"type": "pause"}})["error"]["code"] != "forbidden"
    open_page = Phone(app, flask_client=browser)  # the teacher's panel, open while they log out
    assert open_page.send("watch", {"code": war_table.code, "role": "facilitator"})["ok"]
    bystander = Phone(app)
    assert bystander.send("watch", {"code": war_table.code})["ok"]
    assert browser.post("/facilitator/logout", data={"csrf": csrf_of(browser)}).status_code == 302
    # Its socket is ended at once (the page reconnects and is authenticated afresh);
    # a board that is not the teacher's stays.
    assert not open_page.client.is_connected() and bystander.client.is_connected()

    replay = app.test_client()
    replay.set_cookie("session", saved)
    assert replay.get("/facilitator/").headers["Location"].startswith("/facilitator/login")
    assert replay.get(f"/api/classes/{war_table.code}").status_code == 401  # the cookie-or-token API
    ack = Phone(app, flask_client=replay).send(
        "moderate", {"code": war_table.code, "version": 0, "action": {"type": "pause"}})
    assert ack["error"]["code"] == "forbidden"  # the socket connect does not take it either
    # Logging out logs out every browser of the teacher (why: see Accounts.end_sessions).
    assert other_browser.get("/facilitator/").status_code == 302
    assert login(browser).status_code == 302 and browser.get("/facilitator/").status_code == 200


# ------------------------------------------------------------------ API tokens
def test_an_id_no_row_can_have_is_unknown_not_a_server_error(db_app):
    """Found by the fuzz on PostgreSQL: /api/tokens/2147483648 overflowed INTEGER (a 500)."""
    app = db_app
    teacher = services(app).accounts.add("teacher", PASSWORD)
    bearer = {"Authorization": f"Bearer {services(app).accounts.issue_token(teacher.id)}"}
    client = app.test_client()
    for token_id in (2**31, 2**63, 0):
        assert client.delete(f"/api/tokens/{token_id}", headers=bearer).status_code == 404
    created = client.post("/api/tables", json={"game": "water_cycle", "banks": {"trivia": 2**40}}, headers=bearer)
    assert 400 <= created.status_code < 500 and created.get_json()["ok"] is False


def test_api_tokens_are_listed_revoked_and_logged_out(db_app):
    app = db_app
    accounts = services(app).accounts
    teacher = accounts.add("teacher", PASSWORD)
    other = accounts.add("other", PASSWORD)
    client = app.test_client()
    first = client.post("/api/login", json={"name": "teacher", "password": PASSWORD}).get_json()
    second = client.post("/api/login", json={"name": "teacher", "password": PASSWORD}).get_json()["token"]
    bearer = {"Authorization": f"Bearer {first['token']}"}
    listed = client.get("/api/tokens", headers=bearer)
    assert listed.status_code == 200
    assert first["token"] not in listed.get_data(as_text=True) and second not in listed.get_data(as_text=True)
    tokens = listed.get_json()["tokens"]
    assert len(tokens) == 2 and [t["current"] for t in tokens] == [False, True]
    assert tokens[1]["last_used_at"] is not None and tokens[0]["last_used_at"] is None
    assert tokens[1]["expires_at"] == first["expires_at"]
    assert timedelta(days=29.9) < (accounts.tokens_of(teacher.id)[1].expires_at - utcnow()) <= timedelta(days=30)

    other_token = accounts.issue_token(other.id)
    other_id = accounts.token_owner(other_token)[1]
    assert client.delete(f"/api/tokens/{other_id}", headers=bearer).status_code == 404  # not mine
    assert accounts.by_token(other_token) is not None
    script = Phone(app, auth={"token": second})   # a script's socket, on the token about to be revoked
    assert script.client.is_connected()
    assert client.delete(f"/api/tokens/{tokens[0]['id']}", headers=bearer).status_code == 200
    assert not script.client.is_connected()          # ended; connecting again with it makes no teacher
    assert client.get("/api/tokens", headers={"Authorization": f"Bearer {second}"}).status_code == 401

    assert client.post("/api/logout", headers=bearer).get_json() == {"ok": True}
    gone = client.get("/api/tokens", headers=bearer)
    assert gone.status_code == 401 and "expired or been revoked" in gone.get_json()["error"]["message"]
    assert accounts.tokens_of(teacher.id) == [] and len(accounts.tokens_of(other.id)) == 1


def test_an_expired_api_token_no_longer_works(db_app):
    app = db_app
    accounts = services(app).accounts
    teacher = accounts.add("teacher", PASSWORD)
    token = accounts.issue_token(teacher.id)
    client = app.test_client()
    assert client.get("/api/tokens", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    with Session(services(app).db) as s:
        s.exec(update(ApiToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        s.commit()
    assert client.get("/api/tokens", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert accounts.by_token(token) is None and accounts.tokens_of(teacher.id) == []
    accounts.issue_token(teacher.id)  # a new login forgets the expired rows
    with Session(services(app).db) as s:
        assert len(s.exec(select(ApiToken)).all()) == 1


def test_the_tokens_page_lists_tokens_and_revokes_one_with_the_form_token(app, teacher, teacher_token):
    client = app.test_client()
    login(client)
    assert 'href="/facilitator/tokens"' in client.get("/facilitator/").get_data(as_text=True)
    page = client.get("/facilitator/tokens").get_data(as_text=True)
    token_id = services(app).accounts.token_owner(teacher_token)[1]
    assert f'data-token="{token_id}"' in page and teacher_token not in page and "never" in page
    assert client.post(f"/facilitator/tokens/{token_id}/revoke").status_code == 400  # no CSRF token
    assert services(app).accounts.by_token(teacher_token) is not None
    done = client.post(f"/facilitator/tokens/{token_id}/revoke", data={"csrf": csrf_of(client)})
    assert done.status_code == 303 and services(app).accounts.by_token(teacher_token) is None
    after = client.get("/facilitator/tokens").get_data(as_text=True)
    assert "revoked" in after and "You have no API tokens" in after


# ------------------------------------------------------------------ first run
def add_setup_token(engine, age_seconds: float = 3600) -> str:
    """An unused set-up link issued earlier (an earlier start's)."""
    token = new_token()
    with Session(engine) as s:
        s.add(SetupToken(token_hash=hash_token(token), created_at=utcnow() - timedelta(seconds=age_seconds)))
        s.commit()
    return token


def test_simultaneous_set_up_posts_create_exactly_one_account(db_url):
    engines = [make_engine(db_url) for _ in range(4)]  # one per "process"
    try:
        for attempt in range(2):
            accounts = [Accounts(e) for e in engines]
            links = [add_setup_token(engines[0]) for _ in range(2)]
            start, made, refused = threading.Barrier(8), [], []

            def claim(i):
                start.wait()
                try:
                    made.append(accounts[i % 4].create_with_setup_token(links[i % 2], f"T{attempt}-{i}", PASSWORD))
                except ValueError as exc:
                    refused.append(str(exc))

            threads = [threading.Thread(target=claim, args=(i,)) for i in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert len(made) == 1 and accounts[0].count() == 1, (made, refused)
            assert set(refused) == {"This set-up link has already been used."}
            assert not any(accounts[0].setup_token_valid(link) for link in links)
            assert accounts[0].authenticate(made[0].name, PASSWORD, f"t{attempt}").id == made[0].id
            with engines[0].begin() as conn:  # next try: an empty database again
                conn.execute(SetupToken.__table__.delete())
                conn.execute(ApiToken.__table__.delete())
                conn.execute(made[0].__table__.delete())
    finally:
        for e in engines:
            e.dispose()


def test_processes_starting_at_once_get_one_set_up_link_and_a_later_start_another(db_url):
    engines = [make_engine(db_url) for _ in range(4)]
    try:
        accounts = [Accounts(e) for e in engines]
        start, links = threading.Barrier(4), []

        def starting(i):
            start.wait()
            links.append(accounts[i].setup_link_token())

        threads = [threading.Thread(target=starting, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        issued = [link for link in links if link]
        assert len(issued) == 1 and accounts[0].setup_token_valid(issued[0])
        # A start a while later (the teacher lost the first terminal) gets a fresh link;
        # the first still works until an account exists.
        with Session(engines[0]) as s:
            s.exec(update(SetupToken).values(created_at=utcnow() - timedelta(minutes=5)))
            s.commit()
        fresh = accounts[1].setup_link_token()
        assert fresh and fresh != issued[0] and accounts[0].setup_token_valid(issued[0])
        accounts[2].create_with_setup_token(fresh, "Ms K", PASSWORD)
        assert not accounts[0].setup_token_valid(issued[0]) and accounts[3].setup_link_token() is None
    finally:
        for e in engines:
            e.dispose()


def test_the_migration_gives_existing_tokens_thirty_days_and_keeps_old_sessions_out(db_url):
    from alembic import command
    from sqlalchemy import text

    from app.store import migrations

    engine = make_engine(db_url, migrate=False)
    try:
        with engine.begin() as conn:  # a school database at the revision before this one
            command.upgrade(migrations.config(conn), "0008")
            conn.execute(text("INSERT INTO facilitator (id, name, password_hash, created_at, paper) "
                              "VALUES (1, 'teacher', 'x', :t, 'a4')"), {"t": utcnow()})
            conn.execute(text("INSERT INTO apitoken (facilitator_id, token_hash, created_at) VALUES (1, :h, :t)"),
                         {"h": hash_token("old-token"), "t": utcnow() - timedelta(days=10)})
        assert migrations.upgrade(engine).action == "upgraded"
        accounts = Accounts(engine)
        (info,) = accounts.tokens_of(1)
        assert info.expires_at - info.created_at == timedelta(days=30)
        assert accounts.by_token("old-token").name == "teacher"
        # A cookie from before the upgrade (no epoch in it) no longer logs in.
        assert accounts.from_session({"facilitator_id": 1}) is None
        assert accounts.from_session({"facilitator_id": 1, "epoch": 0}).name == "teacher"
    finally:
        engine.dispose()


def test_passwords_are_hashed_with_scrypt_unless_the_deployment_names_another_method(tmp_path):
    """The suite hashes cheaply (tests/conftest.py); a real deployment gets Werkzeug's scrypt."""
    from app.config import from_environment

    assert from_environment()["PASSWORD_HASH_METHOD"] == "scrypt"
    engine = make_engine(f"sqlite:///{tmp_path / 'a.db'}")
    try:
        made = Accounts(engine).add("someone", "long-enough-1")
        assert made.password_hash.startswith("scrypt:")
        assert Accounts(engine).authenticate("someone", "long-enough-1", "10.9.0.1").id == made.id
        cheap = Accounts(engine, settings={"PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"}).add("other", "long-enough-1")
        assert cheap.password_hash.startswith("pbkdf2:sha256:1000$")
    finally:
        engine.dispose()
