"""Student-facing pages: enter a code, join with a name, play; and the projected board."""
from __future__ import annotations

import io

import qrcode
import qrcode.image.svg
from flask import (Blueprint, Response, abort, g, make_response, redirect, render_template, request,
                   session, url_for)

from app.edge.netaddr import client_address, join_url
from app.errors import ServiceError
from app.extensions import services
from app.store.models import GameTable

bp = Blueprint("player", __name__)


def page_language() -> str:
    """The language of the page being drawn (app/i18n: a board's chosen one, else the reader's)."""
    from flask import has_request_context

    from app import i18n

    if not has_request_context():
        return i18n.DEFAULT
    return getattr(g, "page_lang", None) or i18n.from_request(request)


@bp.app_template_filter("localize")
def _localize(text, game=None):
    """`{{ error|localize }}`: a platform (or game) text the server wrote in English, in the page's
    language (app/i18n matches it against the catalogs); English and unknown texts unchanged."""
    from app import i18n

    return i18n.localize(text, page_language(), game) if isinstance(text, str) and text else text


def _lookup(code: str):
    """(kind, record) for a table or class code, or None."""
    table = services().tables.find(code)
    if table is not None:
        return "table", table
    klass = services().classes.find(code)
    if klass is not None:
        return "class", klass
    return None


def limited(message: str, page: str = "error.html", **context):
    """The answer to an address over a limit (app/edge/guard.py): 429, try again in a minute."""
    if page == "error.html":
        context = {"title": N_("Too many tries"), "message": message}
    response = make_response(render_template(page, **context), 429)
    response.headers["Retry-After"] = "60"
    return response


def guarded(raw, find=_lookup, *, page: str = "error.html"):
    """(normal code or None, what `find` says of it or None): every anonymous page that
    takes a code looks it up here. A well-formed code that names nothing counts against
    this address (app/edge/guard.py); an address over the limit gets the 429 page instead."""
    # A teacher is let past the brake only while logged in: a cookie from before a
    # logout still names the teacher, but no longer logs anyone in (accounts.from_session).
    teacher = services().accounts.from_session(session) is not None
    try:
        return services().guard.look_up(client_address(), raw, find, facilitator=teacher)
    except ServiceError as exc:
        abort(limited(exc.message, page, error=exc.message, entered=raw if isinstance(raw, str) else ""))


@bp.get("/")
def home():
    raw = request.args.get("code")
    error = None
    if raw is not None:
        code, found = guarded(raw, page="home.html")
        if found:
            return redirect(url_for("player.join", code=code))
        error = N_("There is no table with that code. Check the letters on the board and try again.")
    return render_template("home.html", error=error, entered=raw or ""), (404 if error else 200)


@bp.get("/join/<code>")
def join(code):
    normal, found = guarded(code, page="home.html")
    if found is None:
        return render_template("home.html", error=N_("There is no table with the code {code}.").format(code=code),
                               entered=code), 404
    if normal != code:
        return redirect(url_for("player.join", code=normal))
    kind, record = found
    return render_template("play.html", code=normal, kind=kind, game=record.game, closed=_closed_reason(record),
                           ended_note=_ended_note(kind, record))


def _ended_note(kind: str, record) -> str:
    """What the phone page says of a game that ended by itself rather than by play
    (an online match whose deadline passed), or ""."""
    if kind != "table" or record.status != "ended" or record.facilitator_id is not None:
        return ""
    online = services().online
    if online.is_online(record.code) and online.expired(record.code):
        from app import engines
        return online.expired_message(engines.spec(record.game))
    return ""


def _closed_reason(record) -> str:
    """Why a newcomer cannot join (shown at once instead of the name form), or "".
    A student who already has a seat here still resumes it: the page checks that first."""
    if record.status == "ended":
        return _ended_note("table", record) if isinstance(record, GameTable) and _ended_note("table", record) \
            else N_("This game has already ended.")
    if isinstance(record, GameTable):  # a class keeps seating late arrivals while it plays
        if record.locked:
            return N_("This table is locked by the teacher.")
        if record.status == "playing":
            return N_("This game has already started. Ask your teacher for a new code.")
    return ""


@bp.get("/board/<code>")
def board(code):
    normal, found = guarded(code)
    if found is None:
        abort(404)
    kind, record = found
    g.page_lang = record.language or "en"  # the board speaks the language the teacher chose (app/i18n)
    if kind == "class":  # the projected class board: every table of the class session
        from app import engines
        return render_template("classes/board.html", code=normal, game=record.game,
                               title=engines.spec(record.game).title, join_url=join_url(normal))
    return render_template("board.html", code=normal, kind=kind, game=record.game, join_url=join_url(normal))


@bp.get("/qr/<code>.svg")
def qr(code):
    normal, found = guarded(code)
    if found is None:
        abort(404)
    image = qrcode.make(join_url(normal), image_factory=qrcode.image.svg.SvgPathImage, box_size=20, border=2)
    buf = io.BytesIO()
    image.save(buf)
    return Response(buf.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})
from app.player import hotseat as _hotseat  # noqa: E402,F401  (the hotseat device page on this blueprint)
from app.player import demo as _demo  # noqa: E402,F401  (the guided demo from the home page)
from app.player import gallery as _gallery  # noqa: E402,F401  (the public card gallery)
from app.player import online as _online  # noqa: E402,F401  (online matches: invitation and resume links)
from app.engines.text import N_
