"""`ClassService`: the one object the rest of the app calls (`services().classes.…`).

It makes the parts once, hands each the parts it uses, and lists, method by method,
which part answers:

    rows.py      ClassRows       the class row and its tables as read from the database
    seats.py     ClassSeats      class tables, one transaction each (join, computers, moves, start one)
    join.py      ClassJoin       open a class; a student joins with the class code
    lobby.py     ClassLobby      before and at the start: move students, add computers, start
    steer.py     ClassSteer      pause, resume or end tables; +5 min on the lesson clock; playtest notes
                                 from phones; the message
    rounds.py    ClassRounds     after a round: play again for all, or a new round at new tables
    overview.py  ClassOverviews  the JSON summary, the teacher's overview, the class board
"""
from __future__ import annotations

from app.service.classes.join import ClassJoin
from app.service.classes.lobby import ClassLobby
from app.service.classes.overview import ClassOverviews
from app.service.classes.rounds import ClassRounds
from app.service.classes.rows import ClassRows
from app.service.classes.seats import ClassSeats
from app.service.classes.steer import ClassSteer
from app.service.tables import TableService


class ClassService:
    def __init__(self, db, tables: TableService, *, tables_max: int, shared: bool = False):
        """`shared`: other processes write the same tables (a message queue joins them)."""
        self.db = db
        self.tables = tables
        self.rows = ClassRows(db, tables)
        self.seats = ClassSeats(self.rows, tables)
        self.joining = ClassJoin(self.rows, self.seats, tables, tables_max=tables_max)
        self.lobby = ClassLobby(self.rows, self.seats, tables)
        self.steer = ClassSteer(self.rows, tables)
        self.rounds = ClassRounds(self.rows, self.seats, tables)
        self.overviews = ClassOverviews(self.rows, tables, shared=shared)

        # Reads.
        self.find, self.get, self.owned, self.classes_of = self.rows.find, self.rows.get, self.rows.owned, \
            self.rows.classes_of
        self.rule, self.table_size, self.class_code_of_table = self.rows.rule, self.rows.table_size, \
            self.rows.class_code_of_table
        # Create and join.
        self.create, self.join_any = self.joining.create, self.joining.join_any
        # Class tables, one transaction each.
        self.class_join, self.add_computer_seat = self.seats.class_join, self.seats.add_computer_seat
        self.move_seats, self.start_class_table = self.seats.move_seats, self.seats.start_class_table
        # Before and at the start.
        self.move, self.add_computer = self.lobby.move, self.lobby.add_computer
        self.start, self.start_table = self.lobby.start, self.lobby.start_table
        # Steer tables.
        self.moderate, self.clean_message, self.student_seats = self.steer.moderate, self.steer.clean_message, \
            self.steer.student_seats
        self.set_phone_notes, self.lesson_more = self.steer.set_phone_notes, self.steer.lesson_more
        # After a round.
        self.play_again_all, self.new_round = self.rounds.play_again_all, self.rounds.new_round
        # Views.
        self.summary, self.overview, self.public_overview = self.overviews.summary, self.overviews.overview, \
            self.overviews.public_overview

    @property
    def tables_max(self) -> int:
        return self.joining.tables_max
