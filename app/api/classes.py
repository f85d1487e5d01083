"""The class-session JSON API (registered on the api blueprint, under /api/classes).

Every endpoint accepts EITHER `Authorization: Bearer <token>` (scripts, tests)
OR the logged-in facilitator's session cookie (the overview page's fetch
calls). A cookie is sent by the browser automatically, so a state-changing
request that relies on it must also carry the `X-CSRF-Token` header equal to
the session's CSRF token (facilitator pages expose it in a <meta> tag).
"""
from __future__ import annotations

import functools
import hmac

from flask import current_app, g, jsonify, request, session, url_for

from app.api import _body, bp
from app.netaddr import join_url
from app.tables import ServiceError


def facilitator_required(view):
    @functools.wraps(view)
    def wrapped(**kwargs):
        accounts = current_app.extensions["accounts"]
        header = request.headers.get("Authorization", "")
        if header.startswith("Bearer "):
            g.facilitator = accounts.by_token(header[7:])
        else:
            g.facilitator = accounts.from_session(session)
            if g.facilitator is not None and request.method not in ("GET", "HEAD"):
                sent, expected = request.headers.get("X-CSRF-Token", ""), session.get("csrf", "")
                if not expected or not hmac.compare_digest(sent, expected):
                    return jsonify({"ok": False, "error": {
                        "code": "forbidden", "message": "This page has expired. Reload it and try again."}}), 403
        if g.facilitator is None:
            return jsonify({"ok": False, "error": {"code": "forbidden",
                                                   "message": "Log in first (POST /api/login)."}}), 401
        return view(**kwargs)

    return wrapped


def _classes():
    return current_app.extensions["classes"]


def _code(raw: str) -> str:
    return raw.strip().upper()


def _owned(code: str):
    return _classes().owned(_code(code), g.facilitator.id)


def _optional_body() -> dict:
    """Actions on every table may come without a body at all."""
    if not request.get_data():
        return {}
    return _body()


def _done(code: str, result: dict):
    """Broadcast what changed, then answer with the class as it is now plus the
    table codes the action changed (`changed`, and for a start `started`)."""
    current_app.extensions["notifier"].class_changed(code, result)
    extra = {key: value for key, value in result.items() if key not in ("moved", "outcomes")}
    return jsonify(dict(_classes().summary(code), **extra))


@bp.post("/classes")
@facilitator_required
def create_class():
    body = _body()
    options = body.get("options")
    if body.get("banks"):  # {upload kind: the id of one of my banks}, as for POST /api/tables
        if not isinstance(body["banks"], dict) or not isinstance(options or {}, dict):
            raise ServiceError("bad_request", "banks maps an upload kind to one of your bank ids.")
        options = current_app.extensions["banks"].with_banks(g.facilitator.id, body.get("game"), options or {},
                                                             body["banks"])
    klass = _classes().create(g.facilitator.id, body.get("game"), options, body.get("table_size"),
                              body.get("fill_with_computer", False), body.get("name_filter", True))
    return jsonify({"code": klass.code,
                    "overview_url": url_for("facilitator.class_overview", code=klass.code, _external=True),
                    "board_url": url_for("player.board", code=klass.code, _external=True),
                    "join_url": join_url(klass.code)}), 201


@bp.get("/classes/<code>")
@facilitator_required
def get_class(code):
    klass = _owned(code)
    return jsonify(_classes().summary(klass.code))


@bp.get("/classes/<code>/overview")
@facilitator_required
def class_overview(code):
    klass = _owned(code)
    return jsonify(_classes().overview(klass.code))


@bp.post("/classes/<code>/start")
@facilitator_required
def start_class(code):
    klass = _owned(code)
    return _done(klass.code, _classes().start(g.facilitator.id, klass.code))


@bp.post("/classes/<code>/move")
@facilitator_required
def move_student(code):
    body = _body()
    klass = _owned(code)
    result = _classes().move(g.facilitator.id, klass.code, body.get("table"), body.get("seat"), body.get("to"),
                             body.get("version"))
    return _done(klass.code, result)


@bp.post("/classes/<code>/tables/<table>/start")
@facilitator_required
def start_one_table(code, table):
    klass = _owned(code)
    return _done(klass.code, _classes().start_table(g.facilitator.id, klass.code, _code(table)))


@bp.post("/classes/<code>/tables/<table>/computer")
@facilitator_required
def add_computer(code, table):
    klass = _owned(code)
    return _done(klass.code, _classes().add_computer(g.facilitator.id, klass.code, _code(table)))


def _steer(code: str, kind: str):
    body = _optional_body()
    klass = _owned(code)
    table = body.get("table")
    return _done(klass.code, _classes().moderate(g.facilitator.id, klass.code, kind,
                                                 _code(table) if isinstance(table, str) else table))


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


@bp.post("/classes/<code>/message")
@facilitator_required
def message_class(code):
    body = _body()
    klass = _owned(code)
    text = _classes().clean_message(body.get("text"))
    sent = current_app.extensions["notifier"].message(klass.code, text)
    return jsonify({"ok": True, "text": text, "sent": sent})


@bp.delete("/classes/<code>")
@facilitator_required
def delete_class(code):
    """Delete the class, all its tables and everything recorded about them (app/privacy.py)."""
    deleted = current_app.extensions["privacy"].delete_class(g.facilitator.id, _code(code))
    current_app.extensions["notifier"].deleted(deleted)
    return jsonify({"ok": True, "deleted": deleted.class_code, "tables": deleted.codes})
