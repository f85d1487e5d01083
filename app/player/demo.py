"""The guided demo and quick starts from the home page (on the player blueprint):
POST /demo/<game> opens the guided demo, POST /demo/<game>/<start> another quick
start (app/service/demo.py), without an account. The answer is a page that
stores the visitor's seat token in localStorage, as a join does, and moves on to
the phone page, which resumes the seat: the token travels only in this POST's
answer (never a URL, so never a server log) and the page is not cached."""
from __future__ import annotations

from flask import abort, make_response, render_template, request

from app.edge.csrf import check_csrf
from app.edge.netaddr import client_address
from app.errors import ServiceError
from app.extensions import services
from app.player import bp, page_language
from app.service.demo import DemoLimited, demo_games


def localized_demo_games() -> list[dict]:
    """demo_games() with each game's title, labels and blurbs in the page's language (the game's
    catalog and data files, app/i18n); English unchanged."""
    from app import i18n

    games = demo_games()
    lang = page_language()
    if lang == i18n.DEFAULT:
        return games

    def texts(entry: dict | None, key: str) -> dict | None:
        if not entry:
            return entry
        return {k: (i18n.localize(v, lang, key) if k in ("title", "label", "blurb") and isinstance(v, str) else v)
                for k, v in entry.items()}

    out = []
    for game in games:
        key = game["key"]
        game = texts(game, key)
        game["starts"] = [texts(start, key) for start in game["starts"]]
        game["online"] = texts(game["online"], key)
        out.append(game)
    return out


@bp.app_context_processor
def _demo_helpers():
    return {"demo_games": localized_demo_games}


def limited_page(exc: DemoLimited):
    response = make_response(render_template("demo_limited.html", message=exc.message), 429)
    response.headers["Retry-After"] = "600" if exc.scope == "client" else "120"
    return response


@bp.post("/demo/<game>")
def open_demo(game):
    return open_start(game, "demo")


@bp.post("/demo/<game>/<start>")
def open_start(game, start):
    check_csrf(request.form.get("csrf"))
    try:
        opened = services().demos.open(game, client_address(), start)
    except DemoLimited as exc:
        return limited_page(exc)
    except ServiceError as exc:
        if exc.code == "bad_request":
            abort(404)
        raise
    services().notifier.table_changed(opened["code"])  # schedules the computers' moves
    response = make_response(render_template("demo_start.html", code=opened["code"], token=opened["token"]), 201)
    response.headers["Cache-Control"] = "no-store"
    return response
