"""Power War: loadouts, energy, charges, cooldowns and the battle's power steps.

engine.py stays the battle core and calls in here at a few places (each hook
is guarded by `"powers" in s`, so a Classic state never grows a key):

    setup(s)                    _initial_state: the loadout phase (power modes only)
    start_battle(s)             _start_battle: energy, cooldowns, the last battle's powers
    actions(s, seat)            actions: loadout picks, activate/deactivate, counter/resolve, scout
    apply(s, seat, action)      apply: the power moves
    check_reveal(s, seat)       apply: no reveal during the loadout phase or a counter window
    revealed(s, seat)           _reveal: Scout expiry; after the stage's last reveal, the
                                counter window or the resolution
    ranks(s), tiebreak(s, tied) _resolve_stage: ranks after rank changes; Tiebreaker
    before_take / after_take    _take_pot: defense returns, Double Stakes; Salvage, Momentum
    add_public / private / prompt / bot    the views and the computer player

The state's "powers" part (see `setup`):
    phase     "loadout" until every seat is ready, then "play"
    draft     per seat, the powers picked so far (private); ready per seat
    loadout   per seat, the chosen powers (public once play starts)
    energy    per seat; charges and ready_at (battle from which a power may be
              used again) per seat and power
    used      this battle's activations in order: {seat, power, target, aim,
              stage, status, public} (status: chosen, armed, resolved, canceled,
              no_effect); `public` is False while only the seat may know it
    last      the previous battle's `used` (for the board)
    window    None, or the counter window {seats, done}
    mods      card id -> rank after rank changes, this stage
    scout     per seat, the card id the seat has scouted (or None)
    pool      (only when a run restricts the powers, see `restrict`) per seat,
              the power ids that seat may put in its loadout, or None (any)

The battle's steps: choose (hidden; `activate` pays at once, `deactivate`
refunds before your reveal) -> reveal (your reveal locks your choices) ->
counter window (only when a participant could Counter an opposing power) ->
resolve: 1 defense, 2 Counter, 3 rank changes, 4 replacement, 5 battle
modifiers, 6 post-win effects (the conditional ones take effect when the pot
is taken, in the same order).
"""
from __future__ import annotations

from pathlib import Path

from ..contract import IllegalAction, join_names, label, log, prompt as make_prompt
from ..datafile import read_json, text_problem
from . import cards
from . import engine as E
from .rulings import rule

MODES = ("power", "power_wager")
STEPS = ("defense", "counter", "rank", "replacement", "modifier", "post_win", "info")
STEP_NUMBER = {"defense": 1, "counter": 2, "rank": 3, "replacement": 4, "modifier": 5, "post_win": 6}
TARGETS = ("self", "opponent", "power")
IDS = ("shield", "recovery", "counter", "boost", "drain", "mirror", "swap", "redraw", "double_stakes",
       "tiebreaker", "salvage", "momentum", "scout")
MAX_LOADOUT = 5
LOADOUT_GRACE = 30                          # seconds the last player still choosing a loadout gets
LEVELS = ("easy", "standard", "hard")   # engine.LEVELS (computer levels)
BOOST = 2                                   # Boost and Drain change a rank by this much
MOMENTUM = 2                                # energy Momentum regains
SUDDEN_DEATH_OFF = ("shield", "recovery", "scout")
COUNTERABLE = ("rank", "replacement", "modifier", "post_win")
KINDS = ("loadout", "activate", "deactivate", "counter", "resolve")
FIELDS = {"loadout": {"type", "powers", "ready"}, "activate": {"type", "power", "target"},
          "deactivate": {"type", "power"}, "counter": {"type", "seat", "power"}, "resolve": {"type"}}

# --------------------------------------------------------------------------
# The catalogue (data/powers.json)

PATH = Path(__file__).with_name("data") / "powers.json"
POWER_FIELDS = ("id", "name", "step", "target", "cost", "charges", "cooldown", "description", "classroom")


def load_powers(path: Path = PATH) -> dict:
    """Read and check powers.json: {version, powers, loadouts, default_loadout,
    computer_loadouts}. Raises ValueError naming the bad entry."""
    data = read_json(path, ("version", "powers", "loadouts", "default_loadout", "computer_loadouts"),
                     texts=("version", "default_loadout"))
    name = Path(path).name
    powers = data["powers"]
    if not isinstance(powers, list) or [p.get("id") if isinstance(p, dict) else None for p in powers] != list(IDS):
        raise ValueError(f"{name}: expected the {len(IDS)} powers {', '.join(IDS)} in that order")
    for p in powers:
        if set(p) != set(POWER_FIELDS):
            raise ValueError(f"{name}: power {p['id']} needs exactly {', '.join(POWER_FIELDS)}")
        if p["step"] not in STEPS or p["target"] not in TARGETS:
            raise ValueError(f"{name}: power {p['id']} has an unknown step or target")
        for key, low, high in (("cost", 0, 10), ("charges", 1, 9), ("cooldown", 0, 9)):
            if type(p[key]) is not int or not low <= p[key] <= high:
                raise ValueError(f"{name}: power {p['id']}: {key} must be a whole number from {low} to {high}")
        for key, most in (("name", 30), ("description", 140), ("classroom", 120)):
            problem = text_problem(p[key], f"power {p['id']} {key}", most)
            if problem:
                raise ValueError(f"{name}: {problem}")
        if not p["description"].endswith("."):
            raise ValueError(f"{name}: power {p['id']} description must be a sentence")
    fixed = {"shield": ("defense", "self"), "recovery": ("defense", "self"), "counter": ("counter", "power"),
             "drain": ("rank", "opponent"), "redraw": ("replacement", "opponent"), "scout": ("info", "self")}
    for p in powers:
        if p["id"] in fixed and (p["step"], p["target"]) != fixed[p["id"]]:
            raise ValueError(f"{name}: power {p['id']} must be step {fixed[p['id']][0]}")
    loadouts = data["loadouts"]
    if not isinstance(loadouts, list) or not loadouts:
        raise ValueError(f"{name}: loadouts must be a non-empty list")
    seen = set()
    for lo in loadouts:
        if not isinstance(lo, dict) or set(lo) != {"id", "name", "powers"} or lo["id"] in seen:
            raise ValueError(f"{name}: each loadout needs a unique id, a name and powers")
        seen.add(lo["id"])
        problem = text_problem(lo["name"], f"loadout {lo['id']} name", 30)
        if problem:
            raise ValueError(f"{name}: {problem}")
        chosen = lo["powers"]
        if not isinstance(chosen, list) or not 1 <= len(chosen) <= MAX_LOADOUT \
                or len(set(chosen)) != len(chosen) or not set(chosen) <= set(IDS):
            raise ValueError(f"{name}: loadout {lo['id']} needs 1 to {MAX_LOADOUT} different known powers")
    if data["default_loadout"] not in seen:
        raise ValueError(f"{name}: default_loadout must name a loadout")
    levels = data["computer_loadouts"]
    if not isinstance(levels, dict) or set(levels) != set(LEVELS) or not set(levels.values()) <= seen:
        raise ValueError(f"{name}: computer_loadouts must name a loadout for each of {', '.join(LEVELS)}")
    return data


_DATA = load_powers()
VERSION = _DATA["version"]
POWERS = {p["id"]: p for p in _DATA["powers"]}
LOADOUTS = {lo["id"]: lo for lo in _DATA["loadouts"]}
DEFAULT_LOADOUT = _DATA["default_loadout"]
COMPUTER_LOADOUTS = dict(_DATA["computer_loadouts"])


def _fail(code: str, message: str):
    raise IllegalAction(code, message)


def _name(s, seat):
    return s["names"][seat]


def _pname(pid: str) -> str:
    return POWERS[pid]["name"]


def _sentence(names: list[str]) -> str:
    return join_names(names)


def enabled(mode: str) -> bool:
    return mode in MODES


def copy(part: dict) -> dict:
    return E._copy(part)


def _note_once(s: dict, rid: str, **context) -> list[dict]:
    if rid in s["noted"]:
        return []
    s["noted"].append(rid)
    return [rule(rid, **context)]


def _private(entry: dict, seat: int) -> dict:
    entry["visible_to"] = [seat]
    return entry


# --------------------------------------------------------------------------
# Setting up and each battle

def setup(s: dict) -> None:
    """Called before the first battle starts; only the power modes get powers."""
    if not enabled(s["options"]["mode"]):
        return
    n = len(s["names"])
    s["powers"] = {
        "phase": "loadout",
        "draft": [[] for _ in range(n)],
        "ready": [False] * n,
        "loadout": [[] for _ in range(n)],
        "energy": [s["options"]["energy_start"]] * n,
        "charges": [{} for _ in range(n)],
        "ready_at": [{} for _ in range(n)],
        "used": [],
        "last": [],
        "window": None,
        "mods": {},
        "scout": [None] * n,
    }


def restrict(s: dict, pools: list) -> None:
    """A run's table (runs.py): each seat may load only the powers of its pool
    (a list of ids; None = any). Loadout picks, suggested loadouts, the default
    loadout and the computer's choice all stay inside the pool."""
    s["powers"]["pool"] = [None if p is None else [x for x in IDS if x in p] for p in pools]


def _pool(s: dict, seat: int) -> tuple | list:
    pools = s["powers"].get("pool")
    return IDS if pools is None or pools[seat] is None else pools[seat]


LEVEL_LOADOUT_SIZE = {"easy": 3, "standard": 4, "hard": 5}


def pool_loadout(pool, level: str | None = None) -> list[str]:
    """The loadout taken from a restricted pool: the level's computer loadout
    (the default loadout when `level` is None) first, then the rest of the pool
    in catalogue order, up to 5 powers (3 for easy, 4 for standard, 5 for hard
    when `level` is given: war.run_opponent_loadout)."""
    first = LOADOUTS[COMPUTER_LOADOUTS[level] if level else DEFAULT_LOADOUT]["powers"]
    order = [x for x in first if x in pool] + [x for x in IDS if x in pool and x not in first]
    return order[:LEVEL_LOADOUT_SIZE[level] if level else MAX_LOADOUT]


def _default(s: dict, seat: int) -> list[str]:
    """The loadout of a seat that picked none: the default loadout, or within a pool `pool_loadout`."""
    if _pool(s, seat) is IDS:
        return list(LOADOUTS[DEFAULT_LOADOUT]["powers"])
    return pool_loadout(_pool(s, seat))


def start_battle(s: dict) -> list[dict]:
    """A new battle: the last battle's powers go to `last`, energy comes in,
    scouted cards no longer on top are forgotten (sudden death forgets all)."""
    pw = s["powers"]
    if pw["phase"] == "loadout":
        s["participants"] = []          # nobody reveals before the loadouts are ready
        return []
    entries = []
    for e in pw["used"]:             # the battle ended without its pot being taken (carried over)
        if e["status"] in ("armed", "chosen"):
            e["status"] = "no_effect"
    pw["last"] = pw["used"]
    pw["used"], pw["mods"], pw["window"] = [], {}, None
    if s["battle"] > 1:
        cap, gain = s["options"]["energy_max"], s["options"]["energy_per_battle"]
        for p in E._active(s):
            pw["energy"][p] = min(cap, pw["energy"][p] + gain)
    if s["sudden"] is not None:
        entries += _note_once(s, "war.power_sudden_death", battle=s["battle"], unavailable=list(SUDDEN_DEATH_OFF))
    entries += _check_scouts(s)
    return entries


def _finish_loadout(s: dict) -> list[dict]:
    """Everyone is ready (or on auto-play): the first battle can begin."""
    pw = s["powers"]
    entries = []
    for p in E._active(s):
        if not pw["ready"][p]:
            chosen = list(pw["draft"][p]) or _default(s, p)
            pw["loadout"][p], pw["ready"][p] = chosen, True
            entries.append(rule("war.power_default_loadout", seat=p, powers=chosen,
                                default=not pw["draft"][p]))
    for p in range(len(s["names"])):
        pw["charges"][p] = {pid: POWERS[pid]["charges"] for pid in pw["loadout"][p]}
        pw["ready_at"][p] = {pid: 1 for pid in pw["loadout"][p]}
    pw["phase"] = "play"
    s["participants"] = E._active(s)
    texts = [f"{_name(s, p)}: {', '.join(_pname(x) for x in pw['loadout'][p])}" for p in E._active(s)]
    entries.append(log("power", "Loadouts are ready. " + "; ".join(texts) + ".", battle=s["battle"],
                       loadouts=[list(x) for x in pw["loadout"]]))
    entries.append(rule("war.power_energy", start=s["options"]["energy_start"],
                        per_battle=s["options"]["energy_per_battle"], most=s["options"]["energy_max"]))
    return entries


# --------------------------------------------------------------------------
# What a seat may do

def _current(pw: dict, seat: int, stage: int) -> list[dict]:
    return [e for e in pw["used"] if e["seat"] == seat and e["stage"] == stage]


def _why_not(s: dict, seat: int, pid: str) -> str | None:
    """Why `seat` cannot use power `pid` now (None: it can, targets aside)."""
    pw = s["powers"]
    if pw["phase"] != "play" or s["status"] != "playing":
        return "Powers can be used once the battles begin."
    if pid not in pw["loadout"][seat]:
        return f"{_pname(pid)} is not in your loadout."
    if s["sudden"] is not None and pid in SUDDEN_DEATH_OFF:
        return f"{_pname(pid)} cannot be used in sudden death."
    if any(e["seat"] == seat and e["power"] == pid for e in pw["used"]):
        return f"You have already used {_pname(pid)} in this battle."
    if pw["charges"][seat][pid] <= 0:
        return f"{_pname(pid)} has no charges left."
    wait = pw["ready_at"][seat][pid] - s["battle"]
    if wait > 0:
        return f"{_pname(pid)} is cooling down for {wait} more battle{'s' if wait != 1 else ''}."
    if pw["energy"][seat] < POWERS[pid]["cost"]:
        return f"{_pname(pid)} costs {POWERS[pid]['cost']} energy; you have {pw['energy'][seat]}."
    step = POWERS[pid]["step"]
    if step == "counter":
        if pw["window"] is None or seat not in pw["window"]["seats"] or seat in pw["window"]["done"]:
            return "Counter is used in the counter window, after everyone has revealed."
        return None
    if pw["window"] is not None:
        return "Wait for the counter window to close."
    if step == "info":
        if pw["scout"][seat] is not None:
            return "You already know your next card."
        if not s["decks"][seat]:
            return "You have no next card to see."
        return None
    if seat not in s["participants"]:
        return "Only the players in this battle or war can use that power now."
    if seat in s["taps"]:
        return "Your reveal has locked your powers for this round."
    return None


def _targets(s: dict, seat: int, pid: str) -> list:
    if POWERS[pid]["target"] == "opponent":
        return [p for p in s["participants"] if p != seat]
    return [None]


def _counter_targets(s: dict, seat: int) -> list[dict]:
    """Opposing powers of this stage that a Counter may cancel (defense has
    already resolved, a Counter cannot be countered, Scout has no step)."""
    pw = s["powers"]
    return [e for e in pw["used"] if e["stage"] == s["stage"] and e["seat"] != seat and e["public"]
            and e["status"] == "chosen" and POWERS[e["power"]]["step"] in COUNTERABLE]


def actions(s: dict, seat) -> list[dict]:
    pw = s["powers"]
    if not E._is_seat(s, seat) or E._is_out(s, seat) or s["status"] != "playing":
        return []
    out = []
    if pw["phase"] == "loadout":
        if pw["ready"][seat]:
            return []
        draft, pool = pw["draft"][seat], _pool(s, seat)
        for pid in pool:
            if pid in draft:
                out.append(label({"type": "loadout", "powers": [x for x in draft if x != pid], "ready": False},
                                 f"Remove {_pname(pid)} from your loadout"))
            elif len(draft) < MAX_LOADOUT:
                out.append(label({"type": "loadout", "powers": draft + [pid], "ready": False},
                                 f"Add {_pname(pid)} to your loadout"))
        if draft:
            out.append(label({"type": "loadout", "powers": list(draft), "ready": True},
                             f"Ready: play with {', '.join(_pname(x) for x in draft)}"))
        if _deadline_seat(s) == seat:
            out.append(label(dict(DEADLINE_ACTION), "Ready now with " + (
                "your picks" if draft else f"the {LOADOUTS[DEFAULT_LOADOUT]['name']} loadout" if pool is IDS
                else ", ".join(_pname(x) for x in _default(s, seat)))
                + f" (everyone else is ready: this happens by itself after {LOADOUT_GRACE} seconds)"))
        offered = [draft]
        if pool is not IDS and _default(s, seat) != draft:
            offered.append(_default(s, seat))
            out.append(label({"type": "loadout", "powers": _default(s, seat), "ready": True},
                             f"Ready with {', '.join(_pname(x) for x in _default(s, seat))}"))
        for lo in LOADOUTS.values():
            if lo["powers"] not in offered and set(lo["powers"]) <= set(pool):
                out.append(label({"type": "loadout", "powers": list(lo["powers"]), "ready": True},
                                 f"Ready with the {lo['name']} loadout ({', '.join(_pname(x) for x in lo['powers'])})"))
        return out
    window = pw["window"]
    if window is not None:
        if seat in window["seats"] and seat not in window["done"]:
            if _why_not(s, seat, "counter") is None:
                for e in _counter_targets(s, seat):
                    out.append(label({"type": "counter", "seat": e["seat"], "power": e["power"]},
                                     f"Counter {_name(s, e['seat'])}'s {_pname(e['power'])} "
                                     f"({POWERS['counter']['cost']} energy)"))
            out.append(label({"type": "resolve"}, "Resolve the battle (no counter)"))
        return out
    for pid in pw["loadout"][seat]:
        if pid == "counter" or _why_not(s, seat, pid) is not None:
            continue
        for t in _targets(s, seat, pid):
            on = "" if t is None else f" on {_name(s, t)}"
            out.append(label({"type": "activate", "power": pid, "target": t},
                             f"Use {_pname(pid)}{on} ({POWERS[pid]['cost']} energy)"))
    if seat in s["participants"] and seat not in s["taps"]:
        for e in _current(pw, seat, s["stage"]):
            if e["status"] == "chosen" and e["power"] not in ("scout", "counter"):
                out.append(label({"type": "deactivate", "power": e["power"]},
                                 f"Take back {_pname(e['power'])} (refund {POWERS[e['power']]['cost']} energy)"))
    return out


def check_payload(action: dict) -> None:
    kind = action["type"]
    if kind == "loadout":
        chosen = action["powers"]
        if not isinstance(chosen, list) or not all(isinstance(x, str) and x in POWERS for x in chosen) \
                or len(set(chosen)) != len(chosen):
            _fail("illegal", "A loadout lists different powers from the catalogue.")
        if len(chosen) > MAX_LOADOUT:
            _fail("illegal", f"A loadout holds at most {MAX_LOADOUT} powers.")
        if type(action["ready"]) is not bool:
            _fail("illegal", "That move has the wrong details.")
    elif kind in ("activate", "deactivate", "counter"):
        if not isinstance(action["power"], str) or action["power"] not in POWERS:
            _fail("illegal", "There is no such power.")
        who = action.get("target", None) if kind == "activate" else action.get("seat", 0)
        if who is not None and (type(who) is not int or who < 0):
            _fail("illegal", "That move has the wrong details.")


def check_reveal(s: dict, seat: int) -> None:
    pw = s["powers"]
    if pw["phase"] == "loadout":
        _fail("not_your_turn", "Choose your loadout first: the battles start when everyone is ready.")
    if pw["window"] is not None:
        _fail("not_your_turn", "Everyone has revealed: the battle resolves once the counter window closes.")


# --------------------------------------------------------------------------
# Moves

def apply(s: dict, seat: int, action: dict) -> list[dict]:
    if "powers" not in s:
        _fail("illegal", "This game is played without powers.")
    kind = action["type"]
    if kind == "loadout":
        return _loadout(s, seat, action["powers"], action["ready"])
    if kind == "activate":
        return _activate(s, seat, action["power"], action["target"])
    if kind == "deactivate":
        return _deactivate(s, seat, action["power"])
    if kind == "counter":
        return _counter(s, seat, action["seat"], action["power"])
    return _pass_window(s, seat)


def _loadout(s: dict, seat: int, chosen: list[str], ready: bool) -> list[dict]:
    pw = s["powers"]
    if pw["phase"] != "loadout":
        _fail("illegal", "Loadouts are chosen before the first battle.")
    if pw["ready"][seat]:
        _fail("illegal", "Your loadout is already locked in.")
    if ready and not chosen:
        if _deadline_seat(s) == seat:
            return _loadout_deadline(s, seat)
        _fail("illegal", "Pick at least one power, or take a suggested loadout.")
    locked = [x for x in chosen if x not in _pool(s, seat)]
    if locked:
        _fail("illegal", f"{join_names([_pname(x) for x in locked])} {'is' if len(locked) == 1 else 'are'} "
                         "not yours to use at this table yet.")
    pw["draft"][seat] = list(chosen)
    if not ready:
        return []
    pw["loadout"][seat], pw["ready"][seat] = list(chosen), True
    entries = [log("power", f"{_name(s, seat)} is ready.", seat=seat)]
    return entries + _maybe_finish_loadout(s)


def _loadout_deadline(s: dict, seat: int) -> list[dict]:
    """The last player choosing takes their picks, or the default (the deadline's move)."""
    picked = list(s["powers"]["draft"][seat])
    chosen = picked or _default(s, seat)
    return [rule("war.power_default_loadout", seat=seat, powers=chosen, default=not picked,
                 deadline=LOADOUT_GRACE)] + _loadout(s, seat, chosen, True)


def _maybe_finish_loadout(s: dict) -> list[dict]:
    """The battles begin once every player is ready or on auto-play (see also
    `timers`: the last player choosing gets LOADOUT_GRACE seconds)."""
    pw = s["powers"]
    if all(pw["ready"][p] or s["autoplay"][p] for p in E._active(s)):
        return _finish_loadout(s)
    return []


# What the loadout deadline plays: Ready with no powers named = the picks so far, or the default.
DEADLINE_ACTION = {"type": "loadout", "powers": [], "ready": True}


def _deadline_seat(s: dict) -> int | None:
    """The one player still choosing a loadout once everyone else is ready or on auto-play."""
    pw = s["powers"]
    if s["status"] != "playing" or pw["phase"] != "loadout":
        return None
    rest = [p for p in E._active(s) if not pw["ready"][p] and not s["autoplay"][p]]
    return rest[0] if len(rest) == 1 else None


def timers(s: dict) -> list[dict]:
    """The loadout deadline: once everyone else is ready (or on auto-play), the
    one player still choosing gets LOADOUT_GRACE seconds from their latest pick,
    then plays with their picks, or the default loadout if they picked none."""
    seat = _deadline_seat(s)
    if seat is None:
        return []
    return [{"key": f"loadout:{seat}:{'-'.join(s['powers']['draft'][seat]) or 'none'}", "after": LOADOUT_GRACE,
             "actor": seat, "action": dict(DEADLINE_ACTION)}]


def _entry(s, seat, pid, target=None, aim=None, public=False, status="chosen") -> dict:
    return {"seat": seat, "power": pid, "target": target, "aim": aim, "stage": s["stage"],
            "status": status, "public": public}


def _pay(s: dict, seat: int, pid: str) -> None:
    pw = s["powers"]
    pw["energy"][seat] -= POWERS[pid]["cost"]
    pw["charges"][seat][pid] -= 1


def _cool(s: dict, seat: int, pid: str) -> None:
    s["powers"]["ready_at"][seat][pid] = s["battle"] + POWERS[pid]["cooldown"] + 1


def _gain(s: dict, seat: int, amount: int) -> int:
    pw = s["powers"]
    before = pw["energy"][seat]
    pw["energy"][seat] = min(s["options"]["energy_max"], before + amount)
    return pw["energy"][seat] - before


def _activate(s: dict, seat: int, pid: str, target) -> list[dict]:
    if pid == "counter":
        _fail("illegal", "Counter is used in the counter window, after everyone has revealed.")
    why = _why_not(s, seat, pid)
    if why:
        _fail("illegal", why)
    if target not in _targets(s, seat, pid):
        _fail("illegal", f"{_pname(pid)} needs an opponent in this round as its target."
              if POWERS[pid]["target"] == "opponent" else f"{_pname(pid)} takes no target.")
    _pay(s, seat, pid)
    pw = s["powers"]
    if pid == "scout":
        cid = s["decks"][seat][0]
        pw["scout"][seat] = cid
        pw["used"].append(_entry(s, seat, pid, status="resolved"))   # its cooldown starts once shown
        shown = cards.face(s["faces"], cid)
        return [_private(log("power", f"Scout: your next card is the {shown['name']}.", seat=seat,
                             power=pid, card=shown), seat)] + \
            [_private(e, seat) for e in _note_once(s, "war.power_scout", seat=seat)]
    pw["used"].append(_entry(s, seat, pid, target))
    on = "" if target is None else f" on {_name(s, target)}"
    return [_private(log("power", f"You choose {_pname(pid)}{on} (hidden until everyone has revealed).",
                         seat=seat, power=pid, target=target), seat)]


def _deactivate(s: dict, seat: int, pid: str) -> list[dict]:
    pw = s["powers"]
    found = [e for e in _current(pw, seat, s["stage"]) if e["power"] == pid and e["status"] == "chosen"]
    if not found or pid in ("scout", "counter"):
        _fail("illegal", f"You have not chosen {_pname(pid)} this round.")
    if seat in s["taps"] or pw["window"] is not None:
        _fail("illegal", "Your reveal has locked your powers for this round.")
    pw["used"].remove(found[0])
    pw["energy"][seat] += POWERS[pid]["cost"]
    pw["charges"][seat][pid] += 1
    return [_private(log("power", f"You take back {_pname(pid)} and get {POWERS[pid]['cost']} energy back.",
                         seat=seat, power=pid), seat)]


def _counter(s: dict, seat: int, target: int, pid: str) -> list[dict]:
    why = _why_not(s, seat, "counter")
    if why:
        _fail("illegal", why)
    if target == seat:
        _fail("illegal", "Counter cancels an opponent's power, not your own.")
    if pid == "counter":
        _fail("illegal", "A Counter cannot be countered.")
    if POWERS[pid]["step"] == "defense":
        _fail("illegal", f"{_pname(pid)} has already resolved: defense comes before Counter.")
    if not any(e["seat"] == target and e["power"] == pid for e in _counter_targets(s, seat)):
        _fail("illegal", "That player has not used that power this round.")
    _pay(s, seat, "counter")
    pw = s["powers"]
    pw["used"].append(_entry(s, seat, "counter", target=target, aim=pid))
    pw["window"]["done"].append(seat)
    entries = [_private(log("power", f"You counter {_name(s, target)}'s {_pname(pid)} (shown when the window closes).",
                            seat=seat, power="counter", target=target, aim=pid), seat)]
    return entries + _maybe_close_window(s)


def _pass_window(s: dict, seat: int) -> list[dict]:
    pw = s["powers"]
    window = pw["window"]
    if window is None or seat not in window["seats"]:
        _fail("not_your_turn", "There is no counter window for you to close.")
    if seat in window["done"]:
        _fail("not_your_turn", "You have already decided. Wait for the others.")
    window["done"].append(seat)
    return _maybe_close_window(s)


def _maybe_close_window(s: dict) -> list[dict]:
    pw = s["powers"]
    window = pw["window"]
    if any(p not in window["done"] for p in window["seats"]):
        return []
    countered = [e for e in pw["used"] if e["power"] == "counter" and e["stage"] == s["stage"]]
    for e in countered:
        e["public"] = True
    entries = [rule("war.power_counter_window", battle=s["battle"], stage=s["stage"], phase="close",
                    seats=list(window["seats"]), counters=[[e["seat"], e["target"], e["aim"]] for e in countered])]
    pw["window"] = None
    return entries + _resolve(s)


def autoplay_changed(s: dict, seat: int) -> list[dict]:
    """Auto-play never holds the table up: an auto-playing seat takes its
    loadout (its picks, or the default) and passes a counter window."""
    pw = s["powers"]
    if not s["autoplay"][seat]:
        return []
    if pw["phase"] == "loadout":
        return _maybe_finish_loadout(s)
    window = pw["window"]
    if window is not None and seat in window["seats"] and seat not in window["done"]:
        window["done"].append(seat)
        return [rule("war.power_autoplay", seat=seat, battle=s["battle"], what="counter_window")] + \
            _maybe_close_window(s)
    return []


# --------------------------------------------------------------------------
# Reveals, the counter window and the resolution

def revealed(s: dict, seat: int) -> list[dict]:
    """After `seat` revealed: its Scout knowledge expires; after the stage's last
    reveal, the chosen powers are shown and the counter window opens or the
    stage resolves."""
    pw = s["powers"]
    entries = _expire_scout(s, seat, "reveal")
    if E._waiting(s):
        return entries
    chosen = [e for e in pw["used"] if e["stage"] == s["stage"] and not e["public"]]
    for e in chosen:
        e["public"] = True
        if e["power"] == "scout":
            _cool(s, e["seat"], "scout")
    if chosen:
        said = [f"{_name(s, e['seat'])}: {_pname(e['power'])}"
                + ("" if e["target"] is None else f" on {_name(s, e['target'])}") for e in chosen]
        entries.append(log("power", "Powers used: " + "; ".join(said) + ".", battle=s["battle"], stage=s["stage"],
                           used=[{"seat": e["seat"], "power": e["power"], "target": e["target"]} for e in chosen]))
        entries += _note_once(s, "war.power_hidden_choices", battle=s["battle"], stage=s["stage"])
        if s["stage"] > 0:
            entries += _note_once(s, "war.power_war_stages", battle=s["battle"], stage=s["stage"])
    seats = [p for p in s["participants"] if not s["autoplay"][p] and "counter" in pw["loadout"][p]
             and _counter_ready(s, p) and _counter_targets(s, p)]
    skipped = [p for p in s["participants"] if s["autoplay"][p] and "counter" in pw["loadout"][p]
               and _counter_ready(s, p) and _counter_targets(s, p)]
    if skipped:
        entries += _note_once(s, "war.power_autoplay", seats=skipped, battle=s["battle"], what="counter_window")
    if seats:
        pw["window"] = {"seats": seats, "done": []}
        defended = [e for e in pw["used"] if e["stage"] == s["stage"] and POWERS[e["power"]]["step"] == "defense"]
        entries.append(log("power", f"Counter window: {join_names([_name(s, p) for p in seats])} may counter "
                                    "a power, or resolve the battle.", battle=s["battle"], stage=s["stage"],
                           seats=seats))
        if defended:
            entries += _note_once(s, "war.power_defense_before_counter", battle=s["battle"])
        return entries
    return entries + _resolve(s)


def _counter_ready(s: dict, seat: int) -> bool:
    """`seat` could counter now if a window were open."""
    pw = s["powers"]
    saved, pw["window"] = pw["window"], {"seats": [seat], "done": []}
    try:
        return _why_not(s, seat, "counter") is None
    finally:
        pw["window"] = saved


def _eff(s: dict, cid: str) -> int:
    return s["powers"]["mods"].get(cid, E._rank(s, cid))


def ranks(s: dict) -> dict:
    """Each participant's face-up rank after rank changes (for _resolve_stage)."""
    return {p: _eff(s, s["showing"][p]) for p in s["participants"]}


def _resolve(s: dict) -> list[dict]:
    """Steps 1-5 of this stage's powers, then the battle core compares the cards."""
    pw = s["powers"]
    stage, battle = s["stage"], s["battle"]
    todo = [e for e in pw["used"] if e["stage"] == stage and e["status"] == "chosen"]
    entries = _note_once(s, "war.power_cooldowns", battle=battle) if todo else []
    by_step = {step: [e for e in todo if POWERS[e["power"]]["step"] == step] for step in STEP_NUMBER}
    # 1 defense: armed now, it takes effect if the seat loses the battle.
    for e in by_step["defense"]:
        entries += _arm(s, e, "if they lose this battle")
    # 2 Counter: cancel the aimed power (a Counter itself cannot be countered).
    for e in by_step["counter"]:
        e["status"] = "resolved"
        _cool(s, e["seat"], "counter")
        aim = next((x for x in todo if x["seat"] == e["target"] and x["power"] == e["aim"]), None)
        if aim is None or aim["status"] == "canceled":
            e["status"] = "no_effect"
            continue
        aim["status"] = "canceled"
        _cool(s, aim["seat"], aim["power"])
        back = _gain(s, aim["seat"], POWERS[aim["power"]]["cost"] // 2)
        entries.append(log("power", f"{_name(s, e['seat'])} counters {_name(s, aim['seat'])}'s "
                                    f"{_pname(aim['power'])}.", battle=battle, stage=stage, seat=e["seat"],
                           power="counter", target=aim["seat"], aim=aim["power"], step=2, phase="resolve"))
        entries.append(rule("war.power_cancel_refund", battle=battle, seat=aim["seat"], power=aim["power"],
                            refund=back, cost=POWERS[aim["power"]]["cost"],
                            ready_at=pw["ready_at"][aim["seat"]][aim["power"]]))
    # 3 rank changes: Boost and Drain in the order chosen, then Mirror.
    rank_entries = [e for e in by_step["rank"] if e["status"] == "chosen"]
    for e in sorted(rank_entries, key=lambda x: x["power"] == "mirror"):
        entries += _rank_change(s, e)
    # 4 replacement: Swap and Redraw, in the order chosen.
    for e in by_step["replacement"]:
        if e["status"] == "chosen":
            entries += _replace(s, e)
    # 5 and 6: battle modifiers and post-win effects wait for the outcome.
    for step in ("modifier", "post_win"):
        for e in by_step[step]:
            if e["status"] == "chosen":
                entries += _arm(s, e, "if they tie for the highest card" if e["power"] == "tiebreaker"
                                else "if they win this battle")
                if e["power"] == "double_stakes" and "wager" in s:   # power_wager: the raise doubles
                    from . import wager   # Wager Battle's module (wager.py), present once merged
                    wager.double_stakes(s, e["seat"])
    before = (s["battle"], s["stage"])
    entries += E._resolve_stage(s)
    if s["status"] == "playing" and (s["battle"], s["stage"]) != before and s["battle"] == before[0]:
        # A war: this stage's rank changes and unused Tiebreakers are over.
        pw["mods"] = {}
        for e in pw["used"]:
            if e["power"] == "tiebreaker" and e["status"] == "armed":
                e["status"] = "no_effect"
    return entries


def _arm(s: dict, e: dict, when: str) -> list[dict]:
    """A power whose effect depends on the outcome resolves at its step: it is set."""
    e["status"] = "armed"
    _cool(s, e["seat"], e["power"])
    return [log("power", f"{_pname(e['power'])} is set for {_name(s, e['seat'])} ({when}).",
                battle=s["battle"], stage=s["stage"], seat=e["seat"], power=e["power"],
                step=STEP_NUMBER[POWERS[e["power"]]["step"]], phase="resolve")]


def _rank_change(s: dict, e: dict) -> list[dict]:
    pw = s["powers"]
    seat, pid = e["seat"], e["power"]
    _cool(s, seat, pid)
    e["status"] = "resolved"
    aimed = seat if pid != "drain" else e["target"]
    cid = s["showing"][aimed]
    old = _eff(s, cid)
    if pid == "boost":
        new = old + BOOST
    elif pid == "drain":
        new = old - BOOST
    else:
        best = max(_eff(s, s["showing"][p]) for p in s["participants"] if p != seat)
        new = max(old, best)
    pw["mods"][cid] = new
    shown = cards.face(s["faces"], cid)
    entries = [log("power", f"{_pname(pid)}: {_name(s, aimed)}'s {shown['name']} now counts as {new}.",
                   battle=s["battle"], stage=s["stage"], seat=seat, power=pid, target=aimed, rank=new,
                   step=3, phase="resolve")]
    if pid == "mirror":
        entries.append(rule("war.power_mirror", battle=s["battle"], seat=seat, rank=new, was=old))
    if new > 14 or new < 2:
        entries += _note_once(s, "war.power_rank_limits", battle=s["battle"], seat=aimed, rank=new)
    return entries


def _replace(s: dict, e: dict) -> list[dict]:
    seat, pid = e["seat"], e["power"]
    aimed = seat if pid == "swap" else e["target"]
    _cool(s, seat, pid)
    deck = s["decks"][aimed]
    if not deck:
        e["status"] = "no_effect"
        return [rule("war.power_replacement_no_card", battle=s["battle"], seat=seat, power=pid, target=aimed)]
    e["status"] = "resolved"
    old = s["showing"][aimed]
    for item in s["pot"]:
        if item["id"] == old:
            item["down"] = True
    entries = []
    if old in s["powers"]["mods"]:
        entries.append(rule("war.power_rank_then_replacement", battle=s["battle"], seat=aimed,
                            was=s["powers"]["mods"].pop(old), power=pid))
    cid = deck.pop(0)
    E._commit(s, aimed, cid, down=False)
    s["showing"][aimed] = cid
    s["last_up"][aimed] = E._rank(s, cid)
    shown = cards.face(s["faces"], cid)
    entries.insert(0, log("power", f"{_pname(pid)}: {_name(s, aimed)}'s card goes face down and the "
                                   f"{shown['name']} is turned up.", battle=s["battle"], stage=s["stage"],
                          seat=seat, power=pid, target=aimed, card=shown, step=4, phase="resolve"))
    return entries + _expire_scout(s, aimed, "swap")


def tiebreak(s: dict, tied: list[int]) -> tuple[list[int], list[dict]]:
    """A single Tiebreaker among the tied players wins the tie; two or more cancel out."""
    pw = s["powers"]
    held = [e for e in pw["used"] if e["power"] == "tiebreaker" and e["status"] == "armed"
            and e["stage"] == s["stage"] and e["seat"] in tied]
    if not held:
        return tied, []
    if len(held) > 1:
        for e in held:
            e["status"] = "no_effect"
        return tied, [rule("war.power_tiebreaker", battle=s["battle"], seats=[e["seat"] for e in held],
                           outcome="cancel")]
    held[0]["status"] = "resolved"
    seat = held[0]["seat"]
    return [seat], [log("power", f"{_name(s, seat)}'s Tiebreaker wins the tie without a war.",
                        battle=s["battle"], stage=s["stage"], seat=seat, power="tiebreaker", step=5,
                        phase="outcome"),
                    rule("war.power_tiebreaker", battle=s["battle"], seats=[seat], outcome="win")]


def _armed(s: dict, pid: str) -> list[dict]:
    return [e for e in s["powers"]["used"] if e["power"] == pid and e["status"] == "armed"]


def before_take(s: dict, winner: int) -> list[dict]:
    """The battle is won: defense returns (step 1), then Double Stakes (step 5)."""
    entries = []
    battle = s["battle"]
    for e in [x for x in s["powers"]["used"] if x["status"] == "armed" and POWERS[x["power"]]["step"] == "defense"]:
        seat = e["seat"]
        if seat == winner or E._is_out(s, seat):
            e["status"] = "no_effect"
            continue
        mine = [i for i in range(s["carried"], len(s["pot"])) if s["pot"][i]["seat"] == seat]
        if e["power"] == "recovery":
            mine = mine[-2:]
        back = [s["pot"][i]["id"] for i in mine]
        s["pot"] = [item for i, item in enumerate(s["pot"]) if i not in set(mine)]
        s["decks"][seat].extend(back)
        e["status"] = "resolved" if back else "no_effect"
        faces = [cards.face(s["faces"], c) for c in back]
        entries.append(log("power", f"{_pname(e['power'])}: {len(back)} of {_name(s, seat)}'s cards go back "
                                    "under their deck.", battle=battle, seat=seat, power=e["power"], cards=faces,
                           step=1, phase="outcome"))
        entries.append(rule(f"war.power_{e['power']}", battle=battle, seat=seat, cards=faces))
    for e in _armed(s, "double_stakes"):
        if e["seat"] != winner:
            e["status"] = "no_effect"
            continue
        losers = [p for p in range(len(s["names"])) if p != winner and not E._is_out(s, p)
                  and s["spent"][p][0] > 0 and s["decks"][p]]
        for p in losers:
            E._commit(s, p, s["decks"][p].pop(0), down=True)
        e["status"] = "resolved" if losers else "no_effect"
        entries.append(log("power", f"Double Stakes: {join_names([_name(s, p) for p in losers], 'nobody')} "
                                    "add their top card to the pot.", battle=battle, seat=winner,
                           power="double_stakes", seats=losers, step=5, phase="outcome"))
        entries.append(rule("war.power_double_stakes", battle=battle, seat=winner, seats=losers))
    return entries


def after_take(s: dict, winner: int) -> list[dict]:
    """Post-win effects (step 6): Salvage, Momentum."""
    entries = []
    for e in _armed(s, "salvage"):
        cid = s["showing"][winner] if e["seat"] == winner else None
        if cid is None or cid not in s["decks"][winner]:
            e["status"] = "no_effect"
            continue
        deck = s["decks"][winner]
        deck.remove(cid)
        deck.insert(0, cid)
        e["status"] = "resolved"
        shown = cards.face(s["faces"], cid)
        entries.append(log("power", f"Salvage: {_name(s, winner)} keeps the {shown['name']} on top of their deck.",
                           battle=s["battle"], seat=winner, power="salvage", card=shown, step=6, phase="outcome"))
        entries += _note_once(s, "war.power_salvage", battle=s["battle"], seat=winner)
    for e in _armed(s, "momentum"):
        if e["seat"] != winner:
            e["status"] = "no_effect"
            continue
        got = _gain(s, winner, MOMENTUM)
        e["status"] = "resolved"
        entries.append(log("power", f"Momentum: {_name(s, winner)} regains {got} energy.", battle=s["battle"],
                           seat=winner, power="momentum", energy=got, step=6, phase="outcome"))
    for e in s["powers"]["used"]:
        if e["status"] == "armed":
            e["status"] = "no_effect"
    return entries


# --------------------------------------------------------------------------
# Scout

def _expire_scout(s: dict, seat: int, why: str) -> list[dict]:
    pw = s["powers"]
    if pw["scout"][seat] is None:
        return []
    pw["scout"][seat] = None
    text = {"reveal": "You revealed: your Scout knowledge is used up.",
            "swap": "Your cards were swapped: what you scouted is no longer your next card.",
            "moved": "Your next card changed: what you scouted is no longer your next card.",
            "sudden": "Sudden death: Scout knowledge is gone."}[why]
    return [_private(log("power", text, seat=seat, power="scout", reason=why), seat),
            _private(rule("war.power_scout", seat=seat, reason=why, battle=s["battle"]), seat)]


def _check_scouts(s: dict) -> list[dict]:
    entries = []
    for p, cid in enumerate(s["powers"]["scout"]):
        if cid is None:
            continue
        if s["sudden"] is not None:
            entries += _expire_scout(s, p, "sudden")
        elif not s["decks"][p] or s["decks"][p][0] != cid:
            entries += _expire_scout(s, p, "moved")
    return entries


# --------------------------------------------------------------------------
# Wager Battle's question

def raise_multiplier(s: dict, seat: int) -> int:
    """2 when `seat` has an uncanceled Double Stakes in this battle (it doubles
    the seat's raise in power_wager), else 1."""
    if "powers" not in s:
        return 1
    return 2 if any(e["seat"] == seat and e["power"] == "double_stakes" and e["status"] != "canceled"
                    for e in s["powers"]["used"]) else 1


# --------------------------------------------------------------------------
# Views

def _public_entry(s: dict, e: dict) -> dict:
    return {"seat": e["seat"], "power": e["power"], "name": _pname(e["power"]), "target": e["target"],
            "aim": e["aim"], "stage": e["stage"], "status": e["status"],
            "step": STEP_NUMBER.get(POWERS[e["power"]]["step"])}


def _in_order(s: dict, entries: list[dict]) -> list[dict]:
    """A battle's powers in resolution order: stage by stage, step by step (Scout first)."""
    ranked = sorted(enumerate(entries), key=lambda x: (x[1]["stage"], STEP_NUMBER.get(
        POWERS[x[1]["power"]]["step"], 0), x[0]))
    return [_public_entry(s, e) for _, e in ranked]


def waiting(s: dict) -> list[int] | None:
    """The seats a loadout phase or a counter window waits for (None: the reveals)."""
    pw = s["powers"]
    if s["status"] != "playing":
        return None
    if pw["phase"] == "loadout":
        return [p for p in E._active(s) if not pw["ready"][p] and not s["autoplay"][p]]
    if pw["window"] is not None:
        return [p for p in pw["window"]["seats"] if p not in pw["window"]["done"]]
    return None


def add_public(s: dict, public: dict) -> None:
    pw = s["powers"]
    hidden = [e for e in pw["used"] if not e["public"]]
    seats = []
    for p in range(len(s["names"])):
        mine = [e for e in hidden if e["seat"] == p]
        cost = sum(POWERS[e["power"]]["cost"] for e in mine)
        seats.append({
            "seat": p,
            "energy": pw["energy"][p] + cost,   # what everyone saw before any hidden choice
            "ready": pw["ready"][p],
            "chosen": len(mine),
            "loadout": [] if pw["phase"] == "loadout" else [
                {"power": pid, "name": _pname(pid),
                 "charges": pw["charges"][p][pid] + sum(1 for e in mine if e["power"] == pid),
                 "ready_in": max(0, pw["ready_at"][p][pid] - s["battle"])} for pid in pw["loadout"][p]],
            "doubles_raise": any(e["seat"] == p and e["power"] == "double_stakes" and e["public"]
                                 and e["status"] != "canceled" for e in pw["used"]),
        })
    public["powers"] = {
        "phase": pw["phase"],
        "computer_level": s["options"]["computer_level"],
        "energy_max": s["options"]["energy_max"],
        "energy_per_battle": s["options"]["energy_per_battle"],
        "seats": seats,
        "used": _in_order(s, [e for e in pw["used"] if e["public"]]),
        "last": _in_order(s, pw["last"]),
        "window": None if pw["window"] is None else {"seats": list(pw["window"]["seats"]),
                                                     "decided": len(pw["window"]["done"])},
        "ranks": {str(p): _eff(s, s["showing"][p]) for p in s["participants"]
                  if s["showing"][p] in pw["mods"] and any(i["id"] == s["showing"][p] and not i["down"]
                                                           for i in s["pot"])},
        "unavailable": list(SUDDEN_DEATH_OFF) if s["sudden"] is not None else [],
        "catalogue": catalogue(),
    }
    more = waiting(s)
    if more is not None:
        public["waiting_for"] = more


def private(s: dict, seat: int) -> dict:
    pw = s["powers"]
    scouted = pw["scout"][seat]
    return {
        "energy": pw["energy"][seat],
        "draft": list(pw["draft"][seat]),
        "ready": pw["ready"][seat],
        "chosen": [_public_entry(s, e) for e in pw["used"]
                   if e["seat"] == seat and e["stage"] == s["stage"] and e["status"] == "chosen"],
        "scout": None if scouted is None else cards.face(s["faces"], scouted),
        "powers": [{"power": pid, "name": _pname(pid), "cost": POWERS[pid]["cost"],
                    "charges": pw["charges"][seat].get(pid, POWERS[pid]["charges"]),
                    "ready_in": max(0, pw["ready_at"][seat].get(pid, 1) - s["battle"]),
                    "why_not": _why_not(s, seat, pid) if pw["phase"] == "play" else None}
                   for pid in pw["loadout"][seat]],
        "counter_window": pw["window"] is not None and seat in pw["window"]["seats"]
        and seat not in pw["window"]["done"],
        **({} if _pool(s, seat) is IDS else {"pool": list(_pool(s, seat))}),
    }


def catalogue() -> list[dict]:
    return [{"power": p["id"], "name": p["name"], "step": p["step"], "cost": p["cost"], "charges": p["charges"],
             "cooldown": p["cooldown"], "description": p["description"], "classroom": p["classroom"]}
            for p in POWERS.values()]


def prompt(s: dict, viewer):
    pw = s["powers"]
    more = waiting(s)
    if more is None:
        return None
    names = join_names([_name(s, p) for p in more])
    if pw["phase"] == "loadout":
        if E._is_seat(s, viewer) and viewer in more:
            return make_prompt(more, f"Choose up to {MAX_LOADOUT} powers for this match, then tap Ready")
        return make_prompt(more, f"Waiting for {names} to choose their powers" if more
                           else "Loadouts are ready")
    if E._is_seat(s, viewer) and viewer in more:
        return make_prompt(more, "Counter window: counter an opponent's power, or resolve the battle")
    return make_prompt(more, f"Counter window: waiting for {names}")


# --------------------------------------------------------------------------
# The computer player: sees only its own seat's view

def bot(view: dict, actions: list[dict], rng) -> dict | None:
    """The computer's power move (a loadout, a power, a counter or resolve), or
    None when it has none to make (engine.bot then reveals, or bets)."""
    pub, mine = view["public"], view["private"]
    pp, me = pub["powers"], mine.get("powers") or {}
    level = pp["computer_level"]
    seat = mine.get("seat")
    if pp["phase"] == "loadout":
        if "pool" in me:
            return _bot_pool_loadout(pool_loadout(me["pool"], level), me.get("draft") or [], actions)
        want = LOADOUTS[COMPUTER_LOADOUTS[level]]["powers"]
        for a in actions:
            if a["type"] == "loadout" and a["ready"] and a["powers"] == want:
                return a
        ready = [a for a in actions if a["type"] == "loadout" and a["ready"]]
        return ready[0] if ready else None
    counters = [a for a in actions if a["type"] == "counter"]
    resolve = next((a for a in actions if a["type"] == "resolve"), None)
    if resolve is not None:
        return _bot_counter(level, counters, resolve, pub, seat, rng)
    uses = {(a["power"], a.get("target")): a for a in actions if a["type"] == "activate"}
    if not uses or not any(a["type"] == "reveal" for a in actions):
        return None                  # nothing to choose before a reveal: the engine's own bot goes on
    return _bot_power(level, uses, view, rng)


def _bot_pool_loadout(want: list[str], draft: list[str], actions: list[dict]) -> dict | None:
    """Within a pool: pick the level's loadout one listed move at a time
    (remove what does not belong, add what is missing, then ready)."""
    loads = [a for a in actions if a["type"] == "loadout"]
    for a in loads:
        if a["ready"] and sorted(a["powers"]) == sorted(want):
            return a
    for a in loads:
        if not a["ready"] and set(a["powers"]) < set(draft) and not set(draft) - set(a["powers"]) <= set(want):
            return a          # remove a power the level does not want
    for a in loads:
        if not a["ready"] and set(a["powers"]) > set(draft) and set(a["powers"]) - set(draft) <= set(want):
            return a          # add the next one it wants
    ready = [a for a in loads if a["ready"]]
    return ready[0] if ready else None


def _bot_counter(level, counters, resolve, pub, seat, rng):
    if not counters or level == "easy":
        return resolve
    # Which opposing powers hurt this seat most.
    worth = {"double_stakes": 5, "mirror": 4, "tiebreaker": 4, "drain": 4, "redraw": 3, "boost": 3,
             "swap": 2, "momentum": 1, "salvage": 1}
    ranked = sorted(counters, key=lambda a: -worth.get(a["power"], 0))
    best = ranked[0]
    if level == "standard":
        return best if worth.get(best["power"], 0) >= 3 and rng.random() < 0.7 else resolve
    # hard: counter only what changes the outcome against this seat.
    showing = {x["seat"]: x["card"]["rank"] for x in pub["showing"]}
    if seat not in showing:
        return resolve
    used = [e for e in pub["powers"]["used"] if e["status"] == "chosen" and e["stage"] == (
        0 if pub["stage"] == "battle" else pub["stage"])]

    def outcome(skip):
        """This seat's place with the shown powers (but `skip`): 1 wins, 0 ties, -1 loses."""
        ranks = dict(showing)
        live = [e for e in used if e is not skip]
        for e in live:
            if e["power"] == "boost":
                ranks[e["seat"]] += BOOST
            elif e["power"] == "drain" and e["target"] in ranks:
                ranks[e["target"]] -= BOOST
        for e in live:
            if e["power"] == "mirror":
                ranks[e["seat"]] = max(ranks[e["seat"]], max(r for q, r in ranks.items() if q != e["seat"]))
        best_other = max(r for q, r in ranks.items() if q != seat)
        tied = ranks[seat] == best_other and any(e["power"] == "tiebreaker" and e["seat"] != seat for e in live)
        return -1 if tied else (ranks[seat] > best_other) - (ranks[seat] < best_other)

    now = outcome(None)
    choices = []
    for a in counters:
        e = next((x for x in used if x["seat"] == a["seat"] and x["power"] == a["power"]), None)
        if e is None:
            continue
        gain = outcome(e) - now
        if a["power"] == "double_stakes" and now < 0:
            gain += 1                       # at least keep the extra card
        if a["power"] == "redraw" and e["target"] == seat and now > 0:
            gain += 1                       # keep a winning card
        choices.append((gain, worth.get(a["power"], 0), a))
    choices.sort(key=lambda x: (-x[0], -x[1]))
    return choices[0][2] if choices and choices[0][0] > 0 else resolve


def _bot_power(level, uses, view, rng):
    pub, mine = view["public"], view["private"]
    me = mine["powers"]
    seat = mine["seat"]
    energy = me["energy"]
    at_war = pub["stage"] != "battle"
    scouted = me.get("scout")
    known = scouted["rank"] if scouted else None
    shown = [x["card"]["rank"] for x in pub["showing"] if x["seat"] != seat]
    best_shown = max(shown) if shown else None
    chosen = {c["power"] for c in me["chosen"]}

    def pick(pid, target=None):
        return uses.get((pid, target))

    opponents = [p for p in pub["participants"] if p != seat]
    if level == "easy":
        if rng.random() < 0.03:
            plain = [a for a in uses.values() if a["power"] in ("boost", "salvage", "recovery")]
            return plain[0] if plain else None
        return None
    # standard and hard
    if level == "hard" and known is None and pick("scout") and energy >= 4 and not chosen:
        return pick("scout")
    if known is not None:
        beaten = best_shown is not None and best_shown > known
        if not beaten and known >= 12 and pick("double_stakes"):
            return pick("double_stakes")
        if beaten and known + BOOST > best_shown and pick("boost"):
            return pick("boost")
        if beaten and pick("swap") and known <= 7:
            return pick("swap")
        if known >= 11 and pick("salvage"):
            return pick("salvage")
        if known <= 6 and pick("shield") and (at_war or level == "standard"):
            return pick("shield")
        if best_shown is not None and known == best_shown and pick("tiebreaker"):
            return pick("tiebreaker")
    # Not knowing the card: cover the big pots, spend spare energy.
    if at_war and pick("shield"):
        return pick("shield")
    if at_war and pick("recovery"):
        return pick("recovery")
    if best_shown is not None and best_shown >= 12:
        target = next((p for p in opponents if any(x["seat"] == p and x["card"]["rank"] == best_shown
                                                    for x in pub["showing"])), None)
        if target is not None and pick("redraw", target) and (level == "hard" or rng.random() < 0.5):
            return pick("redraw", target)
        if target is not None and pick("drain", target) and level == "hard" and best_shown <= 13:
            return pick("drain", target)
    spare = energy - (POWERS["counter"]["cost"] if "counter" in {p["power"] for p in me["powers"]} else 0)
    if spare >= 5 and not chosen:
        for pid in ("momentum", "boost", "recovery", "salvage"):
            if pick(pid) and rng.random() < (0.5 if level == "standard" else 0.7):
                return pick(pid)
    return None
