"""Class tables, one transaction each: seat a student the class placed, add or drop
computer seats, move students between a class's tables, start a table with its computers.

A class session seats students at several tables of one facilitator, and some of its
changes span tables (a move touches two, the start's balancing several). Each such
change is ONE transaction that compare-and-swaps every table it touches, appending
their events as the table store's `stage` does (so replay still works: these all
happen in the lobby, where replay only reads the `start` event), and, when given, the
class row's version: a concurrent join, move or start makes it `stale` and the class
service retries from fresh data. Moved seats keep their token.
"""
from __future__ import annotations

from sqlalchemy import update
from sqlmodel import Session

from app import engines
from app.edge.security import clean_name, hash_token, name_key, new_token
from app.errors import ServiceError
from app.service import student_text
from app.service.classes.common import PLAYING_MOVE
from app.service.classes.rows import ClassRows
from app.service.tables import TableService, checked
from app.store.models import ClassSession, GameTable, Seat
from app.engines.text import N_


class ClassSeats:
    def __init__(self, rows: ClassRows, tables: TableService):
        self.rows = rows
        self.tables = tables

    COMPUTER_NAME = "Computer"

    @staticmethod
    def _guard_class(s: Session, class_id: int | None, version: int | None) -> None:
        """Compare-and-swap the class row inside the open transaction."""
        if class_id is None or version is None:
            return
        result = s.execute(update(ClassSession)
                           .where(ClassSession.id == class_id, ClassSession.version == version)
                           .values(version=version + 1))
        if result.rowcount != 1:
            s.rollback()
            raise ServiceError("stale", N_("The class changed meanwhile; please try again."))

    def _add_computers(self, s: Session, table: GameTable, seats: list[Seat], count: int) -> list[Seat]:
        """Append `count` computer seats (named Computer, Computer 2, …, unique at the table)."""
        taken = {name_key(x.name) for x in seats}
        added = []
        number = 1
        for _ in range(count):
            while True:
                name = self.COMPUTER_NAME if number == 1 else f"{self.COMPUTER_NAME} {number}"
                number += 1
                if name_key(name) not in taken:
                    break
            taken.add(name_key(name))
            # Nobody ever holds this token: a computer seat cannot be resumed.
            seat = Seat(table_id=table.id, seat_index=len(seats) + len(added), name=name,
                        token_hash=hash_token(new_token()), computer=True)
            s.add(seat)
            added.append(seat)
        return added

    @staticmethod
    def _drop_seat(s: Session, seat: Seat) -> None:
        """Take a seat out of a lobby table (as a lobby kick does: the row stays, its token refused)."""
        seat.kicked = True
        seat.seat_index = None
        s.add(seat)

    @staticmethod
    def _renumber(s: Session, seats: list[Seat]) -> None:
        """Contiguous seat numbers, students before computers, so that seat 0 (who may
        press the start button) is a student whenever the table has one."""
        ordered = [x for x in seats if not x.computer] + [x for x in seats if x.computer]
        for index, seat in enumerate(ordered):
            if seat.seat_index != index:
                seat.seat_index = index
                s.add(seat)

    def class_join(self, code: str, name, *, class_id: int, class_version: int, computers: int = 0) -> dict:
        """`join` for a student the class session placed at table `code`: the same checks,
        plus the class's compare-and-swap (names stay unique across the class, two
        arrivals never both take the last chair) and, for a solo table, its computer
        opponents, all in one transaction. Returns {seat, token, table}."""
        name = checked(clean_name, name)
        with self.rows.session() as s:
            table = self.tables.store.table(s, code)
            if table.class_id != class_id:
                raise ServiceError("forbidden", N_("That table is not part of this class."))
            if table.status != "lobby" or table.locked:
                raise ServiceError("stale", N_("That table is no longer open; another one is chosen."))
            seats = self.tables.store.seats(s, table)
            token, student, join = self.tables.seat_student(s, table, seats, name, chairs_needed=1 + computers)
            self._guard_class(s, class_id, class_version)
            if computers:
                self.tables.stage(s, table, **join)
                added = self._add_computers(s, table, seats + [student], computers)
                self._commit(s, table, actor="system", action={"type": "computers", "added": [x.name for x in added]},
                             log=[{"t": "join", "seat": x.seat_index, "text": N_("{name} joined as a computer player.").format(name=x.name)}
                                  for x in added])
            else:
                self._commit(s, table, **join)
            return {"seat": student.seat_index, "token": token, "table": table.code}

    def add_computer_seat(self, code: str, *, class_id: int | None = None, class_version: int | None = None) -> int:
        """A computer player takes the next chair of a lobby table; returns the table version."""
        with self.rows.session() as s:
            table = self.tables.store.table(s, code)
            if table.status != "lobby":
                raise ServiceError("illegal", N_("Computer players can only be added before the table starts."))
            most = engines.spec(table.game).seat_range(table.options)[1]
            seats = self.tables.store.seats(s, table)
            if len(seats) >= most:
                raise ServiceError("table_full", f"This table is full ({most} players).")
            self._guard_class(s, class_id, class_version)
            added = self._add_computers(s, table, seats, 1)
            return self._commit(s, table, actor="facilitator", action={"type": "computers", "added": [added[0].name]},
                                log=[{"t": "join", "seat": added[0].seat_index,
                                      "text": N_("{name} joined as a computer player.").format(name=added[0].name)}])

    def move_seats(self, moves: list[tuple[int, str]], *, by: str, class_id: int,
                   class_version: int | None = None) -> dict[int, dict]:
        """Move students (seat id -> lobby table code) to lobby tables of one class, all
        at once, from lobby tables or from tables whose match has ended (re-pairing for
        the next match). Tokens stay valid; each touched lobby table is renumbered
        (students first) and gets one `move` event; a lobby table left without students
        loses its computer seats.

        A student leaving an ended table gets a NEW seat row at the target, which takes
        over the token (so the phone and a resume follow); the ended table keeps its row,
        seat number and name (its views, report and replay still say who played), with a
        fresh token nobody holds and `moved_to` set to the new row. The ended table itself
        (state, version, events) is not touched.
        Returns {seat id (the student's seat now): {"token_hash", "table", "seat"}}."""
        if not moves:
            return {}
        left_ended: list[tuple[str, str]] = []  # (ended table code, token hash): caches to drop
        with self.rows.session() as s:
            self._guard_class(s, class_id, class_version)
            by_code: dict[str, GameTable] = {}
            members: dict[str, list[Seat]] = {}

            def table_of(code: str, *, source: bool = False) -> GameTable:
                if code not in by_code:
                    table = self.tables.store.table(s, code)
                    if table.class_id != class_id:
                        raise ServiceError("forbidden", N_("That table is not part of this class."))
                    if table.status == "lobby":
                        members[code] = self.tables.store.seats(s, table)
                    elif table.status == "playing" and source:
                        raise ServiceError("illegal", PLAYING_MOVE)
                    elif not (table.status == "ended" and source):  # a finished match: students leave, no one joins
                        raise ServiceError("illegal", N_("Students can only be moved to a table that has not "
                                                      "started yet."))
                    by_code[code] = table
                if by_code[code].status != "lobby" and not source:
                    raise ServiceError("illegal", N_("Students can only be moved to a table that has not started yet."))
                return by_code[code]

            notes: dict[str, dict] = {}
            moved: dict[int, Seat] = {}
            carried: dict[str, dict] = {}  # table code -> the hidden names of students moving in
            for seat_id, to_code in moves:
                seat = s.get(Seat, seat_id)
                if seat is None or seat.kicked or seat.computer or seat.seat_index is None:
                    raise ServiceError("bad_request", N_("There is no student in that seat."))
                if seat.moved_to is not None:
                    raise ServiceError("illegal", f"{seat.name} has already moved on to another table.")
                source = s.get(GameTable, seat.table_id)
                table_of(source.code, source=True)
                target = table_of(to_code)
                if source.id == target.id:
                    raise ServiceError("bad_request", f"{seat.name} is already at that table.")
                if any(name_key(x.name) == name_key(seat.name) for x in members[to_code]):
                    raise ServiceError("name_taken", f"Someone at that table is already called {seat.name}.")
                if source.status == "ended":
                    # The record stays; the student (their token) sits down at the target.
                    token_hash = seat.token_hash
                    seat.token_hash = hash_token(new_token())  # nobody holds it: the old seat cannot be resumed
                    s.add(seat)
                    s.flush()  # free the unique token hash before the new row takes it
                    student = Seat(table_id=target.id, seat_index=len(members[to_code]), name=seat.name,
                                   token_hash=token_hash, language=seat.language)
                    s.add(student)
                    s.flush()
                    seat.moved_to = student.id
                    s.add(seat)
                    left_ended.append((source.code, token_hash))
                else:
                    student = next(x for x in members[source.code] if x.id == seat.id)  # the same row object
                    members[source.code].remove(student)
                    student.table_id = target.id
                members[to_code].append(student)
                moved[student.id] = student
                hidden = (source.texts or {}).get(student_text.name_ref(seat.id))
                if hidden and hidden["hidden"]:  # the teacher hid this name: it stays hidden at the next table
                    carried.setdefault(to_code, {})[student_text.name_ref(student.id)] = dict(hidden)
                notes.setdefault(to_code, {"out": [], "in": [], "log": []})
                item = {"seat_id": student.id, "name": seat.name, "from": source.code}
                if source.status == "ended":
                    item["from_seat_id"] = seat.id
                    text = N_("{name} joined after their match at table {code} ended.").format(name=seat.name, code=source.code)
                else:
                    notes.setdefault(source.code, {"out": [], "in": [], "log": []})
                    notes[source.code]["out"].append({"seat_id": seat.id, "name": seat.name, "to": to_code})
                    notes[source.code]["log"].append({"t": "move", "text": N_("{name} moved to table {code}.").format(name=seat.name, code=to_code)})
                    text = N_("{name} joined from table {code}.").format(name=seat.name, code=source.code)
                notes[to_code]["in"].append(item)
                notes[to_code]["log"].append({"t": "move", "text": text})
            for code, seats in members.items():
                if not any(not x.computer for x in seats):
                    for computer in [x for x in seats if x.computer]:
                        self._drop_seat(s, computer)
                        seats.remove(computer)
                most = engines.spec(by_code[code].game).seat_range(by_code[code].options)[1]
                if len(seats) > most:
                    raise ServiceError("table_full", f"Table {code} would have more than {most} "
                                                     f"player{'s' if most != 1 else ''}.")
                self._renumber(s, seats)
            touched = [code for code in by_code if code in notes]
            for i, code in enumerate(touched):
                note = notes[code]
                kwargs = {"actor": "facilitator" if by == "facilitator" else "system",
                          "action": {"type": "move", "by": by, "out": note["out"], "in": note["in"]},
                          "log": note["log"]}
                if code in carried:
                    kwargs["changes"] = {"texts": dict(by_code[code].texts or {}, **carried[code])}
                if i < len(touched) - 1:
                    self.tables.stage(s, by_code[code], **kwargs)
                else:
                    self._commit(s, by_code[code], **kwargs)
            result = {sid: {"token_hash": x.token_hash, "table": next(c for c, t in by_code.items()
                                                                      if t.id == x.table_id),
                            "seat": x.seat_index} for sid, x in moved.items()}
        # This process's copy of an ended table still lists the old token at its seat: drop it.
        for code, token_hash in left_ended:
            self.tables.forget(code)
            self.tables.forget_seat(token_hash)
        return result

    def start_class_table(self, code: str, *, computers: int, expected_version: int | None = None):
        """Start a lobby table of a class now, with exactly `computers` computer seats
        (added or removed first, per the class's seating rule)."""
        with self.rows.session() as s:
            table = self.tables.store.table(s, code)
            if table.status != "lobby":
                raise ServiceError("illegal", N_("This table has already started."))
            if expected_version is not None and table.version != expected_version:
                raise ServiceError("stale", N_("The table changed meanwhile. Here it is now."))
            spec = engines.spec(table.game)
            lo, hi = spec.seat_range(table.options)
            seats = self.tables.store.seats(s, table)
            students = [x for x in seats if not x.computer]
            bots = [x for x in seats if x.computer]
            if not students:
                raise ServiceError("illegal", N_("No student sits at this table."))
            if len(students) + computers > hi:
                raise ServiceError("table_full", f"A table seats at most {hi} players.")
            if len(students) + computers < lo:
                raise ServiceError("illegal", f"{spec.title} needs at least {lo} players; add a "
                                              "computer player or move a student to this table.")
            if len(bots) != computers:
                removed = bots[computers:]
                for seat in removed:
                    self._drop_seat(s, seat)
                added = self._add_computers(s, table, students + bots[:computers], computers - len(bots)) \
                    if computers > len(bots) else []
                self._renumber(s, students + bots[:computers] + added)
                self._commit(s, table, actor="facilitator",
                             action={"type": "computers", "added": [x.name for x in added],
                                     "removed": [x.name for x in removed]},
                             log=[{"t": "join", "seat": x.seat_index, "text": N_("{name} joined as a computer player.").format(name=x.name)}
                                  for x in added] +
                                 [{"t": "leave", "text": N_("{name} left the table.").format(name=x.name)} for x in removed])
            version = table.version
        return self.tables.start_now(code, expected_version=version)

    def _commit(self, s: Session, table: GameTable, **change) -> int:
        version = self.tables.stage(s, table, **change)
        self.tables.commit(s)
        return version
