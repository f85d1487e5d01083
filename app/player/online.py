"""Online matches (on the player blueprint; the service is app/online.py).

POST /online/<game>          the home page's button: create a match (no account, rate-
                             limited with the guided demos); the answer keeps the seat
                             token and the resume secret in localStorage and opens the
                             match's link page
GET  /online/<CODE>          the link page: its secret is in the fragment
                             (#invite=… or #resume=…) or in this browser's storage
POST /online/<CODE>/invitation  {secret, accept?, name?}: what the invitation is worth,
                             or (accept) take seat 1; answers the seat token
POST /online/<CODE>/resume   {secret}: the seat token for a resume secret

Secrets and tokens travel only in POST bodies and their answers (never a URL's path or
query, so never a server log), and no answer is cached."""
from __future__ import annotations

from flask import abort, current_app, jsonify, make_response, render_template, request

from app import engines
from app.demo import DemoLimited
from app.netaddr import base_url, client_address
from app.player import bp, guarded
from app.player.demo import check_form_csrf, limited_page
from app.security import normalize_code
from app.tables import ServiceError

STATUS = {"bad_request": 400, "unknown_table": 404, "forbidden": 403, "table_full": 409, "game_over": 410,
          "name_taken": 409, "rate_limited": 429}


def service():
    return current_app.extensions["online"]


@bp.post("/online/<game>")
def open_online(game):
    check_form_csrf()
    try:
        made = service().create(game, client_address(), request.form.get("name"))
    except DemoLimited as exc:
        return limited_page(exc)
    except ServiceError as exc:
        if exc.code == "bad_request" and (game not in engines.keys() or engines.spec(game).online is None):
            abort(404)
        abort(400, exc.message)
    response = make_response(render_template(
        "demo_start.html", code=made["code"], token=made["token"], secret=made["resume"],
        heading="Your online match is ready", next=f"/online/{made['code']}"), 201)
    response.headers["Cache-Control"] = "no-store"
    return response


def _online_table(code: str):
    table = current_app.extensions["tables"].find(code)
    return table if table is not None and service().is_online(code) else None


@bp.get("/online/<code>")
def online_page(code):
    normal, table = guarded(code, _online_table)
    if table is None:
        abort(404)
    spec = engines.spec(table.game)
    return render_template("online.html", code=normal, game=table.game, title=spec.title, noun=spec.online.noun,
                           base=base_url())


def _answer(work):
    """Answer a link's POST as JSON; a wrong code counts against this address (app/guard.py)."""
    try:
        response = jsonify(dict(current_app.extensions["guard"].counting(client_address(), work), ok=True))
    except ServiceError as exc:
        response = jsonify({"ok": False, "error": exc.to_json()})
        response.status_code = STATUS.get(exc.code, 400)
    response.headers["Cache-Control"] = "no-store"
    return response


def _body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ServiceError("bad_request", "Send a JSON object with the link's secret.")
    return body


def _code(code: str) -> str:
    normal = normalize_code(code)
    if normal is None:
        raise ServiceError("unknown_table", "There is no online match with that code.")
    return normal


@bp.post("/online/<code>/invitation")
def online_invitation(code):
    def work():
        body, normal = _body(), _code(code)
        if body.get("accept") is True:
            seated = service().accept(normal, body.get("secret"), body.get("name"))
            current_app.extensions["notifier"].table_changed(normal)  # the creator's phone sees the start
            return seated
        return service().invitation(normal, body.get("secret"))
    return _answer(work)


@bp.post("/online/<code>/resume")
def online_resume(code):
    return _answer(lambda: service().resume(_code(code), _body().get("secret")))
