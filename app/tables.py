"""The table service: create, join, act, moderate, note, fire timers, replay.

One move is one transaction (DESIGN.md "Persistence"): the table's live
state is kept in memory between moves (`Live`), the engine applies the move,
and one transaction compare-and-swaps the row on `version` and appends the
event. The service returns an `Outcome` (the new version and each viewer's
payload) and knows no sockets; realtime.py's notifier emits it.

The database stays the truth. A process whose compare-and-swap fails (another
process wrote meanwhile) reloads the table and tries again; every cold path
(joins, class moves) writes through the ORM and drops the cached copy.

Concurrency (DESIGN.md): an action whose type the game lists as order-free is
accepted from any version while it is still legal; any other action must come
from the version its sender last saw change (else `stale`).

Time: a game's deadlines (`timers(state)`) and the computer seats' moves are
kept in the table row (`timers`, `next_due_at`), so any process can fire them,
a restart keeps them, and the version compare-and-swap fires each once.
"""
from __future__ import annotations

import hashlib
import random
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from sqlalchemy import delete, select as sa_select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from app import engines
from app.engines.contract import IllegalAction, entry_visible, join_names, strip_label
from app.models import ClassSession, Event, GameTable, Note, Refusal, Seat, utcnow
from app.wire import dumps_compact
from app.security import (InputError, check_polite, clean_name, clean_note, has_nul, hash_token, name_key,
                          new_code, new_token)

LOG_TAIL = 60          # log entries a viewer gets when it (re)joins
COMPUTER_DELAY = 1.0   # seconds a computer-played seat "thinks" before moving
RETRIES = 8            # compare-and-swaps lost to other processes before giving up
LIVE_TABLES = 2000     # tables a process keeps in memory (a 400-phone school plays about 100)

TABLE = GameTable.__table__
SEATS = Seat.__table__


class ServiceError(Exception):
    """An error with one of the protocol's codes and a sentence for the user."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message}


def checked(clean, raw):
    """Run an input cleaner (app/security.py); its complaint becomes a `bad_request`."""
    try:
        return clean(raw)
    except InputError as exc:
        raise ServiceError("bad_request", str(exc))


def actor_name(seat: int, auto: bool = False) -> str:
    return f"seat:{seat}:auto" if auto else f"seat:{seat}"


def actor_of(actor: str):
    """The engine's actor for a logged one: a seat, "facilitator" or "system"."""
    parts = actor.split(":")
    return int(parts[1]) if parts[0] == "seat" else parts[0]


# The platform's moderation accepted from any version the teacher saw (see `moderate`).
VERSION_FREE_MODERATION = frozenset({"lock", "unlock", "pause", "resume", "end"})


def start_options(spec, options: dict, computers: list[int]) -> dict:
    """The options a game starts with: the table's, as the game adjusts them for the
    computer seats the platform filled (recorded in the start event, so replay agrees)."""
    return spec.computer_options(options, computers) if spec.computer_options else options


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Lost(Exception):
    """Another process changed the table between our read and our write."""


class MoveSQL:
    """The two statements of every move, as plain SQL for the database's driver:
    building them through SQLAlchemy's expression layer cost more than running them."""

    def __init__(self, dialect: str):
        self.sqlite = dialect == "sqlite"
        mark = (lambda name: f":{name}") if self.sqlite else (lambda name: f"%({name})s")
        json = (lambda name: mark(name)) if self.sqlite else (lambda name: f"CAST({mark(name)} AS JSON)")
        self.swap_sql = (f"UPDATE game_table SET version = {mark('version')}, state = {json('state')}, "
                         f"status = {mark('status')}, timers = {json('timers')}, "
                         f"next_due_at = {mark('next_due_at')}, updated_at = {mark('updated_at')} "
                         f"WHERE id = {mark('id')} AND version = {mark('expected')}")
        self.append_sql = (f"INSERT INTO event (table_id, version, kind, actor, action, log, at) VALUES "
                           f"({mark('table_id')}, {mark('version')}, {mark('kind')}, {mark('actor')}, "
                           f"{json('action')}, {json('log')}, {mark('at')})")

    def _moment(self, moment: datetime):
        # As SQLAlchemy's DateTime stores it in SQLite (naive UTC text); PostgreSQL takes it as it is.
        return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f") if self.sqlite else moment

    def swap(self, conn, table_id: int, expected: int, values: dict):
        return conn.exec_driver_sql(self.swap_sql, {
            "version": values["version"], "state": dumps_compact(values["state"]), "status": values["status"],
            "timers": dumps_compact(values["timers"]), "next_due_at": values["next_due_at"],
            "updated_at": self._moment(values["updated_at"]), "id": table_id, "expected": expected})

    def append(self, conn, event: dict):
        conn.exec_driver_sql(self.append_sql, dict(event, action=dumps_compact(event["action"]),
                                                   log=dumps_compact(event["log"]), at=self._moment(event["at"])))


@dataclass
class SeatInfo:
    id: int
    index: int | None
    name: str
    token_hash: str
    computer: bool
    kicked: bool


@dataclass
class Live:
    """One table as this process knows it: the row, its seats and its recent log."""

    id: int
    code: str
    game: str
    status: str
    version: int
    state: dict | None
    options: dict
    seed: int
    locked: bool
    paused: bool
    timers: dict
    facilitator_id: int
    class_id: int | None
    class_code: str | None
    engine_version: str
    data_versions: dict
    seats: list[SeatInfo]                      # active seats, by index
    log: deque = field(default_factory=lambda: deque(maxlen=LOG_TAIL))  # entries with "v"
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    # Per viewer: (version, a digest of what it was last sent) so unchanged views are not re-sent,
    # and the version at which its view last changed (see `_seen_current`).
    sent: dict = field(default_factory=dict)
    changed_at: dict = field(default_factory=dict)
    reloaded: bool = False  # read from the database for the change being made now
    board_view: tuple | None = None  # (state, the board's view of it), computed once per change

    @property
    def spec(self):
        return engines.spec(self.game)

    @property
    def engine(self):
        return engines.get(self.game)

    @property
    def seat_range(self) -> tuple[int, int]:
        """(fewest, most) players of this table, by its options (GameSpec.seat_range)."""
        return self.spec.seat_range(self.options)

    def seat(self, index) -> SeatInfo | None:
        return next((x for x in self.seats if x.index == index), None)


@dataclass
class Outcome:
    """What a change produced: the new version and the payloads to send.

    `views` pairs a viewer key ("board", "facilitator" or ("seat", token hash))
    with its `view` payload; `removed` lists the token hashes of seats removed
    by this change; `next_due` is the table's earliest timer (epoch seconds)."""

    code: str
    version: int
    views: list = field(default_factory=list)
    class_code: str | None = None
    removed: list = field(default_factory=list)
    next_due: float | None = None


@dataclass
class SeatRef:
    """Who a connection speaks for once it has joined or resumed."""

    table: str
    seat: int
    name: str
    token_hash: str = field(repr=False, default="")


class TableService:
    def __init__(self, db, *, bot_delay_scale: float = 1.0, connected: Callable[[str], bool] | None = None):
        self.db = db
        self.bot_delay_scale = bot_delay_scale
        # Whether a seat (by token hash) has a live connection: realtime.py supplies it.
        self.connected: Callable[[str], bool] = connected or (lambda _token_hash: False)
        self._live: OrderedDict[str, Live] = OrderedDict()  # least recently loaded first
        self._live_lock = threading.Lock()
        self._sql = MoveSQL(db.dialect.name)
        self._by_token: dict[str, str] = {}   # seat token hash -> table code (a cache)

    # ------------------------------------------------------------ ORM reads
    def _session(self) -> Session:
        return Session(self.db, expire_on_commit=False)

    def _table(self, s: Session, code: str) -> GameTable:
        table = s.exec(select(GameTable).where(GameTable.code == code)).first() \
            if isinstance(code, str) and code and not has_nul(code) else None
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

    def purge(self, s: Session, ids: list[int]) -> list[str]:
        """Delete these tables with their seats, events, notes and refusals (their timers
        live in the rows) inside the open transaction; the caller commits, then `forget`s
        their codes. Returns the seats' token hashes (whose phones may want telling)."""
        if not ids:
            return []
        tokens = list(s.execute(sa_select(Seat.token_hash).where(Seat.table_id.in_(ids))).scalars().all())
        for model in (Event, Note, Refusal, Seat):
            s.execute(delete(model).where(model.table_id.in_(ids)))
        s.execute(delete(GameTable).where(GameTable.id.in_(ids)))
        return tokens

    # ------------------------------------------------- ORM writes (cold path)
    def stage(self, s: Session, table: GameTable, *, actor: str, action: dict, log: list,
              changes: dict | None = None, kind: str = "table") -> int:
        """Compare-and-swap the table on its version and append the event inside the
        open transaction (not committed yet: a change spanning tables stages each).
        The cached live copy is dropped: the next move reloads it."""
        expected = table.version
        values = dict(changes or {}, version=expected + 1, updated_at=utcnow())
        result = s.execute(update(GameTable)
                           .where(GameTable.id == table.id, GameTable.version == expected)
                           .values(**values))
        if result.rowcount != 1:
            s.rollback()
            raise ServiceError("stale", "Someone else moved first. Here is the table as it is now.")
        s.add(Event(table_id=table.id, version=expected + 1, kind=kind, actor=actor, action=action, log=log))
        try:
            s.flush()
        except IntegrityError:  # another writer appended this version between our read and write
            s.rollback()
            raise ServiceError("stale", "Someone else moved first. Here is the table as it is now.")
        set_committed_value(table, "version", expected + 1)
        s.info.setdefault("touched", set()).add(table.code)
        return expected + 1

    def commit(self, s: Session) -> None:
        """Commit a transaction of `stage`d changes and drop the cached copies it touched."""
        try:
            s.commit()
        except IntegrityError:
            s.rollback()
            raise ServiceError("stale", "Someone else moved first. Here is the table as it is now.")
        finally:
            for code in s.info.pop("touched", ()):
                self.forget(code)

    def create_table(self, facilitator_id: int | None, game: str, options: dict | None = None,
                     class_id: int | None = None, *, demo=False, anonymous: bool = False,
                     name_filter=True) -> GameTable:
        """A lobby table. `demo`: True for the game's guided demo (GameSpec.demo), or one of
        its quick starts (a Demo of GameSpec.starts): its options, and its computer seats
        join when the visitor does. Only a demo, or an `anonymous` table (an online match,
        app/online.py), may have no facilitator. `name_filter`: refuse rude names."""
        if not isinstance(name_filter, bool):
            raise ServiceError("bad_request", "name_filter must be true or false.")
        try:
            spec = engines.spec(game)
            start = spec.demo if demo is True else (demo or None)
            if demo and start is None:
                raise IllegalAction("bad_request", f"{spec.title} has no guided demo.")
            resolved = engines.options_for(game, dict(start.options) if start else options)
        except IllegalAction as exc:
            raise ServiceError("bad_request", exc.message)
        if facilitator_id is None and not (demo or anonymous):
            raise ServiceError("forbidden", "Only a guided demo can be opened without a facilitator.")
        demo = bool(demo)
        for _ in range(20):
            table = GameTable(code=new_code(), game=game, engine_version=spec.version,
                              data_versions=dict(spec.data_versions), options=resolved,
                              seed=secrets.randbits(62), facilitator_id=facilitator_id, class_id=class_id,
                              demo=demo, name_filter=name_filter)
            with self._session() as s:
                s.add(table)
                try:
                    s.commit()
                    return table
                except IntegrityError:  # code collision: draw another
                    s.rollback()
        raise ServiceError("bad_request", "Could not allocate a table code; try again.")

    def join(self, code: str, name: str, *, start=None) -> dict:
        """Seat a new player at a single table. Returns {seat, token, table}. `start`: the
        quick start (a Demo) the table was opened for, when it is not the guided demo."""
        name = checked(clean_name, name)
        for _ in range(10):  # a lost compare-and-swap means another join landed first: look again
            with self._session() as s:
                table = self._table(s, code)
                if table.class_id is not None:
                    klass = s.get(ClassSession, table.class_id)
                    raise ServiceError("forbidden", "This table belongs to a class: join with the class code "
                                                    f"{klass.code if klass else ''} shown on the board.")
                self.check_open(table)
                demo = (start or engines.spec(table.game).demo) if table.demo else None
                seats = self._seats(s, table)
                token, student, join = self.seat_student(s, table, seats, name,
                                                         chairs_needed=len(demo.seats) - len(seats) if demo else 1)
                try:
                    self.stage(s, table, **join)
                    if demo is not None and len(seats) + 1 == len(demo.humans):
                        self._seat_demo_computers(s, table, demo)
                    self.commit(s)
                except ServiceError as exc:
                    if exc.code == "stale":
                        continue
                    raise
                if demo is not None and table.status == "lobby" and len(seats) + 1 == len(demo.humans):
                    self.start_now(table.code, actor="system")
                    self.forget(table.code)  # its viewers get the started table in full on the refresh
                return {"seat": student.seat_index, "token": token, "table": table.code}
        raise ServiceError("rate_limited", "The table is very busy; please try again.")

    def _seat_demo_computers(self, s: Session, table: GameTable, demo) -> None:
        """The guided demo's visitor has joined: its computer seats take their chairs
        and the table locks (no one else joins), inside the join's transaction."""
        names = [demo.seats[i] for i in demo.computers]
        if any(name_key(x.name) == name_key(n) for x in self._seats(s, table) for n in names):
            raise ServiceError("name_taken", f"The computer player here is called {join_names(names)}: "
                                             "pick another name.")
        for index in demo.computers:
            # Nobody ever holds this token: a computer seat cannot be resumed.
            s.add(Seat(table_id=table.id, seat_index=index, name=demo.seats[index],
                       token_hash=hash_token(new_token()), computer=True))
        self.stage(s, table, actor="system", action={"type": "computers", "added": names},
                   log=[{"t": "join", "seat": i, "text": f"{demo.seats[i]} joined as a computer player."}
                        for i in demo.computers], changes={"locked": True})

    @staticmethod
    def check_open(table: GameTable) -> None:
        if table.status == "ended":
            raise ServiceError("game_over", "This game has already ended.")
        if table.status == "playing":
            raise ServiceError("forbidden", "This game has already started. Ask your teacher for a new code.")
        if table.locked:
            raise ServiceError("forbidden", "This table is locked by the teacher.")

    def seat_student(self, s: Session, table: GameTable, seats: list[Seat], name: str,
                     *, chairs_needed: int = 1) -> tuple[str, Seat, dict]:
        """The checks every join makes (room, a polite name if the table asks, a name unique
        at the table), then the new seat. Returns (token, seat, the `join` change to stage)."""
        most = engines.spec(table.game).seat_range(table.options)[1]
        if len(seats) + chairs_needed > most:
            raise ServiceError("table_full", f"This table is full ({most} player{'s' if most != 1 else ''}).")
        if table.name_filter:
            checked(check_polite, name)
        if any(name_key(x.name) == name_key(name) for x in seats):
            raise ServiceError("name_taken", f"Someone at this table is already called {name}. "
                                             "Add an initial or pick another name.")
        token = new_token()
        student = Seat(table_id=table.id, seat_index=len(seats), name=name, token_hash=hash_token(token))
        s.add(student)
        join = {"actor": actor_name(student.seat_index), "action": {"type": "join", "name": name},
                "log": [{"t": "join", "seat": student.seat_index, "text": f"{name} joined."}]}
        return token, student, join

    # ---------------------------------------------------------- the live copy
    def forget(self, code: str) -> None:
        with self._live_lock:
            self._live.pop(code, None)

    def live(self, code: str, *, fresh: bool = False) -> Live:
        """The table's live copy, loaded on first use (or reloaded when `fresh`)."""
        if not fresh:
            live = self._live.get(code)
            if live is not None:
                return live
        live = self._load(code)
        with self._live_lock:
            known = self._live.get(code)
            if known is not None and known.version >= live.version and not fresh:
                return known
            self._live[code] = live
            self._live.move_to_end(code)
            while len(self._live) > LIVE_TABLES:  # a term of tables must not pile up in memory:
                self._live.popitem(last=False)    # the database has them; a forgotten one reloads
        return live

    def _load(self, code: str) -> Live:
        with self._session() as s:
            table = self._table(s, code)
            seats = self._seats(s, table)
            events = list(s.exec(select(Event).where(Event.table_id == table.id)
                                 .order_by(Event.version.desc()).limit(LOG_TAIL)).all())
            klass = s.get(ClassSession, table.class_id) if table.class_id else None
        state = table.state
        engine = engines.get(table.game)
        if state is not None and table.engine_version != engine.GAME.version and hasattr(engine, "upgrade"):
            state = engine.upgrade(state)  # a game saved by an earlier engine version plays on
        live = Live(id=table.id, code=table.code, game=table.game, status=table.status, version=table.version,
                    state=state, options=table.options, seed=table.seed, locked=table.locked,
                    paused=table.paused, timers=dict(table.timers or {}), facilitator_id=table.facilitator_id,
                    class_id=table.class_id, class_code=klass.code if klass else None,
                    engine_version=table.engine_version, data_versions=dict(table.data_versions or {}),
                    seats=[SeatInfo(x.id, x.seat_index, x.name, x.token_hash, x.computer, x.kicked) for x in seats])
        entries = [dict(e, v=ev.version) for ev in reversed(events) for e in ev.log]
        live.log.extend(entries[-LOG_TAIL:])
        for x in seats:
            self._by_token[x.token_hash] = table.code
        return live

    def _current(self, code: str) -> Live:
        """The live copy, checked against the database's version (a cheap read):
        for views sent outside a change this process made (watch, resume, stale)."""
        live = self.live(code)
        return live if self._db_version(live) == live.version else self.live(code, fresh=True)

    def _db_version(self, live: Live) -> int | None:
        with self.db.connect() as conn:
            return conn.execute(sa_select(TABLE.c.version).where(TABLE.c.id == live.id)).scalar()

    # ------------------------------------------------------------------ seats
    def resume(self, token) -> SeatRef:
        if not isinstance(token, str) or not token or "\x00" in token:
            raise ServiceError("bad_request", "resume needs the seat token.")
        return self.seat_ref(hash_token(token), fresh=True)

    def cached_table(self, token_hash: str) -> str | None:
        """The table of a seat if this process holds that table in memory (no database read)."""
        code = self._by_token.get(token_hash)
        return code if code in self._live else None

    def seat_ref(self, token_hash: str, *, fresh: bool = False) -> SeatRef:
        """Where a seat (by token hash) sits now: it may have been moved or removed."""
        code = None if fresh else self._by_token.get(token_hash)
        if code is not None:
            live = self.live(code)
            seat = next((x for x in live.seats if x.token_hash == token_hash), None)
            # A student at a finished class match may have been re-seated at a new table
            # (its seat row stays behind, with another token) by another process: ask the database.
            if seat is not None and not seat.kicked and live.status != "ended":
                return SeatRef(table=code, seat=seat.index, name=seat.name, token_hash=token_hash)
        with self._session() as s:
            seat = s.exec(select(Seat).where(Seat.token_hash == token_hash)).first()
            if seat is None:
                raise ServiceError("not_joined", "That seat is not known here. Join again with the table code.")
            if seat.kicked:
                raise ServiceError("forbidden", "Your teacher removed you from this table.")
            table = s.get(GameTable, seat.table_id)
        self._by_token[token_hash] = table.code
        live = self.live(table.code)
        if live.version < table.version:
            live = self.live(table.code, fresh=True)
        return SeatRef(table=table.code, seat=seat.seat_index, name=seat.name, token_hash=token_hash)

    # ------------------------------------------------------------- the moves
    def act(self, code: str, seat: int, version, action) -> Outcome:
        """One action from a seat (the lobby's `start` included)."""
        action = self._checked_action(action, version)
        try:
            return self._with_live(code, lambda live: self._act(live, seat, version, action))
        except ServiceError as exc:
            self._refused(code, actor_name(seat), action, exc)
            raise

    # Refusals worth a line in the playtest report: the rules said no. A stale move (the
    # phone retries), a bad request or a busy table is not the players' confusion.
    NOT_REFUSALS = frozenset({"stale", "bad_request", "rate_limited", "unknown_table", "forbidden", "not_joined",
                              "game_over"})

    def _refused(self, code: str, actor: str, action: dict, exc: ServiceError) -> None:
        """Record a refused move (one small insert; refusals are rare next to moves)."""
        if exc.code in self.NOT_REFUSALS:
            return
        try:
            with self._session() as s:
                table = self._table(s, code)
                s.add(Refusal(table_id=table.id, version=table.version, actor=actor[:40],
                              action_type=str(action.get("type", ""))[:40], code=str(exc.code)[:40]))
                s.commit()
        except Exception:  # noqa: BLE001 - a report's statistic must never fail a move
            pass

    def refusals(self, code: str) -> list[Refusal]:
        with self._session() as s:
            table = self._table(s, code)
            return list(s.exec(select(Refusal).where(Refusal.table_id == table.id).order_by(Refusal.id)).all())

    def act_as(self, token_hash: str, version, action) -> Outcome:
        """`act` for the connection holding this seat's token."""
        action = self._checked_action(action, version)

        def attempt(live: Live) -> Outcome:
            seat = next((x for x in live.seats if x.token_hash == token_hash), None)
            if seat is None or seat.kicked:
                raise _Lost()  # moved or removed since we cached it: look it up again
            return self._act(live, seat.index, version, action)

        for _ in range(2):
            ref = self.seat_ref(token_hash)
            try:
                return self._with_live(ref.table, attempt)
            except _Lost:
                self._by_token.pop(token_hash, None)
            except ServiceError as exc:
                self._refused(ref.table, actor_name(ref.seat) if _is_int(getattr(ref, "seat", None)) else "seat",
                              action, exc)
                raise
        raise ServiceError("forbidden", "Your seat changed meanwhile; reload the page.")

    @staticmethod
    def _checked_action(action, version) -> dict:
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise ServiceError("bad_request", "An action is an object with a type.")
        if not _is_int(version):
            raise ServiceError("bad_request", "An action needs the version of the view it was chosen from.")
        return strip_label(action)

    def _with_live(self, code: str, change: Callable[[Live], Outcome]) -> Outcome:
        """Run `change` under the table's lock; a lost compare-and-swap reloads and retries."""
        fresh = False
        for _ in range(RETRIES):
            live = self.live(code, fresh=fresh)
            with live.lock:
                if self._live.get(code) is not live:  # replaced while we waited for the lock
                    fresh = False
                    continue
                live.reloaded = fresh
                try:
                    return change(live)
                except _Lost:
                    fresh = True
                    continue
                except ServiceError:
                    # A refusal read from our copy (paused, not your turn, stale...) must not
                    # rest on a change another process has already undone: check, then refuse.
                    if fresh or self._db_version(live) == live.version:
                        raise
                    fresh = True
                    continue
        raise ServiceError("rate_limited", "The table is very busy; please try again.")

    def _seen_current(self, live: Live, viewer, version: int) -> bool:
        """The sender saw the table as it is for them now: the version is current, or
        nothing this viewer can see has changed since the version it sent."""
        if version == live.version:
            return True
        since = live.changed_at.get(viewer)
        return since is not None and since <= version <= live.version

    @staticmethod
    def _catch_up(live: Live, version: int) -> None:
        """A client that saw a later version than ours: another process wrote; reload
        (a version later than the database's is just wrong)."""
        if version > live.version:
            if live.reloaded:
                raise ServiceError("stale", "That version of the table does not exist. Here it is now.")
            raise _Lost()

    def _act(self, live: Live, seat: int, version: int, action: dict) -> Outcome:
        self._catch_up(live, version)
        if live.status == "ended":
            raise ServiceError("game_over", "This game has ended.")
        if live.status == "lobby":
            if version != live.version:
                raise ServiceError("stale", "The table changed before your move arrived. Here it is now.")
            if action["type"] != "start":
                raise ServiceError("illegal", "The game has not started yet.")
            if not live.seats or live.seats[0].index != seat:
                raise ServiceError("not_your_turn", "The first player to join starts the game.")
            if len(live.seats) < live.seat_range[0]:
                raise ServiceError("illegal", f"At least {live.seat_range[0]} players are needed to start.")
            return self._start(live, actor=actor_name(seat))
        if live.paused:
            raise ServiceError("forbidden", "The teacher has paused this table.")
        if not self._seen_current(live, seat, version):
            order_free = action["type"] in live.spec.order_free and \
                action in [strip_label(a) for a in live.engine.actions(live.state, seat)]
            if not order_free:
                raise ServiceError("stale", "The table changed before your move arrived. Here it is now.")
        return self._game_move(live, seat, action, actor_label=actor_name(seat))

    def _game_move(self, live: Live, actor, action: dict, *, actor_label: str, fired: str | None = None) -> Outcome:
        try:
            state, log = live.engine.apply(live.state, actor, action)
        except IllegalAction as exc:
            raise ServiceError(exc.code, exc.message)
        status = "ended" if live.engine.result(state) is not None else "playing"
        return self._write(live, actor=actor_label, kind="game", action=action, log=log, state=state,
                           status=status, fired=fired, mover=actor if _is_int(actor) else None)

    def _start(self, live: Live, *, actor: str) -> Outcome:
        names = [x.name for x in live.seats]
        computers = [x.index for x in live.seats if x.computer]
        try:
            state = live.engine.new(start_options(live.spec, live.options, computers), names, live.seed)
        except IllegalAction as exc:  # say, more players than these options allow
            raise ServiceError(exc.code, exc.message)
        log = [{"t": "start", "text": f"The game begins: {', '.join(names)}."}]
        return self._write(live, actor=actor, kind="table", log=log, state=state, status="playing",
                           action={"type": "start", "seats": names, "computers": computers})

    # --------------------------------------------------------------- timers
    def _timers(self, live: Live, state, status: str, paused: bool, *, fired: str | None,
                mover: int | None, now: float) -> dict:
        """The table's timers after a change: the game's deadlines plus one per computer
        seat the game waits for. A timer still listed keeps its due time (a deadline is
        absolute), except the one that just fired and the mover's own computer timer.
        A timer the game lists as "held" stands still under its key, keeping the time it
        had left (as the table's pause does for all of them), until listed again unheld."""
        if status != "playing" or state is None:
            return {}
        engine, scale = live.engine, self.bot_delay_scale
        listed = {}
        for t in (engine.timers(state) if hasattr(engine, "timers") else []):
            after = float(t.get("after", 0)) * (scale if t.get("pace") else 1.0)
            listed[t["key"]] = {"actor": t.get("actor", "system"), "action": t.get("action"), "after": after,
                                "held": bool(t.get("held"))}
        board = engine.view(state, "board")
        live.board_view = (state, board)  # the board's view of this state, reused for its payload
        waiting = board.get("prompt", {}).get("waiting_for", [])
        for x in live.seats:
            if x.computer and x.index in waiting:
                listed[f"bot:{x.index}"] = {"actor": x.index, "bot": True, "after": COMPUTER_DELAY * scale}
        out = {}
        for key, t in listed.items():
            old = live.timers.get(key)
            held = t.pop("held", False)
            if old is not None and key != fired and not (old.get("bot") and old.get("actor") == mover):
                out[key] = self._held_timer(old, held, paused, now)
                continue
            entry = {k: v for k, v in t.items() if k != "after"}
            if paused or held:
                entry.update(due=None, left=t["after"])
            else:
                entry.update(due=now + t["after"])
            if held:
                entry["held"] = True
            out[key] = entry
        return out

    @staticmethod
    def _held_timer(old: dict, held: bool, paused: bool, now: float) -> dict:
        """A listed timer the game now holds (it stops, keeping the time left) or no
        longer holds (it runs on from there, unless the table is paused)."""
        if held == bool(old.get("held")):
            return old
        t = dict(old)
        if held:
            t["held"] = True
            if t.get("due") is not None:
                t.update(left=max(0.0, t["due"] - now), due=None)
            return t
        del t["held"]
        if not paused:
            t.update(due=now + t.pop("left", 0.0))
        return t

    @staticmethod
    def _deadlines(timers: dict | None) -> dict:
        """The game's own deadlines (its "system" timers, e.g. a timed match's
        clock) for the views, by timer key: {"due": epoch seconds} while running,
        {"left": seconds} while the table is paused or the game holds it."""
        out = {}
        for key, t in (timers or {}).items():
            if t.get("bot") or t.get("dead") or t.get("actor", "system") != "system":
                continue
            out[key] = {"due": t["due"]} if t.get("due") is not None else {"left": t.get("left", 0.0)}
        return out

    @staticmethod
    def _next_due(timers: dict) -> float | None:
        dues = [t["due"] for t in timers.values() if t.get("due") is not None]
        return min(dues) if dues else None

    @staticmethod
    def _paused_timers(timers: dict, paused: bool, now: float) -> dict:
        out = {}
        for key, t in timers.items():
            t = dict(t)
            if paused and t.get("due") is not None:
                t.update(left=max(0.0, t["due"] - now), due=None)
            elif not paused and t.get("due") is None and not t.get("held"):
                t.update(due=now + t.pop("left", 0.0))
            out[key] = t
        return out

    def fire_due(self, code: str, *, now: float | None = None, check_db: bool = False,
                 limit: int = 100) -> list[Outcome]:
        """Fire the table's timers that are due (a computer's move, an auto-play reveal,
        a deadline), one change each, at most `limit`. Returns the outcomes to publish.
        `check_db`: the database says a timer is due (another process set it): catch up
        with it first."""
        if check_db:
            try:
                self._current(code)
            except ServiceError:
                return []
        outcomes = []
        for _ in range(limit):
            try:
                outcome = self._with_live(code, lambda live: self._fire_one(live, now))
            except ServiceError:
                break
            if outcome is None:
                break
            outcomes.append(outcome)
        return outcomes

    def _fire_one(self, live: Live, now: float | None) -> Outcome | None:
        now = time.time() if now is None else now
        if live.status != "playing" or live.paused:
            return None
        due = sorted((t["due"], key) for key, t in live.timers.items()
                     if t.get("due") is not None and t["due"] <= now and not t.get("dead"))
        for _due, key in due:
            timer = live.timers[key]
            actor = timer.get("actor", "system")
            if timer.get("bot"):
                seat = actor
                view = live.engine.view(live.state, seat)
                listed = live.engine.actions(live.state, seat)
                rng = random.Random(f"{live.seed}:{seat}:{live.version}")
                choice = live.engine.bot(view, listed, rng) if listed else None
                if choice is None:
                    timer["dead"] = True  # nothing to do; the next change lists it again
                    continue
                action, label = strip_label(choice), actor_name(seat, auto=True)
            else:
                action = dict(timer.get("action") or {"type": "time_up"})
                label = actor_name(actor, auto=True) if _is_int(actor) else str(actor)
            try:
                return self._game_move(live, actor, action, actor_label=label, fired=key)
            except ServiceError:
                timer["dead"] = True  # no longer applies; forget it until the next change
        return None

    def due_tables(self, now: float | None = None, limit: int = 200) -> list[tuple[str, float]]:
        """Tables with a timer due by `now` (any process may have scheduled it)."""
        now = time.time() if now is None else now
        with self.db.connect() as conn:
            rows = conn.execute(sa_select(TABLE.c.code, TABLE.c.next_due_at)
                                .where(TABLE.c.next_due_at != None, TABLE.c.next_due_at <= now)  # noqa: E711
                                .order_by(TABLE.c.next_due_at).limit(limit)).all()
        return [(code, due) for code, due in rows]

    # ------------------------------------------------------------- the write
    def _write(self, live: Live, *, actor: str, kind: str, action: dict, log: list, state: Any = ...,
               status: str | None = None, fields: dict | None = None, seat_updates: dict | None = None,
               fired: str | None = None, mover: int | None = None, force: tuple = ()) -> Outcome:
        """The one transaction of a live change: compare-and-swap, append, then update
        the live copy and build the payloads of the viewers whose view changed."""
        now = time.time()
        state = live.state if state is ... else state
        status = status or live.status
        fields = dict(fields or {})
        paused = fields.get("paused", live.paused)
        if seat_updates:
            for info in live.seats:
                if info.id in seat_updates:
                    for key, value in seat_updates[info.id].items():
                        setattr(info, {"seat_index": "index"}.get(key, key), value)
        timers = self._timers(live, state, status, paused, fired=fired, mover=mover, now=now)
        next_due = self._next_due(timers)
        values = dict(fields, version=live.version + 1, state=state, status=status, timers=timers,
                      next_due_at=next_due, updated_at=utcnow())
        try:
            with self.db.begin() as conn:
                if fields:  # the rare change of the table's own flags (lock, pause)
                    done = conn.execute(update(TABLE).where(TABLE.c.id == live.id,
                                                            TABLE.c.version == live.version).values(**values))
                else:  # every move: plain SQL, no statement to build
                    done = self._sql.swap(conn, live.id, live.version, values)
                if done.rowcount != 1:
                    raise _Lost()
                self._sql.append(conn, dict(table_id=live.id, version=live.version + 1, kind=kind, actor=actor,
                                            action=action, log=log, at=values["updated_at"]))
                for seat_id, change in (seat_updates or {}).items():
                    conn.execute(update(SEATS).where(SEATS.c.id == seat_id).values(**change))
        except IntegrityError:
            raise _Lost()
        except _Lost:
            raise
        except Exception:
            self.forget(live.code)  # the live copy may be half-updated (seats): reload it
            raise
        live.version += 1
        live.state, live.status, live.timers = state, status, timers
        for key, value in fields.items():
            setattr(live, key, value)
        removed = [x.token_hash for x in live.seats if x.id in (seat_updates or {}) and x.kicked]
        if seat_updates:
            live.seats = sorted([x for x in live.seats if x.index is not None], key=lambda x: x.index)
        live.log.extend(dict(e, v=live.version) for e in log)
        return Outcome(code=live.code, version=live.version, views=self._views(live, force=force),
                       class_code=live.class_code, removed=removed, next_due=next_due)

    # ----------------------------------------------------------- moderation
    PLATFORM_MODERATION = ("lock", "unlock", "pause", "resume", "kick", "end", "start")

    def close_unstarted(self, code: str, text: str) -> Outcome | None:
        """Close a table whose game never started (an online match nobody accepted
        within its deadline): a system table event, so the table says why it ended."""
        def change(live: Live) -> Outcome | None:
            if live.status != "lobby":
                return None
            return self._write(live, actor="system", kind="table", action={"type": "expire"},
                               log=[{"t": "expired", "text": text}], status="ended")
        return self._with_live(code, change)

    def moderate(self, facilitator_id: int, code: str, version, action, *, scope: str = "table") -> Outcome:
        """The facilitator's change: the platform's (lock, pause, remove a player, end,
        start) or, with scope "game", one of the game's own facilitator actions."""
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise ServiceError("bad_request", "A moderation action is an object with a type.")
        if not _is_int(version):
            raise ServiceError("bad_request", "A moderation action needs the table version.")
        if scope not in ("table", "game"):
            raise ServiceError("bad_request", "scope is 'table' (the platform's moderation) or 'game'.")
        action = strip_label(action)

        def change(live: Live) -> Outcome:
            self._catch_up(live, version)
            if live.facilitator_id != facilitator_id:
                raise ServiceError("forbidden", "This table belongs to another facilitator.")
            if live.status == "ended":
                raise ServiceError("game_over", "This game has ended.")
            if scope == "game":
                if live.status != "playing":
                    raise ServiceError("illegal", "The game has not started yet.")
                if not self._seen_current(live, "facilitator", version) and not (
                        action["type"] in live.spec.order_free
                        and action in [strip_label(a) for a in live.engine.actions(live.state, "facilitator")]):
                    raise ServiceError("stale", "The table changed meanwhile. Here it is now.")
                return self._game_move(live, "facilitator", action, actor_label="facilitator")
            # Pausing, locking and ending mean the same whatever the teacher's screen showed,
            # so a move that got in first (auto-play runs several a second) must not refuse
            # them; removing a player or starting depends on the seats seen, so it must be current.
            if version != live.version and action["type"] not in VERSION_FREE_MODERATION:
                raise ServiceError("stale", "The table changed meanwhile. Here it is now.")
            return self._platform_moderation(live, action)

        return self._with_live(code, change)

    def _platform_moderation(self, live: Live, action: dict) -> Outcome:
        kind = action["type"]
        say = lambda t, text: [{"t": t, "text": text}]  # noqa: E731
        if kind in ("lock", "unlock"):
            locked = kind == "lock"
            return self._write(live, actor="facilitator", kind="table", action={"type": kind},
                               log=say(kind, "The teacher locked the table." if locked
                                       else "The teacher unlocked the table."), fields={"locked": locked})
        if kind in ("pause", "resume"):
            if live.status != "playing":
                raise ServiceError("illegal", "Only a game in progress can be paused.")
            paused = kind == "pause"
            if paused == live.paused:
                raise ServiceError("illegal", "The game is already paused." if paused else "The game is not paused.")
            live.timers = self._paused_timers(live.timers, paused, time.time())
            return self._write(live, actor="facilitator", kind="table", action={"type": kind},
                               log=say(kind, "The teacher paused the game." if paused else "The game goes on."),
                               fields={"paused": paused})
        if kind == "kick":
            return self._kick(live, action.get("seat"))
        if kind == "end":
            if live.status == "lobby":
                return self._write(live, actor="facilitator", kind="table", action={"type": "end"},
                                   log=say("end", "The teacher closed the table."), status="ended")
            state, log = live.state, say("end", "The teacher ended the game.")
            if hasattr(live.engine, "finish"):
                state, log = live.engine.finish(live.state)
            return self._write(live, actor="facilitator", kind="table", action={"type": "end"}, log=log,
                               state=state, status="ended")
        if kind == "start" and live.status == "lobby":
            if len(live.seats) < live.seat_range[0]:
                raise ServiceError("illegal", "Not enough players have joined yet.")
            return self._start(live, actor="facilitator")
        raise ServiceError("illegal", f"Unknown moderation action {kind!r}.")

    def _kick(self, live: Live, seat_index) -> Outcome:
        target = live.seat(seat_index) if _is_int(seat_index) else None
        if target is None or target.computer:
            raise ServiceError("bad_request", "There is no player in that seat.")
        updates = {target.id: {"kicked": True}}
        if live.status == "lobby":
            # Seats stay contiguous for the engine: everyone after moves up one.
            updates[target.id]["seat_index"] = None
            for other in live.seats:
                if other is not target and other.index > seat_index:
                    updates[other.id] = {"seat_index": other.index - 1}
            text = f"{target.name} was removed by the teacher."
        else:
            updates[target.id]["computer"] = True
            text = f"{target.name} was removed by the teacher; the computer plays that seat now."
        self._by_token.pop(target.token_hash, None)
        return self._write(live, actor="facilitator", kind="table", action={"type": "kick", "seat": seat_index},
                           log=[{"t": "kick", "seat": seat_index, "text": text}], seat_updates=updates)

    # ----------------------------------------------------------------- notes
    def add_note(self, code: str, author: str, text) -> Note:
        text = checked(clean_note, text)
        with self._session() as s:
            table = self._table(s, code)
            note = Note(table_id=table.id, version=table.version, game_version=table.engine_version,
                        author=author[:40], text=text)
            s.add(note)
            s.commit()
            return note

    # ----------------------------------------------------------------- views
    def _meta(self, live: Live) -> dict:
        spec = live.spec
        return {"code": live.code, "game": live.game, "title": spec.title, "version": live.version,
                "status": live.status, "started": live.state is not None, "locked": live.locked,
                "paused": live.paused, "players": [{"seat": x.index, "name": x.name, "connected": self.connected(x.token_hash),
                             "computer": x.computer} for x in live.seats],
                "min_seats": live.seat_range[0], "max_seats": live.seat_range[1], "start_label": spec.start_label,
                "result": live.engine.result(live.state) if live.state is not None else None,
                "engine_version": live.engine_version, "deadlines": self._deadlines(live.timers),
                "ui": {part: (f"/static/{path}" if path else None)
                       for part, path in vars(spec.ui).items()}}

    def _viewer_parts(self, live: Live, viewer) -> tuple[dict, list, list]:
        """(view, actions, moderation) for one viewer now."""
        engine, spec = live.engine, live.spec
        if live.state is None:
            view = {"public": {}, "private": {},
                    "prompt": {"waiting_for": [], "text": "Waiting for players to join."}}
            actions = []
            if _is_int(viewer) and live.status == "lobby" and live.seats and live.seats[0].index == viewer \
                    and len(live.seats) >= live.seat_range[0]:
                actions = [{"type": "start", "label": spec.start_label}]
        else:
            cached = live.board_view
            view = cached[1] if viewer == "board" and cached is not None and cached[0] is live.state \
                else engine.view(live.state, viewer)
            view.setdefault("prompt", {"waiting_for": [], "text": ""})
            actions = [] if live.status != "playing" or live.paused else engine.actions(live.state, viewer)
        moderation = self._moderation(live) if viewer == "facilitator" else None
        return view, actions, moderation

    def _moderation(self, live: Live) -> list:
        """The platform's moderation actions, labelled (the game's own are in `actions`)."""
        if live.status == "ended":
            return []
        out = [{"type": "unlock", "label": "Unlock the table"} if live.locked
               else {"type": "lock", "label": "Lock the table (no one else can join)"}]
        if live.status == "lobby" and len(live.seats) >= live.seat_range[0]:
            out.append({"type": "start", "label": live.spec.start_label})
        if live.status == "playing":
            out.append({"type": "resume", "label": "Resume the game"} if live.paused
                       else {"type": "pause", "label": "Pause the game"})
        out.append({"type": "end", "label": "End the game" if live.status == "playing" else "Close the table"})
        out += [{"type": "kick", "seat": x.index, "label": f"Remove {x.name}"} for x in live.seats if not x.computer]
        return out

    def _viewers(self, live: Live) -> list:
        return ["board", "facilitator"] + [x.index for x in live.seats if not x.computer and not x.kicked]

    @staticmethod
    def _key(live: Live, viewer):
        if _is_int(viewer):
            return ("seat", live.seat(viewer).token_hash)
        return viewer

    def _payload(self, live: Live, viewer, meta: dict, parts, *, since: int | None) -> dict:
        view, actions, moderation = parts
        if since is None:
            entries = [e for e in live.log if entry_visible(e, viewer)]
        else:
            entries = []
            for e in reversed(live.log):
                if e["v"] <= since:
                    break
                if entry_visible(e, viewer):
                    entries.append(e)
            entries.reverse()
        payload = dict(meta, seat=viewer if _is_int(viewer) else None, view=view, actions=actions,
                       log=entries, log_reset=since is None)
        if moderation is not None:
            payload["moderation"] = moderation
        return payload

    def _views(self, live: Live, *, force: tuple = ()) -> list:
        """Every viewer's payload after a change, skipping viewers whose view (and visible
        log) did not change. `force` lists viewers to send in full regardless."""
        meta = self._meta(live)
        shared = {k: v for k, v in meta.items() if k != "version"}
        out = []
        for viewer in self._viewers(live):
            parts = self._viewer_parts(live, viewer)
            key = self._key(live, viewer)
            last = live.sent.get(key)
            # A digest, not the objects: keeping every viewer's last view alive cost 12 MB
            # per 1,000 phones (bench/classroom_load.py); the text is cheap with orjson.
            seen = hashlib.blake2b(dumps_compact([shared, parts]).encode(), digest_size=16).digest()
            since = last[0] if last is not None else live.version - 1
            fresh_log = False
            for e in reversed(live.log):  # newest first: only the change's own entries are looked at
                if e["v"] <= since:
                    break
                if entry_visible(e, viewer):
                    fresh_log = True
                    break
            if viewer in force:
                since = None
            elif last is not None and last[1] == seen and not fresh_log:
                continue
            live.sent[key] = (live.version, seen)
            live.changed_at[viewer] = live.version
            out.append((key, self._payload(live, viewer, meta, parts, since=since)))
        return out

    def view_for(self, code: str, viewer) -> dict:
        """One viewer's full payload now (on join, resume, watch or a stale move)."""
        live = self._current(code)
        with live.lock:
            if _is_int(viewer) and live.seat(viewer) is None:
                raise ServiceError("not_joined", "That seat is not at this table.")
            meta = self._meta(live)
            parts = self._viewer_parts(live, viewer)
            return self._payload(live, viewer, meta, parts, since=None)

    def refresh(self, code: str) -> Outcome:
        """The payloads after a change made elsewhere (a join, a class move, a
        connection coming or going): every viewer whose view changed."""
        live = self._current(code)
        with live.lock:
            return Outcome(code=code, version=live.version, views=self._views(live), class_code=live.class_code,
                           next_due=self._next_due(live.timers))

    # ---------------------------------------------------------------- replay
    def replay(self, code: str) -> dict | None:
        """Rebuild the engine state from the seed and the event log alone, under the
        engine and data versions the table was created with."""
        table = self.get(code)
        spec, engine = engines.spec(table.game), engines.get(table.game)
        if table.engine_version != spec.version or dict(table.data_versions or {}) != dict(spec.data_versions):
            raise ServiceError("bad_request",
                               f"Table {code} was played with {table.engine_version} "
                               f"(data {table.data_versions or 'none'}); this server runs {spec.version} "
                               f"(data {spec.data_versions or 'none'}), so it cannot be replayed exactly.")
        state = None
        for ev in self.events(code):
            kind = ev.action.get("type")
            if ev.kind == "table":
                if kind == "start":
                    options = start_options(spec, table.options, ev.action.get("computers", []))
                    state = engine.new(options, ev.action["seats"], table.seed)
                elif kind == "end" and state is not None and hasattr(engine, "finish"):
                    state, _ = engine.finish(state)
            elif state is not None:
                state, _ = engine.apply(state, actor_of(ev.actor), ev.action)
        return state

    def summary(self, code: str) -> dict:
        """The JSON API's description of a table."""
        table = self.get(code)
        engine = engines.get(table.game)
        return {"code": table.code, "game": table.game, "status": table.status, "version": table.version,
                "locked": table.locked, "paused": table.paused, "options": table.options,
                "engine_version": table.engine_version, "data_versions": table.data_versions,
                "seats": [{"seat": x.seat_index, "name": x.name, "computer": x.computer,
                           "connected": self.connected(x.token_hash)} for x in self.seats(code)],
                "result": engine.result(table.state) if table.state is not None else None,
                "created_at": table.created_at.isoformat()}

    def log_json(self, code: str) -> dict:
        """Full game log for the facilitator (reports): events, rulings applied, notes."""
        table = self.get(code)
        events = self.events(code)
        return {"code": table.code, "game": table.game, "engine_version": table.engine_version,
                "data_versions": table.data_versions, "seed": table.seed, "options": table.options,
                "events": [{"version": e.version, "kind": e.kind, "actor": e.actor, "action": e.action,
                            "log": e.log, "at": e.at.isoformat()} for e in events],
                "rulings": [dict(entry, version=e.version) for e in events for entry in e.log
                            if entry.get("t") == "ruling"],
                "notes": [{"version": n.version, "game_version": n.game_version, "author": n.author,
                           "text": n.text, "at": n.at.isoformat()} for n in self.notes(code)]}

    # ----------------------------------------------------- start from a class
    def start_now(self, code: str, *, expected_version: int | None = None, actor: str = "facilitator") -> Outcome:
        """Start a lobby table whose seats are final (class sessions)."""
        def change(live: Live) -> Outcome:
            if expected_version is not None:
                self._catch_up(live, expected_version)
            if live.status != "lobby":
                raise ServiceError("illegal", "This table has already started.")
            if expected_version is not None and live.version != expected_version:
                raise ServiceError("stale", "The table changed meanwhile. Here it is now.")
            return self._start(live, actor=actor)
        return self._with_live(code, change)
