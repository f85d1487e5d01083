"""Storm War: a pure, deterministic state machine (see DESIGN.md and
shared/rules/storm-war.txt).

A turn: an automatic draw, then Management (apply Permanent cards, equip
Tools, place one Degrader, make one upgrade or sue one captured Degrader),
then a Challenge against one risk of the active Environment (or skip: draw 1
and end the turn). A challenge opens the Respond step: anyone may play
one-time Chaos (they wait on a stack and resolve, in order, once everyone has
passed), other trainees may donate one BMP and draw 2, and every pass is reset
by a new play or donation. Then defense >= risk succeeds.

Cards are unique (one copy each); `state["faces"]` maps an opaque id to the
card's key. A card that goes face down (into a hand or the deck) gets a fresh
id, so an id seen on a Jobsite never points at a hidden card later. Required
choices (discards, excess after a capacity bonus leaves) queue in
`state["choices"]` and block everything else until the chooser has made them.

The functions of the engine contract (app/engines/contract.py):

    new(options, seats, seed) -> state
    actions(state, viewer) -> [labelled action, ...]
    apply(state, actor, action) -> (state, log)
    view(state, viewer) -> {"public", "private", "prompt"}
    bot(view, actions, rng) -> action | None     (computer.py)
    result(state) -> None | {winners, ranking, scores, reason}
    finish(state, cause) -> (state, log)
"""
from __future__ import annotations

from itertools import product

from ..contract import (IllegalAction, Option, Rng, clone, finish_cause, is_seat, join_names, label, log, prompt,
                        resolve_options, strip_label)
from ..text import N_, NP_
from . import content
from .cards import RISK_LABEL
from .computer import bot  # noqa: F401  (the contract's bot: computer.py)
from .content import BASE_LIMITS, PERMANENT, RISKS, SECTION_OF
from .rulings import rule

KEY = "storm_war"
TITLE = "Storm War"
VERSION = "storm-war-2"
# storm-war-2: a winning cleanup ends the game at once (no reward, no cleanup) and the
# claimed Environment leaves the table; storm-war-1 drew the reward, discarded the
# winning Jobsite and kept showing the claimed Environment as the active one.
MIN_SEATS = 2
MAX_SEATS = 4
BLURB = N_("Build a Jobsite of stormwater practices, mentors and tools, then clean up polluted places: "
           "your defense must beat the Environment's Toxic, Erosion or Nutrient risk.")

FACILITATOR = "facilitator"
BOARD = "board"
HAND = 7
DONATION_DRAW = 2
SUE_DRAW = 2
REWARD = {"lowest": 2, "middle": 3, "highest": 4, "tied": 3}
LEVELS = ("easy", "standard")

OPTIONS = [
    Option("goal", N_("Environments to win"), 3, (3, 5), help=N_("The first trainee to clean up this many wins.")),
    Option("demo", N_("Guided demo"), False, (False, True),
           help=N_("One trainee against the practice rival, led step by step through one cleanup.")),
    Option("computer_level", N_("Computer players"), "standard", LEVELS,
           help=N_("easy: never plays Chaos cards against a challenge and challenges only with a lead of 2; "
                   "standard: challenges as soon as its Jobsite and hand can win, spoils rivals' challenges, "
                   "shields thin ones with Hero Block and slows down the leader.")),
]
PRESETS = {"short": {"goal": 3}, "long": {"goal": 5}, "demo": {"demo": True}}

FIELDS = {
    "apply": {"type", "card"}, "equip": {"type", "card", "on"}, "degrader": {"type", "card"},
    "upgrade": {"type", "out", "card"}, "sue": {"type", "card"}, "shield": {"type", "card"},
    "challenge": {"type", "risk"}, "skip": {"type"}, "donate": {"type", "card"}, "pass": {"type"},
    "choose": {"type", "card"},
}
PLAY_FIELDS = {"type", "card", "risk", "target", "pick", "tool", "mentor", "jobsite"}


# --------------------------------------------------------------------------
# Small helpers

def _fail(code: str, message: str):
    raise IllegalAction(code, message)


def _is_seat(s: dict, who) -> bool:
    return is_seat(s["names"], who)


def _name(s: dict, seat: int) -> str:
    return s["names"][seat]


def _key(s: dict, cid: str) -> str:
    return s["faces"][cid]


def _card(s: dict, cid: str) -> dict:
    return content.card(s["faces"][cid])


def _cname(s: dict, cid: str) -> str:
    return _card(s, cid)["name"]


def _new_id(s: dict, key: str) -> str:
    cid = f"k{s['next_id']}"
    s["next_id"] += 1
    s["faces"][cid] = key
    return cid


def _hide(s: dict, cid: str) -> str:
    """The card goes face down: it gets a fresh id (the old one is forgotten)."""
    key = s["faces"].pop(cid)
    return _new_id(s, key)


def _shuffle(s: dict, items: list) -> None:
    rng = Rng(s["rng"])
    rng.shuffle(items)
    s["rng"] = rng.state


def _seats(s: dict) -> range:
    return range(len(s["names"]))


def _jobsite_ids(s: dict, seat: int) -> list[str]:
    j = s["jobsites"][seat]
    return j["bmp"] + j["chaos"] + j["mentor"] + [slot["id"] for slot in j["tools"]]


def _effects(s: dict, cid: str) -> list[dict]:
    return _card(s, cid).get("effects", [])


def _limits(s: dict, seat: int) -> dict:
    """Section limits with capacity bonuses: they do not stack, the highest applies."""
    limits = dict(BASE_LIMITS)
    for cid in _jobsite_ids(s, seat):
        for e in _effects(s, cid):
            if e["op"] == "capacity":
                limits[e["section"]] = max(limits[e["section"]], e["limit"])
            elif e["op"] == "team_up":
                limits["mentor"] = max(limits["mentor"], 2)
    return limits


def _count(s: dict, seat: int, section: str) -> int:
    j = s["jobsites"][seat]
    return len(j["tools"]) if section == "tools" else len(j[section])


def _tool_places(s: dict, seat: int) -> list[str]:
    """Where a Tool may go now: on the trainee ("self", one less than the Tool limit)
    or on a present Mentor that holds no Tool; nowhere once the limit is reached."""
    j = s["jobsites"][seat]
    limit = _limits(s, seat)["tools"]
    if len(j["tools"]) >= limit:
        return []
    places = []
    if sum(1 for slot in j["tools"] if slot["on"] == "self") < limit - 1:
        places.append("self")
    held = {slot["on"] for slot in j["tools"]}
    places += [m for m in j["mentor"] if m not in held]
    return places


# --------------------------------------------------------------------------
# Setting up

def new(options: dict, seats: list[str], seed) -> dict:
    resolved = resolve_options(OPTIONS, options)
    demo = resolved["demo"]
    if not isinstance(seats, list) or not MIN_SEATS <= len(seats) <= MAX_SEATS or (demo and len(seats) != 2):
        _fail("illegal", N_("The guided demo is one trainee and the practice rival.") if demo
              else N_("Storm War needs {low} to {high} trainees.").format(low=MIN_SEATS, high=MAX_SEATS))
    rng = Rng.from_seed(seed)
    n = len(seats)
    s = {
        "game": KEY, "version": VERSION, "options": resolved, "names": list(seats), "status": "playing",
        "rng": rng.state, "faces": {}, "next_id": 0,
        "deck": [], "discard": [], "hands": [[] for _ in seats],
        "jobsites": [{"bmp": [], "chaos": [], "mentor": [], "tools": []} for _ in seats],
        "captured": [[] for _ in seats], "claimed": [[] for _ in seats],
        "envs": [], "env": None, "degrader": None,
        "goal": 1 if demo else resolved["goal"],
        "turn": 0, "turn_no": 1, "phase": "manage",
        "managed": {"degrader": False, "upgrade_or_sue": False, "returned": []},
        "skips": [0] * n, "miss_draw": [False] * n, "shield": [False] * n,
        "challenge": None, "choices": [], "last": None,
        "demo_step": 0 if demo else None, "announced": False, "result": None,
    }
    keys = list(content.CARD_ORDER)
    envs = list(content.ENVIRONMENT_ORDER)
    _shuffle(s, keys)
    _shuffle(s, envs)
    if demo:
        # The trainee holds the four demo cards; the rival holds only Permanent cards,
        # so its automatic responses never spoil the lesson; City comes first.
        keys = [k for k in keys if k not in content.DEMO_CARDS]
        permanent = [k for k in keys if content.card(k)["type"] in PERMANENT]
        rival = permanent[:HAND]
        keys = [k for k in keys if k not in rival]
        s["hands"][0] = [_new_id(s, k) for k in content.DEMO_CARDS + tuple(keys[:HAND - 4])]
        keys = keys[HAND - 4:]
        s["hands"][1] = [_new_id(s, k) for k in rival]
        envs.remove(content.DEMO_ENVIRONMENT)
        envs.insert(0, content.DEMO_ENVIRONMENT)
    else:
        for _ in range(HAND):
            for seat in range(n):
                s["hands"][seat].append(_new_id(s, keys.pop()))
        r = Rng(s["rng"])
        s["turn"] = r.below(n)          # the first turn is random
        s["rng"] = r.state
    s["deck"] = [_new_id(s, k) for k in keys]
    s["env"], s["envs"] = envs[0], envs[1:]
    _start_turn(s, [])
    return s


# --------------------------------------------------------------------------
# Who the game waits for

def _waiting(s: dict) -> list[int]:
    if s["status"] != "playing":
        return []
    if s["choices"]:
        return [s["choices"][0]["seat"]]
    if s["phase"] == "respond":
        passed = set(s["challenge"]["passes"])
        return [p for p in _seats(s) if p not in passed]
    return [s["turn"]]


# --------------------------------------------------------------------------
# What each viewer may do

def actions(state: dict, viewer) -> list[dict]:
    s = state
    if s["status"] != "playing" or not _is_seat(s, viewer) or viewer not in _waiting(s):
        return []
    if s["choices"]:
        return _choice_actions(s, viewer)
    listed = _manage_actions(s, viewer) if s["phase"] == "manage" else _respond_actions(s, viewer)
    if s["demo_step"] is not None and viewer == 0:
        allowed = _demo_allows(s)
        listed = [a for a in listed if allowed(strip_label(a))]
    return listed


def _choice_actions(s: dict, seat: int) -> list[dict]:
    c = s["choices"][0]
    ids = _choice_pool(s, c)
    return [label({"type": "choose", "card": cid}, N_("Discard {card}").format(card=_cname(s, cid))) for cid in ids]


def _choice_pool(s: dict, c: dict) -> list[str]:
    j = s["jobsites"][c["seat"]]
    if c["kind"] == "hand":
        return list(s["hands"][c["seat"]])
    if c["kind"] == "bmp":
        return list(j["bmp"])
    section = c["section"]
    return [slot["id"] for slot in j["tools"]] if section == "tools" else list(j[section])


def _manage_actions(s: dict, seat: int) -> list[dict]:
    listed = []
    j = s["jobsites"][seat]
    limits = _limits(s, seat)
    m = s["managed"]
    for cid in s["hands"][seat]:
        c = _card(s, cid)
        kind = c["type"]
        if kind in PERMANENT and _key(s, cid) not in m["returned"]:
            section = SECTION_OF[kind]
            if section == "tools":
                for place in _tool_places(s, seat):
                    text = (N_("Equip {card} on yourself").format(card=c["name"]) if place == "self"
                            else N_("Equip {card} on {mentor}").format(card=c["name"], mentor=_cname(s, place)))
                    listed.append(label({"type": "equip", "card": cid, "on": place}, text))
            elif _count(s, seat, section) < limits[section]:
                listed.append(label({"type": "apply", "card": cid},
                                    N_("Apply {card} to your Jobsite").format(card=c["name"])))
        elif kind == "degrader" and not m["degrader"] and s["degrader"] is None:
            listed.append(label({"type": "degrader", "card": cid},
                                N_("Place {card} on {environment}").format(
                                    card=c["name"], environment=content.ENVIRONMENTS[s["env"]]["name"])))
        elif any(e["op"] == "block" for e in c.get("effects", [])) and not s["shield"][seat]:
            listed.append(label({"type": "shield", "card": cid},
                                N_("Play {card} to shield this turn").format(card=c["name"])))
    if not m["upgrade_or_sue"]:
        for section in ("bmp", "chaos", "mentor", "tools"):
            on_site = [slot["id"] for slot in j["tools"]] if section == "tools" else j[section]
            if not on_site or len(on_site) < limits[section]:
                continue                      # only a full section may be upgraded
            for out in on_site:
                for cid in s["hands"][seat]:
                    if SECTION_OF.get(_card(s, cid)["type"]) == section:
                        listed.append(label({"type": "upgrade", "out": out, "card": cid},
                                            N_("Upgrade: swap {out} for {card}").format(
                                                out=_cname(s, out), card=_cname(s, cid))))
        for cid in s["captured"][seat]:
            listed.append(label({"type": "sue", "card": cid}, N_("Sue over {card}: discard it, draw 2").format(
                card=_cname(s, cid))))
    env = content.ENVIRONMENTS[s["env"]]
    defenses = _defenses(s, seat)
    for risk in RISKS:
        listed.append(label({"type": "challenge", "risk": risk},
                            N_("Challenge {environment}'s {risk} risk ({value}) with your {risk} defense ({defense})")
                            .format(environment=env["name"], risk=RISK_LABEL[risk],
                                    value=_effective_risk(s, seat, risk), defense=defenses[risk])))
    listed.append(label({"type": "skip"}, N_("Skip the challenge: draw 1 and end your turn")))
    return listed


def _respond_actions(s: dict, seat: int) -> list[dict]:
    ch = s["challenge"]
    listed = []
    for cid in s["hands"][seat]:
        if _card(s, cid)["type"] == "chaos":
            listed += _play_options(s, seat, cid)
    if seat != ch["seat"] and str(seat) not in ch["donations"]:
        for cid in s["jobsites"][seat]["bmp"]:
            listed.append(label({"type": "donate", "card": cid},
                                N_("Donate {card} to {name} and draw 2").format(
                                    card=_cname(s, cid), name=_name(s, ch["seat"]))))
    listed.append(label({"type": "pass"}, N_("Pass")))
    return listed


def _play_options(s: dict, seat: int, cid: str) -> list[dict]:
    """Every complete way to play a one-time Chaos card now (each choice filled in)."""
    c = _card(s, cid)
    ch = s["challenge"]
    axes: dict[str, list] = {}
    for e in c["effects"]:
        if e.get("risk") == "choose":
            axes["risk"] = list(RISKS)
        if e.get("who") == "choose":
            axes["target"] = [p for p in _seats(s) if p != seat]
        if e["op"] == "perfect":
            axes["jobsite"] = [p for p in _seats(s) if s["jobsites"][p]["bmp"]]
    listed = []
    keys = sorted(axes)
    for combo in product(*(axes[k] for k in keys)):
        action = {"type": "play", "card": cid, **dict(zip(keys, combo))}
        target = action.get("target", ch["seat"])
        extra = _pick_axes(s, c, target)
        if extra is None:
            continue
        for picks in extra:
            listed.append(label(dict(action, **picks), _play_label(s, c, dict(action, **picks))))
    return listed


def _pick_axes(s: dict, c: dict, target: int) -> list[dict] | None:
    """The cards a `remove` or `overbudget` effect may pick on the target's Jobsite
    ([{}] when nothing needs picking; None when the card would do nothing)."""
    options = [{}]
    j = s["jobsites"][target]
    for e in c["effects"]:
        if e["op"] == "remove":
            pool = [slot["id"] for slot in j["tools"]] if e["section"] == "tools" else j[e["section"]]
            if not pool:
                return None
            options = [dict(o, pick=cid) for o in options for cid in pool]
        elif e["op"] == "overbudget":
            tools = [slot["id"] for slot in j["tools"]] or [None]
            mentors = list(j["mentor"]) or [None]
            pairs = [(slot, m) for slot in tools for m in mentors if slot or m]
            if not pairs:
                return None
            options = [dict(o, tool=slot, mentor=m) for o in options for slot, m in pairs]
    return options


# One template for each way a one-time Chaos card is played (the details it asks for):
# (target, risk, jobsite, pick, how many of tool/mentor are discarded).
PLAY_LABELS = {
    (False, False, False, False, 0): N_("Play {card}"),
    (True, False, False, False, 0): N_("Play {card} on {name}"),
    (False, True, False, False, 0): N_("Play {card} ({risk})"),
    (True, True, False, False, 0): N_("Play {card} on {name} ({risk})"),
    (False, False, True, False, 0): N_("Play {card} choosing {jobsite}'s Jobsite"),
    (False, False, False, True, 0): N_("Play {card} to remove {pick}"),
    (True, False, False, True, 0): N_("Play {card} on {name} to remove {pick}"),
    (False, False, False, False, 1): N_("Play {card} discarding {one}"),
    (True, False, False, False, 1): N_("Play {card} on {name} discarding {one}"),
    (False, False, False, False, 2): N_("Play {card} discarding {tool} and {mentor}"),
    (True, False, False, False, 2): N_("Play {card} on {name} discarding {tool} and {mentor}"),
}


def _play_label(s: dict, c: dict, action: dict) -> str:
    picked = [_cname(s, x) for x in (action.get("tool"), action.get("mentor")) if x]
    shape = ("target" in action, "risk" in action, "jobsite" in action, bool(action.get("pick")), len(picked))
    if shape in PLAY_LABELS:
        fields = {"card": c["name"]}
        if "target" in action:
            fields["name"] = _name(s, action["target"])
        if "risk" in action:
            fields["risk"] = RISK_LABEL[action["risk"]]
        if "jobsite" in action:
            fields["jobsite"] = _name(s, action["jobsite"])
        if action.get("pick"):
            fields["pick"] = _cname(s, action["pick"])
        if len(picked) == 1:
            fields["one"] = picked[0]
        elif len(picked) == 2:
            fields["tool"], fields["mentor"] = picked
        return PLAY_LABELS[shape].format(**fields)
    # A combination no card of the deck asks for (PLAY_LABELS holds every one that does).
    parts = [N_("Play {card}").format(card=c["name"])]
    if "target" in action:
        parts.append(f"on {_name(s, action['target'])}")
    if "risk" in action:
        parts.append(f"({action['risk'].capitalize()})")
    if "jobsite" in action:
        parts.append(f"choosing {_name(s, action['jobsite'])}'s Jobsite")
    if action.get("pick"):
        parts.append(f"to remove {_cname(s, action['pick'])}")
    picked = [x for x in (action.get("tool"), action.get("mentor")) if x]
    if picked:
        parts.append("discarding " + " and ".join(_cname(s, x) for x in picked))
    return " ".join(parts)


# --------------------------------------------------------------------------
# Defense and risk

def _defenses(s: dict, seat: int, risks=RISKS, *, resolving: bool = False, out: list | None = None) -> dict:
    """The challenger's defense in each of `risks`: every card on the Jobsite, synergies,
    donations and (while resolving) the resolved one-time modifiers. One pass over the
    cards for every risk: a view shows each Jobsite's three, and views are most of a
    game's work. A synergy counts when another card anywhere (any Jobsite, a donation)
    has its tag; `out` gets a ruling when only someone else's card made it count."""
    ch = s["challenge"] if s["challenge"] and s["challenge"]["seat"] == seat else None
    donated = list(ch["donations"].values()) if ch else []
    mine = _jobsite_ids(s, seat)
    totals = dict.fromkeys(risks, 0)
    everywhere = None  # every card in play, with its tags: only looked up for a synergy
    for cid in mine + donated:
        printed = _card(s, cid)
        defense = printed.get("defense")
        if defense:
            for risk in risks:
                totals[risk] += defense.get(risk, 0)
        for risk in risks:
            bonus, borrowed = 0, False
            for e in content.synergies(_key(s, cid), risk):  # most cards have none
                if everywhere is None:
                    everywhere = [(c, _card(s, c).get("tags", ()))
                                  for c in [c for p in _seats(s) for c in _jobsite_ids(s, p)] + donated]
                holders = [c for c, tags in everywhere if c != cid and e["tag"] in tags]
                if holders:
                    bonus += e["amount"]
                    borrowed = borrowed or not any(h in mine for h in holders)
            totals[risk] += bonus
            if bonus and borrowed and out is not None:
                out.append(rule("storm_war.synergy_everywhere", seat=seat, card=_key(s, cid)))
    if ch and resolving:
        for risk in risks:
            totals[risk] += ch["bonus"]
    return totals


def _defense(s: dict, seat: int, risk: str, *, resolving: bool = False, out: list | None = None) -> int:
    """The challenger's defense in one risk (see `_defenses`)."""
    return _defenses(s, seat, (risk,), resolving=resolving, out=out)[risk]


def _effective_risk(s: dict, seat: int, risk: str) -> int:
    """The printed risk plus the Degrader (whose placer ignores it)."""
    value = content.ENVIRONMENTS[s["env"]]["risks"][risk]
    d = s["degrader"]
    if d is not None and d["by"] != seat:
        value += _card(s, d["id"]).get("risk", {}).get(risk, 0)
    return value


def _reward(env: dict, risk: str) -> tuple[int, str]:
    """2, 3 or 4 cards for the lowest, middle or highest printed risk; a tie gives 3."""
    value = env["risks"][risk]
    others = [env["risks"][r] for r in RISKS if r != risk]
    if value in others:
        return REWARD["tied"], "tied"
    rank = sum(1 for o in others if o < value)
    name = ("lowest", "middle", "highest")[rank]
    return REWARD[name], name


# --------------------------------------------------------------------------
# Applying an action

def _check_payload(action) -> tuple[str, dict]:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        _fail("illegal", N_("That is not a move in Storm War."))
    action = strip_label(action)
    kind = action["type"]
    if kind == "play":
        if not {"type", "card"} <= set(action) <= PLAY_FIELDS:
            _fail("illegal", N_("That move has the wrong details."))
    elif kind not in FIELDS or set(action) != FIELDS[kind]:
        _fail("illegal", N_("That is not a move in Storm War.") if kind not in FIELDS
              else N_("That move has the wrong details."))
    return kind, action


def apply(state: dict, actor, action: dict) -> tuple[dict, list[dict]]:
    if actor == BOARD:
        _fail("forbidden", N_("The board only shows the game; it cannot make moves."))
    if actor == FACILITATOR:
        _fail("forbidden", N_("The teacher cannot play for a trainee."))
    if not _is_seat(state, actor):
        _fail("forbidden", N_("That trainee is not at this table."))
    if state["status"] != "playing":
        _fail("game_over", N_("The game is over."))
    kind, action = _check_payload(action)
    offered = [strip_label(a) for a in actions(state, actor)]
    if action not in offered:
        _refuse(state, actor, kind, action)
    s = clone(state)
    out: list[dict] = []
    if not s["announced"]:
        s["announced"] = True
        out.append(rule("storm_war.one_copy_each", cards=len(content.CARDS), environments=len(content.ENVIRONMENTS)))
        out.append(rule("storm_war.reference_cards", names=[c["name"] for c in content.REFERENCES]))
        out.append(rule("storm_war.combined_deck", cards=len(s["deck"])))
    if s["demo_step"] is not None and actor == 0:
        s["demo_step"] += 1
    {"apply": _apply_card, "equip": _equip, "degrader": _place_degrader, "upgrade": _upgrade, "sue": _sue,
     "shield": _shield, "challenge": _challenge, "skip": _skip, "donate": _donate, "pass": _pass,
     "play": _play, "choose": _choose}[kind](s, actor, action, out)
    _settle(s, out)
    return s, out


def _refuse(s: dict, seat: int, kind: str, action: dict):
    """Say why an action that is not on offer is refused, in the student's words."""
    waiting = _waiting(s)
    if seat not in waiting:
        names = join_names([_name(s, w) for w in waiting])
        _fail("not_your_turn", N_("The game is waiting for {names}.").format(names=names))
    if s["choices"]:
        _fail("illegal", N_("First finish the choice the game asked you for."))
    if s["demo_step"] is not None and seat == 0:
        _fail("illegal", N_("In the demo, follow the step on your screen: {step}").format(step=_demo_text(s)))
    if kind in ("play", "donate", "pass") and s["phase"] != "respond":
        _fail("illegal", N_("That is only possible while a challenge is open."))
    if kind in ("apply", "equip", "degrader", "upgrade", "sue", "shield", "challenge", "skip") \
            and s["phase"] != "manage":
        _fail("illegal", N_("That is only possible in your Management step."))
    card = action.get("card")
    if isinstance(card, str) and card not in s["faces"]:
        _fail("stale", N_("That card is no longer there."))
    _fail("illegal", N_("That move is not possible now."))


# ---- Management -----------------------------------------------------------------

def _apply_card(s: dict, seat: int, action: dict, out: list) -> None:
    cid = action["card"]
    c = _card(s, cid)
    s["hands"][seat].remove(cid)
    section = SECTION_OF[c["type"]]
    s["jobsites"][seat][section].append(cid)
    out.append(log("apply", N_("{name} applied {card}.").format(name=_name(s, seat), card=c["name"]), seat=seat,
                   card=_key(s, cid)))
    if c["type"] in ("preventative", "defender"):
        out.append(rule("storm_war.shared_slots", seat=seat, card=_key(s, cid), section=section))
    if c["type"] in ("mentor", "defender") and len(s["jobsites"][seat]["mentor"]) > BASE_LIMITS["mentor"]:
        out.append(rule("storm_war.team_up", seat=seat, card=_key(s, cid)))


def _equip(s: dict, seat: int, action: dict, out: list) -> None:
    cid = action["card"]
    s["hands"][seat].remove(cid)
    s["jobsites"][seat]["tools"].append({"id": cid, "on": action["on"]})
    text = (N_("{name} equipped {card} on themselves.").format(name=_name(s, seat), card=_cname(s, cid))
            if action["on"] == "self" else
            N_("{name} equipped {card} on {mentor}.").format(name=_name(s, seat), card=_cname(s, cid),
                                                           mentor=_cname(s, action["on"])))
    out.append(log("equip", text, seat=seat, card=_key(s, cid)))


def _place_degrader(s: dict, seat: int, action: dict, out: list) -> None:
    cid = action["card"]
    s["hands"][seat].remove(cid)
    s["degrader"] = {"id": cid, "by": seat}
    s["managed"]["degrader"] = True
    env = content.ENVIRONMENTS[s["env"]]["name"]
    out.append(log("degrader", N_("{name} placed {card} on {environment}.").format(
        name=_name(s, seat), card=_cname(s, cid), environment=env), seat=seat, card=_key(s, cid)))
    out.append(rule("storm_war.degrader_on_environment", seat=seat, card=_key(s, cid)))


def _upgrade(s: dict, seat: int, action: dict, out: list) -> None:
    out_id, cid = action["out"], action["card"]
    j = s["jobsites"][seat]
    old, new_card = _card(s, out_id), _card(s, cid)
    s["hands"][seat].remove(cid)
    section = SECTION_OF[old["type"]]
    if section == "tools":
        slot = next(slot for slot in j["tools"] if slot["id"] == out_id)
        slot["id"] = cid
    else:
        j[section][j[section].index(out_id)] = cid
    s["managed"]["upgrade_or_sue"] = True
    s["managed"]["returned"].append(_key(s, out_id))
    if section == "mentor":
        _release_tool(s, seat, out_id, out)
    s["hands"][seat].append(_hide(s, out_id))
    out.append(log("upgrade", N_("{name} upgraded: {out} back to hand, {card} in.").format(
        name=_name(s, seat), out=old["name"], card=new_card["name"]),
                   seat=seat, out=old["name"], card=new_card["name"]))
    if old["type"] != new_card["type"]:
        out.append(rule("storm_war.upgrade_same_section", seat=seat, out=old["type"], card=new_card["type"]))
    _check_excess(s, seat, out)


def _release_tool(s: dict, seat: int, mentor_id: str, out: list) -> None:
    """A Mentor left the Jobsite: the Tool it carried goes back to the owner's hand."""
    j = s["jobsites"][seat]
    for slot in [slot for slot in j["tools"] if slot["on"] == mentor_id]:
        j["tools"].remove(slot)
        name = _cname(s, slot["id"])
        s["hands"][seat].append(_hide(s, slot["id"]))
        out.append(log("tool_back", N_("{card} went back to {name}'s hand with its Mentor gone.").format(
            card=name, name=_name(s, seat)),
                       seat=seat))
        out.append(rule("storm_war.mentor_tool_returns", seat=seat))


def _sue(s: dict, seat: int, action: dict, out: list) -> None:
    cid = action["card"]
    s["captured"][seat].remove(cid)
    s["discard"].append(cid)
    s["managed"]["upgrade_or_sue"] = True
    out.append(log("sue", N_("{name} sued over {card} and draws 2.").format(name=_name(s, seat), card=_cname(s, cid)),
                   seat=seat, card=_key(s, cid)))
    _draw(s, seat, SUE_DRAW, out)


def _shield(s: dict, seat: int, action: dict, out: list) -> None:
    cid = action["card"]
    s["hands"][seat].remove(cid)
    s["discard"].append(cid)
    s["shield"][seat] = True
    out.append(log("shield", N_("{name} played {card}: the first hostile Chaos card against them this turn is "
                                "cancelled.").format(name=_name(s, seat), card=_cname(s, cid)),
                   seat=seat, card=_key(s, cid)))
    out.append(rule("storm_war.hero_block_management", seat=seat))


def _skip(s: dict, seat: int, action: dict, out: list) -> None:
    out.append(log("skip", N_("{name} skipped the challenge.").format(name=_name(s, seat)), seat=seat))
    _draw(s, seat, 1, out)
    _end_turn(s, out)


def _challenge(s: dict, seat: int, action: dict, out: list) -> None:
    risk = action["risk"]
    env = content.ENVIRONMENTS[s["env"]]
    s["phase"] = "respond"
    s["challenge"] = {"seat": seat, "risk": risk, "stack": [], "donations": {}, "passes": [], "bonus": 0,
                      "risk_bonus": 0}
    out.append(log("challenge", N_("{name} challenges {environment}'s {risk} risk ({value}) with {risk} defense "
                                   "{defense}.").format(name=_name(s, seat), environment=env["name"],
                                                        risk=RISK_LABEL[risk], value=_effective_risk(s, seat, risk),
                                                        defense=_defense(s, seat, risk)), seat=seat, risk=risk))
    d = s["degrader"]
    if d is not None and d["by"] == seat and _card(s, d["id"]).get("risk", {}).get(risk):
        out.append(rule("storm_war.placer_ignores_degrader", seat=seat, card=_key(s, d["id"])))


# ---- Respond ----------------------------------------------------------------------

def _reset_passes(s: dict, out: list) -> None:
    ch = s["challenge"]
    if ch["passes"]:
        out.append(rule("storm_war.passes_reset", passed=list(ch["passes"])))
    ch["passes"] = []


def _hostile_to(s: dict, seat: int, c: dict, action: dict) -> int | None:
    """The trainee a one-time Chaos card works against, if any."""
    ch = s["challenge"]
    target = action.get("target", ch["seat"])
    for e in c["effects"]:
        op = e["op"]
        if op == "defense" and e["amount"] < 0 and e["target"] == "challenger":
            return ch["seat"]
        if op == "risk" and e["amount"] > 0:
            return ch["seat"]
        if op in ("miss_draw", "skip_turn", "overbudget", "remove") or (op == "discard" and e["who"] == "challenger"):
            return target
    return None


def _play(s: dict, seat: int, action: dict, out: list) -> None:
    cid = action["card"]
    c = _card(s, cid)
    ch = s["challenge"]
    s["hands"][seat].remove(cid)
    s["discard"].append(cid)
    entry = {"seat": seat, "card": cid, "key": _key(s, cid), "choices": {k: v for k, v in action.items()
                                                                       if k not in ("type", "card")},
             "cancelled": False}
    out.append(log("play", N_("{name} played {card}.").format(name=_name(s, seat), card=c["name"]), seat=seat,
                   card=_key(s, cid),
                   choices=entry["choices"]))
    if any(e["op"] == "block" for e in c["effects"]):
        live = [x for x in ch["stack"] if not x["cancelled"] and not any(
            e["op"] == "block" for e in content.card(x["key"])["effects"])]
        if live:
            live[-1]["cancelled"] = True
            out.append(log("blocked", N_("{card} cancels {other}.").format(
                card=c["name"], other=content.card(live[-1]["key"])["name"]), seat=seat))
        out.append(rule("storm_war.hero_block_cancels_last", seat=seat))
    victim = _hostile_to(s, seat, c, action)
    if victim is not None and victim != seat and s["shield"][victim]:
        s["shield"][victim] = False
        entry["cancelled"] = True
        out.append(log("shielded", N_("{name}'s Hero Block cancels {card}.").format(name=_name(s, victim),
                                                                                  card=c["name"]),
                       seat=victim))
    if "target" not in action and any(e["op"] == "defense" and e["target"] == "self" for e in c["effects"]) \
            and seat != ch["seat"]:
        out.append(rule("storm_war.your_jobsite_is_the_player", seat=seat, card=_key(s, cid)))
    if any(e.get("risk") == "choose" or e.get("who") == "choose" for e in c["effects"]):
        out.append(rule("storm_war.choices_kept", seat=seat, card=_key(s, cid)))
    ch["stack"].append(entry)
    _reset_passes(s, out)


def _donate(s: dict, seat: int, action: dict, out: list) -> None:
    cid = action["card"]
    ch = s["challenge"]
    s["jobsites"][seat]["bmp"].remove(cid)
    ch["donations"][str(seat)] = cid
    out.append(log("donate", N_("{name} donated {card} to {challenger} and draws 2.").format(
        name=_name(s, seat), card=_cname(s, cid), challenger=_name(s, ch["seat"])),
                   seat=seat, card=_key(s, cid)))
    if _card(s, cid)["type"] == "preventative":
        out.append(rule("storm_war.shared_slots", seat=seat, card=_key(s, cid), section="bmp"))
    challenger = ch["seat"]
    if len(s["jobsites"][challenger]["bmp"]) + len(ch["donations"]) > _limits(s, challenger)["bmp"]:
        out.append(rule("storm_war.donations_over_capacity", seat=challenger))
    _draw(s, seat, DONATION_DRAW, out)
    _check_excess(s, seat, out)
    _reset_passes(s, out)


def _pass(s: dict, seat: int, action: dict, out: list) -> None:
    ch = s["challenge"]
    ch["passes"].append(seat)
    out.append(log("pass", N_("{name} passed.").format(name=_name(s, seat)), seat=seat))
    if len(ch["passes"]) == len(s["names"]):
        ch["resolving"] = True
        _resolve_stack(s, out)


def _resolve_stack(s: dict, out: list) -> None:
    """Everyone passed: the one-time Chaos cards take effect in the order they were played."""
    ch = s["challenge"]
    for entry in ch["stack"]:
        if entry["cancelled"] or entry.get("done"):
            continue
        entry["done"] = True
        for e in content.card(entry["key"])["effects"]:
            _effect(s, entry, e, out)


def _effect(s: dict, entry: dict, e: dict, out: list) -> None:
    ch = s["challenge"]
    seat, choices = entry["seat"], entry["choices"]
    op = e["op"]
    target = choices.get("target", ch["seat"])
    if op == "defense":
        risk = choices.get("risk", e["risk"])
        helped = ch["seat"] if e["target"] == "challenger" else seat
        if helped == ch["seat"] and risk == ch["risk"]:
            ch["bonus"] += e["amount"]
        out.append(rule("storm_war.one_time_modifiers", seat=seat, risk=risk, amount=e["amount"]))
    elif op == "risk":
        risk = ch["risk"] if e["risk"] == "challenged" else choices.get("risk", e["risk"])
        if risk == ch["risk"]:
            ch["risk_bonus"] += e["amount"]
        out.append(rule("storm_war.one_time_modifiers", seat=seat, risk=risk, amount=e["amount"]))
    elif op == "draw":
        for p in (list(_seats(s)) if e["who"] == "each" else [seat]):
            _draw(s, p, e["count"], out)
    elif op == "discard":
        victims = [ch["seat"]] if e["who"] == "challenger" else [p for p in _seats(s) if p != seat]
        for p in victims:
            _ask_discard(s, p, e["from"], e["count"], out, why=content.card(entry["key"])["name"])
    elif op == "miss_draw":
        if s["miss_draw"][target]:
            out.append(rule("storm_war.one_draw_block", seat=target))
        s["miss_draw"][target] = True
        out.append(log("miss_draw", N_("{name} will miss their next draw.").format(name=_name(s, target)), seat=target))
    elif op == "skip_turn":
        s["skips"][target] += 1
        out.append(log("skip_turn", N_("{name} will skip a turn.").format(name=_name(s, target)), seat=target))
        if s["skips"][target] > 1:
            out.append(rule("storm_war.skips_accumulate", seat=target, skips=s["skips"][target]))
    elif op == "overbudget":
        j = s["jobsites"][target]
        gone = []
        tool = choices.get("tool")
        if tool and any(slot["id"] == tool for slot in j["tools"]):
            j["tools"] = [slot for slot in j["tools"] if slot["id"] != tool]
            s["discard"].append(tool)
            gone.append(_cname(s, tool))
        mentor = choices.get("mentor")
        if mentor and mentor in j["mentor"]:
            j["mentor"].remove(mentor)
            s["discard"].append(mentor)
            gone.append(_cname(s, mentor))
            _release_tool(s, target, mentor, out)
        if len(gone) == 2:
            text = N_("Over budget: {name} discards {tool} and {mentor}.").format(
                name=_name(s, target), tool=gone[0], mentor=gone[1])
        elif gone:
            text = N_("Over budget: {name} discards {card}.").format(name=_name(s, target), card=gone[0])
        else:
            text = N_("Over budget: {name} discards nothing.").format(name=_name(s, target))
        out.append(log("overbudget", text, seat=target))
        out.append(rule("storm_war.overbudget_tools_first", seat=target))
        _check_excess(s, target, out)
    elif op == "remove":
        pick = choices.get("pick")
        j = s["jobsites"][target]
        section = e["section"]
        on_site = [slot["id"] for slot in j["tools"]] if section == "tools" else j[section]
        if pick in on_site:
            if section == "tools":
                j["tools"] = [slot for slot in j["tools"] if slot["id"] != pick]
            else:
                j[section].remove(pick)
            s["discard"].append(pick)
            out.append(log("remove", N_("{card} was removed from {name}'s Jobsite.").format(
                card=_cname(s, pick), name=_name(s, target)), seat=target))
            _check_excess(s, target, out)
    elif op == "perfect":
        owner = choices["jobsite"]
        best = max((_card(s, c)["defense"].get(ch["risk"], 0) for c in s["jobsites"][owner]["bmp"]), default=0)
        ch["bonus"] += best
        out.append(log("perfect", N_("{card} adds {n} from {name}'s best BMP.").format(
            card=content.card(entry["key"])["name"], n=best, name=_name(s, owner)), seat=seat))
        if owner != ch["seat"]:
            out.append(rule("storm_war.perfect_any_jobsite", seat=seat, jobsite=owner))


CLEANED_REWARD = {
    "lowest": N_("{name} cleaned up {environment}: {risk} defense {defense} against risk {needed}. "
                 "{n} cards for the lowest risk."),
    "middle": N_("{name} cleaned up {environment}: {risk} defense {defense} against risk {needed}. "
                 "{n} cards for the middle risk."),
    "highest": N_("{name} cleaned up {environment}: {risk} defense {defense} against risk {needed}. "
                  "{n} cards for the highest risk."),
    "tied": N_("{name} cleaned up {environment}: {risk} defense {defense} against risk {needed}. "
               "{n} cards for the tied risk."),
}


def _resolve_challenge(s: dict, out: list) -> None:
    ch = s["challenge"]
    seat, risk = ch["seat"], ch["risk"]
    env = content.ENVIRONMENTS[s["env"]]
    defense = _defense(s, seat, risk, resolving=True, out=out)
    needed = _effective_risk(s, seat, risk) + ch["risk_bonus"]
    s["last"] = {"seat": seat, "risk": risk, "environment": env["name"], "defense": defense, "needed": needed,
                 "success": defense >= needed}
    if defense < needed:
        for owner, cid in ch["donations"].items():
            s["jobsites"][int(owner)]["bmp"].append(cid)
        out.append(log("failure", N_("{name} fell short: {risk} defense {defense} against risk {needed}. The Jobsite "
                                     "stays; donations go back.").format(name=_name(s, seat), risk=RISK_LABEL[risk],
                                                                         defense=defense, needed=needed), seat=seat,
                       defense=defense, risk=needed))
        _end_turn(s, out)
        return
    s["claimed"][seat].append(s["env"])
    if s["degrader"] is not None:
        s["captured"][seat].append(s["degrader"]["id"])
        s["degrader"] = None
    fields = {"name": _name(s, seat), "environment": env["name"], "risk": RISK_LABEL[risk], "defense": defense,
              "needed": needed}
    if len(s["claimed"][seat]) >= s["goal"]:
        # "Reaching the win goal ends the game immediately": no reward, no cleanup; the
        # claimed Environment leaves the table and the winning Jobsite stays on show.
        s["env"] = None
        out.append(log("success", N_("{name} cleaned up {environment}: {risk} defense {defense} against risk "
                                     "{needed}.").format(**fields), seat=seat, environment=s["claimed"][seat][-1],
                       defense=defense, risk=needed, reward=0))
        goal, name = s["goal"], _name(s, seat)
        _end(s, [seat], NP_("{name} cleaned up {n} Environment", "{name} cleaned up {n} Environments", goal).format(
            name=name, n=goal), out,
            NP_("Game over: {name} cleaned up {n} Environment. {name} wins!",
                "Game over: {name} cleaned up {n} Environments. {name} wins!", goal).format(name=name, n=goal))
        return
    count, rank = _reward(env, risk)
    if needed != env["risks"][risk]:
        out.append(rule("storm_war.reward_uses_printed_risk", seat=seat, risk=risk))
    if s["jobsites"][seat]["tools"]:
        out.append(rule("storm_war.cleanup_discards_tools", seat=seat))
    s["discard"] += _jobsite_ids(s, seat) + list(ch["donations"].values())
    ch["donations"] = {}
    s["jobsites"][seat] = {"bmp": [], "chaos": [], "mentor": [], "tools": []}
    out.append(log("success", CLEANED_REWARD[rank].format(n=count, **fields), seat=seat,
                   environment=s["claimed"][seat][-1], defense=defense, risk=needed, reward=count))
    _draw(s, seat, count, out)
    # Someone reaches the goal before the Environments can run out (the ruling
    # storm_war.environments_run_out says why), so a next one is always there.
    s["env"] = s["envs"].pop(0)
    out.append(log("reveal", N_("The next Environment is {environment}.").format(
        environment=content.ENVIRONMENTS[s["env"]]["name"]),
                   environment=s["env"]))
    _end_turn(s, out)


# ---- Required choices ---------------------------------------------------------------

def _ask_discard(s: dict, seat: int, where: str, count: int, out: list, *, why: str) -> None:
    pool = s["hands"][seat] if where == "hand" else s["jobsites"][seat]["bmp"]
    if len(pool) < count:
        out.append(rule("storm_war.discard_what_there_is", seat=seat, asked=count, available=len(pool)))
    for _ in range(min(count, len(pool))):
        s["choices"].append({"seat": seat, "kind": where, "why": why})


def _check_excess(s: dict, seat: int, out: list) -> None:
    """A capacity bonus left: the owner chooses which excess cards to discard."""
    limits = _limits(s, seat)
    for section in ("bmp", "chaos", "mentor", "tools"):
        over = _count(s, seat, section) - limits[section]
        queued = sum(1 for c in s["choices"] if c["seat"] == seat and c.get("section") == section)
        if over > queued:
            out.append(rule("storm_war.excess_after_capacity", seat=seat, section=section, over=over))
            for _ in range(over - queued):
                s["choices"].append({"seat": seat, "kind": "excess", "section": section, "why": "capacity"})


def _choose(s: dict, seat: int, action: dict, out: list) -> None:
    c = s["choices"].pop(0)
    cid = action["card"]
    j = s["jobsites"][seat]
    name = _cname(s, cid)
    if c["kind"] == "hand":
        s["hands"][seat].remove(cid)
    elif c["kind"] == "bmp":
        j["bmp"].remove(cid)
    elif c["section"] == "tools":
        j["tools"] = [slot for slot in j["tools"] if slot["id"] != cid]
    else:
        j[c["section"]].remove(cid)
        if c["section"] == "mentor":
            _release_tool(s, seat, cid, out)
    s["discard"].append(cid)
    out.append(log("discard", N_("{name} discarded {card}.").format(name=_name(s, seat), card=name), seat=seat,
                   card=_key(s, cid)))
    if c["kind"] != "hand":
        _check_excess(s, seat, out)


def _lapse_empty_choices(s: dict, out: list) -> None:
    """A discard asked while the cards were there can outlive them: a later card of the
    same stack (a Washed-Out Silt Fence) may take the last BMP first. With nothing left
    to choose it lapses ("discard what there is"); kept, nobody could move again."""
    kept = []
    for c in s["choices"]:
        if _choice_pool(s, c):
            kept.append(c)
        else:
            out.append(rule("storm_war.discard_what_there_is", seat=c["seat"], asked=1, available=0))
    s["choices"] = kept


def _settle(s: dict, out: list) -> None:
    """After any move: once no choice is pending, a fully passed challenge resolves."""
    ch = s["challenge"]
    _lapse_empty_choices(s, out)
    if s["status"] == "playing" and not s["choices"] and ch is not None and ch.get("resolving"):
        _resolve_stack(s, out)
        _lapse_empty_choices(s, out)
        if not s["choices"]:
            _resolve_challenge(s, out)


# ---- Turns, drawing and the end ---------------------------------------------------------

def _draw(s: dict, seat: int, count: int, out: list) -> None:
    drawn = 0
    for _ in range(count):
        if not s["deck"]:
            if not s["discard"]:
                out.append(rule("storm_war.draw_what_there_is", seat=seat, asked=count, drawn=drawn))
                break
            s["deck"] = [_hide(s, c) for c in s["discard"]]
            s["discard"] = []
            _shuffle(s, s["deck"])
            out.append(rule("storm_war.reshuffle_discards", cards=len(s["deck"])))
        cid = s["deck"].pop(0)
        s["hands"][seat].append(cid)
        drawn += 1
        out.append(log("drew_card", N_("You drew {card}.").format(card=_cname(s, cid)), visible_to=[seat], seat=seat,
                       card=_key(s, cid)))
    if drawn:
        out.append(log("draw", NP_("{name} drew {n} card.", "{name} drew {n} cards.", drawn).format(
            name=_name(s, seat), n=drawn), seat=seat, cards=drawn))


def _start_turn(s: dict, out: list) -> None:
    """The automatic draw (or a skipped turn, or a missed draw)."""
    n = len(s["names"])
    for _ in range(4 * n * (max(s["skips"]) + 1)):
        seat = s["turn"]
        if s["skips"][seat] <= 0:
            break
        s["skips"][seat] -= 1
        out.append(log("skipped", N_("{name} skips this turn.").format(name=_name(s, seat)), seat=seat))
        s["turn"] = (seat + 1) % n
        s["turn_no"] += 1
    seat = s["turn"]
    if s["miss_draw"][seat]:
        s["miss_draw"][seat] = False
        out.append(log("missed_draw", N_("{name} misses this draw.").format(name=_name(s, seat)), seat=seat))
    else:
        _draw(s, seat, 1, out)
    out.append(log("turn", N_("{name}'s turn.").format(name=_name(s, seat)), seat=seat, turn=s["turn_no"]))


def _end_turn(s: dict, out: list) -> None:
    s["shield"][s["turn"]] = False
    s["challenge"] = None
    s["phase"] = "manage"
    s["managed"] = {"degrader": False, "upgrade_or_sue": False, "returned": []}
    s["turn"] = (s["turn"] + 1) % len(s["names"])
    s["turn_no"] += 1
    _start_turn(s, out)


def _end(s: dict, winners: list[int], reason: str, out: list, over: str) -> None:
    """`reason`: why the game ended (the result's); `over`: the game-over sentence of the log."""
    if len(winners) > 1:
        out.append(rule("storm_war.tied_environments", winners=winners))
    s["status"] = "over"
    s["phase"] = "over"
    s["choices"] = []
    if s["challenge"] is not None:   # ended mid-challenge: donations go back to their owners
        for owner, cid in s["challenge"]["donations"].items():
            s["jobsites"][int(owner)]["bmp"].append(cid)
        s["challenge"] = None
    ranking = sorted(_seats(s), key=lambda p: (-len(s["claimed"][p]), p))
    s["result"] = {"winners": winners, "ranking": ranking, "scores": [len(c) for c in s["claimed"]],
                   "reason": reason}
    out.append(log("game_over", over, winners=winners))


def upgrade(state: dict) -> dict:
    """A snapshot saved by storm-war-1, made playable by this version. A game in
    progress plays on unchanged (the winning cleanup is still ahead of it); a game
    that storm-war-1 ended with a win stops showing the claimed Environment."""
    if state.get("version") == VERSION:
        return state
    if state.get("version") != "storm-war-1":
        raise ValueError(f"cannot continue a Storm War game saved by {state.get('version')!r}")
    s = clone(state)
    s["version"] = VERSION
    if s["status"] == "over" and any(len(c) >= s["goal"] for c in s["claimed"]):
        s["env"] = None
    return s


def finish(state: dict, cause: str = "teacher") -> tuple[dict, list[dict]]:
    """The teacher ends the game, the lesson clock ran out, or the platform stopped
    a game that ran too long (`cause`): the most
    Environments claimed win (ties share)."""
    cause = finish_cause(cause)
    if state["status"] != "playing":
        _fail("game_over", N_("The game is over."))
    s = clone(state)
    best = max(len(c) for c in s["claimed"])
    winners = [p for p in _seats(s) if len(s["claimed"][p]) == best]
    names = join_names([_name(s, w) for w in winners])
    one = len(winners) == 1
    if cause == "lesson_clock":
        out = [log("end", N_("The lesson clock ran out.")),
               rule("storm_war.lesson_clock", winners=winners, environments=[len(c) for c in s["claimed"]])]
        over = (N_("Game over: the lesson clock ran out. {names} wins!") if one
                else N_("Game over: the lesson clock ran out. {names} win!"))
        _end(s, winners, N_("the lesson clock ran out"), out, over.format(names=names))
        return s, out
    if cause == "time_limit":
        out = [log("end", N_("This game ran too long, so it was stopped."))]
        over = (N_("Game over: the game ran too long and was stopped. {names} wins!") if one
                else N_("Game over: the game ran too long and was stopped. {names} win!"))
        _end(s, winners, N_("the game ran too long and was stopped"), out, over.format(names=names))
        return s, out
    out = [log("end", N_("The teacher ended the game."))]
    over = (N_("Game over: the teacher ended the game. {names} wins!") if one
            else N_("Game over: the teacher ended the game. {names} win!"))
    _end(s, winners, N_("the teacher ended the game"), out, over.format(names=names))
    return s, out


def result(state: dict):
    return state["result"]


# --------------------------------------------------------------------------
# The guided demo

DEMO_STEPS = 6


def _demo_allows(s: dict):
    step = s["demo_step"]
    keys = content.DEMO_CARDS

    def allowed(a: dict) -> bool:
        if step < 3:
            return a["type"] == "apply" and _key(s, a["card"]) == keys[step]
        if step == 3:
            return a["type"] == "equip" and _key(s, a["card"]) == keys[3] and a["on"] == "self"
        if step == 4:
            return a["type"] == "challenge" and a["risk"] in ("toxic", "nutrient")
        return a["type"] in ("pass", "choose")
    return allowed


def _demo_text(s: dict) -> str:
    step = s["demo_step"]
    names = [content.card(k)["name"] for k in content.DEMO_CARDS]
    if step < 3:
        return N_("Step {step} of {steps}: apply {card} to your Jobsite.").format(
            step=step + 1, steps=DEMO_STEPS, card=names[step])
    if step == 3:
        return N_("Step 4 of {steps}: equip the Tool {card} on yourself.").format(steps=DEMO_STEPS, card=names[3])
    if step == 4:
        return N_("Step 5 of {steps}: challenge {environment}'s Toxic risk (12) or Nutrient risk (10): your defense "
                  "is 12 in both.").format(steps=DEMO_STEPS,
                                           environment=content.ENVIRONMENTS[content.DEMO_ENVIRONMENT]["name"])
    return N_("Step 6 of {steps}: pass, and the challenge resolves once the practice rival has passed too.").format(
        steps=DEMO_STEPS)


# --------------------------------------------------------------------------
# Views

def _jobsite_view(s: dict, seat: int) -> dict:
    j = s["jobsites"][seat]

    def shown(cid):
        return dict(content.public_card(_key(s, cid)), id=cid)
    return {"bmp": [shown(c) for c in j["bmp"]], "chaos": [shown(c) for c in j["chaos"]],
            "mentor": [shown(c) for c in j["mentor"]],
            "tools": [dict(shown(slot["id"]), on=slot["on"]) for slot in j["tools"]],
            "limits": _limits(s, seat),
            "defense": _defenses(s, seat)}


# A required discard: from the hand or the BMPs (`why`: the card that asked for it), or
# the excess of a section after a capacity bonus left.
CHOOSE_DISCARD = {"hand": N_("Choose a card from your hand to discard ({card})."),
                  "bmp": N_("Choose a BMP from your Jobsite to discard ({card}).")}
CHOOSE_EXCESS = {
    "bmp": N_("Choose a card from your bmp section (over its limit) to discard (capacity)."),
    "chaos": N_("Choose a card from your chaos section (over its limit) to discard (capacity)."),
    "mentor": N_("Choose a card from your mentor section (over its limit) to discard (capacity)."),
    "tools": N_("Choose a card from your tools section (over its limit) to discard (capacity)."),
}


def _prompt_text(s: dict, viewer) -> str:
    if s["status"] != "playing":
        return N_("The game is over.")
    mine = _is_seat(s, viewer) and viewer in _waiting(s)
    if s["choices"]:
        c = s["choices"][0]
        if not mine:
            return N_("{name} is choosing a card to discard.").format(name=_name(s, c["seat"]))
        if c["kind"] == "excess":
            return CHOOSE_EXCESS[c["section"]]
        return CHOOSE_DISCARD[c["kind"]].format(card=c["why"])
    if s["demo_step"] is not None and viewer == 0:
        return _demo_text(s)
    turn = _name(s, s["turn"])
    if s["phase"] == "respond":
        ch = s["challenge"]
        fields = {"risk": RISK_LABEL[ch["risk"]], "name": _name(s, ch["seat"]),
                  "names": join_names([_name(s, w) for w in _waiting(s)])}
        if mine:
            return (N_("Respond to your {risk} challenge: play a Chaos card or pass.").format(**fields)
                    if viewer == ch["seat"] else
                    N_("Respond to {name}'s {risk} challenge: play a Chaos card, donate a BMP, or pass.").format(
                        **fields))
        if viewer == ch["seat"]:
            return N_("Respond step of your {risk} challenge: waiting for {names} to pass.").format(**fields)
        return N_("Respond step of {name}'s {risk} challenge: waiting for {names} to pass.").format(**fields)
    if mine:
        return N_("Your turn: manage your Jobsite, then challenge a risk or skip.")
    return N_("{name} is managing their Jobsite.").format(name=turn)


def view(state: dict, viewer) -> dict:
    s = state
    env = content.public_environment(s["env"]) if s["env"] else None
    ch = s["challenge"]
    challenge = None
    if ch is not None:
        challenge = {"seat": ch["seat"], "risk": ch["risk"], "passes": list(ch["passes"]),
                     "defense": _defense(s, ch["seat"], ch["risk"]),
                     "risk_value": _effective_risk(s, ch["seat"], ch["risk"]),
                     "stack": [dict(content.public_card(x["key"]), seat=x["seat"], choices=x["choices"],
                                    cancelled=x["cancelled"]) for x in ch["stack"]],
                     "donations": [dict(content.public_card(_key(s, cid)), seat=int(p), id=cid)
                                   for p, cid in ch["donations"].items()]}
    public = {
        "status": s["status"], "names": list(s["names"]), "turn": s["turn"], "turn_no": s["turn_no"],
        "phase": s["phase"], "goal": s["goal"], "demo": s["demo_step"] is not None,
        # The risks everyone but the Degrader's placer faces (the placer sees the printed ones).
        "environment": env, "effective_risks": ({r: _effective_risk(s, None, r) for r in RISKS}
                                                if env else None),
        "degrader": (dict(content.public_card(_key(s, s["degrader"]["id"])), by=s["degrader"]["by"])
                     if s["degrader"] else None),
        "environments_left": len(s["envs"]),
        "players": [{"seat": p, "name": s["names"][p], "hand": len(s["hands"][p]),
                     "claimed": [content.ENVIRONMENTS[e]["name"] for e in s["claimed"][p]],
                     "captured": [dict(content.public_card(_key(s, c)), id=c) for c in s["captured"][p]],
                     "jobsite": _jobsite_view(s, p), "skips": s["skips"][p], "miss_draw": s["miss_draw"][p],
                     "shield": s["shield"][p]} for p in _seats(s)],
        "deck": len(s["deck"]), "discard": len(s["discard"]),
        "discard_top": content.public_card(_key(s, s["discard"][-1])) if s["discard"] else None,
        "challenge": challenge, "choice": ({"seat": s["choices"][0]["seat"], "kind": s["choices"][0]["kind"]}
                                           if s["choices"] else None),
        "last": s["last"], "waiting_for": _waiting(s), "result": s["result"],
        "options": dict(s["options"]),
    }
    private = {}
    if _is_seat(s, viewer):
        private = {"seat": viewer,
                   "hand": [dict(content.public_card(_key(s, c)), id=c) for c in s["hands"][viewer]],
                   "returned": list(s["managed"]["returned"]) if viewer == s["turn"] else []}
    return {"public": public, "private": private, "prompt": prompt(_waiting(s), _prompt_text(s, viewer))}
