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
    finish(state) -> (state, log)                   the teacher ends the game
    timers(state) -> [{key, after, actor, action}]  auto-play reveals, the match clock

State is plain JSON. Seats are list indices; cards are opaque ids whose faces
sit in `state["faces"]`; decks list ids top first. See `_initial_state` for
the full shape.
"""
from __future__ import annotations

import hashlib

from ..contract import IllegalAction, Option, Rng, join_names, label, log, prompt, resolve_options, strip_label
from . import cards, powers, wager
from . import control  # hold, resume, restart (keys): hook lines marked "control"
from .rulings import rule

KEY = "war"
TITLE = "War"
VERSION = "war-4"
MIN_SEATS = 2
MAX_SEATS = 6
BLURB = "The classic card battle: everyone flips a card, the highest takes them all, and ties mean war."
# Match lengths (the option's values read well as labels: "First to 30 cards").
# value -> (kind, target): kind "elimination" (no target), "cards" (cards held at
# the end of a battle), "minutes" (a server-side clock) or "points" (see `_take_pot`).
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
MODES = ("classic", "power", "wager", "power_wager", "tournament", "survival")
RUN_MODES = ("tournament", "survival")   # solo runs (runs.py): one player against computer tables
LEVELS = ("easy", "standard", "hard")
OPTIONS = [
    Option("mode", "Mode", "classic", MODES,
           help="Classic plays the pure rules: reveal, highest card wins, ties go to war. "
                "Power War adds a loadout of powers paid for with energy. Wager Battle adds "
                "fictional chips: everyone antes each battle and bets in wars. Power and wager "
                "combines both. Tournament and Survival are solo runs against computer tables."),
    Option("computer_level", "Computer players", "standard", LEVELS,
           help="How computer players use powers and chips. Easy plays timidly, standard "
                "sensibly, hard makes the most of every power and bet. Computers never see "
                "hidden cards at any level."),
    Option("energy_start", "Starting energy (Power War)", 3, (0, 1, 2, 3, 4, 5, 6),
           help="Energy each player starts with; powers cost energy to activate."),
    Option("energy_per_battle", "Energy gained each battle (Power War)", 1, (0, 1, 2, 3),
           help="Energy every player regains at the start of each battle."),
    Option("energy_max", "Most energy a player can hold (Power War)", 10, (5, 8, 10, 12, 15),
           help="Energy above this is lost."),
    Option("bankroll", "Starting chips (Wager Battle)", 100, (50, 100, 150, 200, 300),
           help="Fictional chips each player starts with. Everyone antes 10 chips each battle."),
    Option("raise_amount", "Raise (Wager Battle)", 10, (5, 10, 20, 30),
           help="How many chips a raise in a war adds; Double Stakes doubles it. A raise is "
                "capped so that every player still in the war can call."),
    Option("length", "Match length", "full_elimination", tuple(LENGTHS),
           help="Full elimination plays until one player holds every card. First to 30, 40 or 45 cards: "
                "the first player holding that many cards after a battle wins. 3, 5 or 10 minutes: "
                "when the clock runs out, the most cards wins. First to 25, 50 or 100 points: "
                "a battle won scores 1 point, plus 1 for each war in it."),
]

# Every log entry kind War emits ("ruling" entries carry a catalogue id).
LOG_KINDS = ("reveal", "tie", "war", "out", "win", "carry", "autoplay", "ruling", "shuffle",
             "sudden_death", "time_up", "target", "end", "game_over",
             "run_enter", "run_won", "run_lost", "match_over", "power") + wager.LOG_KINDS  # runs.py, wager.py
LOG_KINDS += control.LOG_KINDS

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

def _fail(code: str, message: str):
    raise IllegalAction(code, message)


def _copy(x):
    """A deep copy of plain JSON data."""
    if isinstance(x, dict):
        return {k: _copy(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_copy(v) for v in x]
    return x


def _copy_state(s: dict) -> dict:
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
    if "wager" in s:
        out["wager"] = wager.copy(s["wager"])
    if "powers" in s:
        out["powers"] = powers.copy(s["powers"])
    return out


def _copy_last(last: dict | None) -> dict | None:
    """A copy of the last resolution's summary (see `_summary`), for a view."""
    if last is None:
        return None
    return {**last, "cards": [dict(c) for c in last["cards"]],
            "deciding": [{"seat": d["seat"], "card": dict(d["card"])} for d in last["deciding"]]}


def _rank(s: dict, cid: str) -> int:
    return cards.rank_of(s["faces"][cid])


def _name(s: dict, seat: int) -> str:
    return s["names"][seat]


def _names(s: dict, seats: list[int]) -> str:
    """'Ana', 'Ana and Ben', 'Ana, Ben and Cara'."""
    return join_names([_name(s, p) for p in seats])


def _is_out(s: dict, seat: int) -> bool:
    return s["out"][seat] is not None


def _active(s: dict) -> list[int]:
    return [p for p in range(len(s["names"])) if not _is_out(s, p)]


def _waiting(s: dict) -> list[int]:
    if "wager" in s and s["wager"]["bet"] is not None:
        return []   # a war stage's bets come before its cards
    return [p for p in s["participants"] if p not in s["taps"]]


def _is_seat(s: dict, who) -> bool:
    """A real seat index (True/False are ints in Python, but not seats)."""
    return isinstance(who, int) and not isinstance(who, bool) and 0 <= who < len(s["names"])


def _seat_of(s: dict, actor) -> int:
    """Validate who is acting: only a seat plays (the teacher ends a game with `finish`)."""
    if _is_seat(s, actor):
        return actor
    if actor == BOARD:
        _fail("forbidden", "The board only shows the game; it cannot make moves.")
    if actor == FACILITATOR:
        _fail("forbidden", "The facilitator cannot play for a player.")
    if actor == SYSTEM:
        _fail("forbidden", "The clock only ends a timed match.")
    _fail("forbidden", "That player is not at this table.")


def _length(s: dict) -> tuple[str, int]:
    """(kind, target) of this match's length (see LENGTHS)."""
    return LENGTHS[s["options"]["length"]]


# --------------------------------------------------------------------------
# Setting up

def new(options: dict, seats: list[str], seed: int) -> dict:
    """Shuffle, number the cards in shuffled order, deal round-robin from seat 0."""
    if (options or {}).get("mode") in RUN_MODES: return _runs.new(options, seats, seed)  # noqa: E701 (runs.py)
    if not MIN_SEATS <= len(seats) <= MAX_SEATS:
        _fail("illegal", f"War needs {MIN_SEATS} to {MAX_SEATS} players (only a Tournament or Survival "
                         "run is played alone).")
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
    s = {
        "game": KEY,
        "version": VERSION,
        "options": resolve_options(OPTIONS, options),
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
        "points": [0] * n,          # 1 per battle won, plus 1 per war in it (see `_take_pot`)
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
    if s["options"]["mode"] in wager.MODES:
        wager.setup(s)
    powers.setup(s)   # Power War only: the loadout phase (a Classic state gets no new key)
    control.setup(s, computers)
    _start_battle(s)  # the first position is recorded; it cannot be a repeat
    return s


# --------------------------------------------------------------------------
# What each viewer may do

def actions(state: dict, viewer) -> list[dict]:
    """A seat's moves, each with a label. The facilitator has none in War (the
    platform's own moderation and `finish` cover it); the board never acts."""
    if "run" in state: return _runs.actions(state, viewer)  # noqa: E701 (runs.py)
    if state["status"] != "playing":
        return []
    if (blocked := control.blocked_actions(state, viewer)) is not None:
        return blocked
    if not _is_seat(state, viewer) or _is_out(state, viewer):
        return []
    listed = []
    if viewer in _waiting(state):
        text = "Reveal your card" if state["stage"] == 0 else \
            "Reveal your card (three go face down first)"
        listed.append(label({"type": "reveal"}, text))
    if "wager" in state:
        listed += wager.actions(state, viewer)
    if "powers" in state:
        listed += powers.actions(state, viewer)
    current = state["autoplay"][viewer]
    for sp in SPEEDS:
        if sp == current:
            continue
        text = ("Turn auto-play off" if sp == 0 else
                f"Turn auto-play on (speed {sp})" if current == 0 else
                f"Switch auto-play to speed {sp}")
        listed.append(label({"type": "autoplay", "speed": sp}, text))
    listed += control.actions(state, viewer)
    return listed


def _check_payload(action) -> str:
    """Reject malformed actions before looking at whose turn it is."""
    if not isinstance(action, dict) or "type" not in action:
        _fail("illegal", "That is not a move in War.")
    kind = action["type"]
    fields = {"reveal": {"type"}, "autoplay": {"type", "speed"}, **wager.FIELDS, **powers.FIELDS}
    fields.update(control.FIELDS)
    if not isinstance(kind, str) or kind not in fields:
        _fail("illegal", "That is not a move in War.")
    if set(action) != fields[kind]:
        _fail("illegal", "That move has the wrong details.")
    if kind == "autoplay":
        speed = action["speed"]
        if type(speed) is not int or speed not in SPEEDS:
            _fail("illegal", "Auto-play speed must be 0 (off), 1, 2 or 4.")
    if kind in powers.FIELDS:
        powers.check_payload(action)
    return kind


def apply(state: dict, actor, action: dict) -> tuple[dict, list[dict]]:
    """One seat's move, or the match clock's `time_up` (actor "system"). The
    platform strips labels first; a labelled action (as listed by `actions`)
    is accepted too."""
    if "run" in state: return _runs.apply(state, actor, action)  # noqa: E701 (runs.py)
    if actor == SYSTEM and isinstance(action, dict) and action.get("type") == "time_up":
        return _time_up(state, action)
    seat = _seat_of(state, actor)
    if state["status"] != "playing":
        _fail("game_over", "The game is over.")
    if isinstance(action, dict) and isinstance(action.get("label"), str):
        action = strip_label(action)
    kind = _check_payload(action)
    if control.handles(state, seat, kind):
        return control.apply(state, seat, action)
    if _is_out(state, seat):
        _fail("not_your_turn", "You are out of this game.")
    s = _copy_state(state)
    if kind == "autoplay":
        return s, _set_autoplay(s, seat, action["speed"]) + (powers.autoplay_changed(s, seat) if "powers" in s else [])
    if kind in wager.FIELDS:
        return s, wager.act(s, seat, action)
    if kind in powers.FIELDS:
        return s, powers.apply(s, seat, action)
    if "wager" in s:
        wager.before_reveal(s, seat)
    if "powers" in s:
        powers.check_reveal(s, seat)
    return s, _reveal(s, seat)


def _set_autoplay(s: dict, seat: int, speed: int) -> list[dict]:
    if s["autoplay"][seat] == speed:
        _fail("illegal", "Auto-play is already set to that speed.")
    s["autoplay"][seat] = speed
    text = (f"{_name(s, seat)} turns auto-play off." if speed == 0
            else f"{_name(s, seat)} turns auto-play on at speed {speed}.")
    return [log("autoplay", text, seat=seat, speed=speed)]


# --------------------------------------------------------------------------
# Revealing and resolving

def _commit(s: dict, seat: int, cid: str, down: bool) -> None:
    """Move a card into the pot, remembering who put it in and how.

    `spent` counts every card but adds up face-up ranks only: it breaks ties
    between players knocked out together, and a face-down card may still be
    hidden when that ranking is announced.
    """
    s["pot"].append({"id": cid, "seat": seat, "down": down})
    s["spent"][seat][0] += 1
    if not down:
        s["spent"][seat][1] += _rank(s, cid)


def _reveal(s: dict, seat: int) -> list[dict]:
    if seat not in _waiting(s):
        if seat in s["participants"]:
            _fail("not_your_turn", "You have already revealed. Wait for the others.")
        _fail("not_your_turn", "You are not in this war. Wait for the tied players.")
    deck = s["decks"][seat]
    s["taps"].append(seat)
    battle, stage = s["battle"], s["stage"]
    if stage == 0:
        verb = "reveals"
    else:
        # Exactly three face down, then one face up (the stage start made sure
        # every remaining participant holds at least four cards).
        for _ in range(WAR_DOWN):
            _commit(s, seat, deck.pop(0), down=True)
        verb = "puts three cards face down and reveals"
    cid = deck.pop(0)
    _commit(s, seat, cid, down=False)
    s["showing"][seat] = cid
    s["last_up"][seat] = _rank(s, cid)
    shown = cards.face(s["faces"], cid)
    entries = [log("reveal", f"{_name(s, seat)} {verb} the {shown['name']}.",
                   battle=battle, stage=stage, seat=seat, card=shown)]
    if "powers" in s:   # Scout expiry; the counter window or the power steps, then _resolve_stage
        return entries + powers.revealed(s, seat)
    if not _waiting(s):
        entries += _resolve_stage(s)
    return entries


def _resolve_stage(s: dict) -> list[dict]:
    """Everyone in this stage has revealed: the highest rank wins, ties go to war."""
    entries = []
    if "war.commitment_order_is_tap_order" not in s["noted"]:
        s["noted"].append("war.commitment_order_is_tap_order")
        entries.append(rule("war.commitment_order_is_tap_order",
                            battle=s["battle"], order=list(s["taps"])))
    ranks = powers.ranks(s) if "powers" in s else {p: _rank(s, s["showing"][p]) for p in s["participants"]}
    high = max(ranks.values())
    tied = [p for p in s["participants"] if ranks[p] == high]
    if "powers" in s and len(tied) > 1:
        tied, more = powers.tiebreak(s, tied)
        entries += more
    if len(tied) == 1:
        return entries + _take_pot(s, tied[0]) + _finish_battle(s)
    return entries + _start_war(s, tied, high)


def _start_war(s: dict, tied: list[int], high: int) -> list[dict]:
    s["stage"] += 1
    battle, stage = s["battle"], s["stage"]
    entries = [log("tie", f"{_names(s, tied)} tie with {cards.rank_name(high, plural=True)}.",
                   battle=battle, stage=stage, seats=tied, rank=high)]
    # Knock out, at once, every tied player who cannot put up four cards.
    short = [p for p in tied if len(s["decks"][p]) < WAR_DOWN + 1]
    for p in short:
        given = len(s["decks"][p])
        while s["decks"][p]:
            _commit(s, p, s["decks"][p].pop(0), down=True)
        entries.append(log("out", f"{_name(s, p)} cannot put up four cards and is out of the game.",
                           battle=battle, stage=stage, seat=p, committed=given))
        entries.append(rule("war.short_cards_face_down", battle=battle, stage=stage,
                            seat=p, cards=given))
    survivors = [p for p in tied if p not in short]
    # Players outside the war who still hold cards (empty ones go out after it).
    others = [p for p in _active(s) if p not in tied and s["decks"][p]]
    if not survivors and not others:
        # Nobody holds a card any more: everyone left goes out together.
        return entries + _everyone_out(s, tied)
    if short:
        entries += _knock_out(s, short)
    if len(survivors) >= 2:
        s["participants"], s["taps"] = survivors, []
        entries.append(log("war", f"War! {_names(s, survivors)} each put three cards face down and one face up.",
                           battle=battle, stage=stage, seats=survivors))
        return entries + (wager.open_betting(s, survivors) if "wager" in s else [])
    if len(survivors) == 1:
        winner = survivors[0]
        entries.append(rule("war.sole_survivor_takes_pot", battle=battle, stage=stage,
                            seat=winner, knocked_out=short))
        return entries + _take_pot(s, winner) + _finish_battle(s)
    if len(others) == 1:
        winner = others[0]
        entries.append(rule("war.last_player_takes_pot", battle=battle, stage=stage,
                            seat=winner, knocked_out=short))
        return entries + _take_pot(s, winner) + _finish_battle(s)
    entries.append(rule("war.pot_carries_over", battle=battle, stage=stage,
                        knocked_out=short, pot=len(s["pot"])))
    entries.append(log("carry", f"Nobody wins the {len(s['pot'])} cards; they stay for the next battle.",
                       battle=battle, count=len(s["pot"])))
    s["carried"] = len(s["pot"])
    s["last"] = _summary(s, None)
    entries += wager.carry(s) if "wager" in s else []
    return entries + _finish_battle(s)


def _take_pot(s: dict, winner: int) -> list[dict]:
    """The winner puts the whole pot at the bottom, in commitment order."""
    entries = powers.before_take(s, winner) if "powers" in s else []
    pot = s["pot"]
    shown = _pot_faces(s)
    downs = [f for f in shown if f["down"]]
    if downs:
        entries.append(rule("war.face_down_shown_on_win", battle=s["battle"], seat=winner, cards=downs))
    s["decks"][winner].extend(item["id"] for item in pot)
    s["wins"][winner] += 1
    s["points"][winner] += 1 + s["stage"]   # the battle, and each war stage of it
    s["last"] = _summary(s, winner)
    entries.append(log("win", f"{_name(s, winner)} wins {len(pot)} cards.",
                       battle=s["battle"], seat=winner, count=len(pot), cards=shown))
    entries += wager.take_chips(s, winner) if "wager" in s else []
    s["pot"], s["carried"] = [], 0
    return entries + (powers.after_take(s, winner) if "powers" in s else [])


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


def _finish_battle(s: dict) -> list[dict]:
    """After a resolution: knock out empty decks, check the end, start the next battle."""
    entries = []
    empty = [p for p in _active(s) if not s["decks"][p]]
    for p in empty:
        entries.append(log("out", f"{_name(s, p)} has no cards left and is out of the game.",
                           battle=s["battle"], seat=p))
    if empty:
        entries += _knock_out(s, empty)
    active = _active(s)
    if len(active) == 1:
        return entries + _end_game(s, "elimination")
    kind, target = _length(s)
    if kind in ("cards", "points"):
        have = [len(s["decks"][p]) if kind == "cards" else s["points"][p] for p in active]
        reached = [p for p, x in zip(active, have) if x >= target]
        if reached:
            return entries + _reach_target(s, kind, target, reached, active, have)
    if s["sudden"] is not None:
        s["sudden"]["left"] -= 1
        if s["sudden"]["left"] == 0:
            entries.append(rule("war.sudden_death", battle=s["battle"], phase="end",
                                seats=active, cards=[len(s["decks"][p]) for p in active]))
            return entries + _end_game(s, "sudden_death")
    elif s["battle"] >= BATTLE_LIMIT:
        entries += _start_sudden_death(s, "limit")
    s["battle"] += 1
    return entries + _start_battle(s)


def _reach_target(s: dict, kind: str, target: int, reached: list[int], active: list[int],
                  have: list[int]) -> list[dict]:
    """A player holds `target` cards, or has `target` points, after a battle: the match ends."""
    what = "cards" if kind == "cards" else "points"
    entries = [rule(f"war.{what}_target", battle=s["battle"], target=target, seats=reached,
                    players=active, **{what: have}),
               log("target", f"{_names(s, reached)} reached {target} {what}.",
                   battle=s["battle"], seats=reached, target=target, kind=what)]
    return entries + _end_game(s, f"{what}_target")


def _time_up(state: dict, action) -> tuple[dict, list[dict]]:
    """The match clock has run out: the match ends at once (see war.time_up)."""
    if action != {"type": "time_up"}:
        _fail("illegal", "That move has the wrong details.")
    if state["status"] != "playing":
        _fail("game_over", "The game is over.")
    if _length(state)[0] != "minutes":
        _fail("illegal", "This match has no clock.")
    s = _copy_state(state)
    active = _active(s)
    # The unfinished battle's cards go back on top of the decks of the players
    # still in who put them in; a carried pot and a knocked-out player's cards
    # count for nobody.
    back = [[] for _ in s["names"]]
    kept = []
    for i, item in enumerate(s["pot"]):
        if i >= s["carried"] and item["seat"] in active:
            back[item["seat"]].append(item["id"])
        else:
            kept.append(item)
    for p in active:
        s["decks"][p] = back[p] + s["decks"][p]
    s["pot"] = kept
    chips = wager.time_up(s, active) if "wager" in s else []
    minutes = _length(s)[1]
    entries = [log("time_up", f"Time is up after {minutes} minutes.", battle=s["battle"], minutes=minutes),
               rule("war.time_up", battle=s["battle"], minutes=minutes, seats=active,
                    returned=[len(back[p]) for p in active], cards=[len(s["decks"][p]) for p in active])]
    return s, entries + chips + _end_game(s, "time_up")


def _start_battle(s: dict) -> list[dict]:
    s["stage"] = 0
    s["participants"] = _active(s)
    s["taps"] = []
    s["showing"] = [None] * len(s["names"])
    s["spent"] = [[0, 0] for _ in s["names"]]
    antes = wager.start_battle(s) if "wager" in s else []   # may knock out (bankrupt) or end the game
    entries = antes + _watch_for_repeats(s)
    return entries + powers.start_battle(s) if "powers" in s and s["status"] == "playing" else entries


def _mark_out(s: dict, seats: list[int]) -> None:
    """Knock these seats out together, at one new moment, remembering what
    they visibly put into this battle (it breaks ties between them later)."""
    s["moment"] += 1
    for p in seats:
        s["out"][p] = {"moment": s["moment"], "battle": s["battle"],
                       "cards": s["spent"][p][0], "shown": s["spent"][p][1]}
    # A knocked-out seat holds no cards from now on, so no later position can
    # repeat an earlier one: forget them.
    s["cycle"]["seen"] = ""


def _knock_out(s: dict, seats: list[int]) -> list[dict]:
    _mark_out(s, seats)
    if len(seats) >= 2:
        return [rule("war.elimination_tie_break", battle=s["battle"], seats=list(seats),
                     ranking=_order_out(s, seats), tied=_tied_out(s, seats))]
    return []


def _everyone_out(s: dict, tied: list[int]) -> list[dict]:
    """No one holds a card: all remaining players go out together and the game ends."""
    seats = _active(s)
    entries = [log("out", f"{_name(s, p)} has no cards left and is out of the game.",
                   battle=s["battle"], seat=p)
               for p in seats if p not in tied]
    _mark_out(s, seats)
    s["last"] = _summary(s, None)
    entries.append(rule("war.simultaneous_elimination", battle=s["battle"], seats=seats,
                        committed=[s["spent"][p][0] for p in seats],
                        ranking=_order_out(s, seats), tied=_tied_out(s, seats)))
    return entries + _end_game(s, "simultaneous_elimination")


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
        entries.append(log("shuffle", "The game is going round in circles, so every player's deck is shuffled.",
                           battle=s["battle"]))
        # Start watching afresh from the shuffled position.
        cyc["seen"], cyc["first"] = _position(s), s["battle"]
        return entries
    return entries + _start_sudden_death(s, "repeat")


def _start_sudden_death(s: dict, reason: str) -> list[dict]:
    first = s["battle"] + (1 if reason == "limit" else 0)
    s["sudden"] = {"reason": reason, "first_battle": first, "left": SUDDEN_DEATH_BATTLES}
    s["cycle"]["seen"] = ""   # no more repeat checks
    why = "the game keeps repeating" if reason == "repeat" else f"{BATTLE_LIMIT:,} battles have been played"
    return [rule("war.sudden_death", battle=s["battle"], phase="start", reason=reason,
                 battles=SUDDEN_DEATH_BATTLES),
            log("sudden_death", f"Sudden death: {why}, so {SUDDEN_DEATH_BATTLES} more battles decide the game.",
                battle=s["battle"], reason=reason, battles=SUDDEN_DEATH_BATTLES)]


# --------------------------------------------------------------------------
# Ending and ranking

def _timed_key(s: dict, seat: int) -> tuple:
    """Tie-break for players still in (the rule sheet's timed order): cards,
    rank total, battle wins, final reveal. Used only when the game ends."""
    deck = s["decks"][seat]
    return (len(deck), sum(_rank(s, c) for c in deck), s["wins"][seat], s["last_up"][seat])


def _out_key(s: dict, seat: int) -> tuple:
    """The order for knocked-out players, from public facts only: cards put
    into their last battle, the ranks of their face-up cards in it, battle
    wins, final face-up card. Face-down cards never count: they may be hidden."""
    out = s["out"][seat]
    return (out["cards"], out["shown"], s["wins"][seat], s["last_up"][seat])


def _order_out(s: dict, seats: list[int]) -> list[int]:
    return sorted(seats, key=lambda p: (tuple(-x for x in _out_key(s, p)), p))


def _tied_out(s: dict, seats: list[int]) -> list[list[int]]:
    """Groups of these seats that the tie-break order cannot separate."""
    groups: dict[tuple, list[int]] = {}
    for p in _order_out(s, seats):
        groups.setdefault(_out_key(s, p), []).append(p)
    return [g for g in groups.values() if len(g) > 1]


def _standing(s: dict, seat: int) -> tuple:
    """One comparable key for everyone: players still in above the knocked out,
    later knock-outs above earlier ones; among players still in, points first in
    a points match, then the tie-break order (`_timed_key`)."""
    if _is_out(s, seat):
        return (0, s["out"][seat]["moment"]) + _out_key(s, seat)
    points = s["points"][seat] if _length(s)[0] == "points" else 0
    return (1, points) + _timed_key(s, seat)


def _compute_result(s: dict, reason: str) -> dict:
    seats = range(len(s["names"]))
    ranking = sorted(seats, key=lambda p: (tuple(-x for x in _standing(s, p)), p))
    top = _standing(s, ranking[0])
    winners = [p for p in ranking if _standing(s, p) == top]
    scores = list(s["points"]) if _length(s)[0] == "points" else [len(d) for d in s["decks"]]
    return {"winners": winners, "ranking": ranking, "scores": scores, "reason": reason}


def _win_text(s: dict, winners: list[int]) -> str:
    if len(winners) == 1:
        return f"{_name(s, winners[0])} wins the game!"
    return f"{_names(s, winners)} share the win!"


def _end_game(s: dict, reason: str) -> list[dict]:
    s["status"] = "ended"
    s["participants"], s["taps"] = [], []
    res = s["result"] = _compute_result(s, reason)
    chips = wager.end(s, res) if "wager" in s else []   # scores: chips
    return chips + [log("game_over", _win_text(s, res["winners"]), battle=s["battle"], reason=reason,
                winners=res["winners"], ranking=res["ranking"])]


def _end_by_facilitator(s: dict) -> list[dict]:
    active = _active(s)
    entries = [log("end", "The teacher ends the game.", battle=s["battle"]),
               rule("war.facilitator_end", battle=s["battle"], seats=active,
                    cards=[len(s["decks"][p]) for p in active], pot=len(s["pot"]))]
    return entries + _end_game(s, "ended_by_facilitator")


def upgrade(state: dict) -> dict:
    """A snapshot saved by an earlier engine version, made playable by this one.

    war-classic-1 watched for repeats with one Brent checkpoint; its snapshot has
    everything else war-classic-2 keeps. Repeat watching starts afresh here.
    war-classic-2 had no match lengths: its games are full elimination, and
    nobody has scored points yet (they count only in a points match)."""
    if state.get("version") == VERSION:
        return state
    s = _copy(state)
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


def finish(state: dict) -> tuple[dict, list[dict]]:
    """The teacher ends the game now: players still in are ranked by the timed
    tie-break order, and the result's reason is "ended_by_facilitator"."""
    if "run" in state: return _runs.finish(state)  # noqa: E701 (runs.py)
    if state["status"] != "playing":
        _fail("game_over", "The game is over.")
    s = _copy_state(state)
    return s, _end_by_facilitator(s)


def result(state: dict) -> dict | None:
    """Set once, when the game ends (a copy, so callers cannot change the state)."""
    return _copy(state["result"])


# --------------------------------------------------------------------------
# Views, prompts, the bot and auto-play

def _prompt(s: dict, viewer) -> dict:
    """Who the game waits for and, for this viewer, what is asked, in words."""
    if s["status"] != "playing":
        winners = (s["result"] or {}).get("winners") or []
        if _is_seat(s, viewer) and viewer in winners:
            text = "Game over: you win!" if len(winners) == 1 else \
                f"Game over: you share the win with {_names(s, [p for p in winners if p != viewer])}!"
        elif winners:
            text = "Game over: " + _win_text(s, winners)
        else:
            text = "Game over."
        return prompt([], text)
    if (paused := control.held_prompt(s, viewer)) is not None:
        return paused
    if "wager" in s and s["wager"]["bet"] is not None:
        return wager.prompt_for(s, viewer)
    if "powers" in s and (asked := powers.prompt(s, viewer)) is not None:
        return asked
    waiting = _waiting(s)
    war = s["stage"] > 0
    if _is_seat(s, viewer) and _is_out(s, viewer):
        return prompt(waiting, "You are out of the game")
    if _is_seat(s, viewer) and viewer in waiting:
        speed = s["autoplay"][viewer]
        text = ("War! Tap your deck: three cards go face down and one face up" if war
                else "Tap your deck to reveal")
        if speed:
            text += f" (auto-play will reveal for you at speed {speed})"
        return prompt(waiting, text)
    text = f"Waiting for {_names(s, waiting)} to reveal" if waiting else "Waiting for the next battle"
    return prompt(waiting, ("War! " if war else "") + text)


def view(state: dict, viewer) -> dict:
    if "run" in state: return _runs.view(state, viewer)  # noqa: E701 (runs.py)
    if viewer not in (BOARD, FACILITATOR) and not _is_seat(state, viewer):
        _fail("forbidden", "That player is not at this table.")
    s = state
    waiting = _waiting(s) if s["status"] == "playing" else []
    # A card is shown by id only while it lies face up in the pot: once taken
    # it sits in a deck, where its id would tell where it is.
    face_up = {item["id"] for item in s["pot"] if not item["down"]}
    committed = []
    for item in s["pot"]:
        if item["down"]:
            committed.append({"down": True, "seat": item["seat"]})
        else:
            committed.append({"down": False, "seat": item["seat"], **cards.card_view(s["faces"], item["id"])})
    public = {
        "game": KEY,
        "mode": s["options"]["mode"],
        # The match length; a timed match's clock runs on the server (the timer
        # `clock_key`, `clock_seconds` long from the start).
        "length": {"choice": s["options"]["length"], "kind": _length(s)[0],
                   "target": _length(s)[1] if _length(s)[0] in ("cards", "points") else None,
                   "label": s["options"]["length"].replace("_", " ").capitalize(),
                   "clock_seconds": clock_seconds(s),
                   "clock_key": None if clock_seconds(s) is None else f"clock:{clock_seconds(s)}"},
        "status": s["status"],
        "players": [{"seat": p, "name": s["names"][p], "cards": len(s["decks"][p]),
                     "eliminated": _is_out(s, p), "autoplay": s["autoplay"][p],
                     "wins": s["wins"][p], "points": s["points"][p]}
                    for p in range(len(s["names"]))],
        "deck_size": len(s["faces"]),
        "battle": s["battle"],
        "stage": "battle" if s["stage"] == 0 else s["stage"],
        "participants": list(s["participants"]),
        "waiting_for": waiting,
        "revealed": list(s["taps"]),
        "showing": [{"seat": p, "card": cards.card_view(s["faces"], s["showing"][p])}
                    for p in range(len(s["names"])) if s["showing"][p] in face_up],
        "committed": committed,
        "pot_count": len(s["pot"]),
        "carried": s["carried"],
        "last": _copy_last(s["last"]),
        "sudden_death": (None if s["sudden"] is None else
                         {"reason": s["sudden"]["reason"], "battles_left": s["sudden"]["left"],
                          "first_battle": s["sudden"]["first_battle"]}),
        "result": _copy(s["result"]),
    }
    if "wager" in s:
        wager.public(s, public)
    control.public(s, public)
    if "powers" in s:
        powers.add_public(s, public)
    if not _is_seat(s, viewer):
        return {"public": public, "private": {}, "prompt": _prompt(s, viewer)}
    private = {
        "seat": viewer,
        "name": s["names"][viewer],
        "cards": len(s["decks"][viewer]),
        "eliminated": _is_out(s, viewer),
        "in_play": [cards.card_view(s["faces"], item["id"]) for item in s["pot"]
                    if item["seat"] == viewer and not item["down"]],
        "waiting": viewer in waiting,
        "autoplay": s["autoplay"][viewer],
    }
    control.private(s, viewer, private)
    if "powers" in s:
        private["powers"] = powers.private(s, viewer)
    return {"public": public, "private": private, "prompt": _prompt(s, viewer)}


def bot(view: dict, actions: list[dict], rng) -> dict | None:
    """The computer player reveals whenever it is asked to, and does nothing
    else (it never touches auto-play). It sees only its own seat's view and
    actions; War leaves it no choice, so `rng` goes unused (Power War's choices: powers.bot)."""
    if "run" in view["public"]: return _runs.bot(view, actions, rng)  # noqa: E701 (runs.py)
    if (resume := control.bot(actions)) is not None:
        return resume
    choice = powers.bot(view, actions, rng) if "powers" in view["public"] else None
    if choice is not None:
        return choice
    if any(action.get("type") in wager.FIELDS for action in actions):
        return wager.bot(view, actions, rng)
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
    if "run" in state: return _runs.timers(state)  # noqa: E701 (runs.py)
    if state["status"] != "playing":
        return []
    seconds = clock_seconds(state)
    clock = [] if seconds is None else [
        {"key": f"clock:{seconds}", "after": seconds, "actor": SYSTEM, "action": {"type": "time_up"}}]
    clock = control.clock(state, clock)
    seats = (powers.timers(state) if "powers" in state else []) + [   # the loadout deadline
        {"key": f"auto:{p}:{state['battle']}:{state['stage']}:{state['autoplay'][p]}",
         "after": AUTO_DELAY[state["autoplay"][p]], "actor": p, "action": {"type": "reveal"},
         "pace": True}  # a playing pace, not a deadline: BOT_DELAY_SCALE speeds it up in tests
        for p in _waiting(state) if state["autoplay"][p]] + \
        (wager.timers(state, AUTO_DELAY) if "wager" in state else [])
    # A seat whose play is paused (its own hold, or a computer in a held match)
    # has nothing due: its timers come back when it plays on.
    return clock + [t for t in seats if control.blocked_actions(state, t["actor"]) is None]


from . import runs as _runs  # noqa: E402  Tournament and Survival wrap matches of this engine
