"""A guided demo table for the class (on the facilitator blueprint): the teacher
creates it from the dashboard and projects its board; the first phone to join
with its code (the teacher's own, or a volunteer student's) takes the visitor's
seat, the computer seats join and the game starts (app/demo.py)."""
from __future__ import annotations

from flask import current_app, flash, g, redirect, request, url_for

from app.facilitator import bp, login_required
from app.tables import ServiceError


@bp.post("/demo")
@login_required
def create_demo():
    try:
        table = current_app.extensions["demos"].create_for(g.facilitator.id, request.form.get("game", ""))
    except ServiceError as exc:
        flash(exc.message)
        return redirect(url_for("facilitator.dashboard"))
    return redirect(url_for("facilitator.table", code=table.code))
