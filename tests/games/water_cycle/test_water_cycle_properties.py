"""Water Cycle Challenge under random play: many seeded games of 2, 3 and 4
players, with and without Crisis Mode, checked by the engine property harness
(contract, no hidden-information leak, replay equals snapshot, the game ends)
and the bot-privacy property (a computer player's choice depends only on what
its seat may see)."""
from __future__ import annotations

import random

import pytest

from app.engines import water_cycle as game
from app.engines.water_cycle.hidden import scramble, secret_ids
from app.engines.water_cycle import engine as E

from engines.properties import check_bot_privacy, play_random_game, replay
from .test_water_cycle_rules import check_cards

NAMES = ["Ana", "Ben", "Cara", "Dev"]


def _explain_text(moves, chooser):
    """Random play, with a few words filled into free-text actions."""
    actor, action = chooser.choice(moves)
    if action.get("type") == "explain":
        action = dict(action, text=chooser.choice(["Rain refills the dam.", "x", "We share water fairly."]))
    if action.get("type") == "reject":
        action = dict(action, reason=chooser.choice(["", "Not about water."]))
    return actor, action


# 204 games; the fast suite plays the first 12 seeds of each kind, CI all of them.
CASES = [pytest.param(n, mode, seed, marks=[pytest.mark.slow] if seed >= 12 else [])
         for n in (2, 3, 4) for mode in ("on", "off") for seed in range(34)]


@pytest.mark.parametrize("n,mode,seed", CASES)
def test_random_games_keep_every_property(n, mode, seed):
    options = {"crisis_mode": mode, "rounds": 10, "votes": random.Random(seed).choice(E.VOTE_MODES),
               "vote_seconds": 30}
    played = play_random_game(game, seats=NAMES[:n], seed=seed, options=options, secret_ids=secret_ids,
                              invariant=check_cards, scramble=scramble, full_every=5, max_steps=20_000,
                              choose=_explain_text, exclude=("finish",) if seed % 3 else ())
    assert game.result(played.state) is not None
    assert replay(game, options, NAMES[:n], seed, played.history) == played.state


@pytest.mark.parametrize("seed", range(4))
def test_bots_see_only_their_own_seat_in_every_prompt(seed):
    """Bot privacy, every seat, at many points of games that reach every prompt."""
    played = play_random_game(game, seats=NAMES[:4], seed=100 + seed, options={"rounds": 10}, keep_states=60,
                              full_every=3, choose=_explain_text, exclude=("finish",), max_steps=20_000)
    kinds = set()
    for state in played.states:
        kinds.add((state["pending"] or {}).get("kind"))
        for seat in range(4):
            check_bot_privacy(game, state, seat, scramble, tries=2)
    assert {None, "crisis"} <= kinds
