"""Steering a class in play: pause, resume or end one table or all of them, five more
minutes on the class's lesson clock, and the teacher's message to every phone."""
from __future__ import annotations

import unicodedata

from app.errors import ServiceError
from app.service.classes.common import MESSAGE_MAX, settle
from app.service.classes.rows import ClassRows
from app.service.tables import TableService, lesson
from app.store.models import GameTable
from app.engines.text import N_


class ClassSteer:
    def __init__(self, rows: ClassRows, tables: TableService):
        self.rows = rows
        self.tables = tables

    def moderate(self, facilitator_id: int, code: str, kind: str, table_code=None) -> dict:
        """Pause, resume or end one table of the class (`table_code`) or all of them.

        For all tables, those where the action does not apply are skipped (pausing
        all pauses the tables that are playing); ending all also closes the class
        to late arrivals. Returns {"changed": [table codes], "outcomes": [their Outcomes]}.
        """
        if kind not in ("pause", "resume", "end"):
            raise ServiceError("bad_request", N_("The action is pause, resume or end."))
        if table_code is not None and not isinstance(table_code, str):
            raise ServiceError("bad_request", N_("table must be a table code (or absent for every table)."))
        klass = self.rows.owned(code, facilitator_id)
        rows = self.rows.read(klass)
        if table_code is not None:
            targets = [self.rows.row_of(rows, table_code.strip().upper())]
        else:
            # Ending everything also ends spare empty tables so no one can join them later.
            targets = rows if kind == "end" else self.rows.visible(rows)

        def applies(t: GameTable) -> bool:
            if kind == "pause":
                return t.status == "playing" and not t.paused
            if kind == "resume":
                return t.status != "ended" and t.paused
            return t.status != "ended"

        if table_code is not None and not applies(targets[0]["table"]):
            t = targets[0]["table"]
            reason = {"pause": "is not playing" if t.status != "playing" else "is already paused",
                      "resume": "is not paused", "end": "has already ended"}[kind]
            raise ServiceError("illegal", f"That table {reason}.")
        outcomes = []
        for row in targets:
            def attempt(table_code=row["table"].code):
                t = self.tables.get(table_code)
                if not applies(t):
                    return None
                try:
                    return self.tables.moderate(facilitator_id, t.code, t.version, {"type": kind})
                except ServiceError as exc:
                    if exc.code == "game_over":
                        return None
                    raise

            outcome = settle(attempt)
            if outcome is not None:
                outcomes.append(outcome)
        if kind == "end" and table_code is None:
            self.rows.set_status(klass.id, "ended")
        if kind in ("pause", "resume") and table_code is None:
            self.rows.stop_lesson_clock(klass.id, kind == "pause")
        return {"changed": [o.code for o in outcomes], "outcomes": outcomes}

    def lesson_more(self, facilitator_id: int, code: str) -> dict:
        """The teacher's "+5 min" on the class page: the class's lesson clock and the lesson
        timer of every table playing now move five minutes later; a table that starts
        later takes the class's new due time. Returns {"changed", "outcomes"}."""
        klass = self.rows.owned(code, facilitator_id)
        if klass.status == "ended":
            raise ServiceError("game_over", N_("This class session has ended."))
        if not klass.lesson_minutes:
            raise ServiceError("illegal", N_("This class has no lesson clock."))
        if not self.rows.move_lesson_clock(klass.id, lesson.MORE_MINUTES * self.tables.lesson_minute):
            raise ServiceError("illegal", N_("The lesson clock starts when you start the class."))
        outcomes = []
        for row in self.rows.read(klass):
            def attempt(table_code=row["table"].code):
                t = self.tables.get(table_code)
                if t.status != "playing" or lesson.KEY not in (t.timers or {}):
                    return None
                try:
                    return self.tables.moderate(facilitator_id, t.code, t.version, {"type": "lesson_more"})
                except ServiceError as exc:
                    if exc.code in ("game_over", "illegal"):  # it ended (or its clock ran out) meanwhile
                        return None
                    raise

            outcome = settle(attempt)
            if outcome is not None:
                outcomes.append(outcome)
        return {"changed": [o.code for o in outcomes], "outcomes": outcomes}

    def set_phone_notes(self, facilitator_id: int, code: str, on) -> dict:
        """Playtest notes from phones, on or off for the whole class: the class keeps the choice
        for the tables it opens later, and every table of it (ended ones too: a note after the
        game is the one most worth writing) switches now, so the phones' note box follows live.
        Returns {"changed": [table codes], "outcomes": [their Outcomes]}."""
        if not isinstance(on, bool):
            raise ServiceError("bad_request", N_("on must be true or false."))
        klass = self.rows.owned(code, facilitator_id)
        self.rows.set_phone_notes(klass.id, on)
        outcomes = []
        for row in self.rows.read(klass):
            def attempt(table_code=row["table"].code):
                t = self.tables.get(table_code)
                if t.phone_notes == on:
                    return None
                return self.tables.moderate(facilitator_id, t.code, t.version,
                                            {"type": "notes_on" if on else "notes_off"})

            outcome = settle(attempt)
            if outcome is not None:
                outcomes.append(outcome)
        return {"changed": [o.code for o in outcomes], "outcomes": outcomes}

    @staticmethod
    def clean_message(raw) -> str:
        if not isinstance(raw, str):
            raise ServiceError("bad_request", N_("Type a message for the class."))
        text = " ".join(raw.split())
        text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
        if not text:
            raise ServiceError("bad_request", N_("Type a message for the class."))
        if len(text) > MESSAGE_MAX:
            raise ServiceError("bad_request", f"Messages can be at most {MESSAGE_MAX} characters "
                                              f"(this one has {len(text)}).")
        return text

    def student_seats(self, code: str) -> list[str]:
        """The token hash of every student seat at every table of the class."""
        klass = self.rows.get(code)
        return [x.token_hash for r in self.rows.read(klass) for x in r["seats"] if not x.computer]
