"""Power War (app/engines/war/powers.py): the rules one rigged situation at a
time, the catalogue file, the computer levels, and seeded power-mode games
checked with the generic properties (tests/engines/properties.py)."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from app.engines import war
from app.engines.contract import IllegalAction, strip_label
from app.engines.war import engine as E
from app.engines.war import powers as P
from app.engines.war.hidden import power_scramble

from engines.properties import FINISH, check_bot_choice, check_bot_privacy, play_random_game, strings_in
from .test_war_properties import cards_conserved, check_result
from .test_war_properties import secret_ids
from .test_war_rules import NAMES, ranks, refused, rig, ruling_ids, texts

CATALOGUE = {r["id"] for r in war.GAME.rulings}


# --------------------------------------------------------------------------
# Helpers

def powered(*decks: str, loadouts=None, energy: int | None = None, **options) -> dict:
    """A rigged Power War game (decks top first, as in test_war_rules.rig), each
    seat ready with its loadout (default: Balanced), optionally with `energy` each."""
    state = rig(*decks, mode="power", **options)
    chosen = [(loadouts[seat] or ["momentum"]) if loadouts else P.LOADOUTS["balanced"]["powers"]
              for seat in range(len(decks))]
    for ready in (False, True):     # everyone picks first (nobody gets the default loadout)
        for seat in range(len(decks)):
            state, _ = war.apply(state, seat, {"type": "loadout", "powers": list(chosen[seat]), "ready": ready})
    if energy is not None:
        state["powers"]["energy"] = [energy] * len(decks)
    return state


def go(state: dict, *moves) -> tuple[dict, list[dict]]:
    """Moves in order: a seat number reveals; (seat, power) or (seat, power,
    target) activates; (seat, "counter", target, power) counters; (seat, "resolve")."""
    entries = []
    for move in moves:
        if isinstance(move, int):
            seat, action = move, {"type": "reveal"}
        elif move[1] == "resolve":
            seat, action = move[0], {"type": "resolve"}
        elif move[1] == "counter":
            seat, action = move[0], {"type": "counter", "seat": move[2], "power": move[3]}
        elif move[1] == "deactivate":
            seat, action = move[0], {"type": "deactivate", "power": move[2]}
        else:
            seat, action = move[0], {"type": "activate", "power": move[1],
                                     "target": move[2] if len(move) > 2 else None}
        before = json.dumps(state, sort_keys=True)
        state, new = war.apply(state, seat, action)
        assert json.dumps(state, sort_keys=True) != before or not new
        entries += new
    return state, entries


CONTROLS = {"hold", "resume", "restart"}   # a player's own pause and restart (control.py), offered throughout


def offered(state: dict, seat) -> list[dict]:
    """The moves on offer as these tests name them: without labels, nor the battle number
    the battle's moves carry (tests/games/war/test_war_battle_moves.py checks that)."""
    return [{k: v for k, v in strip_label(a).items() if k != "battle"}
            for a in war.actions(state, seat) if a["type"] not in CONTROLS]


def status(state: dict, seat: int, power: str, which: str = "last") -> str:
    """The status of `seat`'s `power` in this battle (`used`) or the last one."""
    found = [e for e in state["powers"][which] if e["seat"] == seat and e["power"] == power]
    assert len(found) == 1, found
    return found[0]["status"]


def visible(entries: list[dict], viewer) -> list[dict]:
    return [e for e in entries if "visible_to" not in e or viewer in e["visible_to"]]


def power_invariant(state: dict) -> None:
    cards_conserved(state)
    pw = state.get("powers")
    if pw is None:
        return
    most = state["options"]["energy_max"]
    assert all(0 <= e <= most for e in pw["energy"]), pw["energy"]
    for p, loadout in enumerate(pw["loadout"]):
        assert len(loadout) <= P.MAX_LOADOUT and len(set(loadout)) == len(loadout)
        for pid, left in pw["charges"][p].items():
            assert 0 <= left <= P.POWERS[pid]["charges"]


# --------------------------------------------------------------------------
# The catalogue file

def test_catalogue_has_the_planned_powers_with_their_steps():
    assert list(P.POWERS) == ["shield", "recovery", "counter", "boost", "drain", "mirror", "swap", "redraw",
                              "double_stakes", "tiebreaker", "salvage", "momentum", "scout"]
    steps = {pid: p["step"] for pid, p in P.POWERS.items()}
    assert set(steps.values()) == set(P.STEPS)          # every step of the order, and information
    assert steps["shield"] == steps["recovery"] == "defense" and steps["counter"] == "counter"
    assert steps["swap"] == steps["redraw"] == "replacement" and steps["double_stakes"] == "modifier"
    for p in P.POWERS.values():
        assert p["cost"] >= 1 and p["charges"] >= 1 and p["description"].endswith(".") and p["classroom"]
    assert war.GAME.data_versions["powers.json"] == P.VERSION == "war-powers-1"
    assert set(P.COMPUTER_LOADOUTS) == {"easy", "standard", "hard"}


def _write(tmp_path, data):
    path = tmp_path / "powers.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("change", [
    lambda d: d.pop("version"),
    lambda d: d.update(version=""),
    lambda d: d["powers"].pop(),
    lambda d: d["powers"][0].update(cost=-1),
    lambda d: d["powers"][0].update(charges=0),
    lambda d: d["powers"][0].update(step="whenever"),
    lambda d: d["powers"][0].update(step="rank"),
    lambda d: d["powers"][1].update(description="No full stop"),
    lambda d: d["powers"][2].update(name="<b>Counter</b>"),
    lambda d: d["powers"][3].pop("classroom"),
    lambda d: d["loadouts"][0].update(powers=["shield"] * 2),
    lambda d: d["loadouts"][0].update(powers=list(P.IDS[:6])),
    lambda d: d.update(default_loadout="nothing"),
    lambda d: d["computer_loadouts"].pop("hard"),
])
def test_loader_refuses_a_broken_catalogue(tmp_path, change):
    data = json.loads(P.PATH.read_text())
    change(data)
    with pytest.raises(ValueError):
        P.load_powers(_write(tmp_path, data))


def test_loader_accepts_the_shipped_file(tmp_path):
    data = json.loads(P.PATH.read_text())
    assert P.load_powers(_write(tmp_path, data))["version"] == P.VERSION


def test_power_rulings_are_catalogued():
    ids = {r["id"] for r in war.GAME.rulings if r["id"].startswith("war.power_")}
    assert {"war.power_cancel_refund", "war.power_counter_window", "war.power_default_loadout",
            "war.power_rank_then_replacement", "war.power_energy", "war.power_shield", "war.power_recovery",
            "war.power_scout", "war.power_sudden_death", "war.power_defense_before_counter"} <= ids
    text = {r["id"]: r["text"] for r in war.GAME.rulings}
    assert "half its cost in energy, rounded down" in text["war.power_cancel_refund"]
    assert "3 energy" in text["war.power_energy"] and "at most 10" in text["war.power_energy"]


# --------------------------------------------------------------------------
# Classic is untouched; the loadout phase

def test_a_classic_state_has_no_power_keys_and_refuses_power_moves():
    state = war.new({"mode": "classic"}, NAMES[:2], 3)
    assert "powers" not in state and "powers" not in war.view(state, 0)["public"]
    assert "powers" not in war.view(state, 0)["private"]
    assert set(state) == {"game", "version", "options", "names", "status", "rng", "faces", "decks", "battle",
                          "stage", "participants", "taps", "pot", "carried", "showing", "spent", "last_up",
                          "wins", "points", "out", "moment", "autoplay", "cycle", "sudden", "noted", "last",
                          "result"}
    assert refused("illegal", state, 0, {"type": "activate", "power": "boost", "target": None}) == \
        "This game is played without powers."
    assert war.GAME.order_free >= {"reveal", "autoplay", "loadout", "activate", "deactivate", "counter",
                                   "resolve"}
    assert E.VERSION == "war-4"


def test_the_loadout_phase_comes_before_the_first_reveal():
    state = rig("Q 3", "5 4", mode="power")
    assert state["powers"]["phase"] == "loadout" and state["participants"] == []
    assert refused("not_your_turn", state, 0, {"type": "reveal"}).startswith("Choose your loadout first")
    board = war.view(state, "board")
    assert board["prompt"]["waiting_for"] == [0, 1] and board["public"]["waiting_for"] == [0, 1]
    assert "choose their powers" in board["prompt"]["text"]
    # Picks are toggled one at a time (each a listed, order-free move), then Ready.
    for pid in ("shield", "boost", "swap", "counter", "scout"):
        state, log = war.apply(state, 0, {"type": "loadout", "powers": state["powers"]["draft"][0] + [pid],
                                          "ready": False})
        assert log == []
    assert not any(a["type"] == "loadout" and not a["ready"] and len(a["powers"]) > 5 for a in offered(state, 0))
    refused("illegal", state, 0, {"type": "loadout", "powers": list(P.IDS[:6]), "ready": True})
    assert war.view(state, 1)["private"]["powers"]["draft"] == []        # Ana's picks are hers alone
    assert "scout" not in strings_in(war.view(state, 1)) - strings_in(war.view(rig("Q 3", "5 4", mode="power"), 1))
    state, _ = war.apply(state, 1, {"type": "loadout", "powers": ["drain"], "ready": False})
    state, log = war.apply(state, 0, {"type": "loadout", "powers": ["shield", "boost", "swap", "counter", "scout"],
                                      "ready": True})
    assert texts(log) == ["Ana is ready."] and state["powers"]["phase"] == "loadout"   # Ben is choosing
    refused("illegal", state, 0, {"type": "loadout", "powers": ["boost"], "ready": True})
    state, log = war.apply(state, 1, {"type": "loadout", "powers": ["drain"], "ready": True})
    assert state["powers"]["phase"] == "play" and state["participants"] == [0, 1]
    assert "war.power_energy" in ruling_ids(log)
    assert state["powers"]["energy"] == [3, 3] and state["powers"]["charges"][1] == {"drain": 4}
    assert war.view(state, 1)["public"]["powers"]["seats"][0]["loadout"][0]["power"] == "shield"


def test_an_auto_playing_seat_gets_the_default_loadout_and_never_holds_up_the_table():
    state = rig("Q 3", "5 4", "7 8", mode="power")
    state, _ = war.apply(state, 0, {"type": "loadout", "powers": ["boost"], "ready": True})
    state, _ = war.apply(state, 1, {"type": "loadout", "powers": ["swap"], "ready": False})
    state, _ = war.apply(state, 2, {"type": "loadout", "powers": ["mirror", "drain"], "ready": False})
    state, log = war.apply(state, 2, {"type": "autoplay", "speed": 2})
    assert state["powers"]["phase"] == "loadout"                         # Ben is still choosing
    state, _ = war.apply(state, 1, {"type": "loadout", "powers": [], "ready": False})
    state, log = war.apply(state, 1, {"type": "autoplay", "speed": 1})
    assert state["powers"]["phase"] == "play"
    given = [e for e in log if e.get("id") == "war.power_default_loadout"]
    assert [(e["seat"], e["powers"], e["default"]) for e in given] == [
        (1, P.LOADOUTS["balanced"]["powers"], True), (2, ["mirror", "drain"], False)]
    assert state["powers"]["loadout"][1] == P.LOADOUTS["balanced"]["powers"]


def test_the_last_player_choosing_gets_a_deadline_then_the_default():
    state = rig("Q 3", "5 4", "7 8", mode="power")
    state, _ = war.apply(state, 0, {"type": "loadout", "powers": ["boost"], "ready": True})
    assert war.timers(state) == [] and P.DEADLINE_ACTION not in offered(state, 2)
    state, log = war.apply(state, 1, {"type": "loadout", "powers": ["swap"], "ready": True})
    assert state["powers"]["phase"] == "loadout"          # Cara is still choosing ...
    assert war.timers(state) == [{"key": "loadout:2:0", "after": P.LOADOUT_GRACE, "actor": 2,
                                  "action": P.DEADLINE_ACTION}]     # ... for 30 seconds more
    state, _ = war.apply(state, 2, {"type": "loadout", "powers": ["mirror"], "ready": False})
    assert war.timers(state)[0]["key"] == "loadout:2:1"          # a pick restarts her time
    state, _ = war.apply(state, 2, {"type": "loadout", "powers": [], "ready": False})
    assert P.DEADLINE_ACTION in offered(state, 2)
    refused("illegal", state, 1, P.DEADLINE_ACTION)        # only for the last one choosing
    state, log = war.apply(state, 2, P.DEADLINE_ACTION)    # the deadline fires
    assert state["powers"]["phase"] == "play" and state["participants"] == [0, 1, 2]
    given = [e for e in log if e.get("id") == "war.power_default_loadout"]
    assert [(e["seat"], e["default"], e["deadline"]) for e in given] == [(2, True, 30)]
    assert state["powers"]["loadout"][2] == P.LOADOUTS["balanced"]["powers"]


@pytest.mark.parametrize("level", ["easy", "standard", "hard"])
def test_computers_pick_their_level_s_loadout(level):
    state = rig("Q 3", "5 4", mode="power", computer_level=level)
    choice = check_bot_choice(war, state, 0)
    assert choice == {"type": "loadout", "powers": P.LOADOUTS[P.COMPUTER_LOADOUTS[level]]["powers"], "ready": True}


# --------------------------------------------------------------------------
# Energy, charges, cooldowns

def test_activation_pays_at_once_and_taking_back_refunds_in_full():
    state = powered("9 2 3", "T 4 5")
    state, log = go(state, (0, "boost"))
    pw = state["powers"]
    assert pw["energy"][0] == 1 and pw["charges"][0]["boost"] == 3
    assert {"type": "deactivate", "power": "boost"} in offered(state, 0)
    state, log = go(state, (0, "deactivate", "boost"))
    assert state["powers"]["energy"][0] == 3 and state["powers"]["charges"][0]["boost"] == 4
    assert texts(log) == ["You take back Boost and get 2 energy back."] and log[0]["visible_to"] == [0]
    state, _ = go(state, (0, "boost"), 0)
    # The reveal locks the choice.
    assert refused("illegal", state, 0, {"type": "deactivate", "power": "boost"}) == \
        "Your reveal has locked your powers for this round."
    assert refused("illegal", state, 0, {"type": "activate", "power": "swap", "target": None}) == \
        "Your reveal has locked your powers for this round."


def test_a_power_is_used_once_a_battle_and_cools_down():
    state = powered("9 2 3 4 5 6", "T 7 8 9 T J", loadouts=[["boost"], ["shield"]], energy=10)
    state, _ = go(state, (0, "boost"), 0, 1)        # battle 1: Ana's 9+2 = 11 beats the 10
    assert ranks(state, 0)[-2:] == [9, 10] and state["battle"] == 2
    assert state["powers"]["ready_at"][0]["boost"] == 3             # cooldown 1: not in battle 2
    assert refused("illegal", state, 0, {"type": "activate", "power": "boost", "target": None}) == \
        "Boost is cooling down for 1 more battle."
    state, _ = go(state, 0, 1)
    assert {"type": "activate", "power": "boost", "target": None} in offered(state, 0)


def test_charges_run_out_and_energy_is_capped():
    state = powered("9 2 3 4 5 6 7 8", "T 7 8 9 T J Q K", loadouts=[["salvage"], ["shield"]],
                    energy_max=5)
    state["powers"]["charges"][0]["salvage"] = 1
    state, _ = go(state, (0, "salvage"), 0, 1)
    assert state["powers"]["charges"][0]["salvage"] == 0
    for _ in range(5):
        state, _ = go(state, 0, 1)
        assert max(state["powers"]["energy"]) <= 5
    assert state["powers"]["energy"] == [5, 5]
    assert refused("illegal", state, 0, {"type": "activate", "power": "salvage", "target": None}) == \
        "Salvage has no charges left."
    state["powers"]["energy"][1] = 2
    assert refused("illegal", state, 1, {"type": "activate", "power": "shield", "target": None}) == \
        "Shield costs 3 energy; you have 2."


def test_energy_comes_in_each_battle_after_the_first():
    state = powered("9 2 3", "T 4 5", energy_start=0, energy_per_battle=2)
    assert state["powers"]["energy"] == [0, 0]
    state, _ = go(state, 0, 1)
    assert state["powers"]["energy"] == [2, 2]


# --------------------------------------------------------------------------
# Hidden choices

def test_chosen_powers_stay_hidden_from_everyone_else_until_the_last_reveal():
    state = powered("9 2 3", "T 4 5", "3 6 7", energy=6,
                    loadouts=[["drain", "momentum", "boost"], ["shield"], ["salvage"]])
    state, log = go(state, (0, "drain", 1), (0, "momentum"))
    assert all(e["visible_to"] == [0] for e in log)
    for viewer in (1, 2, "board", "facilitator"):
        seen = war.view(state, viewer)
        assert not {"drain", "momentum", "Drain", "Momentum"} & (strings_in(seen) - strings_in(
            seen["public"]["powers"]["catalogue"]) - {s for x in seen["public"]["powers"]["seats"]
                                                      for lo in x["loadout"] for s in (lo["power"], lo["name"])})
        mine = seen["public"]["powers"]["seats"][0]
        assert mine["chosen"] == 2 and mine["energy"] == 6       # as before the hidden choices
        assert {lo["power"]: lo["charges"] for lo in mine["loadout"]}.get("momentum") == 3
        assert seen["public"]["powers"]["used"] == []
    assert [c["power"] for c in war.view(state, 0)["private"]["powers"]["chosen"]] == ["drain", "momentum"]
    assert war.view(state, 0)["private"]["powers"]["energy"] == 3
    state, log = go(state, 0, 1)
    assert war.view(state, 1)["public"]["powers"]["seats"][0]["chosen"] == 2
    state, log = go(state, 2)
    used = war.view(state, "board")["public"]["powers"]["last"]
    assert [(u["seat"], u["power"], u["target"]) for u in used] == [(0, "drain", 1), (0, "momentum", None)]
    assert "Powers used: Ana: Drain on Ben; Ana: Momentum." in texts(log)
    assert "war.power_hidden_choices" in ruling_ids(log)


# --------------------------------------------------------------------------
# The resolution order, every pair of steps

def pair_1_2():
    """Shield (defense) has resolved before Counter: it cannot be countered."""
    state = powered("2 5 5", "K 9 9", loadouts=[["shield", "boost"], ["counter"]], energy=6)
    state, _ = go(state, (0, "shield"), (0, "boost"), 0, 1)
    assert state["powers"]["window"] == {"seats": [1], "done": []}
    assert offered(state, 1) == [{"type": "counter", "seat": 0, "power": "boost"}, {"type": "resolve"},
                                 {"type": "autoplay", "speed": 1}, {"type": "autoplay", "speed": 2},
                                 {"type": "autoplay", "speed": 4}]
    assert refused("illegal", state, 1, {"type": "counter", "seat": 0, "power": "shield"}) == \
        "Shield has already resolved: defense comes before Counter."
    state, log = go(state, (1, "counter", 0, "boost"))
    assert ranks(state, 0) == [5, 5, 2] and ranks(state, 1) == [9, 9, 13]
    assert status(state, 0, "shield") == "resolved" and status(state, 0, "boost") == "canceled"
    return log


def pair_1_3():
    """Drain (rank) makes the Shield's owner lose; Shield returns the card."""
    state = powered("J 4 4", "T 3 3", loadouts=[["shield"], ["drain"]])
    state, log = go(state, (0, "shield"), (1, "drain", 0), 0, 1)
    assert ranks(state, 0) == [4, 4, 11] and ranks(state, 1) == [3, 3, 10]
    return log


def pair_1_4():
    """Redraw (replacement) turns the Shield owner's King face down; both cards come back in order."""
    state = powered("K 2 7 7", "Q 3 3", loadouts=[["shield"], ["redraw"]])
    state, log = go(state, (0, "shield"), (1, "redraw", 0), 0, 1)
    assert ranks(state, 0) == [7, 7, 13, 2] and ranks(state, 1) == [3, 3, 12]
    return log


def pair_1_5():
    """Defense before battle modifiers: Shield returns the 2, then Double Stakes takes the next card."""
    state = powered("2 5 6", "K 3 3", loadouts=[["shield"], ["double_stakes"]])
    state, log = go(state, (0, "shield"), (1, "double_stakes"), 0, 1)
    assert ranks(state, 0) == [6, 2] and ranks(state, 1) == [3, 3, 13, 5]
    return log


def pair_1_6():
    """Recovery returns the loser's last two cards (in order); the winner's Momentum pays out."""
    state = powered("9 2 3 4 5 8", "9 6 6 6 K 7", loadouts=[["recovery"], ["momentum"]], energy=3)
    state, first = go(state, (0, "recovery"), (1, "momentum"), 0, 1)
    state, log = go(state, 0, 1)
    assert ranks(state, 0) == [8, 4, 5]
    assert state["powers"]["energy"] == [2, 5] and state["battle"] == 2 and max(state["powers"]["energy"]) <= 10
    return first + log


def pair_2_3():
    """Counter cancels Boost: the 9 stays a 9 and loses to the 10."""
    state = powered("9 2 3", "T 4 5", loadouts=[["boost"], ["counter"]])
    state, _ = go(state, (0, "boost"), 0, 1)
    state, log = go(state, (1, "counter", 0, "boost"))
    assert ranks(state, 1) == [4, 5, 9, 10]
    return log


def pair_2_4():
    """Counter cancels Swap: Ana's 3 is not replaced by her Ace."""
    state = powered("3 A 5", "9 4 4", loadouts=[["swap"], ["counter"]])
    state, _ = go(state, (0, "swap"), 0, 1)
    state, log = go(state, (1, "counter", 0, "swap"))
    assert ranks(state, 0) == [14, 5] and ranks(state, 1) == [4, 4, 3, 9]
    return log


def pair_2_5():
    """Counter cancels Double Stakes: Ana wins only the two cards."""
    state = powered("K 2 2", "5 3 3", loadouts=[["double_stakes"], ["counter"]])
    state, _ = go(state, (0, "double_stakes"), 0, 1)
    state, log = go(state, (1, "counter", 0, "double_stakes"))
    assert ranks(state, 0) == [2, 2, 13, 5] and ranks(state, 1) == [3, 3]
    return log


def pair_2_6():
    """Counter cancels Momentum: Ana wins but regains nothing (half of 1 is 0)."""
    state = powered("K 2 2", "5 3 3", loadouts=[["momentum"], ["counter"]])
    state, _ = go(state, (0, "momentum"), 0, 1)
    state, log = go(state, (1, "counter", 0, "momentum"))
    assert state["powers"]["energy"] == [2 + 1, 1 + 1]     # after battle 2's energy comes in
    assert next(e for e in log if e.get("id") == "war.power_cancel_refund")["refund"] == 0
    return log


def pair_3_4():
    """Boost applies to the Queen; Redraw then replaces it and the 5 counts plainly."""
    state = powered("Q 5 2", "K 3 3", loadouts=[["boost"], ["redraw"]])
    state, log = go(state, (0, "boost"), (1, "redraw", 0), 0, 1)
    assert ranks(state, 1) == [3, 3, 12, 13, 5] and "war.power_rank_then_replacement" in ruling_ids(log)
    return log


def pair_3_5():
    """Mirror (rank) forces the tie before Tiebreaker (modifier) decides it: Ben's Tiebreaker wins."""
    state = powered("5 2 2 2 2", "K 3 3 3 3", loadouts=[["mirror"], ["tiebreaker"]])
    state, log = go(state, (0, "mirror"), (1, "tiebreaker"), 0, 1)
    assert state["stage"] == 0 and state["battle"] == 2 and ranks(state, 1)[-2:] == [5, 13]
    assert "war.power_mirror" in ruling_ids(log) and "war.power_tiebreaker" in ruling_ids(log)
    return log


def pair_3_6():
    """Drain (rank) beats Ana's Jack, so her Salvage (post-win) has nothing to do."""
    state = powered("J 2 2", "T 3 3", loadouts=[["salvage"], ["drain"]])
    state, log = go(state, (0, "salvage"), (1, "drain", 0), 0, 1)
    assert ranks(state, 1) == [3, 3, 11, 10] and status(state, 0, "salvage") == "no_effect"
    return log


def pair_4_5():
    """Swap (replacement) turns up a King level with Ben's; Tiebreaker (modifier) then wins the tie."""
    state = powered("9 K 2", "K 3 3", loadouts=[["swap", "tiebreaker"], []], energy=5)
    state, log = go(state, (0, "swap"), (0, "tiebreaker"), 0, 1)
    assert ranks(state, 0) == [2, 9, 13, 13] and state["battle"] == 2 and state["stage"] == 0
    return log


def pair_4_6():
    """Redraw (replacement) turns Ben's King into a 2, so his Momentum (post-win) pays nothing."""
    state = powered("9 4 4", "K 2 5", loadouts=[["redraw"], ["momentum"]])
    state, log = go(state, (1, "momentum"), (0, "redraw", 1), 0, 1)
    assert ranks(state, 0) == [4, 4, 9, 13, 2] and status(state, 1, "momentum") == "no_effect"
    assert state["powers"]["energy"] == [1 + 1, 2 + 1]
    return log


def pair_5_6():
    """Double Stakes (modifier) adds Ben's 7, then Salvage (post-win) puts the King back on top."""
    state = powered("K 4", "5 7 8", loadouts=[["double_stakes", "salvage"], []], energy=4)
    state, log = go(state, (0, "double_stakes"), (0, "salvage"), 0, 1)
    assert ranks(state, 0) == [13, 4, 5, 7] and ranks(state, 1) == [8]
    return log


PAIRS = {(1, 2): pair_1_2, (1, 3): pair_1_3, (1, 4): pair_1_4, (1, 5): pair_1_5, (1, 6): pair_1_6,
         (2, 3): pair_2_3, (2, 4): pair_2_4, (2, 5): pair_2_5, (2, 6): pair_2_6, (3, 4): pair_3_4,
         (3, 5): pair_3_5, (3, 6): pair_3_6, (4, 5): pair_4_5, (4, 6): pair_4_6, (5, 6): pair_5_6}


def test_every_pair_of_steps_is_covered():
    assert set(PAIRS) == {(a, b) for a in range(1, 7) for b in range(a + 1, 7)}


@pytest.mark.parametrize("pair", sorted(PAIRS), ids=lambda p: f"steps{p[0]}-{p[1]}")
def test_resolution_order(pair):
    log = PAIRS[pair]()
    assert set(ruling_ids(log)) <= CATALOGUE
    # The power log lines come in step order: as each stage resolves, then when the pot is taken.
    for phase in ("resolve", "outcome"):
        steps = [e["step"] for e in log if e["t"] == "power" and e.get("phase") == phase]
        assert steps == sorted(steps), phase
    assert any(e.get("phase") == "resolve" for e in log)


def test_cancel_refund_half_energy_rounded_down_charge_lost_cooldown_started():
    state = powered("K 2 2", "5 3 3", loadouts=[["double_stakes"], ["counter"]], energy=7)
    state, _ = go(state, (0, "double_stakes"), 0, 1)
    assert state["powers"]["energy"] == [4, 7]
    state, log = go(state, (1, "counter", 0, "double_stakes"))
    refund = next(e for e in log if e.get("id") == "war.power_cancel_refund")
    assert (refund["seat"], refund["power"], refund["refund"], refund["cost"]) == (0, "double_stakes", 1, 3)
    pw = state["powers"]
    assert pw["charges"][0]["double_stakes"] == 1                 # the charge stays spent
    assert pw["ready_at"][0]["double_stakes"] == 1 + 3 + 1        # cooldown 3 from battle 1
    assert pw["energy"] == [4 + 1 + 1, 5 + 1]                     # refund, then battle 2's energy
    assert "Ben counters Ana's Double Stakes." in texts(log)
    assert status(state, 0, "double_stakes") == "canceled" and status(state, 1, "counter") == "resolved"


def test_counter_cannot_be_countered_and_counters_stay_hidden_until_the_window_closes():
    state = powered("9 2 2", "9 3 3", loadouts=[["boost", "counter"], ["boost", "counter"]], energy=6)
    state, log = go(state, (0, "boost"), (1, "boost"), 0, 1)
    assert state["powers"]["window"] == {"seats": [0, 1], "done": []}
    assert "Counter window: Ana and Ben may counter a power, or resolve the battle." in texts(log)
    state, log = go(state, (0, "counter", 1, "boost"))
    assert log[0]["visible_to"] == [0]
    seen = war.view(state, 1)
    assert seen["public"]["powers"]["window"] == {"seats": [0, 1], "decided": 1}
    assert all(u["power"] != "counter" for u in seen["public"]["powers"]["used"])
    assert seen["public"]["powers"]["seats"][0]["energy"] == 4     # the hidden Counter's cost not shown
    assert {"type": "counter", "seat": 0, "power": "counter"} not in offered(state, 1)
    assert refused("illegal", state, 1, {"type": "counter", "seat": 0, "power": "counter"}) == \
        "A Counter cannot be countered."
    state, log = go(state, (1, "counter", 0, "boost"))
    assert ruling_ids(log).count("war.power_cancel_refund") == 2 and "war.power_counter_window" in ruling_ids(log)
    assert status(state, 0, "counter", "used") == status(state, 1, "counter", "used") == "resolved"
    assert state["stage"] == 1     # both Boosts cancelled: 9 against 9 is a war


def test_the_counter_window_opens_only_when_someone_can_counter():
    state = powered("9 2 2", "T 3 3", loadouts=[["boost", "counter"], ["boost"]], energy=6)
    state, _ = go(state, (1, "boost"), 0, 1)
    assert state["powers"]["window"] == {"seats": [0], "done": []}
    assert war.view(state, "board")["prompt"]["waiting_for"] == [0]
    assert refused("not_your_turn", state, 1, {"type": "resolve"}) == "There is no counter window for you to close."
    state, log = go(state, (0, "resolve"))
    assert state["battle"] == 2 and ranks(state, 1)[-2:] == [9, 10]
    # Nobody chose a power Counter could cancel: no window.
    state = powered("9 2 2", "T 3 3", loadouts=[["shield", "counter"], ["shield"]], energy=6)
    state, _ = go(state, (1, "shield"), 0, 1)
    assert state["powers"]["window"] is None and state["battle"] == 2


def test_an_auto_playing_seat_passes_the_counter_window():
    state = powered("9 2 2", "T 3 3", loadouts=[["counter"], ["boost"]], energy=6)
    state, _ = go(state, (1, "boost"), 1, 0)
    state, log = war.apply(state, 0, {"type": "autoplay", "speed": 1})
    assert state["battle"] == 2 and "war.power_autoplay" in ruling_ids(log)
    state = powered("9 2 2", "T 3 3", loadouts=[["counter"], ["boost"]], energy=6)
    state, _ = war.apply(state, 0, {"type": "autoplay", "speed": 4})
    state, log = go(state, (1, "boost"), 1, 0)
    assert state["powers"]["window"] is None and state["battle"] == 2


def test_two_tiebreakers_cancel_out_and_the_war_goes_ahead():
    state = powered("9 2 2 2 5", "9 3 3 3 4", loadouts=[["tiebreaker"], ["tiebreaker"]])
    state, log = go(state, (0, "tiebreaker"), (1, "tiebreaker"), 0, 1)
    assert state["stage"] == 1
    rul = next(e for e in log if e.get("id") == "war.power_tiebreaker")
    assert rul["outcome"] == "cancel" and rul["seats"] == [0, 1]


def test_shield_returns_every_contribution_in_commitment_order():
    # A war: Ana's 9, then 2 3 4 face down and 5 up; Ben wins with a King.
    state = powered("9 2 3 4 5 8", "9 6 6 6 K 7", loadouts=[["shield"], []])
    state, _ = go(state, 1, (0, "shield"), 0)       # Ben taps first: the pot starts with his 9
    state, log = go(state, 0, 1)
    assert ranks(state, 0) == [8, 9, 2, 3, 4, 5]
    assert ranks(state, 1) == [7, 9, 6, 6, 6, 13]
    shield = next(e for e in log if e.get("id") == "war.power_shield")
    assert [c["rank"] for c in shield["cards"]] == [9, 2, 3, 4, 5]


def test_recovery_returns_the_two_latest_cards_in_the_same_order():
    state = powered("9 2 3 4 5 8", "9 6 6 6 K 7", loadouts=[["recovery"], []])
    state, _ = go(state, 0, 1)
    state, log = go(state, (0, "recovery"), 1, 0)   # chosen in the war stage
    assert ranks(state, 0) == [8, 4, 5]
    assert ranks(state, 1) == [7, 9, 9, 6, 6, 6, 13, 2, 3]
    assert "war.power_war_stages" in ruling_ids(log)


def test_shield_does_nothing_for_the_winner():
    state = powered("K 2", "5 3", loadouts=[["shield"], []])
    state, _ = go(state, (0, "shield"), 0, 1)
    assert status(state, 0, "shield") == "no_effect" and ranks(state, 0) == [2, 13, 5]


def test_swap_without_a_next_card_does_nothing():
    state = powered("3", "9 4 4", loadouts=[["swap"], []])
    state, log = go(state, (0, "swap"), 0, 1)
    assert "war.power_replacement_no_card" in ruling_ids(log) and war.result(state)["winners"] == [1]


def test_boost_can_go_above_an_ace():
    state = powered("A 2", "A 3", loadouts=[["boost"], []])
    state, log = go(state, (0, "boost"), 0, 1)
    assert "war.power_rank_limits" in ruling_ids(log) and state["battle"] == 2 and ranks(state, 1) == [3]


# --------------------------------------------------------------------------
# Scout

def test_scout_is_private_and_expires_on_the_next_reveal():
    state = powered("9 Q 3", "T 4 5", loadouts=[["scout"], []])
    state, _ = go(state, 0)
    state, log = go(state, (0, "scout"))                      # after her reveal: her next card
    assert texts(log)[0] == "Scout: your next card is the Queen of Spades." and log[0]["visible_to"] == [0]
    assert all(e.get("visible_to") == [0] for e in log)
    assert war.view(state, 0)["private"]["powers"]["scout"]["name"] == "Queen of Spades"
    for viewer in (1, "board", "facilitator"):
        seen = war.view(state, viewer)
        assert "Queen of Spades" not in strings_in(seen) and seen["public"]["powers"]["seats"][0]["chosen"] == 1
        assert not visible(log, viewer)
    state, log = go(state, 1)
    assert war.view(state, 0)["private"]["powers"]["scout"]["name"] == "Queen of Spades"   # still her next
    assert "Ana: Scout" in texts(log)[0 if texts(log)[0].startswith("Powers") else 1] or \
        any(t.startswith("Powers used: Ana: Scout") for t in texts(log))
    assert "Queen" not in " ".join(t for e in log if "visible_to" not in e for t in [e["text"]])
    state, log = go(state, 0)
    assert war.view(state, 0)["private"]["powers"]["scout"] is None
    assert [e for e in log if e.get("id") == "war.power_scout"][0]["reason"] == "reveal"
    assert all(e["visible_to"] == [0] for e in log if e.get("power") == "scout" or e.get("id") == "war.power_scout")


def test_scout_expires_on_a_swap():
    state = powered("3 Q 5", "T 4 5", loadouts=[["scout", "swap"], []], energy=5)
    state, _ = go(state, (0, "swap"), 0, (0, "scout"))
    assert war.view(state, 0)["private"]["powers"]["scout"]["rank"] == 12
    state, log = go(state, 1)
    expired = [e for e in log if e.get("id") == "war.power_scout"]
    assert expired and expired[0]["reason"] == "swap" and expired[0]["visible_to"] == [0]
    assert state["powers"]["scout"][0] is None and ranks(state, 0)[-3:] == [3, 10, 12]


def test_scout_expires_when_a_redraw_takes_the_card():
    state = powered("9 4 4", "3 Q 5", loadouts=[["redraw"], ["scout"]])
    state, _ = go(state, 1, (1, "scout"), (0, "redraw", 1))
    state, log = go(state, 0)
    assert state["powers"]["scout"][1] is None
    assert [e["reason"] for e in log if e.get("id") == "war.power_scout"] == ["swap"]


# --------------------------------------------------------------------------
# Sudden death

def test_sudden_death_disables_shield_recovery_and_scout():
    state = powered("9 2 3 4", "T 4 5 6", loadouts=[["shield", "recovery", "scout", "boost"], []], energy=9)
    state, _ = go(state, (0, "scout"))
    state["sudden"] = {"reason": "limit", "first_battle": 1, "left": 20}   # as if it had just begun
    state, _ = go(state, 0, 1)
    listed = {a.get("power") for a in offered(state, 0) if a["type"] == "activate"}
    assert listed == {"boost"}
    for pid in ("shield", "recovery", "scout"):
        assert refused("illegal", state, 0, {"type": "activate", "power": pid, "target": None}) == \
            f"{P.POWERS[pid]['name']} cannot be used in sudden death."
    assert war.view(state, "board")["public"]["powers"]["unavailable"] == ["shield", "recovery", "scout"]


def test_sudden_death_forgets_a_scouted_card():
    state = powered("9 2 3 4", "T 4 5 6", loadouts=[["scout"], []], energy=9)
    state, _ = go(state, 0, (0, "scout"))
    assert state["powers"]["scout"][0] is not None
    state["sudden"] = {"reason": "repeat", "first_battle": 1, "left": 20}
    state, log = go(state, 1)
    assert state["powers"]["scout"][0] is None
    assert "war.power_sudden_death" in ruling_ids(log)
    assert [e["reason"] for e in log if e.get("id") == "war.power_scout"] == ["sudden"]


# --------------------------------------------------------------------------
# Double Stakes and chips

def test_double_stakes_doubles_the_raise_for_the_wager_helper():
    state = powered("9 2 2 2 5", "9 3 3 3 4", loadouts=[["double_stakes"], []])
    state, _ = go(state, (0, "double_stakes"))
    assert P.raise_multiplier(state, 0) == 2 and P.raise_multiplier(state, 1) == 1
    assert not war.view(state, 1)["public"]["powers"]["seats"][0]["doubles_raise"]    # still hidden
    state, _ = go(state, 0, 1)                 # a war: now everyone knows
    assert war.view(state, 1)["public"]["powers"]["seats"][0]["doubles_raise"]
    assert P.raise_multiplier(war.new({"mode": "classic"}, NAMES[:2], 1), 0) == 1


def test_power_wager_mode_has_powers():
    state = war.new({"mode": "power_wager"}, NAMES[:3], 5)
    assert state["powers"]["phase"] == "loadout"


# --------------------------------------------------------------------------
# Computer levels

def ready_game(level: str, seed: int, n: int = 3) -> dict:
    state = war.new({"mode": "power", "computer_level": level}, NAMES[:n], seed)
    for p in range(n):
        state, _ = war.apply(state, p, strip_label(war.bot(war.view(state, p), war.actions(state, p),
                                                           random.Random(0))))
    return state


def bot_game(level: str, seed: int, n: int = 3, battles: int = 60) -> Counter:
    """Computers play; count the powers each level uses."""
    state = ready_game(level, seed, n)
    used = Counter()
    rng = random.Random(seed)
    for _ in range(battles * n * 4):
        if war.result(state) is not None:
            break
        for p in range(n):
            choice = war.bot(war.view(state, p), war.actions(state, p), rng)
            if choice is not None:
                action = strip_label(choice)
                state, _ = war.apply(state, p, action)
                if action["type"] in ("activate", "counter"):
                    used[action["power"] if action["type"] == "activate" else "counter"] += 1
                break
        else:
            raise AssertionError("nobody can move")
    return used


def test_every_level_uses_powers():
    # How well is test_war_levels.py's: one judgement, missed chances, loadouts and thrift by level.
    totals = {level: sum((bot_game(level, seed) for seed in range(3)), Counter()) for level in P.LEVELS}
    assert all(sum(totals[level].values()) > 0 for level in P.LEVELS), totals


def test_hard_counters_the_big_threats():
    state = powered("9 2 2", "T 3 3", loadouts=[["counter"], ["double_stakes", "boost"]], energy=6,
                    computer_level="hard")
    state, _ = go(state, (1, "double_stakes"), (1, "boost"), 0, 1)
    assert check_bot_choice(war, state, 0) == {"type": "counter", "seat": 1, "power": "double_stakes",
                                               "battle": state["battle"]}
    # Every level judges a counter window alike; easy lets it pass half the time, standard and hard never.
    easy = dict(state, options={**state["options"], "computer_level": "easy"})
    picks = [check_bot_choice(war, easy, 0, seed)["type"] for seed in range(40)]
    assert "resolve" in picks and "counter" in picks
    assert {check_bot_choice(war, state, 0, seed)["type"] for seed in range(40)} == {"counter"}


def test_the_bot_uses_a_scouted_card_well():
    state = powered("K 2 2", "5 3 3", loadouts=[P.LOADOUTS["tactical"]["powers"], []], energy=8,
                    computer_level="hard")
    state, _ = go(state, (0, "scout"))
    assert check_bot_choice(war, state, 0) == {"type": "activate", "power": "double_stakes", "target": None,
                                               "battle": state["battle"]}


# --------------------------------------------------------------------------
# Seeded power-mode games through the generic property harness

def power_hungry(moves, rng):
    """Random moves that use powers often: a power move when one is on offer (40%),
    the teacher's finish rarely, auto-play now and then, otherwise any move."""
    powers = [m for m in moves if isinstance(m[1], dict) and m[1].get("type") in ("activate", "counter", "deactivate")]
    finish = [m for m in moves if m[1] == FINISH]
    auto = [m for m in moves if m[1].get("type") == "autoplay"]
    controls = [m for m in moves if m[1].get("type") in CONTROLS]
    rest = [m for m in moves if m not in powers and m not in finish and m not in auto and m not in controls]
    if finish and rng.random() < 0.0005:
        return finish[0]
    if powers and rng.random() < 0.4:
        return rng.choice(powers)
    if auto and rng.random() < 0.01:
        return rng.choice(auto)
    # Pausing your own play and restarting have their own tests (test_war_controls.py).
    return rng.choice(rest or auto or finish)


def play_power(seed: int, n: int, length: str, **kwargs):
    return play_random_game(war, seats=NAMES[:n], seed=seed,
                            options={"mode": "power", "length": length, "energy_start": seed % 7},
                            secret_ids=secret_ids, invariant=power_invariant, scramble=power_scramble,
                            choose=power_hungry, **kwargs)


POWER_CASES = [pytest.param(seed, marks=[pytest.mark.slow] if seed >= 3 else []) for seed in range(60)]
LENGTH_CHOICES = ["first_to_30_cards", "full_elimination", "first_to_25_points", "first_to_40_cards"]


@pytest.mark.parametrize("seed", POWER_CASES)
def test_random_power_games_keep_every_property(seed):
    n = 2 + seed % 5
    played = play_power(seed, n, LENGTH_CHOICES[seed % 4], full_every=1 if seed % 10 == 0 else 9,
                        max_steps=40_000)
    check_result(played.state, n)
    assert {e["t"] for e in played.log} <= set(E.LOG_KINDS)
    assert {e["id"] for e in played.log if e["t"] == "ruling"} <= CATALOGUE


def test_random_power_games_reach_every_power_ruling():
    seen = Counter()
    for seed in range(12):
        n = 2 + seed % 3
        played = play_power(1000 + seed, n, "first_to_40_cards", full_every=97, max_steps=40_000)
        seen.update(e["id"] for e in played.log if e["t"] == "ruling")
    rare = {"war.power_sudden_death", "war.power_replacement_no_card"}     # each has its rule test
    missing = {r for r in CATALOGUE if r.startswith("war.power_")} - set(seen) - rare
    assert not missing, missing


BOT_CASES = [pytest.param(level, seed, marks=[pytest.mark.slow] if seed >= 1 else [])
             for level in P.LEVELS for seed in range(10)]


@pytest.mark.parametrize("level, seed", BOT_CASES)
def test_computer_power_games_end_and_bots_see_only_their_seat(level, seed):
    n = 2 + seed % 4
    state = war.new({"mode": "power", "computer_level": level, "length": "first_to_40_cards"}, NAMES[:n], seed)
    rng = random.Random(seed)
    steps, checked = 0, 0
    while war.result(state) is None:
        steps += 1
        assert steps < 30_000, "a computer game did not end"
        power_invariant(state)
        movers = [p for p in range(n) if war.actions(state, p)]
        seat = rng.choice(movers)
        if steps % 13 == 0:
            check_bot_privacy(war, state, seat, power_scramble, tries=2, seeds=(0, 1))
            checked += 1
        choice = war.bot(war.view(state, seat), war.actions(state, seat), random.Random(steps))
        if choice is None:
            choice = next(a for a in war.actions(state, seat) if a["type"] in ("reveal", "resolve")) \
                if any(a["type"] in ("reveal", "resolve") for a in war.actions(state, seat)) else None
        if choice is None:
            continue
        state, _ = war.apply(state, seat, strip_label(choice))
    check_result(state, n)
    assert checked > 0


def test_power_scramble_keeps_what_the_seat_sees():
    state = powered("9 2 3 4", "T 4 5 6", "3 7 8 9", energy=6,
                    loadouts=[["boost", "drain", "swap"], ["boost", "drain", "shield"], ["momentum"]])
    state, _ = go(state, (1, "drain", 0), (1, "shield"))
    for seed in range(5):
        other = power_scramble(state, 0, random.Random(seed))
        assert war.view(other, 0) == war.view(state, 0)
        assert war.view(other, 2) == war.view(state, 2)


def test_a_carried_pot_leaves_set_powers_without_effect():
    state = powered("9 2", "9 3", "5 6 6", "4 7 7", loadouts=[["shield"], [], [], []])
    state, log = go(state, (0, "shield"), 0, 1, 2, 3)
    assert "war.pot_carries_over" in ruling_ids(log)
    assert status(state, 0, "shield") == "no_effect" and state["out"][0] is not None
    assert sum(len(d) for d in state["decks"]) + len(state["pot"]) == 10


def test_hard_counters_only_what_changes_the_outcome():
    flip = powered("9 2 2", "8 3 3", loadouts=[["counter"], ["boost", "momentum"]], energy=6,
                   computer_level="hard")
    flip, _ = go(flip, (1, "boost"), (1, "momentum"), 0, 1)      # Ben's 8 + 2 beats Ana's 9
    assert check_bot_choice(war, flip, 0) == {"type": "counter", "seat": 1, "power": "boost",
                                              "battle": flip["battle"]}
    safe = powered("K 2 2", "8 3 3", loadouts=[["counter"], ["boost", "momentum"]], energy=6,
                   computer_level="hard")
    safe, _ = go(safe, (1, "boost"), (1, "momentum"), 0, 1)      # Ana's King wins anyway
    assert check_bot_choice(war, safe, 0) == {"type": "resolve", "battle": safe["battle"]}


def test_a_looping_power_game_reaches_sudden_death_without_shield_recovery_or_scout():
    # The 3-seat deal of seed 6, tapped in seat order without powers, loops (as in
    # Classic): the repeat shuffle, then sudden death.
    state = war.new({"mode": "power"}, NAMES[:3], 6)
    for seat in range(3):
        state, _ = war.apply(state, seat, {"type": "loadout", "powers": P.LOADOUTS["balanced"]["powers"],
                                           "ready": True})
    seen = Counter()
    checked = False
    while war.result(state) is None:
        seat = next(p for p in range(3) if any(a["type"] == "reveal" for a in offered(state, p)))
        if state["sudden"] is not None and not checked:
            listed = {a["power"] for a in offered(state, seat) if a["type"] == "activate"}
            assert listed and not listed & {"shield", "recovery", "scout"}
            refused("illegal", state, seat, {"type": "activate", "power": "shield", "target": None})
            checked = True
        state, log = war.apply(state, seat, {"type": "reveal"})
        seen.update(e["id"] for e in log if e["t"] == "ruling")
    assert checked and seen["war.power_sudden_death"] == 1 and seen["war.repeat_shuffle"] == 1
    assert war.result(state)["reason"] == "sudden_death"
