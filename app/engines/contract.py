"""The engine contract every game implements (see shared/DESIGN.md).

An engine is a module (or object) exposing pure functions over plain,
JSON-serialisable data:

    new(options, seats, seed) -> state
    actions(state, viewer) -> [action, ...]
    apply(state, actor, action) -> (state, log_entries)
    view(state, viewer) -> {"public": {...}, "private": {...}}
    bot(state, seat) -> action
    result(state) -> None | {"winners", "ranking", "scores", "reason"}

plus the metadata the platform needs (KEY, TITLE, MIN_SEATS, MAX_SEATS,
OPTIONS, RULINGS, VERSION). `viewer` is a seat index (int), "board" or
"facilitator". Engines import nothing from Flask, Socket.IO or the database.

Randomness comes only from `Rng`, whose whole state is one integer kept
inside the game state, so (options, seats, seed, actions) reproduces a game.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

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


def entry_visible(entry: dict, viewer) -> bool:
    allowed = entry.get("visible_to")
    return allowed is None or viewer in allowed


def clone(state: dict) -> dict:
    """Engines work on a copy so a raised IllegalAction never mutates the input."""
    return copy.deepcopy(state)


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
