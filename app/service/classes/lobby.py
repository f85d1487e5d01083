"""Before and at the start: the teacher moves students and adds computer players, then
starts the class (the lobby tables balanced by app/service/seating.py, then each
started) or one table."""
from __future__ import annotations

from app.errors import ServiceError
from app.service import seating
from app.service.classes.common import PLAYING_MOVE, Final, settle
from app.service.classes.rows import ClassRows
from app.service.classes.seats import ClassSeats
from app.service.tables import TableService
from app.store.models import ClassSession
from app.engines.text import N_


class ClassLobby:
    def __init__(self, rows: ClassRows, seats: ClassSeats, tables: TableService):
        self.rows = rows
        self.seats = seats
        self.tables = tables

    # ----------------------------------------------------- before start
    def move(self, facilitator_id: int, code: str, table_code, seat, to, version=None) -> dict:
        """Move the student in `seat` of table `table_code` to lobby table `to` (a table
        code, or "new" for a new table). The source is a table that has not started yet,
        or one whose match has ended (re-pairing for the next match: see `move_seats`);
        a match being played keeps its players. `version`, when given, is the source
        table's version the facilitator saw: a seat number from an older view is refused
        as stale. Returns {"changed": [table codes], "moved": {seat id: {token_hash, table, seat}}}."""
        if not isinstance(table_code, str) or not isinstance(to, str):
            raise ServiceError("bad_request", N_("Send {table, seat, to}: to is a table code or \"new\"."))
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise ServiceError("bad_request", N_("seat must be the student's seat number."))
        if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
            raise ServiceError("bad_request", N_("version must be the table version shown on the overview."))
        klass = self.rows.owned(code, facilitator_id)
        if klass.status == "ended":
            raise ServiceError("game_over", N_("This class session has ended."))
        rule, size = self.rows.rule(klass), self.rows.table_size(klass)
        to = to.strip().upper() if to.strip().lower() != "new" else "new"

        def attempt():
            klass = self.rows.get(code)
            rows = self.rows.read(klass)
            source = self.rows.row_of(rows, table_code.strip().upper())
            ended = source["table"].status == "ended"
            if source["table"].status == "playing":
                raise ServiceError("illegal", PLAYING_MOVE)
            if version is not None and source["table"].version != version:
                raise Final(ServiceError("stale", N_("That table changed meanwhile; look at the overview again.")))
            student = next((x for x in source["seats"] if x.seat_index == seat), None)
            if student is None or student.computer:
                raise ServiceError("bad_request", N_("There is no student in that seat."))
            if student.moved_to is not None:
                raise ServiceError("illegal", f"{student.name} has already moved on to another table.")
            layout, lobby = self.rows.layout(rows)
            if ended:  # seating checks the target as for a move between lobby tables
                layout.append(seating.Table(key=source["table"].code, students=[seating.Student(student.id)]))
            to_index = None
            if to != "new":
                target = self.rows.row_of(rows, to)
                if target["table"].status != "lobby":
                    raise ServiceError("illegal", N_("Students can only be moved to a table that has not started yet."))
                to_index = lobby.index(target)
            try:
                seating.check_move(layout, rule, size, student.id, to_index)
            except seating.SeatingError as exc:
                raise ServiceError("table_full" if "full" in str(exc) else "bad_request", str(exc))
            to_code = lobby[to_index]["table"].code if to_index is not None else self.rows.new_table(
                klass, [r for r in rows if r is not source])
            try:
                moved = self.seats.move_seats([(student.id, to_code)], by="facilitator", class_id=klass.id,
                                        class_version=klass.version)
            except ServiceError as exc:
                if exc.code == "stale" and version is not None:  # the facilitator's view is out of date
                    raise Final(exc)
                raise
            if size == seating.SOLO:
                self._give_solo_computers(to_code, rule)
            return {"changed": [source["table"].code, to_code], "moved": moved}

        return settle(attempt)

    def _give_solo_computers(self, table_code: str, rule: seating.SeatingRule) -> None:
        # A solo student can start only once the computer opponent sits down.
        def attempt():
            while sum(x.computer for x in self.tables.seats(table_code)) < rule.solo_computers:
                self.seats.add_computer_seat(table_code)

        settle(attempt)

    def add_computer(self, facilitator_id: int, code: str, table_code) -> dict:
        """A computer player takes a free chair of a lobby table (so a short table can start)."""
        if not isinstance(table_code, str):
            raise ServiceError("bad_request", N_("Send the table's code."))
        klass = self.rows.owned(code, facilitator_id)
        rule, size = self.rows.rule(klass), self.rows.table_size(klass)

        def attempt():
            klass = self.rows.get(code)
            row = self.rows.row_of(self.rows.read(klass), table_code.strip().upper())
            if row["table"].status != "lobby":
                raise ServiceError("illegal", N_("Computer players can only be added before the table starts."))
            if not any(not x.computer for x in row["seats"]):
                raise ServiceError("illegal", N_("No student sits at that table yet."))
            limit = seating.seats_per_table(rule, size)
            if len(row["seats"]) >= limit:
                raise ServiceError("table_full", f"That table already has {limit} players.")
            self.seats.add_computer_seat(row["table"].code, class_id=klass.id, class_version=klass.version)
            return {"changed": [row["table"].code]}

        return settle(attempt)

    # -------------------------------------------------------------- start
    def _computers_for(self, klass: ClassSession, row: dict) -> int:
        """How many computer seats a lobby table starts with, by the class's seating rule."""
        rule, size = self.rows.rule(klass), self.rows.table_size(klass)
        students = sum(not x.computer for x in row["seats"])
        have = sum(x.computer for x in row["seats"])
        needed = seating.computers_needed(rule, size, klass.fill_with_computer, students)
        # Computers the facilitator added by hand stay, as long as the table has room for them.
        return max(needed, min(have, seating.seats_per_table(rule, size) - students))

    def _start_row(self, klass: ClassSession, table_code: str):
        """Start one lobby table with its computers: its Outcome, None if it had already started."""
        def attempt():
            row = next(r for r in self.rows.read(klass) if r["table"].code == table_code)
            if row["table"].status != "lobby":
                return None
            return self.seats.start_class_table(table_code, computers=self._computers_for(klass, row),
                                          expected_version=row["table"].version)

        return settle(attempt, N_("A table is very busy; please try again."))

    def start(self, facilitator_id: int, code: str) -> dict:
        """Balance the lobby tables and start them all.

        Returns {"changed": [every table touched], "started": [tables started], "moved": {…}}."""
        klass = self.rows.owned(code, facilitator_id)
        if klass.status == "ended":
            raise ServiceError("game_over", N_("This class session has ended."))
        rule, size = self.rows.rule(klass), self.rows.table_size(klass)

        def balance():
            """Move students to even the tables out; returns (klass, table codes, plan, moved)."""
            klass = self.rows.get(code)
            rows = self.rows.read(klass)
            layout, _lobby = self.rows.layout(rows, with_pins=True)
            if not any(t.students for t in layout):
                if not any(r["table"].status != "lobby" for r in rows):
                    raise ServiceError("illegal", N_("No student has joined yet. Start when the class is seated."))
                return klass, [], None, {}  # every table has already started: nothing to do
            plan = seating.balance(layout, rule, size, klass.fill_with_computer)
            codes = [t.key for t in layout]
            spare = [r for r in rows if r["table"].status == "lobby" and not r["seats"]
                     and not r["table"].locked and r["table"].code not in codes]
            for _k in range(plan.new_tables):
                codes.append(spare.pop(0)["table"].code if spare else self.rows.new_table(klass, []))
            moves = [(student_key, codes[to]) for student_key, _from, to in plan.moves]
            moved = self.seats.move_seats(moves, by="balance", class_id=klass.id, class_version=klass.version)
            return klass, codes, plan, moved

        klass, codes, plan, moved = settle(balance)
        self.rows.start_lesson_clock(klass)  # before the deals: every table runs to the same due time
        changed: list[str] = []
        outcomes = []
        if plan is not None:
            changed += sorted({codes[i] for _k, f, t in plan.moves for i in (f, t)})
            for i, students in enumerate(plan.final):
                outcome = self._start_row(klass, codes[i]) if students else None
                if outcome is not None:
                    outcomes.append(outcome)
        self.rows.set_status(klass.id, "playing")
        started = [o.code for o in outcomes]
        return {"changed": list(dict.fromkeys(changed + started)), "started": started, "moved": moved,
                "outcomes": outcomes}

    def start_table(self, facilitator_id: int, code: str, table_code) -> dict:
        """Start one lobby table now (with computer players where the seating rule calls for them)."""
        if not isinstance(table_code, str):
            raise ServiceError("bad_request", N_("Send the table's code."))
        klass = self.rows.owned(code, facilitator_id)
        row = self.rows.row_of(self.rows.read(klass), table_code.strip().upper())
        if row["table"].status != "lobby":
            raise ServiceError("illegal", N_("That table has already started."))
        outcome = self._start_row(klass, row["table"].code)
        return {"changed": [row["table"].code], "outcomes": [outcome] if outcome else []}
