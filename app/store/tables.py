"""The tables' rows, through the ORM: the public way every service reads and writes
a table outside the move path (which writes plain SQL, app/service/tables/moves.py).

A `TableStore` opens sessions, finds a table by its code, its seats, a seat by its
token's hash, and stages a table change (compare-and-swap on `version` plus the
event) inside a caller's transaction. Services use it instead of reaching into the
table service (classes, hotseat, online, demo, privacy all seat and move students).
"""
from __future__ import annotations

from sqlalchemy import delete, select as sa_select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from app.edge.security import has_nul
from app.errors import ServiceError
from app.store.models import ClassSession, Event, GameTable, Note, Refusal, Seat, utcnow

TABLE = GameTable.__table__
CLASSES = ClassSession.__table__

STALE = "Someone else moved first. Here is the table as it is now."


class TableStore:
    def __init__(self, db):
        self.db = db

    def session(self) -> Session:
        """A session whose objects stay readable after commit (they are handed out)."""
        return Session(self.db, expire_on_commit=False)

    # ------------------------------------------------------------ reads in a session
    @staticmethod
    def table(s: Session, code: str) -> GameTable:
        table = s.exec(select(GameTable).where(GameTable.code == code)).first() \
            if isinstance(code, str) and code and not has_nul(code) else None
        if table is None:
            raise ServiceError("unknown_table", "There is no table with that code. Check the code on the board.")
        return table

    @staticmethod
    def seats(s: Session, table: GameTable) -> list[Seat]:
        """The active seats by index. A seat removed in the lobby has no index; one removed
        in play keeps it (the computer plays it)."""
        return list(s.exec(select(Seat).where(Seat.table_id == table.id, Seat.seat_index != None)  # noqa: E711
                           .order_by(Seat.seat_index)).all())

    @staticmethod
    def seat_by_token(s: Session, token_hash: str) -> Seat | None:
        return s.exec(select(Seat).where(Seat.token_hash == token_hash)).first()

    @staticmethod
    def table_events(s: Session, table: GameTable) -> list[Event]:
        """The table's platform events (join, start, kick, play again…), oldest first."""
        return list(s.exec(select(Event).where(Event.table_id == table.id, Event.kind == "table")
                           .order_by(Event.version)).all())

    @staticmethod
    def recent_events(s: Session, table: GameTable, limit: int) -> list[Event]:
        """The table's last `limit` events, newest first."""
        return list(s.exec(select(Event).where(Event.table_id == table.id)
                           .order_by(Event.version.desc()).limit(limit)).all())

    # ------------------------------------------------------------ reads, one session each
    def get(self, code: str) -> GameTable:
        with self.session() as s:
            return self.table(s, code)

    def seats_of(self, code: str) -> list[Seat]:
        with self.session() as s:
            return self.seats(s, self.table(s, code))

    def tables_of(self, facilitator_id: int) -> list[GameTable]:
        with self.session() as s:
            return list(s.exec(select(GameTable).where(GameTable.facilitator_id == facilitator_id)
                               .order_by(GameTable.created_at.desc())).all())

    def events(self, code: str) -> list[Event]:
        with self.session() as s:
            table = self.table(s, code)
            return list(s.exec(select(Event).where(Event.table_id == table.id).order_by(Event.version)).all())

    def notes(self, code: str) -> list[Note]:
        with self.session() as s:
            table = self.table(s, code)
            return list(s.exec(select(Note).where(Note.table_id == table.id).order_by(Note.id)).all())

    def note(self, note_id: int) -> Note | None:
        with self.session() as s:
            return s.get(Note, note_id)

    def refusals(self, code: str) -> list[Refusal]:
        with self.session() as s:
            table = self.table(s, code)
            return list(s.exec(select(Refusal).where(Refusal.table_id == table.id).order_by(Refusal.id)).all())

    def add_refusal(self, code: str, *, actor: str, action_type: str, error: str) -> None:
        with self.session() as s:
            table = self.table(s, code)
            s.add(Refusal(table_id=table.id, version=table.version, actor=actor[:40],
                          action_type=action_type[:40], code=error[:40]))
            s.commit()

    def version(self, table_id: int) -> int | None:
        """The table's version in the database (one cheap read: is my copy current?)."""
        with self.db.connect() as conn:
            return conn.execute(sa_select(TABLE.c.version).where(TABLE.c.id == table_id)).scalar()

    def class_clock(self, class_id: int, *, start_at: float | None = None,
                    minute: float = 60.0) -> tuple[int, float | None, float | None]:
        """A class's lesson clock: (minutes, due, seconds left), as its row holds it now.
        `start_at`: start it then (due = start_at + its length in `minute`s) unless it has
        started already; one conditional UPDATE, so the class's first deal starts it, once."""
        with self.db.begin() as conn:
            if start_at is not None:
                conn.execute(update(CLASSES).where(CLASSES.c.id == class_id, CLASSES.c.lesson_minutes > 0,
                                                   CLASSES.c.lesson_due.is_(None), CLASSES.c.lesson_left.is_(None))
                             .values(lesson_due=start_at + CLASSES.c.lesson_minutes * minute,
                                     version=CLASSES.c.version + 1))
            row = conn.execute(sa_select(CLASSES.c.lesson_minutes, CLASSES.c.lesson_due, CLASSES.c.lesson_left)
                               .where(CLASSES.c.id == class_id)).first()
        return (row[0] or 0, row[1], row[2]) if row is not None else (0, None, None)

    def due(self, now: float, limit: int) -> list[tuple[str, float]]:
        """(code, due) of the tables with a timer due by `now`, soonest first."""
        with self.db.connect() as conn:
            rows = conn.execute(sa_select(TABLE.c.code, TABLE.c.next_due_at)
                                .where(TABLE.c.next_due_at != None, TABLE.c.next_due_at <= now)  # noqa: E711
                                .order_by(TABLE.c.next_due_at).limit(limit)).all()
        return [(code, due) for code, due in rows]

    # ------------------------------------------------------------ writes in a transaction
    @staticmethod
    def purge(s: Session, ids: list[int]) -> list[str]:
        """Delete these tables with their seats, events, notes and refusals (their timers
        live in the rows) inside the open transaction; the caller commits, then forgets
        their codes. Returns the seats' token hashes (whose phones may want telling)."""
        if not ids:
            return []
        tokens = list(s.execute(sa_select(Seat.token_hash).where(Seat.table_id.in_(ids))).scalars().all())
        for model in (Event, Note, Refusal, Seat):
            s.execute(delete(model).where(model.table_id.in_(ids)))
        s.execute(delete(GameTable).where(GameTable.id.in_(ids)))
        return tokens

    @staticmethod
    def stage(s: Session, table: GameTable, *, actor: str, action: dict, log: list,
              changes: dict | None = None, kind: str = "table") -> int:
        """Compare-and-swap the table on its version and append the event inside the
        open transaction (not committed yet: a change spanning tables stages each).
        The table's code is recorded in the session as touched (see `touched`)."""
        expected = table.version
        values = dict(changes or {}, version=expected + 1, updated_at=utcnow())
        result = s.execute(update(GameTable)
                           .where(GameTable.id == table.id, GameTable.version == expected)
                           .values(**values))
        if result.rowcount != 1:
            s.rollback()
            raise ServiceError("stale", STALE)
        s.add(Event(table_id=table.id, version=expected + 1, kind=kind, actor=actor, action=action, log=log))
        try:
            s.flush()
        except IntegrityError:  # another writer appended this version between our read and write
            s.rollback()
            raise ServiceError("stale", STALE)
        set_committed_value(table, "version", expected + 1)
        s.info.setdefault("touched", set()).add(table.code)
        return expected + 1

    @staticmethod
    def commit(s: Session) -> None:
        """Commit a transaction of `stage`d changes; a unique clash means another writer won."""
        try:
            s.commit()
        except IntegrityError:
            s.rollback()
            raise ServiceError("stale", STALE)

    @staticmethod
    def touched(s: Session) -> set[str]:
        """The codes of the tables this session staged changes to (then forgotten by it)."""
        return s.info.pop("touched", set())
