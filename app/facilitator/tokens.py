"""The teacher's API tokens (on the facilitator blueprint): when each was made, last
used and expires, and a button to revoke one (a lost script or laptop)."""
from __future__ import annotations

from flask import abort, flash, g, redirect, render_template, url_for

from app.extensions import services
from app.facilitator import bp, login_required


@bp.get("/tokens")
@login_required
def tokens():
    listed = services().accounts.tokens_of(g.facilitator.id)
    return render_template("facilitator/tokens.html", tokens=listed)


@bp.post("/tokens/<int:token_id>/revoke")
@login_required
def revoke_token(token_id):
    if not services().accounts.revoke_token(g.facilitator.id, token_id):
        abort(404)  # already revoked, or another teacher's: as for their tables, not there
    flash("Token revoked: anything still using it must log in again.")
    return redirect(url_for("facilitator.tokens"), code=303)
