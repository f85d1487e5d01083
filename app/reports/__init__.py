"""Reports: a table's game log -> HTML (Jinja) -> PDF (WeasyPrint).

The debrief tells a teacher what happened at a table, in a teacher's words: who
played, who won and how the game ended, a chart of the race, the key moments,
what was learnt (trivia, per-student figures), the rulings that decided
something (their teacher-facing titles and texts), the playtest notes and
discussion prompts. Each game adds its own section through its report hook
(GameSpec.report, see app/engines/contract.py); no file here names a game.
Identifiers (ruling ids, versions, the engine's log kinds) appear only in the
designers' appendix.

Rendering a PDF never blocks play: under eventlet, `render_html` writes the template a
chunk at a time between yields to the loop and `render_pdf` runs WeasyPrint in a
process of its own (render_worker.py).
"""
from __future__ import annotations

import bisect
import logging
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from importlib import metadata

from pathlib import Path

from flask import current_app
from markupsafe import Markup

from app import engines
from app.reports.chart import race_svg

log = logging.getLogger(__name__)

# The platform's own log kinds worth a line in "key moments"; a game adds its own
# through its spec's `key_moments` and its report hook's `moments`.
TABLE_MOMENTS = {"start", "kick", "end", "pause", "lock", "move"}
MOMENTS_MAX = 20            # a debrief stays within three pages: the rest is in log.csv
LEARNING_MAX = 14
VOTES_MAX = 6
MODERATED_MAX = 8
RULING_MOMENTS_MAX = 3
NOTES_MAX = 25              # beyond that the sheet says how many more (notes.csv has them all)
ABANDONED_AFTER = timedelta(minutes=30)
PAPER = {"a4": "A4", "letter": "letter"}
TEACHER_NOTE_PREFIX = "Facilitator "   # notes written from the teacher's panel (app/realtime.py)


def platform_version() -> str:
    try:
        return metadata.version("classroom-games")
    except metadata.PackageNotFoundError:
        return "0.1.0"


def paper_of(value) -> str:
    return value if value in PAPER else "a4"


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _clock(moment: datetime | None) -> str:
    return _utc(moment).strftime("%H:%M") if moment else ""


def _duration(seconds: float) -> str:
    minutes = int(round(seconds / 60))
    if minutes < 1:
        return "under a minute"
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def is_teacher_note(note: dict) -> bool:
    return str(note.get("author", "")).startswith(TEACHER_NOTE_PREFIX)


def humanize(text) -> str:
    """An engine's reason code ('full_elimination', 'time_up') as words; a sentence stays as it is."""
    text = str(text or "")
    return text.replace("_", " ") if " " not in text else text


# ----------------------------------------------------------------- raw data
def table_data(tables, code: str) -> dict:
    """Everything a report reads about one table, as plain data (one pass over the database)."""
    table = tables.get(code)
    events = tables.events(code)
    seat_rows = tables.seats(code)
    notes = tables.notes(code)
    start = next((e for e in events if e.kind == "table" and e.action.get("type") == "start"), None)
    names = list(start.action.get("seats") or []) if start else []
    if not names:
        names = [s.name for s in sorted(seat_rows, key=lambda s: s.seat_index)]
    computers = set(start.action.get("computers") or []) if start else set()
    removed = set()
    for e in events:
        if e.kind == "table" and e.action.get("type") == "kick" and start and e.version > start.version:
            removed.add(e.action.get("seat"))
    for s in seat_rows:
        if s.computer and s.seat_index not in removed:
            computers.add(s.seat_index)
    entries = []
    for ev in events:
        for entry in ev.log or []:
            if isinstance(entry, dict):
                entries.append(dict(entry, version=ev.version, at=ev.at, actor=ev.actor))
    return {"table": table, "events": events, "names": names, "computers": sorted(c for c in computers
                                                                                   if isinstance(c, int)),
            "removed": sorted(r for r in removed if isinstance(r, int)), "notes": notes, "entries": entries,
            "start": start}


def game_section(game: str, data: dict) -> dict:
    """The game's report hook on this table, or {} (with the failure logged) if it has
    none or it fails on odd data: a report never fails because of one game."""
    try:
        hook = engines.report_hook(game)
    except Exception:  # noqa: BLE001 - an unknown game (a package since removed)
        return {}
    if hook is None:
        return {}
    table = data["table"]
    ctx = {"names": list(data["names"]), "computers": list(data["computers"]), "options": dict(table.options or {}),
           "state": table.state, "result": _result(table), "engine_version": table.engine_version,
           "seed": table.seed,
           "entries": [dict(e, at=e["at"].isoformat() if e.get("at") else None) for e in data["entries"]],
           "events": [{"version": e.version, "kind": e.kind, "actor": e.actor, "action": e.action,
                       "at": e.at.isoformat()} for e in data["events"]]}
    try:
        section = hook(ctx)
    except Exception:  # noqa: BLE001
        log.exception("report hook of %s failed on table %s", game, table.code)
        return {"failed": True}
    return section if isinstance(section, dict) else {}


def _result(table):
    if table.state is None:
        return None
    try:
        return engines.get(table.game).result(table.state)
    except Exception:  # noqa: BLE001 - an old snapshot the engine no longer reads
        return None


def outcome(table, result, names: list[str], data: dict) -> dict:
    """How the table ended, in words: {status, label, winners, sentence}."""
    name = lambda s: names[s] if isinstance(s, int) and 0 <= s < len(names) else f"Seat {s + 1}"  # noqa: E731
    last = data["events"][-1].at if data["events"] else table.created_at
    if result:
        winners = [name(s) for s in result.get("winners") or []]
        reason = humanize(result.get("reason"))
        verb = "won" if len(winners) == 1 else "shared the win"
        sentence = f"{' and '.join(winners)} {verb}" + (f" ({reason})." if reason else ".") if winners \
            else f"Nobody won ({reason})." if reason else "Nobody won."
        ended = any(ev.kind == "table" and ev.action.get("type") == "end" for ev in data["events"])
        if ended:  # the teacher ended it and the game named a winner by its own count
            return {"status": "closed", "label": "Ended by the teacher", "winners": winners, "sentence": sentence}
        return {"status": "finished", "label": "Finished", "winners": winners, "sentence": sentence}
    if table.status == "ended":
        if data["start"] is None:
            return {"status": "closed", "label": "Closed before it started", "winners": [],
                    "sentence": "The teacher closed the table before the game started."}
        return {"status": "closed", "label": "Ended by the teacher", "winners": [],
                "sentence": "The teacher ended the game before anyone won."}
    idle = datetime.now(timezone.utc) - _utc(last)
    if table.status == "lobby":
        if idle > ABANDONED_AFTER:
            return {"status": "abandoned", "label": "Abandoned in the lobby", "winners": [],
                    "sentence": f"The game never started; nothing happened after {_clock(last)} UTC."}
        return {"status": "lobby", "label": "Not started yet", "winners": [],
                "sentence": "The game has not started yet."}
    if idle > ABANDONED_AFTER:
        return {"status": "abandoned", "label": "Abandoned", "winners": [],
                "sentence": f"Unfinished: the last move was at {_clock(last)} UTC and nobody won."}
    return {"status": "playing", "label": "Still playing", "winners": [],
            "sentence": "Still being played when this report was made."}


def ruling_rows(spec, data: dict, names: list[str]) -> list[dict]:
    """Each ruling that applied: title and text from the catalogue, how often, and the
    moments (time and who) it applied."""
    catalogue = {r["id"]: r for r in spec.rulings} if spec else {}
    started = data["start"].at if data["start"] else None
    by_id: dict[str, list] = defaultdict(list)
    for e in data["entries"]:
        if e.get("t") == "ruling" and e.get("id"):
            by_id[str(e["id"])].append(e)
    rows = []
    for rid, applied in sorted(by_id.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        entry = catalogue.get(rid, {})
        title = entry.get("title") or _first_sentence(entry.get("text") or applied[0].get("text", ""))
        moments = [_moment_label(e, started, names) for e in applied[:RULING_MOMENTS_MAX]]
        rows.append({"id": rid, "kind": entry.get("kind", ""), "title": title,
                     "text": entry.get("text") or applied[0].get("text", ""), "count": len(applied),
                     "moments": moments, "more": max(0, len(applied) - RULING_MOMENTS_MAX)})
    return rows


def _first_sentence(text: str) -> str:
    text = str(text or "").strip()
    cut = text.find(". ")
    text = text[:cut + 1] if 0 < cut < 120 else text
    return text if len(text) <= 120 else text[:117] + "…"


def minute(at, started) -> str:
    if at is None:
        return ""
    if started is None:
        return _clock(at)
    seconds = (_utc(at) - _utc(started)).total_seconds()
    return f"{_clock(at)} ({_duration(seconds) if seconds >= 60 else 'first minute'})" if seconds >= 0 \
        else _clock(at)


def _moment_label(e: dict, started, names: list[str]) -> str:
    bits = [f"move {e['version']}", _clock(e.get("at"))]
    seat = e.get("seat")
    if isinstance(seat, int) and 0 <= seat < len(names):
        bits.append(names[seat])
    for key, word in (("battle", "battle"), ("turn", "turn"), ("round", "round")):
        if isinstance(e.get(key), int):
            bits.append(f"{word} {e[key]}")
            break
    return ", ".join(b for b in bits if b)


# ------------------------------------------------------------------ debrief
# Tighter limits for a long game whose sheet would run past MAX_PAGES.
LEVELS = {1: {"moments": 12, "votes": 3, "learning": 8, "notes": 10, "ruling_text": 220, "prompts": 5},
          2: {"moments": 8, "votes": 2, "learning": 5, "notes": 5, "ruling_text": 110, "prompts": 3},
          # The last resort of a very long game: the rest is in log.csv and notes.csv.
          3: {"moments": 5, "votes": 1, "learning": 3, "notes": 3, "ruling_text": 70, "prompts": 2}}
MAX_PAGES = 3


def debrief_context(tables, code: str, *, student: bool = False, data: dict | None = None,
                    section: dict | None = None, compact: int = 0) -> dict:
    COMPACT = LEVELS.get(compact, LEVELS[1])
    data = data or table_data(tables, code)
    table = data["table"]
    try:
        spec = engines.spec(table.game)
    except Exception:  # noqa: BLE001
        spec = None
    names = data["names"]
    result = _result(table)
    section = section if section is not None else game_section(table.game, data)
    started = data["start"].at if data["start"] else None
    ended = data["events"][-1].at if data["events"] else None
    visible = [e for e in data["entries"] if "visible_to" not in e]
    kinds = TABLE_MOMENTS | set(spec.key_moments if spec else ())
    moments = [{"version": e.get("version", 0), "text": m.get("text", "")} for m in section.get("moments") or []
               for e in [m] if isinstance(m, dict) and m.get("text")]
    if not moments:
        moments = [{"version": e["version"], "text": e.get("text", "")} for e in visible
                   if e.get("t") in kinds and e.get("t") != "ruling" and e.get("text")]
    platform = [{"version": e["version"], "text": e.get("text", "")} for e in visible
                if e.get("t") in ("kick", "pause", "lock", "end") and e.get("text")]
    seen = {(m["version"], m["text"]) for m in moments}
    moments = sorted(moments + [m for m in platform if (m["version"], m["text"]) not in seen],
                     key=lambda m: m["version"])
    at_of = {e.version: e.at for e in data["events"]}
    for m in moments:
        m["when"] = minute(at_of.get(m["version"]), started)
    most = COMPACT["moments"] if compact else MOMENTS_MAX
    head = 8 if most > 12 else 2
    shown_moments = moments if len(moments) <= most else moments[:head] + moments[-(most - head):]
    learning = [q for q in section.get("learning") or [] if isinstance(q, dict)]
    votes = [dict(v) for v in section.get("votes") or [] if isinstance(v, dict)]
    for v in votes:
        v["who"] = names[v["seat"]] if isinstance(v.get("seat"), int) and 0 <= v["seat"] < len(names) else ""
        v["when"] = minute(at_of.get(v.get("version")), started)
        if student and v.get("hidden"):
            v["explanation"] = ""
    votes_total = len(votes)
    votes_max = COMPACT["votes"] if compact else VOTES_MAX
    if votes_total > votes_max:
        # Every explanation the teacher judged or hid stays (up to MODERATED_MAX); then those the
        # class rejected, then the latest.
        moderated = [i for i, v in enumerate(votes) if v.get("decided_by") == "the teacher" or v.get("hidden")]
        kept = set(moderated[:MODERATED_MAX])
        rest = sorted((i for i in range(votes_total) if i not in kept),
                      key=lambda i: (votes[i].get("decision") != "rejected", -i))
        kept |= set(rest[:max(0, votes_max - len(kept))])
        votes = [votes[i] for i in sorted(kept)]
    for q in learning:
        q["who"] = names[q["seat"]] if isinstance(q.get("seat"), int) and 0 <= q["seat"] < len(names) else ""
    told = [e for e in visible if e.get("text") and e.get("t") != "ruling"]
    told_versions = [e["version"] for e in told]

    def moment_of(version: int) -> str:
        """What had just happened when a note was written: the last line players saw."""
        i = bisect.bisect_right(told_versions, version)
        return told[i - 1]["text"] if i else ""

    notes = [{"version": n.version, "game_version": n.game_version, "author": n.author, "text": n.text,
              "at": n.at, "when": minute(n.at, started), "moment": moment_of(n.version)} for n in data["notes"]]
    if student:
        notes = [n for n in notes if not is_teacher_note(n)]
    figures = section.get("figures") if isinstance(section.get("figures"), dict) else None
    if figures:
        figures = {"columns": list(figures.get("columns") or []),
                   "rows": [dict(r, name=names[r["seat"]] if isinstance(r.get("seat"), int)
                                 and 0 <= r["seat"] < len(names) else "")
                            for r in figures.get("rows") or [] if isinstance(r, dict)]}
    end = outcome(table, result, names, data)
    prompts = [p for p in section.get("prompts") or [] if isinstance(p, str)] + list(spec.discussion if spec else ())
    rulings = ruling_rows(spec, data, names)
    if compact:
        for r in rulings:
            r["moments"] = r["moments"][:1] if compact > 1 else r["moments"]
            r["more"] = r["count"] - len(r["moments"])
            r["text"] = r["text"] if len(r["text"]) <= COMPACT["ruling_text"] else \
                r["text"][:COMPACT["ruling_text"] - 1].rsplit(" ", 1)[0] + "…"
    teacher = None
    if table.facilitator_id is not None:
        fac = current_app.extensions["accounts"].get(table.facilitator_id)
        teacher = fac.name if fac else None
    series = section.get("series") if isinstance(section.get("series"), dict) else None
    players = [{"seat": i, "name": n, "computer": i in data["computers"], "removed": i in data["removed"]}
               for i, n in enumerate(names)]
    return {"table": table, "title": spec.title if spec else table.game, "names": dict(enumerate(names)),
            "players": players, "result": result, "outcome": end, "teacher": teacher,
            "date": _utc(started or table.created_at).strftime("%d %B %Y"),
            "started": _clock(started), "duration": _duration((_utc(ended) - _utc(started)).total_seconds())
            if started and ended else "", "moments": shown_moments, "moments_total": len(moments), "moments_head": head,
            "moves": len(data["events"]), "rulings": rulings,
            "notes": notes[:COMPACT["notes"] if compact else NOTES_MAX],
            "notes_total": len(notes), "learning": learning[:COMPACT["learning"] if compact else LEARNING_MAX],
            "learning_total": len(learning),
            "figures": figures, "votes": votes, "votes_total": votes_total, "prompts": prompts[:COMPACT["prompts"] if compact else 8],
            "series": series, "chart": race_svg(series, names) if series else None,
            "student": student, "section_failed": bool(section.get("failed")),
            "engine_version": table.engine_version, "data_versions": table.data_versions or {},
            "current_version": spec.version if spec else "", "discussion": list(spec.discussion if spec else ()),
            "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "platform_version": platform_version()}


def debrief_html(tables, code: str, *, student: bool = False, paper: str = "a4", compact: int = 0,
                 data: dict | None = None, section: dict | None = None) -> str:
    return render_html("reports/debrief.html", paper=PAPER[paper_of(paper)],
                           **debrief_context(tables, code, student=student, compact=compact, data=data,
                                             section=section))


def debrief_pdf(tables, code: str, *, student: bool = False, paper: str = "a4") -> bytes:
    """The sheet; a long game whose sheet runs past three pages is rendered again compact."""
    data = table_data(tables, code)
    section = game_section(data["table"].game, data)
    versions = [debrief_html(tables, code, student=student, paper=paper, data=data, section=section, compact=level)
                for level in (0, *LEVELS)]
    return render_pdf(versions[0], fallback=versions[1:], max_pages=MAX_PAGES)


# ---------------------------------------------------------------- rendering
JINJA_CHUNKS = 200   # template chunks written between two yields to the event loop


def render_html(template: str, **context) -> str:
    """A report template -> HTML. Under eventlet the template is written a chunk at a time,
    yielding to the event loop in between, so a 500-table class report never holds it."""
    app = current_app._get_current_object()
    context.setdefault("font_dir_url", Path(app.static_folder, "fonts").resolve().as_uri())
    context["style"] = Markup(app.jinja_env.get_template("reports/_style.html").render(**context))
    compiled = app.jinja_env.get_template(template)
    if not _green():
        return compiled.render(**context)
    parts = []
    for i, chunk in enumerate(compiled.generate(**context)):
        parts.append(chunk)
        if i % JINJA_CHUNKS == 0:
            cooperative_yield()
    return "".join(parts)


def _green() -> bool:
    try:
        from eventlet import patcher
    except ImportError:
        return False
    return patcher.is_monkey_patched("thread")


def render_pdf(html: str, *, fallback: list | None = None, max_pages: int = 0) -> bytes:
    """HTML -> PDF bytes (`fallback`: tighter HTMLs, tried in turn while the PDF runs past
    `max_pages`). Under eventlet, WeasyPrint runs in a process of its own
    (app/reports/render_worker.py), so the server keeps answering moves while a long
    report renders, and two reports render side by side."""
    from app.reports import render_worker

    fonts = str(Path(current_app.static_folder, "fonts"))
    htmls = [html, *(fallback or [])]
    if not _green():
        return render_worker.render(htmls, fonts, max_pages)
    import json
    import sys

    from eventlet.green import subprocess

    proc = subprocess.Popen([sys.executable, render_worker.__file__], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(json.dumps({"htmls": htmls, "font_dir": fonts, "max_pages": max_pages}).encode())
    if proc.returncode != 0 or not out.startswith(b"%PDF"):
        raise RuntimeError("The report could not be rendered: " + err.decode("utf-8", "replace")[-2000:])
    return out


def cooperative_yield() -> None:
    """Let other green threads run between tables while a long report gathers its data."""
    if _green():
        import eventlet
        eventlet.sleep(0)


__all__ = ["debrief_context", "debrief_html", "debrief_pdf", "render_pdf", "table_data", "game_section",
           "outcome", "ruling_rows"]
