"""Reports and exports (registered on the api blueprint). Like the class API, each
accepts a Bearer token or the logged-in facilitator's session cookie (the dashboard's
links), and serves only the facilitator's own tables and classes.

    GET /api/tables/<CODE>/debrief.pdf   ?version=student  ?paper=a4|letter
    GET /api/tables/<CODE>/log.json | log.csv | notes.csv
    GET /api/classes/<CODE>/debrief.pdf  ?version=student  ?paper=a4|letter
    GET /api/classes/<CODE>/log.json | log.csv | notes.csv
    GET /api/playtest.pdf | playtest.csv  ?game=<key>&from=YYYY-MM-DD&to=YYYY-MM-DD
    POST /api/preferences {paper: "a4" | "letter"}

The paper size defaults to the teacher's remembered choice (facilitator.paper).
"""
from __future__ import annotations

from datetime import date, timedelta

from flask import Response, current_app, g, jsonify, request

from app import engines
from app.accounts import AccountError
from app.api import _body, bp
from app.api.classes import _owned, facilitator_required
from app.tables import ServiceError


def _tables():
    return current_app.extensions["tables"]


def _paper() -> str:
    wanted = request.args.get("paper", "")
    return wanted if wanted in ("a4", "letter") else (getattr(g.facilitator, "paper", None) or "a4")


def _student() -> bool:
    return request.args.get("version", "") == "student"


def _file(body, mimetype: str, name: str) -> Response:
    return Response(body, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{name}"',
                                                      "Cache-Control": "no-store"})


def _table(code: str) -> str:
    code = code.strip().upper()
    _tables().owned(code, g.facilitator.id)
    return code


@bp.get("/tables/<code>/debrief.pdf")
@facilitator_required
def table_debrief(code):
    code = _table(code)
    from app.reports import debrief_pdf
    suffix = "-student" if _student() else ""
    return _file(debrief_pdf(_tables(), code, student=_student(), paper=_paper()), "application/pdf",
                 f"debrief-{code}{suffix}.pdf")


@bp.get("/tables/<code>/log.json")
@facilitator_required
def table_log(code):
    return jsonify(_tables().log_json(_table(code)))


@bp.get("/tables/<code>/log.csv")
@facilitator_required
def table_log_csv(code):
    from app.reports.exports import log_csv
    code = _table(code)
    return _file(log_csv([_tables().log_json(code)]), "text/csv", f"log-{code}.csv")


@bp.get("/tables/<code>/notes.csv")
@facilitator_required
def table_notes_csv(code):
    from app.reports.exports import notes_csv
    code = _table(code)
    return _file(notes_csv([_tables().log_json(code)]), "text/csv", f"notes-{code}.csv")


@bp.get("/classes/<code>/debrief.pdf")
@facilitator_required
def class_debrief(code):
    klass = _owned(code)
    from app.reports.classes import class_debrief_pdf
    suffix = "-student" if _student() else ""
    pdf = class_debrief_pdf(current_app.extensions["classes"], _tables(), klass.code, student=_student(),
                            paper=_paper())
    return _file(pdf, "application/pdf", f"class-debrief-{klass.code}{suffix}.pdf")


def _class_logs(code: str) -> tuple[str, list]:
    from app.reports.exports import class_logs
    klass = _owned(code)
    return klass.code, class_logs(current_app.extensions["classes"], _tables(), klass.code)


@bp.get("/classes/<code>/log.json")
@facilitator_required
def class_log(code):
    code, logs = _class_logs(code)
    return jsonify({"code": code, "tables": logs})


@bp.get("/classes/<code>/log.csv")
@facilitator_required
def class_log_csv(code):
    from app.reports.exports import log_csv
    code, logs = _class_logs(code)
    return _file(log_csv(logs), "text/csv", f"class-log-{code}.csv")


@bp.get("/classes/<code>/notes.csv")
@facilitator_required
def class_notes_csv(code):
    from app.reports.exports import notes_csv
    code, logs = _class_logs(code)
    return _file(notes_csv(logs), "text/csv", f"class-notes-{code}.csv")


def _playtest_args():
    from app.reports.playtest import parse_day
    game = request.args.get("game", "")
    if game not in engines.keys():
        raise ServiceError("bad_request", "Choose a game for the playtest report.")
    today = date.today()
    end = parse_day(request.args.get("to"), today)
    start = parse_day(request.args.get("from"), end - timedelta(days=30))
    if start > end:
        start, end = end, start
    return game, start, end


@bp.get("/playtest.pdf")
@facilitator_required
def playtest_report():
    from app.reports.playtest import playtest_pdf
    game, start, end = _playtest_args()
    pdf = playtest_pdf(_tables(), current_app.extensions["db"], g.facilitator.id, game, start, end, paper=_paper())
    return _file(pdf, "application/pdf", f"playtest-{game}-{start}-{end}.pdf")


@bp.get("/playtest.csv")
@facilitator_required
def playtest_report_csv():
    from app.reports.playtest import playtest_csv
    game, start, end = _playtest_args()
    return _file(playtest_csv(_tables(), current_app.extensions["db"], g.facilitator.id, game, start, end),
                 "text/csv", f"playtest-{game}-{start}-{end}.csv")


@bp.post("/preferences")
@facilitator_required
def preferences():
    body = _body()
    try:
        paper = current_app.extensions["accounts"].set_paper(g.facilitator.id, body.get("paper"))
    except AccountError as exc:
        raise ServiceError("bad_request", str(exc))
    return jsonify({"paper": paper})
