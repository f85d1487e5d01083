"""Student privacy: names are removed after a retention period, and a teacher can
delete a table or a class with everything recorded about it.

The only thing stored about a student is the name they typed. RETENTION_DAYS
(default 30) after an ended table last changed, `cleanup()` replaces each of its
students' names by "Player 1", "Player 2"... (by seat) everywhere the name was
recorded: the seat rows, every event's action and log (the start event's seat
list, joins, removals, moves), the notes (author and text), the game state
snapshot (the engines keep the seat names and write them into their own
sentences). One consistent substitution over the events and the snapshot keeps
replay exact: the start event now says "Player 1" and the engine, replaying,
rebuilds the snapshot that says "Player 1". Reports, exports and class standings
read those rows, so they follow. Refusals record "seat:N", never a name.
Computer players keep their names (they are not students); a student the
teacher removed mid-game (the computer took over) is a student and loses it.

The table is marked (`names_removed_at`) in the same transaction, and the
rewrite claims the row first with a conditional update, so two processes
cleaning at once rewrite it once. The timer loop calls `cleanup_due()` often; it
runs at most every PRIVACY_CLEANUP_EVERY seconds across all processes (the
shared limiter, app/edge/limits.py, lets one call through per window) and rewrites at
most PRIVACY_CLEANUP_BATCH tables, for about PRIVACY_CLEANUP_SLICE seconds, per
run: a backlog (the first start after an upgrade) never stalls the games for
long, and `flask --app app privacy cleanup` clears it at once.

Deleting (`delete_table`, `delete_class`) removes the rows at once: events,
seats, notes, refusals, the table rows (their timers live in them) and, for a
class, all its tables and the class itself. It returns what the notifier needs
to tell the phones and boards still connected.

Nothing here knows a game.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlmodel import Session

from app.errors import ServiceError
from app.service.student_text import Renamer, placeholder  # noqa: F401  (one naming: the teacher's hidden names too)
from app.service.tables import TableService
from app.store.models import ClassSession, Event, GameTable, Note, Seat, utcnow
from app.engines.text import N_

log = logging.getLogger(__name__)

DEFAULTS = {
    "RETENTION_DAYS": 30,              # days after an ended table's last change before names go
    "PRIVACY_CLEANUP_EVERY": 300,      # seconds between the timer loop's clean-ups (all processes)
    "PRIVACY_CLEANUP_BATCH": 20,       # tables rewritten per run at most...
    "PRIVACY_CLEANUP_SLICE": 0.5,      # ...and no new one started after this many seconds (the
                                       # timer loop waits meanwhile: ~0.2 ms per event rewritten)
}

DELETED_MESSAGE = N_("This table was deleted by its teacher. Ask your teacher for a new code.")
CLASS_DELETED_MESSAGE = N_("This class was deleted by its teacher. Ask your teacher for a new code.")


@dataclass
class Deleted:
    """What a deletion removed: the table codes, the seats' token hashes (their phones
    are told) and the class code when a class went."""

    codes: list[str] = field(default_factory=list)
    token_hashes: list[str] = field(default_factory=list)
    class_code: str | None = None


class PrivacyService:
    def __init__(self, tables: TableService, classes, limits=None, config: dict | None = None):
        self.tables = tables
        self.classes = classes
        self.limits = limits
        self.config = {k: (config or {}).get(k, v) for k, v in DEFAULTS.items()}

    @property
    def retention_days(self) -> float:
        return float(self.config["RETENTION_DAYS"])

    def _session(self) -> Session:
        return self.tables.store.session()

    # ------------------------------------------------------------ retention
    def due(self, now: datetime | None = None, limit: int | None = None) -> list[int]:
        """Ids of ended tables past the retention period whose names are still there."""
        cutoff = (now or utcnow()) - timedelta(days=self.retention_days)
        with self._session() as s:
            query = (select(GameTable.id).where(GameTable.status == "ended",
                                                GameTable.names_removed_at == None,  # noqa: E711
                                                GameTable.updated_at < cutoff).order_by(GameTable.id))
            if limit is not None:
                query = query.limit(limit)
            return list(s.execute(query).scalars().all())

    def cleanup(self, *, now: datetime | None = None, limit: int | None = None,
                seconds: float | None = None) -> list[str]:
        """Remove the names of every ended table past RETENTION_DAYS (at most `limit`
        tables, and none started after `seconds`). Returns the codes of the tables rewritten."""
        done, started = [], time.monotonic()
        for table_id in self.due(now, limit):
            if seconds is not None and time.monotonic() - started >= seconds:
                break  # the rest waits for the next run
            code = self.anonymize(table_id)
            if code is not None:
                done.append(code)
        return done

    def cleanup_due(self) -> list[str]:
        """`cleanup` of one batch, if no process has run one in the last PRIVACY_CLEANUP_EVERY seconds."""
        if self.limits is not None and not self.limits.hit("privacy-cleanup", "all", limit=1,
                                                           window=float(self.config["PRIVACY_CLEANUP_EVERY"])):
            return []
        codes = self.cleanup(limit=int(self.config["PRIVACY_CLEANUP_BATCH"]),
                             seconds=float(self.config["PRIVACY_CLEANUP_SLICE"]))
        if codes:
            log.info("removed the student names of %d ended table(s): %s", len(codes), ", ".join(codes))
        return codes

    @staticmethod
    def mapping(seats: list[Seat]) -> dict[str, str]:
        """Each student's name -> "Player N": N is the seat number, and students removed in
        the lobby (no seat any more) are numbered after the seats."""
        seated = sorted((x for x in seats if x.seat_index is not None), key=lambda x: x.seat_index)
        unseated = sorted((x for x in seats if x.seat_index is None), key=lambda x: x.id)
        out, number = {}, 0
        for x in seated + unseated:
            number = x.seat_index + 1 if x.seat_index is not None else max(number, len(seated)) + 1
            if x.computer and not x.kicked:
                continue  # a computer player (a filler, a demo's rival): not a student's name
            out.setdefault(x.name, placeholder(number))
        return out

    def anonymize(self, table_id: int) -> str | None:
        """Rewrite one ended table's student names; None if it was not due (another process
        did it, or it is not ended)."""
        with self._session() as s:
            table = s.get(GameTable, table_id)
            if table is None or table.status != "ended" or table.names_removed_at is not None:
                return None
            # Claim the table first: a second process running the same clean-up finds it taken.
            claimed = s.execute(update(GameTable).where(GameTable.id == table_id,
                                                        GameTable.names_removed_at == None,  # noqa: E711
                                                        GameTable.version == table.version)
                                .values(names_removed_at=utcnow()))
            if claimed.rowcount != 1:
                s.rollback()
                return None
            seats = list(s.scalars(select(Seat).where(Seat.table_id == table_id)).all())
            mapping = self.mapping(seats)
            rename = Renamer(mapping)
            for x in seats:
                if x.name in mapping:
                    x.name = mapping[x.name]
            for ev in s.scalars(select(Event).where(Event.table_id == table_id)).all():
                action, log = rename(ev.action), rename(ev.log)
                if action != ev.action:
                    ev.action = action
                if log != ev.log:
                    ev.log = log
            for note in s.scalars(select(Note).where(Note.table_id == table_id)).all():
                note.author = mapping.get(note.author, note.author)
                note.text = rename.text(note.text)
            if table.state is not None:
                state = rename(table.state)
                if state != table.state:
                    table.state = state
            timers = rename(table.timers or {})
            if timers != (table.timers or {}):
                table.timers = timers
            texts = rename(table.texts or {})  # the students' free text (app/service/student_text.py)
            if texts != (table.texts or {}):
                table.texts = texts
            s.commit()
            code = table.code
        self.tables.forget(code)  # the cached copy still has the names
        return code

    # ------------------------------------------------------------- deletion
    def delete_table(self, facilitator_id: int, code) -> Deleted:
        """Delete one of the facilitator's tables and everything recorded about it. A class's
        table goes with its class (its students are seated by the class)."""
        table = self.tables.owned(code, facilitator_id) if isinstance(code, str) else None
        if table is None:
            raise ServiceError("unknown_table", N_("There is no table with that code."))
        if table.class_id is not None:
            raise ServiceError("forbidden", N_("This table belongs to a class: delete the class instead."))
        return self._purge([table.id])

    def delete_class(self, facilitator_id: int, code) -> Deleted:
        """Delete one of the facilitator's classes with all its tables and their data."""
        if not isinstance(code, str):
            raise ServiceError("unknown_table", N_("There is no class with that code."))
        klass = self.classes.owned(code, facilitator_id)
        with self._session() as s:
            ids = list(s.scalars(select(GameTable.id).where(GameTable.class_id == klass.id)).all())
        deleted = self._purge(ids, class_id=klass.id)
        deleted.class_code = klass.code
        return deleted

    def _purge(self, ids: list[int], *, class_id: int | None = None) -> Deleted:
        with self._session() as s:
            rows = s.execute(select(GameTable.code).where(GameTable.id.in_(ids))).scalars().all() if ids else []
            tokens = self.tables.purge(s, ids)
            if class_id is not None:
                s.execute(ClassSession.__table__.delete().where(ClassSession.__table__.c.id == class_id))
            s.commit()
        for code in rows:
            self.tables.forget(code)
        for token_hash in tokens:
            self.tables.forget_seat(token_hash)
        return Deleted(codes=list(rows), token_hashes=list(tokens))
