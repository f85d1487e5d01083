"""Online matches (on the player blueprint; the service is app/service/online.py).

POST /online/<game>          the home page's button: create a match (no account, rate-
                             limited with the guided demos); the answer keeps the seat
                             token and the resume secret in localStorage and opens the
                             match's link page
GET  /online/<CODE>          the link page: its secret is in the fragment
                             (#invite=… or #resume=…) or in this browser's storage
POST /online/<CODE>/invitation  {secret, accept?, name?}: what the invitation is worth,
                             or (accept) take seat 1; answers the seat token
POST /online/<CODE>/resume   {secret}: the seat token for a resume secret
POST /online/<CODE>/new-link {secret}: replace that resume link with a new one (the
                             match page's "New private link"); answers as /resume, for
                             the new link. The secret in the body is the proof: a page of
                             another site cannot know it (nor send JSON without CORS).

Secrets and tokens travel only in POST bodies and their answers (never a URL's path or
query, so never a server log), and no answer is cached."""
from __future__ import annotations

from flask import abort, jsonify, make_response, render_template, request
from flask_babel import gettext

from app import engines, i18n
from app.edge.csrf import check_csrf
from app.edge.netaddr import base_url, client_address
from app.edge.security import json_body, normalize_code
from app.errors import ServiceError
from app.extensions import services
from app.player import bp, guarded, page_language
from app.player.demo import limited_page
from app.service.demo import DemoLimited
from app.engines.text import N_

STATUS = {"bad_request": 400, "unknown_table": 404, "forbidden": 403, "table_full": 409, "game_over": 410,
          "name_taken": 409, "rate_limited": 429}


def service():
    return services().online


@bp.post("/online/<game>")
def open_online(game):
    check_csrf(request.form.get("csrf"))
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
        heading=gettext("Your online match is ready"), next=f"/online/{made['code']}"), 201)
    response.headers["Cache-Control"] = "no-store"
    return response


def _online_table(code: str):
    table = services().tables.find(code)
    return table if table is not None and service().is_online(code) else None


@bp.get("/online/<code>")
def online_page(code):
    normal, table = guarded(code, _online_table)
    if table is None:
        abort(404)
    spec, lang = engines.spec(table.game), page_language()
    return render_template("online.html", code=normal, game=table.game, title=i18n.localize(spec.title, lang, table.game),
                           noun=i18n.localize(spec.online.noun, lang, table.game), base=base_url())


def _seat_names(code: str, answer: dict) -> dict:
    """An answer's seat names in the page's language when they are the game's default
    names ("First wizard"); a name a student typed stays as it is."""
    table = services().tables.find(code)
    if table is None or engines.spec(table.game).online is None:
        return answer
    defaults, lang = set(engines.spec(table.game).online.seats), page_language()
    return {k: (i18n.localize(v, lang, table.game) if k in ("name", "default_name", "host", "opponent")
                and v in defaults else v) for k, v in answer.items()}


def _answer(work, code: str | None = None):
    """Answer a link's POST as JSON; a wrong code counts against this address (app/edge/guard.py)."""
    try:
        answer = services().guard.counting(client_address(), work)
        if code is not None and isinstance(answer, dict):
            answer = _seat_names(normalize_code(code) or code, answer)
        response = jsonify(dict(answer, ok=True))
    except ServiceError as exc:
        response = jsonify({"ok": False, "error": exc.to_json()})
        response.status_code = STATUS.get(exc.code, 400)
    response.headers["Cache-Control"] = "no-store"
    return response


def _code(code: str) -> str:
    normal = normalize_code(code)
    if normal is None:
        raise ServiceError("unknown_table", N_("There is no online match with that code."))
    return normal


@bp.post("/online/<code>/invitation")
def online_invitation(code):
    def work():
        body, normal = json_body(N_("Send a JSON object with the link's secret.")), _code(code)
        if body.get("accept") is True:
            seated = service().accept(normal, body.get("secret"), body.get("name"))
            services().notifier.table_changed(normal)  # the creator's phone sees the start
            return seated
        return service().invitation(normal, body.get("secret"))
    return _answer(work, code)


@bp.post("/online/<code>/resume")
def online_resume(code):
    return _answer(lambda: service().resume(_code(code), json_body(N_("Send a JSON object with the link's secret.")).get("secret")),
                   code)


@bp.post("/online/<code>/new-link")
def online_new_link(code):
    def work():
        made = service().new_link(_code(code), json_body(N_("Send a JSON object with the link's secret.")).get("secret"))
        # The sockets still holding the old link's seat token, in every process, lose the seat.
        services().notifier.link_replaced(made.pop("replaced"))
        return made
    return _answer(work, code)
