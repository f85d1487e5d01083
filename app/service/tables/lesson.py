"""The lesson clock: a platform timer every game may run (issue 20, "every game ends
within a lesson").

A table made with a lesson length (`GameTable.lesson_minutes`; a class's tables run to
their class's clock instead) gets the `lesson` timer at the deal, kept with its other
timers in the row's `timers` (actor "system", `platform`: the engine never lists it,
so `timers.after_change` carries it over every change). A restart keeps it, any process
fires it, the table's pause stops it like every timer, and `timers.deadlines` shows it
to every view as `deadlines["lesson"]`. When it fires, the game ends through the
engine's `finish(state, "lesson_clock")`, which ranks the players by the game's stated
tie-break and logs its `<game>.lesson_clock` ruling (`Moves.finish`).
"""
from __future__ import annotations

from app.errors import ServiceError

KEY = "lesson"                    # the timer's key in the table's timers, and in the views' deadlines
MINUTES = (15, 20, 30, 40)        # the lengths a teacher picks from (0 or None: no lesson clock)
MORE_MINUTES = 5                  # the teacher's "+5 min"
MINUTE = 60.0                     # seconds in a lesson minute (the LESSON_MINUTE setting shortens it in tests)
CAUSE = "lesson_clock"            # engine.finish's cause, and the table event's


def minutes(value) -> int:
    """A lesson length as given (the form's string, the API's number or null): 0 for none."""
    if value in (None, "", 0, "0", "off"):
        return 0
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 4:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value not in MINUTES:
        raise ServiceError("bad_request", "The lesson length is off or one of "
                                          f"{', '.join(str(m) for m in MINUTES)} minutes.")
    return int(value)


def timer(*, due: float | None = None, left: float | None = None) -> dict:
    """The `lesson` timer: running to `due`, or stopped with `left` seconds."""
    entry = {"actor": "system", "action": {"type": "end", "cause": CAUSE}, "platform": True}
    if due is not None:
        entry["due"] = due
    else:
        entry.update(due=None, left=max(0.0, float(left or 0.0)))
    return entry


def is_lesson(timer_entry: dict) -> bool:
    return bool(timer_entry.get("platform")) and (timer_entry.get("action") or {}).get("cause") == CAUSE


def moved(entry: dict, seconds: float) -> dict:
    """The timer `seconds` later (running or stopped)."""
    out = dict(entry)
    if out.get("due") is not None:
        out["due"] = out["due"] + seconds
    else:
        out["left"] = out.get("left", 0.0) + seconds
    return out
