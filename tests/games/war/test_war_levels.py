"""War's computer levels where the computer has choices: in Power War (which power,
when) one judgement for every level, with missed chances, loadouts and thrift by level (the Wager Battle
bets: test_war_wager.py). Classic War leaves a computer no choice: every level plays it
the same, and the option says so. The win rates are bench/computer_strength.py's."""
from __future__ import annotations

import random

from app.engines import war
from app.engines.contract import strip_label
from app.engines.war import engine as E
from app.engines.war import powers as P

from engines.properties import check_bot_choice
from .test_war_powers import go, powered
from .test_war_rules import NAMES


def at_level(state: dict, level: str) -> dict:
    return dict(state, options={**state["options"], "computer_level": level})


def battle(state: dict) -> int:
    return state["battle"]


# --------------------------------------------------------------------------
# Classic War: nothing to choose

def test_every_level_plays_classic_war_the_same_and_the_option_says_so():
    def played(level: str) -> dict:
        state = war.new({"computer_level": level, "length": "first_to_30_cards"}, NAMES[:3], 7)
        rng = random.Random(7)
        while war.result(state) is None:
            seat = war.view(state, "board")["prompt"]["waiting_for"][0]
            choice = war.bot(war.view(state, seat), war.actions(state, seat), rng)
            state, _ = war.apply(state, seat, strip_label(choice))
        return {k: v for k, v in state.items() if k != "options"}
    assert played("easy") == played("standard") == played("hard")
    option = next(o for o in war.GAME.options if o.key == "computer_level")
    assert "Classic War has no choices to make, so there every level plays the same" in option.help


# --------------------------------------------------------------------------
# Power War: one judgement; levels differ in attention, loadout and thrift

def test_hard_redraws_an_opponents_ace_it_can_see():
    state = powered("A 2 2", "5 3 3", loadouts=[["boost"], ["redraw", "boost"]], energy=6, computer_level="hard")
    state, _ = go(state, 0)                                   # Ana reveals her Ace first
    assert check_bot_choice(war, state, 1) == {"type": "activate", "power": "redraw", "target": 0,
                                               "battle": battle(state)}


def test_hard_keeps_a_charge_when_nothing_is_known():
    state = powered("9 2 2", "5 3 3", loadouts=[["boost"], ["boost", "double_stakes"]], energy=6,
                    computer_level="hard")
    assert check_bot_choice(war, state, 0)["type"] == "reveal"   # a blind Boost is not worth a charge


def test_a_scouted_low_card_is_swapped_by_standard_and_a_high_one_staked():
    loadout = ["scout", "swap", "double_stakes", "boost"]
    low = powered("2 K 2", "9 3 3", loadouts=[loadout, ["boost"]], energy=8, computer_level="hard")
    low, _ = go(low, (0, "scout"))                            # her next card is a 2
    # A Swap turns a sure loss of one card into an even gamble for two: about half a card,
    # worth one energy and a charge to standard, not to hard (which keeps them for a war).
    assert check_bot_choice(war, at_level(low, "standard"), 0)["power"] == "swap"
    assert check_bot_choice(war, low, 0)["type"] == "reveal"
    high = powered("K 2 2", "9 3 3", loadouts=[loadout, ["boost"]], energy=8, computer_level="hard")
    high, _ = go(high, (0, "scout"))                          # a King
    assert check_bot_choice(war, high, 0)["power"] == "double_stakes"


def test_a_war_is_worth_a_shield():
    state = powered("9 2 2 2 5 6", "9 3 3 3 4 7", loadouts=[["shield"], ["boost"]], energy=6,
                    computer_level="hard")
    assert check_bot_choice(war, state, 0)["type"] == "reveal"   # one card at stake: kept
    state, _ = go(state, 0, 1)                                # 9 against 9: war
    assert check_bot_choice(war, state, 0)["power"] == "shield"


def test_easy_misses_half_its_chances_and_standard_and_hard_none():
    state = powered("A 2 2", "5 3 3", loadouts=[["boost"], ["redraw", "boost", "drain"]], energy=6)
    state, _ = go(state, 0)
    for level in ("standard", "hard"):
        judged = check_bot_choice(war, at_level(state, level), 1)
        assert judged["power"] == "redraw"                    # Ana's Ace, seen: both redraw it
        assert {str(check_bot_choice(war, at_level(state, level), 1, seed)) for seed in range(40)} == {str(judged)}
    picks = [check_bot_choice(war, at_level(state, "easy"), 1, seed) for seed in range(200)]
    missed = [p for p in picks if p != judged]
    assert {p["type"] for p in missed} == {"reveal"}          # a miss is never a wasted power
    assert 0.3 < len(missed) / len(picks) < 0.7, len(missed)
    # A careless slip (any listed move) cost more than a miss: easy slipping half the time
    # won 54 % against a random player, missing half its chances 59 % (500 and 400 games).
    assert P.MISSES == {"easy": 0.5, "standard": 0.0, "hard": 0.0}
    assert not hasattr(P, "SLIPS")
    assert P.COMPUTER_LOADOUTS == {"easy": "plain", "standard": "balanced", "hard": "tactical"}
    assert set(P.COMPUTER_LOADOUTS) == set(E.LEVELS)


def test_hard_keeps_its_energy_where_standard_spends_it():
    # Ana shows a 9: Ben's unseen card loses to it a little over half the time, one card at stake.
    for power in ("shield", "redraw", "mirror"):
        state = powered("9 2 2", "5 3 3", loadouts=[["boost"], [power]], energy=6)
        state, _ = go(state, 0)
        assert check_bot_choice(war, at_level(state, "standard"), 1)["power"] == power
        assert check_bot_choice(war, at_level(state, "hard"), 1)["type"] == "reveal", power
    # Ana shows a 5: Ben is likely ahead; standard stakes double, hard keeps Double Stakes.
    state = powered("5 2 2", "5 3 3", loadouts=[["boost"], ["double_stakes"]], energy=6)
    state, _ = go(state, 0)
    assert check_bot_choice(war, at_level(state, "standard"), 1)["power"] == "double_stakes"
    assert check_bot_choice(war, at_level(state, "hard"), 1)["type"] == "reveal"
    # Against an Ace both levels redraw: the power turns a sure loss.
    state = powered("A 2 2", "5 3 3", loadouts=[["boost"], ["redraw"]], energy=6)
    state, _ = go(state, 0)
    for level in ("standard", "hard"):
        assert check_bot_choice(war, at_level(state, level), 1)["power"] == "redraw"
    assert P.ENERGY_WORTH == {"easy": 0.05, "standard": 0.05, "hard": 0.15}
