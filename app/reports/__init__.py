"""Reports: a table's game log -> HTML (Jinja) -> PDF (WeasyPrint).

The debrief tells a teacher what happened at a table, in a teacher's words. Page 1
is what the next lesson needs: the result with the places beside the figure that
decided them, the game in a few plain sentences, three to five questions drawn from
what happened, and the students to check on with the reason. Then a chart of the
race, the key moments, what was learnt (trivia, per-student figures) and the notes.
Times are clock times in the teacher's zone, never the log's move numbers. The
rulings, with their ids and moves, are in the designers' copy (`designer=True`)
only. Each game adds its own section through its report hook (GameSpec.report, see
app/engines/contract.py); no file here names a game.

Rendering a PDF never blocks play: under eventlet, `render_html` writes the template a
chunk at a time between yields to the loop and `render_pdf` runs WeasyPrint in a
process of its own (render_worker.py).
"""
from __future__ import annotations

import bisect
import re
import logging
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from importlib import metadata
from zoneinfo import ZoneInfo

from pathlib import Path

from flask import current_app
from markupsafe import Markup

from app import engines, i18n
from app.engines.contract import GameSpec
from app.engines.text import N_, NP_
from app.extensions import services
from app.service import student_text
from app.service.tables import AFTER_GAME
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
UTC = ZoneInfo("UTC")
# DejaVu (shipped) first, then Debian's Noto fonts for the scripts it lacks (render_worker.NOTO_FILES).
FONT_STACK = Markup('"Report Sans", "Noto Sans", "Noto Sans Devanagari", "Noto Sans Thai", "Noto Sans Arabic", '
                    '"Noto Sans Hebrew", "Noto Sans CJK SC", sans-serif')
QUESTIONS_MIN, QUESTIONS_MAX = 3, 5     # page 1's discussion questions
REFUSALS_TO_CHECK = 5                   # refused moves that put a student on the "check on" list
ACCURACY_TO_CHECK = 0.5                 # below this share of right answers (of 2 or more)
ABSENCE_TO_CHECK = timedelta(minutes=5)  # a seat silent this long while the others played


def platform_version() -> str:
    try:
        return metadata.version("classroom-games")
    except metadata.PackageNotFoundError:
        return "0.1.0"


def paper_of(value) -> str:
    return value if value in PAPER else "a4"


def as_utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def clock(moment: datetime | None, tz: ZoneInfo = UTC) -> str:
    return as_utc(moment).astimezone(tz).strftime("%H:%M") if moment else ""


def zone_label(tz: ZoneInfo) -> str:
    return "UTC" if tz.key == "UTC" else tz.key.replace("_", " ")


def _duration(seconds: float) -> str:
    minutes = int(round(seconds / 60))
    if minutes < 1:
        return N_("under a minute")
    if minutes < 60:
        return N_("{minutes} min").format(minutes=minutes)
    return N_("{hours} h {minutes} min").format(hours=minutes // 60, minutes=f"{minutes % 60:02d}")


# The engines' reason codes as `humanize` words them, for the catalogs (a students' copy
# translates the reason in "Ana won (time up).").
REASONS = (N_("ended by facilitator"), N_("lesson clock ran out"), N_("ran too long"), N_("time up"),
           N_("elimination"), N_("simultaneous elimination"), N_("sudden death"), N_("full elimination"),
           N_("run complete"), N_("run lost"), N_("run stopped"))


def humanize(text) -> str:
    """An engine's reason code ('full_elimination', 'time_up') as words; a sentence stays as it is."""
    text = str(text or "")
    return text.replace("_", " ") if " " not in text else text


# ----------------------------------------------------------------- raw data
def table_data(tables, code: str) -> dict:
    """Everything a report reads about one table, as plain data (one pass over the database)."""
    table = tables.get(code)
    # The game's record: not what came after it (players asking to play again, the rematch).
    events = [e for e in tables.events(code) if not (e.kind == "table" and e.action.get("type") in AFTER_GAME)]
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
            "start": start, "seats": seat_rows, "refusals": tables.refusals(code)}


def hidden_names(data: dict) -> dict[str, str]:
    """The names the teacher hid at this table, each with what the students' copy says
    instead ("Player N": app/service/student_text.py)."""
    seats = {x.id: x.seat_index for x in data.get("seats") or [] if x.seat_index is not None}
    return student_text.hidden_names(data["table"].texts or {}, seats, "students",
                                     [x.name for x in data.get("seats") or []])


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


# The default learning heading, _capitalised(learning_noun(...)[1]).
N_("Questions")


def learning_noun(section: dict) -> tuple[str, str]:
    """What the game's learning rows are, (singular, plural): the game's words
    ("trivia question"), else plain "question"."""
    noun = section.get("learning_noun")
    if isinstance(noun, (list, tuple)) and len(noun) == 2 and all(isinstance(w, str) and w for w in noun):
        return noun[0], noun[1]
    return N_("question"), N_("questions")


def _result(table):
    if table.state is None:
        return None
    try:
        return engines.get(table.game).result(table.state)
    except Exception:  # noqa: BLE001 - an old snapshot the engine no longer reads
        return None


def outcome(table, result, names: list[str], data: dict, tz: ZoneInfo = UTC) -> dict:
    """How the table ended, in words: {status, label, winners, sentence}."""
    name = lambda s: names[s] if isinstance(s, int) and 0 <= s < len(names) else N_("Seat {n}").format(n=s + 1)  # noqa: E731
    last = data["events"][-1].at if data["events"] else table.created_at
    if result:
        winners = [name(s) for s in result.get("winners") or []]
        reason = humanize(result.get("reason"))
        if winners and any(reason.startswith(w) for w in winners):
            sentence = reason.rstrip(".") + "."   # the game's own sentence names the winner: said once
        elif winners:
            one = len(winners) == 1
            if reason:
                sentence = (N_("{winners} won ({reason}).") if one else N_("{winners} shared the win ({reason})."))
            else:
                sentence = N_("{winners} won.") if one else N_("{winners} shared the win.")
            sentence = sentence.format(winners=" and ".join(winners), reason=reason)
        else:
            sentence = N_("Nobody won ({reason}).").format(reason=reason) if reason else N_("Nobody won.")
        ends = [ev for ev in data["events"] if ev.kind == "table" and ev.action.get("type") == "end"]
        if ends and ends[-1].action.get("cause") == "lesson_clock":  # by the game's tie-break (its ruling)
            return {"status": "closed", "label": N_("The lesson clock ran out"), "winners": winners,
                    "sentence": sentence}
        ended = bool(ends)
        if ended:  # the teacher ended it and the game named a winner by its own count
            return {"status": "closed", "label": N_("Ended by the teacher"), "winners": winners, "sentence": sentence}
        return {"status": "finished", "label": N_("Finished"), "winners": winners, "sentence": sentence}
    if table.status == "ended":
        if data["start"] is None:
            return {"status": "closed", "label": N_("Closed before it started"), "winners": [],
                    "sentence": N_("The teacher closed the table before the game started.")}
        return {"status": "closed", "label": N_("Ended by the teacher"), "winners": [],
                "sentence": N_("The teacher ended the game before anyone won.")}
    idle = datetime.now(timezone.utc) - as_utc(last)
    if table.status == "lobby":
        if idle > ABANDONED_AFTER:
            return {"status": "abandoned", "label": N_("Abandoned in the lobby"), "winners": [],
                    "sentence": N_("The game never started; nothing happened after {time}.").format(time=clock(last, tz))}
        return {"status": "lobby", "label": N_("Not started yet"), "winners": [],
                "sentence": N_("The game has not started yet.")}
    if idle > ABANDONED_AFTER:
        return {"status": "abandoned", "label": N_("Abandoned"), "winners": [],
                "sentence": N_("Unfinished: the last move was at {time} and nobody won.").format(time=clock(last, tz))}
    return {"status": "playing", "label": N_("Still playing"), "winners": [],
            "sentence": N_("Still being played when this report was made.")}


def ruling_rows(spec, data: dict, names: list[str], tz: ZoneInfo = UTC) -> list[dict]:
    """Each ruling that applied: title and text from the catalogue, how often, and the
    moments (time and who) it applied."""
    catalogue = {r["id"]: r for r in spec.rulings} if spec else {}
    counters = spec.moment_counters if spec else GameSpec.moment_counters
    started = data["start"].at if data["start"] else None
    by_id: dict[str, list] = defaultdict(list)
    for e in data["entries"]:
        if e.get("t") == "ruling" and e.get("id"):
            by_id[str(e["id"])].append(e)
    rows = []
    for rid, applied in sorted(by_id.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        entry = catalogue.get(rid, {})
        title = entry.get("title") or _first_sentence(entry.get("text") or applied[0].get("text", ""))
        moments = [_moment_label(e, started, names, counters, tz) for e in applied[:RULING_MOMENTS_MAX]]
        rows.append({"id": rid, "kind": entry.get("kind", ""), "title": title,
                     "text": entry.get("text") or applied[0].get("text", ""), "count": len(applied),
                     "moments": moments, "more": max(0, len(applied) - RULING_MOMENTS_MAX)})
    return rows


def _first_sentence(text: str) -> str:
    text = str(text or "").strip()
    cut = text.find(". ")
    text = text[:cut + 1] if 0 < cut < 120 else text
    return text if len(text) <= 120 else text[:117] + "…"


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def minute(at, started, tz: ZoneInfo = UTC) -> str:
    if at is None:
        return ""
    if started is None:
        return clock(at, tz)
    seconds = (as_utc(at) - as_utc(started)).total_seconds()
    # "10:04 (12 min)": no template of its own (one as wide as "{a} ({b})" would match any
    # text with brackets); a students' copy translates what is in the brackets (localized_context).
    if seconds < 0:
        return clock(at, tz)
    since = _duration(seconds) if seconds >= 60 else N_("first minute")
    return f"{clock(at, tz)} ({since})"


def _moment_label(e: dict, started, names: list[str], counters: tuple, tz: ZoneInfo = UTC) -> str:
    """ "move 12, 10:04, Ana, battle 7": the first of the game's moment counters
    (GameSpec.moment_counters) the entry carries names the moment in the game's words."""
    bits = [f"move {e['version']}", clock(e.get("at"), tz)]
    seat = e.get("seat")
    if isinstance(seat, int) and 0 <= seat < len(names):
        bits.append(names[seat])
    for key in counters:
        if isinstance(e.get(key), int):
            bits.append(f"{key} {e[key]}")
            break
    return ", ".join(b for b in bits if b)


# ------------------------------------------------------------------ page 1
def standings(result: dict | None, names: list[str], section: dict, removed=()) -> dict | None:
    """The places as the game ranked them, beside the figure that decided them and the
    score the game reports, each column named (a game whose score is not what ranks,
    such as chips in a wager, says both). A removed student's row says the computer
    finished their game."""
    if not result or not result.get("ranking"):
        return None
    ranking = [s for s in result["ranking"] if isinstance(s, int)]
    scores = result.get("scores") if isinstance(result.get("scores"), list) else []
    decided = section.get("decided_by") if isinstance(section.get("decided_by"), dict) else None
    decided_values = list(decided.get("values") or []) if decided else []
    if decided and len(decided_values) != len(names):
        decided, decided_values = None, []
    columns = ([str(decided.get("label") or "")] if decided else []) + [str(section.get("score_label") or N_("Score"))]
    winners = set(result.get("winners") or [])
    rows = []
    for i, seat in enumerate(ranking):
        # The game's order is the place; only those who shared the win share a place
        # (equal figures may still be ordered by the game's tie-breaks).
        place = 1 if seat in winners else i + 1
        values = ([decided_values[seat]] if decided else []) + [scores[seat] if seat < len(scores) else ""]
        rows.append({"place": place, "seat": seat, "values": values, "removed": seat in removed,
                     "name": names[seat] if 0 <= seat < len(names) else N_("Seat {n}").format(n=seat + 1)})
    return {"columns": columns, "rows": rows}


def _seat_of(actor: str):
    if isinstance(actor, str) and actor.startswith("seat:"):
        try:
            return int(actor.split(":", 1)[1])
        except ValueError:
            return None
    return None


def check_on(data: dict, section: dict, tz: ZoneInfo = UTC) -> list[dict]:
    """The students a teacher may want a word with, each with the reasons from the log:
    removed, many refused moves, low accuracy on the game's questions, rejected
    explanations, a long silence while the others played. Computer seats are left out."""
    names, computers = data["names"], set(data["computers"]) - set(data["removed"])
    reasons: dict[int, list[str]] = defaultdict(list)
    for ev in data["events"]:
        if ev.kind == "table" and ev.action.get("type") == "kick" and isinstance(ev.action.get("seat"), int):
            reasons[ev.action["seat"]].append(f"removed by the teacher at {clock(ev.at, tz)}")
    refused = Counter(_seat_of(r.actor) for r in data.get("refusals") or [])
    for seat, n in refused.items():
        if seat is not None and n >= REFUSALS_TO_CHECK:
            reasons[seat].append(f"{n} moves refused by the rules")
    asked, right = Counter(), Counter()
    for q in section.get("learning") or []:
        if isinstance(q, dict) and isinstance(q.get("seat"), int):
            asked[q["seat"]] += 1
            right[q["seat"]] += bool(q.get("correct"))
    noun = learning_noun(section)[1]
    for seat, n in asked.items():
        if n >= 2 and right[seat] / n < ACCURACY_TO_CHECK:
            reasons[seat].append(f"{right[seat]} of {n} {noun} right")
    rejected = Counter(v["seat"] for v in section.get("votes") or []
                       if isinstance(v, dict) and v.get("decision") == "rejected" and isinstance(v.get("seat"), int))
    for seat, n in rejected.items():
        reasons[seat].append(f"{n} explanation{'s' if n > 1 else ''} rejected")
    moves: dict[int, list] = defaultdict(list)
    for ev in data["events"]:
        seat = _seat_of(ev.actor)
        if ev.kind == "game" and seat is not None:
            moves[seat].append(as_utc(ev.at))
    game_moves = sorted(as_utc(ev.at) for ev in data["events"] if ev.kind == "game")
    for seat, times in moves.items():
        # The longest wait between this seat's moves while the others kept moving.
        gaps = [(b - a, a) for a, b in zip(times, times[1:])
                if any(a < t < b for t in game_moves[bisect.bisect_right(game_moves, a):][:1])]
        if game_moves and game_moves[-1] > times[-1]:   # silent from their last move to the end
            gaps.append((game_moves[-1] - times[-1], times[-1]))
        if gaps:
            gap, since = max(gaps)
            if gap >= ABSENCE_TO_CHECK:
                reasons[seat].append(f"no move for {_duration(gap.total_seconds())} from {clock(since, tz)}")
    return [{"seat": seat, "name": names[seat], "reasons": why} for seat, why in sorted(reasons.items())
            if 0 <= seat < len(names) and seat not in computers and why]


def story(end: dict, players: list[dict], moments: list[dict], started: str, duration: str,
          section: dict) -> list[str]:
    """The game in a few plain sentences: who played from when, the game's own story lines
    (its report hook's `story`) or the first and last key moments, and how it ended."""
    humans = [p["name"] for p in players if not p["computer"] or p["removed"]]
    computers = sum(1 for p in players if p["computer"] and not p["removed"])
    lines = []
    if humans or computers:
        who = ", ".join(humans[:-1]) + (" and " if len(humans) > 1 else "") + (humans[-1] if humans else "")
        if who and computers:
            who = NP_("{players} with {n} computer player", "{players} with {n} computer players",
                      computers).format(players=who, n=computers)
        elif computers:
            who = NP_("{n} computer player", "{n} computer players", computers).format(n=computers)
        played = (N_("{players} played from {start} for {duration}.") if started and duration
                  else N_("{players} played from {start}.") if started
                  else N_("{players} played for {duration}.") if duration else N_("{players} played."))
        lines.append(played.format(players=who, start=started, duration=duration))
    told = [str(x) for x in section.get("story") or [] if isinstance(x, str) and x]
    if not told and moments:
        picks = moments if len(moments) <= 3 else [moments[0], moments[len(moments) // 2], moments[-1]]
        told = [m["text"] for m in picks]
    said = end["sentence"].rstrip(".")
    told = [t for t in told if said not in t]    # the ending is said once, last
    lines += [t if t.endswith((".", "!", "?")) else t + "." for t in told[:4]]
    lines.append(end["sentence"])
    for p in players:
        if p["removed"]:
            lines.append(N_("{name} was removed by the teacher; a computer player finished their game.")
                         .format(name=p["name"]))
    return lines


def questions(section: dict, spec) -> list[str]:
    """Three to five questions for the class: those drawn from what happened at this
    table first, then the game's standing questions."""
    drawn = [p for p in section.get("prompts") or [] if isinstance(p, str) and p]
    standing = [p for p in (spec.discussion if spec else ()) if p not in drawn]
    return (drawn + standing)[:QUESTIONS_MAX]


# ------------------------------------------------------------------ debrief
# Tighter limits for a long game whose sheet would run past MAX_PAGES.
LEVELS = {1: {"moments": 12, "votes": 3, "learning": 8, "notes": 10, "ruling_text": 220, "prompts": 5},
          2: {"moments": 8, "votes": 2, "learning": 5, "notes": 5, "ruling_text": 110, "prompts": 3},
          # The last resort of a very long game: the rest is in log.csv and notes.csv.
          3: {"moments": 5, "votes": 1, "learning": 3, "notes": 3, "ruling_text": 70, "prompts": 2}}
MAX_PAGES = 3


def debrief_context(tables, code: str, *, student: bool = False, data: dict | None = None,
                    section: dict | None = None, compact: int = 0, designer: bool = False,
                    tz: ZoneInfo = UTC) -> dict:
    """What a sheet shows. The teacher's copy: page 1 holds the result, the story, the
    questions and the students to check on; then the game's details and the notes. The
    designers' copy (`designer`) adds the rulings with their ids and moves; the students'
    copy (`student`) leaves out what the teacher hid and the check-on list."""
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
        m["when"] = minute(at_of.get(m["version"]), started, tz)
    most = COMPACT["moments"] if compact else MOMENTS_MAX
    head = 8 if most > 12 else 2
    shown_moments = moments if len(moments) <= most else moments[:head] + moments[-(most - head):]
    learning = [q for q in section.get("learning") or [] if isinstance(q, dict)]
    votes = [dict(v) for v in section.get("votes") or [] if isinstance(v, dict)]
    for v in votes:
        v["who"] = names[v["seat"]] if isinstance(v.get("seat"), int) and 0 <= v["seat"] < len(names) else ""
        v["when"] = minute(at_of.get(v.get("version")), started, tz)
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

    # The student copy holds only the notes the table itself could read (app/service/student_text.py).
    notes = [{"version": n.version, "game_version": n.game_version, "author": n.author, "text": n.text,
              "teacher": n.role == "teacher", "hidden": n.hidden,
              "at": n.at, "when": minute(n.at, started, tz), "moment": moment_of(n.version)} for n in data["notes"]
             if not student or student_text.note_readable(n, "students")]
    figures = section.get("figures") if isinstance(section.get("figures"), dict) else None
    if figures:
        figures = {"columns": list(figures.get("columns") or []),
                   "rows": [dict(r, name=names[r["seat"]] if isinstance(r.get("seat"), int)
                                 and 0 <= r["seat"] < len(names) else "")
                            for r in figures.get("rows") or [] if isinstance(r, dict)]}
    end = outcome(table, result, names, data, tz)
    prompts = questions(section, spec)
    rulings = ruling_rows(spec, data, names, tz) if designer and not student else []
    if compact:
        for r in rulings:
            r["moments"] = r["moments"][:1] if compact > 1 else r["moments"]
            r["more"] = r["count"] - len(r["moments"])
            r["text"] = r["text"] if len(r["text"]) <= COMPACT["ruling_text"] else \
                r["text"][:COMPACT["ruling_text"] - 1].rsplit(" ", 1)[0] + "…"
    teacher = None
    if table.facilitator_id is not None:
        fac = services().accounts.get(table.facilitator_id)
        teacher = fac.name if fac else None
    series = section.get("series") if isinstance(section.get("series"), dict) else None
    hidden = hidden_names(data)
    players = [{"seat": i, "name": n, "computer": i in data["computers"], "removed": i in data["removed"],
                "name_hidden": n in hidden} for i, n in enumerate(names)]
    context = {"table": table, "title": spec.title if spec else table.game, "names": dict(enumerate(names)),
            "players": players, "result": result, "outcome": end, "teacher": teacher,
            "date": as_utc(started or table.created_at).astimezone(tz).strftime("%d %B %Y"),
            "day": as_utc(started or table.created_at).astimezone(tz).date(),
            "started": clock(started, tz), "zone": zone_label(tz),
            "duration": _duration((as_utc(ended) - as_utc(started)).total_seconds())
            if started and ended else "", "moments": shown_moments, "moments_total": len(moments), "moments_head": head,
            "moves": len(data["events"]), "rulings": rulings,
            "notes": notes[:COMPACT["notes"] if compact else NOTES_MAX],
            "notes_total": len(notes), "learning": learning[:COMPACT["learning"] if compact else LEARNING_MAX],
            "learning_total": len(learning), "learning_heading": _capitalised(learning_noun(section)[1]),
            "figures": figures, "votes": votes, "votes_total": votes_total, "prompts": prompts,
            "standings": standings(result, names, section, data["removed"]),
            "score_label": section.get("score_label") or N_("Score"),
            "check_on": [] if student else check_on(data, section, tz), "designer": designer and not student,
            "series": series, "chart": race_svg(series, names, span=(f"start {clock(started, tz)}".strip(),
                                                                     f"end {clock(ended, tz)}".strip()))
            if series else None,
            "student": student, "section_failed": bool(section.get("failed")),
            "engine_version": table.engine_version, "data_versions": table.data_versions or {},
            "current_version": spec.version if spec else "", "discussion": list(spec.discussion if spec else ()),
            "generated": datetime.now(timezone.utc).astimezone(tz).strftime("%Y-%m-%d %H:%M ") + zone_label(tz),
            "platform_version": platform_version()}
    context["story"] = story(end, players, moments, context["started"], context["duration"], section)
    if student:  # the texts and names the teacher hid (or never approved) stay out of the students' copy
        context = student_text.redact(context, student_text.withheld(table.texts or {}, "board"), hidden)
    return context


# What a students' copy prints as it is in every language: names, what students wrote,
# the chart (markup), versions and clock times.
WHEN = re.compile(r"(\d\d:\d\d) \((.+)\)")
REPORT_KEEP = frozenset({"names", "when", "name", "who", "author", "winners", "teacher", "explanation", "reason",
                         "chart", "engine_version", "current_version", "data_versions", "platform_version",
                         "generated", "zone", "started", "date", "day", "table"})


def report_language(tables, code: str, table=None) -> str:
    """The language of a table's board (a class table's: its class's), which its students'
    copy of the debrief is printed in."""
    try:
        return tables.live(code).language or i18n.DEFAULT
    except Exception:  # noqa: BLE001 - a table the service cannot load: its own column
        return getattr(table, "language", None) or i18n.DEFAULT


def localized_context(context: dict, lang: str, game: str | None) -> dict:
    """A debrief's context for readers of `lang`: the English sentences built from the
    catalogs' templates translated, names and what students wrote as they are, and the
    date in the language's long form."""
    from babel.dates import format_date

    out = i18n.localize_payload(context, lang, game, keep=REPORT_KEEP)

    def when(text):
        match = WHEN.fullmatch(text) if isinstance(text, str) else None
        return f"{match[1]} ({i18n.localize(match[2], lang, game)})" if match else text

    for rows in ("moments", "votes", "notes"):
        out[rows] = [dict(row, when=when(row.get("when"))) if isinstance(row, dict) else row for row in out[rows]]
    # A vote's cards (KEEP holds "cards", a value phones send back): here only names to read.
    out["votes"] = [dict(v, cards=[i18n.localize(c, lang, game) for c in v.get("cards") or []])
                    if isinstance(v, dict) and isinstance(v.get("cards"), list) else v for v in out["votes"]]
    # A note's text is a student's or the teacher's own words; only the moment it follows is a game's.
    out["notes"] = [dict(translated, text=original["text"])
                    for original, translated in zip(context["notes"], out["notes"])]
    if context.get("day") is not None:
        out["date"] = format_date(context["day"], format="long", locale=lang)
    out["report_lang"] = lang
    return out


def debrief_html(tables, code: str, *, student: bool = False, paper: str = "a4", compact: int = 0,
                 data: dict | None = None, section: dict | None = None, designer: bool = False,
                 tz: ZoneInfo = UTC) -> str:
    """The sheet as HTML: the teacher's and the designers' copies in English; the
    students' copy in the language of the table's board."""
    context = debrief_context(tables, code, student=student, compact=compact, data=data, section=section,
                              designer=designer, tz=tz)
    lang = report_language(tables, code, context["table"]) if student else i18n.DEFAULT
    if lang == i18n.DEFAULT:
        return render_html("reports/debrief.html", paper=PAPER[paper_of(paper)], **context)
    from flask_babel import force_locale

    context = localized_context(context, lang, context["table"].game)
    with force_locale(lang):
        return render_html("reports/debrief.html", paper=PAPER[paper_of(paper)], **context)


def debrief_pdf(tables, code: str, *, student: bool = False, paper: str = "a4", designer: bool = False,
                tz: ZoneInfo = UTC) -> bytes:
    """The sheet; a long game whose sheet runs past three pages is rendered again compact
    (the designers' copy, with every ruling, may run longer)."""
    data = table_data(tables, code)
    section = game_section(data["table"].game, data)
    versions = [debrief_html(tables, code, student=student, paper=paper, data=data, section=section, compact=level,
                             designer=designer, tz=tz)
                for level in (0, *LEVELS)]
    return render_pdf(versions[0], fallback=versions[1:], max_pages=0 if designer else MAX_PAGES)


# ---------------------------------------------------------------- rendering
JINJA_CHUNKS = 200   # template chunks written between two yields to the event loop


def render_html(template: str, **context) -> str:
    """A report template -> HTML. Under eventlet the template is written a chunk at a time,
    yielding to the event loop in between, so a 500-table class report never holds it."""
    app = current_app._get_current_object()
    context.setdefault("font_dir_url", Path(app.static_folder, "fonts").resolve().as_uri())
    context.setdefault("font_stack", FONT_STACK)
    context["style"] = Markup(app.jinja_env.get_template("reports/_style.html").render(**context))
    compiled = app.jinja_env.get_template(template)
    if not on_eventlet():
        return compiled.render(**context)
    parts = []
    for i, chunk in enumerate(compiled.generate(**context)):
        parts.append(chunk)
        if i % JINJA_CHUNKS == 0:
            cooperative_yield()
    return "".join(parts)


def on_eventlet() -> bool:
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
    if not on_eventlet():
        return render_worker.render(htmls, fonts, max_pages)
    import sys

    out = in_a_process([sys.executable, render_worker.__file__],
                       {"htmls": htmls, "font_dir": fonts, "max_pages": max_pages}, "The report could not be rendered")
    if not out.startswith(b"%PDF"):
        raise RuntimeError("The report could not be rendered: the worker wrote no PDF")
    return out


def in_a_process(command: list[str], job: dict, failure: str, cwd: str | None = None, on_line=None) -> bytes:
    """Heavy work (WeasyPrint, the balance lab's games) under eventlet: `command` runs as
    a process of its own with `job` as JSON on stdin; its stdout comes back while the
    event loop keeps serving moves (a green pipe). With `on_line`, stdout is read a line
    at a time as the process writes it, each line handed to `on_line` (b"" returned); if
    `on_line` raises (a report job stopped), the process is killed and the error passed on."""
    import json
    import tempfile

    from eventlet.green import subprocess

    if on_line is None:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd)
        out, err = proc.communicate(json.dumps(job).encode())
        if proc.returncode != 0:
            raise RuntimeError(f"{failure}: " + err.decode("utf-8", "replace")[-2000:])
        return out
    with tempfile.TemporaryFile() as err:   # a file, not a pipe: a chatty stderr never stalls the process
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, cwd=cwd)
        try:
            proc.stdin.write(json.dumps(job).encode())
            proc.stdin.close()
            for line in proc.stdout:
                on_line(line)
            proc.wait()
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{failure}: " + err.read().decode("utf-8", "replace")[-2000:])
    return b""


def cooperative_yield() -> None:
    """Let other green threads run between tables while a long report gathers its data."""
    if on_eventlet():
        import eventlet
        eventlet.sleep(0)


__all__ = ["debrief_context", "debrief_html", "debrief_pdf", "render_pdf", "table_data", "game_section",
           "outcome", "ruling_rows"]
