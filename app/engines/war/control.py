"""War's player controls beyond the battle: pausing your own play (`hold`, P or
Escape), playing on (`resume`) and a fresh deal (`restart`, R twice).

engine.py calls the `Controls` variant at the end of this module at a few
hooks (variant.py: the state's shape, `actions`, `apply`, `view`, `timers`);
everything else about the controls lives here.

State (keys present only while in use, so a game nobody pauses or restarts is
exactly the Classic state):

    "computers": [seat, ...]   the seats the platform seated as computers when
                               the game started (GameSpec.computer_options)
    "held": [{"seat", "speed"}, ...]   seats whose play is paused, each with
                               the auto-play speed that resuming restores
    "restarts": n              fresh deals so far (the match clock's key counts them)

A seat whose every other seat is a computer is *alone* with the computers:
its hold pauses the whole match (the clock stands still and the computers get
no actions) and it may restart. At a table with another person a hold pauses
only that seat's own play (its auto-play goes off; the others wait for it, as
they would anyway), and a restart is refused.

Values are only ever replaced whole, never changed in place, so the engine's
field-by-field state copy (`copy_state`) can share them.
"""
from __future__ import annotations

from ..contract import Rng, label, log, prompt, strip_label
from .core import fail, is_out, is_seat, name, names
from .rulings import rule
from .variant import BattleCore, Variant
from ..text import N_

# The option key GameSpec.computer_options adds at the start (never on a form:
# `new` takes it out before the declared options are checked).
COMPUTERS_OPTION = "computer_seats"
FIELDS = {"hold": {"type"}, "resume": {"type"}, "restart": {"type"}}
LOG_KINDS = ("hold", "resume", "restart")


# --------------------------------------------------------------------------
# Who is a computer

def computer_options(options: dict, computers: list[int]) -> dict:
    """GameSpec.computer_options: remember which seats the platform filled with
    computers (recorded in the start event, so a replay agrees)."""
    return dict(options, **{COMPUTERS_OPTION: list(computers)}) if computers else options


def take_computers(options: dict | None) -> tuple[dict | None, list[int]]:
    """The declared options, and the computer seats `computer_options` added."""
    if not isinstance(options, dict) or COMPUTERS_OPTION not in options:
        return options, []
    rest = {k: v for k, v in options.items() if k != COMPUTERS_OPTION}
    seats = options[COMPUTERS_OPTION]
    if not isinstance(seats, list) or not all(type(p) is int for p in seats):
        fail("bad_request", N_("The computer seats must be a list of seat numbers."))
    return rest, sorted(set(seats))


def setup(s: dict, computers: list[int]) -> None:
    """Note the computer seats in a new state (nothing when there are none)."""
    seats = [p for p in computers if 0 <= p < len(s["names"])]
    if seats:
        s["computers"] = seats


def computers(s: dict) -> list[int]:
    return s.get("computers", [])


def alone(s: dict, seat: int) -> bool:
    """Every other seat at the table is a computer."""
    seats = s.get("computers")
    if not seats:  # the usual table, all people: asked for every seat's actions and view
        return False
    others = [p for p in range(len(s["names"])) if p != seat]
    return bool(others) and all(p in seats for p in others)


# --------------------------------------------------------------------------
# Holding

def held(s: dict) -> list[dict]:
    return s.get("held", [])


def holding(s: dict, seat) -> dict | None:
    # Loops, not generators: every seat's view and actions ask on every move.
    for h in s.get("held", ()):
        if h["seat"] == seat:
            return h
    return None


def match_held(s: dict) -> bool:
    """A seat alone with the computers holds: the whole match stands still."""
    if "computers" not in s:  # nobody is alone with the computers (see `alone`)
        return False
    for h in s.get("held", ()):
        if alone(s, h["seat"]):
            return True
    return False


def _set_held(s: dict, entries: list[dict]) -> None:
    if entries:
        s["held"] = sorted(entries, key=lambda h: h["seat"])
    else:
        s.pop("held", None)


# --------------------------------------------------------------------------
# Actions

def blocked_actions(state: dict, viewer) -> list[dict] | None:
    """What a seat may do while the controls stand in the way of play (its own
    hold, the match's hold for a computer, or being out of the game); None when
    the seat plays as usual (engine.actions then adds `actions` below)."""
    if "held" not in state and "computers" not in state:
        return None   # the usual case, kept quick: engine.actions runs on every move
    if not is_seat(state, viewer):
        return None
    if viewer in computers(state) and match_held(state):
        return []
    if holding(state, viewer) is not None:
        return [label({"type": "resume"}, N_("Resume the game") if alone(state, viewer) else N_("Resume your play"))] \
            + _restart(state, viewer)
    if is_out(state, viewer):
        return _restart(state, viewer)
    return None


def actions(state: dict, viewer) -> list[dict]:
    """A seat in play may pause its play, and restart when alone with the computers."""
    return list(_CONTROLS[alone(state, viewer)])


# The controls listed to a seat in play, by whether it is alone with the computers: made
# once (every seat's actions list them on every move; the lists are read, never changed).
_RESTART = label({"type": "restart"}, N_("Restart with a fresh deal"))
_CONTROLS = {
    False: (label({"type": "hold"}, N_("Pause your play")),),
    True: (label({"type": "hold"}, N_("Pause the game")), _RESTART),
}


def _restart(state: dict, viewer) -> list[dict]:
    return [_RESTART] if alone(state, viewer) else []


def handles(state: dict, seat: int, kind: str) -> bool:
    """engine.apply hands this move to `apply` below: a control, or any move
    the controls hold up (a paused seat's, or a computer's while the match is held)."""
    if kind in FIELDS:
        return True
    return holding(state, seat) is not None or (seat in computers(state) and match_held(state))


def apply(state: dict, seat: int, action: dict, battle_core: BattleCore) -> tuple[dict, list[dict]]:
    kind = action["type"]
    if kind not in FIELDS:
        if holding(state, seat) is not None:
            fail("illegal", N_("Your play is paused: resume it first (P, or the Resume button)."))
        fail("not_your_turn", N_("The game is paused."))
    blocked = blocked_actions(state, seat)
    listed = [strip_label(a) for a in (actions(state, seat) if blocked is None else blocked)]
    if action not in listed:
        if kind == "hold":
            fail("illegal", N_("Your play is already paused.") if holding(state, seat) is not None
                  else N_("You are out of the game."))
        if kind == "resume":
            fail("illegal", N_("Your play is not paused."))
        fail("illegal", N_("Only a game against computer players can be restarted: "
                            "someone else is playing at this table."))
    if kind == "restart":
        return _do_restart(state, seat, battle_core)
    s = battle_core.copy_state(state)
    if kind == "hold":
        return s, _hold(s, seat)
    return s, _resume(s, seat)


def _hold(s: dict, seat: int) -> list[dict]:
    speed = s["autoplay"][seat]
    autoplay = list(s["autoplay"])
    autoplay[seat] = 0
    s["autoplay"] = autoplay
    _set_held(s, held(s) + [{"seat": seat, "speed": speed}])
    who = name(s, seat)
    if not alone(s, seat):
        return [log("hold", N_("{name} pauses their play.").format(name=who), seat=seat, speed=speed, match=False)]
    entries = [log("hold", N_("{name} pauses the game.").format(name=who), seat=seat, speed=speed, match=True)]
    if "war.hold" not in s["noted"]:   # flagged the first time it decides something
        s["noted"] = s["noted"] + ["war.hold"]
        entries.append(rule("war.hold", battle=s["battle"], seat=seat, speed=speed, computers=computers(s)))
    return entries


def _resume(s: dict, seat: int) -> list[dict]:
    entry = holding(s, seat)
    autoplay = list(s["autoplay"])
    autoplay[seat] = entry["speed"]
    s["autoplay"] = autoplay
    _set_held(s, [h for h in held(s) if h["seat"] != seat])
    text = (N_("{name} plays on (auto-play at speed {speed}).") if entry["speed"] else
            N_("{name} plays on.")).format(name=name(s, seat), speed=entry["speed"])
    return [log("resume", text, seat=seat, speed=entry["speed"], match=alone(s, seat))]


def _do_restart(state: dict, seat: int, battle_core: BattleCore) -> tuple[dict, list[dict]]:
    """A fresh deal: the same players and options, a seed drawn from the game's Rng."""
    rng = Rng(state["rng"])
    seed = rng.next64()
    options = dict(state["options"])
    if computers(state):
        options[COMPUTERS_OPTION] = list(computers(state))
    s = battle_core.new(options, list(state["names"]), seed)
    s["restarts"] = state.get("restarts", 0) + 1
    return s, [log("restart", N_("{name} restarts the game: the cards are shuffled and dealt again.").format(name=name(state, seat)),
                   seat=seat, battle=state["battle"], restarts=s["restarts"]),
               rule("war.restart", seat=seat, battle=state["battle"], seed=seed,
                    cards=[len(d) for d in s["decks"]], restarts=s["restarts"])]


def bot(listed: list[dict]) -> dict | None:
    """A computer never pauses or restarts; it plays on from a pause it finds on its
    seat (the teacher removed a player who had paused, and the computer took over)."""
    return next((a for a in listed if a.get("type") == "resume"), None)


# --------------------------------------------------------------------------
# Views, prompts and the clock

def clock_key(s: dict, seconds: int) -> str:
    """The match clock's timer key: a fresh deal gets a fresh clock."""
    return f"clock:{seconds}" + (f":r{s['restarts']}" if s.get("restarts") else "")


def clock(s: dict, listed: list[dict]) -> list[dict]:
    """The clock as `timers()` lists it: under this deal's key, and marked held
    while the match is held (the platform then stops it and keeps the time left:
    the engine cannot know how much that is, only the platform's clock can)."""
    out = []
    for timer in listed:
        timer = dict(timer, key=clock_key(s, timer["after"]))
        if match_held(s):
            timer["held"] = True
        out.append(timer)
    return out


def public(s: dict, public_view: dict) -> None:
    """Who holds, whether the whole match stands still, the clock's key."""
    public_view["hold"] = {"seats": [h["seat"] for h in held(s)], "match": match_held(s)}
    length = public_view.get("length")
    if length and length.get("clock_key"):
        length["clock_key"] = clock_key(s, length["clock_seconds"])


def private(s: dict, seat: int, private_view: dict) -> None:
    entry = holding(s, seat)
    private_view["held"] = entry is not None
    private_view["held_speed"] = entry["speed"] if entry else 0
    private_view["alone"] = alone(s, seat)


def held_prompt(s: dict, viewer, battle_core: BattleCore) -> dict | None:
    """While the match is held the game waits for whoever holds it (and the
    platform schedules no computer moves: they are not waited for)."""
    if not held(s):
        return None
    mine = holding(s, viewer) if is_seat(s, viewer) else None
    if match_held(s):
        holders = [h["seat"] for h in held(s) if alone(s, h["seat"])]
        if mine is not None:
            return prompt(holders, N_("The game is paused. Tap Resume or press P to play on."))
        return prompt(holders, N_("{names} paused the game.").format(names=names(s, holders)))
    if mine is not None:
        return prompt(battle_core.waiting(s), N_("Your play is paused. Tap Resume or press P to play on."))
    return None


# --------------------------------------------------------------------------
# The variant: where engine.py calls in

class Controls(Variant):
    """Hold, resume and restart, at every War table (always in play)."""
    moves = FIELDS
    log_kinds = LOG_KINDS
    state_key = None   # every War table

    def on_deal(self, s: dict, computers: list[int]) -> None:
        setup(s, computers)

    # Values are replaced whole, never changed in place: `copy_into` has nothing to copy.

    def paused_actions(self, state: dict, seat) -> list[dict] | None:
        return blocked_actions(state, seat)

    def takes_move(self, state: dict, seat: int, kind: str) -> bool:
        return handles(state, seat, kind)

    def apply_taken(self, state: dict, seat: int, action: dict) -> tuple[dict, list[dict]]:
        return apply(state, seat, action, self.battle_core)

    def paused_prompt(self, s: dict, viewer) -> dict | None:
        return held_prompt(s, viewer, self.battle_core)

    def controls(self, s: dict, seat: int) -> list[dict]:
        return actions(s, seat)

    def public(self, s: dict, pub: dict) -> None:
        public(s, pub)

    def private(self, s: dict, seat: int, priv: dict) -> None:
        private(s, seat, priv)

    def clock(self, s: dict, timers: list[dict]) -> list[dict]:
        return clock(s, timers)

    def bot(self, view: dict, listed: list[dict], rng) -> dict | None:
        return bot(listed)
