"""Facilitator pages for local hotseat play (on the facilitator blueprint): create a
hotseat table from the dashboard and show its one-time link and QR code.

The page with the link is the answer to a POST and is never cached: the link's
secret is in its fragment, which no request line (so no server log) carries."""
from __future__ import annotations

import base64
import io

import qrcode
import qrcode.image.svg
from flask import abort, flash, g, make_response, redirect, render_template, request, url_for

from app import engines
from app.edge.netaddr import base_url
from app.errors import ServiceError
from app.extensions import services
from app.facilitator import game_or_404, bp, form_lesson_minutes, form_options, login_required
from app.service import hotseat


def service() -> hotseat.HotseatService:
    return hotseat.HotseatService(services().tables)


@bp.app_context_processor
def _hotseat_helpers():
    def hotseat_games() -> list[dict]:
        """The dashboard's hotseat forms: every game two or more can play, with its player range."""
        out = []
        for game in engines.games():
            spec = engines.spec(game["key"])
            if game["playable"] and hotseat.supports(spec):
                lo, hi = hotseat.player_range(spec)
                out.append(dict(game, hotseat_min=lo, hotseat_max=hi))
        return out

    return {"hotseat_games": hotseat_games}


def _link_page(code: str, secret: str, *, status: int = 200):
    table = services().tables.get(code)
    link = f"{base_url()}/hotseat/{code}#{secret}"
    image = qrcode.make(link, image_factory=qrcode.image.svg.SvgPathImage, box_size=20, border=2)
    buf = io.BytesIO()
    image.save(buf)
    qr = "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode()
    seats = services().tables.seats(code)
    response = make_response(render_template(
        "facilitator/hotseat.html", table=table, link=link, qr=qr, names=[x.name for x in seats],
        title=engines.spec(table.game).title), status)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/hotseat")
@login_required
def create_hotseat():
    game = request.form.get("game", "")
    try:
        game_or_404(game)
        options = form_options(game)
        names = [request.form.get(f"player{i}", "") for i in range(1, hotseat.MAX_PLAYERS + 1)]
        code, secret = service().create(g.facilitator.id, game, options, names, form_lesson_minutes())
    except ServiceError as exc:
        flash(exc.message)
        return redirect(url_for("facilitator.dashboard") + "#hotseat-title")
    return _link_page(code, secret, status=201)


@bp.get("/hotseat/<code>")
@login_required
def hotseat_table(code):
    """A hotseat table's page without its secret (that was shown once): make a new link."""
    try:
        table = services().tables.owned(code, g.facilitator.id)
    except ServiceError:
        abort(404)
    if not service().is_hotseat(code):
        abort(404)
    seats = services().tables.seats(code)
    return render_template("facilitator/hotseat.html", table=table, link=None, qr=None,
                           names=[x.name for x in seats], title=engines.spec(table.game).title)


@bp.post("/hotseat/<code>/link")
@login_required
def hotseat_relink(code):
    try:
        secret = service().relink(g.facilitator.id, code)
    except ServiceError as exc:
        if exc.code in ("forbidden", "unknown_table"):
            abort(404)
        flash(exc.message)
        return redirect(url_for("facilitator.hotseat_table", code=code))
    return _link_page(code, secret)
