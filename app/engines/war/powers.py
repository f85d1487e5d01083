"""Power War: loadouts, energy, charges, cooldowns and the battle's power steps.

engine.py stays the battle core and calls the `Powers` variant at the end of
this module at a few hooks (variant.py; only a state with a "powers" part
plays them, so a Classic state never grows a key):

    setup(s)                    on_deal: the loadout phase (power modes only)
    start_battle(s)             on_battle: energy, cooldowns, the last battle's powers
    actions(s, seat)            actions: loadout picks, activate/deactivate, counter/resolve, scout
    apply(s, seat, action, ...) apply: the power moves
    check_reveal(s, seat)       before_reveal: no reveal during the loadout phase or a counter window
    revealed(s, seat, ...)      after_reveal: Scout expiry; after the stage's last reveal, the
                                counter window or the resolution (engine's resolve_stage)
    ranks(s), tiebreak(s, tied) battle_ranks, break_tie: ranks after rank changes; Tiebreaker
    before_take / after_take    the same hooks around taking the pot: defense returns,
                                Double Stakes; Salvage, Momentum
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

from ..contract import clone, join_names, label, log, prompt as make_prompt
from ..datafile import read_json, text_problem
from . import cards, wager
from .core import active, commit, fail, is_out, is_seat, name, rank
from .rulings import rule
from .variant import BattleCore, Variant
from ..text import N_, NP_

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


def _pname(pid: str) -> str:
    return POWERS[pid]["name"]


def _sentence(names: list[str]) -> str:
    return join_names(names)


def enabled(mode: str) -> bool:
    return mode in MODES


def copy(part: dict) -> dict:
    return clone(part)


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
        "picks": [0] * n,   # how often each seat changed its draft (the loadout clock's key)
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
        for p in active(s):
            pw["energy"][p] = min(cap, pw["energy"][p] + gain)
    if s["sudden"] is not None:
        entries += _note_once(s, "war.power_sudden_death", battle=s["battle"], unavailable=list(SUDDEN_DEATH_OFF))
    entries += _check_scouts(s)
    return entries


def _finish_loadout(s: dict) -> list[dict]:
    """Everyone is ready (or on auto-play): the first battle can begin."""
    pw = s["powers"]
    entries = []
    for p in active(s):
        if not pw["ready"][p]:
            chosen = list(pw["draft"][p]) or _default(s, p)
            pw["loadout"][p], pw["ready"][p] = chosen, True
            entries.append(rule("war.power_default_loadout", seat=p, powers=chosen,
                                default=not pw["draft"][p]))
    for p in range(len(s["names"])):
        pw["charges"][p] = {pid: POWERS[pid]["charges"] for pid in pw["loadout"][p]}
        pw["ready_at"][p] = {pid: 1 for pid in pw["loadout"][p]}
    pw["phase"] = "play"
    s["participants"] = active(s)
    ready = active(s)
    fields = {}
    for i, p in enumerate(ready, 1):
        fields[f"name{i}"], fields[f"powers{i}"] = name(s, p), ", ".join(_pname(x) for x in pw["loadout"][p])
    entries.append(log("power", LOADOUTS_READY[len(ready)].format(**fields), battle=s["battle"],
                       loadouts=[list(x) for x in pw["loadout"]]))
    entries.append(rule("war.power_energy", start=s["options"]["energy_start"],
                        per_battle=s["options"]["energy_per_battle"], most=s["options"]["energy_max"]))
    return entries


# --------------------------------------------------------------------------
# What a seat may do

# "Loadouts are ready. Ana: Shield, Boost; Ben: Scout.": one template per number of players.
LOADOUTS_READY = {
    1: N_("Loadouts are ready. {name1}: {powers1}."),
    2: N_("Loadouts are ready. {name1}: {powers1}; {name2}: {powers2}."),
    3: N_("Loadouts are ready. {name1}: {powers1}; {name2}: {powers2}; {name3}: {powers3}."),
    4: N_("Loadouts are ready. {name1}: {powers1}; {name2}: {powers2}; {name3}: {powers3}; {name4}: {powers4}."),
    5: N_("Loadouts are ready. {name1}: {powers1}; {name2}: {powers2}; {name3}: {powers3}; {name4}: {powers4}; "
          "{name5}: {powers5}."),
    6: N_("Loadouts are ready. {name1}: {powers1}; {name2}: {powers2}; {name3}: {powers3}; {name4}: {powers4}; "
          "{name5}: {powers5}; {name6}: {powers6}."),
}


# "Powers used: Ana: Shield; Ben: Drain on Cara.": one template per number of powers shown
# together, each item its own template ("{name}: {power}", "{name}: {power} on {target}").
POWERS_USED = {
    1: N_("Powers used: {used1}."),
    2: N_("Powers used: {used1}; {used2}."),
    3: N_("Powers used: {used1}; {used2}; {used3}."),
    4: N_("Powers used: {used1}; {used2}; {used3}; {used4}."),
    5: N_("Powers used: {used1}; {used2}; {used3}; {used4}; {used5}."),
    6: N_("Powers used: {used1}; {used2}; {used3}; {used4}; {used5}; {used6}."),
}


def _current(pw: dict, seat: int, stage: int) -> list[dict]:
    return [e for e in pw["used"] if e["seat"] == seat and e["stage"] == stage]


def _why_not(s: dict, seat: int, pid: str) -> str | None:
    """Why `seat` cannot use power `pid` now (None: it can, targets aside)."""
    pw = s["powers"]
    if pw["phase"] != "play" or s["status"] != "playing":
        return N_("Powers can be used once the battles begin.")
    if pid not in pw["loadout"][seat]:
        return N_("{power} is not in your loadout.").format(power=_pname(pid))
    if s["sudden"] is not None and pid in SUDDEN_DEATH_OFF:
        return N_("{power} cannot be used in sudden death.").format(power=_pname(pid))
    if any(e["seat"] == seat and e["power"] == pid for e in pw["used"]):
        return N_("You have already used {power} in this battle.").format(power=_pname(pid))
    if pw["charges"][seat][pid] <= 0:
        return N_("{power} has no charges left.").format(power=_pname(pid))
    wait = pw["ready_at"][seat][pid] - s["battle"]
    if wait > 0:
        return NP_("{power} is cooling down for {n} more battle.", "{power} is cooling down for {n} more battles.",
                   wait).format(power=_pname(pid), n=wait)
    if pw["energy"][seat] < POWERS[pid]["cost"]:
        return N_("{power} costs {cost} energy; you have {energy}.").format(
            power=_pname(pid), cost=POWERS[pid]["cost"], energy=pw["energy"][seat])
    step = POWERS[pid]["step"]
    if step == "counter":
        if pw["window"] is None or seat not in pw["window"]["seats"] or seat in pw["window"]["done"]:
            return N_("Counter is used in the counter window, after everyone has revealed.")
        return None
    if pw["window"] is not None:
        return N_("Wait for the counter window to close.")
    if step == "info":
        if pw["scout"][seat] is not None:
            return N_("You already know your next card.")
        if not s["decks"][seat]:
            return N_("You have no next card to see.")
        return None
    if seat not in s["participants"]:
        return N_("Only the players in this battle or war can use that power now.")
    if seat in s["taps"]:
        return N_("Your reveal has locked your powers for this round.")
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
    if not is_seat(s, seat) or is_out(s, seat) or s["status"] != "playing":
        return []
    out = []
    if pw["phase"] == "loadout":
        if pw["ready"][seat]:
            return []
        draft, pool = pw["draft"][seat], _pool(s, seat)
        for pid in pool:
            if pid in draft:
                out.append(label({"type": "loadout", "powers": [x for x in draft if x != pid], "ready": False},
                                 N_("Remove {power} from your loadout").format(power=_pname(pid))))
            elif len(draft) < MAX_LOADOUT:
                out.append(label({"type": "loadout", "powers": draft + [pid], "ready": False},
                                 N_("Add {power} to your loadout").format(power=_pname(pid))))
        if draft:
            out.append(label({"type": "loadout", "powers": list(draft), "ready": True},
                             N_("Ready: play with {powers}").format(powers=", ".join(_pname(x) for x in draft))))
        if _deadline_seat(s) == seat:
            if draft:
                text = N_("Ready now with your picks (everyone else is ready: this happens by itself "
                          "after {seconds} seconds)")
            elif pool is IDS:
                text = N_("Ready now with the {loadout} loadout (everyone else is ready: this happens by itself "
                          "after {seconds} seconds)")
            else:
                text = N_("Ready now with {powers} (everyone else is ready: this happens by itself "
                          "after {seconds} seconds)")
            out.append(label(dict(DEADLINE_ACTION), text.format(
                seconds=LOADOUT_GRACE, loadout=LOADOUTS[DEFAULT_LOADOUT]["name"],
                powers=", ".join(_pname(x) for x in _default(s, seat)))))
        offered = [draft]
        if pool is not IDS and _default(s, seat) != draft:
            offered.append(_default(s, seat))
            out.append(label({"type": "loadout", "powers": _default(s, seat), "ready": True},
                             N_("Ready with {powers}").format(powers=", ".join(_pname(x) for x in _default(s, seat)))))
        for lo in LOADOUTS.values():
            if lo["powers"] not in offered and set(lo["powers"]) <= set(pool):
                out.append(label({"type": "loadout", "powers": list(lo["powers"]), "ready": True},
                                 N_("Ready with the {loadout} loadout ({powers})").format(
                                     loadout=lo["name"], powers=", ".join(_pname(x) for x in lo["powers"]))))
        return out
    window = pw["window"]
    if window is not None:
        if seat in window["seats"] and seat not in window["done"]:
            if _why_not(s, seat, "counter") is None:
                for e in _counter_targets(s, seat):
                    out.append(label({"type": "counter", "seat": e["seat"], "power": e["power"]},
                                     N_("Counter {name}'s {power} ({cost} energy)").format(
                                         name=name(s, e["seat"]), power=_pname(e["power"]),
                                         cost=POWERS["counter"]["cost"])))
            out.append(label({"type": "resolve"}, N_("Resolve the battle (no counter)")))
        return out
    for pid in pw["loadout"][seat]:
        if pid == "counter" or _why_not(s, seat, pid) is not None:
            continue
        for t in _targets(s, seat, pid):
            text = (N_("Use {power} ({cost} energy)") if t is None else
                    N_("Use {power} on {name} ({cost} energy)")).format(
                        power=_pname(pid), name=None if t is None else name(s, t), cost=POWERS[pid]["cost"])
            out.append(label({"type": "activate", "power": pid, "target": t}, text))
    if seat in s["participants"] and seat not in s["taps"]:
        for e in _current(pw, seat, s["stage"]):
            if e["status"] == "chosen" and e["power"] not in ("scout", "counter"):
                out.append(label({"type": "deactivate", "power": e["power"]},
                                 N_("Take back {power} (refund {cost} energy)").format(
                                     power=_pname(e["power"]), cost=POWERS[e["power"]]["cost"])))
    return out


def check_payload(action: dict) -> None:
    kind = action["type"]
    if kind == "loadout":
        chosen = action["powers"]
        if not isinstance(chosen, list) or not all(isinstance(x, str) and x in POWERS for x in chosen) \
                or len(set(chosen)) != len(chosen):
            fail("illegal", N_("A loadout lists different powers from the catalogue."))
        if len(chosen) > MAX_LOADOUT:
            fail("illegal", N_("A loadout holds at most {n} powers.").format(n=MAX_LOADOUT))
        if type(action["ready"]) is not bool:
            fail("illegal", N_("That move has the wrong details."))
    elif kind in ("activate", "deactivate", "counter"):
        if not isinstance(action["power"], str) or action["power"] not in POWERS:
            fail("illegal", N_("There is no such power."))
        who = action.get("target", None) if kind == "activate" else action.get("seat", 0)
        if who is not None and (type(who) is not int or who < 0):
            fail("illegal", N_("That move has the wrong details."))


def check_reveal(s: dict, seat: int) -> None:
    pw = s["powers"]
    if pw["phase"] == "loadout":
        fail("not_your_turn", N_("Choose your loadout first: the battles start when everyone is ready."))
    if pw["window"] is not None:
        fail("not_your_turn", N_("Everyone has revealed: the battle resolves once the counter window closes."))


# --------------------------------------------------------------------------
# Moves

def apply(s: dict, seat: int, action: dict, battle_core: BattleCore) -> list[dict]:
    if "powers" not in s:
        fail("illegal", N_("This game is played without powers."))
    kind = action["type"]
    if kind == "loadout":
        return _loadout(s, seat, action["powers"], action["ready"])
    if kind == "activate":
        return _activate(s, seat, action["power"], action["target"])
    if kind == "deactivate":
        return _deactivate(s, seat, action["power"])
    if kind == "counter":
        return _counter(s, seat, action["seat"], action["power"], battle_core)
    return _pass_window(s, seat, battle_core)


def _loadout(s: dict, seat: int, chosen: list[str], ready: bool) -> list[dict]:
    pw = s["powers"]
    if pw["phase"] != "loadout":
        fail("illegal", N_("Loadouts are chosen before the first battle."))
    if pw["ready"][seat]:
        fail("illegal", N_("Your loadout is already locked in."))
    if ready and not chosen:
        if _deadline_seat(s) == seat:
            return _loadout_deadline(s, seat)
        fail("illegal", N_("Pick at least one power, or take a suggested loadout."))
    locked = [x for x in chosen if x not in _pool(s, seat)]
    if locked:
        fail("illegal", (N_("{powers} is not yours to use at this table yet.") if len(locked) == 1 else
                         N_("{powers} are not yours to use at this table yet.")).format(
                             powers=join_names([_pname(x) for x in locked])))
    if list(chosen) != pw["draft"][seat]:
        picks = pw.setdefault("picks", [0] * len(s["names"]))   # (a snapshot from before the clock had none)
        picks[seat] += 1
    pw["draft"][seat] = list(chosen)
    if not ready:
        return []
    pw["loadout"][seat], pw["ready"][seat] = list(chosen), True
    entries = [log("power", N_("{name} is ready.").format(name=name(s, seat)), seat=seat)]
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
    if all(pw["ready"][p] or s["autoplay"][p] for p in active(s)):
        return _finish_loadout(s)
    return []


# What the loadout deadline plays: Ready with no powers named = the picks so far, or the default.
DEADLINE_ACTION = {"type": "loadout", "powers": [], "ready": True}


def _deadline_seat(s: dict) -> int | None:
    """The one player still choosing a loadout once everyone else is ready or on auto-play."""
    pw = s["powers"]
    if s["status"] != "playing" or pw["phase"] != "loadout":
        return None
    rest = [p for p in active(s) if not pw["ready"][p] and not s["autoplay"][p]]
    return rest[0] if len(rest) == 1 else None


def clock_key(s: dict) -> str | None:
    """The loadout deadline's timer key (None: no deadline runs). A new pick gives a
    new key, so the time starts again; the key counts the picks and never names
    them (every screen is sent it: the public view names it for the countdown)."""
    seat = _deadline_seat(s)
    if seat is None:
        return None
    return f"loadout:{seat}:{s['powers'].get('picks', [0] * len(s['names']))[seat]}"


def timers(s: dict) -> list[dict]:
    """The loadout deadline: once everyone else is ready (or on auto-play), the
    one player still choosing gets LOADOUT_GRACE seconds from their latest pick,
    then plays with their picks, or the default loadout if they picked none."""
    key = clock_key(s)
    if key is None:
        return []
    return [{"key": key, "after": LOADOUT_GRACE, "actor": _deadline_seat(s), "action": dict(DEADLINE_ACTION)}]


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
        fail("illegal", N_("Counter is used in the counter window, after everyone has revealed."))
    why = _why_not(s, seat, pid)
    if why:
        fail("illegal", why)
    if target not in _targets(s, seat, pid):
        fail("illegal", (N_("{power} needs an opponent in this round as its target.")
                         if POWERS[pid]["target"] == "opponent" else N_("{power} takes no target.")).format(
                             power=_pname(pid)))
    _pay(s, seat, pid)
    pw = s["powers"]
    if pid == "scout":
        cid = s["decks"][seat][0]
        pw["scout"][seat] = cid
        pw["used"].append(_entry(s, seat, pid, status="resolved"))   # its cooldown starts once shown
        shown = cards.face(s["faces"], cid)
        return [_private(log("power", N_("Scout: your next card is the {card}.").format(card=shown["name"]), seat=seat,
                             power=pid, card=shown), seat)] + \
            [_private(e, seat) for e in _note_once(s, "war.power_scout", seat=seat)]
    pw["used"].append(_entry(s, seat, pid, target))
    text = (N_("You choose {power} (hidden until everyone has revealed).") if target is None else
            N_("You choose {power} on {name} (hidden until everyone has revealed).")).format(
                power=_pname(pid), name=None if target is None else name(s, target))
    return [_private(log("power", text,
                         seat=seat, power=pid, target=target), seat)]


def _deactivate(s: dict, seat: int, pid: str) -> list[dict]:
    pw = s["powers"]
    found = [e for e in _current(pw, seat, s["stage"]) if e["power"] == pid and e["status"] == "chosen"]
    if not found or pid in ("scout", "counter"):
        fail("illegal", N_("You have not chosen {power} this round.").format(power=_pname(pid)))
    if seat in s["taps"] or pw["window"] is not None:
        fail("illegal", N_("Your reveal has locked your powers for this round."))
    pw["used"].remove(found[0])
    pw["energy"][seat] += POWERS[pid]["cost"]
    pw["charges"][seat][pid] += 1
    return [_private(log("power", N_("You take back {power} and get {cost} energy back.").format(
                             power=_pname(pid), cost=POWERS[pid]["cost"]),
                         seat=seat, power=pid), seat)]


def _counter(s: dict, seat: int, target: int, pid: str, battle_core: BattleCore) -> list[dict]:
    why = _why_not(s, seat, "counter")
    if why:
        fail("illegal", why)
    if target == seat:
        fail("illegal", N_("Counter cancels an opponent's power, not your own."))
    if pid == "counter":
        fail("illegal", N_("A Counter cannot be countered."))
    if POWERS[pid]["step"] == "defense":
        fail("illegal", N_("{power} has already resolved: defense comes before Counter.").format(power=_pname(pid)))
    if not any(e["seat"] == target and e["power"] == pid for e in _counter_targets(s, seat)):
        fail("illegal", N_("That player has not used that power this round."))
    _pay(s, seat, "counter")
    pw = s["powers"]
    pw["used"].append(_entry(s, seat, "counter", target=target, aim=pid))
    pw["window"]["done"].append(seat)
    entries = [_private(log("power", N_("You counter {name}'s {power} (shown when the window closes).").format(
                                name=name(s, target), power=_pname(pid)),
                            seat=seat, power="counter", target=target, aim=pid), seat)]
    return entries + _maybe_close_window(s, battle_core)


def _pass_window(s: dict, seat: int, battle_core: BattleCore) -> list[dict]:
    pw = s["powers"]
    window = pw["window"]
    if window is None or seat not in window["seats"]:
        fail("not_your_turn", N_("There is no counter window for you to close."))
    if seat in window["done"]:
        fail("not_your_turn", N_("You have already decided. Wait for the others."))
    window["done"].append(seat)
    return _maybe_close_window(s, battle_core)


def _maybe_close_window(s: dict, battle_core: BattleCore) -> list[dict]:
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
    return entries + _resolve(s, battle_core)


def autoplay_changed(s: dict, seat: int, battle_core: BattleCore) -> list[dict]:
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
            _maybe_close_window(s, battle_core)
    return []


# --------------------------------------------------------------------------
# Reveals, the counter window and the resolution

def revealed(s: dict, seat: int, battle_core: BattleCore) -> list[dict]:
    """After `seat` revealed: its Scout knowledge expires; after the stage's last
    reveal, the chosen powers are shown and the counter window opens or the
    stage resolves."""
    pw = s["powers"]
    entries = _expire_scout(s, seat, "reveal")
    if battle_core.waiting(s):
        return entries
    chosen = [e for e in pw["used"] if e["stage"] == s["stage"] and not e["public"]]
    for e in chosen:
        e["public"] = True
        if e["power"] == "scout":
            _cool(s, e["seat"], "scout")
    if chosen:
        said = [(N_("{name}: {power}") if e["target"] is None else N_("{name}: {power} on {target}")).format(
                    name=name(s, e["seat"]), power=_pname(e["power"]),
                    target=None if e["target"] is None else name(s, e["target"])) for e in chosen]
        if len(said) in POWERS_USED:
            text = POWERS_USED[len(said)].format(**{f"used{i}": x for i, x in enumerate(said, 1)})
        else:   # (more than six at once: one field holds the list)
            text = N_("Powers used: {powers}.").format(powers="; ".join(said))
        entries.append(log("power", text, battle=s["battle"], stage=s["stage"],
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
        entries.append(log("power", N_("Counter window: {names} may counter a power, or resolve the battle.").format(
                                    names=join_names([name(s, p) for p in seats])), battle=s["battle"], stage=s["stage"],
                           seats=seats))
        if defended:
            entries += _note_once(s, "war.power_defense_before_counter", battle=s["battle"])
        return entries
    return entries + _resolve(s, battle_core)


def _counter_ready(s: dict, seat: int) -> bool:
    """`seat` could counter now if a window were open."""
    pw = s["powers"]
    saved, pw["window"] = pw["window"], {"seats": [seat], "done": []}
    try:
        return _why_not(s, seat, "counter") is None
    finally:
        pw["window"] = saved


def _eff(s: dict, cid: str) -> int:
    return s["powers"]["mods"].get(cid, rank(s, cid))


def ranks(s: dict) -> dict:
    """Each participant's face-up rank after rank changes (for the engine's resolve_stage)."""
    return {p: _eff(s, s["showing"][p]) for p in s["participants"]}


def _resolve(s: dict, battle_core: BattleCore) -> list[dict]:
    """Steps 1-5 of this stage's powers, then the battle core compares the cards."""
    pw = s["powers"]
    stage, battle = s["stage"], s["battle"]
    todo = [e for e in pw["used"] if e["stage"] == stage and e["status"] == "chosen"]
    entries = _note_once(s, "war.power_cooldowns", battle=battle) if todo else []
    by_step = {step: [e for e in todo if POWERS[e["power"]]["step"] == step] for step in STEP_NUMBER}
    # 1 defense: armed now, it takes effect if the seat loses the battle.
    for e in by_step["defense"]:
        entries += _arm(s, e, N_("{power} is set for {name} (if they lose this battle)."))
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
        entries.append(log("power", N_("{name} counters {target}'s {power}.").format(
                                    name=name(s, e["seat"]), target=name(s, aim["seat"]), power=_pname(aim["power"])), battle=battle, stage=stage, seat=e["seat"],
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
                entries += _arm(s, e, N_("{power} is set for {name} (if they tie for the highest card).")
                                if e["power"] == "tiebreaker"
                                else N_("{power} is set for {name} (if they win this battle)."))
                if e["power"] == "double_stakes" and "wager" in s:   # power_wager: the raise doubles
                    wager.double_stakes(s, e["seat"])
    before = (s["battle"], s["stage"])
    entries += battle_core.resolve_stage(s)
    if s["status"] == "playing" and (s["battle"], s["stage"]) != before and s["battle"] == before[0]:
        # A war: this stage's rank changes and unused Tiebreakers are over.
        pw["mods"] = {}
        for e in pw["used"]:
            if e["power"] == "tiebreaker" and e["status"] == "armed":
                e["status"] = "no_effect"
    return entries


def _arm(s: dict, e: dict, template: str) -> list[dict]:
    """A power whose effect depends on the outcome resolves at its step: it is set (`template`:
    the sentence that says so, with {power} and {name})."""
    e["status"] = "armed"
    _cool(s, e["seat"], e["power"])
    return [log("power", template.format(power=_pname(e["power"]), name=name(s, e["seat"])),
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
    entries = [log("power", N_("{power}: {name}'s {card} now counts as {rank}.").format(
                       power=_pname(pid), name=name(s, aimed), card=shown["name"], rank=new),
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
    commit(s, aimed, cid, down=False)
    s["showing"][aimed] = cid
    s["last_up"][aimed] = rank(s, cid)
    shown = cards.face(s["faces"], cid)
    entries.insert(0, log("power", N_("{power}: {name}'s card goes face down and the {card} is turned up.").format(
                                   power=_pname(pid), name=name(s, aimed), card=shown["name"]), battle=s["battle"], stage=s["stage"],
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
    return [seat], [log("power", N_("{name}'s Tiebreaker wins the tie without a war.").format(name=name(s, seat)),
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
        if seat == winner or is_out(s, seat):
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
        entries.append(log("power", N_("{power}: {n} of {name}'s cards go back under their deck.").format(
                                    power=_pname(e["power"]), n=len(back), name=name(s, seat)), battle=battle, seat=seat, power=e["power"], cards=faces,
                           step=1, phase="outcome"))
        entries.append(rule(f"war.power_{e['power']}", battle=battle, seat=seat, cards=faces))
    for e in _armed(s, "double_stakes"):
        if e["seat"] != winner:
            e["status"] = "no_effect"
            continue
        losers = [p for p in range(len(s["names"])) if p != winner and not is_out(s, p)
                  and s["spent"][p][0] > 0 and s["decks"][p]]
        for p in losers:
            commit(s, p, s["decks"][p].pop(0), down=True)
        e["status"] = "resolved" if losers else "no_effect"
        text = (N_("Double Stakes: {names} add their top card to the pot.").format(
                    names=join_names([name(s, p) for p in losers])) if losers else
                N_("Double Stakes: nobody add their top card to the pot."))
        entries.append(log("power", text, battle=battle, seat=winner,
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
        entries.append(log("power", N_("Salvage: {name} keeps the {card} on top of their deck.").format(
                               name=name(s, winner), card=shown["name"]),
                           battle=s["battle"], seat=winner, power="salvage", card=shown, step=6, phase="outcome"))
        entries += _note_once(s, "war.power_salvage", battle=s["battle"], seat=winner)
    for e in _armed(s, "momentum"):
        if e["seat"] != winner:
            e["status"] = "no_effect"
            continue
        got = _gain(s, winner, MOMENTUM)
        e["status"] = "resolved"
        entries.append(log("power", N_("Momentum: {name} regains {n} energy.").format(name=name(s, winner), n=got), battle=s["battle"],
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
    text = {"reveal": N_("You revealed: your Scout knowledge is used up."),
            "swap": N_("Your cards were swapped: what you scouted is no longer your next card."),
            "moved": N_("Your next card changed: what you scouted is no longer your next card."),
            "sudden": N_("Sudden death: Scout knowledge is gone.")}[why]
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
        return [p for p in active(s) if not pw["ready"][p] and not s["autoplay"][p]]
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
        # The loadout deadline of the last player choosing (the screens count down to it).
        "clock_key": clock_key(s),
        "clock_seat": _deadline_seat(s),
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
    names = join_names([name(s, p) for p in more])
    if pw["phase"] == "loadout":
        if is_seat(s, viewer) and viewer in more:
            return make_prompt(more, N_("Choose up to {n} powers for this match, then tap Ready").format(n=MAX_LOADOUT))
        return make_prompt(more, N_("Waiting for {names} to choose their powers").format(names=names) if more
                           else N_("Loadouts are ready"))
    if is_seat(s, viewer) and viewer in more:
        return make_prompt(more, N_("Counter window: counter an opponent's power, or resolve the battle"))
    return make_prompt(more, N_("Counter window: waiting for {names}").format(names=names))


# --------------------------------------------------------------------------
# The computer player: sees only its own seat's view
#
# Every level weighs a power the same way (`_battle`): the cards it expects to win or
# save this battle with the power, against the battle without it, from what its view
# shows (the opponents' face-up cards, its own scouted card, the cards in the pot;
# an unseen card is any rank alike), less what the power costs (energy it could use
# later, a charge it could spend on a better battle); it Scouts when knowing its card
# is worth more than that, and Counters only what changes the battle against it.
# The levels differ in three ways (bench/computer_strength.py measures them, 500 games
# a pairing: bench/README.md): the loadout (`COMPUTER_LOADOUTS`: easy Plain, standard
# Balanced, hard Tactical); attention (`MISSES`: easy overlooks half its chances, and
# reveals without a power, or lets a counter window pass); and thrift (`ENERGY_WORTH`:
# hard counts an energy point three times dearer, so it keeps its energy and charges
# for the battles where a power turns the result). The judgement is better than
# carelessness: a careless slip (any listed move: a power at random) spends the energy a
# later battle needed, and one slip in five took Balanced's win rate against a random
# player from 62 % to 50 % (300-400 games); easy slipping half the time won 54 % against
# a random player, easy missing half its chances 59 % (still below standard: 56 %).

MISSES = {"easy": 0.5, "standard": 0.0, "hard": 0.0}
ANY_RANK = {r: 1 / len(cards.RANKS) for r in cards.RANKS}
# Cards an energy point is worth while it can still be saved up. Tactical at 0.05 won 49 %
# against Balanced at 0.05, at 0.15 58 % (300 games each).
ENERGY_WORTH = {"easy": 0.05, "standard": 0.05, "hard": 0.15}
CHARGE_WORTH = 0.35     # cards a charge is worth kept for a later battle


def bot(view: dict, actions: list[dict], rng) -> dict | None:
    """The computer's power move (a loadout, a power, a counter or resolve), or
    None when it has none to make (engine.bot then reveals, or bets)."""
    pub, mine = view["public"], view["private"]
    pp, me = pub["powers"], mine.get("powers") or {}
    level = pp["computer_level"]
    miss = MISSES.get(level, MISSES["standard"])
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
        if counters and rng.random() < miss:
            return resolve               # a counter it did not think of
        return _bot_counter(counters, resolve, pub, seat)
    uses = [a for a in actions if a["type"] == "activate"]
    reveal = next((a for a in actions if a["type"] == "reveal"), None)
    if not uses or reveal is None:
        return None                  # nothing to choose before a reveal: the engine's own bot goes on
    if rng.random() < miss:
        return None                      # a chance it did not see: reveal without a power
    return _bot_power(uses, view, ENERGY_WORTH.get(level, ENERGY_WORTH["standard"]))


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


def _bot_counter(counters, resolve, pub, seat):
    """Counter only the opposing power that changes this battle against this seat."""
    if not counters:
        return resolve
    worth = {"double_stakes": 5, "mirror": 4, "tiebreaker": 4, "drain": 4, "redraw": 3, "boost": 3,
             "swap": 2, "momentum": 1, "salvage": 1}
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


def _shift(dist: dict, by: int) -> dict:
    out: dict = {}
    for r, p in dist.items():
        out[r + by] = out.get(r + by, 0) + p
    return out


def _odds(mine: dict, others: list[dict]) -> tuple[float, float, float]:
    """(win, tie, lose) of a rank drawn from `mine` against the highest of `others` (each a
    distribution of ranks, independent)."""
    win = tie = 0.0
    for m, p in mine.items():
        below = at_most = 1.0
        for dist in others:
            below *= sum(q for r, q in dist.items() if r < m)
            at_most *= sum(q for r, q in dist.items() if r <= m)
        win += p * below
        tie += p * (at_most - below)
    return win, tie, 1 - win - tie


def _salvage_worth(rank: int) -> float:
    """What playing `rank` again next battle is worth against one unseen card (cards)."""
    below = sum(q for r, q in ANY_RANK.items() if r < rank)
    above = sum(q for r, q in ANY_RANK.items() if r > rank)
    return below - above


def _battle(mine: dict, others: dict, pot: int, put: int, power: str | None = None,
            target=None, energy_worth: float = 0.0) -> float:
    """The cards this seat expects from the battle (won minus lost), a war counted as even,
    with `power` (on `target`) or without one."""
    others = dict(others)
    if power == "boost":
        mine = _shift(mine, BOOST)
    elif power == "drain":
        others[target] = _shift(others[target], -BOOST)
    elif power == "swap":
        mine, pot, put = ANY_RANK, pot + 1, put + 1
    elif power == "redraw":
        others[target], pot = ANY_RANK, pot + 1
    win, tie, lose = _odds(mine, list(others.values()))
    gained, lost = pot - put, put
    extra = 0.0
    if power == "mirror":
        tie, lose = tie + lose, 0.0
    elif power == "tiebreaker":
        win, tie = win + tie, 0.0
    elif power == "double_stakes":
        gained += len(others)
    elif power == "shield":
        lost = 0
    elif power == "recovery":
        lost = max(0, put - 2)
    elif power == "momentum":
        extra = win * MOMENTUM * energy_worth
    elif power == "salvage":
        won = [(m, p * _odds({m: 1.0}, list(others.values()))[0]) for m, p in mine.items()]
        chance = sum(w for _, w in won)
        extra = sum(w * _salvage_worth(m) for m, w in won) if chance else 0.0
    return win * gained - lose * lost + extra


def _bot_power(uses: list[dict], view: dict, energy_worth: float = ENERGY_WORTH["standard"]) -> dict | None:
    """The listed power worth most this battle, net of its cost, an energy point counted
    `energy_worth` cards (None: reveal without one)."""
    pub, mine = view["public"], view["private"]
    me = mine["powers"]
    seat = mine["seat"]
    stage = 0 if pub["stage"] == "battle" else pub["stage"]
    showing = {x["seat"]: x["card"]["rank"] for x in pub["showing"]}
    opponents = [p for p in pub["participants"] if p != seat]
    if not opponents:
        return None
    down = 3 if stage else 0                    # a war stage: three face down before the face-up card
    pending = {p: (0 if p in pub["revealed"] else down + 1) for p in pub["participants"]}
    put = sum(1 for c in pub["committed"] if c["seat"] == seat) + pending[seat]
    pot = pub["pot_count"] + sum(pending.values())
    # A scouted card is the next one: face up in a battle, face down in a war.
    scouted = me.get("scout") if not stage else None
    my_rank = {scouted["rank"]: 1.0} if scouted else ANY_RANK
    others = {p: ({showing[p]: 1.0} if p in pub["revealed"] and p in showing else ANY_RANK) for p in opponents}
    # What it has already chosen this round counts (each power once a battle).
    for c in me["chosen"]:
        if c["power"] == "boost":
            my_rank = _shift(my_rank, BOOST)
        elif c["power"] == "swap":
            my_rank, pot, put = ANY_RANK, pot + 1, put + 1
        elif c["power"] == "drain" and c["target"] in others:
            others[c["target"]] = _shift(others[c["target"]], -BOOST)
        elif c["power"] == "redraw" and c["target"] in others:
            others[c["target"]], pot = ANY_RANK, pot + 1
    energy = me["energy"]
    cap = pub["powers"]["energy_max"]
    per_battle = pub["powers"]["energy_per_battle"]
    # Energy over the cap is lost: with a full bar, energy is nearly free and a charge
    # kept back is being saved too long, so both count for less.
    full = energy + per_battle > cap
    worth = energy_worth / 4 if full else energy_worth
    charge = CHARGE_WORTH / 2 if full else CHARGE_WORTH

    def net(a: dict, rank: dict) -> float:
        pid = a["power"]
        if pid == "scout":
            return -1.0
        gain = _battle(rank, others, pot, put, pid, a.get("target"), worth) - _battle(rank, others, pot, put)
        return gain - POWERS[pid]["cost"] * worth - charge

    scored = [(net(a, my_rank), a) for a in uses]
    best_now = max((v for v, _ in scored), default=0.0)
    scout = next((a for a in uses if a["power"] == "scout"), None)
    if scout is not None and not stage and not me.get("scout"):
        # Knowing the card is worth what the best power would then earn, on average.
        rest = [a for a in uses if a["power"] != "scout" and POWERS[a["power"]]["cost"] + 1 <= energy]
        informed = sum(p * max([0.0] + [net(a, {r: 1.0}) for a in rest]) for r, p in ANY_RANK.items())
        if informed - max(0.0, best_now) > POWERS["scout"]["cost"] * worth + charge:
            return scout
    value, best = max(scored, key=lambda x: x[0])
    return best if value > 0 else None


# --------------------------------------------------------------------------
# The variant: where engine.py's battle calls in

class Powers(Variant):
    """Power War's loadouts, energy and the battle's power steps (modes `power`, `power_wager`)."""
    moves = FIELDS
    state_key = "powers"

    def on_deal(self, s: dict, computers: list[int]) -> None:
        setup(s)   # Power War only: the loadout phase

    def copy_into(self, source: dict, target: dict) -> None:
        target["powers"] = copy(source["powers"])

    def on_battle(self, s: dict) -> list[dict]:
        return start_battle(s)

    def before_reveal(self, s: dict, seat: int) -> None:
        check_reveal(s, seat)

    def after_reveal(self, s: dict, seat: int) -> list[dict] | None:
        return revealed(s, seat, self.battle_core)   # the counter window, or the power steps then resolve_stage

    def battle_ranks(self, s: dict, ranks_: dict) -> dict:
        return ranks(s)

    def break_tie(self, s: dict, tied: list[int]) -> tuple[list[int], list[dict]]:
        return tiebreak(s, tied)

    def before_take(self, s: dict, winner: int) -> list[dict]:
        return before_take(s, winner)

    def after_take(self, s: dict, winner: int) -> list[dict]:
        return after_take(s, winner)

    def check_move(self, action: dict) -> None:
        check_payload(action)

    def apply(self, s: dict, seat: int, action: dict) -> list[dict]:
        return apply(s, seat, action, self.battle_core)

    def actions(self, s: dict, seat: int) -> list[dict]:
        return actions(s, seat)

    def after_autoplay(self, s: dict, seat: int) -> list[dict]:
        return autoplay_changed(s, seat, self.battle_core)

    def prompt(self, s: dict, viewer) -> dict | None:
        return prompt(s, viewer)

    def public(self, s: dict, pub: dict) -> None:
        add_public(s, pub)

    def private(self, s: dict, seat: int, priv: dict) -> None:
        priv["powers"] = private(s, seat)

    def deadlines(self, s: dict) -> list[dict]:
        return timers(s)   # the loadout deadline

    def bot(self, view: dict, listed: list[dict], rng) -> dict | None:
        if "powers" not in view["public"]:
            return None
        return bot(view, listed, rng)
