"""The hotseat device's page (on the player blueprint): /hotseat/<CODE>, whose
fragment holds the one-time secret, and the claim that trades it for the seats'
tokens (see app/service/hotseat.py). The tokens travel only in this POST's answer."""
from __future__ import annotations

from flask import abort, jsonify, render_template, request

from app.edge.netaddr import client_address
from app.edge.security import normalize_code
from app.errors import ServiceError
from app.extensions import services
from app.player import bp, guarded
from app.service.hotseat import HotseatService
from app.engines.text import N_

STATUS = {"bad_request": 400, "unknown_table": 404, "forbidden": 403, "rate_limited": 429}


@bp.get("/hotseat/<code>")
def hotseat(code):
    normal, record = guarded(code, services().tables.find)
    if record is None:
        abort(404)
    return render_template("hotseat.html", code=normal, game=record.game)


@bp.post("/hotseat/<code>/claim")
def hotseat_claim(code):
    normal = normalize_code(code)
    body = request.get_json(silent=True)
    try:
        if normal is None:
            raise ServiceError("unknown_table", N_("There is no table with that code."))
        if not isinstance(body, dict):
            raise ServiceError("bad_request", N_("The claim is a JSON object with the link's secret."))
        seats = services().guard.counting(client_address(), lambda: HotseatService(
            services().tables).claim(normal, body.get("secret")))
    except ServiceError as exc:
        response = jsonify({"ok": False, "error": exc.to_json()})
        response.status_code = STATUS.get(exc.code, 400)
    else:
        response = jsonify({"ok": True, "table": normal, "seats": seats})
    response.headers["Cache-Control"] = "no-store"
    return response
