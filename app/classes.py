"""Class sessions: one code for a whole class, students seated into many tables.

The class code is accepted wherever a table code is (`join_any`): a student
joining with it is seated at one of the session's tables, and from then on
plays exactly as at a single table. Where students sit is decided by the pure
rules in app/seating.py; this service reads the class's tables, asks seating,
and applies the answer through the table service, whose class-session methods
compare-and-swap every table they touch plus the class row, so two arrivals,
a move and the start never overwrite one another (a loser retries from fresh
data).

The overview (`overview`, for the facilitator; `public_overview`, for the
projected class board) summarises every table: players, progress toward the
game's goal, whose turn it is, time since the last move, and alerts. What a
game contributes (progress, turn, scores, its own alerts) comes from its spec's
`figures`; the generic alerts are the functions in ALERT_RULES.
"""
from __future__ import annotations

import random
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

from sqlalchemy import func, update
from sqlmodel import Session, select

from app import engines, seating
from app.engines.contract import IllegalAction
from app.models import ClassSession, Event, GameTable, Seat, utcnow
from app.security import InputError, check_polite, clean_name, has_nul, hash_token, name_key, new_code, new_token
from app.tables import ServiceError, TableService, checked

IDLE_SECONDS = 180     # a playing table without a move this long needs the teacher
AWAY_SECONDS = 60      # a student disconnected this long needs the teacher
STALL_SECONDS = 30     # a playing table waiting this long on named students: say who
MESSAGE_MAX = 140      # a message to every phone: one line on a phone screen
RETRIES = 12           # a class change that lost a compare-and-swap is retried this often
LEADERS_ON_BOARD = 10  # the projected leader board lists this many players
LINES_MAX = 4          # a game's public lines (figures "lines") on a table's card
PLAYING_MOVE = ("That match is still being played: its students can be moved once it has ended "
                "(end it first), or before it starts.")


def _utc(moment: datetime | None) -> datetime | None:
    # SQLite hands datetimes back without their zone; every stored time is UTC.
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment


def _names(names: list[str]) -> str:
    """'Ana', 'Ana and Ben', 'Ana, Ben and Cara'."""
    if not names:
        return ""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _minutes(seconds: float) -> str:
    minutes = int(seconds // 60)
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


class Final(Exception):
    """An error `_settle` must not retry, even a `stale` one."""

    def __init__(self, error: ServiceError):
        super().__init__(error.message)
        self.error = error


# ----------------------------------------------------------- per-game figures
@dataclass
class TableFacts:
    """Everything the overview knows about one table, for figures and alerts."""

    klass: ClassSession
    table: GameTable
    number: int
    seats: list[Seat]
    players: list[dict]          # {seat, name, computer, connected, away_seconds}
    public: dict | None          # the engine's public view, None before the start
    result: dict | None
    idle_seconds: float | None   # since the last event of any kind
    figures: dict = field(default_factory=dict)
    prompt: dict | None = None   # the board view's prompt: {"waiting_for": [seats], "text"}, None before the start
    # The facilitator's overview only (never the class board): the game's facilitator
    # actions now, and that view's prompt text, when the game waits on the teacher.
    decisions: list = field(default_factory=list)
    decision_prompt: str = ""


def _idle_alert(facts: TableFacts) -> list[dict]:
    t = facts.table
    if t.status == "playing" and not t.paused and facts.idle_seconds is not None \
            and facts.idle_seconds >= IDLE_SECONDS:
        return [{"kind": "idle", "level": "attention", "text": f"No move for {_minutes(facts.idle_seconds)}"}]
    return []


def _seconds(seconds: float) -> str:
    return f"{int(seconds)} s" if seconds < 60 else _minutes(seconds)


def _stalled_alert(facts: TableFacts) -> list[dict]:
    """A playing table whose game waits on particular students, with no event for STALL_SECONDS."""
    t = facts.table
    if t.status != "playing" or t.paused or facts.idle_seconds is None or facts.idle_seconds < STALL_SECONDS:
        return []
    waiting = set((facts.prompt or {}).get("waiting_for") or [])
    people = [p for p in facts.players if p["seat"] in waiting and not p["computer"]]
    if not people:
        return []
    return [{"kind": "stalled", "level": "attention", "seats": [p["seat"] for p in people],
             "text": f"Waiting on {_names([p['name'] for p in people])} for {_seconds(facts.idle_seconds)}"}]


def _away_alert(facts: TableFacts) -> list[dict]:
    if facts.table.status == "ended":
        return []
    return [{"kind": "disconnected", "level": "attention", "seat": p["seat"],
             "text": f"{p['name']} has been disconnected for {_minutes(p['away_seconds'])}"
             if p["away_seconds"] >= 120 else f"{p['name']} has been disconnected for over a minute"}
            for p in facts.players
            if not p["computer"] and not p["connected"] and (p["away_seconds"] or 0) >= AWAY_SECONDS]


def _finished_alert(facts: TableFacts) -> list[dict]:
    if facts.table.status != "ended":
        return []
    # The seats' names as the table knows them: a game's public view may not list players.
    names = {p["seat"]: p["name"] for p in facts.players}
    winners = [names.get(s, f"Seat {s + 1}") for s in facts.result["winners"]] if facts.result else []
    if not winners:
        return [{"kind": "finished", "level": "info", "text": "Finished"}]
    verb = "won" if len(winners) == 1 else "share the win"
    return [{"kind": "finished", "level": "info", "text": f"Finished: {_names(winners)} {verb}"}]


def _waiting_alert(facts: TableFacts) -> list[dict]:
    # Tables that wait for their own start are normal before the class starts;
    # after it, a lobby table is a late arrival (or a leftover) the teacher should start.
    students = [p for p in facts.players if not p["computer"]]
    if facts.table.status == "lobby" and facts.klass.status == "playing" and students:
        n = len(students)
        return [{"kind": "waiting", "level": "attention",
                 "text": f"{_names([p['name'] for p in students])} {'is' if n == 1 else 'are'} waiting to start"}]
    return []


# Generic alerts; a game adds its own through its FIGURES entry (through its spec's `figures`).
ALERT_RULES: list[Callable[[TableFacts], list[dict]]] = [_idle_alert, _stalled_alert, _away_alert,
                                                         _finished_alert, _waiting_alert]


# ------------------------------------------------------------------ service
class ClassService:
    def __init__(self, db, tables: TableService, *, tables_max: int):
        self.db = db
        self.tables = tables
        # A new name joining a full (or solo) class opens a table: a class has at most this many
        # (CLASS_TABLES_MAX), so that nobody can fill the database by joining under made-up names.
        self.tables_max = tables_max
        # When the overview first saw each student's seat disconnected (seat token hash ->
        # time.time()). Presence itself has no clock; the overview is recomputed on every
        # change of a class table, a disconnection included, so this is close enough.
        self._away_since: dict[str, float] = {}
        self._away_lock = threading.Lock()

    def _session(self) -> Session:
        return Session(self.db, expire_on_commit=False)

    # ------------------------------------------------------------ reads
    def find(self, code: str) -> ClassSession | None:
        if not isinstance(code, str) or has_nul(code):
            return None
        with self._session() as s:
            return s.exec(select(ClassSession).where(ClassSession.code == code)).first()

    def get(self, code: str) -> ClassSession:
        klass = self.find(code) if code else None
        if klass is None:
            raise ServiceError("unknown_table", "There is no class session with that code.")
        return klass

    def owned(self, code: str, facilitator_id: int) -> ClassSession:
        klass = self.get(code)
        if klass.facilitator_id != facilitator_id:
            raise ServiceError("forbidden", "This class session belongs to another facilitator.")
        return klass

    def classes_of(self, facilitator_id: int) -> list[ClassSession]:
        with self._session() as s:
            return list(s.exec(select(ClassSession).where(ClassSession.facilitator_id == facilitator_id)
                               .order_by(ClassSession.created_at.desc())).all())

    def class_code_of_table(self, table_code: str) -> str | None:
        with self._session() as s:
            table = s.exec(select(GameTable).where(GameTable.code == table_code)).first()
            if table is None or table.class_id is None:
                return None
            klass = s.get(ClassSession, table.class_id)
            return klass.code if klass else None

    @staticmethod
    def rule(klass: ClassSession) -> seating.SeatingRule:
        return seating.rule_for(klass.game, klass.options)

    @staticmethod
    def table_size(klass: ClassSession) -> int | str:
        # Stored as an int: 1 means solo (one student per table, with computer opponents).
        return seating.SOLO if klass.table_size == 1 else klass.table_size

    def _read(self, klass: ClassSession) -> list[dict]:
        """Every table of the class in creation order: {table, seats (active, by index), last_at}."""
        with self._session() as s:
            tables = list(s.exec(select(GameTable).where(GameTable.class_id == klass.id)
                                 .order_by(GameTable.id)).all())
            ids = [t.id for t in tables]
            seats = list(s.exec(select(Seat).where(Seat.table_id.in_(ids), Seat.seat_index != None)  # noqa: E711
                                .order_by(Seat.seat_index)).all()) if ids else []
            last = dict(s.exec(select(Event.table_id, func.max(Event.at)).where(Event.table_id.in_(ids))
                               .group_by(Event.table_id)).all()) if ids else {}
        by_table: dict[int, list[Seat]] = {i: [] for i in ids}
        for seat in seats:
            by_table[seat.table_id].append(seat)
        return [{"table": t, "seats": by_table[t.id], "last_at": _utc(last.get(t.id) or t.created_at)}
                for t in tables]

    @staticmethod
    def _visible(rows: list[dict]) -> list[dict]:
        """Tables worth showing, numbered 1, 2, … in creation order. A lobby table without
        students (emptied by moves or balancing, or an unused spare) is hidden."""
        shown = [r for r in rows if r["table"].status != "lobby" or any(not x.computer for x in r["seats"])]
        for number, row in enumerate(shown, 1):
            row["number"] = number
        return shown

    def _pinned(self, lobby_ids: list[int]) -> set[int]:
        """Seats the facilitator moved to their current table: balancing moves others first."""
        if not lobby_ids:
            return set()
        with self._session() as s:
            events = s.exec(select(Event).where(Event.table_id.in_(lobby_ids))).all()
            pinned = set()
            for ev in events:
                if ev.action.get("type") == "move" and ev.action.get("by") == "facilitator":
                    for item in ev.action.get("in", []):
                        seat = s.get(Seat, item.get("seat_id"))
                        if seat is not None and seat.table_id == ev.table_id:
                            pinned.add(seat.id)
        return pinned

    def _layout(self, rows: list[dict], *, with_pins: bool = False) -> tuple[list[seating.Table], list[dict]]:
        """The lobby tables as seating's model, and the rows they came from (same order)."""
        lobby = [r for r in rows if r["table"].status == "lobby"]
        pinned = self._pinned([r["table"].id for r in lobby]) if with_pins else set()
        layout = []
        for r in lobby:
            seats = r["seats"]
            layout.append(seating.Table(
                key=r["table"].code,
                students=[seating.Student(x.id, pinned=x.id in pinned) for x in seats if not x.computer],
                computers=sum(x.computer for x in seats), locked=r["table"].locked,
                computer_first=bool(seats) and seats[0].computer))
        return layout, lobby

    # ----------------------------------------------------------- create
    def create(self, facilitator_id: int, game, options=None, table_size=None,
               fill_with_computer=False, name_filter=True) -> ClassSession:
        if not isinstance(game, str):
            raise ServiceError("bad_request", "Send the game's key, one of: " + ", ".join(engines.keys()) + ".")
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise ServiceError("bad_request", "options must be an object of the game's options.")
        if not isinstance(fill_with_computer, bool):
            raise ServiceError("bad_request", "fill_with_computer must be true or false.")
        if not isinstance(name_filter, bool):
            raise ServiceError("bad_request", "name_filter must be true or false.")
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
            if self.find(code) is not None or self.tables.find(code) is not None:
                continue
            klass = ClassSession(code=code, game=game, options=resolved, facilitator_id=facilitator_id,
                                 table_size=1 if size == seating.SOLO else size,
                                 fill_with_computer=fill_with_computer, name_filter=name_filter)
            with self._session() as s:
                s.add(klass)
                s.commit()
            return klass
        raise ServiceError("bad_request", "Could not allocate a class code; try again.")

    @staticmethod
    def _spare(rows: list[dict]) -> str | None:
        """An unused empty lobby table of the class, if any."""
        for r in rows:
            if r["table"].status == "lobby" and not r["seats"] and not r["table"].locked:
                return r["table"].code
        return None

    def _new_table(self, klass: ClassSession, rows: list[dict]) -> str:
        """A lobby table for the class: an unused empty one if any, else a fresh one."""
        spare = self._spare(rows)
        if spare is not None:
            return spare
        return self.tables.create_table(klass.facilitator_id, klass.game, klass.options, class_id=klass.id,
                                        name_filter=klass.name_filter).code

    @staticmethod
    def _settle(attempt, busy: str = "The class is very busy; please try again."):
        """Run `attempt` until it stops losing compare-and-swaps (`stale`) to simultaneous
        changes, stepping aside briefly between tries; `attempt` re-reads what it needs.
        A `Final` error (say, the facilitator acted on an old view) is not retried."""
        for _ in range(RETRIES):
            try:
                return attempt()
            except Final as exc:
                raise exc.error
            except ServiceError as exc:
                if exc.code != "stale":
                    raise
            time.sleep(random.uniform(0.005, 0.03))
        raise ServiceError("rate_limited", busy)

    # ------------------------------------------- class tables (one transaction each)
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
        press the start button) is a student whenever the table has one."""
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
        name = checked(clean_name, name)
        with self._session() as s:
            table = self.tables._table(s, code)
            if table.class_id != class_id:
                raise ServiceError("forbidden", "That table is not part of this class.")
            if table.status != "lobby" or table.locked:
                raise ServiceError("stale", "That table is no longer open; another one is chosen.")
            seats = self.tables._seats(s, table)
            token, student, join = self.tables.seat_student(s, table, seats, name, chairs_needed=1 + computers)
            self._guard_class(s, class_id, class_version)
            if computers:
                self.tables.stage(s, table, **join)
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
            table = self.tables._table(s, code)
            if table.status != "lobby":
                raise ServiceError("illegal", "Computer players can only be added before the table starts.")
            most = engines.spec(table.game).seat_range(table.options)[1]
            seats = self.tables._seats(s, table)
            if len(seats) >= most:
                raise ServiceError("table_full", f"This table is full ({most} players).")
            self._guard_class(s, class_id, class_version)
            added = self._add_computers(s, table, seats, 1)
            return self._commit(s, table, actor="facilitator", action={"type": "computers", "added": [added[0].name]},
                                log=[{"t": "join", "seat": added[0].seat_index,
                                      "text": f"{added[0].name} joined as a computer player."}])

    def move_seats(self, moves: list[tuple[int, str]], *, by: str, class_id: int,
                   class_version: int | None = None) -> dict[int, dict]:
        """Move students (seat id -> lobby table code) to lobby tables of one class, all
        at once, from lobby tables or from tables whose match has ended (re-pairing for
        the next match). Tokens stay valid; each touched lobby table is renumbered
        (students first) and gets one `move` event; a lobby table left without students
        loses its computer seats.

        A student leaving an ended table gets a NEW seat row at the target, which takes
        over the token (so the phone and a resume follow); the ended table keeps its row,
        seat number and name (its views, report and replay still say who played), with a
        fresh token nobody holds and `moved_to` set to the new row. The ended table itself
        (state, version, events) is not touched.
        Returns {seat id (the student's seat now): {"token_hash", "table", "seat"}}."""
        if not moves:
            return {}
        left_ended: list[tuple[str, str]] = []  # (ended table code, token hash): caches to drop
        with self._session() as s:
            self._guard_class(s, class_id, class_version)
            by_code: dict[str, GameTable] = {}
            members: dict[str, list[Seat]] = {}

            def table_of(code: str, *, source: bool = False) -> GameTable:
                if code not in by_code:
                    table = self.tables._table(s, code)
                    if table.class_id != class_id:
                        raise ServiceError("forbidden", "That table is not part of this class.")
                    if table.status == "lobby":
                        members[code] = self.tables._seats(s, table)
                    elif table.status == "playing" and source:
                        raise ServiceError("illegal", PLAYING_MOVE)
                    elif not (table.status == "ended" and source):  # a finished match: students leave, no one joins
                        raise ServiceError("illegal", "Students can only be moved to a table that has not "
                                                      "started yet.")
                    by_code[code] = table
                if by_code[code].status != "lobby" and not source:
                    raise ServiceError("illegal", "Students can only be moved to a table that has not started yet.")
                return by_code[code]

            notes: dict[str, dict] = {}
            moved: dict[int, Seat] = {}
            for seat_id, to_code in moves:
                seat = s.get(Seat, seat_id)
                if seat is None or seat.kicked or seat.computer or seat.seat_index is None:
                    raise ServiceError("bad_request", "There is no student in that seat.")
                if seat.moved_to is not None:
                    raise ServiceError("illegal", f"{seat.name} has already moved on to another table.")
                source = s.get(GameTable, seat.table_id)
                table_of(source.code, source=True)
                target = table_of(to_code)
                if source.id == target.id:
                    raise ServiceError("bad_request", f"{seat.name} is already at that table.")
                if any(name_key(x.name) == name_key(seat.name) for x in members[to_code]):
                    raise ServiceError("name_taken", f"Someone at that table is already called {seat.name}.")
                if source.status == "ended":
                    # The record stays; the student (their token) sits down at the target.
                    token_hash = seat.token_hash
                    seat.token_hash = hash_token(new_token())  # nobody holds it: the old seat cannot be resumed
                    s.add(seat)
                    s.flush()  # free the unique token hash before the new row takes it
                    student = Seat(table_id=target.id, seat_index=len(members[to_code]), name=seat.name,
                                   token_hash=token_hash)
                    s.add(student)
                    s.flush()
                    seat.moved_to = student.id
                    s.add(seat)
                    left_ended.append((source.code, token_hash))
                else:
                    student = next(x for x in members[source.code] if x.id == seat.id)  # the same row object
                    members[source.code].remove(student)
                    student.table_id = target.id
                members[to_code].append(student)
                moved[student.id] = student
                notes.setdefault(to_code, {"out": [], "in": [], "log": []})
                item = {"seat_id": student.id, "name": seat.name, "from": source.code}
                if source.status == "ended":
                    item["from_seat_id"] = seat.id
                    text = f"{seat.name} joined after their match at table {source.code} ended."
                else:
                    notes.setdefault(source.code, {"out": [], "in": [], "log": []})
                    notes[source.code]["out"].append({"seat_id": seat.id, "name": seat.name, "to": to_code})
                    notes[source.code]["log"].append({"t": "move", "text": f"{seat.name} moved to table {to_code}."})
                    text = f"{seat.name} joined from table {source.code}."
                notes[to_code]["in"].append(item)
                notes[to_code]["log"].append({"t": "move", "text": text})
            for code, seats in members.items():
                if not any(not x.computer for x in seats):
                    for computer in [x for x in seats if x.computer]:
                        self._drop_seat(s, computer)
                        seats.remove(computer)
                most = engines.spec(by_code[code].game).seat_range(by_code[code].options)[1]
                if len(seats) > most:
                    raise ServiceError("table_full", f"Table {code} would have more than {most} "
                                                     f"player{'s' if most != 1 else ''}.")
                self._renumber(s, seats)
            touched = [code for code in by_code if code in notes]
            for i, code in enumerate(touched):
                note = notes[code]
                kwargs = {"actor": "facilitator" if by == "facilitator" else "system",
                          "action": {"type": "move", "by": by, "out": note["out"], "in": note["in"]},
                          "log": note["log"]}
                if i < len(touched) - 1:
                    self.tables.stage(s, by_code[code], **kwargs)
                else:
                    self._commit(s, by_code[code], **kwargs)
            result = {sid: {"token_hash": x.token_hash, "table": next(c for c, t in by_code.items()
                                                                      if t.id == x.table_id),
                            "seat": x.seat_index} for sid, x in moved.items()}
        # This process's copy of an ended table still lists the old token at its seat: drop it.
        for code, token_hash in left_ended:
            self.tables.forget(code)
            self.tables._by_token.pop(token_hash, None)
        return result

    def start_class_table(self, code: str, *, computers: int, expected_version: int | None = None):
        """Start a lobby table of a class now, with exactly `computers` computer seats
        (added or removed first, per the class's seating rule)."""
        with self._session() as s:
            table = self.tables._table(s, code)
            if table.status != "lobby":
                raise ServiceError("illegal", "This table has already started.")
            if expected_version is not None and table.version != expected_version:
                raise ServiceError("stale", "The table changed meanwhile. Here it is now.")
            spec = engines.spec(table.game)
            lo, hi = spec.seat_range(table.options)
            seats = self.tables._seats(s, table)
            students = [x for x in seats if not x.computer]
            bots = [x for x in seats if x.computer]
            if not students:
                raise ServiceError("illegal", "No student sits at this table.")
            if len(students) + computers > hi:
                raise ServiceError("table_full", f"A table seats at most {hi} players.")
            if len(students) + computers < lo:
                raise ServiceError("illegal", f"{spec.title} needs at least {lo} players; add a "
                                              "computer player or move a student to this table.")
            if len(bots) != computers:
                removed = bots[computers:]
                for seat in removed:
                    self._drop_seat(s, seat)
                added = self._add_computers(s, table, students + bots[:computers], computers - len(bots)) \
                    if computers > len(bots) else []
                self._renumber(s, students + bots[:computers] + added)
                self._commit(s, table, actor="facilitator",
                             action={"type": "computers", "added": [x.name for x in added],
                                     "removed": [x.name for x in removed]},
                             log=[{"t": "join", "seat": x.seat_index, "text": f"{x.name} joined as a computer player."}
                                  for x in added] +
                                 [{"t": "leave", "text": f"{x.name} left the table."} for x in removed])
            version = table.version
        return self.tables.start_now(code, expected_version=version)

    def _commit(self, s: Session, table: GameTable, **change) -> int:
        version = self.tables.stage(s, table, **change)
        self.tables.commit(s)
        return version

    # ------------------------------------------------------------- join
    def join_any(self, code: str, name: str) -> dict:
        """`join` with a table code or a class code; returns {seat, token, table}."""
        klass = self.find(code)
        if klass is None:
            return self.tables.join(code, name)
        if klass.status == "ended":
            raise ServiceError("game_over", "This class session has ended.")
        try:
            name = clean_name(name)
            if klass.name_filter:  # here too, before a table is opened for it (seat_student checks again)
                check_polite(name)
        except InputError as exc:
            raise ServiceError("bad_request", str(exc))
        rule, size = self.rule(klass), self.table_size(klass)

        def attempt():
            klass = self.get(code)
            rows = self._read(klass)
            if any(name_key(x.name) == name_key(name) for r in rows for x in r["seats"] if not x.computer):
                raise ServiceError("name_taken", f"Someone in this class is already called {name}. "
                                                 "Add an initial or pick another name.")
            layout, lobby = self._layout(rows)
            index = seating.place(layout, rule, size)
            if index is None and len(rows) >= self.tables_max and not self._spare(rows):
                raise ServiceError("table_full", f"This class already has {self.tables_max} tables, the most a "
                                                 "class can have, so there is no seat for you. Tell your teacher.")
            table_code = lobby[index]["table"].code if index is not None else self._new_table(klass, rows)
            computers = rule.solo_computers if size == seating.SOLO else 0
            return self.class_join(table_code, name, class_id=klass.id, class_version=klass.version,
                                   computers=computers)

        return self._settle(attempt)

    # ----------------------------------------------------- before start
    @staticmethod
    def _row(rows: list[dict], table_code) -> dict:
        row = next((r for r in rows if r["table"].code == table_code), None)
        if row is None:
            raise ServiceError("unknown_table", "There is no table with that code in this class.")
        return row

    def move(self, facilitator_id: int, code: str, table_code, seat, to, version=None) -> dict:
        """Move the student in `seat` of table `table_code` to lobby table `to` (a table
        code, or "new" for a new table). The source is a table that has not started yet,
        or one whose match has ended (re-pairing for the next match: see `move_seats`);
        a match being played keeps its players. `version`, when given, is the source
        table's version the facilitator saw: a seat number from an older view is refused
        as stale. Returns {"changed": [table codes], "moved": {seat id: {token_hash, table, seat}}}."""
        if not isinstance(table_code, str) or not isinstance(to, str):
            raise ServiceError("bad_request", "Send {table, seat, to}: to is a table code or \"new\".")
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise ServiceError("bad_request", "seat must be the student's seat number.")
        if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
            raise ServiceError("bad_request", "version must be the table version shown on the overview.")
        klass = self.owned(code, facilitator_id)
        if klass.status == "ended":
            raise ServiceError("game_over", "This class session has ended.")
        rule, size = self.rule(klass), self.table_size(klass)
        to = to.strip().upper() if to.strip().lower() != "new" else "new"

        def attempt():
            klass = self.get(code)
            rows = self._read(klass)
            source = self._row(rows, table_code.strip().upper())
            ended = source["table"].status == "ended"
            if source["table"].status == "playing":
                raise ServiceError("illegal", PLAYING_MOVE)
            if version is not None and source["table"].version != version:
                raise Final(ServiceError("stale", "That table changed meanwhile; look at the overview again."))
            student = next((x for x in source["seats"] if x.seat_index == seat), None)
            if student is None or student.computer:
                raise ServiceError("bad_request", "There is no student in that seat.")
            if student.moved_to is not None:
                raise ServiceError("illegal", f"{student.name} has already moved on to another table.")
            layout, lobby = self._layout(rows)
            if ended:  # seating checks the target as for a move between lobby tables
                layout.append(seating.Table(key=source["table"].code, students=[seating.Student(student.id)]))
            to_index = None
            if to != "new":
                target = self._row(rows, to)
                if target["table"].status != "lobby":
                    raise ServiceError("illegal", "Students can only be moved to a table that has not started yet.")
                to_index = lobby.index(target)
            try:
                seating.check_move(layout, rule, size, student.id, to_index)
            except seating.SeatingError as exc:
                raise ServiceError("table_full" if "full" in str(exc) else "bad_request", str(exc))
            to_code = lobby[to_index]["table"].code if to_index is not None else self._new_table(
                klass, [r for r in rows if r is not source])
            try:
                moved = self.move_seats([(student.id, to_code)], by="facilitator", class_id=klass.id,
                                        class_version=klass.version)
            except ServiceError as exc:
                if exc.code == "stale" and version is not None:  # the facilitator's view is out of date
                    raise Final(exc)
                raise
            if size == seating.SOLO:
                self._give_solo_computers(to_code, rule)
            return {"changed": [source["table"].code, to_code], "moved": moved}

        return self._settle(attempt)

    def _give_solo_computers(self, table_code: str, rule: seating.SeatingRule) -> None:
        # A solo student can start only once the computer opponent sits down.
        def attempt():
            while sum(x.computer for x in self.tables.seats(table_code)) < rule.solo_computers:
                self.add_computer_seat(table_code)

        self._settle(attempt)

    def add_computer(self, facilitator_id: int, code: str, table_code) -> dict:
        """A computer player takes a free chair of a lobby table (so a short table can start)."""
        if not isinstance(table_code, str):
            raise ServiceError("bad_request", "Send the table's code.")
        klass = self.owned(code, facilitator_id)
        rule, size = self.rule(klass), self.table_size(klass)

        def attempt():
            klass = self.get(code)
            row = self._row(self._read(klass), table_code.strip().upper())
            if row["table"].status != "lobby":
                raise ServiceError("illegal", "Computer players can only be added before the table starts.")
            if not any(not x.computer for x in row["seats"]):
                raise ServiceError("illegal", "No student sits at that table yet.")
            limit = seating.seats_per_table(rule, size)
            if len(row["seats"]) >= limit:
                raise ServiceError("table_full", f"That table already has {limit} players.")
            self.add_computer_seat(row["table"].code, class_id=klass.id, class_version=klass.version)
            return {"changed": [row["table"].code]}

        return self._settle(attempt)

    # -------------------------------------------------------------- start
    def _computers_for(self, klass: ClassSession, row: dict) -> int:
        """How many computer seats a lobby table starts with, by the class's seating rule."""
        rule, size = self.rule(klass), self.table_size(klass)
        students = sum(not x.computer for x in row["seats"])
        have = sum(x.computer for x in row["seats"])
        needed = seating.computers_needed(rule, size, klass.fill_with_computer, students)
        # Computers the facilitator added by hand stay, as long as the table has room for them.
        return max(needed, min(have, seating.seats_per_table(rule, size) - students))

    def _start_row(self, klass: ClassSession, table_code: str):
        """Start one lobby table with its computers: its Outcome, None if it had already started."""
        def attempt():
            row = next(r for r in self._read(klass) if r["table"].code == table_code)
            if row["table"].status != "lobby":
                return None
            return self.start_class_table(table_code, computers=self._computers_for(klass, row),
                                          expected_version=row["table"].version)

        return self._settle(attempt, "A table is very busy; please try again.")

    def start(self, facilitator_id: int, code: str) -> dict:
        """Balance the lobby tables and start them all.

        Returns {"changed": [every table touched], "started": [tables started], "moved": {…}}."""
        klass = self.owned(code, facilitator_id)
        if klass.status == "ended":
            raise ServiceError("game_over", "This class session has ended.")
        rule, size = self.rule(klass), self.table_size(klass)

        def balance():
            """Move students to even the tables out; returns (klass, table codes, plan, moved)."""
            klass = self.get(code)
            rows = self._read(klass)
            layout, _lobby = self._layout(rows, with_pins=True)
            if not any(t.students for t in layout):
                if not any(r["table"].status != "lobby" for r in rows):
                    raise ServiceError("illegal", "No student has joined yet. Start when the class is seated.")
                return klass, [], None, {}  # every table has already started: nothing to do
            plan = seating.balance(layout, rule, size, klass.fill_with_computer)
            codes = [t.key for t in layout]
            spare = [r for r in rows if r["table"].status == "lobby" and not r["seats"]
                     and not r["table"].locked and r["table"].code not in codes]
            for _k in range(plan.new_tables):
                codes.append(spare.pop(0)["table"].code if spare else self._new_table(klass, []))
            moves = [(student_key, codes[to]) for student_key, _from, to in plan.moves]
            moved = self.move_seats(moves, by="balance", class_id=klass.id, class_version=klass.version)
            return klass, codes, plan, moved

        klass, codes, plan, moved = self._settle(balance)
        changed: list[str] = []
        outcomes = []
        if plan is not None:
            changed += sorted({codes[i] for _k, f, t in plan.moves for i in (f, t)})
            for i, students in enumerate(plan.final):
                outcome = self._start_row(klass, codes[i]) if students else None
                if outcome is not None:
                    outcomes.append(outcome)
        self._set_status(klass.id, "playing")
        started = [o.code for o in outcomes]
        return {"changed": list(dict.fromkeys(changed + started)), "started": started, "moved": moved,
                "outcomes": outcomes}

    def start_table(self, facilitator_id: int, code: str, table_code) -> dict:
        """Start one lobby table now (with computer players where the seating rule calls for them)."""
        if not isinstance(table_code, str):
            raise ServiceError("bad_request", "Send the table's code.")
        klass = self.owned(code, facilitator_id)
        row = self._row(self._read(klass), table_code.strip().upper())
        if row["table"].status != "lobby":
            raise ServiceError("illegal", "That table has already started.")
        outcome = self._start_row(klass, row["table"].code)
        return {"changed": [row["table"].code], "outcomes": [outcome] if outcome else []}

    def _set_status(self, class_id: int, status: str) -> None:
        with self._session() as s:
            s.execute(update(ClassSession).where(ClassSession.id == class_id)
                      .values(status=status, version=ClassSession.version + 1))
            s.commit()

    # ----------------------------------------------------- steer tables
    def moderate(self, facilitator_id: int, code: str, kind: str, table_code=None) -> dict:
        """Pause, resume or end one table of the class (`table_code`) or all of them.

        For all tables, those where the action does not apply are skipped (pausing
        all pauses the tables that are playing); ending all also closes the class
        to late arrivals. Returns {"changed": [table codes], "outcomes": [their Outcomes]}.
        """
        if kind not in ("pause", "resume", "end"):
            raise ServiceError("bad_request", "The action is pause, resume or end.")
        if table_code is not None and not isinstance(table_code, str):
            raise ServiceError("bad_request", "table must be a table code (or absent for every table).")
        klass = self.owned(code, facilitator_id)
        rows = self._read(klass)
        if table_code is not None:
            targets = [self._row(rows, table_code.strip().upper())]
        else:
            # Ending everything also ends spare empty tables so no one can join them later.
            targets = rows if kind == "end" else self._visible(rows)

        def applies(t: GameTable) -> bool:
            if kind == "pause":
                return t.status == "playing" and not t.paused
            if kind == "resume":
                return t.status != "ended" and t.paused
            return t.status != "ended"

        if table_code is not None and not applies(targets[0]["table"]):
            t = targets[0]["table"]
            reason = {"pause": "is not playing" if t.status != "playing" else "is already paused",
                      "resume": "is not paused", "end": "has already ended"}[kind]
            raise ServiceError("illegal", f"That table {reason}.")
        outcomes = []
        for row in targets:
            def attempt(table_code=row["table"].code):
                t = self.tables.get(table_code)
                if not applies(t):
                    return None
                try:
                    return self.tables.moderate(facilitator_id, t.code, t.version, {"type": kind})
                except ServiceError as exc:
                    if exc.code == "game_over":
                        return None
                    raise

            outcome = self._settle(attempt)
            if outcome is not None:
                outcomes.append(outcome)
        if kind == "end" and table_code is None:
            self._set_status(klass.id, "ended")
        return {"changed": [o.code for o in outcomes], "outcomes": outcomes}

    @staticmethod
    def clean_message(raw) -> str:
        if not isinstance(raw, str):
            raise ServiceError("bad_request", "Type a message for the class.")
        text = " ".join(raw.split())
        text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
        if not text:
            raise ServiceError("bad_request", "Type a message for the class.")
        if len(text) > MESSAGE_MAX:
            raise ServiceError("bad_request", f"Messages can be at most {MESSAGE_MAX} characters "
                                              f"(this one has {len(text)}).")
        return text

    def student_seats(self, code: str) -> list[str]:
        """The token hash of every student seat at every table of the class."""
        klass = self.get(code)
        return [x.token_hash for r in self._read(klass) for x in r["seats"] if not x.computer]

    # ------------------------------------------------------------ views
    def summary(self, code: str) -> dict:
        """The JSON API's description of a class: its tables, each with its code and seats."""
        klass = self.get(code)
        connected = self.tables.connected
        rows = self._visible(self._read(klass))
        tables = []
        for r in rows:
            t = r["table"]
            engine = engines.get(t.game)
            tables.append({
                "code": t.code, "number": r["number"], "status": t.status, "paused": t.paused,
                "locked": t.locked, "version": t.version, "board_url": f"/board/{t.code}",
                "seats": [{"seat": x.seat_index, "name": x.name, "computer": x.computer,
                           "connected": connected(x.token_hash), "moved": x.moved_to is not None}
                          for x in r["seats"]],
                "result": engine.result(t.state) if t.state is not None else None})
        return {"code": klass.code, "game": klass.game, "title": engines.spec(klass.game).title,
                "status": klass.status, "version": klass.version, "options": klass.options,
                "table_size": self.table_size(klass), "fill_with_computer": klass.fill_with_computer,
                "students": sum(not x["computer"] and not x["moved"] for t in tables for x in t["seats"]),
                "created_at": _utc(klass.created_at).isoformat(), "tables": tables}

    def _away_seconds(self, token_hash: str, connected: bool, now: float) -> float | None:
        with self._away_lock:
            if connected:
                self._away_since.pop(token_hash, None)
                return None
            since = self._away_since.setdefault(token_hash, now)
            return now - since

    def _facts(self, klass: ClassSession, *, facilitator: bool = False) -> list[TableFacts]:
        """Every table's facts. With `facilitator`, also what the game asks of the teacher
        (its facilitator actions and view): the projected board never computes those."""
        connected = self.tables.connected
        now_wall = time.time()
        now = datetime.now(timezone.utc)
        out = []
        for r in self._visible(self._read(klass)):
            t = r["table"]
            engine = engines.get(t.game)
            board = engine.view(t.state, "board") if t.state is not None else None
            public = board["public"] if board is not None else None
            players = []
            for x in r["seats"]:
                online = connected(x.token_hash)
                away = None if x.computer else self._away_seconds(x.token_hash, online, now_wall)
                players.append({"seat": x.seat_index, "name": x.name, "computer": x.computer,
                                "connected": online, "away_seconds": away,
                                # re-seated at a new table after this match ended: this row is its record
                                "moved": x.moved_to is not None})
            facts = TableFacts(klass=klass, table=t, number=r["number"], seats=r["seats"], players=players,
                               public=public, result=engine.result(t.state) if t.state is not None else None,
                               idle_seconds=(now - r["last_at"]).total_seconds() if r["last_at"] else None,
                               prompt=board.get("prompt") if board is not None else None)
            teacher_public = None
            if facilitator and t.state is not None and t.status == "playing":
                facts.decisions = engine.actions(t.state, "facilitator")
                if facts.decisions:
                    teacher = engine.view(t.state, "facilitator")
                    teacher_public = teacher["public"]
                    facts.decision_prompt = (teacher.get("prompt") or {}).get("text", "")
            figures = engines.spec(t.game).figures
            facts.figures = figures({"public": public, "players": [dict(p) for p in players],
                                     "result": facts.result, "facilitator": teacher_public}
                                    ) if figures and public is not None else {}
            out.append(facts)
        return out

    @staticmethod
    def _table_view(facts: TableFacts) -> dict:
        """What both overviews show of one table."""
        t = facts.table
        spec = engines.spec(t.game)
        students = [p for p in facts.players if not p["computer"]]
        winners = []
        if facts.result:  # the seats' names as the table knows them (a game's public view may not list players)
            names = {p["seat"]: p["name"] for p in facts.players}
            winners = [names.get(s, f"Seat {s + 1}") for s in facts.result["winners"]]
        turn = facts.figures.get("turn")
        if t.status == "lobby":
            need = max(0, spec.seat_range(t.options)[0] - len(facts.players))
            turn = {"text": f"Waiting for {need} more player{'s' if need != 1 else ''}" if need
                    else f"Ready: {facts.players[0]['name']} can start ({spec.start_label})" if not facts.players[0]["computer"]
                    else "Ready to start"}
        return {"number": facts.number, "status": t.status, "paused": t.paused,
                "players": [{"seat": p["seat"], "name": p["name"], "computer": p["computer"],
                             "connected": p["connected"]} for p in facts.players],
                "students": len(students), "connected": sum(p["connected"] for p in students),
                "moved": sum(p.get("moved", False) for p in students),
                "progress": facts.figures.get("progress"), "turn": turn,
                "lines": [str(x) for x in facts.figures.get("lines", [])][:LINES_MAX],
                "result": ({"winners": winners, "reason": facts.result["reason"]} if facts.result else None)}

    @staticmethod
    def _leaders(facts_list: list[TableFacts]) -> list[dict]:
        """Every player with a score, best first, ranked across tables (ties share a rank)."""
        entries = []
        for facts in facts_list:
            winners = set(facts.result["winners"]) if facts.result else set()
            for score in facts.figures.get("scores", []):
                player = next((p for p in facts.players if p["seat"] == score["seat"]), None)
                if player is None:
                    continue
                entries.append({"name": player["name"], "computer": player["computer"], "table": facts.number,
                                "score": score["score"], "label": score["label"], "out": score.get("out", False),
                                "winner": score["seat"] in winners})
        entries.sort(key=lambda e: (-e["score"], e["table"], e["name"]))
        rank = 0
        for i, e in enumerate(entries):
            if i == 0 or e["score"] != entries[i - 1]["score"]:
                rank = i + 1
            e["rank"] = rank
        return entries

    @staticmethod
    def _standings(facts_list: list[TableFacts]) -> dict:
        """The games' own leader-board rows (figures "standings"), best first across tables:
        {"columns": [labels], "rows": [{rank, name, table, cells: [values], finished}]}
        (ties on rank_key share a rank)."""
        rows, columns = [], []
        for facts in facts_list:
            for item in facts.figures.get("standings", []) or []:
                player = next((p for p in facts.players if p["seat"] == item.get("seat")), None)
                if player is None or not isinstance(item.get("rank_key"), list):
                    continue
                cells = [{"label": str(c.get("label", "")), "value": str(c.get("value", ""))}
                         for c in item.get("columns", []) if isinstance(c, dict)]
                if not columns:
                    columns = [c["label"] for c in cells]
                rows.append({"name": player["name"], "table": facts.number, "key": list(item["rank_key"]),
                             "cells": [c["value"] for c in cells], "finished": facts.table.status == "ended"})
        rows.sort(key=lambda r: ([-x for x in r["key"]], r["table"], r["name"]))
        rank = 0
        for i, r in enumerate(rows):
            if i == 0 or r["key"] != rows[i - 1]["key"]:
                rank = i + 1
            r["rank"] = rank
        for r in rows:
            del r["key"]
        return {"columns": columns, "rows": rows}

    def overview(self, code: str) -> dict:
        """The facilitator's live overview: every table with status, players (connected
        or not), turn, time since the last move and alerts; the class leader board."""
        klass = self.find(code)
        if klass is None:
            return {}
        facts_list = self._facts(klass, facilitator=True)
        tables, alerts, queue = [], [], []
        for facts in facts_list:
            t = facts.table
            view = self._table_view(facts)
            if facts.decisions:
                queue.append(self._queue_item(facts))
            table_alerts = [dict(a, table=t.code, number=facts.number)
                            for rule in ALERT_RULES for a in rule(facts)]
            table_alerts += [dict(a, table=t.code, number=facts.number) for a in facts.figures.get("alerts", [])]
            alerts += table_alerts
            has_students = any(not p["computer"] for p in facts.players)
            view.update({
                "code": t.code, "version": t.version, "locked": t.locked,
                "idle_seconds": int(facts.idle_seconds) if facts.idle_seconds is not None else None,
                "players": [dict(p, away_seconds=int(p["away_seconds"]) if p["away_seconds"] is not None else None)
                            for p in facts.players],
                "alerts": table_alerts,
                "board_url": f"/board/{t.code}", "moderate_url": f"/facilitator/tables/{t.code}",
                "can": {"start": t.status == "lobby" and has_students,
                        "add_computer": t.status == "lobby" and has_students and len(facts.players)
                        < seating.seats_per_table(self.rule(klass), self.table_size(klass)),
                        # students move from a waiting table, or from a finished match to the next one,
                        # always to a waiting table (`move_here`) or a new one
                        "move": klass.status != "ended" and (t.status == "lobby" or t.status == "ended" and any(
                            not p["computer"] and not p["moved"] for p in facts.players)),
                        "move_here": klass.status != "ended" and t.status == "lobby",
                        "pause": t.status == "playing" and not t.paused,
                        "resume": t.status != "ended" and t.paused,
                        "end": t.status != "ended"},
            })
            tables.append(view)
        students = sum(t["students"] - t["moved"] for t in tables)  # a re-seated student counts once
        return {
            "code": klass.code, "game": klass.game, "title": engines.spec(klass.game).title,
            "status": klass.status, "version": klass.version, "table_size": self.table_size(klass),
            "fill_with_computer": klass.fill_with_computer, "now": utcnow().isoformat(),
            "idle_after": IDLE_SECONDS, "away_after": AWAY_SECONDS, "message_max": MESSAGE_MAX,
            "counts": {"students": students, "connected": sum(t["connected"] for t in tables),
                       "tables": len(tables), "lobby": sum(t["status"] == "lobby" for t in tables),
                       "playing": sum(t["status"] == "playing" for t in tables),
                       "ended": sum(t["status"] == "ended" for t in tables)},
            "tables": tables, "alerts": alerts, "queue": queue, "leaders": self._leaders(facts_list),
            "standings": self._standings(facts_list),
        }

    @staticmethod
    def _queue_item(facts: TableFacts) -> dict:
        """One decision a table's game waits for from the teacher, for the moderation
        queue: what is asked, the details the game's figures give (`queue`), and the
        game's labelled facilitator actions, sent back with the `moderate` event
        (scope "game") and this version."""
        t = facts.table
        details = [{"title": str(d.get("title", "")), "detail": str(d.get("detail", "")),
                    "quote": d.get("quote") if isinstance(d.get("quote"), str) else None}
                   for d in facts.figures.get("queue", []) if isinstance(d, dict)]
        return {"table": t.code, "number": facts.number, "version": t.version, "paused": t.paused,
                "prompt": facts.decision_prompt, "details": details, "actions": list(facts.decisions),
                "moderate_url": f"/facilitator/tables/{t.code}"}

    def public_overview(self, code: str) -> dict:
        """The projected class board: public information only (no alerts, timings or codes)."""
        klass = self.find(code)
        if klass is None:
            return {}
        facts_list = self._facts(klass)
        tables = [self._table_view(f) for f in facts_list]
        return {"code": klass.code, "game": klass.game, "title": engines.spec(klass.game).title,
                "status": klass.status,
                "counts": {"students": sum(t["students"] - t["moved"] for t in tables), "tables": len(tables),
                           "ended": sum(t["status"] == "ended" for t in tables)},
                "tables": tables, "leaders": self._leaders(facts_list)[:LEADERS_ON_BOARD],
                "standings": self._standings(facts_list)}
