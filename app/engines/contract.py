"""The engine contract every game implements (see shared/DESIGN.md).

A game is one package under app/engines/<key>/ (or any importable package
registered with `app.engines.register`). The package exposes a `GAME`
(a `GameSpec`: everything the platform knows about the game) and pure
functions over plain, JSON-serialisable data:

    new(options, seats, seed) -> state
    actions(state, viewer) -> [action, ...]          each with a readable "label"
    apply(state, actor, action) -> (state, log_entries)
    view(state, viewer) -> {"public", "private", "prompt"}
    bot(view, actions, rng) -> action | None         sees only its own seat
    result(state) -> None | {"winners", "ranking", "scores", "reason"}

and, optionally:

    finish(state, cause="teacher") -> (state, log_entries)   the game ends early and
        ranks the players by its stated tie-break: the teacher ended it ("teacher"),
        or the platform's lesson clock ran out ("lesson_clock", FINISH_CAUSES); for
        the lesson clock the game logs its `<key>.lesson_clock` ruling, which says
        the tie-break in words, and its result's reason says the lesson clock ended it;
        or the platform stopped a game without a teacher that ran too long ("time_limit":
        a demo's brakes, app/service/demo.py), which the game says in its log and its
        result's reason (no ruling: it is not a rules question), never naming a teacher
    upgrade(state) -> state   a snapshot from an earlier engine version, made
        playable (a game in progress survives a server upgrade; its replay is
        then refused, since the versions differ)
    timers(state) -> [{"key", "after", "actor", "action", "pace"?, "held"?}]   deadlines (see Time):
        `after` seconds from the change that first listed `key`; "pace": True marks
        a playing pace (auto-play) rather than a deadline, scaled by BOT_DELAY_SCALE;
        "held": True stops a listed timer where it is (the platform keeps the time it
        had left, as a table pause does) until it is listed again without it.
        Every screen is sent each deadline (not a pace) under its key, for a
        countdown the view names: a key names nothing a seat keeps secret
    views(state, viewers) -> {viewer: view}   the same as `view` of each, built together
        (a change is sent to every seat: a part every viewer sees alike, the public one,
        may be built once and shared between the views; the platform never changes them)

`viewer` is a seat index (int), "board" or "facilitator"; an `actor` is a
seat, "facilitator" or "system" (a fired timer). `prompt` is
{"waiting_for": [seats], "text": "what this viewer is asked, in words"}.
Engines import nothing from Flask, Socket.IO or the database.

Randomness comes only from `Rng`, whose whole state is one integer kept
inside the game state, so (options, seats, seed, actions) reproduces a game.
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any, Callable

import orjson

MASK64 = (1 << 64) - 1


class IllegalAction(Exception):
    """An action the rules do not allow now. `message` is shown to a student."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class Rng:
    """SplitMix64: tiny, fast, and its whole state is one 64-bit integer.

    Usage inside an engine:
        rng = Rng(state["rng"]); rng.shuffle(deck); state["rng"] = rng.state
    """

    def __init__(self, state: int):
        self.state = int(state) & MASK64

    @classmethod
    def from_seed(cls, seed: int | str) -> "Rng":
        if isinstance(seed, str):
            seed = int.from_bytes(seed.encode()[:8].ljust(8, b"\0"), "big") ^ len(seed)
        return cls(int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019)

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) without modulo bias."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def randint(self, a: int, b: int) -> int:
        return a + self.below(b - a + 1)

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: list):
        return items[self.below(len(items))]


def log(t: str, text: str, *, visible_to: list[int] | None = None, **data: Any) -> dict:
    """A structured log entry plus its rendered sentence.

    `visible_to` lists the seats allowed to see an entry that reveals private
    information; None means everyone (board included).
    """
    entry = {"t": t, "text": text, **data}
    if visible_to is not None:
        entry["visible_to"] = list(visible_to)
    return entry


def ruling(ruling_id: str, text: str, **context: Any) -> dict:
    """A `ruling` log entry: the engine applied a provisional/reconstruction ruling."""
    return log("ruling", text, id=ruling_id, **context)


# Why a game ends early through `finish`: the teacher's End, the lesson clock running out,
# or the platform stopping a game without a teacher that ran too long.
FINISH_CAUSES = ("teacher", "lesson_clock", "time_limit")


def finish_cause(cause) -> str:
    """`cause` checked for `finish`: one of FINISH_CAUSES, else a clear refusal."""
    if cause not in FINISH_CAUSES:
        raise IllegalAction("bad_request", f"A game ends early because of one of {list(FINISH_CAUSES)}.")
    return cause


def entry_visible(entry: dict, viewer) -> bool:
    allowed = entry.get("visible_to")
    return allowed is None or viewer in allowed


def clone(state):
    """A deep copy of plain JSON data: engines work on a copy so a raised IllegalAction
    never mutates the input. Engines copy their state on every move and view, so this is
    a round trip through orjson's C code: 1.1 to 2.5 times faster than pickle's on the
    four games' states, and three to ten times faster than `copy.deepcopy` or a copy
    written in Python. What orjson does not encode (an int over 64 bits, a key that is
    not a string) goes through pickle, which copies it exactly."""
    try:
        return orjson.loads(orjson.dumps(state))
    except TypeError:  # orjson.JSONEncodeError is one
        return pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))


@dataclass(frozen=True)
class Option:
    """One table option with its default; `choices` lists the allowed values."""

    key: str
    label: str
    default: Any
    choices: tuple = ()
    help: str = ""

    def to_json(self) -> dict:
        return {"key": self.key, "label": self.label, "default": self.default,
                "choices": list(self.choices), "help": self.help}


def resolve_options(declared: list[Option], given: dict | None) -> dict:
    """Fill defaults and reject unknown keys or values outside `choices`."""
    given = dict(given or {})
    unknown = set(given) - {o.key for o in declared}
    if unknown:
        raise IllegalAction("bad_request", f"Unknown option: {', '.join(sorted(unknown))}.")
    out = {}
    for opt in declared:
        value = given.get(opt.key, opt.default)
        if opt.choices and value not in opt.choices:
            raise IllegalAction("bad_request", f"Option {opt.key} must be one of {list(opt.choices)}.")
        out[opt.key] = value
    return out


def label(action: dict, text: str) -> dict:
    """An action with the sentence a generic control shows for it."""
    return dict(action, label=text)


def strip_label(action: dict) -> dict:
    """The action without its label: what is compared, logged and replayed."""
    return {k: v for k, v in action.items() if k != "label"}


def join_names(names: list[str], nobody: str = "") -> str:
    """'Ana', 'Ana and Ben', 'Ana, Ben and Cara' (`nobody` for an empty list)."""
    if not names:
        return nobody
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def is_seat(names: list, who) -> bool:
    """`who` is a seat index at a table with these player names (a bool is not a seat)."""
    return isinstance(who, int) and not isinstance(who, bool) and 0 <= who < len(names)


def prompt(waiting_for: list[int], text: str) -> dict:
    """Who the game waits for, and what this viewer is asked, in words."""
    return {"waiting_for": list(waiting_for), "text": text}


@dataclass(frozen=True)
class Seating:
    """How a class session seats this game: the table sizes a facilitator may
    choose, the default, the fewest players a table may start with (computers
    make up the rest), and the computer opponents of a solo table (0: no solo)."""

    sizes: tuple[int, ...]
    default: int | str
    minimum: int
    solo_computers: int = 0
    solo_label: str = ""


@dataclass(frozen=True)
class UI:
    """The game's browser modules, paths under static/ (None: the generic
    control renders every labelled action). Each module exports
    `render(root, payload, ctx)` and optionally `onKey(event, payload, ctx)`.
    `icons` is the module of the game's icons: it exports `kindIcon(kind, {cls})`,
    an aria-hidden inline SVG for a card kind (the card gallery draws it beside
    each card's type: the gallery items' "type")."""

    phone: str | None = None
    board: str | None = None
    facilitator: str | None = None
    stylesheet: str | None = None
    icons: str | None = None


@dataclass(frozen=True)
class Upload:
    """Content a teacher may upload for a game (a question bank, say), kept per
    teacher and chosen when creating a table or a class.

    `parse(text) -> (items, errors)` reads the decoded file; `errors` is a list
    of (line, reason), line 0 meaning the whole file. A file with any error is
    refused whole. The chosen bank's items are passed to the game as
    options[`option`] (an option the game declares, default None = its own
    content). `noun` names the items ("questions"); `max_bytes` limits the file.

    `languages`: the items may carry a language (item["language"], a base code
    such as "es", or None for any language). The platform then calls
    `parse(text, languages=codes)` with the codes it has, and a table or class
    gets the items in its language plus the language-less ones, or the whole
    bank when that leaves fewer than `min_items` (the fewest the game can use).
    """

    kind: str
    option: str
    title: str
    parse: Callable
    help: str = ""
    noun: str = "items"
    max_bytes: int = 200_000
    builtin_label: str = "Built-in"
    languages: bool = False
    min_items: int = 1

    def to_json(self) -> dict:
        return {"kind": self.kind, "option": self.option, "title": self.title, "help": self.help,
                "noun": self.noun, "max_bytes": self.max_bytes, "builtin_label": self.builtin_label}


@dataclass(frozen=True)
class Demo:
    """A guided demo anyone may open from the home page, without an account.

    The platform creates a table with these `options`, seats one chair per name in
    `seats` (seat order) and lets the computer play the seats listed in `computers`;
    the other seats (exactly one, before the computers) are the visitor's. It starts
    the game at once and sends the visitor's browser to the phone page. A facilitator
    may create the same table from the dashboard to project it: a phone joining with
    its code takes the visitor's seat, the computers join and the game starts.
    `label` is the button's text, `blurb` one sentence under it.

    The same record declares a game's other *quick starts* (GameSpec.starts: "Play
    against the computer", say): each has its own `key` (a word, unique in the game)
    and button; it is opened from the home page exactly like the guided demo, but
    only the guided demo (GameSpec.demo) is offered to facilitators to project."""

    options: dict
    seats: tuple[str, ...]
    computers: tuple[int, ...]
    label: str = "Try the guided demo"
    blurb: str = ""
    key: str = "demo"
    # Said to a second phone that joins the table with its code: the demo is one person's.
    full: str = "This game is for one player and the computer. Ask your teacher for a table of your own."

    def __post_init__(self):
        humans = self.humans
        if len(humans) != 1 or humans != tuple(range(len(humans))) \
                or any(not 0 <= c < len(self.seats) for c in self.computers):
            raise ValueError("A Demo seats exactly one person, before its computer seats.")

    @property
    def humans(self) -> tuple[int, ...]:
        return tuple(i for i in range(len(self.seats)) if i not in self.computers)


@dataclass(frozen=True)
class Online:
    """An online match of a two-seat game, started from the home page without an account.

    The platform creates a table with these `options` and seats its creator in seat 0;
    the creator gets an invitation link for the opponent (seat 1, once: the match then
    starts) and a private resume link; the opponent gets their own resume link. A resume
    link restores its seat on any device, any number of times. The links carry their
    secret in the URL fragment. `seats` are the default names (a player may type
    another), `noun` names the players in sentences ("the match already has two
    wizards"), and `expiry_days` is how long the game's own `time_up` timer lets a match
    wait for a move (the platform only says so; the game's timers() ends it)."""

    options: dict
    label: str = "Start an online match"
    blurb: str = ""
    seats: tuple[str, str] = ("First player", "Second player")
    noun: str = "players"
    expiry_days: int = 14

    def __post_init__(self):
        if len(self.seats) != 2:
            raise ValueError("An online match has exactly two seats.")


@dataclass(frozen=True)
class Hidden:
    """What a game keeps from its seats in one of its modes, declared by the game so
    that the platform's privacy checks (the engine harness of tests/engines/ and the
    wire check of tests/test_no_leak.py) run over every installed game without naming
    any. A game lists one per mode worth checking (GameSpec.hidden).

    `options`: the table options of a short game of this mode (the checks play many
    random games; the other options take their defaults). `label` names the mode in
    the checks' reports ("" for a game with one mode).
    `secret_ids(state, viewer) -> set`: the card ids `viewer` (a seat, "board" or
    "facilitator") must not receive now, anywhere (views, actions, log); None when no
    id is ever secret (the game hides faces behind ids that say nothing, say).
    `scramble(state, seat, rng) -> state`: a copy of `state` with everything `seat`
    cannot see permuted (other hands, deck order, face-down cards, the generator),
    drawn from `rng` (a `random.Random`); what the seat, the board and the facilitator
    are sent must not change. It never changes the state it is given."""

    scramble: Callable
    secret_ids: Callable | None = None
    options: dict = field(default_factory=dict)
    label: str = ""


@dataclass(frozen=True)
class GameSpec:
    """Everything the platform knows about one game (DESIGN.md "A game is one package").

    `figures(table)` feeds the class overview; `table` is
    {"public": the board view's public part, "players": [{seat, name, computer,
    connected}], "result": result or None}, and it returns any of
    {"progress": {value, goal, label, detail}, "turn": {seats, names, text},
    "scores": [{seat, score, label, out}], "alerts": [{kind, level, text}],
    "lines": [text, ...]} (lines: at most four short public sentences, shown on the
    table's card of the class board and overview).
    A game may also return "standings": [{seat, rank_key: [numbers, larger is better,
    compared in order], columns: [{label, value}]}]: rows of a class leader board
    ranked across tables (a solo run's stage, chips and battles won, say); the
    platform adds the player's name and table and sorts by rank_key.
    For the facilitator's overview only, `table` also holds "facilitator": the
    facilitator view's public part (None on the projected class board), and
    figures may return "queue": [{title, detail, quote}] describing a decision
    waiting for the teacher (it never reaches the class board).
    `uploads` declares content a teacher may upload (see Upload).
    `demo` declares a guided demo (see Demo) and `starts` further quick starts from the
    home page (Demos with their own `key`); `online` declares online matches (see
    Online; only for a game two can play). `gallery()` returns the game's cards
    as plain data for the public card gallery (/games/<key>/cards):
    {"title", "intro", "note"?, "sections": [{"key", "title", "intro"?, "items": [{"name",
    "type", "type_label", "numbers": {label: value}, "text", "science", "note"?}]}]}.
    """

    key: str
    title: str
    blurb: str
    version: str                       # engine version, recorded on every table
    min_seats: int
    max_seats: int
    seating: Seating
    options: tuple = ()                # Option, ...
    presets: dict = field(default_factory=dict)   # name -> {option: value}
    order_free: frozenset = frozenset()            # action types accepted from any version
    bot_levels: tuple = ("standard",)
    data_versions: dict = field(default_factory=dict)  # data file -> version
    rulings: tuple = ()                # [{id, kind, title?, text}]
    figures: Callable | None = None
    key_moments: frozenset = frozenset({"start", "end", "game_over", "kick", "pause"})
    discussion: tuple = ()             # debrief discussion prompts
    # report(ctx) -> the game's own debrief section (see REPORT below); None: the report
    # shows the platform's generic parts only (or the package's `report` module, if any).
    report: Callable | None = None
    # options(options, computer_seats) -> options: what a game changes when the platform
    # has seated computers before the start (a duel may pause before each computer move, say).
    computer_options: Callable | None = None
    start_label: str = "Start the game"
    ui: UI = UI()
    uploads: tuple = ()                # Upload, ...
    demo: Demo | None = None
    gallery: Callable | None = None    # () -> the card gallery's data (see above)
    starts: tuple = ()                 # Demo, ...: more quick starts from the home page
    online: Online | None = None
    # seats_for(options) -> (fewest, most): the players a table with these options takes,
    # within min_seats..max_seats (a mode played alone, say). None: min_seats..max_seats.
    seats_for: Callable | None = None
    # What the game keeps from its seats, one Hidden per mode worth checking (see Hidden).
    hidden: tuple = ()                 # Hidden, ...
    # The log-entry keys that number a moment of this game ("battle" 7, "turn" 3), tried
    # in order: the debrief says when a ruling applied as "move 12, 10:04, Ana, turn 3".
    moment_counters: tuple = ("turn", "round")
    # What the dashboard's game card says beside the players: a lesson's minutes at the
    # default options (bench/game_lengths.py measures them) and the ages it suits.
    minutes: str = ""                  # e.g. "20–30"
    ages: str = ""                     # e.g. "10+"

    def __post_init__(self):
        keys = [d.key for d in self.quick_starts]
        if len(set(keys)) != len(keys) or not all(k.isidentifier() for k in keys):
            raise ValueError(f"{self.key}: every quick start needs its own key (a word).")
        if self.online is not None and not self.min_seats <= 2 <= self.max_seats:
            raise ValueError(f"{self.key}: only a game two can play may declare online matches.")
        labels = [h.label for h in self.hidden]
        if len(set(labels)) != len(labels):
            raise ValueError(f"{self.key}: every mode it hides things in needs its own label.")

    @property
    def quick_starts(self) -> tuple:
        """The guided demo (first) and the other quick starts: every button of the home page."""
        return ((self.demo,) if self.demo is not None else ()) + tuple(self.starts)

    def quick_start(self, key: str) -> "Demo | None":
        return next((d for d in self.quick_starts if d.key == key), None)

    def seat_range(self, options: dict | None = None) -> tuple[int, int]:
        """(fewest, most) players of a table with these options (see `seats_for`)."""
        if self.seats_for is None or options is None:
            return self.min_seats, self.max_seats
        lo, hi = self.seats_for(options)
        return max(lo, self.min_seats), min(hi, self.max_seats)

    def is_demo(self, options: dict | None) -> bool:
        """Whether a table with these options plays the guided demo (one trainee and its computers)."""
        return self.demo is not None and options is not None \
            and all(options.get(k) == v for k, v in self.demo.options.items())

    def upload(self, kind: str) -> "Upload | None":
        return next((u for u in self.uploads if u.kind == kind), None)

    def to_json(self) -> dict:
        return {"key": self.key, "title": self.title, "blurb": self.blurb, "version": self.version,
                "min_seats": self.min_seats, "max_seats": self.max_seats,
                "seats": f"{self.min_seats}\u2013{self.max_seats}" if self.min_seats != self.max_seats
                else str(self.min_seats),
                "options": [o.to_json() for o in self.options], "presets": dict(self.presets),
                "bot_levels": list(self.bot_levels), "data_versions": dict(self.data_versions),
                "order_free": sorted(self.order_free), "uploads": [u.to_json() for u in self.uploads],
                "demo": ({"label": self.demo.label, "blurb": self.demo.blurb} if self.demo else None),
                "starts": [{"key": d.key, "label": d.label, "blurb": d.blurb} for d in self.quick_starts],
                "online": ({"label": self.online.label, "blurb": self.online.blurb} if self.online else None),
                "gallery": self.gallery is not None, "minutes": self.minutes, "ages": self.ages}


REQUIRED_FUNCTIONS = ("new", "actions", "apply", "view", "bot", "result")

# The report hook (GameSpec.report, or a `report` function in the package's `report`
# module): report(ctx) -> dict, every key optional. `ctx` is plain data:
#   {"names": [name per seat], "computers": [seats], "options": {...}, "state": the final
#    state or None, "result": result or None, "engine_version": str,
#    "entries": [log entry + {"version", "at", "actor"}, ...] every entry, private ones
#    included (a report is the teacher's), "events": [{"version", "kind", "actor", "action",
#    "at"}]}
# and it returns
#   {"series": {"label": "Cards held", "unit": "cards", "points": [[version, [value per seat]], ...]},
#    "moments": [{"version", "text"}],            the story in the teacher's words
#    "learning": [{"question", "answer_given", "correct": bool, "answer", "explanation",
#                  "seat", "topic"}],              trivia and the like
#    "learning_noun": ["trivia question", "trivia questions"]   what the learning rows are
#                  (singular, plural): the debrief's heading and the class debrief's count
#                  ("6 trivia questions asked"); default ["question", "questions"],
#    "figures": {"columns": [label, ...], "rows": [{"seat", "values": [...]}]},   per student
#    "votes": [{"seat", "title", "cards", "explanation", "up", "down", "decision",
#               "decided_by", "hidden": bool, "version"}],   explanations the class judged
#    "prompts": [text, ...],                      discussion prompts from what happened
#    "cards": {card id: name} for the card ids its log entries carry (the playtest report
#              groups notes by card),
#    "counts": {label: n} notable events for the playtest report (sudden deaths, say)}
# The hook must cope with log kinds it does not know (a newer engine adds some) and
# with a game that never started (state None, no entries).
