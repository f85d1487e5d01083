"""The table service: create, join, resume, act, moderate, note, end.

Everything that changes a table goes through `_commit`, which compare-and-swaps
the snapshot on `version` and appends the event in the same transaction, so
(a) a stale or simultaneous action loses cleanly and (b) replaying the events
from the seed reproduces the snapshot. Handlers (realtime.py, the blueprints)
stay thin: they validate the envelope, call one method here, and broadcast.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from app import engines
from app.engines.contract import IllegalAction, entry_visible
from app.models import Event, GameTable, Note, Seat, utcnow
from app.security import InputError, clean_name, clean_note, hash_token, name_key, new_code, new_token

LOG_TAIL = 60  # log entries sent with each view
COMPUTER_DELAY = 1.0  # seconds a computer-played seat "thinks" before moving
# Events that change the table around the game, not the game itself.
SERVICE_ONLY_ACTIONS = {"join", "kick", "lock", "unlock", "pause", "resume", "move", "computers"}


class ServiceError(Exception):
    """An error with one of the protocol's codes and a sentence for the user."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message}


class Presence:
    """Which seats have a live connection, keyed by the seat's token hash (stable
    across lobby renumbering). In-process: each server process owns its sockets."""

    def __init__(self):
        self._counts: dict[str, int] = {}

    def connect(self, seat_key: str) -> None:
        self._counts[seat_key] = self._counts.get(seat_key, 0) + 1

    def disconnect(self, seat_key: str) -> None:
        left = self._counts.get(seat_key, 0) - 1
        if left > 0:
            self._counts[seat_key] = left
        else:
            self._counts.pop(seat_key, None)

    def connected(self, seat_key: str) -> bool:
        return self._counts.get(seat_key, 0) > 0


@dataclass
class SeatRef:
    """Who a connection speaks for once it has joined or resumed."""

    table: str
    seat: int
    name: str
    token_hash: str = field(repr=False, default="")


def _checked(clean, raw):
    """Run an input cleaner (app/security.py); its complaint becomes a `bad_request`."""
    try:
        return clean(raw)
    except InputError as exc:
        raise ServiceError("bad_request", str(exc))


def seat_room(token_hash: str) -> str:
    """The Socket.IO room of one seat's connections (a phone may have two tabs)."""
    return "seat:" + token_hash[:32]


def _actor(seat: int, auto: bool = False) -> str:
    return f"seat:{seat}:auto" if auto else f"seat:{seat}"


def actor_seat(actor: str) -> int | None:
    parts = actor.split(":")
    return int(parts[1]) if parts[0] == "seat" else None


class TableService:
    def __init__(self, db, *, bot_delay_scale: float = 1.0):
        self.db = db
        self.presence = Presence()
        self.bot_delay_scale = bot_delay_scale

    # ------------------------------------------------------------------ reads
    def _session(self) -> Session:
        return Session(self.db, expire_on_commit=False)

    def _table(self, s: Session, code: str) -> GameTable:
        table = s.exec(select(GameTable).where(GameTable.code == code)).first() if code else None
        if table is None:
            raise ServiceError("unknown_table", "There is no table with that code. Check the code on the board.")
        return table

    def _seats(self, s: Session, table: GameTable) -> list[Seat]:
        # A seat removed in the lobby has no index; one removed in play keeps it (the computer plays it).
        return list(s.exec(select(Seat).where(Seat.table_id == table.id, Seat.seat_index != None)  # noqa: E711
                           .order_by(Seat.seat_index)).all())

    def get(self, code: str) -> GameTable:
        with self._session() as s:
            return self._table(s, code)

    def find(self, code: str) -> GameTable | None:
        try:
            return self.get(code)
        except ServiceError:
            return None

    def seats(self, code: str) -> list[Seat]:
        with self._session() as s:
            return self._seats(s, self._table(s, code))

    def tables_of(self, facilitator_id: int) -> list[GameTable]:
        with self._session() as s:
            return list(s.exec(select(GameTable).where(GameTable.facilitator_id == facilitator_id)
                               .order_by(GameTable.created_at.desc())).all())

    def events(self, code: str) -> list[Event]:
        with self._session() as s:
            table = self._table(s, code)
            return list(s.exec(select(Event).where(Event.table_id == table.id).order_by(Event.version)).all())

    def notes(self, code: str) -> list[Note]:
        with self._session() as s:
            table = self._table(s, code)
            return list(s.exec(select(Note).where(Note.table_id == table.id).order_by(Note.id)).all())

    def owned(self, code: str, facilitator_id: int) -> GameTable:
        table = self.get(code)
        if table.facilitator_id != facilitator_id:
            raise ServiceError("forbidden", "This table belongs to another facilitator.")
        return table

    # ---------------------------------------------------------------- writes
    def _stage(self, s: Session, table: GameTable, *, actor: str, action: dict, log: list,
               changes: dict | None = None) -> int:
        """Compare-and-swap the table on its version and append the event inside the
        open transaction (not committed yet: a change spanning tables stages each)."""
        expected = table.version
        values = dict(changes or {}, version=expected + 1, updated_at=utcnow())
        result = s.execute(update(GameTable)
                           .where(GameTable.id == table.id, GameTable.version == expected)
                           .values(**values))
        if result.rowcount != 1:
            s.rollback()
            raise ServiceError("stale", "Someone else moved first. Here is the table as it is now.")
        s.add(Event(table_id=table.id, version=expected + 1, actor=actor, action=action, log=log))
        try:
            s.flush()
        except IntegrityError:  # another writer appended this version between our read and write
            s.rollback()
            raise ServiceError("stale", "Someone else moved first. Here is the table as it is now.")
        # The row now holds expected + 1; say so without marking the object dirty.
        set_committed_value(table, "version", expected + 1)
        return expected + 1

    def _commit(self, s: Session, table: GameTable, **change) -> int:
        """`_stage` the change and commit the whole transaction, atomically."""
        version = self._stage(s, table, **change)
        try:
            s.commit()
        except IntegrityError:
            s.rollback()
            raise ServiceError("stale", "Someone else moved first. Here is the table as it is now.")
        return version

    def create_table(self, facilitator_id: int, game: str, options: dict | None = None,
                     class_id: int | None = None) -> GameTable:
        try:
            engine = engines.get(game)
            resolved = engines.options_for(game, options)
        except IllegalAction as exc:
            raise ServiceError("bad_request", exc.message)
        for _ in range(20):
            table = GameTable(code=new_code(), game=game, engine_version=engine.VERSION, options=resolved,
                              seed=secrets.randbits(62), facilitator_id=facilitator_id, class_id=class_id)
            with self._session() as s:
                s.add(table)
                try:
                    s.commit()
                    return table
                except IntegrityError:  # code collision: draw another
                    s.rollback()
        raise ServiceError("bad_request", "Could not allocate a table code; try again.")

    def join(self, code: str, name: str) -> dict:
        """Seat a new player. Returns {seat, token, table}."""
        name = _checked(clean_name, name)
        for _ in range(10):  # a lost compare-and-swap means another join landed first: look again
            with self._session() as s:
                table = self._table(s, code)
                if table.status == "ended":
                    raise ServiceError("game_over", "This game has already ended.")
                if table.status == "playing":
                    raise ServiceError("forbidden", "This game has already started. Ask your teacher for a new code.")
                if table.locked:
                    raise ServiceError("forbidden", "This table is locked by the teacher.")
                seats = self._seats(s, table)
                token, student, join = self._seat_student(s, table, seats, name)
                try:
                    self._commit(s, table, **join)
                except ServiceError as exc:
                    if exc.code == "stale":
                        continue
                    raise
                return {"seat": student.seat_index, "token": token, "table": table.code}
        raise ServiceError("rate_limited", "The table is very busy; please try again.")

    def _seat_student(self, s: Session, table: GameTable, seats: list[Seat], name: str,
                      *, chairs_needed: int = 1) -> tuple[str, Seat, dict]:
        """The checks every join makes (room, a name unique at the table), then the new
        seat. Returns (token, seat, the `join` change to stage or commit)."""
        engine = engines.get(table.game)
        if len(seats) + chairs_needed > engine.MAX_SEATS:
            raise ServiceError("table_full", f"This table is full ({engine.MAX_SEATS} players).")
        if any(name_key(x.name) == name_key(name) for x in seats):
            raise ServiceError("name_taken", f"Someone at this table is already called {name}. "
                                             "Add an initial or pick another name.")
        token = new_token()
        student = Seat(table_id=table.id, seat_index=len(seats), name=name, token_hash=hash_token(token))
        s.add(student)
        join = {"actor": _actor(student.seat_index), "action": {"type": "join", "name": name},
                "log": [{"t": "join", "seat": student.seat_index, "text": f"{name} joined."}]}
        return token, student, join

    def resume(self, token) -> SeatRef:
        if not isinstance(token, str) or not token:
            raise ServiceError("bad_request", "resume needs the seat token.")
        with self._session() as s:
            seat = s.exec(select(Seat).where(Seat.token_hash == hash_token(token))).first()
            if seat is None:
                raise ServiceError("not_joined", "That seat is not known here. Join again with the table code.")
            table = s.get(GameTable, seat.table_id)
            if seat.kicked:
                raise ServiceError("forbidden", "Your teacher removed you from this table.")
            return SeatRef(table=table.code, seat=seat.seat_index, name=seat.name, token_hash=seat.token_hash)

    def check_seat(self, ref: SeatRef) -> None:
        """A connection's seat may have been removed since it bound; refuse it then."""
        with self._session() as s:
            seat = s.exec(select(Seat).where(Seat.token_hash == ref.token_hash)).first()
            if seat is None or seat.kicked:
                raise ServiceError("forbidden", "Your teacher removed you from this table.")
            ref.seat = seat.seat_index  # lobby removals renumber the seats after it
            ref.table = s.get(GameTable, seat.table_id).code  # a class move may have changed the table

    def act(self, code: str, seat: int, version, action, *, auto: bool = False) -> int:
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise ServiceError("bad_request", "An action is an object with a type.")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ServiceError("bad_request", "An action needs the version of the view it was chosen from.")
        with self._session() as s:
            table = self._table(s, code)
            if table.status == "ended":
                raise ServiceError("game_over", "This game has ended.")
            if version != table.version:
                raise ServiceError("stale", "The table changed before your move arrived. Here it is now.")
            if table.paused:
                raise ServiceError("forbidden", "The teacher has paused this table.")
            if table.status == "lobby":
                return self._start(s, table, seat, action)
            engine = engines.get(table.game)
            return self._apply(s, table, engine, seat, action, actor=_actor(seat, auto))

    def _start(self, s: Session, table: GameTable, seat: int, action: dict) -> int:
        if action.get("type") != "start":
            raise ServiceError("illegal", "The game has not started yet.")
        engine = engines.get(table.game)
        seats = self._seats(s, table)
        if not seats or seats[0].seat_index != seat:
            raise ServiceError("not_your_turn", "The first player to join starts the game.")
        if len(seats) < engine.MIN_SEATS:
            raise ServiceError("illegal", f"At least {engine.MIN_SEATS} players are needed to start.")
        return self._start_engine(s, table, [x.name for x in seats], actor=_actor(seat))

    def _start_engine(self, s: Session, table: GameTable, names: list[str], *, actor: str) -> int:
        engine = engines.get(table.game)
        state = engine.new(table.options, names, table.seed)
        log = [{"t": "start", "text": f"The game begins: {', '.join(names)}."}]
        return self._commit(s, table, actor=actor, action={"type": "start", "seats": names}, log=log,
                            changes={"status": "playing", "state": state})

    def _apply(self, s: Session, table: GameTable, engine, actor_id, action: dict, *, actor: str) -> int:
        try:
            state, log = engine.apply(table.state, actor_id, action)
        except IllegalAction as exc:
            raise ServiceError(exc.code, exc.message)
        status = "ended" if engine.result(state) is not None else "playing"
        return self._commit(s, table, actor=actor, action=action, log=log,
                            changes={"state": state, "status": status})

    # ------------------------------------------------------------ moderation
    def moderate(self, facilitator_id: int, code: str, version, action) -> int:
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise ServiceError("bad_request", "A moderation action is an object with a type.")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ServiceError("bad_request", "A moderation action needs the table version.")
        with self._session() as s:
            table = self._table(s, code)
            if table.facilitator_id != facilitator_id:
                raise ServiceError("forbidden", "This table belongs to another facilitator.")
            if version != table.version:
                raise ServiceError("stale", "The table changed meanwhile. Here it is now.")
            kind = action["type"]
            if table.status == "ended":
                raise ServiceError("game_over", "This game has ended.")
            if kind in ("lock", "unlock"):
                locked = kind == "lock"
                return self._commit(s, table, actor="facilitator", action={"type": kind},
                                    log=[{"t": kind, "text": "The teacher locked the table." if locked
                                          else "The teacher unlocked the table."}],
                                    changes={"locked": locked})
            if kind in ("pause", "resume"):
                paused = kind == "pause"
                return self._commit(s, table, actor="facilitator", action={"type": kind},
                                    log=[{"t": kind, "text": "The teacher paused the game." if paused
                                          else "The game goes on."}], changes={"paused": paused})
            if kind == "kick":
                return self._kick(s, table, action.get("seat"))
            if kind == "end":
                if table.status == "lobby":
                    return self._commit(s, table, actor="facilitator", action={"type": "end"},
                                        log=[{"t": "end", "text": "The teacher closed the table."}],
                                        changes={"status": "ended"})
                return self._apply(s, table, engines.get(table.game), "facilitator", {"type": "end"},
                                   actor="facilitator")
            if kind == "start" and table.status == "lobby":
                seats = self._seats(s, table)
                if len(seats) < engines.get(table.game).MIN_SEATS:
                    raise ServiceError("illegal", "Not enough players have joined yet.")
                return self._start_engine(s, table, [x.name for x in seats], actor="facilitator")
            if table.status == "playing":
                return self._apply(s, table, engines.get(table.game), "facilitator", action, actor="facilitator")
            raise ServiceError("illegal", f"Unknown moderation action {kind!r}.")

    def _kick(self, s: Session, table: GameTable, seat_index) -> int:
        seats = self._seats(s, table)
        target = next((x for x in seats if x.seat_index == seat_index), None)
        if target is None or isinstance(seat_index, bool):
            raise ServiceError("bad_request", "There is no player in that seat.")
        target.kicked = True
        if table.status == "lobby":
            # Seats stay contiguous for the engine: everyone after moves up one.
            target.seat_index = None
            for other in seats:
                if other is not target and other.seat_index > seat_index:
                    other.seat_index -= 1
                    s.add(other)
            text = f"{target.name} was removed by the teacher."
        else:
            target.computer = True
            text = f"{target.name} was removed by the teacher; the computer plays that seat now."
        s.add(target)
        return self._commit(s, table, actor="facilitator", action={"type": "kick", "seat": seat_index},
                            log=[{"t": "kick", "seat": seat_index, "text": text}])

    # ----------------------------------------------------------------- notes
    def add_note(self, code: str, author: str, text) -> Note:
        text = _checked(clean_note, text)
        with self._session() as s:
            table = self._table(s, code)
            note = Note(table_id=table.id, version=table.version, game_version=table.engine_version,
                        author=author[:40], text=text)
            s.add(note)
            s.commit()
            return note

    # ---------------------------------------------------------- automation
    def next_auto(self, code: str) -> tuple[int, float] | None:
        """The next computer-made move: (seat, delay in seconds), soonest first."""
        with self._session() as s:
            table = self._table(s, code)
            if table.status != "playing" or table.paused:
                return None
            engine = engines.get(table.game)
            wanted = [(seat, delay) for seat, delay in getattr(engine, "pending_auto", lambda _s: [])(table.state)]
            for seat in self._seats(s, table):
                if seat.computer and engine.bot(table.state, seat.seat_index) is not None:
                    wanted.append((seat.seat_index, COMPUTER_DELAY))
        if not wanted:
            return None
        seat, delay = min(wanted, key=lambda pair: pair[1])
        return seat, delay * self.bot_delay_scale

    def auto_step(self, code: str, seat: int) -> int | None:
        """Let the computer make `seat`'s move now; None if it has none (or lost a race)."""
        table = self.get(code)
        if table.status != "playing" or table.paused:
            return None
        action = engines.get(table.game).bot(table.state, seat)
        if action is None:
            return None
        try:
            return self.act(code, seat, table.version, action, auto=True)
        except ServiceError:
            return None  # someone moved first; the scheduler asks again

    # ----------------------------------------------------------------- views
    def replay(self, code: str) -> dict | None:
        """Rebuild the engine state from the seed and the event log alone."""
        table = self.get(code)
        engine = engines.get(table.game)
        state = None
        for ev in self.events(code):
            kind = ev.action.get("type")
            if kind == "start":
                state = engine.new(table.options, ev.action["seats"], table.seed)
            elif state is not None and kind not in SERVICE_ONLY_ACTIONS:
                actor = "facilitator" if ev.actor == "facilitator" else actor_seat(ev.actor)
                state, _ = engine.apply(state, actor, ev.action)
        return state

    def payloads(self, code: str) -> dict:
        """Every viewer's `view` message for this table, built from one read.

        Returns {"board": payload, "facilitator": payload,
                 "seats": [(seat_room, payload), ...]} where seat_room names the seat's socket room.
        """
        connected = self.presence.connected
        with self._session() as s:
            table = self._table(s, code)
            seats = self._seats(s, table)
            events = list(s.exec(select(Event).where(Event.table_id == table.id)
                                 .order_by(Event.version.desc()).limit(LOG_TAIL)).all())
        engine = engines.get(table.game)
        entries = []
        for ev in reversed(events):
            for entry in ev.log:
                entries.append(dict(entry, v=ev.version))
        players = [{"seat": x.seat_index, "name": x.name, "connected": connected(x.token_hash),
                    "computer": x.computer} for x in seats]
        result = engine.result(table.state) if table.state is not None else None
        base = {"code": table.code, "game": table.game, "title": engine.TITLE, "version": table.version,
                "status": table.status, "locked": table.locked, "paused": table.paused,
                "players": players, "min_seats": engine.MIN_SEATS, "max_seats": engine.MAX_SEATS,
                "result": result, "engine_version": table.engine_version}

        def one(viewer) -> dict:
            if table.state is None:
                view = {"public": {}, "private": {}}
                actions = []
                if isinstance(viewer, int) and table.status == "lobby" and seats \
                        and seats[0].seat_index == viewer and len(seats) >= engine.MIN_SEATS:
                    actions = [{"type": "start"}]
            else:
                view = engine.view(table.state, viewer)
                actions = [] if table.status != "playing" or table.paused else engine.actions(table.state, viewer)
            if viewer == "facilitator":
                actions = self._moderation_actions(table, seats, actions)
            log = [e for e in entries if entry_visible(e, viewer)][-LOG_TAIL:]
            seat = viewer if isinstance(viewer, int) else None
            return dict(base, seat=seat, view=view, actions=actions, log=log)

        return {"board": one("board"), "facilitator": one("facilitator"),
                "seats": [(seat_room(x.token_hash), one(x.seat_index)) for x in seats]}

    @staticmethod
    def _moderation_actions(table: GameTable, seats: list[Seat], engine_actions: list) -> list:
        if table.status == "ended":
            return []
        out = [{"type": "unlock" if table.locked else "lock"}, {"type": "end"}]
        out += [{"type": "kick", "seat": x.seat_index} for x in seats if not x.computer]
        if table.status == "playing":
            out.append({"type": "resume" if table.paused else "pause"})
            out += [a for a in engine_actions if a.get("type") != "end"]
        return out

    def summary(self, code: str) -> dict:
        """The JSON API's description of a table."""
        table = self.get(code)
        engine = engines.get(table.game)
        return {"code": table.code, "game": table.game, "status": table.status, "version": table.version,
                "locked": table.locked, "paused": table.paused, "options": table.options,
                "engine_version": table.engine_version,
                "seats": [{"seat": x.seat_index, "name": x.name, "computer": x.computer,
                           "connected": self.presence.connected(x.token_hash)} for x in self.seats(code)],
                "result": engine.result(table.state) if table.state is not None else None,
                "created_at": table.created_at.isoformat()}

    def log_json(self, code: str) -> dict:
        """Full game log for the facilitator (reports): events, rulings applied, notes."""
        table = self.get(code)
        events = self.events(code)
        return {"code": table.code, "game": table.game, "engine_version": table.engine_version,
                "seed": table.seed, "options": table.options,
                "events": [{"version": e.version, "actor": e.actor, "action": e.action, "log": e.log,
                            "at": e.at.isoformat()} for e in events],
                "rulings": [dict(entry, version=e.version) for e in events for entry in e.log
                            if entry.get("t") == "ruling"],
                "notes": [{"version": n.version, "game_version": n.game_version, "author": n.author,
                           "text": n.text, "at": n.at.isoformat()} for n in self.notes(code)]}

    # ---- class-session support (used by app/classes.py)
    # A class session seats students at several tables of one facilitator, and
    # some of its changes span tables (a move touches two, the start's
    # balancing several). Each such change is ONE transaction that
    # compare-and-swaps every table it touches, appending their events as
    # `_commit` does (so replay still works: these all happen in the lobby,
    # where replay only reads the `start` event), and, when given, the class
    # row's version: a concurrent join, move or start makes it `stale` and the
    # class service retries from fresh data. Moved seats keep their token.
    COMPUTER_NAME = "Computer"

    @staticmethod
    def _guard_class(s: Session, class_id: int | None, version: int | None) -> None:
        """Compare-and-swap the class row inside the open transaction."""
        if class_id is None or version is None:
            return
        from app.models import ClassSession

        result = s.execute(update(ClassSession)
                           .where(ClassSession.id == class_id, ClassSession.version == version)
                           .values(version=version + 1))
        if result.rowcount != 1:
            s.rollback()
            raise ServiceError("stale", "The class changed meanwhile; please try again.")

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
        press "Deal cards & start") is a student whenever the table has one."""
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
        name = _checked(clean_name, name)
        with self._session() as s:
            table = self._table(s, code)
            if table.class_id != class_id:
                raise ServiceError("forbidden", "That table is not part of this class.")
            if table.status != "lobby" or table.locked:
                raise ServiceError("stale", "That table is no longer open; another one is chosen.")
            seats = self._seats(s, table)
            token, student, join = self._seat_student(s, table, seats, name, chairs_needed=1 + computers)
            self._guard_class(s, class_id, class_version)
            if computers:
                self._stage(s, table, **join)
                added = self._add_computers(s, table, seats + [student], computers)
                self._commit(s, table, actor="system", action={"type": "computers", "added": [x.name for x in added]},
                             log=[{"t": "join", "seat": x.seat_index, "text": f"{x.name} joined as a computer player."}
                                  for x in added])
            else:
                self._commit(s, table, **join)
            return {"seat": student.seat_index, "token": token, "table": table.code}

    def add_computer_seat(self, code: str, *, class_id: int | None = None, class_version: int | None = None) -> int:
        """A computer player takes the next chair of a lobby table; returns the table version."""
        with self._session() as s:
            table = self._table(s, code)
            if table.status != "lobby":
                raise ServiceError("illegal", "Computer players can only be added before the table starts.")
            engine = engines.get(table.game)
            seats = self._seats(s, table)
            if len(seats) >= engine.MAX_SEATS:
                raise ServiceError("table_full", f"This table is full ({engine.MAX_SEATS} players).")
            self._guard_class(s, class_id, class_version)
            added = self._add_computers(s, table, seats, 1)
            return self._commit(s, table, actor="facilitator", action={"type": "computers", "added": [added[0].name]},
                                log=[{"t": "join", "seat": added[0].seat_index,
                                      "text": f"{added[0].name} joined as a computer player."}])

    def move_seats(self, moves: list[tuple[int, str]], *, by: str, class_id: int,
                   class_version: int | None = None) -> dict[int, dict]:
        """Move students (seat id -> lobby table code) between lobby tables of one class,
        all at once. Tokens stay valid; each touched table is renumbered (students first)
        and gets one `move` event; a table left without students loses its computer seats.
        Returns {seat id: {"token_hash", "table", "seat"}} for the moved seats."""
        if not moves:
            return {}
        with self._session() as s:
            self._guard_class(s, class_id, class_version)
            by_code: dict[str, GameTable] = {}
            members: dict[str, list[Seat]] = {}

            def table_of(code: str) -> GameTable:
                if code not in by_code:
                    table = self._table(s, code)
                    if table.class_id != class_id:
                        raise ServiceError("forbidden", "That table is not part of this class.")
                    if table.status != "lobby":
                        raise ServiceError("illegal", "Students can only be moved between tables that have not "
                                                      "started yet.")
                    by_code[code] = table
                    members[code] = self._seats(s, table)
                return by_code[code]

            notes: dict[str, dict] = {}
            moved: dict[int, Seat] = {}
            for seat_id, to_code in moves:
                seat = s.get(Seat, seat_id)
                if seat is None or seat.kicked or seat.computer or seat.seat_index is None:
                    raise ServiceError("bad_request", "There is no student in that seat.")
                source = s.get(GameTable, seat.table_id)
                table_of(source.code)
                target = table_of(to_code)
                if source.id == target.id:
                    raise ServiceError("bad_request", f"{seat.name} is already at that table.")
                seat = next(x for x in members[source.code] if x.id == seat.id)  # the same row object
                if any(name_key(x.name) == name_key(seat.name) for x in members[to_code]):
                    raise ServiceError("name_taken", f"Someone at that table is already called {seat.name}.")
                members[source.code].remove(seat)
                members[to_code].append(seat)
                seat.table_id = target.id
                moved[seat.id] = seat
                notes.setdefault(source.code, {"out": [], "in": [], "log": []})
                notes.setdefault(to_code, {"out": [], "in": [], "log": []})
                notes[source.code]["out"].append({"seat_id": seat.id, "name": seat.name, "to": to_code})
                notes[source.code]["log"].append({"t": "move", "text": f"{seat.name} moved to table {to_code}."})
                notes[to_code]["in"].append({"seat_id": seat.id, "name": seat.name, "from": source.code})
                notes[to_code]["log"].append({"t": "move", "text": f"{seat.name} joined from table {source.code}."})
            for code, seats in members.items():
                if not any(not x.computer for x in seats):
                    for computer in [x for x in seats if x.computer]:
                        self._drop_seat(s, computer)
                        seats.remove(computer)
                engine = engines.get(by_code[code].game)
                if len(seats) > engine.MAX_SEATS:
                    raise ServiceError("table_full", f"Table {code} would have more than {engine.MAX_SEATS} players.")
                self._renumber(s, seats)
            touched = [code for code in by_code if code in notes]
            for i, code in enumerate(touched):
                note = notes[code]
                kwargs = {"actor": "facilitator" if by == "facilitator" else "system",
                          "action": {"type": "move", "by": by, "out": note["out"], "in": note["in"]},
                          "log": note["log"]}
                if i < len(touched) - 1:
                    self._stage(s, by_code[code], **kwargs)
                else:
                    self._commit(s, by_code[code], **kwargs)
            return {sid: {"token_hash": x.token_hash, "table": next(c for c, t in by_code.items()
                                                                    if t.id == x.table_id),
                          "seat": x.seat_index} for sid, x in moved.items()}

    def start_class_table(self, code: str, *, computers: int, expected_version: int | None = None) -> int:
        """Start a lobby table of a class now, with exactly `computers` computer seats
        (added or removed first, per the class's seating rule). Returns the version."""
        with self._session() as s:
            table = self._table(s, code)
            if table.status != "lobby":
                raise ServiceError("illegal", "This table has already started.")
            if expected_version is not None and table.version != expected_version:
                raise ServiceError("stale", "The table changed meanwhile. Here it is now.")
            engine = engines.get(table.game)
            seats = self._seats(s, table)
            students = [x for x in seats if not x.computer]
            bots = [x for x in seats if x.computer]
            if not students:
                raise ServiceError("illegal", "No student sits at this table.")
            if len(students) + computers > engine.MAX_SEATS:
                raise ServiceError("table_full", f"A table seats at most {engine.MAX_SEATS} players.")
            if len(students) + computers < engine.MIN_SEATS:
                raise ServiceError("illegal", f"{engine.TITLE} needs at least {engine.MIN_SEATS} players; add a "
                                              "computer player or move a student to this table.")
            if len(bots) != computers:
                removed = bots[computers:]
                for seat in removed:
                    self._drop_seat(s, seat)
                added = self._add_computers(s, table, students + bots[:computers], computers - len(bots)) \
                    if computers > len(bots) else []
                seats = students + bots[:computers] + added
                self._renumber(s, seats)
                self._stage(s, table, actor="facilitator",
                            action={"type": "computers", "added": [x.name for x in added],
                                    "removed": [x.name for x in removed]},
                            log=[{"t": "join", "seat": x.seat_index, "text": f"{x.name} joined as a computer player."}
                                 for x in added] +
                                [{"t": "leave", "text": f"{x.name} left the table."} for x in removed])
            seats = sorted(seats, key=lambda x: x.seat_index)
            return self._start_engine(s, table, [x.name for x in seats], actor="facilitator")


def validate_payload(payload: Any, spec: dict[str, type]) -> dict:
    """Check a Socket.IO payload is an object with the given field types."""
    if not isinstance(payload, dict):
        raise ServiceError("bad_request", "The message must be a JSON object.")
    for key, kind in spec.items():
        value = payload.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ServiceError("bad_request", f"The field {key!r} is missing or has the wrong type.")
    return payload
