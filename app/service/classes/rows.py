"""The class row and its tables as read from the database: find a class, read every
table of it with its seats and last move, and lay the lobby tables out as
app/service/seating.py's model. Every other part of the class service reads through here."""
from __future__ import annotations

import time

from sqlalchemy import func, update
from sqlmodel import Session, select

from app.edge.security import has_nul
from app.errors import ServiceError
from app.service import seating
from app.service.classes.common import utc
from app.service.tables import TableService
from app.store.models import ClassSession, Event, GameTable, Seat
from app.engines.text import N_


class ClassRows:
    def __init__(self, db, tables: TableService):
        self.db = db
        self.tables = tables

    def session(self) -> Session:
        return Session(self.db, expire_on_commit=False)

    # ------------------------------------------------------------ reads
    def find(self, code: str) -> ClassSession | None:
        if not isinstance(code, str) or has_nul(code):
            return None
        with self.session() as s:
            return s.exec(select(ClassSession).where(ClassSession.code == code)).first()

    def get(self, code: str) -> ClassSession:
        klass = self.find(code) if code else None
        if klass is None:
            raise ServiceError("unknown_table", N_("There is no class session with that code."))
        return klass

    def owned(self, code: str, facilitator_id: int) -> ClassSession:
        klass = self.get(code)
        if klass.facilitator_id != facilitator_id:
            raise ServiceError("forbidden", N_("This class session belongs to another facilitator."))
        return klass

    def classes_of(self, facilitator_id: int) -> list[ClassSession]:
        with self.session() as s:
            return list(s.exec(select(ClassSession).where(ClassSession.facilitator_id == facilitator_id)
                               .order_by(ClassSession.created_at.desc())).all())

    def class_code_of_table(self, table_code: str) -> str | None:
        with self.session() as s:
            table = s.exec(select(GameTable).where(GameTable.code == table_code)).first()
            if table is None or table.class_id is None:
                return None
            klass = s.get(ClassSession, table.class_id)
            return klass.code if klass else None

    @staticmethod
    def rule(klass: ClassSession) -> seating.SeatingRule:
        return seating.rule_for(klass.game, klass.options)

    @staticmethod
    def table_size(klass: ClassSession) -> int | str:
        # Stored as an int: 1 means solo (one student per table, with computer opponents).
        return seating.SOLO if klass.table_size == 1 else klass.table_size

    def read(self, klass: ClassSession) -> list[dict]:
        """Every table of the class in creation order: {table, seats (active, by index), last_at}."""
        with self.session() as s:
            tables = list(s.exec(select(GameTable).where(GameTable.class_id == klass.id)
                                 .order_by(GameTable.id)).all())
            ids = [t.id for t in tables]
            seats = list(s.exec(select(Seat).where(Seat.table_id.in_(ids), Seat.seat_index != None)  # noqa: E711
                                .order_by(Seat.seat_index)).all()) if ids else []
            last = dict(s.exec(select(Event.table_id, func.max(Event.at)).where(Event.table_id.in_(ids))
                               .group_by(Event.table_id)).all()) if ids else {}
        by_table: dict[int, list[Seat]] = {i: [] for i in ids}
        for seat in seats:
            by_table[seat.table_id].append(seat)
        return [{"table": t, "seats": by_table[t.id], "last_at": utc(last.get(t.id) or t.created_at)}
                for t in tables]

    @staticmethod
    def visible(rows: list[dict]) -> list[dict]:
        """Tables worth showing, numbered 1, 2, … in creation order. A lobby table without
        students (emptied by moves or balancing, or an unused spare) is hidden."""
        shown = [r for r in rows if r["table"].status != "lobby" or any(not x.computer for x in r["seats"])]
        for number, row in enumerate(shown, 1):
            row["number"] = number
        return shown

    def _pinned(self, lobby_ids: list[int]) -> set[int]:
        """Seats the facilitator moved to their current table: balancing moves others first."""
        if not lobby_ids:
            return set()
        with self.session() as s:
            events = s.exec(select(Event).where(Event.table_id.in_(lobby_ids))).all()
            pinned = set()
            for ev in events:
                if ev.action.get("type") == "move" and ev.action.get("by") == "facilitator":
                    for item in ev.action.get("in", []):
                        seat = s.get(Seat, item.get("seat_id"))
                        if seat is not None and seat.table_id == ev.table_id:
                            pinned.add(seat.id)
        return pinned

    def layout(self, rows: list[dict], *, with_pins: bool = False) -> tuple[list[seating.Table], list[dict]]:
        """The lobby tables as seating's model, and the rows they came from (same order)."""
        lobby = [r for r in rows if r["table"].status == "lobby"]
        pinned = self._pinned([r["table"].id for r in lobby]) if with_pins else set()
        layout = []
        for r in lobby:
            seats = r["seats"]
            layout.append(seating.Table(
                key=r["table"].code,
                students=[seating.Student(x.id, pinned=x.id in pinned) for x in seats if not x.computer],
                computers=sum(x.computer for x in seats), locked=r["table"].locked,
                computer_first=bool(seats) and seats[0].computer))
        return layout, lobby


    @staticmethod
    def spare(rows: list[dict]) -> str | None:
        """An unused empty lobby table of the class, if any."""
        for r in rows:
            if r["table"].status == "lobby" and not r["seats"] and not r["table"].locked:
                return r["table"].code
        return None

    def new_table(self, klass: ClassSession, rows: list[dict]) -> str:
        """A lobby table for the class: an unused empty one if any, else a fresh one."""
        spare = self.spare(rows)
        if spare is not None:
            return spare
        return self.tables.create_table(klass.facilitator_id, klass.game, klass.options, class_id=klass.id,
                                        name_filter=klass.name_filter, text_approval=klass.text_approval,
                                        phone_notes=klass.phone_notes,
                                        lesson_minutes=klass.lesson_minutes).code


    def set_status(self, class_id: int, status: str) -> None:
        self._set(class_id, status=status)

    def set_phone_notes(self, class_id: int, on: bool) -> None:
        self._set(class_id, phone_notes=on)

    # ------------------------------------------------- the class's lesson clock
    def start_lesson_clock(self, klass: ClassSession) -> None:
        """The class starts: so does its lesson clock (once; a class without one has none)."""
        self.tables.store.class_clock(klass.id, start_at=time.time(), minute=self.tables.lesson_minute)

    def move_lesson_clock(self, class_id: int, seconds: float) -> bool:
        """The class's clock `seconds` later, running or stopped; False if it has not started."""
        with self.session() as s:
            done = s.execute(update(ClassSession).where(ClassSession.id == class_id,
                                                        ClassSession.lesson_due != None)  # noqa: E711
                             .values(lesson_due=ClassSession.lesson_due + seconds, version=ClassSession.version + 1))
            if not done.rowcount:
                done = s.execute(update(ClassSession).where(ClassSession.id == class_id,
                                                            ClassSession.lesson_left != None)  # noqa: E711
                                 .values(lesson_left=ClassSession.lesson_left + seconds,
                                         version=ClassSession.version + 1))
            s.commit()
            return bool(done.rowcount)

    def stop_lesson_clock(self, class_id: int, stopped: bool) -> None:
        """Every table paused: the class's clock stops, keeping the time it had left (and
        runs on from there when they resume), as each table's own lesson timer does."""
        now = time.time()
        with self.session() as s:
            if stopped:
                s.execute(update(ClassSession).where(ClassSession.id == class_id,
                                                     ClassSession.lesson_due != None)  # noqa: E711
                          .values(lesson_left=ClassSession.lesson_due - now, lesson_due=None,
                                  version=ClassSession.version + 1))
            else:
                s.execute(update(ClassSession).where(ClassSession.id == class_id,
                                                     ClassSession.lesson_left != None)  # noqa: E711
                          .values(lesson_due=ClassSession.lesson_left + now, lesson_left=None,
                                  version=ClassSession.version + 1))
            s.commit()

    def _set(self, class_id: int, **values) -> None:
        """Change the class row; its new version tells the overviews to read it again."""
        with self.session() as s:
            s.execute(update(ClassSession).where(ClassSession.id == class_id)
                      .values(**values, version=ClassSession.version + 1))
            s.commit()


    @staticmethod
    def row_of(rows: list[dict], table_code) -> dict:
        row = next((r for r in rows if r["table"].code == table_code), None)
        if row is None:
            raise ServiceError("unknown_table", N_("There is no table with that code in this class."))
        return row

    # ------------------------------------------------- what the overviews keep in memory
    def codes_of(self, class_id: int) -> list[str]:
        """The codes of the class's tables, in creation order."""
        with self.session() as s:
            return list(s.exec(select(GameTable.code).where(GameTable.class_id == class_id)
                               .order_by(GameTable.id)).all())

    def moved_seats(self, class_id: int) -> set[int]:
        """The seat rows of the class left behind at a finished match by a student re-seated
        at another table (`move_seats`): that table's version does not change, so its live
        copy cannot tell."""
        with self.session() as s:
            return set(s.exec(select(Seat.id).join(GameTable, GameTable.id == Seat.table_id)
                              .where(GameTable.class_id == class_id, Seat.moved_to != None)).all())  # noqa: E711

    def versions(self, class_id: int) -> dict[str, int]:
        """Each table's version in the database, by code (is a live copy current?)."""
        with self.session() as s:
            return dict(s.exec(select(GameTable.code, GameTable.version).where(GameTable.class_id == class_id)).all())
