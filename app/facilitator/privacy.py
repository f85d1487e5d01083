"""Deleting a table or a class from its facilitator page (on the facilitator blueprint):
a confirmation page, then a POST (with the CSRF token, like every form) that deletes
everything recorded about it (app/service/privacy.py) and tells the pages still open on it."""
from __future__ import annotations

from flask import abort, flash, g, redirect, render_template, url_for

from app import engines
from app.errors import ServiceError
from app.extensions import services
from app.facilitator import bp, login_required


def _table(code: str):
    try:
        table = services().tables.owned(code, g.facilitator.id)
    except ServiceError:
        abort(404)
    if table.class_id is not None:  # its class's page deletes it, with the class
        abort(404)
    return table


def _class(code: str):
    try:
        return services().classes.owned(code.upper(), g.facilitator.id)
    except ServiceError:
        abort(404)


@bp.get("/tables/<code>/delete")
@login_required
def delete_table_confirm(code):
    table = _table(code)
    return render_template("facilitator/delete.html", kind="table", code=table.code,
                           title=engines.spec(table.game).title, status=table.status,
                           action=url_for("facilitator.delete_table", code=table.code),
                           back=url_for("facilitator.table", code=table.code))


@bp.post("/tables/<code>/delete")
@login_required
def delete_table(code):
    table = _table(code)
    deleted = services().privacy.delete_table(g.facilitator.id, table.code)
    services().notifier.deleted(deleted)
    flash(f"Table {table.code} and everything recorded about it were deleted.")
    return redirect(url_for("facilitator.dashboard"))


@bp.get("/classes/<code>/delete")
@login_required
def delete_class_confirm(code):
    klass = _class(code)
    count = len(services().classes.summary(klass.code).get("tables", []))
    return render_template("facilitator/delete.html", kind="class", code=klass.code,
                           title=engines.spec(klass.game).title, status=klass.status, tables=count,
                           action=url_for("facilitator.delete_class", code=klass.code),
                           back=url_for("facilitator.class_overview", code=klass.code))


@bp.post("/classes/<code>/delete")
@login_required
def delete_class(code):
    klass = _class(code)
    deleted = services().privacy.delete_class(g.facilitator.id, klass.code)
    services().notifier.deleted(deleted)
    n = len(deleted.codes)
    flash(f"Class {klass.code}, its {n} table{'s' if n != 1 else ''} and everything recorded about them were deleted.")
    return redirect(url_for("facilitator.dashboard"))
