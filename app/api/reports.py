"""Reports and exports (registered on the api blueprint). Like the class API, each
accepts a Bearer token or the logged-in facilitator's session cookie (the dashboard's
links), and serves only the facilitator's own tables and classes.

    GET /api/tables/<CODE>/debrief.pdf   ?version=student|designer  ?paper=a4|letter  ?tz=<IANA zone>
    GET /api/tables/<CODE>/log.json | log.csv | notes.csv
    GET /api/classes/<CODE>/debrief.pdf  ?version=student  ?paper=a4|letter  ?tz=<IANA zone>
    GET /api/classes/<CODE>/students.csv  one row per student  ?tz=<IANA zone>
    GET /api/classes/<CODE>/log.json | log.csv | notes.csv
    GET /api/playtest.pdf | playtest.csv  ?game=<key>&from=YYYY-MM-DD&to=YYYY-MM-DD  ?tz=<IANA zone>
                                          (pdf) ?lab=N: the balance lab, N games per level and setting
                                          (0 or absent: none; at most app.reports.lab.LAB_MAX), made
                                          while the request waits (minutes for a large N)
    POST   /api/playtest/jobs  ?game=&from=&to=&tz=&paper=&lab=N (1 to LAB_MAX): the same PDF made in
                               the background (app/reports/jobs.py); 202 {id, state, ...} at once
    GET    /api/playtest/jobs             my report jobs, newest first
    GET    /api/playtest/jobs/<id>        {state: running|done|failed|stopped, stage, played, games,
                                          percent, elapsed, left, message, lab_skipped, pdf_url}
    GET    /api/playtest/jobs/<id>/report.pdf   the PDF, once done
    DELETE /api/playtest/jobs/<id>        stop it (running) or forget it (finished)
    POST /api/preferences {paper: "a4" | "letter"}

A job is its teacher's only (any other id is a 404). A start is refused, and nothing
started, for a bad parameter (400), while the teacher's own lab runs (409, with that
job), or while REPORT_JOBS_MAX labs run in this process (429, Retry-After: try again
in a minute). A finished job is kept 30 minutes; a restart loses the jobs (404).

The paper size defaults to the teacher's remembered choice (facilitator.paper). Times
(and the playtest report's days) are in `tz` (the browser's zone, from the dashboard's
links; else the teacher's cg_tz cookie; else UTC); an unknown zone is a 400 that names
the parameter.
"""
from __future__ import annotations

from datetime import date, timedelta

from flask import Response, current_app, g, jsonify, request, url_for

from app import engines
from app.api import bp
from app.edge.security import json_body
from app.api.classes import owned_class, facilitator_required
from app.errors import ServiceError
from app.extensions import services
from app.service.accounts import AccountError


def _paper() -> str:
    wanted = request.args.get("paper", "")
    return wanted if wanted in ("a4", "letter") else (getattr(g.facilitator, "paper", None) or "a4")


def _student() -> bool:
    return request.args.get("version", "") == "student"


def _designer() -> bool:
    return request.args.get("version", "") == "designer"


def _tz():
    from app.facilitator.clock import report_zone
    try:
        return report_zone()
    except ValueError as exc:
        raise ServiceError("bad_request", f"tz: {exc}")


def _file(body, mimetype: str, name: str) -> Response:
    return Response(body, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{name}"',
                                                      "Cache-Control": "no-store"})


def _table(code: str) -> str:
    code = code.strip().upper()
    services().tables.owned(code, g.facilitator.id)
    return code


@bp.get("/tables/<code>/debrief.pdf")
@facilitator_required
def table_debrief(code):
    code = _table(code)
    tz = _tz()
    from app.reports import debrief_pdf
    suffix = "-student" if _student() else "-designers" if _designer() else ""
    return _file(debrief_pdf(services().tables, code, student=_student(), designer=_designer(), paper=_paper(),
                             tz=tz), "application/pdf", f"debrief-{code}{suffix}.pdf")


@bp.get("/tables/<code>/log.json")
@facilitator_required
def table_log(code):
    return jsonify(services().tables.log_json(_table(code)))


@bp.get("/tables/<code>/log.csv")
@facilitator_required
def table_log_csv(code):
    from app.reports.exports import log_csv
    code = _table(code)
    return _file(log_csv([services().tables.log_json(code)]), "text/csv", f"log-{code}.csv")


@bp.get("/tables/<code>/notes.csv")
@facilitator_required
def table_notes_csv(code):
    from app.reports.exports import notes_csv
    code = _table(code)
    return _file(notes_csv([services().tables.log_json(code)]), "text/csv", f"notes-{code}.csv")


@bp.get("/classes/<code>/debrief.pdf")
@facilitator_required
def class_debrief(code):
    klass = owned_class(code)
    tz = _tz()
    from app.reports.classes import class_debrief_pdf
    suffix = "-student" if _student() else ""
    pdf = class_debrief_pdf(services().classes, services().tables, klass.code, student=_student(),
                            paper=_paper(), tz=tz)
    return _file(pdf, "application/pdf", f"class-debrief-{klass.code}{suffix}.pdf")


@bp.get("/classes/<code>/students.csv")
@facilitator_required
def class_students_csv(code):
    klass = owned_class(code)
    tz = _tz()
    from app.reports.classes import students_csv
    return _file(students_csv(services().classes, services().tables, klass.code, tz=tz), "text/csv",
                 f"class-students-{klass.code}.csv")


def _class_logs(code: str) -> tuple[str, list]:
    from app.reports.exports import class_logs
    klass = owned_class(code)
    return klass.code, class_logs(services().classes, services().tables, klass.code)


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


def _lab(least: int = 0) -> int:
    from app.reports.lab import LAB_MAX
    raw = request.args.get("lab", "") or "0"
    if not raw.isdigit() or not least <= int(raw) <= LAB_MAX:
        raise ServiceError("bad_request", f"lab: a number of games from 0 (no lab) to {LAB_MAX}." if not least else
                           f"lab: a number of games from {least} to {LAB_MAX} (without a lab, "
                           "GET /api/playtest.pdf answers at once).")
    return int(raw)


@bp.get("/playtest.pdf")
@facilitator_required
def playtest_report():
    from app.reports.playtest import playtest_pdf
    game, start, end = _playtest_args()
    pdf = playtest_pdf(services().tables, services().db, g.facilitator.id, game, start, end, paper=_paper(),
                       lab=_lab(), tz=_tz())
    return _file(pdf, "application/pdf", f"playtest-{game}-{start}-{end}.pdf")


# ------------------------------------------------------- the playtest report as a job
def _job_json(job) -> dict:
    out = services().reports.describe(job)
    out["status_url"] = url_for("api.playtest_job", job_id=job.id)
    out["pdf_url"] = url_for("api.playtest_job_pdf", job_id=job.id) if job.state == "done" else None
    return out


class _NoSuchJob(Exception):
    """No job of this teacher's has that id (any other teacher's job included)."""


def _my_job(job_id: str):
    job = services().reports.get(g.facilitator.id, job_id)
    if job is None:
        raise _NoSuchJob()
    return job


@bp.errorhandler(_NoSuchJob)
def _no_such_job(_exc):
    return jsonify({"ok": False, "error": {"code": "bad_request", "message":
                    "You have no report with that id: it was finished over 30 minutes ago, or the server "
                    "restarted and lost it. Start it again."}}), 404


@bp.post("/playtest/jobs")
@facilitator_required
def start_playtest_job():
    from app.reports import render_pdf
    from app.reports.jobs import Refused
    from app.reports.playtest import playtest_html
    game, start, end = _playtest_args()
    lab, tz, paper = _lab(least=1), _tz(), _paper()
    app, tables, db, owner = current_app._get_current_object(), services().tables, services().db, g.facilitator.id

    def work(progress) -> bytes:
        with app.app_context():
            progress("gathering")
            html = playtest_html(tables, db, owner, game, start, end, paper=paper, lab=lab, tz=tz,
                                 progress=lambda played, in_all: progress("lab", played, in_all))
            progress("drawing")
            return render_pdf(html)

    try:
        job = services().reports.start(owner, work, filename=f"playtest-{game}-{start}-{end}.pdf", lab=lab)
    except Refused as exc:
        body = {"ok": False, "error": exc.to_json()}
        if exc.running is not None:
            return jsonify(dict(body, job=_job_json(exc.running))), 409
        return jsonify(body), 429, {"Retry-After": "60"}
    return jsonify(_job_json(job)), 202, {"Location": url_for("api.playtest_job", job_id=job.id)}


@bp.get("/playtest/jobs")
@facilitator_required
def playtest_jobs():
    return jsonify({"jobs": [_job_json(job) for job in services().reports.of(g.facilitator.id)]})


@bp.get("/playtest/jobs/<job_id>")
@facilitator_required
def playtest_job(job_id):
    return jsonify(_job_json(_my_job(job_id)))


@bp.get("/playtest/jobs/<job_id>/report.pdf")
@facilitator_required
def playtest_job_pdf(job_id):
    job = _my_job(job_id)
    if job.state != "done":
        return jsonify({"ok": False, "error": {"code": "bad_request", "message":
                        "This report is not ready: ask its status until it says done." if job.state == "running"
                        else job.message}, "job": _job_json(job)}), 409
    return _file(job.pdf, "application/pdf", job.filename)


@bp.delete("/playtest/jobs/<job_id>")
@facilitator_required
def stop_playtest_job(job_id):
    job = services().reports.stop(g.facilitator.id, job_id)
    if job is None:
        raise _NoSuchJob()
    return jsonify(_job_json(job))


@bp.get("/playtest.csv")
@facilitator_required
def playtest_report_csv():
    from app.reports.playtest import playtest_csv
    game, start, end = _playtest_args()
    return _file(playtest_csv(services().tables, services().db, g.facilitator.id, game, start, end, tz=_tz()),
                 "text/csv", f"playtest-{game}-{start}-{end}.csv")


@bp.post("/preferences")
@facilitator_required
def preferences():
    body = json_body()
    try:
        paper = services().accounts.set_paper(g.facilitator.id, body.get("paper"))
    except AccountError as exc:
        raise ServiceError("bad_request", str(exc))
    return jsonify({"paper": paper})
