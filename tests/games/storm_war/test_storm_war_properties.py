"""Storm War under random play: many seeded games of 2, 3 and 4 trainees
checked by the engine property harness (contract, no hidden-information leak,
replay equals snapshot, the game ends, all 143 cards conserved) and the
bot-privacy property."""
from __future__ import annotations

import pytest

from app.engines import storm_war as game
from app.engines.storm_war.hidden import scramble, secret_ids
from app.engines.storm_war import content

from engines.properties import check_bot_privacy, play_random_game, replay

NAMES = ["Ana", "Ben", "Cara", "Dev"]


def conserved(state: dict) -> None:
    """All 143 cards, each exactly once, in a deck, discard, hand, Jobsite, capture,
    donation or on the Environment."""
    places = list(state["deck"]) + list(state["discard"]) + [c for h in state["hands"] for c in h]
    for j in state["jobsites"]:
        places += j["bmp"] + j["chaos"] + j["mentor"] + [t["id"] for t in j["tools"]]
    places += [c for cap in state["captured"] for c in cap]
    if state["degrader"]:
        places.append(state["degrader"]["id"])
    if state["challenge"]:
        places += list(state["challenge"]["donations"].values())
    assert len(places) == len(set(places)) == 143, f"{len(places)} cards in play"
    assert sorted(state["faces"][c] for c in places) == sorted(content.CARDS), "a card is missing or doubled"
    assert set(state["faces"]) == set(places), "an id points at no card"


def _mostly_bots(moves, chooser):
    """Random legal moves, but a challenge now and then and mostly passes while one is
    open, so games reach cleanups (pure random play manages its Jobsite forever)."""
    actor, action = chooser.choice(moves)
    if chooser.random() < 0.6:
        preferred = [m for m in moves if m[1].get("type") in ("pass", "challenge", "apply", "equip", "choose")]
        if preferred:
            actor, action = chooser.choice(preferred)
    return actor, action


# 120 games; the fast suite plays the first 4 seeds of each kind, CI all of them.
CASES = [pytest.param(n, goal, seed, marks=[pytest.mark.slow] if seed >= 4 else [])
         for n in (2, 3, 4) for goal in (3, 5) for seed in range(20)]


@pytest.mark.parametrize("n,goal,seed", CASES)
def test_random_games_keep_every_property(n, goal, seed):
    options = {"goal": goal}
    played = play_random_game(game, seats=NAMES[:n], seed=seed, options=options, secret_ids=secret_ids,
                              invariant=conserved, scramble=scramble, full_every=6, max_steps=20_000,
                              choose=_mostly_bots, exclude=("finish",) if seed % 4 else ())
    assert game.result(played.state) is not None
    assert replay(game, options, NAMES[:n], seed, played.history) == played.state


@pytest.mark.parametrize("seed", range(3))
def test_bots_see_only_their_own_seat(seed):
    played = play_random_game(game, seats=NAMES[:4], seed=50 + seed, keep_states=40, full_every=4,
                              choose=_mostly_bots, exclude=("finish",), max_steps=20_000)
    phases = set()
    for state in played.states:
        phases.add(state["phase"])
        for seat in range(4):
            check_bot_privacy(game, state, seat, scramble, tries=2)
    assert phases == {"manage", "respond"}
