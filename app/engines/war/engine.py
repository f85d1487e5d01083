"""War, Classic mode: a pure, deterministic state machine (see DESIGN.md).

Digital table flow: a battle waits for every participant to tap `reveal`, in
any order; the last tap resolves the battle inside the same `apply`. Ties
start a war stage among the tied players only, and so on until someone takes
the pot (or, in rare knock-out cases, the pot carries over or the game ends).

The functions of the engine contract (app/engines/contract.py):

    new(options, seats, seed) -> state
    actions(state, viewer) -> [labelled action, ...]
    apply(state, actor, action) -> (state, log)     action without its label
    view(state, viewer) -> {"public", "private", "prompt"}
    bot(view, actions, rng) -> action | None        sees only its own seat
    result(state) -> None | {winners, ranking, scores, reason}
    finish(state, cause) -> (state, log)            the teacher (or the lesson clock) ends the game
    timers(state) -> [{key, after, actor, action}]  auto-play reveals, the match clock

State is plain JSON. Seats are list indices; cards are opaque ids whose faces
sit in `state["faces"]`; decks list ids top first. See `_initial_state` for
the full shape.

The modes and controls hang on this core as variants (variant.py): Wager
Battle (wager.py), Power War (powers.py) and the player controls (control.py)
each add their part at the hooks the core calls; `VARIANTS` at the end lists
them. The helpers they share with the core are core.py's. A solo run
(Tournament, Survival) wraps matches of this engine: runs.py, reached through
game.py, which is what the platform calls.
"""
from __future__ import annotations

import functools
import hashlib

from ..contract import Option, Rng, clone, finish_cause, label, log, prompt, resolve_options, strip_label
from . import cards, control, powers, wager
from .core import (active, commit, fail, is_out, is_seat, knock_out, mark_out, name, names,
                   order_out, rank, tied_out, out_key)
from .rulings import rule
from .variant import BattleCore, Variant
from ..text import N_, NP_

KEY = "war"
TITLE = N_("War")
VERSION = "war-4"
MIN_SEATS = 2
MAX_SEATS = 6
BLURB = N_("The classic card battle: everyone flips a card, the highest takes them all, and ties mean war.")
# Match lengths (the option's values read well as labels: "First to 30 cards").
# value -> (kind, target): kind "elimination" (no target), "cards" (cards held at
# the end of a battle), "minutes" (a server-side clock) or "points" (see `take_pot`).
LENGTHS = {
    "full_elimination": ("elimination", 0),
    "first_to_30_cards": ("cards", 30),
    "first_to_40_cards": ("cards", 40),
    "first_to_45_cards": ("cards", 45),
    "3_minutes": ("minutes", 3),
    "5_minutes": ("minutes", 5),
    "10_minutes": ("minutes", 10),
    "first_to_25_points": ("points", 25),
    "first_to_50_points": ("points", 50),
    "first_to_100_points": ("points", 100),
}
# The default length, "Fits a lesson", is one of LENGTHS picked by the number of players
# when the cards are dealt (issue 20: nine games in ten inside a 40-minute lesson at a
# classroom pace, bench/game_lengths.py): full elimination where it fits, a card target
# where elimination runs long. The ruling war.length_fits_a_lesson says which was taken.
FITS_A_LESSON = "fits_a_lesson"
LESSON_LENGTHS = {2: "full_elimination", 3: "first_to_45_cards", 4: "first_to_45_cards",
                  5: "full_elimination", 6: "full_elimination"}
MODES = ("classic", "power", "wager", "power_wager", "tournament", "survival")
RUN_MODES = ("tournament", "survival")   # solo runs (runs.py, dispatched by game.py): one player against computer tables
LEVELS = ("easy", "standard", "hard")
OPTIONS = [
    Option("mode", N_("Mode"), "classic", MODES,
           help=N_("Classic plays the pure rules: reveal, highest card wins, ties go to war. "
                   "Power War adds a loadout of powers paid for with energy. Wager Battle adds "
                   "fictional chips: everyone antes each battle and bets in wars. Power and wager "
                   "combines both. Tournament and Survival are solo runs against computer tables.")),
    Option("computer_level", N_("Computer players"), "standard", LEVELS,
           help=N_("How computer players use powers and chips. In Power War easy overlooks half its "
                "chances to use a power, standard and hard never, and hard saves its energy for the "
                "battles where a power counts; in Wager Battle standard bets carelessly one time in "
                "five, easy half the time, hard never; bets settle only the wars (about one battle "
                "in seventeen), so there every level beats a random bettor but the levels play "
                "close to one another. "
                "Classic War has no choices to make, so there every level plays the same. "
                "Computers never see hidden cards at any level.")),
    Option("energy_start", N_("Starting energy (Power War)"), 3, (0, 1, 2, 3, 4, 5, 6),
           help=N_("Energy each player starts with; powers cost energy to activate.")),
    Option("energy_per_battle", N_("Energy gained each battle (Power War)"), 1, (0, 1, 2, 3),
           help=N_("Energy every player regains at the start of each battle.")),
    Option("energy_max", N_("Most energy a player can hold (Power War)"), 10, (5, 8, 10, 12, 15),
           help=N_("Energy above this is lost.")),
    Option("bankroll", N_("Starting chips (Wager Battle)"), 100, (50, 100, 150, 200, 300),
           help=N_("Fictional chips each player starts with. Everyone antes 10 chips each battle.")),
    Option("raise_amount", N_("Raise (Wager Battle)"), 10, (5, 10, 20, 30),
           help=N_("How many chips a raise in a war adds; Double Stakes doubles it. A raise is "
                   "capped so that every player still in the war can call.")),
    Option("length", N_("Match length"), FITS_A_LESSON, (FITS_A_LESSON, *LENGTHS),
           help=N_("Fits a lesson: full elimination with 2, 5 or 6 players and first to 45 cards with 3 or 4, "
                "so nine games in ten end within 40 minutes. "
                "Full elimination plays until one player holds every card. First to 30, 40 or 45 cards: "
                "the first player holding that many cards after a battle wins. 3, 5 or 10 minutes: "
                "when the clock runs out, the most cards wins. First to 25, 50 or 100 points: "
                "a battle won scores 1 point, plus 1 for each war in it.")),
]
# The options' choices as the create form shows them (the value, "_" as a space,
# capitalized: app/facilitator), marked for the catalogs.
CHOICE_LABELS = (N_("Classic"), N_("Power"), N_("Wager"), N_("Power wager"), N_("Tournament"), N_("Survival"),
                 N_("Easy"), N_("Standard"), N_("Hard"), N_("Fits a lesson"), N_("Full elimination"),
                 N_("First to 30 cards"), N_("First to 40 cards"), N_("First to 45 cards"),
                 N_("3 minutes"), N_("5 minutes"), N_("10 minutes"), N_("First to 25 points"),
                 N_("First to 50 points"), N_("First to 100 points"))

# Every log entry kind War emits ("ruling" entries carry a catalogue id).
# (The variants' own kinds are added below, once `VARIANTS` is built.)
LOG_KINDS = ("reveal", "tie", "war", "out", "win", "carry", "autoplay", "ruling", "shuffle",
             "sudden_death", "time_up", "target", "end", "game_over",
             "run_enter", "run_won", "run_lost", "match_over", "power")   # run_* and match_over: runs.py

FACILITATOR = "facilitator"
BOARD = "board"
SYSTEM = "system"                       # a fired timer: the match clock's `time_up`
SPEEDS = (0, 1, 2, 4)                   # 0 = auto-play off
AUTO_DELAY = {1: 1.2, 2: 0.6, 4: 0.3}   # seconds between automatic reveals
WAR_DOWN = 3                            # face-down cards per war stage
BATTLE_LIMIT = 5000                     # battles before sudden death starts
SUDDEN_DEATH_BATTLES = 20
# Repeat detection remembers up to REPEAT_WINDOW battle-start positions: half
# the battle limit, so any loop short enough to come round twice before the
# limit is caught the first time it comes back. Each position is a 48-bit
# fingerprint (12 hex digits): at most ~30 kB in the state, and the chance of
# a false repeat in a whole game is below one in ten million.
REPEAT_WINDOW = BATTLE_LIMIT // 2
_FP = 12


# --------------------------------------------------------------------------
# Small helpers

def _variants(s: dict) -> tuple[Variant, ...]:
    """The variants that take part in this state, in `VARIANTS` order: looked up by
    which of their state keys are present (a move asks about 25 times)."""
    present = tuple(map(s.__contains__, _VARIANT_KEYS))  # no generator: this is asked millions of times a sweep
    found = _IN_PLAY.get(present)
    if found is None:
        found = _IN_PLAY[present] = tuple(v for v in VARIANTS if v.in_play(s))
    return found


def copy_state(s: dict) -> dict:
    """A deep copy of a War state, field by field (see `_initial_state`).

    Every reveal copies the state (the engine never mutates its input), so
    this is written out for speed; a test checks that it shares nothing
    mutable with the original but `last` and `result`, which the engine only
    ever replaces whole (and `view` and `result` hand out copies of).
    """
    out = dict(s)
    out["options"] = dict(s["options"])
    for key in ("names", "participants", "taps", "showing", "last_up", "wins", "points", "autoplay", "noted"):
        out[key] = list(s[key])
    out["faces"] = dict(s["faces"])
    out["decks"] = [list(d) for d in s["decks"]]
    out["pot"] = [dict(item) for item in s["pot"]]
    out["spent"] = [list(x) for x in s["spent"]]
    out["out"] = [None if o is None else dict(o) for o in s["out"]]
    out["cycle"] = dict(s["cycle"])
    out["sudden"] = None if s["sudden"] is None else dict(s["sudden"])
    for v in _variants(s):
        v.copy_into(s, out)
    return out


def _copy_last(last: dict | None) -> dict | None:
    """A copy of the last resolution's summary (see `_summary`), for a view."""
    if last is None:
        return None
    return {**last, "cards": [dict(c) for c in last["cards"]],
            "deciding": [{"seat": d["seat"], "card": dict(d["card"])} for d in last["deciding"]]}


def waiting(s: dict) -> list[int]:
    """The seats that owe a reveal now (none while a variant puts something first, e.g. bets)."""
    if _reveals_blocked(s, _variants(s)):
        return []
    taps = s["taps"]
    return [p for p in s["participants"] if p not in taps]


def _owes(s: dict, seat: int, in_play: tuple[Variant, ...]) -> bool:
    """`seat in waiting(s)`, without listing the others (`in_play`: the state's variants)."""
    return seat in s["participants"] and seat not in s["taps"] and not _reveals_blocked(s, in_play)


def _reveals_blocked(s: dict, in_play: tuple[Variant, ...]) -> bool:
    for v in in_play:  # a loop, not any(): asked for every seat's actions on every move
        if v.blocks_reveals(s):
            return True
    return False


def seat_of(s: dict, actor) -> int:
    """Validate who is acting: only a seat plays (the teacher ends a game with `finish`)."""
    if is_seat(s, actor):
        return actor
    if actor == BOARD:
        fail("forbidden", N_("The board only shows the game; it cannot make moves."))
    if actor == FACILITATOR:
        fail("forbidden", N_("The facilitator cannot play for a player."))
    if actor == SYSTEM:
        fail("forbidden", N_("The clock only ends a timed match."))
    fail("forbidden", N_("That player is not at this table."))


def _length(s: dict) -> tuple[str, int]:
    """(kind, target) of this match's length (see LENGTHS)."""
    return LENGTHS[s["options"]["length"]]


# --------------------------------------------------------------------------
# Setting up

def new(options: dict, seats: list[str], seed: int) -> dict:
    """Shuffle, number the cards in shuffled order, deal round-robin from seat 0.

    One match; a solo run (Tournament, Survival) is runs.py's (see game.py)."""
    if not MIN_SEATS <= len(seats) <= MAX_SEATS:
        fail("illegal", N_("War needs {low} to {high} players (only a Tournament or Survival "
                            "run is played alone).").format(low=MIN_SEATS, high=MAX_SEATS))
    rng = Rng.from_seed(seed)
    faces = {f"c{i}": face_code for i, face_code in enumerate(cards.shuffled_faces(rng))}
    decks = [[] for _ in seats]
    for i, cid in enumerate(faces):
        decks[i % len(seats)].append(cid)
    return _initial_state(options, seats, faces, decks, rng.state)


def new_with_decks(options: dict, seats: list[str], decks: list[list[str]], rng_state: int = 1) -> dict:
    """A fresh game with the given decks (face codes like "QH", top first).

    For tests and demonstrations: any faces, any number of cards.
    """
    faces, id_decks = {}, []
    for deck in decks:
        id_decks.append([])
        for face_code in deck:
            cid = f"c{len(faces)}"
            faces[cid] = face_code
            id_decks[-1].append(cid)
    return _initial_state(options, seats, faces, id_decks, rng_state)


def _initial_state(options: dict, seats: list[str], faces: dict, decks: list[list[str]],
                   rng_state: int) -> dict:
    options, computers = control.take_computers(options)
    n = len(seats)
    options = resolve_options(OPTIONS, options)
    fitted = options["length"] == FITS_A_LESSON
    if fitted:
        options["length"] = LESSON_LENGTHS[n]
    s = {
        "game": KEY,
        "version": VERSION,
        "options": options,
        "names": list(seats),
        "status": "playing",
        "rng": rng_state,
        "faces": faces,             # card id -> face code such as "QH"
        "decks": decks,             # per seat, card ids top card first
        "battle": 1,                # number of the battle being played
        "stage": 0,                 # 0 = the first reveal; k = k-th war of this battle
        "participants": [],         # seats that reveal in this stage, seat order
        "taps": [],                 # seats that have revealed in this stage, tap order
        "pot": [],                  # {"id", "seat", "down"} in commitment order
        "carried": 0,               # how many pot cards came over from earlier battles
        "showing": [None] * n,      # each seat's latest face-up card in this battle
        "spent": [[0, 0] for _ in seats],  # [cards, face-up rank total] put in this battle
        "last_up": [0] * n,         # rank of each seat's final face-up reveal
        "wins": [0] * n,            # battles won
        "points": [0] * n,          # 1 per battle won, plus 1 per war in it (see `take_pot`)
        "out": [None] * n,          # once knocked out: {"moment", "battle", "cards", "shown"}
        "moment": 0,                # counts knock-out moments (later = ranks higher)
        "autoplay": [0] * n,        # auto-play speed per seat (0 = off)
        # Repeat detection: `seen` concatenates the fingerprints of consecutive
        # battle-start positions, the first of them at battle `first`.
        "cycle": {"seen": "", "first": 1, "repeats": 0},
        "sudden": None,             # {"reason", "first_battle", "left"} during sudden death
        "noted": [],                # once-per-game rulings already logged
        "last": None,               # summary of the last resolution
        "result": None,
    }
    for v in VARIANTS:   # each adds its part only when the options call for it
        v.on_deal(s, computers)
    if fitted and options["length"] != "full_elimination":
        # The table's size chose a card target: said with the first battle's resolution
        # (`resolve_stage`), since the deal logs nothing.
        s["noted"].append(FITS_A_LESSON)
    _start_battle(s)  # the first position is recorded; it cannot be a repeat
    return s


# --------------------------------------------------------------------------
# What each viewer may do

def actions(state: dict, viewer) -> list[dict]:
    """A seat's moves, each with a label. The facilitator has none in War (the
    platform's own moderation and `finish` cover it); the board never acts."""
    if state["status"] != "playing" or not is_seat(state, viewer):
        return []  # (asked for the teacher on every move nobody's page watches: kept quick)
    in_play = _variants(state)
    if (paused := _paused_actions(state, viewer, in_play)) is not None:
        return paused
    if is_out(state, viewer):
        return []
    battle = state["battle"]
    listed = []
    if _owes(state, viewer, in_play):
        text = N_("Reveal your card") if state["stage"] == 0 else \
            N_("Reveal your card (three go face down first)")
        listed.append({"type": "reveal", "label": text, "battle": battle})
    for v in in_play:
        listed += [dict(a, battle=battle) if a["type"] in BATTLE_MOVES else a for a in v.actions(state, viewer)]
    listed += _autoplay_actions(state["autoplay"][viewer])  # never a battle move
    for v in in_play:
        listed += [dict(a, battle=battle) if a["type"] in BATTLE_MOVES else a for a in v.controls(state, viewer)]
    return listed


@functools.cache
def _autoplay_actions(current: int) -> tuple[dict, ...]:
    """The auto-play switches a seat at `current` speed is offered, made once per speed
    (every view lists them; the lists are read, never changed)."""
    listed = []
    for sp in SPEEDS:
        if sp == current:
            continue
        text = (N_("Turn auto-play off") if sp == 0 else
                N_("Turn auto-play on (speed {speed})").format(speed=sp) if current == 0 else
                N_("Switch auto-play to speed {speed}").format(speed=sp))
        listed.append(label({"type": "autoplay", "speed": sp}, text))
    return tuple(listed)


def _paused_actions(state: dict, viewer, in_play: tuple[Variant, ...]) -> list[dict] | None:
    """What `viewer` may do while a variant holds its play up (None: it plays as usual)."""
    for v in in_play:
        if (paused := v.paused_actions(state, viewer)) is not None:
            return paused
    return None


def _owner(kind: str) -> Variant | None:
    """The variant whose move type this is (None: the core's own reveal and auto-play)."""
    return next((v for v in VARIANTS if kind in v.moves), None)


def _check_payload(action) -> str:
    """Reject malformed actions before looking at whose turn it is."""
    if not isinstance(action, dict) or "type" not in action:
        fail("illegal", N_("That is not a move in War."))
    kind = action["type"]
    if not isinstance(kind, str) or kind not in MOVE_FIELDS:
        fail("illegal", N_("That is not a move in War."))
    named = kind in BATTLE_MOVES and "battle" in action
    if set(action) - ({"battle"} if named else set()) != MOVE_FIELDS[kind]:
        fail("illegal", N_("That move has the wrong details."))
    if named and type(action["battle"]) is not int:
        fail("illegal", N_("A move names its battle by number."))
    if kind == "autoplay":
        speed = action["speed"]
        if type(speed) is not int or speed not in SPEEDS:
            fail("illegal", N_("Auto-play speed must be 0 (off), 1, 2 or 4."))
    if (owner := _owner(kind)) is not None:
        owner.check_move(action)
    return kind


def apply(state: dict, actor, action: dict) -> tuple[dict, list[dict]]:
    """One seat's move, or the match clock's `time_up` (actor "system"). The
    platform strips labels first; a labelled action (as listed by `actions`)
    is accepted too."""
    if actor == SYSTEM and isinstance(action, dict) and action.get("type") == "time_up":
        return _time_up(state, action)
    seat = seat_of(state, actor)
    if state["status"] != "playing":
        fail("game_over", N_("The game is over."))
    if isinstance(action, dict) and isinstance(action.get("label"), str):
        action = strip_label(action)
    kind = _check_payload(action)
    if kind in BATTLE_MOVES and "battle" in action:
        # A tap from an earlier battle that arrives late must not count in this one.
        if action["battle"] != state["battle"]:
            fail("stale", N_("That move was for battle {then}; this is battle {now}.").format(
                then=action["battle"], now=state["battle"]))
        action = {k: v for k, v in action.items() if k != "battle"}
    for v in _variants(state):
        if v.takes_move(state, seat, kind):
            return v.apply_taken(state, seat, action)
    if is_out(state, seat):
        fail("not_your_turn", N_("You are out of this game."))
    s = copy_state(state)
    in_play = _variants(s)
    if kind == "autoplay":
        entries = _set_autoplay(s, seat, action["speed"])
        for v in in_play:
            entries += v.after_autoplay(s, seat)
        return s, entries
    if (owner := _owner(kind)) is not None:
        return s, owner.apply(s, seat, action)   # the owner refuses it if it is not in play
    for v in in_play:
        v.before_reveal(s, seat)
    return s, _reveal(s, seat)


def _set_autoplay(s: dict, seat: int, speed: int) -> list[dict]:
    if s["autoplay"][seat] == speed:
        fail("illegal", N_("Auto-play is already set to that speed."))
    s["autoplay"][seat] = speed
    text = (N_("{name} turns auto-play off.").format(name=name(s, seat)) if speed == 0
            else N_("{name} turns auto-play on at speed {speed}.").format(name=name(s, seat), speed=speed))
    return [log("autoplay", text, seat=seat, speed=speed)]


# --------------------------------------------------------------------------
# Revealing and resolving

def _reveal(s: dict, seat: int) -> list[dict]:
    if seat not in waiting(s):
        if seat in s["participants"]:
            fail("not_your_turn", N_("You have already revealed. Wait for the others."))
        fail("not_your_turn", N_("You are not in this war. Wait for the tied players."))
    deck = s["decks"][seat]
    s["taps"].append(seat)
    battle, stage = s["battle"], s["stage"]
    if stage == 0:
        template = N_("{name} reveals the {card}.")
    else:
        # Exactly three face down, then one face up (the stage start made sure
        # every remaining participant holds at least four cards).
        for _ in range(WAR_DOWN):
            commit(s, seat, deck.pop(0), down=True)
        template = N_("{name} puts three cards face down and reveals the {card}.")
    cid = deck.pop(0)
    commit(s, seat, cid, down=False)
    s["showing"][seat] = cid
    s["last_up"][seat] = rank(s, cid)
    shown = cards.face(s["faces"], cid)
    entries = [log("reveal", template.format(name=name(s, seat), card=shown["name"]),
                   battle=battle, stage=stage, seat=seat, card=shown)]
    for v in _variants(s):   # Power War: Scout expiry; the counter window or the power steps, then resolve_stage
        if (taken := v.after_reveal(s, seat)) is not None:
            return entries + taken
    if not waiting(s):
        entries += resolve_stage(s)
    return entries


def resolve_stage(s: dict) -> list[dict]:
    """Everyone in this stage has revealed: the highest rank wins, ties go to war."""
    entries = []
    if "war.commitment_order_is_tap_order" not in s["noted"]:
        s["noted"].append("war.commitment_order_is_tap_order")
        if FITS_A_LESSON in s["noted"]:
            entries.append(rule("war.length_fits_a_lesson", battle=s["battle"], players=len(s["names"]),
                                length=s["options"]["length"]))
        entries.append(rule("war.commitment_order_is_tap_order",
                            battle=s["battle"], order=list(s["taps"])))
    in_play = _variants(s)
    ranks = {p: rank(s, s["showing"][p]) for p in s["participants"]}
    for v in in_play:
        ranks = v.battle_ranks(s, ranks)
    high = max(ranks.values())
    tied = [p for p in s["participants"] if ranks[p] == high]
    for v in in_play:
        if len(tied) > 1:
            tied, more = v.break_tie(s, tied)
            entries += more
    if len(tied) == 1:
        return entries + take_pot(s, tied[0]) + finish_battle(s)
    return entries + _start_war(s, tied, high)


def _start_war(s: dict, tied: list[int], high: int) -> list[dict]:
    s["stage"] += 1
    battle, stage = s["battle"], s["stage"]
    entries = [log("tie", N_("{names} tie with {ranks}.").format(names=names(s, tied), ranks=cards.rank_name(high, plural=True)),
                   battle=battle, stage=stage, seats=tied, rank=high)]
    # Knock out, at once, every tied player who cannot put up four cards.
    short = [p for p in tied if len(s["decks"][p]) < WAR_DOWN + 1]
    for p in short:
        given = len(s["decks"][p])
        while s["decks"][p]:
            commit(s, p, s["decks"][p].pop(0), down=True)
        entries.append(log("out", N_("{name} cannot put up four cards and is out of the game.").format(name=name(s, p)),
                           battle=battle, stage=stage, seat=p, committed=given))
        entries.append(rule("war.short_cards_face_down", battle=battle, stage=stage,
                            seat=p, cards=given))
    survivors = [p for p in tied if p not in short]
    # Players outside the war who still hold cards (empty ones go out after it).
    others = [p for p in active(s) if p not in tied and s["decks"][p]]
    if not survivors and not others:
        # Nobody holds a card any more: everyone left goes out together.
        return entries + _everyone_out(s, tied)
    if short:
        entries += knock_out(s, short)
    if len(survivors) >= 2:
        s["participants"], s["taps"] = survivors, []
        entries.append(log("war", N_("War! {names} each put three cards face down and one face up.").format(names=names(s, survivors)),
                           battle=battle, stage=stage, seats=survivors))
        for v in _variants(s):
            entries += v.on_war(s, survivors)
        return entries
    if len(survivors) == 1:
        winner = survivors[0]
        entries.append(rule("war.sole_survivor_takes_pot", battle=battle, stage=stage,
                            seat=winner, knocked_out=short))
        return entries + take_pot(s, winner) + finish_battle(s)
    if len(others) == 1:
        winner = others[0]
        entries.append(rule("war.last_player_takes_pot", battle=battle, stage=stage,
                            seat=winner, knocked_out=short))
        return entries + take_pot(s, winner) + finish_battle(s)
    entries.append(rule("war.pot_carries_over", battle=battle, stage=stage,
                        knocked_out=short, pot=len(s["pot"])))
    entries.append(log("carry", N_("Nobody wins the {n} cards; they stay for the next battle.").format(n=len(s["pot"])),
                       battle=battle, count=len(s["pot"])))
    s["carried"] = len(s["pot"])
    s["last"] = _summary(s, None)
    for v in _variants(s):
        entries += v.on_carry(s)
    return entries + finish_battle(s)


def take_pot(s: dict, winner: int) -> list[dict]:
    """The winner puts the whole pot at the bottom, in commitment order."""
    in_play = _variants(s)
    entries = []
    for v in in_play:
        entries += v.before_take(s, winner)
    pot = s["pot"]
    shown = _pot_faces(s)
    downs = [f for f in shown if f["down"]]
    if downs:
        entries.append(rule("war.face_down_shown_on_win", battle=s["battle"], seat=winner, cards=downs))
    s["decks"][winner].extend(item["id"] for item in pot)
    s["wins"][winner] += 1
    s["points"][winner] += 1 + s["stage"]   # the battle, and each war stage of it
    s["last"] = _summary(s, winner)
    entries.append(log("win", N_("{name} wins {n} cards.").format(name=name(s, winner), n=len(pot)),
                       battle=s["battle"], seat=winner, count=len(pot), cards=shown))
    for v in in_play:
        entries += v.on_take(s, winner)
    s["pot"], s["carried"] = [], 0
    for v in in_play:
        entries += v.after_take(s, winner)
    return entries


def _pot_faces(s: dict, show_down: bool = True) -> list[dict]:
    """The pot in commitment order, without ids (taken cards join a deck).

    Face-down cards show their faces only when the pot is taken; a pot that
    stays on the table keeps them hidden.
    """
    return [{"seat": item["seat"], "down": True} if item["down"] and not show_down
            else {"seat": item["seat"], "down": item["down"], **cards.face(s["faces"], item["id"])}
            for item in s["pot"]]


def _summary(s: dict, winner: int | None) -> dict:
    """What the table shows after a resolution (`winner` None: the pot carries over)."""
    deciding = [{"seat": p, "card": cards.face(s["faces"], s["showing"][p])}
                for p in range(len(s["names"])) if s["showing"][p] is not None]
    return {"battle": s["battle"], "winner": winner, "count": len(s["pot"]),
            "cards": _pot_faces(s, show_down=winner is not None), "deciding": deciding}


def finish_battle(s: dict) -> list[dict]:
    """After a resolution: knock out empty decks, check the end, start the next battle."""
    entries = []
    empty = [p for p in active(s) if not s["decks"][p]]
    for p in empty:
        entries.append(log("out", N_("{name} has no cards left and is out of the game.").format(name=name(s, p)),
                           battle=s["battle"], seat=p))
    if empty:
        entries += knock_out(s, empty)
    still_in = active(s)
    if len(still_in) == 1:
        return entries + end_game(s, "elimination")
    kind, target = _length(s)
    if kind in ("cards", "points"):
        have = [len(s["decks"][p]) if kind == "cards" else s["points"][p] for p in still_in]
        reached = [p for p, x in zip(still_in, have) if x >= target]
        if reached:
            return entries + _reach_target(s, kind, target, reached, still_in, have)
    if s["sudden"] is not None:
        s["sudden"]["left"] -= 1
        if s["sudden"]["left"] == 0:
            entries.append(rule("war.sudden_death", battle=s["battle"], phase="end",
                                seats=still_in, cards=[len(s["decks"][p]) for p in still_in]))
            return entries + end_game(s, "sudden_death")
    elif s["battle"] >= BATTLE_LIMIT:
        entries += _start_sudden_death(s, "limit")
    s["battle"] += 1
    return entries + _start_battle(s)


def _reach_target(s: dict, kind: str, target: int, reached: list[int], players: list[int],
                  have: list[int]) -> list[dict]:
    """A player holds `target` cards, or has `target` points, after a battle: the match ends."""
    what = "cards" if kind == "cards" else "points"
    entries = [rule(f"war.{what}_target", battle=s["battle"], target=target, seats=reached,
                    players=players, **{what: have}),
               log("target", (N_("{names} reached {target} cards.") if what == "cards" else
                              N_("{names} reached {target} points.")).format(names=names(s, reached), target=target),
                   battle=s["battle"], seats=reached, target=target, kind=what)]
    return entries + end_game(s, f"{what}_target")


def _time_up(state: dict, action) -> tuple[dict, list[dict]]:
    """The match clock has run out: the match ends at once (see war.time_up)."""
    if action != {"type": "time_up"}:
        fail("illegal", N_("That move has the wrong details."))
    if state["status"] != "playing":
        fail("game_over", N_("The game is over."))
    if _length(state)[0] != "minutes":
        fail("illegal", N_("This match has no clock."))
    s = copy_state(state)
    still_in = active(s)
    # The unfinished battle's cards go back on top of the decks of the players
    # still in who put them in; a carried pot and a knocked-out player's cards
    # count for nobody.
    back = [[] for _ in s["names"]]
    kept = []
    for i, item in enumerate(s["pot"]):
        if i >= s["carried"] and item["seat"] in still_in:
            back[item["seat"]].append(item["id"])
        else:
            kept.append(item)
    for p in still_in:
        s["decks"][p] = back[p] + s["decks"][p]
    s["pot"] = kept
    returned = []   # e.g. Wager Battle's chips of this battle
    for v in _variants(s):
        returned += v.on_time_up(s, still_in)
    minutes = _length(s)[1]
    entries = [log("time_up", N_("Time is up after {minutes} minutes.").format(minutes=minutes), battle=s["battle"], minutes=minutes),
               rule("war.time_up", battle=s["battle"], minutes=minutes, seats=still_in,
                    returned=[len(back[p]) for p in still_in], cards=[len(s["decks"][p]) for p in still_in])]
    return s, entries + returned + end_game(s, "time_up")


def _start_battle(s: dict) -> list[dict]:
    s["stage"] = 0
    s["participants"] = active(s)
    s["taps"] = []
    s["showing"] = [None] * len(s["names"])
    s["spent"] = [[0, 0] for _ in s["names"]]
    in_play = _variants(s)
    entries = []
    for v in in_play:   # Wager Battle's antes: may knock out (bankrupt) or end the game
        entries += v.battle_stakes(s)
    entries += _watch_for_repeats(s)
    if s["status"] == "playing":
        for v in in_play:
            entries += v.on_battle(s)
    return entries


def _everyone_out(s: dict, tied: list[int]) -> list[dict]:
    """No one holds a card: all remaining players go out together and the game ends."""
    seats = active(s)
    entries = [log("out", N_("{name} has no cards left and is out of the game.").format(name=name(s, p)),
                   battle=s["battle"], seat=p)
               for p in seats if p not in tied]
    mark_out(s, seats)
    s["last"] = _summary(s, None)
    entries.append(rule("war.simultaneous_elimination", battle=s["battle"], seats=seats,
                        committed=[s["spent"][p][0] for p in seats],
                        ranking=order_out(s, seats), tied=tied_out(s, seats)))
    return entries + end_game(s, "simultaneous_elimination")


# --------------------------------------------------------------------------
# Repeats and sudden death (the rule sheet's stalemate backstop)

def _position(s: dict) -> str:
    """A fixed-width fingerprint (_FP hex digits) of the ranks in every deck
    and in any carried pot: what decides the rest of the game."""
    faces = s["faces"]
    parts = ["".join(faces[c][0] for c in deck) for deck in s["decks"]]
    parts.append("".join(faces[item["id"]][0] for item in s["pot"]))
    return hashlib.blake2b("|".join(parts).encode(), digest_size=_FP // 2).hexdigest()


def _seen_at(seen: str, here: str) -> int | None:
    """Where `here` sits among the fixed-width fingerprints in `seen`, if anywhere."""
    i = seen.find(here)
    while i != -1 and i % _FP:
        i = seen.find(here, i + 1)
    return None if i == -1 else i // _FP


def _watch_for_repeats(s: dict) -> list[dict]:
    """Remember every battle-start position since the last shuffle or knock-out
    (at most REPEAT_WINDOW of them, the oldest forgotten first), so a loop is
    spotted the first time it comes back round.

    The fingerprints are kept as one string: cheap to copy with the state.
    """
    if s["sudden"] is not None:
        return []
    cyc = s["cycle"]
    here = _position(s)
    if not cyc["seen"]:
        cyc["seen"], cyc["first"] = here, s["battle"]
        return []
    at = _seen_at(cyc["seen"], here)
    if at is None:
        cyc["seen"] += here
        if len(cyc["seen"]) > REPEAT_WINDOW * _FP:
            cyc["seen"] = cyc["seen"][_FP:]
            cyc["first"] += 1
        return []
    since = cyc["first"] + at
    cyc["repeats"] += 1
    entries = [rule("war.repeat_detection", battle=s["battle"], repeat=cyc["repeats"],
                    since=since, loop=s["battle"] - since)]
    if cyc["repeats"] == 1:
        rng = Rng(s["rng"])
        for deck in s["decks"]:
            rng.shuffle(deck)
        s["rng"] = rng.state
        entries.append(rule("war.repeat_shuffle", battle=s["battle"],
                            cards=[len(d) for d in s["decks"]]))
        entries.append(log("shuffle", N_("The game is going round in circles, so every player's deck is shuffled."),
                           battle=s["battle"]))
        # Start watching afresh from the shuffled position.
        cyc["seen"], cyc["first"] = _position(s), s["battle"]
        return entries
    return entries + _start_sudden_death(s, "repeat")


def _start_sudden_death(s: dict, reason: str) -> list[dict]:
    first = s["battle"] + (1 if reason == "limit" else 0)
    s["sudden"] = {"reason": reason, "first_battle": first, "left": SUDDEN_DEATH_BATTLES}
    s["cycle"]["seen"] = ""   # no more repeat checks
    text = (N_("Sudden death: the game keeps repeating, so {n} more battles decide the game.").format(
        n=SUDDEN_DEATH_BATTLES) if reason == "repeat" else
        N_("Sudden death: {played} battles have been played, so {n} more battles decide the game.").format(
            played=f"{BATTLE_LIMIT:,}", n=SUDDEN_DEATH_BATTLES))
    return [rule("war.sudden_death", battle=s["battle"], phase="start", reason=reason,
                 battles=SUDDEN_DEATH_BATTLES),
            log("sudden_death", text,
                battle=s["battle"], reason=reason, battles=SUDDEN_DEATH_BATTLES)]


# --------------------------------------------------------------------------
# Ending and ranking

def _timed_key(s: dict, seat: int) -> tuple:
    """Tie-break for players still in (the rule sheet's timed order): cards,
    rank total, battle wins, final reveal. Used only when the game ends."""
    deck = s["decks"][seat]
    return (len(deck), sum(rank(s, c) for c in deck), s["wins"][seat], s["last_up"][seat])


def _standing(s: dict, seat: int) -> tuple:
    """One comparable key for everyone: players still in above the knocked out,
    later knock-outs above earlier ones; among players still in, points first in
    a points match, then the tie-break order (`_timed_key`)."""
    if is_out(s, seat):
        return (0, s["out"][seat]["moment"]) + out_key(s, seat)
    points = s["points"][seat] if _length(s)[0] == "points" else 0
    return (1, points) + _timed_key(s, seat)


def _compute_result(s: dict, reason: str) -> dict:
    seats = range(len(s["names"]))
    ranking = sorted(seats, key=lambda p: (tuple(-x for x in _standing(s, p)), p))
    top = _standing(s, ranking[0])
    winners = [p for p in ranking if _standing(s, p) == top]
    scores = list(s["points"]) if _length(s)[0] == "points" else [len(d) for d in s["decks"]]
    return {"winners": winners, "ranking": ranking, "scores": scores, "reason": reason}


def _win_text(s: dict, winners: list[int], over: bool = False) -> str:
    """"Ana wins the game!" (`over`: "Game over: Ana wins the game!", one template each)."""
    if len(winners) == 1:
        template = N_("Game over: {name} wins the game!") if over else N_("{name} wins the game!")
        return template.format(name=name(s, winners[0]))
    template = N_("Game over: {names} share the win!") if over else N_("{names} share the win!")
    return template.format(names=names(s, winners))


# The platform stopped a game without a teacher that ran too long (cause "time_limit").
TIME_LIMIT_TEXT = N_("This game ran too long, so it was stopped.")


def end_game(s: dict, reason: str) -> list[dict]:
    s["status"] = "ended"
    s["participants"], s["taps"] = [], []
    res = s["result"] = _compute_result(s, reason)
    entries = []
    for v in _variants(s):   # Wager Battle: the scores are chips
        entries += v.on_end(s, res)
    return entries + [log("game_over", _win_text(s, res["winners"]), battle=s["battle"], reason=reason,
                          winners=res["winners"], ranking=res["ranking"])]


def _end_by_facilitator(s: dict, cause: str = "teacher") -> list[dict]:
    """The game ends now (the teacher's End, or the lesson clock ran out): the players
    still in ranked by the timed tie-break order (`_standing`), the ruling logged. The
    platform's time limit ranks them the same way and says so, without a ruling."""
    still_in = active(s)
    if cause == "time_limit":
        return [log("end", TIME_LIMIT_TEXT, battle=s["battle"])] + end_game(s, "ran_too_long")
    clock = cause == "lesson_clock"
    entries = [log("end", N_("The lesson clock ran out.") if clock else N_("The teacher ended the game."), battle=s["battle"]),
               rule("war.lesson_clock" if clock else "war.facilitator_end", battle=s["battle"], seats=still_in,
                    cards=[len(s["decks"][p]) for p in still_in], pot=len(s["pot"]))]
    return entries + end_game(s, "lesson_clock_ran_out" if clock else "ended_by_facilitator")


def upgrade(state: dict) -> dict:
    """A snapshot saved by an earlier engine version, made playable by this one.

    war-classic-1 watched for repeats with one Brent checkpoint; its snapshot has
    everything else war-classic-2 keeps. Repeat watching starts afresh here.
    war-classic-2 had no match lengths: its games are full elimination, and
    nobody has scored points yet (they count only in a points match)."""
    if state.get("version") == VERSION:
        return state
    s = clone(state)
    if s.get("version") == "war-classic-1":
        s["cycle"] = {"seen": "", "first": s["battle"], "repeats": state["cycle"].get("repeats", 0)}
        s["version"] = "war-classic-2"
    if s.get("version") == "war-classic-2":
        s["options"]["length"] = "full_elimination"
        s["points"] = [0] * len(s["names"])
        s["version"] = "war-classic-3"
    if s.get("version") == "war-classic-3":
        # war-4 added the modes' options; a Classic game takes their defaults.
        s["options"] = resolve_options(OPTIONS, s["options"])
        s["version"] = VERSION
        return s
    raise ValueError(f"cannot continue a War game saved by {state.get('version')!r}")


def finish(state: dict, cause: str = "teacher") -> tuple[dict, list[dict]]:
    """The teacher ends the game now, or the lesson clock ran out (`cause`): players
    still in are ranked by the timed tie-break order, and the result's reason is
    "ended_by_facilitator" or "lesson_clock_ran_out"; the platform stopped a game that
    ran too long ("time_limit"): the same order, and the reason "ran_too_long"."""
    cause = finish_cause(cause)
    if state["status"] != "playing":
        fail("game_over", N_("The game is over."))
    s = copy_state(state)
    return s, _end_by_facilitator(s, cause)


def result(state: dict) -> dict | None:
    """Set once, when the game ends (a copy, so callers cannot change the state)."""
    return clone(state["result"])


# --------------------------------------------------------------------------
# Views, prompts, the bot and auto-play

def _prompt(s: dict, viewer, in_play: tuple[Variant, ...] | None = None, owed: list[int] | None = None) -> dict:
    """Who the game waits for and, for this viewer, what is asked, in words (`in_play`
    and `owed`: the state's variants and `waiting`, when the caller has them already)."""
    if s["status"] != "playing":
        winners = (s["result"] or {}).get("winners") or []
        if is_seat(s, viewer) and viewer in winners:
            text = N_("Game over: you win!") if len(winners) == 1 else \
                N_("Game over: you share the win with {names}!").format(names=names(s, [p for p in winners if p != viewer]))
        elif winners:
            text = _win_text(s, winners, over=True)
        else:
            text = N_("Game over.")
        return prompt([], text)
    in_play = _variants(s) if in_play is None else in_play
    for v in in_play:   # the controls' pause first
        if (paused := v.paused_prompt(s, viewer)) is not None:
            return paused
    for v in in_play:   # a war's bets, a loadout, a counter window
        if (asked := v.prompt(s, viewer)) is not None:
            return asked
    owed = waiting(s) if owed is None else owed
    war = s["stage"] > 0
    if is_seat(s, viewer) and is_out(s, viewer):
        return prompt(owed, N_("You are out of the game"))
    if is_seat(s, viewer) and viewer in owed:
        speed = s["autoplay"][viewer]
        if speed:
            text = (N_("War! Tap your deck: three cards go face down and one face up "
                       "(auto-play will reveal for you at speed {speed})") if war
                    else N_("Tap your deck to reveal (auto-play will reveal for you at speed {speed})"))
            return prompt(owed, text.format(speed=speed))
        return prompt(owed, N_("War! Tap your deck: three cards go face down and one face up") if war
                      else N_("Tap your deck to reveal"))
    if owed:
        text = (N_("War! Waiting for {names} to reveal") if war
                else N_("Waiting for {names} to reveal")).format(names=names(s, owed))
    else:
        text = N_("War! Waiting for the next battle") if war else N_("Waiting for the next battle")
    return prompt(owed, text)


def view(state: dict, viewer) -> dict:
    return views(state, [viewer])[viewer]


def views(state: dict, viewers: list) -> dict:
    """`view` of each of these viewers, built together: the `public` part, the same for
    every viewer, is built once and shared by their views (the platform sends a change to
    every seat; read the views, never change them). `view` builds one, all its own."""
    for viewer in viewers:
        if viewer not in (BOARD, FACILITATOR) and not is_seat(state, viewer):
            fail("forbidden", N_("That player is not at this table."))
    s = state
    in_play = _variants(s)
    owed = waiting(s) if s["status"] == "playing" else []
    public = _public(s, owed, in_play)
    return {viewer: {"public": public, "private": _private(s, viewer, owed, in_play) if is_seat(s, viewer) else {},
                     "prompt": _prompt(s, viewer, in_play, owed)} for viewer in viewers}


def _public(s: dict, owed: list[int], in_play: tuple[Variant, ...]) -> dict:
    """What every viewer sees of the match."""
    faces, pot = s["faces"], s["pot"]
    # A card is shown by id only while it lies face up in the pot: once taken
    # it sits in a deck, where its id would tell where it is.
    face_up = {item["id"] for item in pot if not item["down"]}
    committed = [{"down": True, "seat": item["seat"]} if item["down"] else
                 {"down": False, "seat": item["seat"], **cards.card_view(faces, item["id"])} for item in pot]
    kind, target = _length(s)
    seconds = clock_seconds(s)
    names_, decks, showing = s["names"], s["decks"], s["showing"]
    public = {
        "game": KEY,
        "mode": s["options"]["mode"],
        # The match length; a timed match's clock runs on the server (the timer
        # `clock_key`, `clock_seconds` long from the start).
        "length": {"choice": s["options"]["length"], "kind": kind,
                   "target": target if kind in ("cards", "points") else None,
                   "label": s["options"]["length"].replace("_", " ").capitalize(),
                   "clock_seconds": seconds,
                   "clock_key": None if seconds is None else f"clock:{seconds}"},
        "status": s["status"],
        "players": [{"seat": p, "name": names_[p], "cards": len(decks[p]),
                     "eliminated": s["out"][p] is not None, "autoplay": s["autoplay"][p],
                     "wins": s["wins"][p], "points": s["points"][p]}
                    for p in range(len(names_))],
        "deck_size": len(faces),
        "battle": s["battle"],
        "stage": "battle" if s["stage"] == 0 else s["stage"],
        "participants": list(s["participants"]),
        "waiting_for": owed,
        "revealed": list(s["taps"]),
        "showing": [{"seat": p, "card": cards.card_view(faces, showing[p])}
                    for p in range(len(names_)) if showing[p] in face_up],
        "committed": committed,
        "pot_count": len(pot),
        "carried": s["carried"],
        "last": _copy_last(s["last"]),
        "sudden_death": (None if s["sudden"] is None else
                         {"reason": s["sudden"]["reason"], "battles_left": s["sudden"]["left"],
                          "first_battle": s["sudden"]["first_battle"]}),
        "result": clone(s["result"]),
    }
    for v in in_play:
        v.public(s, public)
    return public


def _private(s: dict, viewer: int, owed: list[int], in_play: tuple[Variant, ...]) -> dict:
    """What only this seat sees."""
    private = {
        "seat": viewer,
        "name": s["names"][viewer],
        "cards": len(s["decks"][viewer]),
        "eliminated": is_out(s, viewer),
        "in_play": [cards.card_view(s["faces"], item["id"]) for item in s["pot"]
                    if item["seat"] == viewer and not item["down"]],
        "waiting": viewer in owed,
        "autoplay": s["autoplay"][viewer],
    }
    for v in in_play:
        v.private(s, viewer, private)
    return private


def bot(view: dict, actions: list[dict], rng) -> dict | None:
    """The computer player reveals whenever it is asked to, and does nothing
    else (it never touches auto-play). It sees only its own seat's view and
    actions; Classic War leaves it no choice, so `rng` goes unused (the variants'
    choices: each variant's `bot`, asked in `BOT_ORDER`)."""
    for v in BOT_ORDER:
        if (choice := v.bot(view, actions, rng)) is not None:
            return choice
    for action in actions:
        if action.get("type") == "reveal":
            return action
    return None


def clock_seconds(state: dict) -> int | None:
    """A timed match's length in seconds (None: the match has no clock)."""
    kind, minutes = _length(state)
    return minutes * 60 if kind == "minutes" else None


def timers(state: dict) -> list[dict]:
    """The match clock, and one timer per auto-playing seat that owes a reveal now.

    A timed match lists its clock, under one key, from the first state to the
    end: the platform keeps a listed timer's due time (so it counts from the
    start), pauses it with the table and keeps it across a restart; when it
    fires, `time_up` ends the match.

    `after` is the seat's auto-play delay in seconds, counted from the change
    that listed the timer. The key names the seat, the battle, the war stage
    and the speed, so every new reveal owed (or a change of speed) gets a key
    of its own; a timer whose key is no longer listed is no longer due.
    """
    if state["status"] != "playing":
        return []
    in_play = _variants(state)
    seconds = clock_seconds(state)
    clock = [] if seconds is None else [
        {"key": f"clock:{seconds}", "after": seconds, "actor": SYSTEM, "action": {"type": "time_up"}}]
    for v in in_play:
        clock = v.clock(state, clock)
    seats = []
    for v in in_play:   # Power War's loadout deadline
        seats += v.deadlines(state)
    seats += [
        {"key": f"auto:{p}:{state['battle']}:{state['stage']}:{state['autoplay'][p]}",
         "after": AUTO_DELAY[state["autoplay"][p]], "actor": p,
         "action": {"type": "reveal", "battle": state["battle"]},
         "pace": True}  # a playing pace, not a deadline: BOT_DELAY_SCALE speeds it up in tests
        for p in waiting(state) if state["autoplay"][p]]
    for v in in_play:   # Wager Battle's bets
        seats += v.autoplay_timers(state, AUTO_DELAY)
    # A seat whose play is paused (its own hold, or a computer in a held match)
    # has nothing due: its timers come back when it plays on.
    return clock + [timer for timer in seats if _paused_actions(state, timer["actor"], in_play) is None]


# --------------------------------------------------------------------------
# The variants, wired to the battle steps above they call back

CORE = BattleCore(new=new, copy_state=copy_state, waiting=waiting, resolve_stage=resolve_stage,
                  take_pot=take_pot, finish_battle=finish_battle, end_game=end_game)
CONTROLS = control.Controls(CORE)
WAGER = wager.Wager(CORE)
POWERS = powers.Powers(CORE)
# The order the core asks them in: a war's bets before Power War's moves (in the
# list of actions, a prompt, a refused reveal); the controls last (their pause
# hooks answer only for them, and their moves come after auto-play).
VARIANTS = (WAGER, POWERS, CONTROLS)
_VARIANT_KEYS = tuple(v.state_key for v in VARIANTS if v.state_key is not None)
_IN_PLAY: dict[tuple[bool, ...], tuple[Variant, ...]] = {}   # (key present?) -> the variants in play
# The computer player asks the controls first (playing on from a pause), then
# Power War's choices, then a bet. Their moves are never offered together, so
# this order only says who is asked first.
BOT_ORDER = (CONTROLS, POWERS, WAGER)
# Every move type and its exact fields (see `_check_payload`).
MOVE_FIELDS = {"reveal": {"type"}, "autoplay": {"type", "speed"}}
# The moves that answer the battle in play: `actions` lists them with its number, so
# the platform accepts one from an older view (they are order-free) only while that
# battle lasts, and `apply` refuses one naming another battle `stale`. A move without
# the number is still accepted, from the current view only (the platform's version check).
BATTLE_MOVES = frozenset({"reveal", "activate", "deactivate", "counter", "resolve"})
for _variant in VARIANTS:
    MOVE_FIELDS.update(_variant.moves)
    LOG_KINDS += _variant.log_kinds
