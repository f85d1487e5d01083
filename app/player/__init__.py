"""Student-facing pages: enter a code, join with a name, play; and the projected board."""
from __future__ import annotations

import io

import qrcode
import qrcode.image.svg
from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, url_for

from app.models import GameTable
from app.netaddr import join_url
from app.security import normalize_code

bp = Blueprint("player", __name__)


def _lookup(code: str):
    """(kind, record) for a table or class code, or (None, None)."""
    table = current_app.extensions["tables"].find(code)
    if table is not None:
        return "table", table
    klass = current_app.extensions["classes"].find(code)
    if klass is not None:
        return "class", klass
    return None, None


@bp.get("/")
def home():
    raw = request.args.get("code")
    error = None
    if raw is not None:
        code = normalize_code(raw)
        if code and _lookup(code)[0]:
            return redirect(url_for("player.join", code=code))
        error = "There is no table with that code. Check the letters on the board and try again."
    return render_template("home.html", error=error, entered=raw or ""), (404 if error else 200)


@bp.get("/join/<code>")
def join(code):
    normal = normalize_code(code)
    kind, record = _lookup(normal) if normal else (None, None)
    if kind is None:
        return render_template("home.html", error=f"There is no table with the code {code}.",
                               entered=code), 404
    if normal != code:
        return redirect(url_for("player.join", code=normal))
    return render_template("play.html", code=normal, kind=kind, game=record.game, closed=_closed_reason(record),
                           ended_note=_ended_note(kind, record))


def _ended_note(kind: str, record) -> str:
    """What the phone page says of a game that ended by itself rather than by play
    (an online match whose deadline passed), or ""."""
    if kind != "table" or record.status != "ended" or record.facilitator_id is not None:
        return ""
    online = current_app.extensions["online"]
    if online.is_online(record.code) and online.expired(record.code):
        from app import engines
        return online.expired_message(engines.spec(record.game))
    return ""


def _closed_reason(record) -> str:
    """Why a newcomer cannot join (shown at once instead of the name form), or "".
    A student who already has a seat here still resumes it: the page checks that first."""
    if record.status == "ended":
        return _ended_note("table", record) if isinstance(record, GameTable) and _ended_note("table", record) \
            else "This game has already ended."
    if isinstance(record, GameTable):  # a class keeps seating late arrivals while it plays
        if record.locked:
            return "This table is locked by the teacher."
        if record.status == "playing":
            return "This game has already started. Ask your teacher for a new code."
    return ""


@bp.get("/board/<code>")
def board(code):
    normal = normalize_code(code)
    kind, record = _lookup(normal) if normal else (None, None)
    if kind is None:
        abort(404)
    if kind == "class":  # the projected class board: every table of the class session
        from app import engines
        return render_template("classes/board.html", code=normal, game=record.game,
                               title=engines.spec(record.game).title, join_url=join_url(normal))
    return render_template("board.html", code=normal, kind=kind, game=record.game, join_url=join_url(normal))


@bp.get("/qr/<code>.svg")
def qr(code):
    normal = normalize_code(code)
    if normal is None or _lookup(normal)[0] is None:
        abort(404)
    image = qrcode.make(join_url(normal), image_factory=qrcode.image.svg.SvgPathImage, box_size=20, border=2)
    buf = io.BytesIO()
    image.save(buf)
    return Response(buf.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})
from app.player import hotseat as _hotseat  # noqa: E402,F401  (the hotseat device page on this blueprint)
from app.player import demo as _demo  # noqa: E402,F401  (the guided demo from the home page)
from app.player import gallery as _gallery  # noqa: E402,F401  (the public card gallery)
from app.player import online as _online  # noqa: E402,F401  (online matches: invitation and resume links)
