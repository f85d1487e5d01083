"""The move path: one action from a phone, the engine, one transaction, the payloads.

The hot path (ARCHITECTURE.md "One move"): `act_as` finds the seat by its token's
hash and runs the move under the table's lock on the live copy (`LiveTables.with_live`);
`_act` checks the table's status and whether the sender saw the current version (else
`stale`, unless the action type is order-free and still legal), passes free text through
the one filter (app/service/student_text.py), and `game_move` calls the engine. `write`
is the one transaction of every live change: compare-and-swap the row on `version`
and append the event (plain SQL, `MoveSQL`), then update the copy, its timers, and
build the payloads of the viewers whose view changed.
"""
from __future__ import annotations

import contextlib
import threading
import time
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import event as sa_event, update
from sqlalchemy.exc import DBAPIError, IntegrityError

from app.edge.security import check_polite
from app.engines.contract import IllegalAction, strip_label
from app.errors import ServiceError
from app.service import student_text
from app.service.tables import lesson, timers
from app.service.tables.common import Live, Lost, Outcome, actor_name, checked, is_int, start_options
from app.service.tables.live import LiveTables
from app.service.tables.views import Views
from app.store.models import GameTable, Note, Seat, utcnow
from app.wire import dumps_compact
from app.engines.text import N_, NP_

TABLE = GameTable.__table__
SEATS = Seat.__table__
NOTES = Note.__table__

# Refusals worth a line in the playtest report: the rules said no. A stale move (the
# phone retries), a bad request or a busy table is not the players' confusion.
NOT_REFUSALS = frozenset({"stale", "bad_request", "rate_limited", "unknown_table", "forbidden", "not_joined",
                          "game_over"})


class MoveSQL:
    """The two statements of every move, as plain SQL for the database's driver, run on
    the driver's own connection (`move`): SQLAlchemy's expression layer, and even its
    Connection's execution context around a plain statement, cost more than running them."""

    def __init__(self, db):
        self.db = db
        self.dialect = db.dialect
        self.sqlite = db.dialect.name == "sqlite"
        self.driver_error = db.dialect.loaded_dbapi.Error
        mark = (lambda name: f":{name}") if self.sqlite else (lambda name: f"%({name})s")
        json = (lambda name: mark(name)) if self.sqlite else (lambda name: f"CAST({mark(name)} AS JSON)")
        swap = (f"UPDATE game_table SET version = {mark('version')}, state = {json('state')}, "
                f"status = {mark('status')}, timers = {json('timers')}, {{due}}updated_at = {mark('updated_at')} "
                f"WHERE id = {mark('id')} AND version = {mark('expected')}")
        self.swap_sql = swap.format(due=f"next_due_at = {mark('next_due_at')}, ")
        # Most moves leave the table's next due time as it was. SQLite rewrites an index
        # entry whenever its column is assigned, even to the value it holds: one more page
        # in the WAL (and in the checkpoint's copy) for every such move, a quarter of a
        # War move's pages. So those moves leave the column out.
        self.swap_keeping_due_sql = swap.format(due="")
        self.append_sql = (f"INSERT INTO event (table_id, version, kind, actor, action, log, at) VALUES "
                           f"({mark('table_id')}, {mark('version')}, {mark('kind')}, {mark('actor')}, "
                           f"{json('action')}, {json('log')}, {mark('at')})")
        # SQLite: moves keep one pooled connection (`_connection`) instead of checking one
        # out and back in for each: the pool's checkout, checkin and reset-on-return cost
        # half as much as the transaction itself (bench/bench_service.py). SQLite takes
        # one writer at a time anyway; the lock keeps two moves off the one connection.
        self._held = None
        self._held_lock = threading.Lock() if self.sqlite else contextlib.nullcontext()
        if self.sqlite:
            sa_event.listen(db, "engine_disposed", self._let_go)

    def _connection(self):
        if not self.sqlite:
            return self.db.raw_connection()
        if self._held is None:
            self._held = self.db.raw_connection()
        return self._held

    def _let_go(self, _engine=None) -> None:
        """The engine is disposed (the app stops): the kept connection goes back, closed."""
        held, self._held = self._held, None
        if held is not None:
            held.invalidate()

    def _moment(self, moment: datetime):
        # As SQLAlchemy's DateTime stores it in SQLite (naive UTC text, "%Y-%m-%d %H:%M:%S.%f":
        # isoformat writes the same for any year from 1000, at half strftime's cost);
        # PostgreSQL takes it as it is.
        if not self.sqlite:
            return moment
        if moment.tzinfo is not timezone.utc:
            moment = moment.astimezone(timezone.utc)
        return moment.replace(tzinfo=None).isoformat(" ", "microseconds")

    def _swap_params(self, table_id: int, expected: int, values: dict) -> dict:
        return {"version": values["version"], "state": dumps_compact(values["state"]), "status": values["status"],
                "timers": dumps_compact(values["timers"]), "next_due_at": values["next_due_at"],
                "updated_at": self._moment(values["updated_at"]), "id": table_id, "expected": expected}

    def _append_params(self, event: dict, at=None) -> dict:
        """`at`: the event's moment as the database takes it, when the caller has it already."""
        return dict(event, action=dumps_compact(event["action"]), log=dumps_compact(event["log"]),
                    at=self._moment(event["at"]) if at is None else at)

    def swap(self, conn, table_id: int, expected: int, values: dict):
        """The swap inside a caller's SQLAlchemy transaction (a change that also writes seats or notes)."""
        return conn.exec_driver_sql(self.swap_sql, self._swap_params(table_id, expected, values))

    def append(self, conn, event: dict):
        conn.exec_driver_sql(self.append_sql, self._append_params(event))

    def move(self, table_id: int, expected: int, values: dict, event: dict, *, due_changed: bool = True) -> bool:
        """A move's whole transaction on the driver's connection (`_connection`): swap,
        append, commit (`due_changed` False: the row's `next_due_at` already holds
        `values["next_due_at"]`, and is not assigned). False when the row is no longer at
        `expected` (nothing written). A driver error
        comes out as SQLAlchemy's own (IntegrityError, OperationalError...), as from a
        Connection, so callers and app/edge/outage.py see one kind of error; a connection
        the driver reports broken is dropped from the pool."""
        statement = self.swap_sql if due_changed else self.swap_keeping_due_sql
        params = self._swap_params(table_id, expected, values)
        with self._held_lock:
            conn = cursor = None
            try:
                conn = self._connection()  # a database that is down refuses here, as a driver error
                cursor = conn.cursor()
                cursor.execute(statement, params)
                if cursor.rowcount != 1:
                    conn.rollback()
                    return False
                # The event's moment is the row's (`Moves.write`): converted once for both.
                at = params["updated_at"] if event["at"] is values["updated_at"] else None
                statement, params = self.append_sql, self._append_params(event, at)
                cursor.execute(statement, params)
                conn.commit()
                return True
            except self.driver_error as exc:
                broken = conn is None or self.dialect.is_disconnect(exc, conn.dbapi_connection, cursor)
                if conn is None:
                    pass  # no connection was made: nothing to give back
                elif broken:
                    conn.invalidate(exc)
                    if conn is self._held:
                        self._held = None
                else:
                    try:
                        conn.rollback()
                    except self.driver_error:
                        pass  # the error below says what went wrong
                raise DBAPIError.instance(statement, params, exc, self.driver_error, hide_parameters=True,
                                          connection_invalidated=broken, dialect=self.dialect) from exc
            finally:
                if cursor is not None:
                    try:
                        cursor.close()
                    except self.driver_error:
                        pass
                if conn is not None and conn is not self._held:
                    conn.close()  # back to the pool (or, invalidated, closed)


class Moves:
    def __init__(self, cache: LiveTables, views: Views, *, bot_delay_scale: float = 1.0,
                 lesson_minute: float = lesson.MINUTE):
        self.cache = cache
        self.views = views
        self.db = cache.store.db
        self.bot_delay_scale = bot_delay_scale  # stretches the computers' thinking time (0 in tests)
        self.lesson_minute = lesson_minute      # seconds in a lesson clock's minute (shorter in browser tests)
        self._sql = MoveSQL(self.db)
        # (game, action type) -> True when its listed actions hold no free text (see _student_text)
        self._textless: dict[tuple[str, str], bool] = {}

    def act(self, code: str, seat: int, version, action) -> Outcome:
        """One action from a seat (the lobby's `start` included)."""
        action = self._checked_action(action, version)
        try:
            return self.cache.with_live(code, lambda live: self._act(live, seat, version, action))
        except ServiceError as exc:
            self._refused(code, actor_name(seat), action, exc)
            raise

    def _refused(self, code: str, actor: str, action: dict, exc: ServiceError) -> None:
        """Record a refused move (one small insert; refusals are rare next to moves)."""
        if exc.code in NOT_REFUSALS:
            return
        try:
            self.cache.store.add_refusal(code, actor=actor, action_type=str(action.get("type", "")),
                                         error=str(exc.code))
        except Exception:  # noqa: BLE001 - a report's statistic must never fail a move
            pass

    def act_as(self, token_hash: str, version, action) -> Outcome:
        """`act` for the connection holding this seat's token."""
        action = self._checked_action(action, version)

        def attempt(live: Live) -> Outcome:
            seat = next((x for x in live.seats if x.token_hash == token_hash), None)
            if seat is None or seat.kicked:
                raise Lost()  # moved or removed since we cached it: look it up again
            return self._act(live, seat.index, version, action)

        for _ in range(2):
            ref = self.cache.seat_ref(token_hash)
            try:
                return self.cache.with_live(ref.table, attempt)
            except Lost:
                self.cache.forget_seat(token_hash)
            except ServiceError as exc:
                self._refused(ref.table, actor_name(ref.seat) if is_int(getattr(ref, "seat", None)) else "seat",
                              action, exc)
                raise
        raise ServiceError("forbidden", N_("Your seat changed meanwhile; reload the page."))

    @staticmethod
    def _checked_action(action, version) -> dict:
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise ServiceError("bad_request", N_("An action is an object with a type."))
        if not is_int(version):
            raise ServiceError("bad_request", N_("An action needs the version of the view it was chosen from."))
        return strip_label(action)

    @staticmethod
    def seen_current(live: Live, viewer, version: int) -> bool:
        """The sender saw the table as it is for them now: the version is current, or
        nothing this viewer can see has changed since the version it sent."""
        if version == live.version:
            return True
        since = live.changed_at.get(viewer)
        return since is not None and since <= version <= live.version

    @staticmethod
    def catch_up(live: Live, version: int) -> None:
        """A client that saw a later version than ours: another process wrote; reload
        (a version later than the database's is just wrong)."""
        if version > live.version:
            if live.reloaded:
                raise ServiceError("stale", N_("That version of the table does not exist. Here it is now."))
            raise Lost()

    def _act(self, live: Live, seat: int, version: int, action: dict) -> Outcome:
        self.catch_up(live, version)
        if live.status == "ended":
            raise ServiceError("game_over", N_("This game has ended."))
        if live.status == "lobby":
            if version != live.version:
                raise ServiceError("stale", N_("The table changed before your move arrived. Here it is now."))
            if action["type"] != "start":
                raise ServiceError("illegal", N_("The game has not started yet."))
            if not live.seats or live.seats[0].index != seat:
                raise ServiceError("not_your_turn", N_("The first player to join starts the game."))
            if len(live.seats) < live.seat_range[0]:
                raise ServiceError("illegal", NP_("At least {n} players are needed to start.", "At least {n} players are needed to start.",
                                                  live.seat_range[0]).format(n=live.seat_range[0]))
            return self.start(live, actor=actor_name(seat))
        if live.paused:
            raise ServiceError("forbidden", N_("The teacher has paused this table."))
        if not self.seen_current(live, seat, version):
            order_free = action["type"] in live.spec.order_free and \
                action in [strip_label(a) for a in live.actions(seat)]
            if not order_free:
                raise ServiceError("stale", N_("The table changed before your move arrived. Here it is now."))
        action, texts = self._student_text(live, seat, action)
        return self.game_move(live, seat, action, actor_label=actor_name(seat), texts=texts)

    def _student_text(self, live: Live, seat: int, action: dict) -> tuple[dict, dict | None]:
        """The one door every game's free text passes (DESIGN.md "Text students type"):
        the action's free-text fields (app/service/student_text.py) are put on one line, refused
        when rude and the table filters, and recorded as the table's student texts under
        the ref of the event about to be written. Returns (action, the table's texts after
        it, or None when the action holds no text)."""
        if not any(isinstance(v, str) and v for k, v in action.items() if k != "type"):
            return action, None  # the common move: no text at all
        kind = (live.game, action["type"])
        if self._textless.get(kind):
            return action, None  # a card id, say: this type of action was never listed with free text
        listed = [a for a in live.actions(seat) if a.get("type") == action["type"]]
        fields = student_text.free_text_fields(listed, action)
        if listed:  # learnt once per game and action type, so that moves skip listing the actions
            self._textless[kind] = not any(v == "" for a in listed for k, v in a.items() if k != "label")
        action = dict(action, **{k: student_text.normalise(action[k]) for k in fields})
        written = [k for k in fields if action[k]]
        if not written:
            return action, None
        for k in written:
            if live.name_filter:
                checked(lambda text: check_polite(text, "text"), action[k])
        texts = dict(live.texts)
        for k in written:
            ref = f"e{live.version + 1}" + ("" if len(written) == 1 else f".{k}")
            texts[ref] = student_text.entry(seat, k, action[k], approved=not live.text_approval)
        return action, texts

    def game_move(self, live: Live, actor, action: dict, *, actor_label: str, fired: str | None = None,
                  texts: dict | None = None) -> Outcome:
        """The engine applies one action (a seat's, the teacher's, or a fired timer's)."""
        try:
            state, log = live.engine.apply(live.state, actor, action)
        except IllegalAction as exc:
            raise ServiceError(exc.code, exc.message)
        status = "ended" if live.engine.result(state) is not None else "playing"
        return self.write(live, actor=actor_label, kind="game", action=action, log=log, state=state,
                          status=status, fired=fired, mover=actor if is_int(actor) else None,
                          fields=None if texts is None else {"texts": texts})

    def start(self, live: Live, *, actor: str) -> Outcome:
        """The game begins with the seats as they are."""
        names = [x.name for x in live.seats]
        computers = [x.index for x in live.seats if x.computer]
        try:
            state = live.engine.new(start_options(live.spec, live.options, computers), names, live.seed)
        except IllegalAction as exc:  # say, more players than these options allow
            raise ServiceError(exc.code, exc.message)
        log = [{"t": "start", "text": N_("The game begins: {names}.").format(names=", ".join(names))}]
        clock = self._lesson_clock(live)
        return self.write(live, actor=actor, kind="table", log=log, state=state, status="playing",
                          action={"type": "start", "seats": names, "computers": computers},
                          timers_set={lesson.KEY: clock} if clock else None)

    def _lesson_clock(self, live: Live) -> dict | None:
        """The lesson timer a table starts with: from the deal for its own lesson length,
        or, at a class's table, to the class's clock (started by the class's first deal;
        a clock the class has stopped runs on at this table from the time it had left)."""
        now = time.time()
        if live.class_id is not None:
            minutes, due, left = self.cache.store.class_clock(live.class_id, start_at=now, minute=self.lesson_minute)
            if not minutes:
                return None
            return lesson.timer(due=due if due is not None else now + (left or 0.0))
        if not live.lesson_minutes:
            return None
        return lesson.timer(due=now + live.lesson_minutes * self.lesson_minute)

    def finish(self, live: Live, *, actor: str, text: str, cause: str = "teacher",
               fired: str | None = None) -> Outcome:
        """End a game in progress: the teacher's End, the lesson clock ran out (`cause`
        "lesson_clock"), or the platform stopped a teacher-less game that ran too long
        ("time_limit", the demo brakes). The engine's `finish` ranks the players by its
        tie-break (and, for the lesson clock, logs its ruling); the table event names the
        cause, so replay agrees."""
        state, log = live.state, [{"t": "end", "text": text}]
        if hasattr(live.engine, "finish"):
            try:
                state, log = live.engine.finish(live.state) if cause == "teacher" \
                    else live.engine.finish(live.state, cause)
            except IllegalAction as exc:
                raise ServiceError(exc.code, exc.message)
        action = {"type": "end"} if cause == "teacher" else {"type": "end", "cause": cause}
        return self.write(live, actor=actor, kind="table", action=action, log=log, state=state, status="ended",
                          fired=fired)

    def write(self, live: Live, *, actor: str, kind: str, action: dict, log: list, state: Any = ...,
              status: str | None = None, fields: dict | None = None, seat_updates: dict | None = None,
              fired: str | None = None, mover: int | None = None, force: tuple = (),
              note_updates: dict | None = None, timers_set: dict | None = None) -> Outcome:
        """The one transaction of a live change: compare-and-swap, append, then update
        the live copy and build the payloads of the viewers whose view changed.
        `timers_set`: platform timers this change sets (the lesson clock, lesson.py)."""
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
        timers_now = timers.after_change(live, state, status, paused, fired=fired, mover=mover, now=now,
                                         scale=self.bot_delay_scale)
        if timers_set and status == "playing":
            timers_now.update(timers_set)
        next_due = timers.next_due(timers_now)
        values = dict(fields, version=live.version + 1, state=state, status=status, timers=timers_now,
                      next_due_at=next_due, updated_at=utcnow())
        event = dict(table_id=live.id, version=live.version + 1, kind=kind, actor=actor, action=action, log=log,
                     at=values["updated_at"])
        try:
            if fields or seat_updates or note_updates:  # the rare change of flags, seats or notes
                with self.db.begin() as conn:
                    if fields:  # the table's own flags (lock, pause)
                        done = conn.execute(update(TABLE).where(TABLE.c.id == live.id,
                                                                TABLE.c.version == live.version).values(**values))
                    else:
                        done = self._sql.swap(conn, live.id, live.version, values)
                    if done.rowcount != 1:
                        raise Lost()
                    self._sql.append(conn, event)
                    for seat_id, change in (seat_updates or {}).items():
                        conn.execute(update(SEATS).where(SEATS.c.id == seat_id).values(**change))
                    for note_id, change in (note_updates or {}).items():
                        conn.execute(update(NOTES).where(NOTES.c.id == note_id).values(**change))
            elif not self._sql.move(live.id, live.version, values, event,  # every move: two plain statements
                                    due_changed=next_due != live.next_due_at):
                raise Lost()
        except IntegrityError:
            raise Lost()
        except Lost:
            raise
        except Exception:
            self.cache.forget(live.code)  # the live copy may be half-updated (seats): reload it
            raise
        live.version += 1
        live.state, live.status, live.timers, live.last_at = state, status, timers_now, values["updated_at"]
        live.next_due_at = next_due
        for key, value in fields.items():
            setattr(live, key, value)
        removed = [x.token_hash for x in live.seats if x.id in (seat_updates or {}) and x.kicked]
        if seat_updates:
            live.seats = sorted([x for x in live.seats if x.index is not None], key=lambda x: x.index)
        live.log.extend(dict(e, v=live.version) for e in log)
        return Outcome(code=live.code, version=live.version, views=self.views.changed(live, force=force),
                       class_code=live.class_code, removed=removed, next_due=next_due)
