"""Facilitator pages: first-run set-up, login, dashboard, table moderation panel."""
from __future__ import annotations

import functools
from datetime import date, timedelta
from pathlib import Path

from flask import (Blueprint, Response, abort, current_app, flash, g, make_response, redirect, render_template,
                   request, session, url_for)

from app import engines
from app.edge.csrf import check_csrf, csrf_token
from app.edge.netaddr import client_address, join_url
from app.errors import ServiceError
from app.extensions import services
from app.service.accounts import DEVICE_COOKIE, AccountError, LoginLimited
from app.service.hotseat import HotseatService
from app.service.tables import lesson

bp = Blueprint("facilitator", __name__)


@bp.app_context_processor
def _inject_csrf():
    return {"csrf_token": csrf_token}


@bp.app_template_filter("choice_label")
def choice_label(choice) -> str:
    """An option's value as a form shows it: Yes/No for a switch, Off for a zero limit."""
    if isinstance(choice, bool):
        return "Yes" if choice else "No"
    if choice == 0:
        return "Off"
    return str(choice).replace("_", " ").capitalize()


# Words a preset's label keeps in lower case (but for the first): "power_and_wager" -> "Power and Wager".
_SMALL_WORDS = frozenset({"and", "or", "of", "the", "a", "an", "to", "with", "in", "on", "at", "for"})


@bp.app_template_filter("preset_label")
def preset_label(name) -> str:
    """A preset's key as its button says it: "power_war" -> "Power War", "vs_computer" -> "vs. Computer"."""
    words = [w for w in str(name).split("_") if w]
    return " ".join("vs." if w == "vs" else w if i and w in _SMALL_WORDS else w[:1].upper() + w[1:]
                    for i, w in enumerate(words))


@bp.app_template_global("form_presets")
def form_presets(game: dict) -> list[dict]:
    """A create form's preset buttons (Quick Match): for each preset of the game that sets
    an option the form shows, the value of every option field on the form, as the form
    sends it (the preset's, else the option's default: a preset is a complete choice).
    `game` is the game as engines.games() describes it."""
    filled = {u["option"] for u in game.get("uploads", [])}
    fields = [o for o in game.get("options", []) if o["key"] not in filled]
    out = []
    for name, preset in (game.get("presets") or {}).items():
        if not any(o["key"] in preset for o in fields):
            continue
        values = {o["key"]: str(preset.get(o["key"], o["default"])) for o in fields}
        out.append({"name": name, "label": preset_label(name), "values": values})
    return out


@bp.app_context_processor
def _inject_lesson_lengths():
    """The create forms' "Lesson length" choices (templates/facilitator/_lesson_length.html)."""
    return {"lesson_lengths": lesson.MINUTES}


@bp.app_context_processor
def _inject_font_dir():
    """The shipped fonts as a file: URL, for the PDF reports (WeasyPrint reads files, not the web server)."""
    return {"font_dir_url": Path(current_app.static_folder, "fonts").resolve().as_uri()}


@bp.before_app_request
def _upload_limit():
    """A view that takes a file upload says how large a request it accepts (see banks.py).
    App-wide, so it is set before anything (the NUL check) reads the form."""
    limit = getattr(current_app.view_functions.get(request.endpoint), "max_content_length", None)
    limit = limit() if callable(limit) else limit
    if limit:
        request.max_content_length = limit


@bp.before_request
def _load_user_and_check_csrf():
    g.facilitator = services().accounts.from_session(session)
    if request.method == "POST":
        check_csrf(request.form.get("csrf"))


def login_required(view):
    @functools.wraps(view)
    def wrapped(**kwargs):
        if g.facilitator is None:
            return redirect(url_for("facilitator.login", next=request.full_path.rstrip("?")))
        return view(**kwargs)

    return wrapped


@bp.route("/login", methods=["GET", "POST"])
def login():
    error, status, retry_after = None, 200, 0
    if request.method == "POST":
        accounts = services().accounts
        name, device = request.form.get("name", ""), request.cookies.get(DEVICE_COOKIE)
        try:
            fac = accounts.authenticate(name, request.form.get("password", ""), client_address(), device)
        except LoginLimited as exc:
            error, status, retry_after = str(exc), 429, exc.retry_after
        else:
            if fac:
                log_in(fac)
                target = request.args.get("next", "")
                response = redirect(target if target.startswith("/facilitator") else url_for("facilitator.dashboard"))
                accounts.remember_browser(response, name, device, secure=current_app.config["SESSION_COOKIE_SECURE"])
                return response
            error, status = "That name and password do not match.", 401
    response = make_response(render_template("facilitator/login.html", error=error), status)
    if status == 429:
        response.headers["Retry-After"] = str(retry_after)
    return response


def log_in(fac) -> None:
    session.clear()  # nothing of an earlier visitor's session carries over
    session.update(services().accounts.session_claims(fac))


@bp.post("/logout")
def logout():
    if g.facilitator is not None:  # the cookie, and every copy of it, stops working
        services().accounts.end_sessions(g.facilitator.id)
    session.clear()
    return redirect(url_for("facilitator.login"))


@bp.route("/setup/<token>", methods=["GET", "POST"])
def setup(token):
    accounts = services().accounts
    if not accounts.setup_token_valid(token):
        return render_template("facilitator/setup.html", used=True), 410
    error = None
    if request.method == "POST":
        try:
            fac = accounts.create_with_setup_token(token, request.form.get("name", ""),
                                                   request.form.get("password", ""))
        except AccountError as exc:
            error = str(exc)
        else:
            log_in(fac)
            return redirect(url_for("facilitator.dashboard"))
    return render_template("facilitator/setup.html", used=False, error=error), (400 if error else 200)


@bp.get("/")
@login_required
def dashboard():
    """What is running now first (with its code and one click to its board), then the game
    picker; finished games and the report settings after. The create forms are on each
    game's own page (new_game), so the dashboard stays a couple of screens tall."""
    from app.facilitator.lobby import dashboard_entries
    from app.reports.lab import LAB_MAX
    running, finished = dashboard_entries(g.facilitator.id)
    return render_template("facilitator/dashboard.html", games=engines.games(), running=running,
                           finished=finished, today=date.today().isoformat(),
                           retention_days=services().privacy.retention_days,
                           month_ago=(date.today() - timedelta(days=30)).isoformat(), lab_max=LAB_MAX,
                           lab_default=max(0, min(int(current_app.config["LAB_DEFAULT"]), LAB_MAX)))


@bp.post("/tables")
@login_required
def create_table():
    game = request.form.get("game", "")
    try:
        options = form_options(game)
        table = services().tables.create_table(g.facilitator.id, game, options,
                                               name_filter=form_name_filter(),
                                               text_approval=form_text_approval(),
                                               lesson_minutes=form_lesson_minutes(),
                                               language=form_language())
    except ServiceError as exc:
        flash(exc.message)
        return redirect(url_for("facilitator.dashboard"))
    return redirect(url_for("facilitator.table", code=table.code))


def form_name_filter() -> bool:
    """The create forms' "Refuse rude names" box: a hidden 0 before the checkbox's 1, so an
    unticked box says so; a form without the field (an older page) keeps the default, on."""
    sent = request.form.getlist("name_filter")
    return not sent or "1" in sent


def form_lesson_minutes() -> str:
    """The create forms' "Lesson length" (off, or minutes; the service checks the value)."""
    return request.form.get("lesson_minutes", "")


def form_language() -> str:
    """The create forms' "Board language" (app/i18n; the service checks the value)."""
    return request.form.get("language", "") or "en"


def form_text_approval() -> bool:
    """The create forms' "Student text appears on the board only after I approve it" box."""
    return request.form.get("text_approval") == "1"


def form_options(game: str) -> dict:
    """The chosen game's options from a submitted form (unset ones take their defaults).
    An option an upload fills comes from the teacher's chosen bank (select `bank_<kind>`)."""
    spec = game_or_404(game)
    uploads = spec.get("uploads", [])
    filled = {u["option"] for u in uploads}
    options = {o["key"]: _coerce(o, request.form.get(o["key"]))
               for o in spec["options"] if o["key"] not in filled and request.form.get(o["key"]) is not None}
    chosen = {u["kind"]: request.form.get(f"bank_{u['kind']}", "") for u in uploads}
    if not chosen:
        return options
    notes: list[str] = []  # a bank with too few items in the board language is used whole: say so
    options = services().banks.with_banks(g.facilitator.id, game, options, chosen, language=form_language(),
                                          notes=notes)
    for note in notes:
        flash(note)
    return options


def game_or_404(key: str) -> dict:
    for game in engines.games():
        if game["key"] == key and game["playable"]:
            return game
    raise ServiceError("bad_request", "Choose a game that can be played.")


def _coerce(option: dict, raw: str):
    """Form values are strings; options keep the type of their choices."""
    for choice in option["choices"] or [option["default"]]:
        if str(choice) == raw:
            return choice
    return raw


@bp.get("/tables/<code>")
@login_required
def table(code):
    try:
        record = services().tables.owned(code, g.facilitator.id)
    except ServiceError:
        abort(404)
    notes = services().tables.notes(code)
    shared = HotseatService(services().tables).is_hotseat(code)
    return render_template("facilitator/table.html", table=record, join_url=join_url(record.code),
                           notes=reversed(notes), title=engines.spec(record.game).title, hotseat=shared)


@bp.get("/tables/<code>/debrief.pdf")
@login_required
def debrief(code):
    tables = services().tables
    try:
        tables.owned(code, g.facilitator.id)
    except ServiceError:
        abort(404)
    from app.facilitator.clock import report_zone
    from app.reports import debrief_pdf
    student = request.args.get("version") == "student"
    designer = request.args.get("version") == "designer"
    paper = request.args.get("paper") if request.args.get("paper") in ("a4", "letter") else g.facilitator.paper
    try:
        tz = report_zone()
    except ValueError as exc:
        return Response(f"tz: {exc}", status=400, mimetype="text/plain")
    suffix = "-student" if student else "-designers" if designer else ""
    return Response(debrief_pdf(tables, code, student=student, designer=designer, paper=paper, tz=tz),
                    mimetype="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="debrief-{code}{suffix}.pdf"'})


@bp.post("/preferences")
@login_required
def preferences():
    """The teacher's paper size for printed reports, remembered for next time."""
    try:
        services().accounts.set_paper(g.facilitator.id, request.form.get("paper", ""))
    except AccountError as exc:
        flash(str(exc))
    else:
        flash("Reports will be printed on " + ("US Letter." if request.form.get("paper") == "letter" else "A4."))
    return redirect(url_for("facilitator.dashboard") + "#reports-title")


from app.facilitator import classes as _classes  # noqa: E402,F401  (class-session pages on this blueprint)
from app.facilitator import hotseat as _hotseat  # noqa: E402,F401  (hotseat tables on this blueprint)
from app.facilitator import banks as _banks  # noqa: E402,F401  (uploaded content banks)
from app.facilitator import demo as _demo  # noqa: E402,F401  (guided demo tables to project)
from app.facilitator import privacy as _privacy  # noqa: E402,F401  (deleting a table or a class)
from app.facilitator import tokens as _tokens  # noqa: E402,F401  (the teacher's API tokens)
from app.facilitator import clock as _clock  # noqa: E402,F401  (times in the teacher's zone)
from app.facilitator import lobby as _lobby  # noqa: E402,F401  (the game picker's pages)
