"""CSRF tokens (issue 18, item 9): every cookie-authenticated change compares the
token it was sent with the session's through one helper (app/edge/csrf.py), as bytes. A
value no page ever issued (non-ASCII, missing, wrong) is a 400, never a 500:
`hmac.compare_digest` raises TypeError on non-ASCII text."""
from __future__ import annotations

import pytest

from conftest import make_app
from test_auth import db_url  # noqa: F401  (the fixture: SQLite and a PostgreSQL schema)
from test_classes import logged_in

from app.extensions import services

FOREIGN = "é"  # Latin-1, so it also travels in a header

# POST (and DELETE) routes that take no CSRF token, and why: none acts on a login cookie.
NOT_COOKIE_AUTHENTICATED = {
    "api.login": "trades a name and password for a token; a forged request would only log the forger in",
    "api.logout": "Bearer token only: revokes the token it was sent with",
    "api.create_table": "Bearer token only (token_required)",
    "api.delete_table": "Bearer token only (token_required)",
    "api.revoke_token": "Bearer token only (token_required)",
    "player.hotseat_claim": "authorised by the link's secret in the JSON body, not by a cookie",
    "player.online_invitation": "authorised by the invitation secret in the JSON body, not by a cookie",
    "player.online_resume": "authorised by the resume secret in the JSON body, not by a cookie",
    "player.online_new_link": "authorised by the resume secret in the JSON body, not by a cookie",
}


@pytest.fixture
def csrf_app(db_url, tmp_path):  # noqa: F811
    app = make_app(tmp_path, DATABASE_URL=db_url)
    services(app).accounts.add("teacher", "correct-horse-1")
    yield app
    services(app).stop()


@pytest.mark.parametrize("path, how", [
    ("/facilitator/login", "form"),
    ("/demo/war/quick_match", "form"),
    ("/online/wizard", "form"),
    ("/api/preferences", "header"),
])
def test_a_non_ascii_csrf_value_is_a_400_not_a_500(csrf_app, path, how):
    client, _csrf = logged_in(csrf_app)
    if how == "form":
        response = client.post(path, data={"csrf": FOREIGN, "name": "teacher", "password": "x"})
    else:
        response = client.post(path, json={"paper": "letter"}, headers={"X-CSRF-Token": FOREIGN})
    assert response.status_code == 400, (path, response.status_code)
    assert b"expired" in response.data
    if path.startswith("/api/"):
        assert response.get_json()["error"]["code"] == "bad_request"
        assert services(csrf_app).accounts.get(1).paper != "letter"  # nothing changed


def changing_routes(app) -> list:
    """Every route that accepts a change (POST or DELETE), with its path made of placeholders."""
    out = []
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        for method in sorted(rule.methods & {"POST", "DELETE", "PUT", "PATCH"}):
            values = {arg: 1 if type(conv).__name__ == "IntegerConverter" else "war"
                      for arg, conv in rule._converters.items()}
            path = rule.rule
            for arg, value in values.items():
                path = path.replace(f"<int:{arg}>", str(value)).replace(f"<{arg}>", str(value))
            out.append((rule.endpoint, method, path))
    return out


@pytest.mark.parametrize("token", [FOREIGN, "", "wrong", "日本語"])
def test_every_cookie_authenticated_change_refuses_a_bad_csrf_token_with_400(csrf_app, token):
    routes = changing_routes(csrf_app)
    assert len(routes) > 20  # the enumeration found the app's routes
    for endpoint, method, path in routes:
        if endpoint in NOT_COOKIE_AUTHENTICATED:
            continue
        client, _csrf = logged_in(csrf_app)
        form = client.open(path, method=method, data={"csrf": token})
        header = client.open(path, method=method, json={}, headers={"X-CSRF-Token": token})
        # A form route reads the form field, a JSON route the header: each way in is refused.
        for response in (form, header):
            assert response.status_code == 400, (endpoint, method, path, token, response.status_code)
    # The teacher is still logged in and nothing was deleted or changed by any of it.
    client, csrf = logged_in(csrf_app)
    assert client.get("/facilitator/").status_code == 200


def test_the_right_token_still_works_in_a_form_and_a_header(csrf_app):
    client, csrf = logged_in(csrf_app)
    assert client.post("/api/preferences", json={"paper": "letter"}, headers={"X-CSRF-Token": csrf}).status_code == 200
    assert client.post("/facilitator/preferences", data={"paper": "a4", "csrf": csrf}).status_code == 302
    assert services(csrf_app).accounts.get(1).paper == "a4"
