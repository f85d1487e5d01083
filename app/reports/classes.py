"""The class debrief: one PDF for a whole class session.

Class-wide first: every table's result (finished, ended by the teacher, abandoned
or still playing, said as such), the leader board, class-wide learning (trivia
right per topic, the most-missed questions), the explanations the class accepted
and rejected, the moderation actions taken, the rulings and the notes; then a
compact page per table. Everything comes from the same per-table data and game
sections as the single-table debrief (app/reports/__init__.py).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timezone

from app import engines
from app.reports.chart import race_svg
from app.reports import (PAPER, cooperative_yield, debrief_context, game_section, is_teacher_note, paper_of,
                         platform_version, render_html, render_pdf, table_data)

MOMENTS_PER_TABLE = 12     # a table's page: the opening and the latest key moments
MISSED_MAX = 10
VOTES_MAX = 15
MODERATION_MAX = 40
NOTES_MAX = 120
CHARTS_UP_TO = 60          # tables in a class whose pages still get a race chart


def _moderation(data: dict, number, names: list[str]) -> list[dict]:
    """What the teacher did at a table: the platform's moderation (pause, lock, remove,
    end) and the game's own facilitator actions, each with the sentence it logged."""
    out = []
    for ev in data["events"]:
        if ev.actor != "facilitator" or (ev.kind == "table" and ev.action.get("type") == "start"):
            continue
        text = " ".join(e.get("text", "") for e in ev.log or [] if isinstance(e, dict)
                        and "visible_to" not in e and e.get("t") != "ruling" and e.get("text"))[:300]
        out.append({"table": number, "at": ev.at, "what": ev.action.get("type", ""), "text": text
                    or str(ev.action.get("type", "")).replace("_", " ").capitalize()})
    return out


def class_debrief_context(classes, tables, code: str, *, student: bool = False) -> dict:
    klass = classes.get(code)
    spec = engines.spec(klass.game)
    summary = classes.summary(code)
    pages, notes, moderation, votes, learning = [], [], [], [], []
    rulings: Counter = Counter()
    rulings_tables: dict[str, set] = defaultdict(set)
    rulings_meta: dict[str, dict] = {}
    board = []
    for t in summary["tables"]:
        cooperative_yield()  # a 500-table class: other green threads (moves) run between tables
        data = table_data(tables, t["code"])
        section = game_section(t.get("game") or klass.game, data) if data["table"].state is not None else {}
        ctx = debrief_context(tables, t["code"], student=student, data=data, section=section)
        moments = ctx["moments"]
        if len(moments) > MOMENTS_PER_TABLE:
            moments = moments[:2] + moments[-(MOMENTS_PER_TABLE - 2):]
        # A lighter chart on a table's page, and none in a very big class (each costs ~40 ms to render).
        chart = race_svg(ctx["series"], data["names"], height=160, max_points=60) \
            if ctx["series"] and len(summary["tables"]) <= CHARTS_UP_TO else None
        pages.append(dict(ctx, number=t["number"], moments=moments, moments_total=ctx["moments_total"], chart=chart))
        for r in ctx["rulings"]:
            rulings[r["id"]] += r["count"]
            rulings_tables[r["id"]].add(t["number"])
            rulings_meta[r["id"]] = r
        notes += [dict(n, table=t["number"]) for n in ctx["notes"]]
        moderation += _moderation(data, t["number"], data["names"])
        for v in section.get("votes") or []:
            if isinstance(v, dict):
                v = dict(v, table=t["number"], who=data["names"][v["seat"]] if isinstance(v.get("seat"), int)
                         and 0 <= v["seat"] < len(data["names"]) else "")
                if student and v.get("hidden"):
                    v["explanation"] = ""
                votes.append(v)
        learning += [dict(q, table=t["number"]) for q in section.get("learning") or [] if isinstance(q, dict)]
        result = ctx["result"] or {}
        ranking = result.get("ranking") or []
        scores = result.get("scores") or []
        so_far = False
        if not result and ctx["series"] and ctx["series"].get("points"):
            # No result yet: the game's own race figure so far ranks the table.
            last = ctx["series"]["points"][-1][1]
            if isinstance(last, list) and len(last) == len(ctx["players"]):
                scores, so_far = list(last), True
                ranking = sorted(range(len(last)), key=lambda s: -(last[s] if isinstance(last[s], (int, float)) else 0))
        for p in ctx["players"]:
            s = p["seat"]
            board.append({"name": p["name"], "table": t["number"], "computer": p["computer"],
                          "won": s in (result.get("winners") or []),
                          "place": ranking.index(s) + 1 if s in ranking else None,
                          "score": scores[s] if isinstance(scores, list) and s < len(scores) else None,
                          "status": ctx["outcome"]["label"], "so_far": so_far,
                          "unit": (ctx["series"] or {}).get("unit", "")})
    humans = [b for b in board if not b["computer"]]
    humans.sort(key=lambda b: (not b["won"], b["place"] or 99,
                               -(b["score"] if isinstance(b["score"], (int, float)) else -1), b["name"]))
    topics: dict[str, Counter] = defaultdict(Counter)
    per_question: dict[str, dict] = {}
    for q in learning:
        topics[q.get("topic") or "other"]["right" if q.get("correct") else "wrong"] += 1
        row = per_question.setdefault(q.get("question", ""), {"question": q.get("question", ""),
                                                              "answer": q.get("answer", ""),
                                                              "explanation": q.get("explanation", ""),
                                                              "right": 0, "wrong": 0})
        row["right" if q.get("correct") else "wrong"] += 1
    missed = sorted((r for r in per_question.values() if r["wrong"]),
                    key=lambda r: (-r["wrong"], r["right"], r["question"]))[:MISSED_MAX]
    catalogue = {r["id"]: r for r in spec.rulings}
    ruling_rows = [{"id": rid, "count": n, "tables": sorted(rulings_tables[rid]),
                    "title": rulings_meta[rid]["title"], "text": catalogue.get(rid, {}).get("text", "")
                    or rulings_meta[rid]["text"], "kind": catalogue.get(rid, {}).get("kind", "")}
                   for rid, n in rulings.most_common()]
    if student:
        notes = [n for n in notes if not is_teacher_note(n)]
    status_counts = Counter(p["outcome"]["label"] for p in pages)
    judged = [v for v in votes if v.get("decision")]
    return {"klass": klass, "title": spec.title, "summary": summary, "pages": pages, "rulings": ruling_rows,
            "notes": notes[:NOTES_MAX], "notes_total": len(notes), "leaders": humans,
            "topics": [{"topic": k, "right": c["right"], "wrong": c["wrong"]} for k, c in sorted(topics.items())],
            "missed": missed, "asked": len(learning),
            "accepted": [v for v in judged if v["decision"] == "accepted"][:VOTES_MAX],
            "rejected": [v for v in judged if v["decision"] == "rejected"][:VOTES_MAX],
            "accepted_total": sum(v["decision"] == "accepted" for v in judged),
            "rejected_total": sum(v["decision"] == "rejected" for v in judged),
            "moderation": moderation[:MODERATION_MAX], "moderation_total": len(moderation),
            "students": summary["students"], "status_counts": sorted(status_counts.items()),
            "finished": status_counts.get("Finished", 0), "student": student,
            "date": klass.created_at.strftime("%d %B %Y"),
            "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "platform_version": platform_version()}


def class_debrief_html(classes, tables, code: str, *, student: bool = False, paper: str = "a4") -> str:
    return render_html("reports/class_debrief.html", paper=PAPER[paper_of(paper)],
                           **class_debrief_context(classes, tables, code, student=student))


def class_debrief_pdf(classes, tables, code: str, *, student: bool = False, paper: str = "a4") -> bytes:
    return render_pdf(class_debrief_html(classes, tables, code, student=student, paper=paper))
