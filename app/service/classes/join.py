"""Opening a class session, and a student joining with the class code: seated by
app/service/seating.py at one of its tables (a new one when none has room)."""
from __future__ import annotations

from app import engines, i18n
from app.edge.security import InputError, check_polite, clean_name, name_key, new_code
from app.engines.contract import IllegalAction
from app.errors import ServiceError
from app.service import seating
from app.service.classes.common import settle
from app.service.classes.rows import ClassRows
from app.service.classes.seats import ClassSeats
from app.service.tables import TableService, lesson
from app.store.models import ClassSession
from app.engines.text import N_


class ClassJoin:
    def __init__(self, rows: ClassRows, seats: ClassSeats, tables: TableService, *, tables_max: int):
        self.rows = rows
        self.seats = seats
        self.tables = tables
        # A new name joining a full (or solo) class opens a table: a class has at most this many
        # (CLASS_TABLES_MAX), so that nobody can fill the database by joining under made-up names.
        self.tables_max = tables_max

    # ----------------------------------------------------------- create
    def create(self, facilitator_id: int, game, options=None, table_size=None,
               fill_with_computer=False, name_filter=True, text_approval=False, lesson_minutes=0,
               language="en") -> ClassSession:
        """A class session in its lobby. `lesson_minutes`: the class's lesson clock (0 or None:
        none), which starts when the class starts and drives every table of the class.
        `language`: its boards' (app/i18n); its students' phones read their own."""
        if not isinstance(game, str):
            raise ServiceError("bad_request", "Send the game's key, one of: " + ", ".join(engines.keys()) + ".")
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise ServiceError("bad_request", N_("options must be an object of the game's options."))
        if not isinstance(fill_with_computer, bool):
            raise ServiceError("bad_request", N_("fill_with_computer must be true or false."))
        if not isinstance(name_filter, bool):
            raise ServiceError("bad_request", N_("name_filter must be true or false."))
        if not isinstance(text_approval, bool):
            raise ServiceError("bad_request", N_("text_approval must be true or false."))
        lesson_minutes = lesson.minutes(lesson_minutes)
        language = i18n.board_language(language)
        try:
            spec = engines.spec(game)
            resolved = engines.options_for(game, options)
            rule = seating.rule_for(game, resolved)
            size = seating.parse_table_size(rule, table_size)
        except (seating.SeatingError, IllegalAction) as exc:
            raise ServiceError("bad_request", getattr(exc, "message", None) or str(exc))
        lo, hi = spec.seat_range(resolved)
        if size != seating.SOLO and not lo <= size <= hi:
            raise ServiceError("bad_request", f"{spec.title} tables seat {lo} to {hi} players.")
        for _ in range(20):
            code = new_code()
            # A class code must never also be a table code: both are typed in the same box.
            if self.rows.find(code) is not None or self.tables.find(code) is not None:
                continue
            klass = ClassSession(code=code, game=game, options=resolved, facilitator_id=facilitator_id,
                                 table_size=1 if size == seating.SOLO else size,
                                 fill_with_computer=fill_with_computer, name_filter=name_filter,
                                 text_approval=text_approval, lesson_minutes=lesson_minutes,
                                 language=language)
            with self.rows.session() as s:
                s.add(klass)
                s.commit()
            return klass
        raise ServiceError("bad_request", N_("Could not allocate a class code; try again."))


    # ------------------------------------------------------------- join
    def join_any(self, code: str, name: str) -> dict:
        """`join` with a table code or a class code; returns {seat, token, table}."""
        klass = self.rows.find(code)
        if klass is None:
            return self.tables.join(code, name)
        if klass.status == "ended":
            raise ServiceError("game_over", N_("This class session has ended."))
        try:
            name = clean_name(name)
            if klass.name_filter:  # here too, before a table is opened for it (seat_student checks again)
                check_polite(name)
        except InputError as exc:
            raise ServiceError("bad_request", str(exc))
        rule, size = self.rows.rule(klass), self.rows.table_size(klass)

        def attempt():
            klass = self.rows.get(code)
            rows = self.rows.read(klass)
            if any(name_key(x.name) == name_key(name) for r in rows for x in r["seats"] if not x.computer):
                raise ServiceError("name_taken", N_("Someone in this class is already called {name}. Add an initial or pick another name.").format(
                    name=name))
            layout, lobby = self.rows.layout(rows)
            index = seating.place(layout, rule, size)
            if index is None and len(rows) >= self.tables_max and not self.rows.spare(rows):
                raise ServiceError("table_full", N_("This class already has {n} tables, the most a class can have, so there is no seat for you. "
                                                    "Tell your teacher.").format(n=self.tables_max))
            table_code = lobby[index]["table"].code if index is not None else self.rows.new_table(klass, rows)
            computers = rule.solo_computers if size == seating.SOLO else 0
            return self.seats.class_join(table_code, name, class_id=klass.id, class_version=klass.version,
                                   computers=computers)

        return settle(attempt)
