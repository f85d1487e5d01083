"""Opening a table and seating its players: the cold path, written through the ORM
(app/store/tables.py) in one transaction per change, which then drops the live copy
(the next move reloads it)."""
from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app import engines, i18n
from app.edge.security import check_polite, clean_name, hash_token, name_key, new_code, new_token
from app.engines.contract import IllegalAction, join_names
from app.engines.text import N_
from app.errors import ServiceError
from app.service.tables import lesson
from app.service.tables.common import Deals, Live, Outcome, actor_name, checked
from app.service.tables.live import LiveTables
from app.service.tables.moves import Moves
from app.store.models import ClassSession, GameTable, Seat
from app.engines.text import N_, NP_


class Lobby:
    def __init__(self, cache: LiveTables, moves: Moves, deals: Deals):
        self.cache = cache
        self.store = cache.store
        self.moves = moves
        self.deals = deals

    def commit(self, s: Session) -> None:
        """Commit a transaction of `stage`d changes and drop the cached copies it touched."""
        try:
            self.store.commit(s)
        finally:
            for code in self.store.touched(s):
                self.cache.forget(code)

    def create_table(self, facilitator_id: int | None, game: str, options: dict | None = None,
                     class_id: int | None = None, *, demo=False, anonymous: bool = False,
                     name_filter=True, text_approval=False, phone_notes=True, lesson_minutes=0,
                     language="en") -> GameTable:
        """A lobby table. `demo`: True for the game's guided demo (GameSpec.demo), or one of
        its quick starts (a Demo of GameSpec.starts): its options, and its computer seats
        join when the visitor does. Only a demo, or an `anonymous` table (an online match,
        app/service/online.py), may have no facilitator. `name_filter`: refuse rude names and rude
        student text. `text_approval`: student text waits for the teacher's approval.
        `phone_notes`: the players' phones offer the playtest note box. `lesson_minutes`: the
        lesson clock's length from the deal (0 or None: none; app/service/tables/lesson.py).
        `language`: the projected board's (app/i18n)."""
        if not isinstance(name_filter, bool):
            raise ServiceError("bad_request", N_("name_filter must be true or false."))
        if not isinstance(text_approval, bool):
            raise ServiceError("bad_request", N_("text_approval must be true or false."))
        if not isinstance(phone_notes, bool):
            raise ServiceError("bad_request", N_("phone_notes must be true or false."))
        lesson_minutes = lesson.minutes(lesson_minutes)
        language = i18n.board_language(language)
        try:
            spec = engines.spec(game)
            start = spec.demo if demo is True else (demo or None)
            if demo and start is None:
                raise IllegalAction("bad_request", f"{spec.title} has no guided demo.")
            resolved = engines.options_for(game, dict(start.options) if start else options)
        except IllegalAction as exc:
            raise ServiceError("bad_request", exc.message)
        if not demo and class_id is None and spec.demo is not None \
                and all(resolved.get(k) == v for k, v in spec.demo.options.items()):
            # A table made with the guided demo's options (the form's "demo" preset) is the
            # guided demo: its computers join with the visitor, and a second phone is refused.
            demo = True
        if facilitator_id is None and not (demo or anonymous):
            raise ServiceError("forbidden", N_("Only a guided demo can be opened without a facilitator."))
        demo = bool(demo)
        for _ in range(20):
            table = GameTable(code=new_code(), game=game, engine_version=spec.version,
                              data_versions=dict(spec.data_versions), options=resolved,
                              seed=self.deals.next(game, resolved, language), facilitator_id=facilitator_id, class_id=class_id,
                              demo=demo, name_filter=name_filter, text_approval=text_approval,
                              phone_notes=phone_notes, lesson_minutes=lesson_minutes, language=language)
            with self.store.session() as s:
                s.add(table)
                try:
                    s.commit()
                    return table
                except IntegrityError:  # code collision: draw another
                    s.rollback()
        raise ServiceError("bad_request", N_("Could not allocate a table code; try again."))

    def set_language(self, token_hash: str, language: str) -> str | None:
        """The seat's phone reads `language` from now on: its views are built in it (app/i18n).
        Returns the seat's table code when that changed something, else None."""
        language = i18n.known(language) or i18n.DEFAULT
        with self.store.session() as s:
            seat = self.store.seat_by_token(s, token_hash)
            if seat is None or (seat.language or i18n.DEFAULT) == language:
                return None
            seat.language = language
            table = s.get(GameTable, seat.table_id)
            s.add(seat)
            s.commit()
            code = table.code
        self.cache.forget(code)  # the next view reloads the seat with its language
        return code

    def join(self, code: str, name: str, *, start=None) -> dict:
        """Seat a new player at a single table. Returns {seat, token, table}. `start`: the
        quick start (a Demo) the table was opened for, when it is not the guided demo."""
        name = checked(clean_name, name)
        for _ in range(10):  # a lost compare-and-swap means another join landed first: look again
            with self.store.session() as s:
                table = self.store.table(s, code)
                if table.class_id is not None:
                    klass = s.get(ClassSession, table.class_id)
                    raise ServiceError("forbidden", N_("This table belongs to a class: join with the class code {code} shown on the board.").format(
                        code=klass.code if klass else ''))
                demo = (start or engines.spec(table.game).demo) if table.demo else None
                seats = self.store.seats(s, table)
                if demo is not None and len(seats) >= len(demo.humans):
                    # The visitor's seat is taken: a second phone hears why (the demo is one
                    # person's), rather than "locked", or a start the game would refuse.
                    raise ServiceError("table_full", demo.full)
                self.check_open(table)
                token, student, join = self.seat_student(s, table, seats, name,
                                                         chairs_needed=len(demo.seats) - len(seats) if demo else 1)
                try:
                    self.store.stage(s, table, **join)
                    if demo is not None and len(seats) + 1 == len(demo.humans):
                        self._seat_demo_computers(s, table, demo)
                    self.commit(s)
                except ServiceError as exc:
                    if exc.code == "stale":
                        continue
                    raise
                if demo is not None and table.status == "lobby" and len(seats) + 1 == len(demo.humans):
                    self.start_now(table.code, actor="system")
                    self.cache.forget(table.code)  # its viewers get the started table in full on the refresh
                return {"seat": student.seat_index, "token": token, "table": table.code}
        raise ServiceError("rate_limited", N_("The table is very busy; please try again."))

    def _seat_demo_computers(self, s: Session, table: GameTable, demo) -> None:
        """The guided demo's visitor has joined: its computer seats take their chairs
        and the table locks (no one else joins), inside the join's transaction."""
        names = [demo.seats[i] for i in demo.computers]
        if any(name_key(x.name) == name_key(n) for x in self.store.seats(s, table) for n in names):
            raise ServiceError("name_taken", N_("The computer player here is called {names}: pick another name.").format(
                names=join_names(names)))
        for index in demo.computers:
            # Nobody ever holds this token: a computer seat cannot be resumed.
            s.add(Seat(table_id=table.id, seat_index=index, name=demo.seats[index],
                       token_hash=hash_token(new_token()), computer=True))
        self.store.stage(s, table, actor="system", action={"type": "computers", "added": names},
                         log=[{"t": "join", "seat": i, "text": N_("{name} joined as a computer player.").format(name=demo.seats[i])}
                              for i in demo.computers], changes={"locked": True})

    @staticmethod
    def check_open(table: GameTable) -> None:
        if table.status == "ended":
            raise ServiceError("game_over", N_("This game has already ended."))
        if table.status == "playing":
            raise ServiceError("forbidden", N_("This game has already started. Ask your teacher for a new code."))
        if table.locked:
            raise ServiceError("forbidden", N_("This table is locked by the teacher."))

    @staticmethod
    def seat_student(s: Session, table: GameTable, seats: list[Seat], name: str,
                     *, chairs_needed: int = 1) -> tuple[str, Seat, dict]:
        """The checks every join makes (room, a polite name if the table asks, a name unique
        at the table), then the new seat. Returns (token, seat, the `join` change to stage)."""
        most = engines.spec(table.game).seat_range(table.options)[1]
        if len(seats) + chairs_needed > most:
            raise ServiceError("table_full", NP_("This table is full ({n} player).", "This table is full ({n} players).", most).format(n=most))
        if table.name_filter:
            checked(check_polite, name)
        if any(name_key(x.name) == name_key(name) for x in seats):
            raise ServiceError("name_taken", N_("Someone at this table is already called {name}. Add an initial or pick another name.").format(
                name=name))
        token = new_token()
        student = Seat(table_id=table.id, seat_index=len(seats), name=name, token_hash=hash_token(token))
        s.add(student)
        join = {"actor": actor_name(student.seat_index), "action": {"type": "join", "name": name},
                "log": [{"t": "join", "seat": student.seat_index, "text": N_("{name} joined.").format(name=name)}]}
        return token, student, join

    def start_now(self, code: str, *, expected_version: int | None = None, actor: str = "facilitator") -> Outcome:
        """Start a lobby table whose seats are final (class sessions)."""
        def change(live: Live) -> Outcome:
            if expected_version is not None:
                self.moves.catch_up(live, expected_version)
            if live.status != "lobby":
                raise ServiceError("illegal", N_("This table has already started."))
            if expected_version is not None and live.version != expected_version:
                raise ServiceError("stale", N_("The table changed meanwhile. Here it is now."))
            return self.moves.start(live, actor=actor)
        return self.cache.with_live(code, change)
