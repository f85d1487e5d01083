"""The playtest report: one game across a teacher's tables over a date range, for the
game's authors. Tables played, game lengths, win rate by seat order and by first
player, how often each ruling applied (with examples), refused moves by error code,
stalemates and the game's notable events (its report hook's `counts`), every note
grouped by the ruling or card it was written about, and the engine and card-data
versions. `playtest_rows` is the same data per table, for the CSV export.
"""
from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from datetime import date, datetime, time, timedelta, timezone

from sqlmodel import Session, select

from app import engines
from app.models import GameTable, Refusal
from app.reports import (PAPER, _utc, cooperative_yield, game_section, is_teacher_note, outcome, paper_of,
                         platform_version, render_html, render_pdf, table_data)
from app.reports.exports import _csv

EXAMPLES = 3
NOTES_MAX = 300
PLAYTEST_COLUMNS = ("table", "created", "status", "engine_version", "data_versions", "players", "computers",
                    "moves", "minutes", "first_player", "winners", "ending", "rulings", "refusals", "notes")


def parse_day(text, default: date) -> date:
    try:
        return date.fromisoformat(str(text)) if text else default
    except ValueError:
        return default


def tables_in_range(db, facilitator_id: int, game: str, start: date, end: date) -> list[GameTable]:
    lo = datetime.combine(start, time.min, tzinfo=timezone.utc)
    hi = datetime.combine(end + timedelta(days=1), time.min, tzinfo=timezone.utc)
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


def _note_topic(note, entries: list[dict], catalogue: dict, card_name) -> str:
    """The ruling or card a note was written about: the latest one the log named at or
    before the note's move (within a few moves), else the game in general."""
    for e in reversed([e for e in entries if e["version"] <= note.version][-40:]):
        if note.version - e["version"] > 5:
            break
        if e.get("t") == "ruling" and e.get("id"):
            r = catalogue.get(e["id"], {})
            return "Ruling: " + (r.get("title") or e["id"])
        if isinstance(e.get("card"), str):
            return "Card: " + card_name(e["card"])
    return "The game in general"


def playtest_context(tables, db, facilitator_id: int, game: str, start: date, end: date) -> dict:
    spec = engines.spec(game)
    catalogue = {r["id"]: r for r in spec.rulings}
    rows, lengths, minutes = [], [], []
    seat_games, seat_wins, first_games, first_wins = Counter(), Counter(), 0, 0
    ruling_count, ruling_tables, ruling_examples = Counter(), defaultdict(set), defaultdict(list)
    counts, endings, versions, data_versions = Counter(), Counter(), Counter(), Counter()
    notes_by_topic: dict[str, list] = defaultdict(list)
    chosen = tables_in_range(db, facilitator_id, game, start, end)
    refusals = _refusals(db, [t.id for t in chosen])
    refused_by_table = Counter(r.table_id for r in refusals)
    refusal_codes: dict[str, Counter] = defaultdict(Counter)
    for r in refusals:
        refusal_codes[r.code][r.action_type] += 1
    card_name = lambda c: str(c).replace("_", " ").capitalize()  # noqa: E731
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
        end_ = outcome(table, result, data["names"], data)
        versions[table.engine_version] += 1
        data_versions[", ".join(f"{k} {v}" for k, v in sorted((table.data_versions or {}).items())) or "none"] += 1
        n = len(data["names"])
        moves = sum(1 for ev in data["events"] if ev.kind == "game")
        mins = None
        if started and data["events"]:
            mins = (_utc(data["events"][-1].at) - _utc(data["start"].at)).total_seconds() / 60
        first = _first_player(data)
        winners = (result or {}).get("winners") or []
        if started:
            played += 1
            endings[end_["label"]] += 1
        if result:
            lengths.append(moves)
            if mins is not None:
                minutes.append(mins)
            for s in range(n):
                seat_games[s] += 1
                seat_wins[s] += s in winners
            if first is not None:
                first_games += 1
                first_wins += first in winners
            if len(winners) != 1:
                counts["Shared wins or no winner (stalemate)"] += 1
        for label, c in (section.get("counts") or {}).items():
            if isinstance(c, int):
                counts[str(label).replace("_", " ").capitalize()] += c
        context_line = {}   # version -> the first thing players saw at that move (what the ruling settled)
        for e in data["entries"]:
            if e.get("t") != "ruling" and "visible_to" not in e and e.get("text"):
                context_line.setdefault(e["version"], e["text"])
        for e in data["entries"]:
            if e.get("t") == "ruling" and e.get("id"):
                ruling_count[e["id"]] += 1
                ruling_tables[e["id"]].add(table.code)
                if len(ruling_examples[e["id"]]) < EXAMPLES and table.code not in \
                        {x["table"] for x in ruling_examples[e["id"]]}:
                    ruling_examples[e["id"]].append({"table": table.code, "move": e["version"],
                                                     "text": context_line.get(e["version"], "")})
        names = section.get("cards") if isinstance(section.get("cards"), dict) else {}
        named = lambda c, names=names: str(names.get(c) or card_name(c))  # noqa: E731
        for note in data["notes"]:
            if sum(len(v) for v in notes_by_topic.values()) < NOTES_MAX:
                notes_by_topic[_note_topic(note, data["entries"], catalogue, named)].append(
                    {"table": table.code, "move": note.version, "author": note.author, "text": note.text,
                     "teacher": is_teacher_note({"author": note.author})})
        rows.append({"table": table.code, "created": _utc(table.created_at).strftime("%Y-%m-%d %H:%M"),
                     "status": end_["label"], "engine_version": table.engine_version,
                     "data_versions": " ".join(f"{k}={v}" for k, v in sorted((table.data_versions or {}).items())),
                     "players": n, "computers": len(data["computers"]), "moves": moves,
                     "minutes": f"{mins:.1f}" if mins is not None else "",
                     "first_player": "" if first is None else first + 1,
                     "winners": " ".join(str(s + 1) for s in winners), "ending": (result or {}).get("reason", ""),
                     "rulings": sum(1 for e in data["entries"] if e.get("t") == "ruling"),
                     "refusals": refused_by_table.get(table.id, 0), "notes": len(data["notes"])})
    return {"title": spec.title, "game": game, "start": start, "end": end, "tables": len(chosen), "played": played,
            "finished": len(lengths), "endings": endings.most_common(), "rows": rows,
            "lengths": _distribution(lengths), "minutes": _distribution(minutes, unit="min"),
            "seats": [{"seat": s + 1, "games": seat_games[s], "wins": seat_wins[s],
                       "rate": round(100 * seat_wins[s] / seat_games[s]) if seat_games[s] else 0}
                      for s in sorted(seat_games)],
            "first": {"games": first_games, "wins": first_wins,
                      "rate": round(100 * first_wins / first_games) if first_games else 0},
            "rulings": [{"id": rid, "title": catalogue.get(rid, {}).get("title") or rid,
                         "text": catalogue.get(rid, {}).get("text", ""), "kind": catalogue.get(rid, {}).get("kind", ""),
                         "count": c, "tables": len(ruling_tables[rid]), "examples": ruling_examples[rid]}
                        for rid, c in ruling_count.most_common()],
            "unused": [r for r in spec.rulings if r["id"] not in ruling_count],
            "refusals": [{"code": code, "count": sum(c.values()), "actions": c.most_common(4)}
                         for code, c in sorted(refusal_codes.items(), key=lambda kv: -sum(kv[1].values()))],
            "counts": counts.most_common(), "notes": sorted(notes_by_topic.items()),
            "versions": versions.most_common(), "data_versions": data_versions.most_common(),
            "current": {"engine": spec.version, "data": ", ".join(f"{k} {v}" for k, v in
                                                                  sorted(spec.data_versions.items())) or "none"},
            "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "platform_version": platform_version()}


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
    return {"unit": unit, "min": fmt(lo), "median": fmt(statistics.median(values)), "max": fmt(hi),
            "buckets": [{"range": f"{fmt(lo + i * width)}–{fmt(lo + (i + 1) * width)}", "count": c,
                         "bar": "█" * round(20 * c / max(counts))} for i, c in enumerate(counts)]}


def playtest_html(tables, db, facilitator_id, game, start, end, *, paper="a4") -> str:
    return render_html("reports/playtest.html", paper=PAPER[paper_of(paper)],
                           **playtest_context(tables, db, facilitator_id, game, start, end))


def playtest_pdf(tables, db, facilitator_id, game, start, end, *, paper="a4") -> bytes:
    return render_pdf(playtest_html(tables, db, facilitator_id, game, start, end, paper=paper))


def playtest_csv(tables, db, facilitator_id, game, start, end) -> str:
    return _csv(PLAYTEST_COLUMNS, playtest_context(tables, db, facilitator_id, game, start, end)["rows"])
