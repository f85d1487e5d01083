"""The variant interface: how War's modes and controls hang on the battle core.

engine.py plays Classic War and, at fixed points of a battle, asks each
variant in `engine.VARIANTS` (Wager Battle, Power War, the player controls)
what it adds. A variant is a `Variant` subclass that overrides only the hooks
it needs; every hook's default leaves Classic War as it is. A variant keeps
its own part of the state under its own key (`"wager"`, `"powers"`, the
controls' `"computers"`, `"held"`, `"restarts"`), so a Classic state never
grows one.

The core asks the variants in list order (the computer player, in
`engine.BOT_ORDER`). `in_play(s)` (its `state_key` is in the state) decides whether a
variant takes part in a state at all; the move hooks (`moves`, `check_move`,
`apply`) belong to whichever variant owns the move's type, in play or not, so
that it can refuse the move in its own words ("There are no chips in this
game."). The computer player's hook (`bot`) sees only a view, so each variant
decides from the view whether it has anything to say.

A variant that takes part in a battle's resolution (a fold that ends a war, a
counter window that decides when a stage resolves, a bankrupt player's cards)
calls back into the battle core through the `BattleCore` it is built with:
variants import core.py and variant.py only, never engine.py, so the package
has no import cycle.

The solo runs (runs.py) are not a variant: a run wraps one match after
another, each a plain engine.py state, and game.py hands a run's moves to
runs.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class BattleCore:
    """engine.py's battle steps that a variant calls back (engine.py builds one)."""
    new: Callable[[dict, list, int], dict]            # a fresh match (a restart)
    copy_state: Callable[[dict], dict]                # the copy `apply` works on
    waiting: Callable[[dict], list]                   # the seats that owe a reveal now
    resolve_stage: Callable[[dict], list]             # everyone has revealed: compare the cards
    take_pot: Callable[[dict, int], list]             # a seat wins the battle's pot
    finish_battle: Callable[[dict], list]             # knock-outs, the end, the next battle
    end_game: Callable[[dict, str], list]             # the game ends now, for this reason


class Variant:
    """A mode or control of War: every hook's default is Classic War's behaviour.

    In the battle and move hooks `s` is the copy the core is changing (the hook
    may change it too); the action, view, prompt and timer hooks only read it.
    A hook that returns a list of dicts returns log entries, unless it lists
    actions or timers.
    """
    # Move types this variant owns -> the exact fields of each (the core checks
    # them before anything else, then calls `check_move` and `apply`).
    moves: dict[str, set[str]] = {}
    # The log entry kinds this variant emits (engine.LOG_KINDS lists them all).
    log_kinds: tuple[str, ...] = ()

    def __init__(self, battle_core: BattleCore):
        self.battle_core = battle_core   # the battle steps this variant may call back

    # The state key its part lives under: it takes part in a state that has the key
    # (None: in every state). The core looks this up once per state shape, not per call.
    state_key: str | None = None

    def in_play(self, s: dict) -> bool:
        """This variant takes part in this state (its key is there). Set `state_key`
        rather than override this: the core caches the answer per set of keys present."""
        return self.state_key is None or self.state_key in s

    # -- setting up and each battle ----------------------------------------

    def on_deal(self, s: dict, computers: list[int]) -> None:
        """A new state, before its first battle starts: add this variant's part
        if the options call for it (`computers`: the seats the platform filled
        with computer players)."""

    def copy_into(self, source: dict, target: dict) -> None:
        """Deep-copy this variant's part of `source` into `target` (the core's
        field-by-field state copy)."""

    def battle_stakes(self, s: dict) -> list[dict]:
        """A battle starts (before the repeat check): what everyone puts at stake."""
        return []

    def on_battle(self, s: dict) -> list[dict]:
        """A battle has started and the game goes on (after the repeat check)."""
        return []

    # -- reveals and the resolution ----------------------------------------

    def blocks_reveals(self, s: dict) -> bool:
        """Nobody owes a reveal now (something else comes first, e.g. bets)."""
        return False

    def before_reveal(self, s: dict, seat: int) -> None:
        """Refuse `seat`'s reveal (raise IllegalAction) when this variant stands in the way."""

    def after_reveal(self, s: dict, seat: int) -> list[dict] | None:
        """`seat` has revealed. None: the core resolves the stage once nobody
        owes a reveal. A list: this variant has taken over when the stage
        resolves (it calls `self.battle_core.resolve_stage` itself) and these are its entries."""
        return None

    def battle_ranks(self, s: dict, ranks: dict) -> dict:
        """The participants' ranks that decide the stage (seat -> rank)."""
        return ranks

    def break_tie(self, s: dict, tied: list[int]) -> tuple[list[int], list[dict]]:
        """Two or more tie for the highest rank: who is still tied, and the entries."""
        return tied, []

    def on_war(self, s: dict, seats: list[int]) -> list[dict]:
        """A war stage starts among `seats` (two or more who can put up their cards)."""
        return []

    def on_carry(self, s: dict) -> list[dict]:
        """Nobody won the pot: it stays for the next battle."""
        return []

    def before_take(self, s: dict, winner: int) -> list[dict]:
        """`winner` is about to take the pot (it may still change)."""
        return []

    def on_take(self, s: dict, winner: int) -> list[dict]:
        """`winner` has taken the pot's cards (the pot is not cleared yet)."""
        return []

    def after_take(self, s: dict, winner: int) -> list[dict]:
        """The pot is taken and cleared."""
        return []

    def on_time_up(self, s: dict, active: list[int]) -> list[dict]:
        """The match clock ran out mid-battle; `active` are the players still in."""
        return []

    def on_end(self, s: dict, result: dict) -> list[dict]:
        """The game ends with `result` (which this hook may amend, e.g. its scores)."""
        return []

    # -- moves ---------------------------------------------------------------

    def check_move(self, action: dict) -> None:
        """Refuse a malformed move of this variant's own (its fields are already checked)."""

    def apply(self, s: dict, seat: int, action: dict) -> list[dict]:
        """One of this variant's own moves, by a seat still in the game."""
        raise NotImplementedError

    def actions(self, s: dict, seat: int) -> list[dict]:
        """`seat`'s moves of this variant, listed after the reveal."""
        return []

    def controls(self, s: dict, seat: int) -> list[dict]:
        """`seat`'s moves listed last, after auto-play (pausing, restarting)."""
        return []

    def after_autoplay(self, s: dict, seat: int) -> list[dict]:
        """`seat` changed its auto-play speed."""
        return []

    # -- pausing: asked before anything else ----------------------------------

    def paused_actions(self, state: dict, seat) -> list[dict] | None:
        """What `seat` may do while this variant holds its play up (None: it plays as usual)."""
        return None

    def takes_move(self, state: dict, seat: int, kind: str) -> bool:
        """This variant applies `seat`'s move itself (`apply_taken`), before the core looks at it."""
        return False

    def apply_taken(self, state: dict, seat: int, action: dict) -> tuple[dict, list[dict]]:
        """A move `takes_move` claimed; `state` is NOT copied yet."""
        raise NotImplementedError

    def paused_prompt(self, s: dict, viewer) -> dict | None:
        """The prompt while this variant holds play up (None: not held)."""
        return None

    # -- views, prompts, timers and the computer player -----------------------

    def prompt(self, s: dict, viewer) -> dict | None:
        """What the game waits for, when it waits for this variant (None: the core says)."""
        return None

    def public(self, s: dict, public: dict) -> None:
        """Add to (or amend) the public part of a view."""

    def private(self, s: dict, seat: int, private: dict) -> None:
        """Add to `seat`'s private part of its view."""

    def clock(self, s: dict, timers: list[dict]) -> list[dict]:
        """The match clock's timers as `timers()` lists them."""
        return timers

    def deadlines(self, s: dict) -> list[dict]:
        """Timers that move the game on when someone takes too long."""
        return []

    def autoplay_timers(self, s: dict, delays: dict) -> list[dict]:
        """Timers for this variant's moves that auto-play makes (`delays`: speed -> seconds)."""
        return []

    def bot(self, view: dict, actions: list[dict], rng) -> dict | None:
        """The computer's move for this variant, from its own view only (None: nothing to say)."""
        return None
