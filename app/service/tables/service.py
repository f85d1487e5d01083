"""`TableService`: the one object the rest of the app calls (`services().tables.…`).

It owns nothing itself: it makes the parts once and hands each the parts it uses,
then lists, method by method, which part answers. Read a part to change how it works:

    app/store/tables.py  TableStore   the rows through the ORM (sessions, a table, its seats, stage/commit)
    live.py              LiveTables   the live copies in memory, the retry loop, seats by token
    moves.py             Moves        the move path and `write`, the one transaction of a live change
    views.py             Views        each viewer's payload
    timers.py            TimerFiring  deadlines and computer moves (plus the timer arithmetic)
    moderation.py        Moderation   the teacher's say, and the brakes on tables without one
    lobby.py             Lobby        open a table, seat its players, start it from a class
    rematch.py           Rematch      play again: the players' taps, the new table with the same seats
    notes.py             Notes        playtest notes
    replay.py            Records      replay, the API's summary, the reports' log
"""
from __future__ import annotations

from typing import Callable

from app.service.tables.common import Deals
from app.service.tables.live import LiveTables
from app.service.tables.lobby import Lobby
from app.service.tables.moderation import Moderation
from app.service.tables.moves import Moves
from app.service.tables.rematch import Rematch
from app.service.tables.notes import Notes
from app.service.tables.replay import Records
from app.service.tables.timers import TimerFiring
from app.service.tables.views import Views
from app.store.models import GameTable
from app.errors import ServiceError
from app.store.tables import TableStore
from app.engines.text import N_


class TableService:
    def __init__(self, db, *, bot_delay_scale: float = 1.0, connected: Callable[[str], bool] | None = None,
                 lesson_minute: float = 60.0, deal_seed: str | None = None):
        self.db = db
        self.store = TableStore(db)
        self.cache = LiveTables(self.store)
        self.views = Views(self.cache, connected)
        self.moves = Moves(self.cache, self.views, bot_delay_scale=bot_delay_scale, lesson_minute=lesson_minute)
        self.timers = TimerFiring(self.cache, self.moves)
        self.deals = Deals(deal_seed)
        self.lobby = Lobby(self.cache, self.moves, self.deals)
        self.rematch = Rematch(self.cache, self.moves, self.views, self.lobby)
        self.moderation = Moderation(self.cache, self.moves, self.views, self.rematch)
        self.notebook = Notes(self.store)
        self.records = Records(self.store, self.views)

        # The rows (app/store/tables.py): reads, and a change staged in a caller's transaction.
        self.get, self.seats, self.tables_of = self.store.get, self.store.seats_of, self.store.tables_of
        self.events, self.notes, self.refusals = self.store.events, self.store.notes, self.store.refusals
        self.purge, self.stage, self.commit = self.store.purge, self.store.stage, self.lobby.commit
        # Opening a table and seating its players.
        self.create_table, self.join, self.start_now = self.lobby.create_table, self.lobby.join, self.lobby.start_now
        self.check_open, self.seat_student = self.lobby.check_open, self.lobby.seat_student
        self.set_language = self.lobby.set_language  # a phone's language (app/i18n)
        # The live copies and the seats' tokens.
        self.live, self.forget, self.forget_seat = self.cache.live, self.cache.forget, self.cache.forget_seat
        self.resume, self.seat_ref, self.cached_table = self.cache.resume, self.cache.seat_ref, self.cache.cached_table
        # The move path, the timers, moderation.
        self.act, self.act_as = self.moves.act, self.moves.act_as
        self.fire_due, self.due_tables = self.timers.fire_due, self.timers.due_tables
        self.moderate, self.close_unstarted = self.moderation.moderate, self.moderation.close_unstarted
        self.pause_teacherless = self.moderation.pause_teacherless
        # Play again once a game has ended: a player's tap (the teacher's is the moderation `again`).
        self.again = self.rematch.ready
        self.end_teacherless = self.moderation.end_teacherless
        # Views, notes, the record.
        self.view_for, self.refresh = self.views.view_for, self.views.refresh
        self.redact_names = self.views.redact_names
        self.add_note, self.notes_for = self.notebook.add_note, self.notebook.notes_for
        self.replay, self.summary, self.log_json = self.records.replay, self.records.summary, self.records.log_json

    @property
    def connected(self) -> Callable[[str], bool]:
        """Whether a seat (by token hash) has a live connection (app/realtime/presence.py sets it)."""
        return self.views.connected

    @connected.setter
    def connected(self, connected: Callable[[str], bool]) -> None:
        self.views.connected = connected

    @property
    def watched(self) -> Callable[[str, str], bool]:
        """Whether a table's board or teacher's view can reach anyone (app/realtime sets it)."""
        return self.views.watched

    @watched.setter
    def watched(self, watched: Callable[[str, str], bool]) -> None:
        self.views.watched = watched

    @property
    def lesson_minute(self) -> float:
        """Seconds in a lesson clock's minute (60; the LESSON_MINUTE setting shortens it for tests)."""
        return self.moves.lesson_minute

    @property
    def bot_delay_scale(self) -> float:
        return self.moves.bot_delay_scale

    @bot_delay_scale.setter
    def bot_delay_scale(self, scale: float) -> None:
        self.moves.bot_delay_scale = scale

    def find(self, code: str) -> GameTable | None:
        try:
            return self.get(code)
        except ServiceError:
            return None

    def owned(self, code: str, facilitator_id: int) -> GameTable:
        table = self.get(code)
        if table.facilitator_id != facilitator_id:
            raise ServiceError("forbidden", N_("This table belongs to another facilitator."))
        return table

    def humans_connected(self, code: str) -> bool:
        """Whether a person (not a computer, not a removed player) has a live connection to
        one of the table's seats, in any process (app/realtime/presence.py)."""
        return any(self.connected(x.token_hash) for x in self.live(code).seats if not x.computer and not x.kicked)
