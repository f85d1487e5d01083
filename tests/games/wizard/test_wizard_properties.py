"""The Wizard duel under random play: hundreds of seeded duels checked by the
engine property harness (contract, replay equals snapshot, the duel ends,
every spell in exactly one place) and the bot-privacy property: permuting the
face-down spells (the computer's own future draw order included) and the dice
generator never changes what the computer sees or chooses."""
from __future__ import annotations

import pytest

from app.engines import wizard as game
from app.engines.wizard.hidden import scramble

from engines.properties import check_bot_privacy, play_random_game, replay

NAMES = ["Ana", "Ben"]


def spells_conserved(state: dict) -> None:
    places = state["decks"][0] + state["decks"][1] + state["revealed"][0] + state["revealed"][1]
    a = state["attack"]
    if a:
        places += [a["spell"]] + ([a["defense"]] if a["defense"] else [])
    assert sorted(places) == list(range(1, 41)), "a spell is missing or in two places"


def _sensible(moves, chooser):
    """Random legal moves with a lean towards casting, so duels reach their end."""
    casts = [m for m in moves if m[1].get("type") in ("cast", "roll", "draw", "continue")]
    return chooser.choice(casts if casts and chooser.random() < 0.8 else moves)


# 204 duels; the fast suite plays the first 40 seeds of each kind, CI all of them.
CASES = [pytest.param(opponent, seed, marks=[pytest.mark.slow] if seed >= 40 else [])
         for opponent in ("human", "computer") for seed in range(102)]


@pytest.mark.parametrize("opponent,seed", CASES)
def test_random_duels_keep_every_property(opponent, seed):
    options = {"opponent": opponent, "match": "online" if seed % 2 else "table"}
    played = play_random_game(game, seats=NAMES, seed=seed, options=options, invariant=spells_conserved,
                              scramble=scramble, full_every=5, max_steps=20_000, choose=_sensible,
                              exclude=("finish",) if seed % 5 else ())
    assert game.result(played.state) is not None
    assert replay(game, options, NAMES, seed, played.history) == played.state


@pytest.mark.parametrize("seed", range(4))
def test_the_computer_sees_only_its_seat(seed):
    played = play_random_game(game, seats=NAMES, seed=200 + seed, options={"opponent": "computer"},
                              keep_states=50, full_every=2, choose=_sensible, exclude=("finish",),
                              max_steps=20_000)
    for state in played.states:
        for seat in (0, 1):
            check_bot_privacy(game, state, seat, scramble, tries=2)
