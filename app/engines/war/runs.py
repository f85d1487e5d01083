"""War's solo runs: Tournament and Survival (modes `tournament` and `survival`).

A run is played by ONE person (seat 0 of a one-seat table) against computer
tables that change from stage to stage. The run's state wraps one War match
at a time; everything about the stages lives in `data/runs.json` (loaded and
checked by `load_runs`).

Design
------
* The run state is a War state whose `options["mode"]` is a run mode, with
  the keys `game`, `version`, `options`, `names` (the one player), `status`,
  `rng`, `result` (as every War state), plus
      "run":   the run's progress (below),
      "match": the current (or the last finished) stage's War match, a plain
               state built by `engine.new` for the stage's own mode (classic,
               power or wager: whatever `engine.new` supports), or None before
               the first stage.
  game.py hands a run's `new`, `actions`, `apply`, `view`, `finish`,
  `timers` and `bot` to this module (and a match's to engine.py); all the
  logic is here. A run is not a variant of the battle (variant.py): it wraps
  whole matches and plays them through engine.py's public functions.
* run = {"kind", "stage" (index of the current/next stage), "phase"
  ("between": waiting for the player to enter a table, "match": a table is
  being played, "over"), "chips", "powers" (unlocked power ids), "perks"
  (unlocked option perks), "battles" (battles won in every match so far),
  "cleared" (tables won), "tries" (entries of the current stage), "matches"
  (matches started: makes timer keys unique), "bots" ([one generator state
  per opponent seat of the current match]), "history" ([one summary per
  finished match]), "summary" (the last finished match's summary, shown
  between tables), "autoplay" (the player's auto-play speed, carried to the
  next table), and at a wager table "brought" (the chips brought to it)}.
* Inside a match the player is seat 0 and the opponents seats 1.. . The
  opponents are computer players played by the run itself: whenever a match
  waits for one of them, the run calls War's own
  `bot(view(match, seat), actions(match, seat), rng)` with a generator kept
  for that seat alone (`run["bots"]`), so an opponent never sees more than its
  own seat's view. They act at once, in seat order, as soon as a battle or a
  war stage starts (war.run_opponent_order); the player acts last.
* Stage modes (runs.json): a Tournament climbs classic, power, wager,
  power_wager; Survival starts classic, then power tables with more opponent
  powers, and ends with power_wager tables.
* A power table (war.run_powers): `powers.restrict` gives the match a pool per
  seat: the player's loadout comes only from the run's unlocked powers (each run
  starts with a few), the opponents' from their stage's `opponent_powers`,
  picked by their level (`powers.pool_loadout`: 3/4/5 powers). The player's own
  choices (a loadout's powers, an activation) are also filtered here; a
  `counter` names the opponent's power it cancels and is never filtered. The
  loadout deadline does not run at a run's table (nobody waits for the player).
* A wager table (war.run_wager_chips): all the run's chips after the entry are
  the player's bankroll at the table (run["brought"]; entering needs the entry
  plus one ante); the opponents start with the table's bankroll option. When
  the table ends, the chips the player leaves with are the run's chips again
  (then a win's prize is added).
* The player's actions inside a match are the match's own actions for seat 0
  (see above); between tables they are labelled run actions:
  `enter` (pay the entry, start the table; with "perk" to use an optional
  unlocked perk such as a longer match) and `stop` (end the run now). A
  Tournament stage lost may be re-entered while the chips cover its entry
  (war.run_retry); a lost Survival table ends the run (war.run_survival_loss).
* Views: during a match, the view is the match's own view for that viewer
  (War's normal rendering), with `public["run"]` added; between tables the
  public part is the run alone (`public["run"]`, plus `game`, `mode` and
  `status`). The run never shows the opponents' private views.
* The match's timers (the player's auto-play, a timed stage's clock) are the
  run's timers, their keys prefixed with the match number.
* A run's result: winners [0] when the whole ladder is cleared (Tournament:
  the final won; Survival: every table won), else no winners; scores = [chips].
  `progress(...)["outcome"]` sums the ended run up for the end screen (run.js).
"""
from __future__ import annotations

from pathlib import Path

from ..contract import Rng, clone, finish_cause, join_names, label, log, prompt, resolve_options, strip_label
from ..datafile import read_json, text_problem
from . import engine as E
from . import powers, wager
from .core import fail
from .rulings import rule
from ..text import N_, NP_

RUN_MODES = ("tournament", "survival")
POWER_IDS = ("shield", "recovery", "counter", "boost", "drain", "mirror", "swap", "redraw",
             "double_stakes", "tiebreaker", "salvage", "momentum", "scout")
MATCH_MODES = ("classic", "power", "wager", "power_wager")
MAX_OPPONENTS = 5
_PATH = Path(__file__).with_name("data") / "runs.json"


# --------------------------------------------------------------------------
# The data file

def _problem(cond: bool, where: str, what: str):
    if not cond:
        raise ValueError(f"runs.json: {where}: {what}")


def load_runs(path: Path = _PATH) -> dict:
    """Read and check runs.json: {"version", "perks": {id: perk}, "tournament", "survival"}."""
    data = read_json(path, ("version", "perks", "tournament", "survival"))
    option_keys = {o.key: o for o in E.OPTIONS}
    perks = {}
    _problem(isinstance(data["perks"], list), "perks", "expected a list")
    for i, perk in enumerate(data["perks"]):
        where = f"perk {i + 1}"
        _problem(isinstance(perk, dict) and set(perk) == {"id", "title", "text", "options", "optional"},
                 where, "needs exactly id, title, text, options and optional")
        for key, limit in (("id", 30), ("title", 40), ("text", 120)):
            problem = text_problem(perk[key], key, limit)
            _problem(problem is None, where, str(problem))
        _problem(perk["id"].isidentifier() and perk["id"] not in perks, where, "needs its own id (a word)")
        _problem(isinstance(perk["optional"], bool), where, "optional must be true or false")
        _problem(isinstance(perk["options"], dict) and perk["options"], where, "options must name options")
        for key, value in perk["options"].items():
            _problem(key in option_keys and key != "mode" and value in option_keys[key].choices,
                     where, f"option {key}={value!r} is not a War option value")
        perks[perk["id"]] = perk
    for kind in RUN_MODES:
        run = data[kind]
        _problem(isinstance(run, dict) and set(run) == {"title", "chips", "powers", "stages"},
                 kind, "needs exactly title, chips, powers and stages")
        _problem(text_problem(run["title"], "title", 40) is None, kind, "title is not plain text")
        _problem(type(run["chips"]) is int and run["chips"] >= 0, kind, "chips must be a whole number")
        _problem(isinstance(run["powers"], list) and set(run["powers"]) <= set(POWER_IDS)
                 and len(set(run["powers"])) == len(run["powers"]), kind, "powers must be distinct power ids")
        stages = run["stages"]
        _problem(isinstance(stages, list) and stages, kind, "needs stages")
        if kind == "tournament":
            _problem(len(stages) == 4, kind, "a Tournament is a four-stage ladder")
        names = set()
        for i, st in enumerate(stages):
            where = f"{kind} stage {i + 1}"
            _problem(isinstance(st, dict) and set(st) == {"name", "mode", "length", "level", "opponents",
                                                           "opponent_powers", "entry", "prize", "unlocks"},
                     where, "needs exactly name, mode, length, level, opponents, opponent_powers, "
                            "entry, prize and unlocks")
            _problem(text_problem(st["name"], "name", 40) is None and st["name"] not in names,
                     where, "needs its own plain name")
            names.add(st["name"])
            _problem(st["mode"] in MATCH_MODES, where, f"mode must be one of {MATCH_MODES}")
            _problem(st["length"] in E.LENGTHS, where, "length must be a War match length")
            _problem(st["level"] in E.LEVELS, where, f"level must be one of {E.LEVELS}")
            opp = st["opponents"]
            _problem(isinstance(opp, list) and 1 <= len(opp) <= MAX_OPPONENTS and len(set(opp)) == len(opp)
                     and all(text_problem(n, "opponent", 20) is None for n in opp),
                     where, f"needs 1 to {MAX_OPPONENTS} distinct opponent names")
            _problem(isinstance(st["opponent_powers"], list) and set(st["opponent_powers"]) <= set(POWER_IDS)
                     and len(set(st["opponent_powers"])) == len(st["opponent_powers"]),
                     where, "opponent_powers must be distinct power ids")
            if st["mode"] in ("power", "power_wager"):
                _problem(bool(st["opponent_powers"]) and bool(run["powers"]), where,
                         "a power table needs opponent_powers, and the run a starting set of powers")
            for key in ("entry", "prize"):
                _problem(type(st[key]) is int and st[key] >= 0, where, f"{key} must be a whole number of chips")
            un = st["unlocks"]
            _problem(isinstance(un, dict) and set(un) == {"powers", "perks"}
                     and set(un["powers"]) <= set(POWER_IDS) and set(un["perks"]) <= set(perks),
                     where, "unlocks lists power ids and perk ids")
            if kind == "survival":
                _problem(st["entry"] == 0, where, "Survival tables are free to enter")
                if i:
                    before = stages[i - 1]
                    harder = (len(opp), E.LEVELS.index(st["level"]), len(st["opponent_powers"]))
                    easier = (len(before["opponents"]), E.LEVELS.index(before["level"]),
                              len(before["opponent_powers"]))
                    _problem(all(a >= b for a, b in zip(harder, easier)) and harder != easier, where,
                             "each Survival table must be harder than the one before (more opponents, "
                             "a stronger level or more opponent powers, and never fewer)")
            else:
                _problem(i == 0 or st["entry"] >= stages[i - 1]["entry"], where, "entries never go down")
    data["perks"] = perks
    return data


RUNS = load_runs()
RUNS_VERSION = RUNS["version"]


# --------------------------------------------------------------------------
# Small helpers

def is_run(state_or_options: dict) -> bool:
    options = state_or_options.get("options", state_or_options)
    return options.get("mode") in RUN_MODES


def _stages(s: dict) -> list[dict]:
    return RUNS[s["run"]["kind"]]["stages"]


def _stage(s: dict) -> dict:
    return _stages(s)[s["run"]["stage"]]


def _called(s: dict, i: int | None = None) -> str:
    """"Stage 2: Silver Table", "Table 3: Sharp eyes"."""
    i = s["run"]["stage"] if i is None else i
    template = N_("Stage {n}: {name}") if s["run"]["kind"] == "tournament" else N_("Table {n}: {name}")
    return template.format(n=i + 1, name=_stages(s)[i]["name"])


def _title(s: dict) -> str:
    return RUNS[s["run"]["kind"]]["title"]


def _level(s: dict, listed: str) -> str:
    """The stage's level shifted by the run's computer_level option (war.run_levels)."""
    shift = {"easy": -1, "standard": 0, "hard": 1}[s["options"]["computer_level"]]
    return E.LEVELS[max(0, min(len(E.LEVELS) - 1, E.LEVELS.index(listed) + shift))]


def _stage_word(s: dict) -> str:
    return "stage" if s["run"]["kind"] == "tournament" else "table"


def _copy_run(state: dict) -> dict:
    """A copy of the run state sharing nothing mutable but the match (which War's
    own `apply` never mutates: it is only ever replaced whole)."""
    s = dict(state)
    s["options"] = dict(state["options"])
    s["names"] = list(state["names"])
    s["run"] = clone(state["run"])
    return s


def _allowed(action: dict, powers) -> bool:
    """A seat's own power choices (a `loadout`'s powers, an `activate`'s power)
    only from `powers`. A `counter` names the *opponent's* power it cancels, so
    it is never filtered (the match's pool already keeps loadouts in bounds:
    this is a second guard)."""
    if action.get("type") == "loadout" and isinstance(action.get("powers"), list):
        return all(p in powers for p in action["powers"])
    if action.get("type") == "activate":
        return action.get("power") in powers
    return True


def _wager_stage(st: dict) -> bool:
    return st["mode"] in wager.MODES


def _power_stage(st: dict) -> bool:
    return st["mode"] in powers.MODES


def _needed(st: dict) -> int:
    """Chips needed to enter: the entry, plus one ante at a wager table (war.run_wager_chips)."""
    return st["entry"] + (wager.ANTE if _wager_stage(st) else 0)


# --------------------------------------------------------------------------
# Setting up

def new(options: dict, seats: list[str], seed: int) -> dict:
    if len(seats) != 1:
        fail("illegal", N_("A Tournament or Survival run is played by one person: start it with one player "
                            "(every student plays their own run)."))
    resolved = resolve_options(E.OPTIONS, options)
    kind = resolved["mode"]
    rng = Rng.from_seed(seed)
    data = RUNS[kind]
    return {
        "game": E.KEY, "version": E.VERSION, "options": resolved, "names": list(seats),
        "status": "playing", "rng": rng.state, "result": None,
        "run": {"kind": kind, "stage": 0, "phase": "between", "chips": data["chips"],
                "powers": list(data["powers"]), "perks": [], "battles": 0, "cleared": 0, "tries": 0,
                "matches": 0, "bots": [], "history": [], "summary": None, "autoplay": 0},
        "match": None,
    }


# --------------------------------------------------------------------------
# Actions

def _enter_actions(s: dict) -> list[dict]:
    run, st = s["run"], _stage(s)
    again = run["tries"] > 0
    if st["entry"]:
        plain = N_("Retry {table} (entry {chips} chips)") if again else N_("Enter {table} (entry {chips} chips)")
        perked = (N_("Retry {table} with {perk} (entry {chips} chips)") if again
                  else N_("Enter {table} with {perk} (entry {chips} chips)"))
    else:
        plain = N_("Retry {table}") if again else N_("Enter {table}")
        perked = N_("Retry {table} with {perk}") if again else N_("Enter {table} with {perk}")
    listed = [label({"type": "enter"}, plain.format(table=_called(s), chips=st["entry"]))]
    for pid in run["perks"]:
        perk = RUNS["perks"][pid]
        if perk["optional"]:
            listed.append(label({"type": "enter", "perk": pid},
                                perked.format(table=_called(s), perk=perk["title"], chips=st["entry"])))
    return listed


def actions(state: dict, viewer) -> list[dict]:
    s = state
    if s["status"] != "playing" or viewer != 0:
        return []
    run = s["run"]
    if run["phase"] == "match":
        # Nobody waits for you at a run's table: no loadout deadline (war.run_powers).
        return [a for a in E.actions(s["match"], 0)
                if _allowed(a, run["powers"]) and strip_label(a) != powers.DEADLINE_ACTION]
    listed = _enter_actions(s) if _needed(_stage(s)) <= run["chips"] else []
    listed.append(label({"type": "stop"}, N_("Stop the run here and keep your progress")))
    return listed


# --------------------------------------------------------------------------
# Applying

def apply(state: dict, actor, action: dict) -> tuple[dict, list[dict]]:
    if actor == E.SYSTEM:
        if state["status"] != "playing":
            fail("game_over", N_("The run is over."))
        if state["run"]["phase"] != "match":
            fail("illegal", N_("No table is being played."))
        s = _copy_run(state)
        s["match"], entries = E.apply(state["match"], E.SYSTEM, action)
        return s, _after_match_move(s, entries)
    if actor != 0:
        E.seat_of(state, actor)   # the board, the facilitator, the clock: each refused in words
        fail("forbidden", N_("That player is not at this table."))
    if state["status"] != "playing":
        fail("game_over", N_("The run is over."))
    if isinstance(action, dict) and isinstance(action.get("label"), str):
        action = strip_label(action)
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        fail("illegal", N_("That is not a move in War."))
    run = state["run"]
    if run["phase"] == "match":
        if action["type"] in ("enter", "stop"):
            fail("illegal", N_("Finish this table first."))
        if not _allowed(action, run["powers"]):
            fail("illegal", N_("You have not unlocked that power yet."))
        s = _copy_run(state)
        s["match"], entries = E.apply(state["match"], 0, action)
        if action["type"] == "autoplay":
            s["run"]["autoplay"] = action.get("speed", 0)
        return s, _after_match_move(s, entries)
    kind = action["type"]
    if kind == "stop":
        if set(action) != {"type"}:
            fail("illegal", N_("That move has the wrong details."))
        s = _copy_run(state)
        return s, [rule("war.run_stop", stage=s["run"]["stage"], chips=s["run"]["chips"])] + \
            _end_run(s, "run_stopped", N_("{name} stops the run.").format(name=s["names"][0]))
    if kind != "enter":
        fail("illegal", N_("Enter the next table first.") if kind in ("reveal", "autoplay")
              else N_("That is not a move in War."))
    if not set(action) <= {"type", "perk"}:
        fail("illegal", N_("That move has the wrong details."))
    if action not in [strip_label(a) for a in _enter_actions(state)]:
        fail("illegal", N_("That perk is not yours to use yet."))
    s = _copy_run(state)
    return s, _enter(s, action.get("perk"))


def _enter(s: dict, perk: str | None) -> list[dict]:
    run, st = s["run"], _stage(s)
    if _needed(st) > run["chips"]:
        fail("illegal", N_("You need {needed} chips to enter {table}; you have {chips}.").format(
            needed=_needed(st), table=_called(s), chips=run["chips"]))
    entries = []
    if run["tries"] > 0:
        entries.append(rule("war.run_retry", stage=run["stage"], tries=run["tries"] + 1,
                            entry=st["entry"], chips=run["chips"]))
    if st["entry"]:
        entries.append(rule("war.run_entry", stage=run["stage"], entry=st["entry"], chips=run["chips"]))
    run["chips"] -= st["entry"]
    run["tries"] += 1
    run["matches"] += 1
    level = _level(s, st["level"])
    options = {k: v for k, v in s["options"].items() if k not in ("mode", "length", "computer_level")}
    options.update(mode=st["mode"], length=st["length"], computer_level=level)
    for pid in run["perks"]:
        p = RUNS["perks"][pid]
        if not p["optional"] or pid == perk:
            options.update(p["options"])
    rng = Rng(s["rng"])
    seed = rng.next64()
    run["bots"] = [rng.next64() for _ in st["opponents"]]
    s["rng"] = rng.state
    s["match"] = E.new(options, [s["names"][0]] + list(st["opponents"]), seed)
    run["phase"] = "match"
    if _power_stage(st):
        # Your loadout comes from the powers the run has unlocked; the opponents'
        # from their table's list, picked by their level (powers.pool_loadout).
        powers.restrict(s["match"], [list(run["powers"])] + [list(st["opponent_powers"])] * len(st["opponents"]))
        entries.append(rule("war.run_powers", stage=run["stage"], powers=list(run["powers"]),
                            opponent_powers=list(st["opponent_powers"]), level=level))
    if _wager_stage(st):
        # The run's chips are your bankroll at the table; what you leave with is yours.
        bring = run["chips"]
        w = s["match"]["wager"]
        w["chips"][0] += bring - s["match"]["options"]["bankroll"]   # the first ante is already in the pot
        run["chips"], run["brought"] = 0, bring
        entries.append(rule("war.run_wager_chips", stage=run["stage"], bankroll=bring,
                            opponents=s["match"]["options"]["bankroll"]))
    text = (N_("{name} enters {table}, paying {chips} chips: against {names}.") if st["entry"] else
            N_("{name} enters {table}: against {names}."))
    entries.append(log("run_enter", text.format(name=s["names"][0], table=_called(s), chips=st["entry"],
                                                names=join_names(list(st["opponents"]))),
                       stage=run["stage"], entry=st["entry"], opponents=list(st["opponents"]), level=level,
                       perk=perk))
    if level != st["level"]:
        entries.append(rule("war.run_levels", stage=run["stage"], listed=st["level"], level=level))
    if run["matches"] == 1:
        entries.append(rule("war.run_opponent_order", stage=run["stage"]))
    if run["autoplay"]:
        s["match"], more = E.apply(s["match"], 0, {"type": "autoplay", "speed": run["autoplay"]})
        entries += more
    return _after_match_move(s, entries)


class _BotRng(Rng):
    """An opponent's own generator, with the `random()` the platform's bots get
    (the platform hands them a `random.Random`; Power and Wager bots call it)."""

    def random(self) -> float:
        return self.next64() / 2 ** 64


def _bot(view: dict, listed: list[dict], rng: Rng):
    """The opponents' player: War's own bot (a test may watch what it is shown)."""
    return E.bot(view, listed, rng)


def _play_opponents(s: dict) -> list[dict]:
    """Every opponent the match waits for acts now, in seat order, seeing only its own view."""
    entries = []
    run, opponents = s["run"], len(s["match"]["names"])
    moved = True
    while moved and s["match"]["status"] == "playing":
        moved = False
        for seat in range(1, opponents):
            match = s["match"]
            listed = [a for a in E.actions(match, seat) if a.get("type") != "autoplay"
                      and _allowed(a, _stage(s)["opponent_powers"])]
            if not listed:
                continue
            rng = _BotRng(run["bots"][seat - 1])
            choice = _bot(E.view(match, seat), listed, rng)
            run["bots"][seat - 1] = rng.state
            if choice is None:
                continue
            s["match"], more = E.apply(match, seat, strip_label(choice))
            entries += more
            moved = True
            if s["match"]["status"] != "playing":
                break
    return entries


def _after_match_move(s: dict, entries: list[dict]) -> list[dict]:
    """After the player's (or the clock's) move in the match: the opponents' moves,
    and the table's end."""
    entries = _table_log(entries + _play_opponents(s), s["match"]["names"])
    if s["match"]["status"] == "playing":
        return entries
    return entries + _match_over(s)


def _table_log(entries: list[dict], names: list[str]) -> list[dict]:
    """A match's own `game_over` entry becomes `match_over`: the run goes on ("Ana wins the
    table!"; a shared win says so as the match did)."""
    return [dict(e, t="match_over", text=_table_text(e, names)) if e["t"] == "game_over" else e for e in entries]


def _table_text(entry: dict, names: list[str]) -> str:
    winners = entry.get("winners") or []
    if len(winners) == 1:
        return N_("{name} wins the table!").format(name=names[winners[0]])
    return entry["text"]


def _match_over(s: dict) -> list[dict]:
    run, st, match = s["run"], _stage(s), s["match"]
    res = E.result(match)
    won = 0 in res["winners"]
    battles = match["wins"][0]
    kept = _take_table_chips(s)
    run["battles"] += battles
    run["phase"] = "between"
    name = s["names"][0]
    summary = {"stage": run["stage"], "name": st["name"], "won": won, "battles": battles,
               "battles_played": match["battle"], "cards": len(match["decks"][0]),
               "reason": res["reason"], "winners": [match["names"][p] for p in res["winners"]],
               "prize": 0, "unlocked": {"powers": [], "perks": []}, "try": run["tries"],
               "mode": st["mode"], "kept": kept, "chips": None}
    entries = []
    if won:
        if len(res["winners"]) > 1:
            entries.append(rule("war.run_table_won", stage=run["stage"], winners=res["winners"]))
        run["chips"] += st["prize"]
        run["cleared"] += 1
        new_powers = [p for p in st["unlocks"]["powers"] if p not in run["powers"]]
        new_perks = [p for p in st["unlocks"]["perks"] if p not in run["perks"]]
        run["powers"] += new_powers
        run["perks"] += new_perks
        summary.update(prize=st["prize"], unlocked={"powers": new_powers, "perks": new_perks})
        unlocked = [p.replace("_", " ").title() for p in new_powers] + \
            [RUNS["perks"][p]["title"] for p in new_perks]
        text = (N_("{name} wins {table}, takes the {prize}-chip prize and unlocks {unlocked}.") if unlocked else
                N_("{name} wins {table}, takes the {prize}-chip prize."))
        entries.append(log("run_won", text.format(name=name, table=_called(s), prize=st["prize"],
                                                  unlocked=join_names(unlocked)),
                           stage=run["stage"], prize=st["prize"], powers=new_powers, perks=new_perks))
    else:
        entries.append(log("run_lost", N_("{name} loses {table}.").format(name=name, table=_called(s)), stage=run["stage"]))
    summary["chips"] = run["chips"]
    run["history"].append(summary)
    run["summary"] = summary
    last = run["stage"] == len(_stages(s)) - 1
    if won:
        run["tries"] = 0
        if last:
            text = (N_("{name}: Tournament champion!") if run["kind"] == "tournament"
                    else N_("{name}: Survived every table!"))
            return entries + _end_run(s, "run_complete", text.format(name=name))
        run["stage"] += 1
        return entries
    if run["kind"] == "survival":
        entries.append(rule("war.run_survival_loss", stage=run["stage"], cleared=run["cleared"],
                            chips=run["chips"], battles=run["battles"]))
        return entries + _end_run(s, "run_lost", N_("{name}'s Survival run ends at {table}.").format(
            name=name, table=_called(s)))
    if _needed(st) > run["chips"]:
        entries.append(rule("war.run_retry", stage=run["stage"], entry=_needed(st), chips=run["chips"],
                            retry=False))
        return entries + _end_run(s, "run_lost", N_("{name} cannot pay to retry {table}: the run is over.").format(
            name=name, table=_called(s)))
    return entries


def _take_table_chips(s: dict) -> int | None:
    """A wager table's end: the chips you leave with go back to the run (None: no chips at this table)."""
    match = s["match"]
    if "wager" not in match:
        return None
    kept = match["wager"]["chips"][0]
    s["run"]["chips"] += kept
    s["run"].pop("brought", None)
    return kept


def _end_run(s: dict, reason: str, text: str) -> list[dict]:
    run = s["run"]
    run["phase"] = "over"
    s["status"] = "ended"
    s["result"] = {"winners": [0] if reason == "run_complete" else [], "ranking": [0],
                   "scores": [run["chips"]], "reason": reason}
    return [log("game_over", text, reason=reason, stage=run["stage"], cleared=run["cleared"],
                chips=run["chips"], battles=run["battles"], winners=s["result"]["winners"], ranking=[0])]


def finish(state: dict, cause: str = "teacher") -> tuple[dict, list[dict]]:
    """The teacher ends the run, the lesson clock ran out, or the platform stopped a run
    that ran too long (`cause`): the match in progress (if any) ends too."""
    cause = finish_cause(cause)
    if state["status"] != "playing":
        fail("game_over", N_("The game is over."))
    s = _copy_run(state)
    entries = []
    if s["run"]["phase"] == "match":
        s["match"], entries = E.finish(state["match"], cause)
        s["run"]["battles"] += s["match"]["wins"][0]
        _take_table_chips(s)
    if cause == "lesson_clock":
        if not any(e.get("id") == "war.lesson_clock" for e in entries):  # (the match's finish said it)
            entries.append(rule("war.lesson_clock", stage=s["run"]["stage"], chips=s["run"]["chips"]))
        return s, entries + _end_run(s, "lesson_clock_ran_out", N_("The lesson clock ran out: the run ends."))
    if cause == "time_limit":
        return s, entries + _end_run(s, "ran_too_long", N_("This run ran too long, so it was stopped."))
    entries.append(rule("war.facilitator_end", stage=s["run"]["stage"], chips=s["run"]["chips"]))
    return s, entries + _end_run(s, "ended_by_facilitator", N_("The teacher ends the run."))


# --------------------------------------------------------------------------
# Views, timers and the bot

def _stage_state(s: dict, i: int) -> str:
    """cleared, current, lost (the stage that ended the run) or ahead."""
    run = s["run"]
    if i < run["cleared"]:
        return "cleared"
    if i == run["stage"]:
        return "lost" if run["phase"] == "over" and s["result"]["reason"] != "run_complete" else "current"
    return "ahead"


def progress(s: dict) -> dict:
    """The run's public progress (every viewer sees it: a run hides nothing of its own)."""
    run, stages = s["run"], _stages(s)
    reached = min(run["stage"], len(stages) - 1)
    # Battles won so far, the table being played included (a live leader board).
    playing = s["match"]["wins"][0] if run["phase"] == "match" else 0
    # At a wager table the run's chips are the bankroll on the table (war.run_wager_chips).
    at_table = s["match"]["wager"]["chips"][0] if run["phase"] == "match" and "wager" in s["match"] else None
    return {
        "kind": run["kind"], "title": _title(s), "player": s["names"][0], "phase": run["phase"],
        "stage": reached, "stage_word": _stage_word(s), "chips": run["chips"] + (at_table or 0), "at_table": at_table, "battles": run["battles"] + playing,
        "cleared": run["cleared"], "tries": run["tries"], "powers": list(run["powers"]),
        # Every power's name by id, for the run's screens (the names are translated on the way out).
        "power_names": {pid: powers.POWERS[pid]["name"] for pid in powers.IDS},
        "perks": [{"id": p, "title": RUNS["perks"][p]["title"], "text": RUNS["perks"][p]["text"]}
                  for p in run["perks"]],
        "stages": [{"name": st["name"], "opponents": list(st["opponents"]), "level": _level(s, st["level"]),
                    "mode": st["mode"], "length": st["length"].replace("_", " ").capitalize(),
                    "entry": st["entry"], "prize": st["prize"],
                    "unlocks": [p.replace("_", " ").title() for p in st["unlocks"]["powers"]]
                    + [RUNS["perks"][p]["title"] for p in st["unlocks"]["perks"]],
                    "state": _stage_state(s, i)}
                   for i, st in enumerate(stages)],
        "summary": clone(run["summary"]),
        "history": [{"name": h["name"], "won": h["won"], "battles": h["battles"]} for h in run["history"]],
        "can_enter": run["phase"] == "between" and _needed(_stage(s)) <= run["chips"],
        "needed": _needed(_stage(s)),
        "result": clone(s["result"]),
        "outcome": _outcome(s),
    }


def _outcome(s: dict) -> dict | None:
    """The end of the run in words, for the end screen (None while it goes on)."""
    if s["status"] == "playing":
        return None
    run, reason = s["run"], s["result"]["reason"]
    stages = _stages(s)
    at = _called(s, min(run["stage"], len(stages) - 1))
    if reason == "run_complete":
        title = N_("Tournament champion") if run["kind"] == "tournament" else N_("Survived every table")
        where = (N_("Cleared all {n} stages") if run["kind"] == "tournament" else
                 N_("Cleared all {n} tables")).format(n=len(stages))
    elif reason == "run_stopped":
        title, where = N_("Run stopped"), N_("Stopped before {table}").format(table=at)
    elif reason == "ended_by_facilitator":
        title, where = N_("Run ended by the teacher"), N_("Ended at {table}").format(table=at)
    elif reason == "lesson_clock_ran_out":
        title, where = N_("The lesson clock ran out"), N_("Ended at {table}").format(table=at)
    elif reason == "ran_too_long":
        title, where = N_("Stopped: the run ran too long"), N_("Ended at {table}").format(table=at)
    else:
        title, where = N_("Run over"), N_("Ended at {table}").format(table=at)
    unlocked = [powers.POWERS[p]["name"] for p in run["powers"] if p not in RUNS[run["kind"]]["powers"]] + \
        [RUNS["perks"][p]["title"] for p in run["perks"]]
    return {"title": title, "where": where, "complete": reason == "run_complete", "cleared": run["cleared"],
            "stages": len(stages), "chips": run["chips"], "battles": run["battles"], "unlocked": unlocked,
            "powers": [powers.POWERS[p]["name"] for p in run["powers"]], "tables": len(run["history"])}


def _prompt(s: dict, viewer) -> dict:
    run = s["run"]
    if s["status"] != "playing":
        res = s["result"]
        if res["reason"] == "run_complete":
            text = (N_("Run complete: you are the champion!") if viewer == 0 else
                    N_("{name} completed the run!").format(name=s["names"][0]))
        elif run["kind"] == "tournament":
            text = NP_("The run is over: {n} stage cleared.", "The run is over: {n} stages cleared.",
                       run["cleared"]).format(n=run["cleared"])
        else:
            text = NP_("The run is over: {n} table cleared.", "The run is over: {n} tables cleared.",
                       run["cleared"]).format(n=run["cleared"])
        return prompt([], text)
    if viewer == 0:
        if _needed(_stage(s)) > run["chips"]:
            text = N_("You cannot afford the next entry: stop the run")
        else:
            text = (N_("Retry {table} when you are ready") if run["tries"] else
                    N_("Enter {table} when you are ready")).format(table=_called(s))
    else:
        text = N_("Waiting for {name} to enter {table}").format(name=s["names"][0], table=_called(s))
    return prompt([0], text)


def view(state: dict, viewer) -> dict:
    s = state
    if viewer not in (E.BOARD, E.FACILITATOR) and viewer != 0:
        fail("forbidden", N_("That player is not at this table."))
    prog = progress(s)
    if s["run"]["phase"] == "match":
        seen = E.view(s["match"], viewer)
        seen["public"]["run"] = prog
        return seen
    public = {"game": E.KEY, "mode": s["options"]["mode"], "status": s["status"], "run": prog,
              "result": clone(s["result"])}
    private = {} if viewer != 0 else {"seat": 0, "name": s["names"][0]}
    return {"public": public, "private": private, "prompt": _prompt(s, viewer)}


def timers(state: dict) -> list[dict]:
    """The match's timers for the player (auto-play) and the system (a timed
    stage's clock), keyed by match number so a new table's timers are new."""
    if state["status"] != "playing" or state["run"]["phase"] != "match":
        return []
    n = state["run"]["matches"]
    return [dict(timer, key=f"run{n}:{timer['key']}") for timer in E.timers(state["match"])
            if timer["actor"] in (0, E.SYSTEM) and not timer["key"].startswith("loadout:")]


def bot(view: dict, listed: list[dict], rng) -> dict | None:
    """Played for the runner (a property test, or a seat the teacher handed to the
    computer): inside a match War's own bot; between tables, enter the next table."""
    if view["public"]["run"]["phase"] == "match":
        return E.bot(dict(view, public={k: v for k, v in view["public"].items() if k != "run"}), listed, rng)
    for action in listed:
        if action["type"] == "enter" and "perk" not in action:
            return action
    return next((a for a in listed if a["type"] == "stop"), None)
