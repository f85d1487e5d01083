"""The class-session JSON API (registered on the api blueprint, under /api/classes).

Every endpoint accepts EITHER `Authorization: Bearer <token>` (scripts, tests)
OR the logged-in facilitator's session cookie (the overview page's fetch
calls). A cookie is sent by the browser automatically, so a state-changing
request that relies on it must also carry the `X-CSRF-Token` header equal to
the session's CSRF token (facilitator pages expose it in a <meta> tag).
"""
from __future__ import annotations

import functools

from flask import g, jsonify, request, session, url_for

from app.api import bp
from app.edge.security import json_body
from app.edge.csrf import check_csrf
from app.edge.netaddr import join_url
from app.errors import ServiceError
from app.extensions import services


def facilitator_required(view):
    @functools.wraps(view)
    def wrapped(**kwargs):
        accounts = services().accounts
        header = request.headers.get("Authorization", "")
        if header.startswith("Bearer "):
            g.facilitator = accounts.by_token(header[7:])
        else:
            g.facilitator = accounts.from_session(session)
            if g.facilitator is not None and request.method not in ("GET", "HEAD"):
                check_csrf(request.headers.get("X-CSRF-Token"))  # a 400 `bad_request` (app/edge/csrf.py)
        if g.facilitator is None:
            return jsonify({"ok": False, "error": {"code": "forbidden",
                                                   "message": "Log in first (POST /api/login)."}}), 401
        return view(**kwargs)

    return wrapped


def _code(raw: str) -> str:
    return raw.strip().upper()


def owned_class(code: str):
    return services().classes.owned(_code(code), g.facilitator.id)


def _optional_body() -> dict:
    """Actions on every table may come without a body at all."""
    if not request.get_data():
        return {}
    return json_body()


def _done(code: str, result: dict):
    """Broadcast what changed, then answer with the class as it is now plus the
    table codes the action changed (`changed`, and for a start `started`)."""
    services().notifier.class_changed(code, result)
    extra = {key: value for key, value in result.items() if key not in ("moved", "outcomes")}
    return jsonify(dict(services().classes.summary(code), **extra))


@bp.post("/classes")
@facilitator_required
def create_class():
    body = json_body()
    options = body.get("options")
    notes: list[str] = []  # a bank used whole (too few items in the board language) says so
    if body.get("banks"):  # {upload kind: the id of one of my banks}, as for POST /api/tables
        if not isinstance(body["banks"], dict) or not isinstance(options or {}, dict):
            raise ServiceError("bad_request", "banks maps an upload kind to one of your bank ids.")
        options = services().banks.with_banks(g.facilitator.id, body.get("game"), options or {},
                                              body["banks"], language=body.get("language", "en"), notes=notes)
    klass = services().classes.create(g.facilitator.id, body.get("game"), options, body.get("table_size"),
                                      body.get("fill_with_computer", False), body.get("name_filter", True),
                                      body.get("text_approval", False), body.get("lesson_minutes", 0),
                                      body.get("language", "en"))
    return jsonify({"code": klass.code,
                    "overview_url": url_for("facilitator.class_overview", code=klass.code, _external=True),
                    "board_url": url_for("player.board", code=klass.code, _external=True),
                    "join_url": join_url(klass.code), **({"notes": notes} if notes else {})}), 201


@bp.get("/classes/<code>")
@facilitator_required
def get_class(code):
    klass = owned_class(code)
    return jsonify(services().classes.summary(klass.code))


@bp.get("/classes/<code>/overview")
@facilitator_required
def class_overview(code):
    klass = owned_class(code)
    return jsonify(services().classes.overview(klass.code))


@bp.post("/classes/<code>/start")
@facilitator_required
def start_class(code):
    klass = owned_class(code)
    return _done(klass.code, services().classes.start(g.facilitator.id, klass.code))


@bp.post("/classes/<code>/move")
@facilitator_required
def move_student(code):
    body = json_body()
    klass = owned_class(code)
    result = services().classes.move(g.facilitator.id, klass.code, body.get("table"), body.get("seat"), body.get("to"),
                                     body.get("version"))
    return _done(klass.code, result)


@bp.post("/classes/<code>/tables/<table>/start")
@facilitator_required
def start_one_table(code, table):
    klass = owned_class(code)
    return _done(klass.code, services().classes.start_table(g.facilitator.id, klass.code, _code(table)))


@bp.post("/classes/<code>/tables/<table>/computer")
@facilitator_required
def add_computer(code, table):
    klass = owned_class(code)
    return _done(klass.code, services().classes.add_computer(g.facilitator.id, klass.code, _code(table)))


def _steer(code: str, kind: str):
    body = _optional_body()
    klass = owned_class(code)
    table = body.get("table")
    return _done(klass.code, services().classes.moderate(g.facilitator.id, klass.code, kind,
                                                         _code(table) if isinstance(table, str) else table))


def _class_wide(code: str, change: str, *args):
    """One of the class service's class-wide changes (`change`, a method taking the
    facilitator's id and the class code, then `args`) on the teacher's own class."""
    klass = owned_class(code)
    return _done(klass.code, getattr(services().classes, change)(g.facilitator.id, klass.code, *args))


@bp.post("/classes/<code>/pause")
@facilitator_required
def pause_class(code):
    return _steer(code, "pause")


@bp.post("/classes/<code>/resume")
@facilitator_required
def resume_class(code):
    return _steer(code, "resume")


@bp.post("/classes/<code>/end")
@facilitator_required
def end_class(code):
    return _steer(code, "end")


@bp.post("/classes/<code>/lesson_more")
@facilitator_required
def lesson_more_class(code):
    """Five more minutes on the class's lesson clock, at every table of the class."""
    return _class_wide(code, "lesson_more")


@bp.post("/classes/<code>/again")
@facilitator_required
def play_again_all(code):
    """Play again for all: each finished table deals its rematch (same players, a new table)."""
    return _class_wide(code, "play_again_all")


@bp.post("/classes/<code>/round")
@facilitator_required
def new_round(code):
    """New round: the students of the finished tables re-seated at new tables, which start."""
    return _class_wide(code, "new_round")


@bp.post("/classes/<code>/notes")
@facilitator_required
def class_phone_notes(code):
    """Playtest notes from phones on ({"on": true}) or off for every table of the class."""
    return _class_wide(code, "set_phone_notes", json_body().get("on"))


@bp.post("/classes/<code>/message")
@facilitator_required
def message_class(code):
    body = json_body()
    klass = owned_class(code)
    text = services().classes.clean_message(body.get("text"))
    sent = services().notifier.message(klass.code, text)
    return jsonify({"ok": True, "text": text, "sent": sent})


@bp.delete("/classes/<code>")
@facilitator_required
def delete_class(code):
    """Delete the class, all its tables and everything recorded about them (app/service/privacy.py)."""
    deleted = services().privacy.delete_class(g.facilitator.id, _code(code))
    services().notifier.deleted(deleted)
    return jsonify({"ok": True, "deleted": deleted.class_code, "tables": deleted.codes})
