"""Class sessions: one code for a whole class, students seated into many tables.

The class code is accepted wherever a table code is (`join_any`): a student
joining with it is seated at one of the session's tables, and from then on
plays exactly as at a single table. Where students sit is decided by the pure
rules in app/service/seating.py; this service reads the class's tables, asks seating,
and applies the answer through the table store, compare-and-swapping every table
a change touches plus the class row, so two arrivals, a move and the start never
overwrite one another (a loser retries from fresh data).

The overviews (overview.py) summarise every table for the teacher and the class board.
The parts, one module each, are listed in service.py, whose `ClassService` composes them.
"""
from app.service.classes.service import ClassService

__all__ = ["ClassService"]
