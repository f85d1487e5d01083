"""The class debrief: one PDF for a whole class session.

Class-wide figures first (tables, winners, the rulings that applied with their
counts, trivia right/wrong per question, the playtest notes), then a page per
table built from the single-table debrief's context (winner, key moments).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timezone

from flask import render_template

from app import engines
from app.reports import debrief_context

MOMENTS_PER_TABLE = 24  # one page per table: the opening and the latest key moments


def _trivia(entries: list[dict]) -> list[dict]:
    """Right/wrong per question, for games whose engines log trivia answers.

    The contract for such a game: a log entry {"t": "trivia", "question": <text
    or id>, "correct": bool, ...}. No engine logs them yet; the report shows
    the section as soon as one does.
    """
    counts: dict[str, Counter] = defaultdict(Counter)
    for e in entries:
        if e.get("t") == "trivia" and "question" in e and isinstance(e.get("correct"), bool):
            counts[str(e["question"])]["right" if e["correct"] else "wrong"] += 1
    return [{"question": q, "right": c["right"], "wrong": c["wrong"]} for q, c in sorted(counts.items())]


def class_debrief_context(classes, tables, code: str) -> dict:
    klass = classes.get(code)
    spec = engines.spec(klass.game)
    summary = classes.summary(code)
    pages, rulings, notes, entries = [], Counter(), [], []
    rulings_tables: dict[str, set] = defaultdict(set)
    for t in summary["tables"]:
        ctx = debrief_context(tables, t["code"])
        moments = ctx["moments"]
        if len(moments) > MOMENTS_PER_TABLE:
            moments = moments[:1] + moments[-(MOMENTS_PER_TABLE - 1):]
        winners = [ctx["names"].get(s, f"Seat {s + 1}") for s in ctx["result"]["winners"]] if ctx["result"] else []
        pages.append(dict(ctx, number=t["number"], moments=moments, winners=winners, seats=t["seats"],
                          moments_total=len(ctx["moments"])))
        for r in ctx["rulings"]:
            rulings[r["id"]] += r["count"]
            rulings_tables[r["id"]].add(t["number"])
        notes += [dict(n, table=t["number"]) for n in ctx["notes"]]
        log = tables.log_json(t["code"])
        entries += [e for ev in log["events"] for e in ev["log"]]
    catalogue = {r["id"]: r for r in spec.rulings}
    ruling_rows = [{"id": rid, "count": n, "tables": sorted(rulings_tables[rid]),
                    "text": catalogue.get(rid, {}).get("text", ""), "kind": catalogue.get(rid, {}).get("kind", "")}
                   for rid, n in rulings.most_common()]
    return {"klass": klass, "title": spec.title, "summary": summary, "pages": pages, "rulings": ruling_rows,
            "notes": notes, "trivia": _trivia(entries),
            "students": summary["students"], "finished": sum(p["table"].status == "ended" for p in pages),
            "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def class_debrief_html(classes, tables, code: str) -> str:
    return render_template("reports/class_debrief.html", **class_debrief_context(classes, tables, code))


def class_debrief_pdf(classes, tables, code: str) -> bytes:
    from weasyprint import HTML  # imported lazily: it is slow to load and only reports need it

    return HTML(string=class_debrief_html(classes, tables, code)).write_pdf()
