"""A guided demo table for the class (on the facilitator blueprint): the teacher
creates it from the dashboard and projects its board; the first phone to join
with its code (the teacher's own, or a volunteer student's) takes the visitor's
seat, the computer seats join and the game starts (app/service/demo.py)."""
from __future__ import annotations

from flask import flash, g, redirect, request, url_for

from app.errors import ServiceError
from app.extensions import services
from app.facilitator import bp, login_required


@bp.post("/demo")
@login_required
def create_demo():
    try:
        table = services().demos.create_for(g.facilitator.id, request.form.get("game", ""))
    except ServiceError as exc:
        flash(exc.message)
        return redirect(url_for("facilitator.dashboard"))
    return redirect(url_for("facilitator.table", code=table.code))
