"""The Wizard duel (rules version digital-0.4): a pure, deterministic state
machine (see DESIGN.md and shared/rules/wizard-duel.txt).

Two wizards compete for the clients of a village. Each has twenty spells,
face down; a turn reveals one spell per client (the Draw button), then the
wizard casts any number of revealed attack spells at neutral villagers or at
the rival's clients, and ends the turn. An attack on a client may be met by
one revealed defensive spell of its owner; then the dice control is clicked:
2d6 + strength against 2d6 + willpower (+ the defense), attack must strictly
exceed. Clients worth 23 willpower, or recruiting the rival's original leader
from the village, win at once.

Phases: "initiative" (roll), "draw", "cast", "counter" (the defender chooses),
"roll" (the dice for an attack), "over". Against the computer (option
opponent="computer", the computer in seat 1) every computer action opens a
pause the human closes with Continue, and the human clicks every roll.
An online match (option match="online") expires after 14 days without a move.

The functions of the engine contract (app/engines/contract.py):

    new(options, seats, seed) -> state
    actions(state, viewer) -> [labelled action, ...]
    apply(state, actor, action) -> (state, log)
    view(state, viewer) -> {"public", "private", "prompt"}
    bot(view, actions, rng) -> action | None
    result(state) -> None | {winners, ranking, scores, reason}
    finish(state) -> (state, log)
    timers(state) -> [{key, after, actor, action}]
"""
from __future__ import annotations

from ..contract import (IllegalAction, Option, Rng, clone, is_seat, join_names, label, log, prompt, resolve_options,
                        strip_label)
from . import content
from .rulings import rule

KEY = "wizard"
TITLE = "Wizard Duel"
VERSION = "wizard-0.4-1"
MIN_SEATS = 2
MAX_SEATS = 2
BLURB = ("Two wizards of a Coptic village compete for clients: reveal spells, cast them, and roll the dice "
         "against each villager's willpower. First to 23 willpower, or to win over the rival's leader, wins.")

FACILITATOR = "facilitator"
BOARD = "board"
SYSTEM = "system"
HUMAN, COMPUTER = 0, 1
WIN_WILLPOWER = 23
DECK = 20
WORDS_MAX = 120
EXPIRY_SECONDS = 14 * 24 * 3600
LEVELS = ("novice", "adept")

OPTIONS = [
    Option("opponent", "Opponent", "human", ("human", "computer"),
           help="computer: the second wizard is played by the computer, and every computer move waits for "
                "Continue."),
    Option("match", "Where the wizards are", "table", ("table", "online"),
           help="online: a match played from two devices; it expires after 14 days without a move."),
    Option("computer_level", "Computer wizard", "adept", LEVELS),
]
PRESETS = {"vs_computer": {"opponent": "computer"}, "online": {"match": "online"}}

FIELDS = {"roll": {"type"}, "draw": {"type"}, "cast": {"type", "spell", "target", "words"},
          "defend": {"type", "spell"}, "no_defense": {"type"}, "end_turn": {"type"}, "continue": {"type"},
          "time_up": {"type", "moves"}}


# --------------------------------------------------------------------------
# Small helpers

def _fail(code: str, message: str):
    raise IllegalAction(code, message)


def _is_seat(s: dict, who) -> bool:
    return is_seat(s["names"], who)


def _name(s: dict, seat: int) -> str:
    return s["names"][seat]


def _rival(seat: int) -> int:
    return 1 - seat


def _roll2(s: dict) -> list[int]:
    rng = Rng(s["rng"])
    dice = [rng.randint(1, 6), rng.randint(1, 6)]
    s["rng"] = rng.state
    return dice


def _char(key: str) -> dict:
    return content.CHARACTERS[key]


def _clients(s: dict, seat: int) -> list[str]:
    return [k for k in content.CHARACTER_ORDER if s["owner"][k] == seat]


def _willpower(s: dict, seat: int) -> int:
    return sum(_char(k)["willpower"] for k in _clients(s, seat))


def _spell(number: int) -> dict:
    return content.SPELLS[number]


def _fits(spell: dict, character: dict) -> bool:
    """A spell whose title names a gender works only on that gender."""
    return spell["gender"] is None or spell["gender"] == character["gender"]


def _computer(s: dict) -> bool:
    return s["options"]["opponent"] == "computer"


def _dice_seat(s: dict, seat: int) -> int:
    """Who clicks the dice control: against the computer, always the human."""
    return HUMAN if _computer(s) else seat


# --------------------------------------------------------------------------
# Setting up

def computer_options(options: dict, computers: list[int]) -> dict:
    """A duel whose second wizard the platform seated as a computer (a solo class
    table, an odd student) is a game against the computer: pauses and human dice."""
    return dict(options, opponent="computer") if computers == [COMPUTER] else options


def new(options: dict, seats: list[str], seed) -> dict:
    resolved = resolve_options(OPTIONS, options)
    if not isinstance(seats, list) or len(seats) != 2:
        _fail("illegal", "The Wizard duel is for two wizards.")
    rng = Rng.from_seed(seed)
    numbers = sorted(content.SPELLS)
    rng.shuffle(numbers)
    s = {
        "game": KEY, "version": VERSION, "options": resolved, "names": list(seats), "status": "playing",
        "rng": rng.state,
        "decks": [numbers[:DECK], numbers[DECK:2 * DECK]],   # face down, top first: never in a view
        "revealed": [[], []],                                 # revealed, unused spells (public)
        "owner": {k: None for k in content.CHARACTER_ORDER},  # character -> seat or None (in the village)
        "leader_of": {},                                      # seat -> its original leader
        "round": 0, "first": None, "turn": None, "phase": "initiative", "turns_taken": 0,
        "initiative": None,                                   # the last initiative roll, public
        "attack": None, "last_roll": None, "pause": None, "moves": 0,
        "result": None,
    }
    return s


# --------------------------------------------------------------------------
# Who the game waits for

def _waiting(s: dict) -> list[int]:
    if s["status"] != "playing":
        return []
    if s["pause"] is not None:
        return [HUMAN]
    phase = s["phase"]
    if phase == "initiative":
        return [HUMAN] if _computer(s) else [0, 1]
    if phase == "counter":
        return [_rival(s["attack"]["seat"])]
    if phase == "roll":
        return [_dice_seat(s, s["attack"]["seat"])]
    return [s["turn"]]


# --------------------------------------------------------------------------
# What each viewer may do

def actions(state: dict, viewer) -> list[dict]:
    s = state
    if s["status"] != "playing" or not _is_seat(s, viewer) or viewer not in _waiting(s):
        return []
    if s["pause"] is not None:
        return [label({"type": "continue"}, "Continue")]
    phase = s["phase"]
    if phase == "initiative":
        return [label({"type": "roll"}, "Roll the dice for initiative")]
    if phase == "draw":
        count = max(1, len(_clients(s, viewer)))
        return [label({"type": "draw"}, f"Draw: reveal {count} spell{'s' if count > 1 else ''}")]
    if phase == "roll":
        return [label({"type": "roll"}, "Roll the dice for the attack")]
    if phase == "counter":
        target = _char(s["attack"]["target"])
        listed = [label({"type": "defend", "spell": n}, f"Defend {target['name']} with \u201c{_spell(n)['title']}\u201d "
                                                       f"(+{_spell(n)['strength']})")
                  for n in s["revealed"][viewer] if _spell(n)["kind"] == "defense" and _fits(_spell(n), target)]
        listed.append(label({"type": "no_defense"}, "No counterspell"))
        return listed
    listed = []
    for n in s["revealed"][viewer]:
        spell = _spell(n)
        if spell["kind"] != "attack":
            continue
        for key in _targets(s, viewer):
            if _fits(spell, _char(key)):
                who = _char(key)["name"]
                listed.append(label({"type": "cast", "spell": n, "target": key, "words": ""},
                                    f"Cast \u201c{spell['title']}\u201d (+{spell['strength']}) on {who}"))
    listed.append(label({"type": "end_turn"}, "End your turn"))
    return listed


def _targets(s: dict, seat: int) -> list[str]:
    """Neutral villagers and the rival's clients (leaders included)."""
    return [k for k in content.CHARACTER_ORDER if s["owner"][k] in (None, _rival(seat))]


# --------------------------------------------------------------------------
# Applying an action

def _check_payload(action) -> tuple[str, dict]:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        _fail("illegal", "That is not a move in the Wizard duel.")
    action = strip_label(action)
    kind = action["type"]
    if kind == "cast" and "words" not in action:
        action = dict(action, words="")
    if kind not in FIELDS or set(action) != FIELDS[kind]:
        _fail("illegal", "That is not a move in the Wizard duel." if kind not in FIELDS
              else "That move has the wrong details.")
    if kind == "cast":
        words = action["words"]
        if not isinstance(words, str) or "\x00" in words or len(words) > WORDS_MAX:
            _fail("illegal", f"Words of power are plain text of at most {WORDS_MAX} characters.")
    return kind, action


def apply(state: dict, actor, action: dict) -> tuple[dict, list[dict]]:
    if actor == BOARD:
        _fail("forbidden", "The board only shows the game; it cannot make moves.")
    if actor == FACILITATOR:
        _fail("forbidden", "The teacher cannot play for a wizard.")
    if state["status"] != "playing":
        _fail("game_over", "The duel is over.")
    kind, action = _check_payload(action)
    if kind == "time_up":
        if actor != SYSTEM:
            _fail("forbidden", "Only the clock ends a match.")
        if action["moves"] != state["moves"] or state["options"]["match"] != "online":
            _fail("stale", "The match has moved on since.")
        s = clone(state)
        out = [log("expired", "Nobody moved for 14 days: the match has expired.")]
        _end(s, [], "the match expired after 14 days without a move", out)
        return s, out
    if not _is_seat(state, actor):
        _fail("forbidden", "That wizard is not at this table.")
    check = {k: v for k, v in action.items() if k != "words"}
    if check not in [{k: v for k, v in strip_label(a).items() if k != "words"} for a in actions(state, actor)]:
        _refuse(state, actor, kind)
    s = clone(state)
    out: list[dict] = []
    s["moves"] += 1
    mover_is_computer = _computer(s) and actor == COMPUTER
    rolled_for_computer = _computer(s) and kind == "roll" and s["phase"] == "roll" and s["attack"]["seat"] == COMPUTER
    {"roll": _roll, "draw": _draw, "cast": _cast, "defend": _defend, "no_defense": _defend,
     "end_turn": _end_turn, "continue": _continue}[kind](s, actor, action, out)
    # Against the computer, each of its moves waits for Continue, and so does the result of
    # the dice the human rolled for its attack (the next computer move would sweep it away).
    if (mover_is_computer or rolled_for_computer) and s["status"] == "playing":
        said = [e["text"] for e in out if e["t"] not in ("ruling", "draw")]
        s["pause"] = {"text": said[-1] if said else "The computer wizard moved."}
    return s, out


def _refuse(s: dict, seat: int, kind: str):
    waiting = _waiting(s)
    if seat not in waiting:
        _fail("not_your_turn", f"The duel is waiting for {join_names([_name(s, w) for w in waiting])}.")
    if s["pause"] is not None:
        _fail("illegal", "Press Continue first.")
    if s["phase"] == "draw" and kind in ("cast", "end_turn"):
        _fail("illegal", "Draw first: reveal your spells before casting or ending your turn.")
    _fail("illegal", "That move is not possible now.")


def _continue(s: dict, seat: int, action: dict, out: list) -> None:
    s["pause"] = None


def _roll(s: dict, seat: int, action: dict, out: list) -> None:
    if s["phase"] == "initiative":
        _initiative(s, out)
    else:
        _resolve_attack(s, out)


def _initiative(s: dict, out: list) -> None:
    rolls = [_roll2(s), _roll2(s)]
    totals = [sum(r) for r in rolls]
    s["initiative"] = {"dice": rolls, "totals": totals}
    s["last_roll"] = {"kind": "initiative", "dice": rolls, "totals": totals}
    if totals[0] == totals[1]:
        out.append(log("initiative_tie", f"Initiative: {totals[0]} each. Roll again.", totals=totals))
        out.append(rule("wizard.initiative_2d6", totals=totals))
        return
    first = 0 if totals[0] > totals[1] else 1
    s["first"], s["turn"], s["phase"] = first, first, "draw"
    s["round"] += 1
    s["turns_taken"] = 0
    out.append(log("initiative", f"Initiative: {_name(s, 0)} {totals[0]}, {_name(s, 1)} {totals[1]}. "
                                 f"{_name(s, first)} goes first in round {s['round']}.", first=first, totals=totals))
    if s["round"] == 1:
        s["owner"][content.LEADERS[0]] = first             # Apa Nochis to the initiative winner
        s["owner"][content.LEADERS[1]] = _rival(first)     # Sarapion to the other
        s["leader_of"] = {str(first): content.LEADERS[0], str(_rival(first)): content.LEADERS[1]}
        out.append(log("leaders", f"{_name(s, first)} starts with {_char(content.LEADERS[0])['name']}; "
                                  f"{_name(s, _rival(first))} with {_char(content.LEADERS[1])['name']}."))
        for seat in (first, _rival(first)):
            _reveal(s, seat, 1, out, why="opening spell")
        out.append(rule("wizard.opening_spell"))


def _reveal(s: dict, seat: int, count: int, out: list, *, why: str) -> None:
    deck = s["decks"][seat]
    got = deck[:count]
    del deck[:count]
    s["revealed"][seat] += got
    titles = ", ".join(f"\u201c{_spell(n)['title']}\u201d" for n in got) or "nothing"
    out.append(log("reveal", f"{_name(s, seat)} revealed {titles} ({why}).", seat=seat, spells=got))
    if len(got) < count:
        out.append(rule("wizard.short_deck", seat=seat, asked=count, drawn=len(got)))


def _draw(s: dict, seat: int, action: dict, out: list) -> None:
    clients = len(_clients(s, seat))
    if clients == 0:
        out.append(rule("wizard.no_client_draw", seat=seat))
    _reveal(s, seat, max(1, clients), out, why="draw")
    s["phase"] = "cast"


def _cast(s: dict, seat: int, action: dict, out: list) -> None:
    n, target = action["spell"], action["target"]
    s["revealed"][seat].remove(n)
    words = " ".join(action["words"].split())
    s["attack"] = {"seat": seat, "spell": n, "target": target, "defense": None, "words": words}
    spell, who = _spell(n), _char(target)
    owner = s["owner"][target]
    out.append(log("cast", f"{_name(s, seat)} casts \u201c{spell['title']}\u201d on {who['name']}"
                           + (f", saying \u201c{words}\u201d" if words else "") + ".",
                   seat=seat, spell=n, target=target, words=words))
    if words:
        out.append(rule("wizard.words_of_power", seat=seat))
    if spell["gender"] is not None:
        out.append(rule("wizard.gender_restrictions", spell=n, gender=spell["gender"]))
    s["phase"] = "counter" if owner is not None else "roll"


def _defend(s: dict, seat: int, action: dict, out: list) -> None:
    a = s["attack"]
    if action["type"] == "defend":
        n = action["spell"]
        s["revealed"][seat].remove(n)
        a["defense"] = n
        spell = _spell(n)
        out.append(log("defend", f"{_name(s, seat)} answers with \u201c{spell['title']}\u201d.", seat=seat, spell=n))
        attack = _spell(a["spell"])
        out.append(rule("wizard.defenses_counter_everything", attack=a["spell"], defense=n,
                        attack_category=attack["category"], defense_category=spell["category"]))
        if spell["category"] == "healing":
            out.append(rule("wizard.healing_is_a_counterspell", spell=n))
        if spell["gender"] is not None:
            out.append(rule("wizard.gender_restrictions", spell=n, gender=spell["gender"]))
    else:
        out.append(log("no_defense", f"{_name(s, seat)} adds no counterspell.", seat=seat))
    s["phase"] = "roll"


def _resolve_attack(s: dict, out: list) -> None:
    a = s["attack"]
    seat, target = a["seat"], a["target"]
    spell, who = _spell(a["spell"]), _char(target)
    attack_dice, defense_dice = _roll2(s), _roll2(s)
    extra = _spell(a["defense"])["strength"] if a["defense"] else 0
    attack = sum(attack_dice) + spell["strength"]
    defense = sum(defense_dice) + who["willpower"] + extra
    success = attack > defense
    s["last_roll"] = {"kind": "attack", "attack_dice": attack_dice, "defense_dice": defense_dice,
                      "strength": spell["strength"], "willpower": who["willpower"], "defense_bonus": extra,
                      "attack": attack, "defense": defense, "success": success, "target": target, "seat": seat}
    was = s["owner"][target]
    verdict = "succeeds" if success else ("fails: a tie changes nothing" if attack == defense else "fails")
    out.append(log("attack", f"Attack {attack} ({attack_dice[0]}+{attack_dice[1]}+{spell['strength']}) against "
                             f"{who['name']}'s {defense} ({defense_dice[0]}+{defense_dice[1]}+{who['willpower']}"
                             + (f"+{extra}" if extra else "") + f"): the attack {verdict}.",
                   seat=seat, target=target, attack=attack, defense=defense, success=success))
    # Spent spells go to the bottom of their caster's own deck.
    s["decks"][seat].append(a["spell"])
    if a["defense"]:
        s["decks"][_rival(seat)].append(a["defense"])
    s["attack"] = None
    s["phase"] = "cast"
    if success:
        if was is None:
            s["owner"][target] = seat
            out.append(log("recruit", f"{who['name']} becomes {_name(s, seat)}'s client.", seat=seat, target=target))
            if s["leader_of"].get(str(_rival(seat))) == target:
                _end(s, [seat], f"{_name(s, seat)} won over the rival's leader {who['name']}", out)
                return
        else:
            s["owner"][target] = None
            out.append(log("returned", f"{who['name']} returns to the village.", seat=seat, target=target))
            if s["leader_of"].get(str(was)) == target:
                out.append(rule("wizard.returning_a_leader_does_not_win", target=target))
    for wizard in (seat, _rival(seat)):
        if _willpower(s, wizard) >= WIN_WILLPOWER:
            _end(s, [wizard], f"{_name(s, wizard)}'s clients total {_willpower(s, wizard)} willpower", out)
            return


def _end_turn(s: dict, seat: int, action: dict, out: list) -> None:
    s["turns_taken"] += 1
    out.append(log("end_turn", f"{_name(s, seat)} ends the turn.", seat=seat))
    if s["revealed"][seat]:
        out.append(rule("wizard.revealed_spells_stay", seat=seat, kept=len(s["revealed"][seat])))
    if s["turns_taken"] < 2:
        s["turn"] = _rival(seat)
        s["phase"] = "draw"
        return
    s["turn"], s["phase"] = None, "initiative"


def _end(s: dict, winners: list[int], reason: str, out: list) -> None:
    s["status"] = "over"
    s["phase"] = "over"
    s["pause"] = None
    if s["attack"] is not None:   # a spell in the air when the game ended goes back to its deck
        s["decks"][s["attack"]["seat"]].append(s["attack"]["spell"])
        if s["attack"]["defense"]:
            s["decks"][_rival(s["attack"]["seat"])].append(s["attack"]["defense"])
        s["attack"] = None
    scores = [_willpower(s, 0), _willpower(s, 1)]
    ranking = sorted((0, 1), key=lambda p: (p not in winners, -scores[p], p))
    s["result"] = {"winners": winners, "ranking": ranking, "scores": scores, "reason": reason}
    text = f"{join_names([_name(s, w) for w in winners])} wins: {reason}." if winners else f"The duel ends: {reason}."
    out.append(log("game_over", text, winners=winners))


def finish(state: dict) -> tuple[dict, list[dict]]:
    if state["status"] != "playing":
        _fail("game_over", "The duel is over.")
    s = clone(state)
    out = [log("end", "The teacher ended the duel.")]
    scores = [_willpower(s, 0), _willpower(s, 1)]
    best = max(scores)
    _end(s, [p for p in (0, 1) if scores[p] == best], "the teacher ended the duel; the most willpower leads", out)
    return s, out


def result(state: dict):
    return state["result"]


def timers(state: dict) -> list[dict]:
    """An online match expires 14 days after its last move."""
    s = state
    if s["status"] != "playing" or s["options"]["match"] != "online":
        return []
    return [{"key": f"expire:{s['moves']}", "after": EXPIRY_SECONDS, "actor": SYSTEM,
             "action": {"type": "time_up", "moves": s["moves"]}}]


# --------------------------------------------------------------------------
# Views

def _prompt_text(s: dict, viewer) -> str:
    if s["status"] != "playing":
        return "The duel is over."
    mine = _is_seat(s, viewer) and viewer in _waiting(s)
    if s["pause"] is not None:
        return s["pause"]["text"] + (" Press Continue." if mine else "")
    phase = s["phase"]
    if phase == "initiative":
        return "Click the dice to roll for initiative." if mine else "Waiting for the initiative roll."
    if phase == "counter":
        a = s["attack"]
        who = _char(a["target"])["name"]
        return (f"{_name(s, a['seat'])} attacks your client {who}. Add a counterspell?" if mine
                else f"{_name(s, _rival(a['seat']))} may defend {who}.")
    if phase == "roll":
        return "Click the dice to resolve the attack." if mine else "Waiting for the dice."
    turn = _name(s, s["turn"])
    if phase == "draw":
        return "Your turn: press Draw to reveal your spells." if mine else f"{turn} is drawing."
    return "Cast attack spells at villagers or rival clients, then end your turn." if mine else f"{turn} is casting."


def _spell_view(n: int) -> dict:
    sp = _spell(n)
    return {"number": n, "title": sp["title"], "kind": sp["kind"], "strength": sp["strength"],
            "gender": sp["gender"], "category": sp["category"]}


def view(state: dict, viewer) -> dict:
    s = state
    leader_of = {v: int(k) for k, v in s["leader_of"].items()}
    public = {
        "status": s["status"], "names": list(s["names"]), "phase": s["phase"], "round": s["round"],
        "turn": s["turn"], "first": s["first"], "goal": WIN_WILLPOWER,
        "village": [{"id": k, **{f: _char(k)[f] for f in ("name", "willpower", "gender", "occupation")},
                     "owner": s["owner"][k], "leader_of": leader_of.get(k)} for k in content.CHARACTER_ORDER],
        "wizards": [{"seat": p, "name": s["names"][p], "deck": len(s["decks"][p]),
                     "revealed": [_spell_view(n) for n in s["revealed"][p]],
                     "willpower": _willpower(s, p), "clients": len(_clients(s, p))} for p in (0, 1)],
        "attack": (dict(s["attack"], spell=_spell_view(s["attack"]["spell"]),
                        defense=_spell_view(s["attack"]["defense"]) if s["attack"]["defense"] else None)
                   if s["attack"] else None),
        "initiative": s["initiative"], "last_roll": s["last_roll"], "pause": s["pause"],
        "options": dict(s["options"]), "waiting_for": _waiting(s), "result": s["result"],
    }
    private = {"seat": viewer} if _is_seat(s, viewer) else {}
    return {"public": public, "private": private, "prompt": prompt(_waiting(s), _prompt_text(s, viewer))}


# --------------------------------------------------------------------------
# The computer wizard: its own view and legal actions only (it cannot know the
# order of its deck or the next dice)

def bot(seen: dict, offered: list[dict], rng) -> dict | None:
    if not offered:
        return None
    public = seen["public"]
    kinds = {a["type"] for a in offered}
    for simple in ("continue", "roll", "draw"):
        if simple in kinds:
            return next(a for a in offered if a["type"] == simple)
    village = {c["id"]: c for c in public["village"]}
    if "no_defense" in kinds:
        defenses = [a for a in offered if a["type"] == "defend"]
        target = village[public["attack"]["target"]]
        worth = target["willpower"] + (4 if target["leader_of"] is not None else 0)
        if defenses and (worth >= 5 or public["options"]["computer_level"] == "adept"):
            spells = {s["number"]: s for w in public["wizards"] for s in w["revealed"]}
            return max(defenses, key=lambda a: (spells[a["spell"]]["strength"], -a["spell"]))
        return next(a for a in offered if a["type"] == "no_defense")
    casts = [a for a in offered if a["type"] == "cast"]
    if casts:
        me = seen["private"]["seat"]
        spells = {s["number"]: s for s in public["wizards"][me]["revealed"]}
        adept = public["options"]["computer_level"] == "adept"

        def score(a):
            c = village[a["target"]]
            chance = spells[a["spell"]]["strength"] - c["willpower"]   # dice aside, the edge of this attack
            prize = c["willpower"] + (10 if c["leader_of"] == 1 - me else 0) + (2 if c["owner"] is not None else 0)
            return (chance + (prize / 3 if adept else 0), -a["spell"], a["target"])
        best = max(casts, key=score)
        if score(best)[0] > -6 or not adept:
            return dict(best, words="")
    return next(a for a in offered if a["type"] == "end_turn")
