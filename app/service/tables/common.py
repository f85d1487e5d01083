"""What every part of the table service shares: the table as this process knows it
(`Live`), what a change produces (`Outcome`), who a connection speaks for (`SeatRef`),
and the small helpers for actors and input."""
from __future__ import annotations

import functools
import hashlib
import json
import secrets
import threading
from collections import Counter, deque
from dataclasses import dataclass, field
from datetime import datetime

from app import engines
from app.edge.security import InputError
from app.errors import ServiceError

LOG_TAIL = 60          # log entries a viewer gets when it (re)joins

# The platform's moderation accepted from any version the teacher saw (see moderation.py).
VERSION_FREE_MODERATION = frozenset({"lock", "unlock", "pause", "resume", "end", "lesson_more",
                                     "hide_text", "show_text", "approve_text", "notes_on", "notes_off", "again"})
# The teacher's say over student text (app/service/student_text.py): still wanted once the game
# has ended, since the board goes on showing its last view.
TEXT_MODERATION = frozenset({"hide_text", "show_text", "approve_text"})
# Playtest notes from the phones on or off: still wanted once the game has ended, when a
# note about the whole game is most worth writing.
NOTES_MODERATION = frozenset({"notes_on", "notes_off"})
# What comes after a game (app/service/tables/rematch.py): a player asking to play again, and the
# rematch that moved the players on to a new table. Table events of an ended table that are not
# part of its game's record: a report leaves them out (its length, its moves).
AFTER_GAME = frozenset({"again", "rematch"})


class Deals:
    """Each new table's seed, from which its game deals and rolls (the engine's only chance).
    Random by default. With a `base` (the DEAL_SEED setting) a seed is fixed by what the
    table is (its `key`: the game, its options, its language) and by how many tables of that
    key this process opened before: a test, or a bug report, sees the same deals every run,
    however fast the machine, and whatever other kinds of table were opened first (a
    shuffled test order, pytest-randomly, deals each test's tables alike)."""

    def __init__(self, base: str | None = None):
        self.base = base or None
        self._opened: Counter[str] = Counter()
        self._lock = threading.Lock()

    def next(self, *key) -> int:
        if self.base is None:
            return secrets.randbits(62)
        name = json.dumps(key, sort_keys=True, default=str)
        with self._lock:
            n = self._opened[name]
            self._opened[name] += 1
        return int.from_bytes(hashlib.sha256(f"{self.base}:{name}:{n}".encode()).digest()[:8], "big") >> 2


def checked(clean, raw):
    """Run an input cleaner (app/edge/security.py); its complaint becomes a `bad_request`."""
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


def start_options(spec, options: dict, computers: list[int]) -> dict:
    """The options a game starts with: the table's, as the game adjusts them for the
    computer seats the platform filled (recorded in the start event, so replay agrees)."""
    return spec.computer_options(options, computers) if spec.computer_options else options


def people(live: "Live") -> list:
    """The seats asked whether to play again: people still seated (not computers, not removed)."""
    return [x for x in live.seats if not x.computer and not x.kicked]


def guided_demo(live: "Live") -> bool:
    """The table is the game's guided demo (GameSpec.demo), which ends with an invitation."""
    return live.demo and live.spec.is_demo(live.options)


def again_offered(live: "Live") -> bool:
    """Whether this table offers Play again now (app/service/tables/rematch.py): its game was
    played and has ended, nobody has dealt the rematch yet, a person is still seated, and
    it is not the guided demo."""
    return (live.status == "ended" and live.state is not None and live.successor is None
            and bool(people(live)) and not guided_demo(live))


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Lost(Exception):
    """Another process changed the table between our read and our write: reload and retry."""


@dataclass
class SeatInfo:
    id: int
    index: int | None
    name: str
    token_hash: str
    computer: bool
    kicked: bool
    language: str = ""   # what its phone reads ("": not said yet, English; app/i18n)

    @property
    def seat_index(self) -> int | None:
        """As the seat row spells it, so that readers of either (the class overview) need not care."""
        return self.index


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
    # What the row's `next_due_at` holds (as read or last written): a move that leaves it
    # so does not assign it (Moves.write).
    next_due_at: float | None
    facilitator_id: int
    demo: bool                                 # a demo or quick start (app/service/demo.py)
    class_id: int | None
    class_code: str | None
    engine_version: str
    data_versions: dict
    seats: list[SeatInfo]                      # active seats, by index
    name_filter: bool = True                   # refuse rude student text (names and free text alike)
    text_approval: bool = False                # student text waits for the teacher's approval
    phone_notes: bool = True                   # the phones offer the playtest note box
    lesson_minutes: int = 0                    # the lesson clock's length, from the deal (0: none; lesson.py)
    language: str = "en"                       # the board's language (a class table: the class's; app/i18n)
    texts: dict = field(default_factory=dict)  # the student texts of game actions (app/service/student_text.py)
    log: deque = field(default_factory=lambda: deque(maxlen=LOG_TAIL))  # entries with "v"
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    # Per viewer: (version, a digest of what it was last sent) so unchanged views are not re-sent,
    # and the version at which its view last changed (see `Moves.seen_current`).
    sent: dict = field(default_factory=dict)
    changed_at: dict = field(default_factory=dict)
    reloaded: bool = False  # read from the database for the change being made now
    board_view: tuple | None = None  # (state, the board's view of it), computed once per change
    # (state, {viewer: the engine's actions in it}): listed once per state (see `actions`).
    listed: tuple | None = field(default=None, repr=False)
    last_at: datetime | None = None  # when the last event was written (UTC): the class overview's idle time
    # After the game (rematch.py): the seats whose players asked to play again, and the
    # code of the table where everyone plays again once it dealt.
    again: frozenset = frozenset()
    successor: str | None = None

    # A table's game and options never change, so what they decide is looked up once:
    # a move asks for these a dozen times.
    @functools.cached_property
    def spec(self):
        return engines.spec(self.game)

    @functools.cached_property
    def engine(self):
        return engines.get(self.game)

    @functools.cached_property
    def seat_range(self) -> tuple[int, int]:
        """(fewest, most) players of this table, by its options (GameSpec.seat_range)."""
        return self.spec.seat_range(self.options)

    def actions(self, viewer) -> list[dict]:
        """The engine's actions for `viewer` in the current state, asked once per state: a
        change's views list them, and a move sent from an older view is checked against
        them (order-free), as is a teacher's view nobody watches. The list is shared: read it,
        never change it (the engine's lists are plain data; copy before changing)."""
        state = self.state
        listed = self.listed
        if listed is None or listed[0] is not state:  # the state is replaced whole on every change
            listed = self.listed = (state, {})
        found = listed[1].get(viewer)
        if found is None:
            found = listed[1][viewer] = self.engine.actions(state, viewer)
        return found

    def seat(self, index) -> SeatInfo | None:
        for x in self.seats:  # a handful of seats: a loop beats building an index
            if x.index == index:
                return x
        return None


@dataclass
class Outcome:
    """What a change produced: the new version and the payloads to send.

    `views` pairs a viewer key ("board", "facilitator" or ("seat", token hash))
    with its `view` payload; `removed` lists the token hashes of seats removed
    by this change; `next_due` is the table's earliest timer (epoch seconds);
    `follow` holds the outcomes of other tables the change made (a rematch's new
    table), published after this one."""

    code: str
    version: int
    views: list = field(default_factory=list)
    class_code: str | None = None
    removed: list = field(default_factory=list)
    next_due: float | None = None
    follow: list = field(default_factory=list)


@dataclass
class SeatRef:
    """Who a connection speaks for once it has joined or resumed."""

    table: str
    seat: int
    name: str
    token_hash: str = field(repr=False, default="")
