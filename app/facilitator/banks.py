"""Facilitator pages for uploaded content banks (on the facilitator blueprint):
for every game whose spec declares uploads, upload a file (refused whole, with
every bad line listed, when anything is wrong), list the banks with their size
and date, and delete one. The dashboard's create forms then offer the banks."""
from __future__ import annotations

from flask import abort, flash, g, redirect, render_template, request, url_for

from app.errors import ServiceError
from app.extensions import services
from app.facilitator import bp, login_required
from app.service.banks import BANK_NAME_MAX, UploadRefused, by_language, upload_of, uploads

FORM_OVERHEAD = 64 * 1024   # the form's other fields and multipart framing, on top of a file's limit


def _page(status: int = 200, *, refused=None, errors=(), form=None):
    banks = services().banks.banks_of(g.facilitator.id)
    sections = []
    for game, upload in uploads():
        sections.append({"game": game, "upload": upload,
                         "banks": [b for b in banks if b.game == game["key"] and b.kind == upload.kind]})
    return render_template("facilitator/banks.html", sections=sections, refused=refused, errors=list(errors),
                           form=form or {}, name_max=BANK_NAME_MAX, by_language=by_language), status


@bp.get("/banks")
@login_required
def banks():
    return _page()


def _largest_upload() -> int:
    return max((u.max_bytes for game_or_404, u in uploads()), default=0) + FORM_OVERHEAD


@bp.post("/banks")
@login_required
def upload_bank():
    game, kind = request.form.get("game", ""), request.form.get("kind", "")
    name = request.form.get("name", "")
    file = request.files.get("file")
    form = {"game": game, "kind": kind, "name": name}
    try:
        upload = upload_of(game, kind)
        data = file.stream.read(upload.max_bytes + 1) if file is not None else b""
        if not name.strip() and file is not None and file.filename:
            name = file.filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].rsplit(".", 1)[0]
        bank = services().banks.create(g.facilitator.id, game, kind, name, data)
    except UploadRefused as exc:
        return _page(400, refused=form, errors=exc.errors, form=form)
    except ServiceError as exc:
        return _page(400, refused=form, errors=[(0, exc.message)], form=form)
    flash(f"Saved \u201c{bank.name}\u201d: {bank.count} {upload.noun}.")
    return redirect(url_for("facilitator.banks"), code=303)


# The request may be larger than the app-wide limit (MAX_CONTENT_LENGTH) by the file's size.
upload_bank.max_content_length = _largest_upload


@bp.errorhandler(413)
def _too_large(_error):
    flash(f"That file is too large: the limit is {(_largest_upload() - FORM_OVERHEAD) // 1000} kB. "
          "Nothing was saved.")
    return redirect(url_for("facilitator.banks"), code=303)


@bp.post("/banks/<int:bank_id>/delete")
@login_required
def delete_bank(bank_id):
    try:
        bank = services().banks.delete(g.facilitator.id, bank_id)
    except ServiceError:
        abort(404)  # as for another teacher's table: not theirs, so not there
    flash(f"Deleted \u201c{bank.name}\u201d. Tables already created with it keep their copy.")
    return redirect(url_for("facilitator.banks"), code=303)
