"""The playtest report: one game across a teacher's tables over a date range, for the
game's authors. Every figure is split by the setting that changes the game (the
table's options, player count and computer seats): tables played, game lengths, win
rate by seat and by first player with the number of games, a 95 % Wilson interval and
the fair rate; games the teacher ended or that were left unfinished are counted apart.
Then how often each ruling applied (with examples), refused moves by error code,
stalemates and the game's notable events (its report hook's `counts`), the notes the
table could read, each at the event it followed, with students called Player N, and
the engine and card-data versions. The CSV has the same per table, options included.
Days and times are the teacher's (`tz`, as in the debriefs): a day of the range runs
from the teacher's midnight to the next.
"""
from __future__ import annotations

import math
import re
import statistics
from collections import Counter, defaultdict
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

from sqlmodel import Session, select

from app import engines
from app.service import student_text
from app.store.models import GameTable, Refusal
from app.reports import (PAPER, UTC, on_eventlet, as_utc, clock, cooperative_yield, game_section, humanize,
                         in_a_process, outcome, paper_of, platform_version, render_html, render_pdf, table_data,
                         zone_label)
from app.reports.exports import csv_text

EXAMPLES = 3
NOTES_MAX = 300
Z95 = 1.96                 # a 95 % Wilson interval
PLAYTEST_COLUMNS = ("table", "created", "status", "setting", "options", "players", "humans", "computers",
                    "engine_version", "data_versions", "moves", "minutes", "first_player", "winners", "ending",
                    "rulings", "refusals", "notes")


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a win rate (a sound interval for small samples and
    rates near 0 or 1, where the plain ± interval is not)."""
    if games <= 0:
        return None
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def rate_row(label: str, wins: int, games: int, fair: float) -> dict:
    """A win rate with its sample size, its 95 % interval and the rate a fair game gives;
    `unfair` when the interval leaves the fair rate out."""
    ci = wilson(wins, games)
    return {"label": label, "wins": wins, "games": games, "fair": round(100 * fair),
            "rate": round(100 * wins / games) if games else None,
            "low": round(100 * ci[0]) if ci else None, "high": round(100 * ci[1]) if ci else None,
            "unfair": bool(ci) and not ci[0] <= fair <= ci[1]}


def setting_of(table, players: int, computers: int) -> tuple:
    """What changes the game: every option the table was made with, how many players
    and how many of them computers. Tables are compared only within one setting."""
    options = tuple(sorted((str(k), str(v)) for k, v in (table.options or {}).items()))
    return options, players, computers


def setting_label(setting: tuple) -> str:
    options, players, computers = setting
    said = "; ".join(f"{k.replace('_', ' ')}: {v.replace('_', ' ')}" for k, v in options) or "default options"
    return f"{said} · {players} player{'s' if players != 1 else ''}" + \
        (f" ({computers} computer)" if computers == 1 else f" ({computers} computers)" if computers else "")


def anonymous(text: str, names: list[str]) -> str:
    """A note for the game's authors names no student: each seat's name becomes Player N."""
    for seat, name in sorted(enumerate(names), key=lambda x: -len(x[1] or "")):
        if name and len(name) > 1:
            text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", f"Player {seat + 1}", text)
    return text


def parse_day(text, default: date) -> date:
    try:
        return date.fromisoformat(str(text)) if text else default
    except ValueError:
        return default


def tables_in_range(db, facilitator_id: int, game: str, start: date, end: date, tz=UTC) -> list[GameTable]:
    """The tables made from the teacher's midnight starting `start` to the one ending `end`."""
    lo = datetime.combine(start, time.min, tzinfo=tz).astimezone(timezone.utc)
    hi = datetime.combine(end + timedelta(days=1), time.min, tzinfo=tz).astimezone(timezone.utc)
    with Session(db) as s:
        return list(s.exec(select(GameTable).where(GameTable.facilitator_id == facilitator_id,
                                                   GameTable.game == game, GameTable.created_at >= lo,
                                                   GameTable.created_at < hi)
                           .order_by(GameTable.created_at)).all())


def _refusals(db, table_ids: list[int]) -> list[Refusal]:
    if not table_ids:
        return []
    with Session(db) as s:
        return list(s.exec(select(Refusal).where(Refusal.table_id.in_(table_ids))).all())


def _first_player(data: dict):
    for ev in data["events"]:
        if ev.kind == "game" and ev.actor.startswith("seat:"):
            try:
                return int(ev.actor.split(":")[1])
            except ValueError:
                return None
    return None


def balance_lab(game: str, settings: list[dict], games: int, progress=None) -> list[dict]:
    """The lab's figures (app/reports/lab.py), in a process of its own under eventlet.
    `progress(played, in_all)`: called as the games are played (a report job's gauge)."""
    from app.reports import lab
    if not games or not settings:
        return []
    if not on_eventlet():
        return lab.run(game, settings, games, progress=progress)
    import json
    import sys
    root = str(Path(lab.__file__).resolve().parents[2])
    runs = []

    def line(raw: bytes) -> None:
        said = json.loads(raw)
        if "progress" in said and progress is not None:
            progress(*said["progress"])
        if "runs" in said:
            runs.append(said["runs"])

    in_a_process([sys.executable, "-m", "app.reports.lab"], {"game": game, "settings": settings, "games": games},
                 "The balance lab failed", cwd=root, on_line=line)
    if not runs:
        raise RuntimeError("The balance lab failed: it wrote no figures")
    return runs[-1]


def playtest_context(tables, db, facilitator_id: int, game: str, start: date, end: date, *, lab: int = 0,
                     tz=UTC, progress=None) -> dict:
    """`lab`: games per level the balance lab plays for each setting (0: no lab; none is
    played when no table of the period has players to compare); `tz`: the teacher's
    zone, of the days and of every time shown; `progress(played, in_all)`: the lab's gauge."""
    spec = engines.spec(game)
    catalogue = {r["id"]: r for r in spec.rulings}
    chosen = tables_in_range(db, facilitator_id, game, start, end, tz)
    refusals = _refusals(db, [t.id for t in chosen])
    refused_by_table = Counter(r.table_id for r in refusals)
    refusal_codes: dict[str, Counter] = defaultdict(Counter)
    refusal_groups: dict[str, Counter] = defaultdict(Counter)
    group_of_table: dict[int, str] = {}
    rows, notes = [], []
    groups: dict[tuple, dict] = {}
    ruling_count, ruling_tables, ruling_examples = Counter(), defaultdict(set), defaultdict(list)
    ruling_groups: dict[str, Counter] = defaultdict(Counter)
    counts, versions, data_versions = Counter(), Counter(), Counter()
    played = 0
    for table in chosen:
        cooperative_yield()
        data = table_data(tables, table.code)
        started = data["start"] is not None
        section = game_section(game, data) if started else {}
        result = None
        if table.state is not None:
            try:
                result = engines.get(game).result(table.state)
            except Exception:  # noqa: BLE001
                result = None
        end_ = outcome(table, result, data["names"], data, tz)
        n = len(data["names"])
        computers = len(set(data["computers"]))
        setting = setting_of(table, n, computers)
        group = groups.setdefault(setting, {"setting": setting, "options": dict(table.options or {}), "tables": 0,
                                            "finished": 0, "status": Counter(),
                                            "seat_wins": Counter(), "first": [0, 0], "lengths": [], "minutes": [],
                                            "shared": 0, "computer_wins": 0, "computer_seats": 0})
        group["tables"] += 1
        versions[table.engine_version] += 1
        data_versions[", ".join(f"{k} {v}" for k, v in sorted((table.data_versions or {}).items())) or "none"] += 1
        moves = sum(1 for ev in data["events"] if ev.kind == "game")
        mins = None
        if started and data["events"]:
            mins = (as_utc(data["events"][-1].at) - as_utc(data["start"].at)).total_seconds() / 60
        first = _first_player(data)
        winners = (result or {}).get("winners") or []
        if started:
            played += 1
        # Only games the rules finished count in the rates: a game the teacher ended (even
        # where the game named a leader) or one left unfinished is counted apart.
        group["status"][end_["label"]] += 1
        if end_["status"] == "finished":
            group["finished"] += 1
            group["lengths"].append(moves)
            if mins is not None:
                group["minutes"].append(mins)
            for s in winners:
                group["seat_wins"][s] += 1
            if first is not None:
                group["first"][0] += first in winners
                group["first"][1] += 1
            group["shared"] += len(winners) != 1
            group["computer_seats"] += computers
            group["computer_wins"] += sum(1 for s in winners if s in data["computers"])
        for label, c in (section.get("counts") or {}).items():
            if isinstance(c, int):
                counts[str(label).replace("_", " ").capitalize()] += c
        context_line = {}   # version -> the first thing players saw at that move (what the ruling settled)
        for e in data["entries"]:
            if e.get("t") != "ruling" and "visible_to" not in e and e.get("text"):
                context_line.setdefault(e["version"], anonymous(e["text"], data["names"]))
        group_of_table[table.id] = setting_label(setting)
        for e in data["entries"]:
            if e.get("t") == "ruling" and e.get("id"):
                ruling_count[e["id"]] += 1
                ruling_tables[e["id"]].add(table.code)
                ruling_groups[e["id"]][setting] += 1
                if len(ruling_examples[e["id"]]) < EXAMPLES and table.code not in \
                        {x["table"] for x in ruling_examples[e["id"]]}:
                    ruling_examples[e["id"]].append({"table": table.code, "text": context_line.get(e["version"], ""),
                                                     "when": _moment(data, e["version"], tz)})
        # The authors read what the table could read, never a teacher-only or hidden note,
        # and no student's name. Each note is tied to the event it followed (the table's
        # version when it was written, kept with the note) and the engine it was written on.
        for note in data["notes"]:
            if not student_text.note_readable(note, "students") or len(notes) >= NOTES_MAX:
                continue
            at = [e for e in data["entries"] if e["version"] == note.version]
            notes.append({"table": table.code, "setting": setting, "version": note.version,
                          "engine": note.game_version, "when": _moment(data, note.version, tz),
                          "author": f"Player {note.seat + 1}" if isinstance(note.seat, int) else "A player",
                          "text": anonymous(note.text, data["names"]),
                          "moment": context_line.get(note.version, ""),
                          "rulings": [catalogue.get(e["id"], {}).get("title") or e["id"]
                                      for e in at if e.get("t") == "ruling" and e.get("id")]})
        rows.append({"table": table.code, "created": as_utc(table.created_at).astimezone(tz).strftime("%Y-%m-%d %H:%M"),
                     "status": end_["label"], "setting": setting_label(setting),
                     "options": " ".join(f"{k}={v}" for k, v in setting[0]), "players": n,
                     "humans": n - computers, "computers": computers, "engine_version": table.engine_version,
                     "data_versions": " ".join(f"{k}={v}" for k, v in sorted((table.data_versions or {}).items())),
                     "moves": moves, "minutes": f"{mins:.1f}" if mins is not None else "",
                     "first_player": "" if first is None else first + 1,
                     "winners": " ".join(str(s + 1) for s in winners), "ending": (result or {}).get("reason", ""),
                     "rulings": sum(1 for e in data["entries"] if e.get("t") == "ruling"),
                     "refusals": refused_by_table.get(table.id, 0), "notes": len(data["notes"])})
    for r in refusals:
        refusal_codes[r.code][r.action_type] += 1
        refusal_groups[r.code][group_of_table.get(r.table_id, "")] += 1
    ordered = sorted(groups.values(), key=lambda g: (-g["tables"], setting_label(g["setting"])))
    letters = {g["setting"]: chr(ord("A") + i) if i < 26 else str(i + 1) for i, g in enumerate(ordered)}
    by_label = {setting_label(g["setting"]): letters[g["setting"]] for g in ordered}
    for r in rows:
        r["letter"] = by_label[r["setting"]]
    spec_min = spec.min_seats
    labbed = balance_lab(game, [{"id": letters[g["setting"]], "options": g["options"], "players": g["setting"][1]}
                                for g in ordered if g["setting"][1] >= spec_min], lab, progress)
    settings = []
    for g in ordered:
        players = g["setting"][1]
        fair = 1 / players if players else 0
        runs = [{"level": r["level"], "games": r["games"], "finished": r["finished"],
                 "median": r["median_moves"],
                 "endings": [(humanize(reason), n) for reason, n in r.get("endings") or []],
                 "seats": [rate_row(f"Seat {s + 1}", w, r["finished"], fair) for s, w in enumerate(r["seat_wins"])],
                 "first": rate_row("The first to move", r["first"][0], r["first"][1], fair) if r["first"][1] else None}
                for r in labbed if r["setting"] == letters[g["setting"]]]
        settings.append({"letter": letters[g["setting"]], "label": setting_label(g["setting"]),
                         "tables": g["tables"], "finished": g["finished"],
                         "apart": [(label, c) for label, c in sorted(g["status"].items()) if label != "Finished"],
                         "seats": [rate_row(f"Seat {s + 1}", g["seat_wins"][s], g["finished"], fair)
                                   for s in range(players)] if g["finished"] else [],
                         "first": rate_row("The first to move", g["first"][0], g["first"][1], fair)
                         if g["first"][1] else None,
                         "shared": g["shared"], "lab": runs,
                         "lengths": _distribution(g["lengths"]), "minutes": _distribution(g["minutes"], unit="min")})
    return {"title": spec.title, "game": game, "start": start, "end": end, "tables": len(chosen), "played": played,
            "finished": sum(g["finished"] for g in ordered), "rows": rows, "settings": settings,
            "lab": lab if labbed else 0,
            "rulings": [{"id": rid, "title": catalogue.get(rid, {}).get("title") or rid,
                         "text": catalogue.get(rid, {}).get("text", ""), "kind": catalogue.get(rid, {}).get("kind", ""),
                         "count": c, "tables": len(ruling_tables[rid]), "examples": ruling_examples[rid],
                         "by_setting": [(letters[k], v) for k, v in sorted(ruling_groups[rid].items(),
                                                                            key=lambda kv: letters[kv[0]])]}
                        for rid, c in ruling_count.most_common()],
            "unused": [r for r in spec.rulings if r["id"] not in ruling_count],
            "refusals": [{"code": code, "count": sum(c.values()), "actions": c.most_common(4),
                          "by_setting": sorted((by_label.get(k, "?"), v) for k, v in refusal_groups[code].items())}
                         for code, c in sorted(refusal_codes.items(), key=lambda kv: -sum(kv[1].values()))],
            "counts": counts.most_common(),
            "notes": [dict(n, letter=letters[n["setting"]]) for n in notes],
            "versions": versions.most_common(), "data_versions": data_versions.most_common(),
            "current": {"engine": spec.version, "data": ", ".join(f"{k} {v}" for k, v in
                                                                  sorted(spec.data_versions.items())) or "none"},
            "zone": zone_label(tz),
            "generated": datetime.now(timezone.utc).astimezone(tz).strftime("%Y-%m-%d %H:%M ") + zone_label(tz),
            "platform_version": platform_version()}


def _moment(data: dict, version: int, tz=UTC) -> str:
    """The event `version` in the designers' words: its move number, the teacher's clock
    time and how far into the game."""
    started = data["start"].at if data["start"] else None
    at = next((ev.at for ev in data["events"] if ev.version == version), None)
    if at is None:
        return f"move {version}"
    seconds = (as_utc(at) - as_utc(started)).total_seconds() if started else -1
    return f"move {version} at {clock(at, tz)}" + (f", minute {int(seconds // 60) + 1}" if seconds >= 0 else "")


def _distribution(values: list, unit: str = "moves") -> dict | None:
    if not values:
        return None
    values = sorted(values)
    lo, hi = values[0], values[-1]
    buckets = 6 if hi - lo >= (6 if unit == "moves" else 1) else 1
    width = (hi - lo) / buckets if hi > lo else 1
    counts = [0] * buckets
    for v in values:
        counts[min(buckets - 1, int((v - lo) / width))] += 1
    fmt = (lambda x: f"{x:.0f}") if unit == "moves" else (lambda x: f"{x:.1f}")
    # Each bar is drawn (a box of that width), not "█" characters a screen reader would read out.
    return {"unit": unit, "min": fmt(lo), "median": fmt(statistics.median(values)), "max": fmt(hi),
            "games": len(values),
            "buckets": [{"range": f"{fmt(lo + i * width)}–{fmt(lo + (i + 1) * width)}", "count": c,
                         "width": round(100 * c / max(counts))} for i, c in enumerate(counts)]}


def playtest_html(tables, db, facilitator_id, game, start, end, *, paper="a4", lab: int = 0, tz=UTC,
                  progress=None) -> str:
    return render_html("reports/playtest.html", paper=PAPER[paper_of(paper)],
                       **playtest_context(tables, db, facilitator_id, game, start, end, lab=lab, tz=tz,
                                          progress=progress))


def playtest_pdf(tables, db, facilitator_id, game, start, end, *, paper="a4", lab: int = 0, tz=UTC,
                 progress=None) -> bytes:
    return render_pdf(playtest_html(tables, db, facilitator_id, game, start, end, paper=paper, lab=lab, tz=tz,
                                    progress=progress))


def playtest_csv(tables, db, facilitator_id, game, start, end, tz=UTC) -> str:
    return csv_text(PLAYTEST_COLUMNS, playtest_context(tables, db, facilitator_id, game, start, end, tz=tz)["rows"])
