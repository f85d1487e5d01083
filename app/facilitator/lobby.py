"""The dashboard's parts (on the facilitator blueprint): what is running now, what has
finished, and the game picker, whose cards lead to one short form per game where a table,
a class session or one shared device is a choice (`/facilitator/new/<game>`)."""
from __future__ import annotations

from flask import abort, g, render_template, request, url_for

from app import engines
from app.extensions import services
from app.facilitator import bp, login_required
from app.service import hotseat, seating
from app.service.hotseat import HotseatService

# The three ways to play a game, as the new-game page's choice names them (`?as=`).
MODES = ("table", "class", "device")
_STATUS = {"lobby": "Waiting for players", "playing": "Playing", "paused": "Paused", "ended": "Finished"}


def _titles() -> dict:
    return {game["key"]: game["title"] for game in engines.games()}


def dashboard_entries(facilitator_id: int) -> tuple[list[dict], list[dict]]:
    """(running, finished): the teacher's tables and class sessions as the dashboard lists them,
    newest first. A class session's own tables are steered from its overview, so they are not
    listed again."""
    titles, shared = _titles(), HotseatService(services().tables)
    entries = []
    for t in services().tables.tables_of(facilitator_id):
        if t.class_id is not None:
            continue
        device = shared.is_hotseat(t.code)
        entries.append({
            "kind": "guided demo" if t.demo else "one device" if device else "table",
            "code": t.code, "title": titles.get(t.game, t.game), "status": t.status,
            "status_text": _STATUS.get("paused" if t.paused and t.status == "playing" else t.status, t.status),
            "created_at": t.created_at, "open_url": url_for("facilitator.table", code=t.code),
            "open_label": f"table {t.code}",
            # A shared device is its own board: the projector has nothing to show.
            "board_url": None if device else url_for("player.board", code=t.code),
            "debrief_url": url_for("facilitator.debrief", code=t.code) if t.status != "lobby" else None})
    for c in services().classes.classes_of(facilitator_id):
        entries.append({
            "kind": "class", "code": c.code, "title": titles.get(c.game, c.game), "status": c.status,
            "status_text": _STATUS.get(c.status, c.status), "created_at": c.created_at,
            "open_url": url_for("facilitator.class_overview", code=c.code),
            "open_label": f"the overview of class {c.code}",
            "board_url": url_for("player.board", code=c.code),
            "debrief_url": url_for("api.class_debrief", code=c.code) if c.status != "lobby" else None})
    entries.sort(key=lambda e: e["created_at"], reverse=True)
    return [e for e in entries if e["status"] != "ended"], [e for e in entries if e["status"] == "ended"]


def modes_of(game: dict) -> list[dict]:
    """The ways this game can be played, as the new-game page offers them."""
    spec = engines.spec(game["key"])
    out = [{"key": "table", "label": "Tables",
            "hint": "Each group plays on their own phones; the board shows on the projector."}]
    if seating.rule_for(game["key"]) is not None:
        out.append({"key": "class", "label": "A whole class",
                    "hint": "One code for everyone: students are seated at as many tables as needed."})
    if hotseat.supports(spec):
        lo, hi = hotseat.player_range(spec)
        out.append({"key": "device", "label": "One shared device",
                    "hint": f"{lo}–{hi} players pass one tablet or laptop round.", "min": lo, "max": hi})
    return out


@bp.get("/new/<key>")
@login_required
def new_game(key):
    game = next((gm for gm in engines.games() if gm["key"] == key and gm["playable"]), None)
    if game is None:
        abort(404)
    modes = modes_of(game)
    chosen = request.args.get("as", "table")
    if chosen not in {m["key"] for m in modes}:
        chosen = "table"
    device = next((m for m in modes if m["key"] == "device"), None)
    banks = services().banks.banks_of(g.facilitator.id)
    return render_template("facilitator/new_game.html", game=game, modes=modes, chosen=chosen,
                           device=device, banks=banks)
