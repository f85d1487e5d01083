"""Facilitator pages for class sessions (on the facilitator blueprint): create one
from the dashboard, and the live overview that steers every table of the class."""
from __future__ import annotations

from flask import abort, flash, g, redirect, render_template, request, url_for

from app.edge.netaddr import join_url
from app.errors import ServiceError
from app.extensions import services
from app.facilitator import (bp, form_language, form_lesson_minutes, form_name_filter, form_options, form_text_approval,
                             login_required)
from app.service import seating


@bp.app_context_processor
def _class_session_helpers():
    """The dashboard's class-session form reads each game's table-size choices from seating's rules."""

    def class_table_sizes(game_key: str) -> list[tuple[str, str, bool]]:
        rule = seating.rule_for(game_key)
        if rule is None:
            return []
        return [(value, label, value == str(rule.default)) for value, label in rule.choice_labels()]

    return {"class_table_sizes": class_table_sizes}


@bp.post("/classes")
@login_required
def create_class():
    game = request.form.get("game", "")
    try:
        options = form_options(game)
        klass = services().classes.create(
            g.facilitator.id, game, options, request.form.get("table_size"),
            request.form.get("fill_with_computer") == "1", form_name_filter(), form_text_approval(),
            form_lesson_minutes(), form_language())
    except ServiceError as exc:
        flash(exc.message)
        return redirect(url_for("facilitator.dashboard"))
    return redirect(url_for("facilitator.class_overview", code=klass.code))


@bp.get("/classes/<code>")
@login_required
def class_overview(code):
    classes = services().classes
    try:
        klass = classes.owned(code.upper(), g.facilitator.id)
    except ServiceError:
        abort(404)
    if klass.code != code:
        return redirect(url_for("facilitator.class_overview", code=klass.code))
    rule = classes.rule(klass)
    size = classes.table_size(klass)
    size_text = rule.solo_label if size == seating.SOLO else f"{size} players per table"
    return render_template("classes/overview.html", klass=klass, join_url=join_url(klass.code),
                           size_text=size_text, title=classes.summary(klass.code)["title"])
