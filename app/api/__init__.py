"""The facilitator JSON API (Bearer token from POST /api/login)."""
from __future__ import annotations

import functools

from flask import Blueprint, current_app, g, jsonify, request, url_for

from app import engines
from app.edge.netaddr import client_address, join_url
from app.edge.security import json_body
from app.errors import ServiceError
from app.extensions import services
from app.service.accounts import DEVICE_COOKIE, LoginLimited

bp = Blueprint("api", __name__)

HTTP_STATUS = {"bad_request": 400, "forbidden": 403, "unknown_table": 404, "not_joined": 401,
               "stale": 409, "illegal": 422, "game_over": 409, "table_full": 409, "name_taken": 409,
               "not_your_turn": 409, "rate_limited": 429, "unavailable": 503}


@bp.errorhandler(ServiceError)
def _service_error(exc: ServiceError):
    return jsonify({"ok": False, "error": exc.to_json()}), HTTP_STATUS.get(exc.code, 400)


def token_required(view):
    @functools.wraps(view)
    def wrapped(**kwargs):
        header = request.headers.get("Authorization", "")
        token = header[7:] if header.startswith("Bearer ") else ""
        owner = services().accounts.token_owner(token)
        g.facilitator, g.api_token_id = owner or (None, None)
        if g.facilitator is None:
            return jsonify({"ok": False, "error": {"code": "forbidden",
                                                   "message": "Log in first (POST /api/login): no token, "
                                                              "or it has expired or been revoked."}}), 401
        return view(**kwargs)

    return wrapped


@bp.post("/login")
def login():
    body = json_body()
    accounts = services().accounts
    name, device = str(body.get("name", "")), request.cookies.get(DEVICE_COOKIE)
    try:
        fac = accounts.authenticate(name, str(body.get("password", "")), client_address(), device)
    except LoginLimited as exc:
        return jsonify({"ok": False, "error": {"code": "rate_limited", "message": str(exc),
                                               "retry_after": exc.retry_after}}), 429, \
            {"Retry-After": str(exc.retry_after)}
    if fac is None:
        return jsonify({"ok": False, "error": {"code": "forbidden", "message": "Wrong name or password."}}), 401
    token = accounts.issue_token(fac.id)
    response = jsonify({"token": token, "expires_at": accounts.tokens_of(fac.id)[0].expires_at.isoformat()})
    accounts.remember_browser(response, name, device, secure=current_app.config["SESSION_COOKIE_SECURE"])
    return response


@bp.post("/logout")
@token_required
def logout():
    """Revoke the token this request was made with."""
    services().accounts.revoke_token(g.facilitator.id, g.api_token_id)
    return jsonify({"ok": True})


@bp.get("/tokens")
@token_required
def list_tokens():
    """My API tokens that still work (ids and dates; never a token itself)."""
    return jsonify({"tokens": [{"id": t.id, "created_at": t.created_at.isoformat(),
                                "last_used_at": t.last_used_at.isoformat() if t.last_used_at else None,
                                "expires_at": t.expires_at.isoformat(), "current": t.id == g.api_token_id}
                               for t in services().accounts.tokens_of(g.facilitator.id)]})


@bp.delete("/tokens/<int:token_id>")
@token_required
def revoke_token(token_id):
    if not services().accounts.revoke_token(g.facilitator.id, token_id):
        return jsonify({"ok": False, "error": {"code": "bad_request", "message": "You have no token with that id."}}), 404
    return jsonify({"ok": True})


@bp.get("/games")
def games():
    return jsonify(engines.games())


@bp.get("/games/<key>/rulings")
def rulings(key):
    """A game's ruling catalogue, for players to read (a game's Table tab) and for reports."""
    if key not in engines.keys():
        # One of the protocol's codes (DESIGN.md), in the API's error body, like every refusal.
        return jsonify(ok=False, error={"code": "bad_request", "message": "There is no such game."}), 404
    spec = engines.spec(key)
    version = spec.data_versions.get("rulings.json", "")
    return jsonify(game=key, title=spec.title, version=version, rulings=list(spec.rulings))


@bp.post("/tables")
@token_required
def create_table():
    body = json_body()
    options = body.get("options") or {}
    if not isinstance(options, dict) or not isinstance(body.get("game"), str):
        raise ServiceError("bad_request", "Send {game, options}.")
    notes: list[str] = []  # a bank used whole (too few items in the board language) says so
    if body.get("banks"):  # {upload kind: the id of one of my banks}: its items fill the upload's option
        if not isinstance(body["banks"], dict):
            raise ServiceError("bad_request", "banks maps an upload kind to one of your bank ids.")
        options = services().banks.with_banks(g.facilitator.id, body["game"], options, body["banks"],
                                              language=body.get("language", "en"), notes=notes)
    table = services().tables.create_table(g.facilitator.id, body["game"], options,
                                           name_filter=body.get("name_filter", True),
                                           text_approval=body.get("text_approval", False),
                                           lesson_minutes=body.get("lesson_minutes", 0),
                                           language=body.get("language", "en"))
    return jsonify({"code": table.code, "board_url": url_for("player.board", code=table.code, _external=True),
                    "join_url": join_url(table.code), **({"notes": notes} if notes else {})}), 201


@bp.get("/tables/<code>")
@token_required
def get_table(code):
    tables = services().tables
    tables.owned(code, g.facilitator.id)
    return jsonify(tables.summary(code))


@bp.delete("/tables/<code>")
@token_required
def delete_table(code):
    """Delete the table and everything recorded about it (app/service/privacy.py)."""
    deleted = services().privacy.delete_table(g.facilitator.id, code.strip().upper())
    services().notifier.deleted(deleted)
    return jsonify({"ok": True, "deleted": deleted.codes})


from app.api import classes as _classes  # noqa: E402,F401  (class-session endpoints on this blueprint)
from app.api import reports as _reports  # noqa: E402,F401  (debriefs, playtest reports and exports)
