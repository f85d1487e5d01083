"""The guided demo and quick starts from the home page (on the player blueprint):
POST /demo/<game> opens the guided demo, POST /demo/<game>/<start> another quick
start (app/demo.py), without an account. The answer is a page that
stores the visitor's seat token in localStorage, as a join does, and moves on to
the phone page, which resumes the seat: the token travels only in this POST's
answer (never a URL, so never a server log) and the page is not cached."""
from __future__ import annotations

import hmac

from flask import abort, current_app, make_response, render_template, request, session

from app.demo import DemoLimited, demo_games
from app.netaddr import client_address
from app.player import bp
from app.tables import ServiceError


@bp.app_context_processor
def _demo_helpers():
    return {"demo_games": demo_games}


def check_form_csrf() -> None:
    sent, expected = request.form.get("csrf", ""), session.get("csrf", "")
    if not expected or not hmac.compare_digest(sent, expected):
        abort(400, "The page expired. Go back, reload the page and try again.")


def limited_page(exc: DemoLimited):
    response = make_response(render_template("demo_limited.html", message=exc.message), 429)
    response.headers["Retry-After"] = "600" if exc.scope == "client" else "120"
    return response


@bp.post("/demo/<game>")
def open_demo(game):
    return open_start(game, "demo")


@bp.post("/demo/<game>/<start>")
def open_start(game, start):
    check_form_csrf()
    try:
        opened = current_app.extensions["demos"].open(game, client_address(), start)
    except DemoLimited as exc:
        return limited_page(exc)
    except ServiceError as exc:
        if exc.code == "bad_request":
            abort(404)
        raise
    current_app.extensions["notifier"].table_changed(opened["code"])  # schedules the computers' moves
    response = make_response(render_template("demo_start.html", code=opened["code"], token=opened["token"]), 201)
    response.headers["Cache-Control"] = "no-store"
    return response
