"""The class debrief: one PDF for a whole class session.

Class-wide first: questions for the class, the students to check on (with the
reason and their table), every table's result (finished, ended by the teacher,
abandoned or still playing, said as such), the leader board (a removed student is
not credited with the computer's play after the removal), class-wide learning
(trivia right per topic, the most-missed questions), the explanations the class
accepted and rejected, every action the teacher took and the notes; then a compact
page per table. `students_csv` is one row per student with every figure. Nothing is
cut off silently: a list says how many more there are and which file holds them.
Everything comes from the same per-table data and game
sections as the single-table debrief (app/reports/__init__.py).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timezone

from app import engines
from app.service import student_text
from app.reports.chart import race_svg
from app.reports import (PAPER, QUESTIONS_MAX, UTC, clock, cooperative_yield, debrief_context, game_section,
                         hidden_names, learning_noun, paper_of, platform_version, render_html, render_pdf,
                         table_data, zone_label)
from app.reports.exports import csv_text

MOMENTS_PER_TABLE = 12     # a table's page: the opening and the latest key moments
MISSED_MAX = 10            # beyond that: "and N more", every question in log.csv
VOTES_MAX = 15             # per heading; beyond that "and N more" (log.csv has them all)
NOTES_MAX = 120            # beyond that "and N more" (notes.csv has them all)
CHARTS_UP_TO = 60          # tables in a class whose pages still get a race chart


def _moderation(data: dict, number, names: list[str], tz=UTC) -> list[dict]:
    """What the teacher did at a table: the platform's moderation (pause, lock, remove,
    end) and the game's own facilitator actions, each with the sentence it logged."""
    out = []
    for ev in data["events"]:
        if ev.actor != "facilitator" or (ev.kind == "table" and ev.action.get("type") == "start"):
            continue
        text = " ".join(e.get("text", "") for e in ev.log or [] if isinstance(e, dict)
                        and "visible_to" not in e and e.get("t") != "ruling" and e.get("text"))[:300]
        out.append({"table": number, "at": ev.at, "clock": clock(ev.at, tz), "what": ev.action.get("type", ""),
                    "text": text
                    or str(ev.action.get("type", "")).replace("_", " ").capitalize()})
    return out


def class_debrief_context(classes, tables, code: str, *, student: bool = False, tz=UTC) -> dict:
    klass = classes.get(code)
    spec = engines.spec(klass.game)
    summary = classes.summary(code)
    pages, notes, moderation, votes, learning = [], [], [], [], []
    noun = learning_noun({})   # what the learning rows are, in the game's words (its report section)
    rulings: Counter = Counter()
    rulings_tables: dict[str, set] = defaultdict(set)
    rulings_meta: dict[str, dict] = {}
    board = []
    check: list[dict] = []          # the students to check on, with their table
    drawn: list[str] = []           # each table's first question drawn from its game
    hidden: dict[str, str] = {}  # the names the teacher hid: "Player N" in the students' copy
    for t in summary["tables"]:
        cooperative_yield()  # a 500-table class: other green threads (moves) run between tables
        data = table_data(tables, t["code"])
        if student:
            hidden.update(hidden_names(data))
        section = game_section(t.get("game") or klass.game, data) if data["table"].state is not None else {}
        ctx = debrief_context(tables, t["code"], student=student, data=data, section=section, tz=tz)
        check += [dict(c, table=t["number"]) for c in ctx["check_on"]]
        drawn += [p for p in (section.get("prompts") or [])[:1] if isinstance(p, str)]
        moments = ctx["moments"]
        if len(moments) > MOMENTS_PER_TABLE:
            moments = moments[:2] + moments[-(MOMENTS_PER_TABLE - 2):]
        # A lighter chart on a table's page, and none in a very big class (each costs ~40 ms to render).
        chart = race_svg(ctx["series"], data["names"], height=160, max_points=60,
                         span=(f"start {ctx['started']}".strip(), "end")) \
            if ctx["series"] and len(summary["tables"]) <= CHARTS_UP_TO else None
        pages.append(dict(ctx, number=t["number"], moments=moments, moments_total=ctx["moments_total"], chart=chart))
        for r in ctx["rulings"]:
            rulings[r["id"]] += r["count"]
            rulings_tables[r["id"]].add(t["number"])
            rulings_meta[r["id"]] = r
        notes += [dict(n, table=t["number"]) for n in ctx["notes"]]
        moderation += _moderation(data, t["number"], data["names"], tz)
        for v in section.get("votes") or []:
            if isinstance(v, dict):
                v = dict(v, table=t["number"], who=data["names"][v["seat"]] if isinstance(v.get("seat"), int)
                         and 0 <= v["seat"] < len(data["names"]) else "")
                if student and v.get("hidden"):   # neither the words nor whose they were
                    v["explanation"], v["who"] = "", ""
                votes.append(v)
        learning += [dict(q, table=t["number"]) for q in section.get("learning") or [] if isinstance(q, dict)]
        if section.get("learning"):
            noun = learning_noun(section)
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
        figures = ctx["figures"] or {"columns": [], "rows": []}
        figure_of = {r["seat"]: r.get("values") or [] for r in figures["rows"] if isinstance(r.get("seat"), int)}
        for p in ctx["players"]:
            s = p["seat"]
            asked = [q for q in section.get("learning") or [] if isinstance(q, dict) and q.get("seat") == s]
            judged = [v for v in section.get("votes") or [] if isinstance(v, dict) and v.get("seat") == s]
            # A removed student's seat was played on by the computer: its place and score are not theirs.
            board.append({"name": p["name"], "table": t["number"], "computer": p["computer"] and not p["removed"],
                          "removed": p["removed"], "won": s in (result.get("winners") or []) and not p["removed"],
                          "place": ranking.index(s) + 1 if s in ranking and not p["removed"] else None,
                          "score": scores[s] if isinstance(scores, list) and s < len(scores) and not p["removed"]
                          else None,
                          "status": ctx["outcome"]["label"], "so_far": so_far,
                          "unit": ctx["score_label"] if not so_far else (ctx["series"] or {}).get("unit", ""),
                          "asked": len(asked), "right": sum(bool(q.get("correct")) for q in asked),
                          "accepted": sum(v.get("decision") == "accepted" for v in judged),
                          "rejected": sum(v.get("decision") == "rejected" for v in judged),
                          "figures": dict(zip(figures["columns"], figure_of.get(s, [])))})
    humans = [b for b in board if not b["computer"]]
    questions = list(dict.fromkeys(drawn + list(spec.discussion)))[:QUESTIONS_MAX]
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
    missed_all = sorted((r for r in per_question.values() if r["wrong"]),
                        key=lambda r: (-r["wrong"], r["right"], r["question"]))
    missed = missed_all[:MISSED_MAX]
    catalogue = {r["id"]: r for r in spec.rulings}
    ruling_rows = [{"id": rid, "count": n, "tables": sorted(rulings_tables[rid]),
                    "title": rulings_meta[rid]["title"], "text": catalogue.get(rid, {}).get("text", "")
                    or rulings_meta[rid]["text"], "kind": catalogue.get(rid, {}).get("kind", "")}
                   for rid, n in rulings.most_common()]
    status_counts = Counter(p["outcome"]["label"] for p in pages)
    judged = [v for v in votes if v.get("decision")]
    context = {"klass": klass, "title": spec.title, "summary": summary, "pages": pages, "rulings": ruling_rows,
            "notes": notes[:NOTES_MAX], "notes_total": len(notes), "leaders": humans,
            "topics": [{"topic": k, "right": c["right"], "wrong": c["wrong"]} for k, c in sorted(topics.items())],
            "missed": missed, "missed_total": len(missed_all), "asked": len(learning), "learning_noun": noun,
            "questions": questions, "check_on": [] if student else check,
            "accepted": [v for v in judged if v["decision"] == "accepted"][:VOTES_MAX],
            "rejected": [v for v in judged if v["decision"] == "rejected"][:VOTES_MAX],
            "accepted_total": sum(v["decision"] == "accepted" for v in judged),
            "rejected_total": sum(v["decision"] == "rejected" for v in judged),
            # Every action the teacher took: a removal is never cut off the list.
            "moderation": moderation, "moderation_total": len(moderation),
            # The same students the leader board lists (one count, one list).
            "students": len({(b["name"], b["table"]) for b in humans}), "status_counts": sorted(status_counts.items()),
            "finished": status_counts.get("Finished", 0), "student": student, "zone": zone_label(tz),
            "date": klass.created_at.replace(tzinfo=klass.created_at.tzinfo or timezone.utc).astimezone(tz)
            .strftime("%d %B %Y"),
            "generated": datetime.now(timezone.utc).astimezone(tz).strftime("%Y-%m-%d %H:%M ") + zone_label(tz),
            "platform_version": platform_version()}
    return student_text.redact(context, [], hidden) if hidden else context


def class_debrief_html(classes, tables, code: str, *, student: bool = False, paper: str = "a4", tz=UTC) -> str:
    return render_html("reports/class_debrief.html", paper=PAPER[paper_of(paper)],
                           **class_debrief_context(classes, tables, code, student=student, tz=tz))


def class_debrief_pdf(classes, tables, code: str, *, student: bool = False, paper: str = "a4", tz=UTC) -> bytes:
    return render_pdf(class_debrief_html(classes, tables, code, student=student, paper=paper, tz=tz))


STUDENT_COLUMNS = ("student", "table", "status", "won", "place", "score", "score_unit", "removed",
                   "questions_asked", "questions_right", "explanations_accepted", "explanations_rejected",
                   "check_on")


def students_csv(classes, tables, code: str, tz=UTC) -> str:
    """One row per student (per table they sat at): the leader board's figures, the
    questions and explanations, the game's own figures (one column each, after the
    fixed ones) and why to check on them."""
    ctx = class_debrief_context(classes, tables, code, tz=tz)
    why = {(c["name"], c["table"]): "; ".join(c["reasons"]) for c in ctx["check_on"]}
    extra = list(dict.fromkeys(col for b in ctx["leaders"] for col in b["figures"]))
    rows = [{"student": b["name"], "table": b["table"], "status": b["status"], "won": "yes" if b["won"] else "no",
             "place": b["place"] or "", "score": "" if b["score"] is None else b["score"], "score_unit": b["unit"],
             "removed": "yes" if b["removed"] else "no", "questions_asked": b["asked"],
             "questions_right": b["right"], "explanations_accepted": b["accepted"],
             "explanations_rejected": b["rejected"], "check_on": why.get((b["name"], b["table"]), ""),
             **{col: b["figures"].get(col, "") for col in extra}} for b in ctx["leaders"]]
    return csv_text(STUDENT_COLUMNS + tuple(extra), rows)
