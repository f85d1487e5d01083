"""Exports for spreadsheets and scripts: a table's or a class's log as JSON and CSV, and
the playtest notes as CSV. The columns are documented in README.md ("Exports").

CSV cells that a spreadsheet would read as a formula (=, +, -, @ first) get a leading
apostrophe, so an exported name or note never runs as one.
"""
from __future__ import annotations

import csv
import io
import json

from app.reports import cooperative_yield

LOG_COLUMNS = ("table", "move", "at", "event_kind", "actor", "action", "entry_kind", "text", "seat",
               "visible_to", "ruling_id", "data")
NOTE_COLUMNS = ("table", "move", "at", "game_version", "author", "role", "teacher_only", "hidden", "text")


def _cell(value) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_text(columns, rows) -> str:
    """UTF-8 with a byte-order mark, so a spreadsheet opened by double-click reads
    accents and emoji right."""
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    for i, row in enumerate(rows):
        writer.writerow([_cell(row.get(c)) for c in columns])
        if i % 2000 == 1999:
            cooperative_yield()   # a class's log is long: let moves through meanwhile
    return out.getvalue()


def _log_rows(log: dict, table: str):
    for ev in log["events"]:
        base = {"table": table, "move": ev["version"], "at": ev["at"], "event_kind": ev["kind"], "actor": ev["actor"],
                "action": json.dumps(ev["action"], ensure_ascii=False, sort_keys=True)}
        entries = [e for e in ev["log"] if isinstance(e, dict)] or [{}]
        for e in entries:
            rest = {k: v for k, v in e.items() if k not in ("t", "text", "seat", "visible_to", "id")}
            yield dict(base, entry_kind=e.get("t", ""), text=e.get("text", ""), seat=e.get("seat", ""),
                       visible_to=("everyone" if "visible_to" not in e else
                                   " ".join(str(s) for s in e.get("visible_to") or [])) if e else "",
                       ruling_id=e.get("id", "") if e.get("t") == "ruling" else "",
                       data=json.dumps(rest, ensure_ascii=False, sort_keys=True) if rest else "")


def log_csv(logs: list[dict]) -> str:
    """One row per log entry (an event without entries gets one row)."""
    return csv_text(LOG_COLUMNS, (row for log in logs for row in _log_rows(log, log["code"])))


def notes_csv(logs: list[dict]) -> str:
    return csv_text(NOTE_COLUMNS, ({"table": log["code"], "move": n["version"], "at": n["at"],
                                "game_version": n["game_version"], "author": n["author"], "role": n["role"],
                                "teacher_only": "yes" if n["audience"] == "teacher" else "no",
                                "hidden": "yes" if n["hidden"] else "no", "text": n["text"]}
                               for log in logs for n in log["notes"]))


def class_logs(classes, tables, code: str) -> list[dict]:
    logs = []
    for t in classes.summary(code)["tables"]:
        cooperative_yield()
        logs.append(tables.log_json(t["code"]))
    return logs
