"""Water Cycle Challenge: a pure, deterministic state machine (see DESIGN.md and
shared/rules/water-cycle-challenge.txt).

Digital table flow. The player whose turn it is may play one Weather card,
take one Main Action (trade a Cycle for a trophy, or challenge the Boss and
answer a trivia question) and then `draw`, which ends the turn. Anything that
asks another decision first opens a *prompt* (`state["pending"]`) that only
one seat (or, for a Crisis vote, the voters and the teacher) may answer:

    reservoir  the target of a Weather card may cancel it with a Reservoir
    surge      Evaporation Surge: the target discards 2 cards of their choice
    leak       Pipe Leakage: the target puts 1 card of their choice in the Bucket
    burst      Pipe Burst: the attacker looks at the target's hand and takes 1
    trivia     the challenger answers the Boss's question
    crisis     pick cards, explain, then the vote (order-free) or the teacher
    collapse   play the Emergency Response

Cards are interchangeable within a kind, so every choice names a kind
("evap", "reservoir"...), never a card id: no view ever shows an id, and a
card cannot be followed through the deck. Ids stay inside the state so the
cards can be counted (every card is always in exactly one place).

The functions of the engine contract (app/engines/contract.py):

    new(options, seats, seed) -> state
    actions(state, viewer) -> [labelled action, ...]
    apply(state, actor, action) -> (state, log)
    view(state, viewer) -> {"public", "private", "prompt"}
    bot(view, actions, rng) -> action | None
    result(state) -> None | {winners, ranking, scores, reason}
    finish(state, cause) -> (state, log)    the teacher (or the lesson clock) ends the game early
    timers(state) -> [{key, after, actor, action}]   the Crisis vote's time limit (the view's
                                            crisis.clock_key names it, for the screens' countdown)
"""
from __future__ import annotations

from collections import Counter

from ..contract import (IllegalAction, Option, Rng, clone, finish_cause, is_seat, join_names, label, log, prompt,
                        resolve_options, strip_label)
from ..text import N_, NP_
from . import content
from .rulings import rule

KEY = "water_cycle"
TITLE = N_("Water Cycle Challenge")
# water-cycle-2: a vote names the Crisis it answers ({"type": "vote", "crisis": n, "up": ...}),
# so a thumbs sent during one Crisis can never count in the next (upgrade() below).
VERSION = "water-cycle-2"
MIN_SEATS = 2
MAX_SEATS = 4
BLURB = N_("Collect Evaporation, Condensation, Precipitation and Collection to complete water cycles, "
           "battle the Boss with trivia and talk your way through water crises.")

FACILITATOR = "facilitator"
BOARD = "board"
SYSTEM = "system"

RESOURCES = ("evap", "cond", "precip", "collect")
WEATHER = ("monsoon", "forecast", "newater", "reservoir", "dry_spell", "diversion", "evaporation_surge",
           "pipe_burst", "pipe_leakage", "water_rationing")
TARGETED = ("dry_spell", "diversion", "evaporation_surge", "pipe_burst", "pipe_leakage")
HAND_TARGETED = ("diversion", "evaporation_surge", "pipe_burst", "pipe_leakage")
PLAYABLE = ("monsoon", "forecast", "water_rationing") + TARGETED   # NEWater and Reservoir are not "played"
CRISIS, COLLAPSE, EMERGENCY = "crisis", "collapse", "emergency"
RESOURCE_COPIES = 6
WEATHER_COPIES = 3
HAND = 5
DRAW = 2
GOAL = 5
BOSS_HP = 3
BOSS_MAX_HP = 5
BONUS_MAX = 3
BUCKET_MAX = 12   # three Cycles: more would starve the table of Resources (ruling water_cycle.bucket_limit)
SURGE_DISCARDS = 2
FORECAST_PEEK = 3
EXPLANATION_MAX = 400
REASON_MAX = 200
VOTE_MODES = ("players", "confirm", "teacher")
VOTE_SECONDS = (0, 30, 60, 90)
LEVELS = ("easy", "standard", "expert")
# Rounds that fit a 40-minute lesson at classroom pace (bench/game_lengths.py: a Crisis
# explanation typed on a phone is the minute that counts; four players meet about one
# Crisis a turn). Unlimited, four players' p90 game took over three hours.
LESSON_ROUNDS = {2: 24, 3: 12, 4: 7}
KNOWS = {"easy": 0.4, "standard": 0.7, "expert": 1.0}   # chance a computer player knows a trivia answer
# Chance a computer player makes a careless choice of cards (which to keep, take, spend
# or play): without it the three levels played alike (bench/computer_strength.py).
SLIPS = {"easy": 0.7, "standard": 0.3, "expert": 0.0}

OPTIONS = [
    Option("crisis_mode", N_("Crisis Mode"), "on", ("on", "off"),
           help=N_("On: Crisis cards and the Reservoir Collapse are in the deck. Off: a calmer first lesson.")),
    Option("votes", N_("Crisis explanations are decided by"), "players", VOTE_MODES,
           help=N_("players: the other players' vote decides. confirm: they vote, then the teacher confirms "
                "or overrides. teacher: the teacher decides.")),
    Option("vote_seconds", N_("Vote time limit"), 60, VOTE_SECONDS,
           help=N_("Seconds before a Crisis vote closes with the votes cast (0: no limit).")),
    Option("computer_level", N_("Computer players"), "standard", LEVELS,
           help=N_("How often computer players know the trivia answers, and how carefully they choose their cards.")),
    Option("rounds", N_("Round limit"), "lesson", ("lesson", 0, 10, 15, 20),
           help=N_("lesson (the default): as many rounds as fit a 40-minute lesson for the table's size "
                "(24 for two players, 12 for three, 7 for four). 0: play until someone has 5 trophies "
                "(the rule sheet). Otherwise the game also ends after this many rounds, and the most "
                "trophies win: a lesson has an end.")),
    Option("trivia", N_("Trivia questions"), None, (),
           help=N_("None: the built-in bank. Otherwise a teacher's uploaded bank (a list of questions).")),
]
PRESETS = {"classroom": {"crisis_mode": "on", "votes": "confirm", "rounds": 15},
           "first_lesson": {"crisis_mode": "off"},
           "student_judges": {"crisis_mode": "on", "votes": "players"}}

# Which actor may send each action type, and the exact fields each one has.
FIELDS = {
    "weather": {"type", "card"}, "weather_at": {"type", "card", "target"}, "trade": {"type"},
    "challenge": {"type"}, "draw": {"type"}, "respond": {"type", "use"}, "discard": {"type", "card"},
    "leak": {"type", "card"}, "take": {"type", "card"}, "answer": {"type", "choice"},
    "pick": {"type", "card"}, "unpick": {"type", "card"}, "explain": {"type", "text"}, "give_up": {"type"},
    "vote": {"type", "crisis", "up"}, "defuse": {"type"},
    "accept": {"type"}, "reject": {"type", "reason"}, "hide": {"type"}, "show": {"type"},
    "extend": {"type"}, "close": {"type"}, "time_up": {"type", "vote"},
}
FACILITATOR_KINDS = {"accept", "reject", "hide", "show", "extend", "close"}
SYSTEM_KINDS = {"time_up"}


# --------------------------------------------------------------------------
# Small helpers

def _fail(code: str, message: str):
    raise IllegalAction(code, message)


def _is_seat(s: dict, who) -> bool:
    return is_seat(s["names"], who)


def _name(s: dict, seat: int) -> str:
    return s["names"][seat]


def card_name(kind: str) -> str:
    return content.CARD_NAMES[kind]


def _kinds(s: dict, ids: list[str]) -> Counter:
    return Counter(s["kinds"][c] for c in ids)


def _hand_kinds(s: dict, seat: int) -> Counter:
    return _kinds(s, s["hands"][seat])


def _take_kind(s: dict, seat: int, kind: str) -> str:
    """Remove one card of `kind` from a hand (the last one held) and return its id."""
    hand = s["hands"][seat]
    for i in range(len(hand) - 1, -1, -1):
        if s["kinds"][hand[i]] == kind:
            return hand.pop(i)
    _fail("illegal", N_("You hold no {card} card.").format(card=card_name(kind)))


def _cycle_plan(counts: Counter) -> list[str] | None:
    """The kinds a Cycle would spend from this hand: the four Resources, or three
    of them plus NEWater for the missing one; None when no Cycle is possible."""
    missing = [k for k in RESOURCES if counts[k] == 0]
    if not missing:
        return list(RESOURCES)
    if len(missing) == 1 and counts["newater"]:
        return [k for k in RESOURCES if k != missing[0]] + ["newater"]
    return None


def _rng(s: dict) -> Rng:
    return Rng(s["rng"])


def _shuffle(s: dict, items: list) -> None:
    rng = _rng(s)
    rng.shuffle(items)
    s["rng"] = rng.state
    if items is s["deck"]:
        s["peek"] = None   # a Forecast tells the top of the deck only until it is shuffled


def _pop(s: dict, i: int = 0) -> str:
    """Take the card at position `i` of the draw pile; a Forecast peek loses what it saw
    being drawn (or all of it, when a card is taken from under the peeked ones)."""
    peek = s["peek"]
    if peek is not None:
        peek["cards"] = peek["cards"][1:] if i == 0 else peek["cards"][:i]
        if not peek["cards"]:
            s["peek"] = None
    return s["deck"].pop(i)


def _insert_randomly(s: dict, cid: str) -> None:
    """Put a card back into the draw pile at a random place."""
    rng = _rng(s)
    where = rng.below(len(s["deck"]) + 1)
    s["deck"].insert(where, cid)
    s["rng"] = rng.state
    if s["peek"] is not None and where < len(s["peek"]["cards"]):
        s["peek"]["cards"] = s["peek"]["cards"][:where]   # what lies below the new card is no longer known


def _threat(s: dict, cid: str) -> bool:
    return s["kinds"][cid] in (CRISIS, COLLAPSE)


# --------------------------------------------------------------------------
# Setting up

def new(options: dict, seats: list[str], seed) -> dict:
    if not isinstance(seats, list) or not MIN_SEATS <= len(seats) <= MAX_SEATS:
        _fail("illegal", N_("Water Cycle Challenge needs {min} to {max} players.").format(min=MIN_SEATS, max=MAX_SEATS))
    resolved = resolve_options(OPTIONS, options)
    questions = resolved.pop("trivia")
    if questions is not None:
        problems = content.bank_problems(questions)
        if problems:
            _fail("bad_request", N_("The trivia bank is not usable: {problem}").format(problem=problems[0]))
    n = len(seats)
    s = {
        "game": KEY, "version": VERSION, "options": resolved, "names": list(seats), "status": "playing",
        "rng": Rng.from_seed(seed).state,   # the whole generator: never in a view
        "kinds": {},                        # card id -> kind (a Crisis card's kind is "crisis")
        "crises": {},                       # Crisis card id -> which disaster it is
        "deck": [], "discard": [], "bucket": [], "removed": [],
        "hands": [[] for _ in seats],
        "emergency": [None] * n,            # each player's face-up Emergency Response (id) or None
        "trophies": [0] * n,
        "boss": {"hp": BOSS_HP, "max_hp": BOSS_HP, "defeats": 0},
        "turn": 0, "turn_no": 1,
        "skips": [0] * n, "skipped": [0] * n,
        "weather_played": False, "main_done": False,
        "pending": None, "peek": None, "last_weather": None, "last_crisis": None, "last_trivia": None,
        "vote_no": 0,                       # counts Crisis votes: names each vote's timer
        "crisis_no": 0,                     # counts Crises struck: a vote names the one it answers
        "custom_trivia": questions,         # a teacher's bank, or None for the built-in one
        "trivia_order": [], "trivia_asked": 0,
        "announced": False,                 # the set-up rulings are logged with the first move
        "result": None,
    }
    counter = iter(range(10_000))

    def make(kind: str) -> str:
        cid = f"c{next(counter)}"
        s["kinds"][cid] = kind
        return cid

    for kind in RESOURCES:
        s["deck"] += [make(kind) for _ in range(RESOURCE_COPIES)]
    for kind in WEATHER:
        s["deck"] += [make(kind) for _ in range(WEATHER_COPIES)]
    for seat in range(n):
        s["emergency"][seat] = make(EMERGENCY)
    _shuffle(s, s["deck"])
    for _ in range(HAND):
        for seat in range(n):
            s["hands"][seat].append(s["deck"].pop(0))
    if resolved["crisis_mode"] == "on":
        disasters = [c["id"] for c in content.CRISES]
        _shuffle(s, disasters)
        for i in range(2 * (n - 1) + 2):
            cid = make(CRISIS)
            s["crises"][cid] = disasters[i % len(disasters)]
            s["deck"].append(cid)
        s["deck"].append(make(COLLAPSE))
        _shuffle(s, s["deck"])
    order = list(range(len(_bank(s))))
    _shuffle(s, order)
    s["trivia_order"] = order
    return s


def _bank(s: dict) -> list[dict]:
    return s["custom_trivia"] if s["custom_trivia"] is not None else content.QUESTIONS


# --------------------------------------------------------------------------
# Who the game waits for

def _voters(s: dict) -> list[int]:
    p = s["pending"]
    return [v for v in range(len(s["names"])) if v != p["seat"]]


def _waiting(s: dict) -> list[int]:
    if s["status"] != "playing":
        return []
    p = s["pending"]
    if p is None:
        return [s["turn"]]
    if p["kind"] == "crisis":
        if p["stage"] == "choose":
            return [p["seat"]]
        if p["stage"] == "vote":
            return [v for v in _voters(s) if str(v) not in p["votes"]]
        return []   # review: the teacher decides
    return [p["seat"]]


# --------------------------------------------------------------------------
# What each viewer may do

def actions(state: dict, viewer) -> list[dict]:
    s = state
    if s["status"] != "playing":
        return []
    p = s["pending"]
    if viewer == FACILITATOR:
        return _facilitator_actions(s)
    if not _is_seat(s, viewer) or viewer not in _waiting(s):
        return []
    if p is None:
        return _turn_actions(s, viewer)
    kind = p["kind"]
    hand = _hand_kinds(s, viewer)
    if kind == "reservoir":
        weather = card_name(p["weather"])
        return [label({"type": "respond", "use": True},
                      N_("Play your Reservoir to cancel {card}").format(card=weather)),
                label({"type": "respond", "use": False}, N_("Let {card} happen").format(card=weather))]
    if kind == "surge":
        return [label({"type": "discard", "card": k}, N_("Discard {card}").format(card=card_name(k)))
                for k in sorted(hand)]
    if kind == "leak":
        return [label({"type": "leak", "card": k}, N_("Put {card} in the Boss's Bucket").format(card=card_name(k)))
                for k in sorted(hand)]
    if kind == "burst":
        theirs = _hand_kinds(s, p["target"])
        return [label({"type": "take", "card": k},
                      N_("Take {card} from {name}").format(card=card_name(k), name=_name(s, p["target"])))
                for k in sorted(theirs)]
    if kind == "trivia":
        q = _bank(s)[p["q"]]
        return [label({"type": "answer", "choice": i}, N_("{letter}: {option}").format(letter="ABCD"[i], option=text))
                for i, text in enumerate(q["options"])]
    if kind == "collapse":
        return [label({"type": "defuse"}, N_("Play your Emergency Response"))]
    if kind == "crisis" and p["stage"] == "choose":
        picked = Counter(p["picked"])
        listed = [label({"type": "pick", "card": k}, N_("Use {card}").format(card=card_name(k)))
                  for k in sorted(hand) if hand[k] > picked[k]]
        listed += [label({"type": "unpick", "card": k}, N_("Put back {card}").format(card=card_name(k)))
                   for k in sorted(picked)]
        if picked:
            listed.append(label({"type": "explain", "text": ""},
                                NP_("Explain how your card helps", "Explain how your {n} cards help",
                                    sum(picked.values())).format(n=sum(picked.values()))))
        listed.append(label({"type": "give_up"},
                            N_("Give up: shuffle your hand away and draw {n} fresh").format(n=HAND)))
        return listed
    if kind == "crisis" and p["stage"] == "vote":
        who = _name(s, p["seat"])
        # The vote names its Crisis: the platform accepts an order-free action from an
        # older view only while it is still listed, so a late thumbs is refused `stale`.
        return [label({"type": "vote", "crisis": p["no"], "up": True},
                      N_("Thumbs up: {name}'s answer works").format(name=who)),
                label({"type": "vote", "crisis": p["no"], "up": False},
                      N_("Thumbs down: {name}'s answer does not work").format(name=who))]
    return []


def _turn_actions(s: dict, seat: int) -> list[dict]:
    listed = []
    hand = _hand_kinds(s, seat)
    if not s["weather_played"]:
        for kind in PLAYABLE:
            if not hand[kind]:
                continue
            if kind not in TARGETED:
                listed.append(label({"type": "weather", "card": kind}, N_("Play {card}").format(card=card_name(kind))))
                continue
            for target in _targets(s, seat, kind):
                listed.append(label({"type": "weather_at", "card": kind, "target": target},
                                    N_("Play {card} on {name}").format(card=card_name(kind), name=_name(s, target))))
    if not s["main_done"] and _cycle_plan(hand):
        listed.append(label({"type": "trade"}, N_("Trade a Cycle for a trophy")))
        listed.append(label({"type": "challenge"}, N_("Challenge the Boss: put a Cycle in the Bucket and answer")))
    count = HAND if not s["hands"][seat] else DRAW
    listed.append(label({"type": "draw"}, NP_("Draw {n} card and end your turn", "Draw {n} cards and end your turn",
                                              count).format(n=count)))
    return listed


def _targets(s: dict, seat: int, kind: str) -> list[int]:
    others = [p for p in range(len(s["names"])) if p != seat]
    if kind in HAND_TARGETED:
        return [p for p in others if s["hands"][p]]
    return others


def _facilitator_actions(s: dict) -> list[dict]:
    p = s["pending"]
    if p is None or p["kind"] != "crisis" or p["stage"] == "choose":
        return []
    who = _name(s, p["seat"])
    listed = [label({"type": "accept"}, N_("Accept {name}'s explanation").format(name=who)),
              label({"type": "reject", "reason": ""}, N_("Reject {name}'s explanation").format(name=who))]
    listed.append(label({"type": "show"}, N_("Show the explanation again")) if p["hidden"]
                  else label({"type": "hide"}, N_("Hide the explanation from the board and phones")))
    if p["stage"] == "vote":
        if s["options"]["vote_seconds"]:
            listed.append(label({"type": "extend"},
                                N_("Give the vote {n} more seconds").format(n=s["options"]["vote_seconds"])))
        listed.append(label({"type": "close"}, N_("Close the vote with the votes cast")))
    return listed


# --------------------------------------------------------------------------
# Applying an action

def _check_payload(s: dict, action) -> tuple[str, dict]:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        _fail("illegal", N_("That is not a move in Water Cycle Challenge."))
    action = strip_label(action)
    kind = action["type"]
    if kind not in FIELDS:
        _fail("illegal", N_("That is not a move in Water Cycle Challenge."))
    if set(action) != FIELDS[kind]:
        _fail("illegal", N_("That move has the wrong details."))
    if "card" in action and action["card"] not in content.CARD_NAMES:
        _fail("illegal", N_("There is no such card."))
    if kind == "weather_at" and not _is_seat(s, action["target"]):
        _fail("illegal", N_("There is no player in that seat."))
    if kind in ("respond", "vote") and not isinstance(action.get("use", action.get("up")), bool):
        _fail("illegal", N_("Answer yes or no."))
    if kind == "answer" and action["choice"] not in (0, 1, 2, 3):
        _fail("illegal", N_("Pick answer A, B, C or D."))
    if kind in ("explain", "reject"):
        text = action["text" if kind == "explain" else "reason"]
        limit = EXPLANATION_MAX if kind == "explain" else REASON_MAX
        if not isinstance(text, str) or "\x00" in text:
            _fail("illegal", N_("That text cannot be used."))
        if len(text) > limit:
            _fail("illegal", N_("Keep it under {n} characters.").format(n=limit))
        if kind == "explain" and not text.strip():
            _fail("illegal", N_("Write how your cards help before you send it."))
    if kind == "vote" and (not isinstance(action["crisis"], int) or isinstance(action["crisis"], bool)):
        _fail("illegal", N_("Say which Crisis the vote is for."))
    if kind == "time_up" and not isinstance(action["vote"], int):
        _fail("illegal", N_("That is not a move in Water Cycle Challenge."))
    return kind, action


def apply(state: dict, actor, action: dict) -> tuple[dict, list[dict]]:
    if actor == BOARD:
        _fail("forbidden", N_("The board only shows the game; it cannot make moves."))
    if not (actor in (FACILITATOR, SYSTEM) or _is_seat(state, actor)):
        _fail("forbidden", N_("That player is not at this table."))
    if state["status"] != "playing":
        _fail("game_over", N_("The game is over."))
    kind, action = _check_payload(state, action)
    if kind in FACILITATOR_KINDS and actor != FACILITATOR:
        _fail("forbidden", N_("Only the teacher can do that."))
    if kind in SYSTEM_KINDS and actor != SYSTEM:
        _fail("forbidden", N_("Only the clock closes a vote."))
    if kind not in FACILITATOR_KINDS | SYSTEM_KINDS and not _is_seat(state, actor):
        _fail("forbidden", N_("Only a player can do that; the teacher cannot play for a player."))
    s = clone(state)
    out: list[dict] = []
    if not s["announced"]:
        s["announced"] = True
        out.append(rule("water_cycle.threats_after_deal", crisis_mode=s["options"]["crisis_mode"]))
    if kind == "time_up":
        _time_up(s, action["vote"], out)
    elif actor == FACILITATOR:
        _moderate(s, kind, action, out)
    else:
        _seat_move(s, actor, kind, action, out)
    _check_overflow(s, out)
    _check_piles(s, out)
    return s, out


def _seat_move(s: dict, seat: int, kind: str, action: dict, out: list) -> None:
    p = s["pending"]
    if p is None:
        if seat != s["turn"]:
            _fail("not_your_turn", N_("It is {name}'s turn.").format(name=_name(s, s["turn"])))
        if kind not in ("weather", "weather_at", "trade", "challenge", "draw"):
            _fail("illegal", N_("There is nothing to answer right now."))
        {"weather": _play_weather, "weather_at": _play_weather, "trade": _trade, "challenge": _challenge,
         "draw": _draw_and_end}[kind](s, seat, action, out)
        return
    expected = {"reservoir": {"respond"}, "surge": {"discard"}, "leak": {"leak"}, "burst": {"take"},
                "trivia": {"answer"}, "collapse": {"defuse"},
                "crisis": {"choose": {"pick", "unpick", "explain", "give_up"}, "vote": {"vote"},
                           "review": set()}.get(p.get("stage"), set())}[p["kind"]]
    if seat not in _waiting(s):
        if kind == "vote" and p["kind"] == "crisis" and p["stage"] == "vote" and str(seat) in p["votes"]:
            _fail("illegal", N_("You have already voted."))
        waiting = [_name(s, w) for w in _waiting(s)]
        _fail("not_your_turn", N_("The game is waiting for {names}.").format(names=join_names(waiting)) if waiting
              else N_("The game is waiting for the teacher."))
    if kind not in expected:
        template, fields = _prompt_parts(s, seat)
        if template.startswith("{name}"):   # today's English lowers the first letter, even of a name
            fields = dict(fields, name=fields["name"][:1].lower() + fields["name"][1:])
        _fail("illegal", FIRST[template].format(**fields))
    handler = {"respond": _respond, "discard": _surge_discard, "leak": _leak, "take": _take,
               "answer": _answer, "defuse": _defuse, "pick": _pick, "unpick": _unpick,
               "explain": _explain, "give_up": _give_up, "vote": _vote}[kind]
    handler(s, seat, action, out)


# ---- Weather cards ----------------------------------------------------------

def _play_weather(s: dict, seat: int, action: dict, out: list) -> None:
    kind = action["card"]
    if s["weather_played"]:
        _fail("illegal", N_("You have already played a Weather card this turn."))
    if kind not in PLAYABLE:
        why = (N_("{card} is not played on its own: it stands in for a Resource when you spend a Cycle.")
               if kind == "newater"
               else N_("{card} is not played on its own: keep it to cancel a Weather card aimed at you.")
               if kind == "reservoir" else N_("{card} is not played on its own: it is not a Weather card."))
        _fail("illegal", why.format(card=card_name(kind)))
    targeted = kind in TARGETED
    if targeted != (action["type"] == "weather_at"):
        _fail("illegal", (N_("Pick a player for {card}.") if targeted
                          else N_("{card} is not aimed at a player.")).format(card=card_name(kind)))
    target = action.get("target")
    if targeted:
        if target == seat:
            _fail("illegal", N_("Pick another player, not yourself."))
        if target not in _targets(s, seat, kind):
            _fail("illegal", N_("{name} has no cards to aim {card} at.").format(name=_name(s, target),
                                                                                card=card_name(kind)))
    cid = _take_kind(s, seat, kind)
    s["weather_played"] = True
    if s["main_done"]:
        out.append(rule("water_cycle.weather_after_main", seat=seat, card=kind))
    who = _name(s, seat)
    s["last_weather"] = {"card": kind, "by": seat, "target": target, "cancelled": False}
    if not targeted:
        s["discard"].append(cid)
        out.append(log("weather", N_("{name} played {card}.").format(name=who, card=card_name(kind)),
                       seat=seat, card=kind))
        {"monsoon": _monsoon, "forecast": _forecast, "water_rationing": _rationing}[kind](s, seat, out)
        return
    text = N_("{name} played {card} on {target}.").format(name=who, card=card_name(kind), target=_name(s, target))
    out.append(log("weather", text, seat=seat, card=kind, target=target))
    excluded = [p for p in range(len(s["names"])) if p != seat and not s["hands"][p]]
    if kind in HAND_TARGETED and excluded:
        out.append(rule("water_cycle.hand_targets", seat=seat, card=kind, excluded=excluded))
    if _hand_kinds(s, target)["reservoir"]:
        s["pending"] = {"kind": "reservoir", "seat": target, "by": seat, "weather": kind, "card": cid}
        return
    s["discard"].append(cid)
    _weather_effect(s, seat, kind, target, out)


def _respond(s: dict, seat: int, action: dict, out: list) -> None:
    p = s["pending"]
    s["pending"] = None
    attacker, kind = p["by"], p["weather"]
    s["discard"].append(p["card"])
    if action["use"]:
        s["discard"].append(_take_kind(s, seat, "reservoir"))
        s["last_weather"]["cancelled"] = True
        text = N_("{name} played a Reservoir and cancelled {card}.").format(name=_name(s, seat), card=card_name(kind))
        out.append(log("reservoir", text, seat=seat, card=kind))
        out.append(rule("water_cycle.reservoir_response", seat=seat, attacker=attacker, card=kind))
        return
    out.append(log("reservoir_kept", N_("{name} kept their Reservoir.").format(name=_name(s, seat)),
                   seat=seat, card=kind))
    _weather_effect(s, attacker, kind, seat, out)


def _weather_effect(s: dict, seat: int, kind: str, target: int, out: list) -> None:
    who, them = _name(s, seat), _name(s, target)
    if kind == "dry_spell":
        s["skips"][target] += 1
        out.append(log("dry_spell", N_("{name} will skip their next turn.").format(name=them), target=target))
        if s["skips"][target] > 1:
            out.append(rule("water_cycle.dry_spells_add_up", target=target, skips=s["skips"][target]))
    elif kind == "diversion":
        rng = _rng(s)
        cid = s["hands"][target].pop(rng.below(len(s["hands"][target])))
        s["rng"] = rng.state
        s["hands"][seat].append(cid)
        took = card_name(s["kinds"][cid])
        out.append(log("diversion", N_("{name} took a random card from {target}.").format(name=who, target=them),
                       seat=seat, target=target))
        out.append(log("diversion_card", N_("The card was {card}.").format(card=took), visible_to=[seat, target],
                       seat=seat, target=target, card=s["kinds"][cid]))
    elif kind == "evaporation_surge":
        left = min(SURGE_DISCARDS, len(s["hands"][target]))
        s["pending"] = {"kind": "surge", "seat": target, "by": seat, "left": left}
    elif kind == "pipe_leakage":
        s["pending"] = {"kind": "leak", "seat": target, "by": seat}
    elif kind == "pipe_burst":
        s["pending"] = {"kind": "burst", "seat": seat, "target": target}
        out.append(log("burst", N_("{name} looks at {target}'s hand.").format(name=who, target=them),
                       seat=seat, target=target))


def _surge_discard(s: dict, seat: int, action: dict, out: list) -> None:
    p = s["pending"]
    s["discard"].append(_take_kind(s, seat, action["card"]))
    text = N_("{name} discarded {card}.").format(name=_name(s, seat), card=card_name(action["card"]))
    out.append(log("surge", text, seat=seat, card=action["card"]))
    p["left"] -= 1
    if p["left"] <= 0 or not s["hands"][seat]:
        s["pending"] = None


def _leak(s: dict, seat: int, action: dict, out: list) -> None:
    _into_bucket(s, [_take_kind(s, seat, action["card"])], out)
    s["pending"] = None
    out.append(log("leak", N_("{name} put a card into the Boss's Bucket.").format(name=_name(s, seat)), seat=seat))
    out.append(log("leak_card", N_("It was {card}.").format(card=card_name(action["card"])), visible_to=[seat],
                   seat=seat, card=action["card"]))


def _take(s: dict, seat: int, action: dict, out: list) -> None:
    target = s["pending"]["target"]
    s["hands"][seat].append(_take_kind(s, target, action["card"]))
    s["pending"] = None
    text = N_("{name} took a card from {target}.").format(name=_name(s, seat), target=_name(s, target))
    out.append(log("take", text, seat=seat, target=target))
    out.append(log("take_card", N_("The card was {card}.").format(card=card_name(action["card"])),
                   visible_to=[seat, target], seat=seat, target=target, card=action["card"]))


def _monsoon(s: dict, seat: int, out: list) -> None:
    _draw(s, seat, DRAW, out, after="turn", why=card_name("monsoon"))


def _forecast(s: dict, seat: int, out: list) -> None:
    _refresh_deck_if_empty(s, out)
    top = [s["kinds"][c] for c in s["deck"][:FORECAST_PEEK]]
    s["peek"] = {"seat": seat, "cards": top, "turn_no": s["turn_no"]}
    out.append(log("forecast", N_("{name} peeked at the top of the draw pile.").format(name=_name(s, seat)), seat=seat))
    out.append(log("forecast_cards", (N_("You saw: {cards}.").format(cards=", ".join(card_name(k) for k in top)) if top
                    else N_("You saw: nothing.")),
                   visible_to=[seat], seat=seat, cards=top))


def _rationing(s: dict, seat: int, out: list) -> None:
    n = len(s["names"])
    for p in range(n):
        s["deck"] += s["hands"][p]
        s["hands"][p] = []
    _shuffle(s, s["deck"])
    out.append(rule("water_cycle.rationing_order", seat=seat))
    for i in range(n):
        _refill(s, (seat + i) % n, out)
    out.append(log("rationing", N_("Every hand went back into the deck and everyone refilled to {n}.").format(n=HAND),
                   seat=seat))


# ---- Main actions -------------------------------------------------------------

def _spend_cycle(s: dict, seat: int, out: list) -> list[str]:
    if s["main_done"]:
        _fail("illegal", N_("You have already taken your Main Action this turn."))
    plan = _cycle_plan(_hand_kinds(s, seat))
    if plan is None:
        _fail("illegal", N_("You need a full Cycle: Evaporation, Condensation, Precipitation and Collection "
                            "(NEWater can stand in for one)."))
    if "newater" in plan:
        out.append(rule("water_cycle.newater_when_missing", seat=seat,
                        missing=[k for k in RESOURCES if k not in plan][0]))
    s["main_done"] = True
    return [_take_kind(s, seat, k) for k in plan]


def _trade(s: dict, seat: int, action: dict, out: list) -> None:
    s["discard"] += _spend_cycle(s, seat, out)
    s["trophies"][seat] += 1
    text = N_("{name} traded a Cycle for a trophy ({n}).").format(name=_name(s, seat), n=s["trophies"][seat])
    out.append(log("trade", text, seat=seat, trophies=s["trophies"][seat]))
    _check_winner(s, seat, out)


def _into_bucket(s: dict, ids: list[str], out: list) -> None:
    """Cards go into the Boss's Bucket; past BUCKET_MAX the oldest spill to the discard pile.
    Unbounded, four players' challenges sank 26-37 of the 54 Resources and NEWater there and
    nobody could make a Cycle (issue 20): the prize stays big, the table keeps its water."""
    s["bucket"] += ids
    spill = len(s["bucket"]) - BUCKET_MAX
    if spill > 0:
        s["discard"] += s["bucket"][:spill]
        s["bucket"] = s["bucket"][spill:]
        out.append(log("spill", NP_("The Boss's Bucket is full: its {n} oldest card spilled onto the discard pile.",
                                    "The Boss's Bucket is full: its {n} oldest cards spilled onto the discard pile.",
                                    spill).format(n=spill), cards=spill))
        out.append(rule("water_cycle.bucket_limit", cards=spill, limit=BUCKET_MAX))


def _challenge(s: dict, seat: int, action: dict, out: list) -> None:
    _into_bucket(s, _spend_cycle(s, seat, out), out)
    bank = _bank(s)
    if s["trivia_asked"] and s["trivia_asked"] % len(bank) == 0:
        order = list(range(len(bank)))
        _shuffle(s, order)
        s["trivia_order"] = order
        out.append(rule("water_cycle.trivia_reshuffle", questions=len(bank)))
    q = s["trivia_order"][s["trivia_asked"] % len(bank)]
    s["trivia_asked"] += 1
    s["pending"] = {"kind": "trivia", "seat": seat, "q": q}
    text = N_("{name} challenged the Boss: a Cycle went into the Bucket.").format(name=_name(s, seat))
    out.append(log("challenge", text, seat=seat, bucket=len(s["bucket"])))


def _answer(s: dict, seat: int, action: dict, out: list) -> None:
    q = _bank(s)[s["pending"]["q"]]
    s["pending"] = None
    correct = action["choice"] == q["answer"]
    s["last_trivia"] = {"seat": seat, "question": q["question"], "options": q["options"],
                        "choice": action["choice"], "answer": q["answer"], "correct": correct,
                        "explanation": q["explanation"], "topic": q.get("topic", "")}
    who = _name(s, seat)
    text = (N_("{name} answered \u201c{question}\u201d correctly.").format(name=who, question=q["question"])
            if correct else
            N_("{name} answered \u201c{question}\u201d wrongly; the answer was {letter}: {option}.").format(
                name=who, question=q["question"], letter="ABCD"[q["answer"]], option=q["options"][q["answer"]]))
    out.append(log("trivia", text,
                   seat=seat, question=q["id"], choice=action["choice"], correct=correct))
    if not correct:
        return
    boss = s["boss"]
    boss["hp"] -= 1
    s["trophies"][seat] += 1
    text = N_("The Boss takes 1 damage ({hp} HP left); {name} wins a trophy.").format(hp=boss["hp"], name=who)
    out.append(log("boss_hit", text, seat=seat, hp=boss["hp"]))
    if boss["hp"] <= 0:
        s["trophies"][seat] += 1
        haul = len(s["bucket"])
        s["hands"][seat] += s["bucket"]
        s["bucket"] = []
        boss["defeats"] += 1
        boss["max_hp"] = min(BOSS_MAX_HP, boss["max_hp"] + 1)
        boss["hp"] = boss["max_hp"]
        text = NP_("{name} defeated the Boss: +1 trophy and all {n} card of the Bucket. "
                   "The Boss returns with {hp} HP.",
                   "{name} defeated the Boss: +1 trophy and all {n} cards of the Bucket. "
                   "The Boss returns with {hp} HP.", haul).format(name=who, n=haul, hp=boss["hp"])
        out.append(log("boss_defeated", text, seat=seat, cards=haul, hp=boss["hp"]))
    _check_winner(s, seat, out)


def _draw_and_end(s: dict, seat: int, action: dict, out: list) -> None:
    count = HAND if not s["hands"][seat] else DRAW
    _draw(s, seat, count, out, after="end", why=N_("end of turn"))


# ---- Drawing ----------------------------------------------------------------

def _refresh_deck_if_empty(s: dict, out: list) -> bool:
    """An empty draw pile is remade from the discard pile; False when both are empty."""
    if s["deck"]:
        return True
    if not s["discard"]:
        return False
    s["deck"], s["discard"] = s["discard"], []
    _shuffle(s, s["deck"])
    out.append(rule("water_cycle.empty_draw_pile", cards=len(s["deck"])))
    return True


def _draw(s: dict, seat: int, count: int, out: list, *, after: str, why: str) -> None:
    """Draw `count` cards at once; a Crisis or Collapse among them is resolved now.
    `after` says what follows once nothing is pending: "end" the turn or go on with it."""
    drawn, threats = [], []
    for _ in range(count):
        if not _refresh_deck_if_empty(s, out):
            break
        cid = _pop(s)
        (threats if _threat(s, cid) else drawn).append(cid)
    s["hands"][seat] += drawn
    out.append(log("draw", NP_("{name} drew {n} card ({why}).", "{name} drew {n} cards ({why}).",
                                len(drawn) + len(threats)).format(name=_name(s, seat), n=len(drawn) + len(threats),
                                                                  why=why),
                   seat=seat, cards=len(drawn) + len(threats)))
    if threats and drawn:
        out.append(rule("water_cycle.draw_comes_together", seat=seat, kept=len(drawn)))
    if threats:
        _strike(s, seat, threats, out, after=after)
    elif after == "end":
        _end_turn(s, out)


def _refill(s: dict, seat: int, out: list, size: int = HAND) -> None:
    """Replace a hand: draw up to `size` cards, passing over threats (they stay put)."""
    passed = 0
    while len(s["hands"][seat]) < size:
        if not _refresh_deck_if_empty(s, out):
            break
        i = next((i for i, c in enumerate(s["deck"]) if not _threat(s, c)), None)
        if i is None:
            if not s["discard"]:
                break
            s["deck"] += s["discard"]   # only threats left: bring the discards in and look again
            s["discard"] = []
            _shuffle(s, s["deck"])
            continue
        passed += i
        s["hands"][seat].append(_pop(s, i))
    if passed:
        out.append(rule("water_cycle.refills_skip_threats", seat=seat))


def _strike(s: dict, seat: int, threats: list[str], out: list, *, after: str) -> None:
    """A Crisis or Collapse was drawn: open its prompt (or resolve it when nothing can be chosen)."""
    who = _name(s, seat)
    collapse = next((c for c in threats if s["kinds"][c] == COLLAPSE), None)
    crises = [c for c in threats if s["kinds"][c] == CRISIS]
    if collapse is not None:
        for cid in crises:
            _insert_randomly(s, cid)
        out.append(log("collapse", N_("{name} drew the Reservoir Collapse!").format(name=who), seat=seat))
        if crises:
            out.append(log("crisis_ignored", N_("The Crisis drawn with it is ignored and goes back into the deck."),
                           seat=seat))
        if s["emergency"][seat] is not None:
            s["pending"] = {"kind": "collapse", "seat": seat, "card": collapse, "after": after}
        else:
            _collapse_loss(s, seat, collapse, out, after=after)
        return
    first, rest = crises[0], crises[1:]
    for cid in rest:
        _insert_randomly(s, cid)
    disaster = content.CRISIS_BY_ID[s["crises"][first]]
    out.append(log("crisis", N_("{name} drew a Crisis: {crisis}.").format(name=who, crisis=disaster["name"]),
                   seat=seat, crisis=disaster["id"]))
    if rest:
        text = N_("{name} drew {n} Crises at once: only one must be answered; "
                  "the other goes back into the deck.").format(name=who, n=len(crises))
        out.append(log("crisis_extra", text, seat=seat))
    s["vote_no"] += 1
    s["crisis_no"] += 1
    s["pending"] = {"kind": "crisis", "seat": seat, "card": first, "crisis": disaster["id"], "stage": "choose",
                    "picked": [], "explanation": "", "votes": {}, "hidden": False, "vote": s["vote_no"],
                    "no": s["crisis_no"], "after": after}
    if not s["hands"][seat]:
        out.append(rule("water_cycle.empty_hand_crisis", seat=seat, crisis=disaster["id"]))
        _crisis_fail(s, out, why=N_("no cards to answer with"))


def _reshuffle_all(s: dict, cid: str | None) -> None:
    """A threat resolved: it and the whole discard pile go back into the draw pile, shuffled."""
    if cid is not None:
        s["deck"].append(cid)
    s["deck"] += s["discard"]
    s["discard"] = []
    _shuffle(s, s["deck"])


def _go_on(s: dict, after: str, out: list) -> None:
    """The threat is over: end the turn, or let the player go on with it."""
    if s["pending"] is None and s["status"] == "playing" and after == "end":
        _end_turn(s, out)


# ---- Reservoir Collapse --------------------------------------------------------

def _defuse(s: dict, seat: int, action: dict, out: list) -> None:
    p = s["pending"]
    s["pending"] = None
    s["removed"].append(s["emergency"][seat])
    s["emergency"][seat] = None
    _reshuffle_all(s, p["card"])
    out.append(log("defused", N_("{name} played their Emergency Response and survived the Collapse. "
                                 "The Collapse and the discard pile are shuffled back into the deck.").format(
                                     name=_name(s, seat)), seat=seat))
    _go_on(s, p["after"], out)


def _collapse_loss(s: dict, seat: int, cid: str, out: list, *, after: str) -> None:
    lost = s["trophies"][seat]
    s["trophies"][seat] = 0
    s["discard"] += s["hands"][seat]
    s["hands"][seat] = []
    # With every Emergency Response spent nobody can ever defuse the Collapse again: reshuffled,
    # it wiped the trophies hundreds of times in one four-player game (issue 20). It strikes
    # once more, as the sheet says, and then leaves the game.
    retired = all(e is None for e in s["emergency"])
    if retired:
        s["removed"].append(cid)
    _reshuffle_all(s, None if retired else cid)
    _refill(s, seat, out)
    text = NP_("{name} had no Emergency Response: they lose {n} trophy and their whole hand, "
               "and draw {hand} fresh cards.",
               "{name} had no Emergency Response: they lose {n} trophies and their whole hand, "
               "and draw {hand} fresh cards.", lost).format(name=_name(s, seat), n=lost, hand=HAND)
    out.append(log("collapse_loss", text, seat=seat, trophies_lost=lost))
    if retired:
        out.append(log("collapse_retired", N_("Nobody has an Emergency Response left: the Reservoir Collapse "
                                              "is removed from the game."), seat=seat))
        out.append(rule("water_cycle.collapse_retires", seat=seat))
    _go_on(s, after, out)


# ---- Crisis -------------------------------------------------------------------

def _pick(s: dict, seat: int, action: dict, out: list) -> None:
    p = s["pending"]
    kind = action["card"]
    if _hand_kinds(s, seat)[kind] <= Counter(p["picked"])[kind]:
        _fail("illegal", N_("You have no other {card} to use.").format(card=card_name(kind)))
    p["picked"].append(kind)


def _unpick(s: dict, seat: int, action: dict, out: list) -> None:
    p = s["pending"]
    if action["card"] not in p["picked"]:
        _fail("illegal", N_("{card} is not picked.").format(card=card_name(action["card"])))
    p["picked"].remove(action["card"])


def _explain(s: dict, seat: int, action: dict, out: list) -> None:
    p = s["pending"]
    if not p["picked"]:
        _fail("illegal", N_("Pick at least one card from your hand first."))
    p["explanation"] = " ".join(action["text"].split())
    spent = ", ".join(card_name(k) for k in p["picked"])
    out.append(log("explain", N_("{name} answered the Crisis with {cards}.").format(name=_name(s, seat), cards=spent),
                   seat=seat,
                   cards=list(p["picked"]), crisis=p["crisis"]))
    mode = s["options"]["votes"]
    p["stage"] = "review" if mode == "teacher" else "vote"
    if p["stage"] == "review":
        out.append(log("review", N_("The teacher decides whether the explanation works."), seat=seat))


def _give_up(s: dict, seat: int, action: dict, out: list) -> None:
    _crisis_fail(s, out, why=N_("gave up"))


def _vote(s: dict, seat: int, action: dict, out: list) -> None:
    p = s["pending"]
    if action["crisis"] != p["no"]:
        _fail("stale", N_("That vote was for an earlier Crisis; this one has not been voted on yet."))
    p["votes"][str(seat)] = action["up"]
    out.append(log("vote", N_("{name} voted.").format(name=_name(s, seat)), seat=seat, crisis_no=p["no"]))
    if not _waiting(s):
        _close_vote(s, out, closed_by=None)


def _tally(p: dict) -> tuple[int, int]:
    ups = sum(1 for v in p["votes"].values() if v)
    return ups, len(p["votes"]) - ups


def _close_vote(s: dict, out: list, *, closed_by: str | None) -> None:
    """The vote is over (all voted, the clock ran out or the teacher closed it)."""
    p = s["pending"]
    ups, downs = _tally(p)
    voters = _voters(s)
    missing = [v for v in voters if str(v) not in p["votes"]]
    passed = ups >= downs
    out.append(log("tally", N_("The vote: {up} thumbs up, {down} thumbs down.").format(up=ups, down=downs),
                   up=ups, down=downs, seat=p["seat"]))
    if missing:
        out.append(rule("water_cycle.missing_votes", missing=missing, closed_by=closed_by or "clock"))
    if len(voters) == 1 and not missing:
        out.append(rule("water_cycle.two_player_vote", seat=p["seat"], voter=voters[0]))
    if ups == downs and (ups or not missing):
        out.append(rule("water_cycle.vote_tie_passes", seat=p["seat"], up=ups, down=downs))
    if s["options"]["votes"] == "confirm":
        p["stage"] = "review"
        p["vote_passed"] = passed
        out.append(log("review", (N_("The players' vote says it passes; the teacher confirms or overrides.") if passed
                        else N_("The players' vote says it fails; the teacher confirms or overrides.")),
                       seat=p["seat"], passed=passed))
        return
    _crisis_decided(s, passed, out, decided_by="vote")


def _crisis_decided(s: dict, passed: bool, out: list, *, decided_by: str, reason: str = "") -> None:
    p = s["pending"]
    disaster = content.CRISIS_BY_ID[p["crisis"]]
    ups, downs = _tally(p)
    s["last_crisis"] = {"seat": p["seat"], "crisis": p["crisis"], "name": disaster["name"],
                        "cards": list(p["picked"]), "explanation": p["explanation"], "hidden": p["hidden"],
                        "up": ups, "down": downs, "passed": passed, "decided_by": decided_by, "reason": reason}
    if passed:
        _crisis_pass(s, out)
    else:
        _crisis_fail(s, out, why=N_("rejected by the teacher") if decided_by == "teacher" else N_("voted down"),
                     record=False)


def _crisis_pass(s: dict, out: list) -> None:
    p = s["pending"]
    seat = p["seat"]
    s["pending"] = None
    for kind in p["picked"]:
        s["discard"].append(_take_kind(s, seat, kind))
    bonus = min(BONUS_MAX, len(p["picked"]))
    text = NP_("{name}'s answer passed: {n} bonus card.", "{name}'s answer passed: {n} bonus cards.",
               bonus).format(name=_name(s, seat), n=bonus)
    out.append(log("crisis_passed", text,
                   seat=seat, crisis=p["crisis"], bonus=bonus))
    drawn, threats = [], []
    for _ in range(bonus):
        if not _refresh_deck_if_empty(s, out):
            break
        cid = _pop(s)
        (threats if _threat(s, cid) else drawn).append(cid)
    s["hands"][seat] += drawn
    s["discard"].append(p["card"])
    _reshuffle_all(s, None)
    if threats:
        out.append(rule("water_cycle.bonus_draw_threat", seat=seat))
        _strike(s, seat, threats, out, after=p["after"])
        return
    _go_on(s, p["after"], out)


def _crisis_fail(s: dict, out: list, *, why: str, record: bool = True) -> None:
    p = s["pending"]
    seat = p["seat"]
    s["pending"] = None
    if p["picked"]:
        out.append(rule("water_cycle.failed_picks_return", seat=seat, cards=list(p["picked"])))
    s["deck"] += s["hands"][seat]
    s["hands"][seat] = []
    _reshuffle_all(s, p["card"])
    _refill(s, seat, out)
    if record:   # a give-up or an empty hand: nobody judged it, so record it here
        s["last_crisis"] = {"seat": seat, "crisis": p["crisis"], "name": content.CRISIS_BY_ID[p["crisis"]]["name"],
                            "cards": [], "explanation": "", "hidden": False, "up": 0, "down": 0,
                            "passed": False, "decided_by": "player", "reason": why}
    text = N_("{name}'s Crisis failed ({why}): their hand went into the deck "
              "and they drew {n} fresh cards.").format(name=_name(s, seat), why=why, n=HAND)
    out.append(log("crisis_failed", text, seat=seat, crisis=p["crisis"]))
    _go_on(s, p["after"], out)


def _open_crisis(s: dict, stages: tuple[str, ...]) -> dict:
    p = s["pending"]
    if p is None or p["kind"] != "crisis" or p["stage"] not in stages:
        _fail("illegal", N_("There is no Crisis explanation to moderate right now."))
    return p


def _moderate(s: dict, kind: str, action: dict, out: list) -> None:
    p = _open_crisis(s, ("vote", "review"))
    who = _name(s, p["seat"])
    if kind in ("accept", "reject"):
        passed = kind == "accept"
        reason = " ".join(action.get("reason", "").split())
        if reason:
            text = (N_("The teacher accepted {name}'s explanation: {reason}") if passed
                    else N_("The teacher rejected {name}'s explanation: {reason}"))
        else:
            text = (N_("The teacher accepted {name}'s explanation.") if passed
                    else N_("The teacher rejected {name}'s explanation."))
        out.append(log("moderation", text.format(name=who, reason=reason), decision=kind, seat=p["seat"],
                       reason=reason))
        if s["options"]["votes"] != "teacher":
            out.append(rule("water_cycle.teacher_decides", seat=p["seat"], decision=kind,
                            vote_passed=p.get("vote_passed")))
        _crisis_decided(s, passed, out, decided_by="teacher", reason=reason)
    elif kind in ("hide", "show"):
        if p["hidden"] == (kind == "hide"):
            _fail("illegal", N_("The explanation is already hidden.") if p["hidden"]
                  else N_("The explanation is already shown."))
        p["hidden"] = kind == "hide"
        out.append(log("moderation", (N_("The teacher hid {name}'s explanation.") if p["hidden"]
                        else N_("The teacher showed {name}'s explanation.")).format(name=who),
                       decision=kind, seat=p["seat"]))
        if p["hidden"]:
            out.append(rule("water_cycle.hidden_explanation", seat=p["seat"]))
    elif kind == "extend":
        _open_crisis(s, ("vote",))
        if not s["options"]["vote_seconds"]:
            _fail("illegal", N_("This table's votes have no time limit."))
        s["vote_no"] += 1
        p["vote"] = s["vote_no"]   # a new timer key: the clock starts again from now
        text = N_("The teacher gave the vote {n} more seconds.").format(n=s["options"]["vote_seconds"])
        out.append(log("moderation", text,
                       decision=kind, seat=p["seat"]))
    elif kind == "close":
        _open_crisis(s, ("vote",))
        out.append(log("moderation", N_("The teacher closed the vote."), decision=kind, seat=p["seat"]))
        _close_vote(s, out, closed_by="teacher")


def _time_up(s: dict, vote: int, out: list) -> None:
    p = s["pending"]
    if p is None or p["kind"] != "crisis" or p["stage"] != "vote" or p["vote"] != vote:
        _fail("stale", N_("That vote is already closed."))
    out.append(log("time_up", N_("Time is up for the vote."), seat=p["seat"]))
    _close_vote(s, out, closed_by="clock")


# ---- Turns and the end ---------------------------------------------------------

def _end_turn(s: dict, out: list) -> None:
    n = len(s["names"])
    s["weather_played"] = s["main_done"] = False
    if s["peek"] is not None and s["peek"]["seat"] == s["turn"]:
        s["peek"] = None
    nxt = (s["turn"] + 1) % n
    while s["skips"][nxt] > 0:
        s["skips"][nxt] -= 1
        s["skipped"][nxt] += 1
        text = N_("{name} skips this turn ({card}).").format(name=_name(s, nxt), card=card_name("dry_spell"))
        out.append(log("skip", text, seat=nxt))
        nxt = (nxt + 1) % n
    s["turn"] = nxt
    s["turn_no"] += 1
    limit = round_limit(s)
    if limit and s["turn_no"] > limit * n:
        best = max(s["trophies"])
        out.append(rule("water_cycle.round_limit", rounds=limit))
        played = NP_("{n} round has been played", "{n} rounds have been played", limit).format(n=limit)
        _end(s, [p for p, t in enumerate(s["trophies"]) if t == best], played, out)
        return
    out.append(log("turn", N_("{name}'s turn.").format(name=_name(s, nxt)), seat=nxt, turn=s["turn_no"]))


def round_limit(s: dict) -> int:
    """The rounds this table plays at most (0: no limit, the rule sheet's game)."""
    rounds = s["options"]["rounds"]
    return LESSON_ROUNDS[len(s["names"])] if rounds == "lesson" else rounds


def _check_winner(s: dict, seat: int, out: list) -> None:
    if s["trophies"][seat] >= GOAL and s["status"] == "playing":
        if s["trophies"][seat] > GOAL or s["pending"] is not None:
            out.append(rule("water_cycle.win_at_once", seat=seat, trophies=s["trophies"][seat]))
        _end(s, [seat], N_("{name} reached {n} trophies").format(name=_name(s, seat), n=GOAL), out)


def _check_overflow(s: dict, out: list) -> None:
    """When the cards outside the Bucket can no longer make a single Cycle, nobody can
    trade or challenge again and the game could never end: the Bucket overflows
    into the discard pile (a reconstruction ruling)."""
    if s["status"] != "playing" or not s["bucket"]:
        return
    outside = Counter(s["kinds"][c] for c in s["kinds"] if c not in set(s["bucket"]) and c not in set(s["removed"]))
    if _cycle_plan(outside) is None:
        spilled = len(s["bucket"])
        s["discard"] += s["bucket"]
        s["bucket"] = []
        text = NP_("The Boss's Bucket overflowed: its {n} card went to the discard pile.",
                   "The Boss's Bucket overflowed: its {n} cards went to the discard pile.", spilled).format(n=spilled)
        out.append(log("overflow", text,
                       cards=spilled))
        out.append(rule("water_cycle.bucket_overflow", cards=spilled))


def _check_piles(s: dict, out: list) -> None:
    if s["status"] == "playing" and not s["deck"] and not s["discard"]:
        best = max(s["trophies"])
        _end(s, [p for p, t in enumerate(s["trophies"]) if t == best],
             N_("the draw pile and the discard pile are both empty"), out)


def _end(s: dict, winners: list[int], reason: str, out: list) -> None:
    s["status"] = "over"
    p = s["pending"]
    if p is not None and p["kind"] in ("reservoir", "crisis", "collapse"):
        s["discard"].append(p["card"])   # the card in play when the game ended is put down
    s["pending"] = None
    ranking = sorted(range(len(s["names"])), key=lambda p: (-s["trophies"][p], p))
    s["result"] = {"winners": winners, "ranking": ranking, "scores": list(s["trophies"]), "reason": reason}
    if len(winners) > 1:
        out.append(rule("water_cycle.tied_trophies", winners=winners, trophies=s["trophies"][winners[0]]))
    names = join_names([_name(s, w) for w in winners])
    out.append(log("game_over", NP_("Game over: {reason}. {names} wins!", "Game over: {reason}. {names} win!",
                                    len(winners)).format(reason=reason, names=names),
                   winners=winners))


def finish(state: dict, cause: str = "teacher") -> tuple[dict, list[dict]]:
    """The teacher ends the game, the lesson clock ran out, or the platform stopped
    a game that ran too long (`cause`): the most
    trophies win (ties share)."""
    cause = finish_cause(cause)
    if state["status"] != "playing":
        _fail("game_over", N_("The game is over."))
    s = clone(state)
    best = max(s["trophies"])
    winners = [p for p, t in enumerate(s["trophies"]) if t == best]
    if cause == "lesson_clock":
        out = [log("end", N_("The lesson clock ran out.")),
               rule("water_cycle.lesson_clock", winners=winners, trophies=list(s["trophies"]))]
        _end(s, winners, N_("the lesson clock ran out"), out)
        return s, out
    if cause == "time_limit":
        out = [log("end", N_("This game ran too long, so it was stopped."))]
        _end(s, winners, N_("the game ran too long and was stopped"), out)
        return s, out
    out = [log("end", N_("The teacher ended the game."))]
    _end(s, winners, N_("the teacher ended the game"), out)
    return s, out


def upgrade(state: dict) -> dict:
    """A snapshot saved by an earlier engine version, made playable by this one.

    water-cycle-1 numbered no Crisis: the Crises struck so far are unknown, so the
    count starts at the vote counter (at least one per Crisis) and an open Crisis
    takes the next number. Its replay stays refused, as for every version change."""
    if state.get("version") == VERSION:
        return state
    if state.get("version") != "water-cycle-1":
        raise ValueError(f"cannot continue a Water Cycle game saved by {state.get('version')!r}")
    s = clone(state)
    s["crisis_no"] = s["vote_no"]
    p = s["pending"]
    if p is not None and p["kind"] == "crisis":
        s["crisis_no"] += 1
        p["no"] = s["crisis_no"]
    s["version"] = VERSION
    return s


def result(state: dict):
    return state["result"]


def _vote_clock_key(p: dict) -> str:
    """The vote's timer key (a new one when the teacher extends the vote); the
    view names it, so the screens count down to the platform's deadline for it."""
    return f"vote:{p['vote']}"


def timers(state: dict) -> list[dict]:
    s = state
    p = s["pending"]
    seconds = s["options"]["vote_seconds"]
    if s["status"] != "playing" or p is None or p["kind"] != "crisis" or p["stage"] != "vote" or not seconds:
        return []
    return [{"key": _vote_clock_key(p), "after": seconds, "actor": SYSTEM,
             "action": {"type": "time_up", "vote": p["vote"]}}]


# --------------------------------------------------------------------------
# Views

def _prompt_parts(s: dict, viewer) -> tuple[str, dict]:
    """The prompt's English template and its fields (the refusal "First ..." reuses them)."""
    if s["status"] != "playing":
        return N_("The game is over."), {}
    p = s["pending"]
    mine = _is_seat(s, viewer) and viewer in _waiting(s)
    if p is None:
        turn = _name(s, s["turn"])
        if mine:
            return N_("Your turn: play a Weather card, trade or challenge with a Cycle, then draw."), {}
        return N_("{name}'s turn."), {"name": turn}
    kind, who = p["kind"], _name(s, p["seat"])
    if kind == "reservoir":
        weather = card_name(p["weather"])
        if mine:
            return N_("{name} played {card} on you. Cancel it with your Reservoir?"), {"name": _name(s, p["by"]),
                                                                                     "card": weather}
        return N_("{name} may cancel {card} with a Reservoir."), {"name": who, "card": weather}
    if kind == "surge":
        if mine:
            return (NP_("Evaporation Surge: choose {n} card to discard.",
                        "Evaporation Surge: choose {n} cards to discard.", p["left"]), {"n": p["left"]})
        return N_("{name} is choosing cards to discard (Evaporation Surge)."), {"name": who}
    if kind == "leak":
        return ((N_("Pipe Leakage: choose 1 card to put into the Boss's Bucket."), {}) if mine
                else (N_("{name} is choosing a card for the Boss's Bucket (Pipe Leakage)."), {"name": who}))
    if kind == "burst":
        return ((N_("Pipe Burst: take 1 card from {name}'s hand."), {"name": _name(s, p["target"])}) if mine
                else (N_("{name} is looking at {target}'s hand (Pipe Burst)."),
                      {"name": who, "target": _name(s, p["target"])}))
    if kind == "trivia":
        return ((N_("Answer the Boss's question."), {}) if mine
                else (N_("{name} is answering the Boss's question."), {"name": who}))
    if kind == "collapse":
        return ((N_("Reservoir Collapse! Play your Emergency Response to survive."), {}) if mine
                else (N_("{name} drew the Reservoir Collapse!"), {"name": who}))
    disaster = content.CRISIS_BY_ID[p["crisis"]]["name"]
    if p["stage"] == "choose":
        return ((N_("Crisis: {crisis}. Pick at least one card and explain how it helps."), {"crisis": disaster})
                if mine else (N_("{name} is answering a Crisis: {crisis}."), {"name": who, "crisis": disaster}))
    if p["stage"] == "vote":
        if mine:
            return N_("Does {name}'s answer to the {crisis} work? Vote thumbs up or down."), {"name": who,
                                                                                            "crisis": disaster}
        if viewer == FACILITATOR:
            return (N_("The players are voting on {name}'s answer to the {crisis}. You may accept or reject it."),
                    {"name": who, "crisis": disaster})
        return N_("The players are voting on {name}'s answer."), {"name": who}
    if viewer == FACILITATOR:
        return (N_("Decide: does {name}'s answer to the {crisis} work? Accept or reject it."),
                {"name": who, "crisis": disaster})
    return N_("The teacher is deciding on {name}'s answer to the {crisis}."), {"name": who, "crisis": disaster}


def _prompt_text(s: dict, viewer) -> str:
    template, fields = _prompt_parts(s, viewer)
    return template.format(**fields)


# A move that does not answer the prompt is refused with "First ..." and the prompt
# (the prompt of the seat the game waits for, its first letter in lower case).
FIRST = {
    N_("{name} played {card} on you. Cancel it with your Reservoir?"):
        N_("First {name} played {card} on you. Cancel it with your Reservoir?"),
    N_("Evaporation Surge: choose {n} card to discard."): N_("First evaporation Surge: choose {n} card to discard."),
    N_("Evaporation Surge: choose {n} cards to discard."): N_("First evaporation Surge: choose {n} cards to discard."),
    N_("Pipe Leakage: choose 1 card to put into the Boss's Bucket."):
        N_("First pipe Leakage: choose 1 card to put into the Boss's Bucket."),
    N_("Pipe Burst: take 1 card from {name}'s hand."): N_("First pipe Burst: take 1 card from {name}'s hand."),
    N_("Answer the Boss's question."): N_("First answer the Boss's question."),
    N_("Reservoir Collapse! Play your Emergency Response to survive."):
        N_("First reservoir Collapse! Play your Emergency Response to survive."),
    N_("Crisis: {crisis}. Pick at least one card and explain how it helps."):
        N_("First crisis: {crisis}. Pick at least one card and explain how it helps."),
    N_("Does {name}'s answer to the {crisis} work? Vote thumbs up or down."):
        N_("First does {name}'s answer to the {crisis} work? Vote thumbs up or down."),
}


def _crisis_view(s: dict, viewer) -> dict | None:
    p = s["pending"]
    if p is None or p["kind"] != "crisis":
        return None
    disaster = content.CRISIS_BY_ID[p["crisis"]]
    ups, downs = _tally(p)
    own = viewer == p["seat"]
    shown = p["stage"] != "choose" and (not p["hidden"] or own or viewer == FACILITATOR)
    return {"seat": p["seat"], "stage": p["stage"], "crisis": dict(disaster),
            "cards": list(p["picked"]) if p["stage"] != "choose" else [],
            "explanation": p["explanation"] if shown else None, "hidden": p["hidden"],
            "up": ups, "down": downs, "voted": sorted(int(v) for v in p["votes"]),
            "voters": _voters(s), "mode": s["options"]["votes"], "vote": p["vote"], "number": p["no"],
            "vote_passed": p.get("vote_passed"), "seconds": s["options"]["vote_seconds"],
            "clock_key": _vote_clock_key(p) if p["stage"] == "vote" and s["options"]["vote_seconds"] else None}


def _last_crisis_view(s: dict, viewer) -> dict | None:
    last = s["last_crisis"]
    if last is None:
        return None
    shown = dict(last)
    if last["hidden"] and viewer not in (last["seat"], FACILITATOR):
        shown["explanation"] = None
    return shown


def view(state: dict, viewer) -> dict:
    s = state
    n = len(s["names"])
    p = s["pending"]
    trivia = None
    if p is not None and p["kind"] == "trivia":
        q = _bank(s)[p["q"]]
        trivia = {"seat": p["seat"], "question": q["question"], "options": list(q["options"]),
                  "topic": q.get("topic", ""), "difficulty": q.get("difficulty", "")}
    public = {
        "status": s["status"], "names": list(s["names"]), "turn": s["turn"], "turn_no": s["turn_no"],
        "players": [{"seat": x, "name": s["names"][x], "trophies": s["trophies"][x],
                     "hand": len(s["hands"][x]), "emergency": s["emergency"][x] is not None,
                     "skips": s["skips"][x], "skipped": s["skipped"][x]} for x in range(n)],
        "goal": GOAL, "boss": {**s["boss"], "bucket": len(s["bucket"])},
        "deck": len(s["deck"]), "discard": len(s["discard"]),
        "discard_top": s["kinds"][s["discard"][-1]] if s["discard"] else None,
        "weather_played": s["weather_played"], "main_done": s["main_done"],
        "pending": None if p is None else {k: p[k] for k in ("kind", "seat", "by", "target", "weather", "left")
                                            if k in p},
        "waiting_for": _waiting(s),
        "last_weather": s["last_weather"], "crisis": _crisis_view(s, viewer),
        "last_crisis": _last_crisis_view(s, viewer), "trivia": trivia, "last_trivia": s["last_trivia"],
        "options": dict(s["options"]), "custom_trivia": s["custom_trivia"] is not None,
        "legend": content.LEGEND, "result": s["result"],
    }
    private = {}
    if _is_seat(s, viewer):
        hand = _hand_kinds(s, viewer)
        private = {
            "hand": [{"card": k, "count": hand[k]} for k in content.CARD_ORDER if hand[k]],
            "cycle": _cycle_plan(hand),
            "missing": [k for k in RESOURCES if not hand[k]],
            "emergency": s["emergency"][viewer] is not None,
            "peek": s["peek"]["cards"] if s["peek"] and s["peek"]["seat"] == viewer else None,
            "picked": list(p["picked"]) if p and p["kind"] == "crisis" and p["seat"] == viewer else [],
            "vote": (p["votes"].get(str(viewer)) if p and p["kind"] == "crisis" else None),
            "burst": ([{"card": k, "count": c} for k, c in sorted(_hand_kinds(s, p["target"]).items())]
                      if p and p["kind"] == "burst" and p["seat"] == viewer else None),
        }
    return {"public": public, "private": private, "prompt": prompt(_waiting(s), _prompt_text(s, viewer))}


# --------------------------------------------------------------------------
# The computer player: sees only its own view and its legal actions

VALUE = {"newater": 9, "reservoir": 8, "monsoon": 6, "pipe_burst": 6, "diversion": 5, "dry_spell": 4,
         "forecast": 2, "evaporation_surge": 4, "pipe_leakage": 3, "water_rationing": 1}


def _card_value(kind: str, hand: Counter, picked: Counter | None = None) -> float:
    """How much a computer player wants to keep a card: a Resource it lacks is
    worth a lot, spares little."""
    if kind in RESOURCES:
        have = hand[kind] - (picked[kind] if picked else 0)
        return 7 if have <= 1 else 1
    return VALUE.get(kind, 3)


def bot(seen: dict, offered: list[dict], rng) -> dict | None:
    if not offered:
        return None
    public, private = seen["public"], seen["private"]
    kinds = {a["type"] for a in offered}
    hand = Counter({h["card"]: h["count"] for h in private.get("hand", [])})
    level = public["options"]["computer_level"]

    def by_type(t):
        return [a for a in offered if a["type"] == t]

    def careless(choices):
        """A random one of `choices` now and then (more often at a lower level), else None."""
        return rng.choice(choices) if choices and rng.random() < SLIPS[level] else None

    if "respond" in kinds:
        return by_type("respond")[0]          # always cancel an attack
    if "defuse" in kinds:
        return by_type("defuse")[0]
    if "answer" in kinds:
        q = public["trivia"]
        known = content.ANSWERS.get(q["question"]) if q else None
        if known is not None and rng.random() < KNOWS[level]:
            return by_type("answer")[known]
        return rng.choice(by_type("answer"))
    if kinds & {"discard", "leak"}:
        return careless(offered) or min(offered, key=lambda a: (_card_value(a["card"], hand), a["card"]))
    if "take" in kinds:
        return careless(offered) or max(offered, key=lambda a: (_card_value(a["card"], hand), a["card"]))
    if "vote" in kinds:
        text = (public["crisis"] or {}).get("explanation")
        # A hidden explanation was hidden by the teacher for a reason; a few words are not an answer.
        up = rng.random() < (0.2 if text is None else 0.85 if len(text) >= 20 else 0.3)
        return next(a for a in offered if a["up"] == up)
    if "pick" in kinds or "explain" in kinds:
        picked = Counter(private.get("picked") or [])
        picks = sorted(by_type("pick"), key=lambda a: (_card_value(a["card"], hand, picked), a["card"]))
        junk = picks and _card_value(picks[0]["card"], hand, picked) <= 3
        # Spending spare cards is a free exchange (as many bonus cards come back), so
        # spend up to three spares; never a Resource the next Cycle needs.
        if "explain" in kinds and (sum(picked.values()) >= BONUS_MAX or not junk):
            crisis = public["crisis"]["crisis"] if public.get("crisis") else {}
            idea = rng.choice(crisis.get("ideas") or [N_("these cards keep water where people need it")])
            names = " and ".join(card_name(k) for k in picked)
            return dict(by_type("explain")[0],
                        text=N_("With {cards}: {idea}").format(cards=names, idea=idea)[:EXPLANATION_MAX])
        if picks:
            return careless(picks) or picks[0]
        return by_type("give_up")[0]
    # Our own turn: a Weather card first, then the main action, then draw.
    players = public["players"]
    me = public["turn"]
    weather = [a for a in offered if a["type"] in ("weather", "weather_at")]
    if weather:
        leader = max((x for x in players if x["seat"] != me), key=lambda x: (x["trophies"], x["hand"], -x["seat"]))
        for a in weather:
            if a["card"] == "monsoon":
                return a
        for preferred in ("pipe_burst", "diversion", "dry_spell"):
            for a in weather:
                if a["card"] == preferred and a.get("target") == leader["seat"]:
                    return a
        if level != "easy" and rng.random() < 0.3:
            return rng.choice(weather)
    if "challenge" in kinds:
        boss = public["boss"]
        # Trading is safe; a challenge is worth it when the Boss is about to fall
        # (the Bucket is the prize) or, now and then, for a bold player.
        bold = {"easy": 0.1, "standard": 0.15, "expert": 0.25}[level]
        slip = careless(by_type("challenge") + by_type("trade"))
        if slip:
            return slip
        if boss["hp"] == 1 or rng.random() < bold:
            return by_type("challenge")[0]
        return by_type("trade")[0]
    return by_type("draw")[0]
