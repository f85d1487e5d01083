"""After a round of matches: the teacher's *Play again for all* (each finished table deals
its rematch, its players kept together: app/service/tables/rematch.py) and *New round*
(every student of the finished tables re-seated at new tables by the class's seating rule,
app/service/seating.py, then every new table started). Tables still playing keep their
players; their students join the next round. The finished matches keep their records."""
from __future__ import annotations

from app.errors import ServiceError
from app.service import seating
from app.service.classes.common import settle
from app.service.classes.rows import ClassRows
from app.service.classes.seats import ClassSeats
from app.service.tables import TableService
from app.engines.text import N_


class ClassRounds:
    def __init__(self, rows: ClassRows, seats: ClassSeats, tables: TableService):
        self.rows = rows
        self.seats = seats
        self.tables = tables

    def _open(self, facilitator_id: int, code: str):
        klass = self.rows.owned(code, facilitator_id)
        if klass.status == "ended":
            raise ServiceError("game_over", N_("This class session has ended."))
        return klass

    def play_again_all(self, facilitator_id: int, code: str) -> dict:
        """Every finished table of the class deals its rematch, as the teacher's Play again
        on its page does. Returns {"changed": [old and new table codes], "outcomes": [...]}."""
        klass = self._open(facilitator_id, code)
        outcomes = []
        for row in self.rows.visible(self.rows.read(klass)):
            if row["table"].status != "ended" or row["table"].state is None:
                continue

            def attempt(table_code=row["table"].code):
                try:
                    return self.tables.moderate(facilitator_id, table_code, self.tables.get(table_code).version,
                                                {"type": "again"})
                except ServiceError as exc:
                    if exc.code == "illegal":  # played again already, nobody left, the guided demo
                        return None
                    raise

            outcome = settle(attempt)
            if outcome is not None:
                outcomes.append(outcome)
        if not outcomes:
            raise ServiceError("illegal", N_("No finished table has players who can play again."))
        return {"changed": [o.code for o in outcomes] + [f.code for o in outcomes for f in o.follow],
                "started": [f.code for o in outcomes for f in o.follow], "outcomes": outcomes}

    @staticmethod
    def _students(finished: list[dict]) -> list:
        """The students still at their finished matches (not moved on, not removed), taken
        table by table in turn (the first of each table, then the second...), so that
        players who sat together are spread over the new tables."""
        groups = [[x for x in r["seats"] if not x.computer and not x.kicked and x.moved_to is None]
                  for r in finished]
        longest = max((len(g) for g in groups), default=0)
        return [g[i] for i in range(longest) for g in groups if i < len(g)]

    def new_round(self, facilitator_id: int, code: str) -> dict:
        """Re-seat every student of the class's finished tables at new tables (the class's
        table size, balanced as at the start) in one transaction (`move_seats`: their phones
        follow, the finished matches keep their records), then start each new table with
        the computer players the seating rule calls for.
        Returns {"changed": [...], "started": [...], "moved": {...}, "outcomes": [...]}."""
        klass = self._open(facilitator_id, code)
        rule, size = self.rows.rule(klass), self.rows.table_size(klass)

        def regroup():
            klass = self.rows.get(code)
            rows = self.rows.read(klass)
            finished = [r for r in self.rows.visible(rows) if r["table"].status == "ended"
                        and r["table"].state is not None]
            students = self._students(finished)
            if not students:
                raise ServiceError("illegal", N_("No finished table has students to seat for a new round."))
            sizes = seating.split(len(students), size)
            spare = [r["table"].code for r in rows if r["table"].status == "lobby" and not r["seats"]
                     and not r["table"].locked]
            codes = [spare.pop(0) if spare else self.rows.new_table(klass, []) for _ in sizes]
            moves, at = [], 0
            for table_code, count in zip(codes, sizes):
                moves += [(x.id, table_code) for x in students[at:at + count]]
                at += count
            moved = self.seats.move_seats(moves, by="round", class_id=klass.id, class_version=klass.version)
            return klass, list(zip(codes, sizes)), moved

        klass, groups, moved = settle(regroup)
        outcomes = []
        for table_code, count in groups:
            computers = seating.computers_needed(rule, size, klass.fill_with_computer, count)
            outcomes.append(settle(lambda: self.seats.start_class_table(table_code, computers=computers),
                                   N_("A table is very busy; please try again.")))
        self.rows.set_status(klass.id, "playing")
        codes = [c for c, _n in groups]
        return {"changed": codes, "started": codes, "moved": moved, "outcomes": outcomes}
