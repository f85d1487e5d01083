"""Reports: a table's game log -> HTML (Jinja) -> PDF (WeasyPrint).

The debrief tells a teacher what happened at a table: who played, who won,
the key moments, which provisional rulings applied (quoted from the game's
catalogue) and the playtest notes, each tied to the game version.
"""
from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone

from flask import render_template

from app import engines

# The platform's own log kinds worth a line in "key moments"; a game adds its
# own through its spec's `key_moments`. The rest is play-by-play.
TABLE_MOMENTS = {"start", "kick", "end", "pause", "lock", "move"}


def debrief_context(tables, code: str) -> dict:
    table = tables.get(code)
    engine, spec = engines.get(table.game), engines.spec(table.game)
    data = tables.log_json(code)
    seats = tables.seats(code)
    names = {s.seat_index: s.name for s in seats}
    entries = [dict(e, version=ev["version"]) for ev in data["events"] for e in ev["log"]
               if "visible_to" not in e]
    moments = [e for e in entries if e.get("t") in TABLE_MOMENTS | set(spec.key_moments)]
    catalogue = {r["id"]: r for r in spec.rulings}
    counts = Counter(r["id"] for r in data["rulings"])
    rulings = [{"id": rid, "count": n, "text": catalogue.get(rid, {}).get("text", ""),
                "kind": catalogue.get(rid, {}).get("kind", ""), "title": catalogue.get(rid, {}).get("title", "")}
               for rid, n in counts.most_common()]
    result = engine.result(table.state) if table.state is not None else None
    return {"table": table, "title": spec.title, "discussion": list(spec.discussion), "names": names, "result": result,
            "moments": moments[-80:], "moves": len(data["events"]), "rulings": rulings,
            "notes": data["notes"], "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def debrief_html(tables, code: str) -> str:
    return render_template("reports/debrief.html", **debrief_context(tables, code))


def debrief_pdf(tables, code: str) -> bytes:
    from weasyprint import HTML  # imported lazily: it is slow to load and only reports need it

    return HTML(string=debrief_html(tables, code)).write_pdf()
