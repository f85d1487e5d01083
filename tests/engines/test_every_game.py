"""The engine property harness and the bot-privacy property, run on every registered game.

A game registers itself by being a package (app/engines/<key>/, or another
package named in GAME_MODULES, like the test game under tests/testgames/). To
be checked here it must also say, below, what its seats may not see: the ids
that must never reach another viewer (`secret_ids`) and how to permute
everything a seat cannot see (`scramble`). A registered game without that
fails `test_every_registered_game_is_checked`, so no game slips through.
"""
from __future__ import annotations

import pytest

from app import engines

from . import (test_dicerace, test_storm_war_properties, test_war_powers, test_war_properties,
               test_water_cycle_properties, test_wizard_properties)
from .properties import play_random_game

engines.register("testgames.dicerace")

NAMES = ["Ana", "Ben", "Cara", "Dev", "Eli", "Fay"]


def _dicerace_scramble(state, seat, rng):
    return test_dicerace.hidden_from(state, seat, rng=rng)


# What each game hides, for the generic checks: {key: (secret_ids or None, scramble, options)};
# "key:mode" checks one more mode of a game (its options name the mode).
HIDDEN = {
    "war": (test_war_properties.secret_ids, test_war_properties.scramble, {}),
    "war:power": (test_war_properties.secret_ids, test_war_powers.power_scramble, {"mode": "power"}),
    "dicerace": (None, _dicerace_scramble, {"goal": 10}),
    "storm_war": (test_storm_war_properties.secret_ids, test_storm_war_properties.scramble, {}),
    "wizard": (None, test_wizard_properties.scramble, {}),
    "water_cycle": (test_water_cycle_properties.secret_ids, test_water_cycle_properties.scramble, {"rounds": 10}),
}


def test_every_registered_game_is_checked():
    assert set(engines.keys()) <= set(HIDDEN), "say what a new game hides in HIDDEN, so it is checked"


@pytest.mark.parametrize("key", sorted(HIDDEN))
@pytest.mark.parametrize("seed", range(3))
def test_random_games_keep_the_contract_and_bots_see_only_their_seat(key, seed):
    engine = engines.get(key.split(":")[0])
    secret_ids, scramble, options = HIDDEN[key]
    spec = engine.GAME
    lo, hi = spec.seat_range(dict(options or {}))   # the seats a table with these options takes
    for n in range(lo, hi + 1):
        played = play_random_game(engine, seats=NAMES[:n], seed=1000 * seed + n, options=options,
                                  secret_ids=secret_ids, scramble=scramble, full_every=7, max_steps=5_000)
        assert engine.result(played.state) is not None and played.steps > 0


# A game's modes, checked like games of their own: (key, options).
MODES = [
    ("war", {"mode": "wager"}),
]


@pytest.mark.parametrize("key, options", MODES)
@pytest.mark.parametrize("seed", range(3))
def test_every_mode_keeps_the_contract_and_bots_see_only_their_seat(key, options, seed):
    engine = engines.get(key)
    secret_ids, scramble, _ = HIDDEN[key]
    lo, hi = engine.GAME.seat_range(dict(options))
    for n in range(lo, hi + 1):
        played = play_random_game(engine, seats=NAMES[:n], seed=1000 * seed + n, options=options,
                                  secret_ids=secret_ids, scramble=scramble, full_every=7, max_steps=5_000)
        assert engine.result(played.state) is not None and played.steps > 0
