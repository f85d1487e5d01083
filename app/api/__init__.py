"""The facilitator JSON API (Bearer token from POST /api/login)."""
from __future__ import annotations

import functools

from flask import Blueprint, current_app, g, jsonify, request, url_for

from app import engines
from app.netaddr import join_url
from app.security import has_nul
from app.tables import ServiceError

bp = Blueprint("api", __name__)

HTTP_STATUS = {"bad_request": 400, "forbidden": 403, "unknown_table": 404, "not_joined": 401,
               "stale": 409, "illegal": 422, "game_over": 409, "table_full": 409, "name_taken": 409,
               "not_your_turn": 409, "rate_limited": 429}


@bp.errorhandler(ServiceError)
def _service_error(exc: ServiceError):
    return jsonify({"ok": False, "error": exc.to_json()}), HTTP_STATUS.get(exc.code, 400)


def token_required(view):
    @functools.wraps(view)
    def wrapped(**kwargs):
        header = request.headers.get("Authorization", "")
        token = header[7:] if header.startswith("Bearer ") else ""
        g.facilitator = current_app.extensions["accounts"].by_token(token)
        if g.facilitator is None:
            return jsonify({"ok": False, "error": {"code": "forbidden",
                                                   "message": "Log in first (POST /api/login)."}}), 401
        return view(**kwargs)

    return wrapped


def _body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ServiceError("bad_request", "Send a JSON object.")
    if has_nul(body):
        raise ServiceError("bad_request", "Text cannot contain a NUL character or broken Unicode.")
    return body


@bp.post("/login")
def login():
    body = _body()
    fac = current_app.extensions["accounts"].authenticate(str(body.get("name", "")), str(body.get("password", "")))
    if fac is None:
        return jsonify({"ok": False, "error": {"code": "forbidden", "message": "Wrong name or password."}}), 401
    return jsonify({"token": current_app.extensions["accounts"].issue_token(fac.id)})


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
    body = _body()
    options = body.get("options") or {}
    if not isinstance(options, dict) or not isinstance(body.get("game"), str):
        raise ServiceError("bad_request", "Send {game, options}.")
    if body.get("banks"):  # {upload kind: the id of one of my banks}: its items fill the upload's option
        if not isinstance(body["banks"], dict):
            raise ServiceError("bad_request", "banks maps an upload kind to one of your bank ids.")
        options = current_app.extensions["banks"].with_banks(g.facilitator.id, body["game"], options, body["banks"])
    table = current_app.extensions["tables"].create_table(g.facilitator.id, body["game"], options)
    return jsonify({"code": table.code, "board_url": url_for("player.board", code=table.code, _external=True),
                    "join_url": join_url(table.code)}), 201


@bp.get("/tables/<code>")
@token_required
def get_table(code):
    tables = current_app.extensions["tables"]
    tables.owned(code, g.facilitator.id)
    return jsonify(tables.summary(code))


from app.api import classes as _classes  # noqa: E402,F401  (class-session endpoints on this blueprint)
from app.api import reports as _reports  # noqa: E402,F401  (debriefs, playtest reports and exports)
